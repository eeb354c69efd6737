// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A network device's identity, for the keys that name one (net.<dev>.*, and
 * the sysctls of net.<proto>.conf|neigh.<dev>): its ifindex, unique in its
 * network namespace and never handed out again while the namespace lives
 * (dev_index_reserve(): the next free one above the last), and that
 * namespace: its inode (/proc/self/ns/net), and where the kernel gives it
 * (5.14), its cookie, which no other namespace of this boot gets (an inode
 * number does come back, to a namespace made after this one is gone, whose
 * devices count their ifindexes from 1 again).  A device deleted and made
 * again under its name has another ifindex; a renamed one keeps its ifindex.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "net/netdev.h"

#define NET_DIR "sys/class/net"
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* 5.14 */
#endif

/* the cookie of this process's network namespace, 0 where the kernel (or a root) has none */
static unsigned long long netns_cookie(struct perftune_ctx *ctx)
{
	unsigned long long c = 0;
	socklen_t n = sizeof(c);
	_cleanup_close_ int fd = -1;

	if (!pt_root_is_host(ctx))
		return 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &n) < 0 || n != sizeof(c))
		return 0;
	return c;
}

/* the inode of the network namespace a link "net:[<ino>]" names, 0 if not shown */
static unsigned long long netns_of(struct perftune_ctx *ctx, const char *link)
{
	char l[64];

	if (pt_attr_readlink(ctx, link, l, sizeof(l)) < 0 || strncmp(l, "net:[", 5))
		return 0;
	return strtoull(l + 5, NULL, 10);
}

int pt_netdev_identity(struct perftune_ctx *ctx, const char *dev, char *buf, size_t size)
{
	char p[PATH_MAX], idx[32];
	unsigned long long ns = netns_of(ctx, "proc/self/ns/net");
	int r;

	buf[0] = '\0';
	if (pt_snprintf(p, sizeof(p), NET_DIR "/%s/ifindex", dev) < 0 ||
	    pt_attr_read(ctx, p, idx, sizeof(idx)) < 0) { /* none: its write will say why */
		pt_err_clear(ctx);
		return 0;
	}
	r = pt_snprintf(buf, size, "ifindex=%s", idx);
	if (r >= 0 && ns)
		r = pt_snprintf(buf + strlen(buf), size - strlen(buf), " netns=%llu", ns);
	if (r >= 0 && ns && netns_cookie(ctx))
		r = pt_snprintf(buf + strlen(buf), size - strlen(buf), " cookie=%llu",
				netns_cookie(ctx));
	if (r < 0)
		return r;
	return 0;
}

/* " net:[<ns>] " in /proc/self/mountinfo, read whole: 1, 0 not there, -errno cannot tell */
static int mounted(struct perftune_ctx *ctx, unsigned long long ns)
{
	_cleanup_close_ int fd = pt_attr_open(ctx, "proc/self/mountinfo", O_RDONLY);
	char want[40], buf[8192 + 40];
	size_t keep = 0, wl = (size_t)snprintf(want, sizeof(want), " net:[%llu] ", ns);

	if (fd < 0)
		return fd;
	for (;;) { /* a chunk, after the tail of the one before (a match across the two) */
		ssize_t n = read(fd, buf + keep, sizeof(buf) - 1 - keep);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				return -errno;
			return 0;
		}
		buf[keep + (size_t)n] = '\0';
		if (strstr(buf, want))
			return 1;
		keep = keep + (size_t)n < wl ? keep + (size_t)n : wl;
		memmove(buf, buf + strlen(buf) - keep, keep);
	}
}

/*
 * A namespace lives while a process is in it or a mount holds it (ip netns:
 * /run/netns/<name>: an nsfs mount, whose root is the namespace); one held
 * only by an open file is missed.  Where that cannot be told: alive.
 */
static bool netns_alive(struct perftune_ctx *ctx, unsigned long long ns)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "proc");
	struct dirent *de;
	char link[64];

	if (!d || mounted(ctx, ns) != 0)
		return true;
	while (d && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) &&
		    snprintf(link, sizeof(link), "proc/%s/ns/net", de->d_name) < (int)sizeof(link) &&
		    netns_of(ctx, link) == ns)
			return true;
	return false;
}

