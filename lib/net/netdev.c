// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A network device's identity, for the keys that name one (net.<dev>.*, and
 * the sysctls of net.<proto>.conf|neigh.<dev>): its ifindex, unique in its
 * network namespace and never handed out again while the namespace lives
 * (dev_index_reserve(): the next free one above the last), and that
 * namespace's inode (/proc/self/ns/net).  A device deleted and made again
 * under its name has another ifindex; a renamed one keeps its ifindex.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define NET_DIR "sys/class/net"

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
	if (ns)
		r = pt_snprintf(buf, size, "ifindex=%s netns=%llu", idx, ns);
	else
		r = pt_snprintf(buf, size, "ifindex=%s", idx);
	return r < 0 ? r : 0;
}

/*
 * A namespace lives while a process is in it or a mount holds it (ip netns:
 * /run/netns/<name>); one held only by an open file is missed.
 */
static bool netns_alive(struct perftune_ctx *ctx, unsigned long long ns)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "proc");
	_cleanup_free_ char *mi = malloc(PT_READ_MAX);
	char link[64], want[40];
	struct dirent *de;

	snprintf(want, sizeof(want), " net:[%llu] ", ns);
	if (mi && pt_attr_read_raw(ctx, "proc/self/mountinfo", mi, PT_READ_MAX) > 0 &&
	    strstr(mi, want)) /* an nsfs mount: its root is the namespace */
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
	unsigned long long ns = 0, here = netns_of(ctx, "proc/self/ns/net");
	long idx = 0;

	out[0] = '\0';
	if (sscanf(f->id, "ifindex=%ld netns=%llu", &idx, &ns) < 1)
		return pt_err(ctx, -EINVAL,
			      "%s: journaled as '%s': not a network device's identity", f->key,
			      f->id);
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
