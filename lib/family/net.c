// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net.<dev>.*: network devices of the namespace perftune runs in (as `ip netns
 * exec` gives it: its /sys/class/net and its netlink).  Ethtool settings go
 * over netlink (net/ethtool.c): ring.*, channels.*, coalesce.*, pause.*,
 * features.*; the rest are files of /sys/class/net/<dev>
 * (Documentation/ABI/testing/sysfs-class-net, sysfs-class-net-queues):
 * txqueuelen, gro_flush_timeout, napi_defer_hard_irqs, and per queue
 * rx.<q>.rps_cpus, tx.<q>.xps_cpus.  Channels go first and come back first,
 * as a scheduler does for block: they make and remove the queues whose masks
 * follow (PT_ORDER_SCHED / PT_ORDER_RESET).
 * Selectors: a name, a glob, [name.with.dots], [driver=ixgbe], [pci=0000:03:00.0].
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/cpulist.h"
#include "shared/dlopen.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/file.h"
#include "net/ethtool.h"
#include "net/netdev.h"

#define NET_DIR "sys/class/net"
#define NET_DEVS_MAX 1024
#define NET_SYSFS PT_ETH_NSEC /* kind: a file; below it, the ethtool section */

static const char *const dev_files[][2] = {
	{ "txqueuelen", "tx_queue_len" },
	{ "gro_flush_timeout", "gro_flush_timeout" },
	{ "napi_defer_hard_irqs", "napi_defer_hard_irqs" },
};

static const char *dev_of(const struct pt_tunable *t)
{
	return t->group + 4; /* "net:<dev>" */
}

static bool is_dev(struct perftune_ctx *ctx, const char *name)
{
	char p[PATH_MAX];

	return name[0] != '.' && !strchr(name, '/') &&
	       pt_snprintf(p, sizeof(p), NET_DIR "/%s/ifindex", name) >= 0 &&
	       pt_attr_exists(ctx, p);
}

/* the basename of the link sys/class/net/<dev>/device[/driver], or "" */
static void dev_link(struct perftune_ctx *ctx, const char *dev, const char *sub, char *out,
		     size_t size)
{
	char p[PATH_MAX], l[PATH_MAX];
	const char *b;

	out[0] = '\0';
	if (pt_snprintf(p, sizeof(p), NET_DIR "/%s/device%s", dev, sub) < 0 ||
	    pt_attr_readlink(ctx, p, l, sizeof(l)) < 0)
		return;
	b = strrchr(l, '/');
	snprintf(out, size, "%s", b ? b + 1 : l);
}

/*
 * "[driver=GLOB]" or "[pci=GLOB]" as written: the device's driver or PCI address; NULL for a
 * name ("[v=1]", or "[driver\=x]" for a device named driver=x: a name is literal)
 */
static const char *attr_sel(const struct pt_comp *sel)
{
	if (!sel->bracketed)
		return NULL;
	if (!strncmp(sel->s, "driver=", 7))
		return sel->s + 7;
	if (strncmp(sel->s, "pci=", 4))
		return NULL;
	return sel->s + 4;
}

static bool sel_match(struct perftune_ctx *ctx, const struct pt_comp *sel, const char *dev)
{
	const char *pat = attr_sel(sel);
	char v[256];

	if (!pat)
		return pt_comp_matches(sel, dev);
	dev_link(ctx, dev, sel->s[0] == 'd' ? "/driver" : "", v, sizeof(v));
	return v[0] && !fnmatch(pat, v, 0);
}

struct devs {
	char (*name)[64];
	size_t n, cap;
};

static int select_devs(struct perftune_ctx *ctx, const struct pt_keyparts *kp, struct devs *out)
{
	const struct pt_comp *sel = &kp->c[1];
	const char *eq = attr_sel(sel);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (!eq && !sel->glob) {
		if (!is_dev(ctx, sel->name))
			return pt_err(ctx, -ENODEV,
				      "%s: no such network device '%s' in this "
				      "network namespace",
				      kp->text, sel->s);
		out->name = malloc(sizeof(*out->name));
		if (!out->name)
			return -ENOMEM;
		snprintf(out->name[0], sizeof(*out->name), "%s", sel->name);
		out->n = 1;
		return 0;
	}
	d = pt_attr_opendir(ctx, NET_DIR);
	while (d && (de = readdir(d))) {
		if (!is_dev(ctx, de->d_name) || !sel_match(ctx, sel, de->d_name))
			continue;
		if (out->n == NET_DEVS_MAX)
			return pt_err(ctx, -E2BIG, "%s: matches more than %d devices", kp->text,
				      NET_DEVS_MAX);
		if (pt_grow(&out->name, &out->cap, out->n + 1, 8) < 0)
			return -ENOMEM;
		snprintf(out->name[out->n++], sizeof(*out->name), "%s", de->d_name);
	}
	if (!out->n)
		return pt_err(ctx, -ENODEV, "%s: no network device matches '%s'%s", kp->text,
			      sel->s, eq ? " (virtual devices have no driver or PCI address)" : "");
	return 0;
}

/* the key net.<dev>.<rest>: 0, -EINVAL where no key can name the device, -ENAMETOOLONG */
static int net_key(char *out, size_t size, const char *dev, const char *rest)
{
	char name[PERFTUNE_KEY_MAX];
	int r = pt_key_dev(name, sizeof(name), "net", dev);

	if (r < 0)
		return r;
	if (pt_snprintf(out, size, "%s.%s", name, rest) < 0)
		return -ENAMETOOLONG;
	return 0;
}

/* emit net.<dev>.<rest>: the file @file of the device, or (NULL) an ethtool setting */
static int emit_key(struct perftune_ctx *ctx, const char *dev, int kind, const char *param,
		    const char *file, const char *rest, pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;
	char path[PATH_MAX], key[PERFTUNE_KEY_MAX];
	int r = net_key(key, sizeof(key), dev, rest);

	if (r < 0) {
		/* no key can name it */
		if (r == -EINVAL)
			return 0;
		return r;
	}
	/* an ethtool setting has no file: no path (describe, the [sysfs] of an export) */
	path[0] = '\0';
	if ((file && pt_snprintf(path, sizeof(path), NET_DIR "/%s/%s", dev, file) < 0) ||
	    pt_tunable_init(&t, &pt_net_family, path, "%s", key) < 0 ||
	    pt_snprintf(t.group, sizeof(t.group), "net:%s", dev) < 0 ||
	    pt_snprintf(t.aux, sizeof(t.aux), "%s", param) < 0)
		return -ENAMETOOLONG;
	t.kind = kind;
	if (kind == PT_ETH_CHANNELS)
		t.order = PT_ORDER_SCHED;
	else if (file && !strncmp(file, "queues/", 7))
		t.order = PT_ORDER_RESET;
	return emit(ctx, &t, ud);
}

static int eth_err(struct perftune_ctx *ctx, const char *key, const char *dev, int sec, int r,
		   const char *ext)
{
	const char *sep = ""; /* before the kernel's extended ack, when it sent one */
	char drv[64];

	if (ext[0])
		sep = ": ";
	if (r == -ENODEV)
		return pt_err(ctx, -ENODEV, "%s: network device %s is gone%s%s", key, dev, sep, ext);
	if (r == -EOPNOTSUPP) {
		const char *why = ext;
		if (!ext[0])
			why = strerror(EOPNOTSUPP);
		dev_link(ctx, dev, "/driver", drv, sizeof(drv));
		return pt_err(ctx, -EOPNOTSUPP, "%s: not here: the driver%s%s of %s has no %s (%s)",
			      key, drv[0] ? " " : "", drv, dev, pt_eth_sec_what(sec), why);
	}
	return pt_err(ctx, r, "%s: ethtool netlink: %s%s%s", key, strerror(-r), sep, ext);
}

static int sect_get(struct perftune_ctx *ctx, const char *key, const char *dev, int sec,
		    struct pt_eth_sect **out)
{
	char ext[256];
	struct pt_eth_sect *s = malloc(sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	r = pt_eth_get(ctx, dev, sec, s, ext, sizeof(ext));
	if (r < 0) {
		free(s);
		if (key)
			return eth_err(ctx, key, dev, sec, r, ext);
		return r;
	}
	*out = s;
	return 0;
}

/* the ethtool parameters of @dev in @sec matching @pat (NULL: all) */
static int emit_sect(struct perftune_ctx *ctx, const char *key, const char *dev, int sec,
		     const char *pat, pt_emit_fn emit, void *ud)
{
	_cleanup_free_ struct pt_eth_sect *s = NULL;
	char rest[PERFTUNE_KEY_MAX];
	int r = sect_get(ctx, key, dev, sec, &s), n = 0;

	for (size_t i = 0; r >= 0 && i < s->n; i++) {
		const struct pt_eth_param *p = &s->p[i];
		if (!pat && p->fixed)
			continue; /* no pattern: the features one may change */
		if (pat && fnmatch(pat, p->name, 0) != 0)
			continue;
		if (pat && !pt_glob(pat) && p->fixed)
			return pt_err(ctx, -EOPNOTSUPP,
				      "%s: not here: %s's feature %s is fixed "
				      "(%s)",
				      key, dev, p->name, p->val ? "on" : "off");
		if (!pt_key_plain(p->name) ||
		    pt_snprintf(rest, sizeof(rest), "%s.%s", pt_eth_sec_name(sec), p->name) < 0)
			continue;
		if (!p->fixed || !pat)
			r = emit_key(ctx, dev, sec, p->name, NULL, rest, emit, ud);
		n++;
	}
	/* the hw bitset lists every feature the kernel knows (a fixed one without VALUE) */
	if (r >= 0 && pat && !n && !pt_glob(pat) && sec == PT_ETH_FEATURES)
		return pt_err(ctx, -ENOENT,
			      "%s: the kernel has no feature '%s' (the names of ethtool -k's "
			      "indented lines)",
			      key, pat);
	if (r >= 0 && pat && !n && !pt_glob(pat))
		return pt_err(ctx, -EOPNOTSUPP,
			      "%s: not here: %s reports no %s '%s' (its driver does not support "
			      "it)",
			      key, dev, pt_eth_sec_what(sec), pat);
	if (key || r == -ENOMEM)
		return r;
	return 0;
}

/*
 * A file that is there but answers reads ENOENT: xps_cpus of a device with
 * one transmit queue (net-sysfs.c: !netif_is_multiqueue()) has no XPS.
 */
static bool refused_read(struct perftune_ctx *ctx, const char *path)
{
	char buf[PT_VAL];

	return pt_attr_read(ctx, path, buf, sizeof(buf)) == -ENOENT && pt_attr_exists(ctx, path);
}

/* rx.<q>.<file> / tx.<q>.<file>: the queues of @dev matching @q */
static int emit_queues(struct perftune_ctx *ctx, const char *key, const char *dev, const char *dir,
		       const char *q, const char *file, pt_emit_fn emit, void *ud)
{
	char p[PATH_MAX], f[PATH_MAX], rest[PERFTUNE_KEY_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	size_t dl = strlen(dir);
	int r = 0;

	if (!pt_glob(q)) { /* a queue a channel change in the same commit may make */
		if (q[strspn(q, "0123456789")] || !q[0])
			return pt_err(ctx, -EINVAL, "%s: '%s' is not a queue number", key, q);
		snprintf(f, sizeof(f), "queues/%s-%s/%s", dir, q, file);
		snprintf(rest, sizeof(rest), "%s.%s.%s", dir, q, file);
		return emit_key(ctx, dev, NET_SYSFS, file, f, rest, emit, ud);
	}
	snprintf(p, sizeof(p), NET_DIR "/%s/queues", dev);
	d = pt_attr_opendir(ctx, p);
	while (d && (de = readdir(d)) && r >= 0) {
		if (strncmp(de->d_name, dir, dl) || de->d_name[dl] != '-' ||
		    fnmatch(q, de->d_name + dl + 1, 0))
			continue;
		snprintf(f, sizeof(f), "queues/%s/%s", de->d_name, file);
		if (pt_snprintf(p, sizeof(p), NET_DIR "/%s/%s", dev, f) < 0 ||
		    !pt_attr_tunable(ctx, p) || refused_read(ctx, p))
			continue;
		snprintf(rest, sizeof(rest), "%s.%s.%s", dir, de->d_name + dl + 1, file);
		r = emit_key(ctx, dev, NET_SYSFS, file, f, rest, emit, ud);
	}
	return r;
}

static int usage(struct perftune_ctx *ctx, const struct pt_keyparts *kp)
{
	return pt_err(ctx, -EINVAL,
		      "%s: expected net.<dev>.{ring,channels,coalesce,pause,features}.<name>, "
		      ".txqueuelen, .gro_flush_timeout, .napi_defer_hard_irqs, "
		      ".rx.<queue>.rps_cpus or .tx.<queue>.xps_cpus",
		      kp->text);
}

static int resolve_dev(struct perftune_ctx *ctx, const struct pt_keyparts *kp, const char *dev,
		       pt_emit_fn emit, void *ud)
{
	const char *a = kp->c[2].s;
	int sec = kp->n == 4 ? pt_eth_sec_find(a) : -1;

	if (sec >= 0) {
		if (!pt_glob(kp->c[3].s) && !pt_eth_sec_has(sec, kp->c[3].s))
			return pt_err(ctx, -ENOENT, "%s: no %s parameter '%s'", kp->text,
				      pt_eth_sec_name(sec), kp->c[3].s);
		if (pt_dl_need(ctx, PT_DL_MNL, kp->text) < 0)
			return -EOPNOTSUPP;
		return emit_sect(ctx, kp->text, dev, sec, kp->c[3].s, emit, ud);
	}
	if (kp->n == 5 && (!strcmp(a, "rx") || !strcmp(a, "tx")))
		return emit_queues(ctx, kp->text, dev, a, kp->c[3].s, kp->c[4].s, emit, ud);
	for (size_t i = 0; kp->n == 3 && i < ARRAY_SIZE(dev_files); i++) {
		char p[PATH_MAX];
		if (strcmp(a, dev_files[i][0]))
			continue;
		snprintf(p, sizeof(p), NET_DIR "/%s/%s", dev, dev_files[i][1]);
		if (!pt_attr_exists(ctx, p))
			return pt_err(ctx, -EOPNOTSUPP, "%s: not here: this kernel has no /%s",
				      kp->text, p);
		return emit_key(ctx, dev, NET_SYSFS, a, dev_files[i][1], a, emit, ud);
	}
	return usage(ctx, kp);
}

struct counted {
	pt_emit_fn emit;
	void *ud;
	size_t n;
};

static int count_emit(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud)
{
	struct counted *c = ud;

	c->n++;
	return c->emit(ctx, t, c->ud);
}

static int net_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud)
{
	struct counted c = { .emit = emit, .ud = ud };
	struct devs d = { 0 };
	char last[PT_ERR_MAX] = "";
	bool many;
	int r;

	if (kp->n < 3 || kp->n > 5)
		return usage(ctx, kp);
	for (int i = 2; i < kp->n; i++)
		if (kp->c[i].bracketed)
			return pt_err(ctx, -EINVAL, "%s: only the device takes brackets", kp->text);
	if (!attr_sel(&kp->c[1]) && (strchr(kp->c[1].name, '/') || !strcmp(kp->c[1].name, ".") ||
				     !strcmp(kp->c[1].name, "..")))
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a device name", kp->text, kp->c[1].s);
	r = select_devs(ctx, kp, &d);
	many = kp->c[1].glob || attr_sel(&kp->c[1]);
	for (size_t i = 0; r >= 0 && i < d.n; i++) {
		r = resolve_dev(ctx, kp, d.name[i], count_emit, &c);
		/* a selector of several devices: those that lack the setting are passed over */
		if (r == -EOPNOTSUPP && many) {
			snprintf(last, sizeof(last), "%s", pt_errmsg(ctx));
			pt_err_clear(ctx);
			r = 0;
		}
	}
	free(d.name);
	if (r >= 0 && !c.n && last[0]) /* none has it: why not, for the last one */
		return pt_err(ctx, -EOPNOTSUPP, "%s", last);
	return r;
}

static int net_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, NET_DIR);
	struct dirent *de;
	int r = 0;

	while (d && (de = readdir(d)) && r >= 0) {
		char p[PATH_MAX];
		if (!is_dev(ctx, de->d_name))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(dev_files) && r >= 0; i++) {
			snprintf(p, sizeof(p), NET_DIR "/%s/%s", de->d_name, dev_files[i][1]);
			if (pt_attr_tunable(ctx, p))
				r = emit_key(ctx, de->d_name, NET_SYSFS, dev_files[i][0],
					     dev_files[i][1], dev_files[i][0], emit, ud);
		}
		for (int s = 0; s < PT_ETH_NSEC && r >= 0; s++)
			r = emit_sect(ctx, NULL, de->d_name, s, NULL, emit, ud);
		if (r >= 0)
			r = emit_queues(ctx, "", de->d_name, "rx", "*", "rps_cpus", emit, ud);
		if (r >= 0)
			r = emit_queues(ctx, "", de->d_name, "tx", "*", "xps_cpus", emit, ud);
	}
	return r;
}

static int eth_param(struct perftune_ctx *ctx, const struct pt_tunable *t, struct pt_eth_param *out)
{
	_cleanup_free_ struct pt_eth_sect *s = NULL;
	const struct pt_eth_param *p;
	int r = sect_get(ctx, t->key, dev_of(t), t->kind, &s);

	if (r < 0)
		return r;
	p = pt_eth_find(s, t->aux);
	if (!p)
		return pt_err(ctx, -EOPNOTSUPP, "%s: not here: %s reports no %s '%s'", t->key,
			      dev_of(t), pt_eth_sec_what(t->kind), t->aux);
	*out = *p;
	return 0;
}

static int net_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	struct pt_eth_param p;
	int r;

	if (t->kind == NET_SYSFS && refused_read(ctx, t->path))
		return pt_err(ctx, -EOPNOTSUPP,
			      "%s: not here: the kernel refuses to read /%s (a device with one "
			      "transmit queue has no XPS)",
			      t->key, t->path);
	if (t->kind == NET_SYSFS)
		return pt_file_read(ctx, t, buf, size);
	r = eth_param(ctx, t, &p);
	if (r < 0)
		return r;
	if (p.flag)
		r = pt_snprintf(buf, size, "%s", p.val ? "on" : "off");
	else
		r = pt_snprintf(buf, size, "%llu", p.val);
	if (r < 0)
		return r;
	return 0;
}

/* a CPU mask as the kernel prints it: @cur's hex digits, its commas where they are */
static int mask_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			 const char *cur, char *out, size_t size)
{
	unsigned char m[PT_CPUS_BYTES] = { 0 };
	char why[128];
	const char *s = in + (!strncmp(in, "0x", 2) ? 2 : 0);
	size_t digits = strspn(cur, "0123456789abcdef,"), nd = 0, o = 0;

	if (!*s || s[strspn(s, "0123456789abcdefABCDEF,")] || pt_cpus_hex(s, m, why, sizeof(why)))
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a hexadecimal CPU mask", t->key, in);
	for (size_t i = 0; i < digits; i++)
		nd += cur[i] != ',';
	for (long c = (long)nd * 4; c < PT_CPUS_MAX; c++)
		if (pt_cpus_has(m, c))
			return pt_err(ctx, -ERANGE, "%s: CPU %ld is past the mask's %zu CPUs",
				      t->key, c, nd * 4);
	if (digits + 1 > size)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < digits; i++) {
		int v = 0;
		if (cur[i] == ',') {
			out[o++] = ',';
			continue;
		}
		nd--;
		for (int k = 0; k < 4; k++)
			v |= pt_cpus_has(m, (long)nd * 4 + k) << k;
		out[o++] = "0123456789abcdef"[v];
	}
	out[o] = '\0';
	return 0;
}

static int net_validate_cur(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			    char *out, size_t size, char *cur, size_t cur_size)
{
	struct pt_eth_param p;
	long long v;
	int r;

	if (t->kind == NET_SYSFS && !strstr(t->aux, "_cpus"))
		return pt_file_validate_cur(ctx, t, in, out, size, cur, cur_size);
	if (t->kind == NET_SYSFS) { /* hex digits: not a number to pt_file_check() */
		char why[160];
		r = pt_file_read(ctx, t, cur, cur_size);
		if (r >= 0 && pt_attr_writable(ctx, t->path, why, sizeof(why)) == 0)
			r = pt_err(ctx, -EACCES, "%s: %s", t->key, why);
		if (r < 0)
			return r;
		return mask_validate(ctx, t, in, cur, out, size);
	}
	r = eth_param(ctx, t, &p);
	if (r < 0)
		return r;
	if (p.fixed)
		return pt_err(ctx, -EOPNOTSUPP, "%s: not here: %s's feature %s is fixed", t->key,
			      dev_of(t), t->aux);
	if (!p.flag)
		snprintf(cur, cur_size, "%llu", p.val);
	else if (p.val)
		snprintf(cur, cur_size, "on");
	else
		snprintf(cur, cur_size, "off");
	if (p.flag) {
		bool on = !strcmp(in, "on") || !strcmp(in, "1") || !strcmp(in, "true");
		if (!on && strcmp(in, "off") && strcmp(in, "0") && strcmp(in, "false"))
			return pt_err(ctx, -EINVAL, "%s: '%s' is not one of: on off", t->key, in);
		if (pt_snprintf(out, size, "%s", on ? "on" : "off") < 0)
			return -ENAMETOOLONG;
		return 0;
	}
	if (pt_parse_ll(in, &v) < 0)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a number", t->key, in);
	return pt_validate_range(ctx, t, in, 0, p.max ? (long long)p.max : UINT32_MAX, out, size);
}

static int net_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size)
{
	char cur[PT_VAL];

	return net_validate_cur(ctx, t, in, out, size, cur, sizeof(cur));
}

static int net_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd)
{
	char ext[256];
	long long v = 0;
	int r;

	if (t->kind == NET_SYSFS)
		return pt_file_write(ctx, t, value, hold_fd);
	if (!strcmp(value, "on"))
		v = 1;
	else if (strcmp(value, "off") && pt_parse_ll(value, &v) < 0)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a number", t->key, value);
	/* as attr.c logs a file's write: -vv shows each kernel write of a commit */
	pt_log(ctx, PERFTUNE_LOG_DEBUG, "write %s (ethtool netlink) <- %s", t->key, value);
	r = pt_eth_set(ctx, dev_of(t), t->kind, t->aux, (unsigned long long)v, ext, sizeof(ext));
	if (r == -ENODEV || r == -EOPNOTSUPP)
		return eth_err(ctx, t->key, dev_of(t), t->kind, r, ext);
	if (r < 0)
		return pt_err(ctx, r, "%s: kernel refused '%s': %s%s%s", t->key, value,
			      strerror(-r), ext[0] ? ": " : "", ext);
	return 0;
}

static int net_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d)
{
	struct pt_eth_param p;
	char v[PT_VAL];
	int r;

	if (t->kind == NET_SYSFS) {
		r = 0;
		if (refused_read(ctx, t->path))
			r = net_read(ctx, t, v, sizeof(v));
		if (r >= 0)
			r = pt_file_describe(ctx, t, d);
		if (r >= 0 && strstr(t->aux, "_cpus"))
			pt_desc_add_info(d, "a hexadecimal CPU mask, as the kernel prints it");
		return r;
	}
	r = eth_param(ctx, t, &p);
	if (r < 0)
		return r;
	net_read(ctx, t, v, sizeof(v));
	pt_desc_set_value(d, v);
	if (p.flag)
		pt_desc_set_choices(d, "on off");
	else
		pt_desc_set_range(d, 0, p.max ? (long long)p.max : UINT32_MAX);
	pt_desc_set_writable(d, !p.fixed, p.fixed ? "fixed by the driver" : "");
	pt_desc_add_info(d, "ethtool netlink (%s), device %s", pt_eth_sec_what(t->kind), dev_of(t));
	return 0;
}

/* udev: the device's attribute (tx_queue_len, queues/rx-0/rps_cpus); ethtool settings have none */
static void net_export_names(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t,
			     const char *value _unused_, struct pt_xnames *x)
{
	size_t n = strlen(NET_DIR "/") + strlen(dev_of(t)) + 1;

	snprintf(x->dev, sizeof(x->dev), "%s", dev_of(t));
	snprintf(x->subsys, sizeof(x->subsys), "net");
	if (t->kind != NET_SYSFS) {
		snprintf(x->noattr, sizeof(x->noattr),
			 "an ethtool setting (%s) is no sysfs attribute: a rule would have to "
			 "RUN ethtool",
			 pt_eth_sec_what(t->kind));
		return;
	}
	if (strlen(t->path) <= n || pt_snprintf(x->attr, sizeof(x->attr), "%s", t->path + n) < 0)
		x->attr[0] = '\0';
	x->order = t->order;
}

/* ---- identity: net/netdev.c's, of the device ---- */

static int net_identity(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			char *buf, size_t size)
{
	(void)orig;
	return pt_netdev_identity(ctx, dev_of(t), buf, size);
}

/* net.<dev>.<rest> of @kp: a renamed device's key */
static int key_of(char *out, size_t size, const struct pt_keyparts *kp)
{
	char rest[PERFTUNE_KEY_MAX] = "";

	for (int i = 2; i < kp->n; i++)
		snprintf(rest + strlen(rest), sizeof(rest) - strlen(rest), "%s%s", i > 2 ? "." : "",
			 kp->c[i].s);
	return net_key(out, size, kp->c[1].s, rest);
}

/* a device renamed since goes by its new name: the key of that name */
static int net_reclaim(struct perftune_ctx *ctx, struct pt_found *f)
{
	return pt_netdev_reclaim(ctx, f, 1, key_of);
}

const struct pt_family pt_net_family = {
	.name = "net",
	.resolve = net_resolve,
	.list = net_list,
	.read = net_read,
	.validate = net_validate,
	.write = net_write,
	.describe = net_describe,
	.flags = 0,
	.validate_cur = net_validate_cur,
	.export_names = net_export_names,
	.identity = net_identity,
	.reclaim = net_reclaim,
};