/* the device of ifindex @idx here, in @out ("" if none) */
static void dev_by_index(struct perftune_ctx *ctx, long idx, char *out, size_t size)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, NET_DIR);
	struct dirent *de;

	out[0] = '\0';
	while (d && (de = readdir(d))) {
		char p[PATH_MAX], v[32];
		if (de->d_name[0] != '.' &&
		    pt_snprintf(p, sizeof(p), NET_DIR "/%s/ifindex", de->d_name) >= 0 &&
		    pt_attr_read(ctx, p, v, sizeof(v)) >= 0 && atol(v) == idx) {
			snprintf(out, size, "%s", de->d_name);
			break;
		}
	}
	pt_err_clear(ctx);
}

/* where the device journaled as @f->id, named @dev by its key, is now (its name in @out) */
static int find(struct perftune_ctx *ctx, struct pt_found *f, const char *dev, char *out,
		size_t size)
{
	unsigned long long ns = 0, here = netns_of(ctx, "proc/self/ns/net"), cookie = 0, now;
	long idx = 0;

	out[0] = '\0';
	if (sscanf(f->id, "ifindex=%ld netns=%llu cookie=%llu", &idx, &ns, &cookie) < 1)
		return pt_err(ctx, -EINVAL,
			      "%s: journaled as '%s': not a network device's identity", f->key,
			      f->id);
	if (ns && ns == here && cookie && (now = netns_cookie(ctx)) && now != cookie) {
		pt_err(ctx, -ENODEV,
		       "%s: its network namespace is gone, and the device with it "
		       "(net:[%llu] is another namespace now: cookie %llu, journaled %llu)",
		       f->key, ns, now, cookie);
		return PT_FOUND_GONE;
	}
	if (ns && here && ns != here && netns_alive(ctx, ns))
		return pt_err(ctx, -EXDEV,
			      "%s: the device is in network namespace net:[%llu], this is "
			      "net:[%llu]: restore it there (ip netns exec)",
			      f->key, ns, here);
	if (ns && here && ns != here) {
		pt_err(ctx, -ENODEV,
		       "%s: its network namespace net:[%llu] is gone, and the device "
		       "with it",
		       f->key, ns);
		return PT_FOUND_GONE;
	}
	dev_by_index(ctx, idx, out, size);
	if (!out[0]) {
		pt_err(ctx, -ENODEV,
		       "%s: network device %s is gone (no device has ifindex %ld now%s)", f->key,
		       dev, idx, f->now ? "; one made since has its name" : "");
		return PT_FOUND_GONE;
	}
	if (!strcmp(out, dev)) /* the same device: an identity of another form (no namespace) */
		return PT_FOUND_SAME;
	snprintf(f->note, sizeof(f->note), "network device %s is %s now (ifindex %ld)", dev, out,
		 idx);
	return PT_FOUND_MOVED;
}

int pt_netdev_reclaim(struct perftune_ctx *ctx, struct pt_found *f, int comp, pt_netdev_key_fn key)
{
	_cleanup_free_ struct pt_keyparts *kp = malloc(sizeof(*kp));
	char dev[64];
	int r;

	if (!kp)
		return -ENOMEM;
	if (pt_key_parse(ctx, f->key, kp) < 0 || kp->n <= comp + 1)
		return pt_err(ctx, -EINVAL, "%s: not a key of a network device", f->key);
	r = find(ctx, f, kp->c[comp].s, dev, sizeof(dev));
	if (r != PT_FOUND_MOVED)
		return r;
	snprintf(kp->c[comp].s, sizeof(kp->c[comp].s), "%s", dev);
	if (key(f->moved, sizeof(f->moved), kp) < 0)
		return pt_err(ctx, -EINVAL, "%s: %s, a name no key can give", f->key, f->note);
	return PT_FOUND_MOVED;
}
