// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * block.<sel>.<attr>: request queue attributes (Documentation/ABI/stable/sysfs-block).
 * Selectors: a kernel name, a glob, or in brackets a /dev path or any path
 * (the disk under it).  A partition means its disk.  A bio-based dm/md device
 * has a scheduler the kernel ignores: its scheduler, iosched and nr_requests
 * keys resolve to the disks underneath (slaves/, recursively).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/dlopen.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/file.h"

#define MAX_DISKS 4096

enum { ATTR_SCHED, ATTR_QUEUE, ATTR_IOSCHED };

struct disks {
	char (*name)[64];
	char (*via)[96];
	size_t n, cap;
};

static int disks_add(struct disks *d, const char *name, const char *via)
{
	for (size_t i = 0; i < d->n; i++) {
		if (strcmp(d->name[i], name))
			continue;
		/* selected itself and through a stacked device (block.*: sdb and
		 * dm-0 over it): the note says so whichever readdir() gave first */
		if (!d->via[i][0] && via)
			snprintf(d->via[i], sizeof(*d->via), "%s", via);
		return 0;
	}
	if (d->n == MAX_DISKS)
		return -E2BIG;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		void *a = realloc(d->name, cap * sizeof(*d->name));
		if (!a)
			return -ENOMEM;
		d->name = a;
		a = realloc(d->via, cap * sizeof(*d->via));
		if (!a)
			return -ENOMEM;
		d->via = a;
		d->cap = cap;
	}
	snprintf(d->name[d->n], sizeof(*d->name), "%s", name);
	snprintf(d->via[d->n], sizeof(*d->via), "%s", via ? via : "");
	d->n++;
	return 0;
}

static void disks_free(struct disks *d)
{
	free(d->name);
	free(d->via);
}

static bool is_disk(struct perftune_ctx *ctx, const char *name)
{
	char p[PATH_MAX];
	return strchr(name, '/') == NULL && name[0] != '.' &&
	       pt_snprintf(p, sizeof(p), "sys/block/%s", name) >= 0 && pt_attr_exists(ctx, p);
}

/* The disk a block device (disk or partition) belongs to, via libudev. */
static int disk_of_udev(struct perftune_ctx *ctx, struct udev_device *dev, char *out, size_t size)
{
	struct udev_device *disk = dev;
	const char *type = pt_libudev.udev_device_get_devtype(dev);

	if (type && !strcmp(type, "partition"))
		disk = pt_libudev.udev_device_get_parent_with_subsystem_devtype(dev, "block",
										"disk");
	if (!disk || !pt_libudev.udev_device_get_sysname(disk))
		return -ENODEV;
	snprintf(out, size, "%s", pt_libudev.udev_device_get_sysname(disk));
	if (is_disk(ctx, out))
		return 0;
	return -ENODEV;
}

/* -EOPNOTSUPP: a partition or a device number, and libudev is not installed */
static int disk_of_name(struct perftune_ctx *ctx, const char *name, char *out, size_t size)
{
	struct udev_device *dev;
	int r;

	if (is_disk(ctx, name)) {
		if (pt_snprintf(out, size, "%s", name) < 0)
			return -ENAMETOOLONG;
		return 0;
	}
	if (!pt_udev(ctx)) {
		if (pt_dl_load(PT_DL_UDEV) < 0)
			return -EOPNOTSUPP;
		return -ENOMEM;
	}
	dev = pt_libudev.udev_device_new_from_subsystem_sysname(pt_udev(ctx), "block", name);
	if (!dev)
		return -ENODEV;
	r = disk_of_udev(ctx, dev, out, size);
	pt_libudev.udev_device_unref(dev);
	return r;
}

static int disk_of_devnum(struct perftune_ctx *ctx, dev_t devnum, char *out, size_t size)
{
	struct udev_device *dev;
	int r;

	if (!pt_udev(ctx)) {
		if (pt_dl_load(PT_DL_UDEV) < 0)
			return -EOPNOTSUPP;
		return -ENOMEM;
	}
	dev = pt_libudev.udev_device_new_from_devnum(pt_udev(ctx), 'b', devnum);
	if (!dev)
		return -ENODEV;
	r = disk_of_udev(ctx, dev, out, size);
	pt_libudev.udev_device_unref(dev);
	return r;
}

/* Fake root: the device a path is on, from <root>/proc/self/mountinfo. */
static int devnum_from_mountinfo(struct perftune_ctx *ctx, const char *path, dev_t *devnum)
{
	char buf[PT_READ_MAX], *save = NULL;
	size_t best = 0;
	int r = pt_attr_read_raw(ctx, "proc/self/mountinfo", buf, sizeof(buf));

	if (r < 0)
		return r;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned maj, min;
		char mnt[PATH_MAX];
		size_t n;
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &min, mnt) != 3)
			continue;
		n = strlen(mnt);
		if (strncmp(path, mnt, n) || (path[n] && path[n] != '/' && n > 1) || n < best)
			continue;
		best = n;
		*devnum = makedev(maj, min);
	}
	if (best)
		return 0;
	return -ENOENT;
}

/* block[/dev/x] and block[/some/path] */
static int disk_of_path(struct perftune_ctx *ctx, const char *key, const char *path, char *out,
			size_t size)
{
	struct stat st;
	dev_t devnum;
	int r;

	if (pt_root_is_host(ctx)) {
		if (stat(path, &st) < 0)
			return pt_err(ctx, -errno, "%s: %s: %s", key, path, strerror(errno));
		if (S_ISBLK(st.st_mode))
			devnum = st.st_rdev;
		else if (!strncmp(path, "/dev/", 5))
			return pt_err(ctx, -ENOTBLK, "%s: %s is not a block device", key, path);
		else
			devnum = st.st_dev;
	} else if (!strncmp(path, "/dev/", 5)) {
		char link[PATH_MAX];
		const char *base = strrchr(path, '/') + 1;
		if (pt_attr_readlink(ctx, path + 1, link, sizeof(link)) >= 0)
			base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		r = disk_of_name(ctx, base, out, size);
		if (r == -EOPNOTSUPP)
			return pt_dl_need(ctx, PT_DL_UDEV, key);
		if (r < 0)
			return pt_err(ctx, -ENODEV, "%s: %s is not a block device", key, path);
		return 0;
	} else if (devnum_from_mountinfo(ctx, path, &devnum) < 0) {
		return pt_err(ctx, -ENOENT, "%s: %s: no such path", key, path);
	}
	if (major(devnum) == 0)
		return pt_err(ctx, -ENODEV,
			      "%s: %s is on a filesystem without a block device (tmpfs, overlay, "
			      "btrfs subvolume, nfs)",
			      key, path);
	r = disk_of_devnum(ctx, devnum, out, size);
	if (r == -EOPNOTSUPP)
		return pt_dl_need(ctx, PT_DL_UDEV, key);
	if (r < 0)
		return pt_err(ctx, -ENODEV, "%s: %s: device %u:%u has no request queue", key, path,
			      major(devnum), minor(devnum));
	return 0;
}

/* bio-based dm/md: stacked on slaves and no real scheduler of its own */
static bool is_bio_based(struct perftune_ctx *ctx, const char *disk)
{
	char p[PATH_MAX], raw[512];

	/* a scheduler of its own: request-based (the read is the one validation makes) */
	snprintf(p, sizeof(p), "sys/block/%s/queue/scheduler", disk);
	if (pt_attr_read_raw(ctx, p, raw, sizeof(raw)) >= 0) {
		pt_choices(raw, raw, sizeof(raw));
		if (strcmp(raw, "none"))
			return false;
	}
	snprintf(p, sizeof(p), "sys/block/%s/slaves", disk);
	return pt_attr_dir_has_entries(ctx, p) == 1;
}

static int add_slaves(struct perftune_ctx *ctx, struct disks *out, const char *disk,
		      const char *via, int depth)
{
	char p[PATH_MAX], name[64];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int r = 0;

	if (depth > 8)
		return -ELOOP;
	if (!is_bio_based(ctx, disk))
		return disks_add(out, disk, via);
	snprintf(p, sizeof(p), "sys/block/%s/slaves", disk);
	d = pt_attr_opendir(ctx, p);
	while (d && (de = readdir(d)) && r >= 0) {
		if (de->d_name[0] == '.' || disk_of_name(ctx, de->d_name, name, sizeof(name)) < 0)
			continue;
		r = add_slaves(ctx, out, name, via, depth + 1);
	}
	return r;
}

/*
 * A request queue, seen through its scheduler file where there is one: the
 * file a scheduler key reads next anyway (kept open in a call's file cache).
 */
static bool has_queue(struct perftune_ctx *ctx, const char *disk)
{
	char p[PATH_MAX];
	struct stat st;

	if (pt_snprintf(p, sizeof(p), "sys/block/%s/queue/scheduler", disk) < 0)
		return false;
	if (pt_attr_stat_file(ctx, p, &st) == 0 && S_ISREG(st.st_mode))
		return true;
	snprintf(p, sizeof(p), "sys/block/%s/queue", disk);
	return pt_attr_is_dir(ctx, p);
}

static int select_disks(struct perftune_ctx *ctx, const struct pt_keyparts *kp, struct disks *out)
{
	const struct pt_comp *sel = &kp->c[1];
	char disk[64];
	int r;

	if (sel->bracketed && sel->name[0] == '/') {
		r = disk_of_path(ctx, kp->text, sel->name, disk, sizeof(disk));
		if (r < 0)
			return r;
		return disks_add(out, disk, sel->name);
	}
	if (strchr(sel->name, '/') || !strcmp(sel->name, "..") || !strcmp(sel->name, "."))
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a device name", kp->text, sel->s);
	if (sel->glob) {
		_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "sys/block");
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.' && !fnmatch(sel->s, de->d_name, 0) &&
			    (r = disks_add(out, de->d_name, NULL)) < 0) {
				if (r == -E2BIG)
					return pt_err(ctx, r,
						      "%s: '%s' matches more than %d devices",
						      kp->text, sel->s, MAX_DISKS);
				return r;
			}
		if (!out->n)
			return pt_err(ctx, -ENODEV, "%s: no block device matches '%s'", kp->text,
				      sel->s);
		return 0;
	}
	/* a name, bracketed or not, is that device ("block[v*]" is the disk named v*) */
	if (has_queue(ctx, sel->name)) /* a disk with a queue: no partition is under sys/block */
		return disks_add(out, sel->name, NULL);
	r = disk_of_name(ctx, sel->name, disk, sizeof(disk));
	if (r == -EOPNOTSUPP)
		return pt_dl_need(ctx, PT_DL_UDEV, kp->text);
	if (r < 0)
		return pt_err(ctx, -ENODEV, "%s: no such block device", kp->text);
	if (!strcmp(disk, sel->name))
		return disks_add(out, disk, NULL);
	return disks_add(out, disk, sel->name);
}

static int emit_attr(struct perftune_ctx *ctx, const char *disk, int kind, const char *name,
		     const char *note, pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;
	char path[PATH_MAX], dev[PERFTUNE_KEY_MAX];
	int r;

	/* "cciss!c0d0" (a '/' in the device name): block[cciss!c0d0], as shared/keyname.c says */
	r = pt_key_dev(dev, sizeof(dev), "block", disk);
	if (r < 0) {
		/* no key can name it: not a tunable of ours */
		if (r == -EINVAL)
			return 0;
		return r;
	}
	if (kind == ATTR_IOSCHED)
		r = pt_snprintf(path, sizeof(path), "sys/block/%s/queue/iosched/%s", disk, name);
	else
		r = pt_snprintf(path, sizeof(path), "sys/block/%s/queue/%s", disk, name);
	if (r < 0 || pt_tunable_init(&t, &pt_block_family, path, "%s.%s%s", dev,
				     kind == ATTR_IOSCHED ? "iosched." : "", name) < 0)
		return -ENAMETOOLONG;
	snprintf(t.group, sizeof(t.group), "%s", disk);
	t.kind = kind;
	/* a scheduler switch resets nr_requests and replaces iosched/: they go after it */
	if (kind == ATTR_SCHED)
		t.order = PT_ORDER_SCHED;
	else if (kind == ATTR_IOSCHED || !strcmp(name, "nr_requests"))
		t.order = PT_ORDER_RESET;
	else
		t.order = PT_ORDER_ATTR;
	if (note && *note)
		snprintf(t.note, sizeof(t.note), "%s", note);
	return emit(ctx, &t, ud);
}

/* an attribute of queue/ (not of queue/iosched/) by its name */
static int queue_kind(const char *name)
{
	if (!strcmp(name, "scheduler"))
		return ATTR_SCHED;
	return ATTR_QUEUE;
}

static int block_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			 void *ud)
{
	struct disks sel = { 0 }, res = { 0 };
	const char *attr;
	int kind, r;

	if (kp->n < 3)
		return pt_err(ctx, -EINVAL, "%s: expected block.<device>.<attribute>", kp->text);
	for (int i = 2; i < kp->n; i++)
		if (kp->c[i].bracketed || kp->c[i].glob)
			return pt_err(ctx, -EINVAL, "%s: attribute names take no brackets or globs",
				      kp->text);
	if (kp->n == 4 && !strcmp(kp->c[2].s, "iosched")) {
		kind = ATTR_IOSCHED;
		attr = kp->c[3].s;
	} else if (kp->n == 3) {
		attr = kp->c[2].s;
		kind = queue_kind(attr);
	} else {
		return pt_err(ctx, -EINVAL,
			      "%s: expected block.<device>.<attribute> or "
			      "block.<device>.iosched.<parameter>",
			      kp->text);
	}
	r = select_disks(ctx, kp, &sel);
	for (size_t i = 0; r >= 0 && i < sel.n; i++) {
		char via[96] = "";
		bool stacked = kind != ATTR_QUEUE || !strcmp(attr, "nr_requests");
		if (stacked && is_bio_based(ctx, sel.name[i])) {
			snprintf(via, sizeof(via), "via %s (bio-based: its disks carry the I/O)",
				 sel.name[i]);
			r = add_slaves(ctx, &res, sel.name[i], via, 0);
		} else {
			if (sel.via[i][0])
				snprintf(via, sizeof(via), "via %s", sel.via[i]);
			r = disks_add(&res, sel.name[i], via);
		}
	}
	for (size_t i = 0; r >= 0 && i < res.n; i++) {
		char p[PATH_MAX];
		if (!has_queue(ctx, res.name[i])) {
			if (kp->c[1].glob)
				continue;
			r = pt_err(ctx, -ENODEV, "%s: %s has no request queue", kp->text,
				   res.name[i]);
			break;
		}
		if (kind == ATTR_QUEUE) {
			snprintf(p, sizeof(p), "sys/block/%s/queue/%s", res.name[i], attr);
			if (!pt_attr_exists(ctx, p) || pt_attr_is_dir(ctx, p)) {
				r = pt_err(ctx, -ENOENT, "%s: %s has no queue attribute '%s'",
					   kp->text, res.name[i], attr);
				break;
			}
		}
		r = emit_attr(ctx, res.name[i], kind, attr, res.via[i], emit, ud);
	}
	disks_free(&sel);
	disks_free(&res);
	return r;
}

static int list_dir(struct perftune_ctx *ctx, const char *disk, int kind, pt_emit_fn emit, void *ud,
		    bool bio)
{
	char p[PATH_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int r = 0;

	snprintf(p, sizeof(p), "sys/block/%s/queue%s", disk, kind == ATTR_IOSCHED ? "/iosched" : "");
	d = pt_attr_opendir(ctx, p);
	while (d && (de = readdir(d)) && r >= 0) {
		char f[PATH_MAX];
		if (de->d_type != DT_REG)
			continue;
		snprintf(f, sizeof(f), "%s/%s", p, de->d_name);
		if (!pt_attr_tunable(ctx, f))
			continue; /* read-only facts are not tunables */
		int k = ATTR_IOSCHED;
		if (kind != ATTR_IOSCHED)
			k = queue_kind(de->d_name);
		if (bio && (k == ATTR_SCHED || !strcmp(de->d_name, "nr_requests")))
			continue;
		r = emit_attr(ctx, disk, k, de->d_name, NULL, emit, ud);
	}
	return r;
}

static int block_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "sys/block");
	struct dirent *de;
	int r = 0;

	while (d && (de = readdir(d)) && r >= 0) {
		bool bio;
		if (de->d_name[0] == '.')
			continue;
		bio = is_bio_based(ctx, de->d_name);
		r = list_dir(ctx, de->d_name, ATTR_QUEUE, emit, ud, bio);
		if (r >= 0 && !bio)
			r = list_dir(ctx, de->d_name, ATTR_IOSCHED, emit, ud, bio);
	}
	return r;
}

static int block_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	int r = pt_attr_read(ctx, t->path, buf, size);

	if (r == -ENOENT && t->kind == ATTR_IOSCHED) {
		char p[PATH_MAX], cur[64] = "?";
		snprintf(p, sizeof(p), "sys/block/%s/queue/scheduler", t->group);
		pt_attr_read(ctx, p, cur, sizeof(cur));
		return pt_err(ctx, -ENOENT, "%s: not a parameter of %s's scheduler '%s'", t->key,
			      t->group, cur);
	}
	if (r < 0)
		return pt_file_read(ctx, t, buf, size);
	return 0;
}

/* blk-mq names for the legacy elevators: deadline, noop and cfq are gone since 5.0 */
static const char *sched_alias(const char *name, const char *raw)
{
	if (!strcmp(name, "deadline"))
		return "mq-deadline";
	if (!strcmp(name, "noop"))
		return "none";
	if (!strcmp(name, "cfq") && pt_choice_in(raw, "bfq"))
		return "bfq";
	return name;
}

static int sched_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			  char *out, size_t size, char *cur, size_t cur_size)
{
	char raw[PT_VAL], alts[PT_VAL], choices[512], *save = NULL;
	int r = pt_attr_read_raw(ctx, t->path, raw, sizeof(raw));

	if (r < 0) {
		cur[0] = '\0';
		r = pt_file_read(ctx, t, out, size);
		if (r >= 0)
			snprintf(cur, cur_size, "%s", out);
		return r;
	}
	snprintf(alts, sizeof(alts), "%s", in);
	pt_trim(alts);
	for (char *a = strtok_r(alts, "|", &save); a; a = strtok_r(NULL, "|", &save)) {
		pt_trim(a);
		const char *name = sched_alias(a, raw);
		if (pt_choice_in(raw, name)) {
			char tmp[PT_VAL];
			snprintf(out, size, "%s", name);
			snprintf(cur, cur_size, "%s", raw); /* as block_read() gives it */
			pt_normalize(cur);
			return pt_file_check(ctx, t, raw, name, tmp, sizeof(tmp));
		}
	}
	pt_choices(raw, choices, sizeof(choices));
	return pt_err(ctx, -EINVAL, "%s: '%s' is not offered by %s (%s)", t->key, in, t->group,
		      choices);
}

/* validate_cur: a scheduler's file is read once to check, alias and take the original */
static int block_validate_cur(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			      char *out, size_t size, char *cur, size_t cur_size)
{
	if (t->kind == ATTR_SCHED)
		return sched_validate(ctx, t, in, out, size, cur, cur_size);
	if (t->kind == ATTR_IOSCHED && !pt_attr_exists(ctx, t->path)) {
		char tmp[64];
		return block_read(ctx, t, tmp, sizeof(tmp));
	}
	int r = pt_file_validate_cur(ctx, t, in, out, size, cur, cur_size);
	long long v;

	/* queue attributes are unsigned, but for the two where -1 means "default" */
	if (r == 0 && t->kind == ATTR_QUEUE && pt_parse_ll(out, &v) == 0 && v < 0 &&
	    !strstr(t->key, ".wbt_lat_usec") && !strstr(t->key, ".io_poll_delay"))
		return pt_err(ctx, -ERANGE, "%s: %lld is out of range (not negative)", t->key, v);
	return r;
}

static int block_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			  char *out, size_t size)
{
	char cur[PT_VAL];

	return block_validate_cur(ctx, t, in, out, size, cur, sizeof(cur));
}

/* the device's max_hw_sectors_kb for its max_sectors_kb key, or -1 */
static long long hw_limit(struct perftune_ctx *ctx, const struct pt_tunable *t)
{
	const char *base = strrchr(t->path, '/');
	char path[PATH_MAX], hw[32];
	long long h;

	if (!base || strcmp(base, "/max_sectors_kb") ||
	    pt_snprintf(path, sizeof(path), "%.*s/max_hw_sectors_kb", (int)(base - t->path),
			t->path) < 0 ||
	    pt_attr_read(ctx, path, hw, sizeof(hw)) < 0)
		return -1;
	pt_trim(hw);
	if (pt_parse_ll(hw, &h) == 0)
		return h;
	return -1;
}

/* iosched times are kept in jiffies: 250 ms reads back as 252 with HZ=250 */
static int block_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
			const char *got)
{
	long long w, g;

	if (!strcmp(want, got))
		return 0;
	if (t->kind == ATTR_IOSCHED && pt_parse_ll(want, &w) == 0 && pt_parse_ll(got, &g) == 0 &&
	    (llabs(g - w) <= 10 || llabs(g - w) <= w / 20))
		return 0;
	/*
	 * max_sectors_kb past the device's max_hw_sectors_kb: newer kernels take it
	 * (as the user's limit) and hold the hardware's; older ones refuse it (EINVAL)
	 */
	if (pt_parse_ll(want, &w) == 0 && pt_parse_ll(got, &g) == 0 && w > g &&
	    hw_limit(ctx, t) == g)
		return pt_err(ctx, -ERANGE,
			      "%s: the kernel holds at most max_hw_sectors_kb = %lld (asked %s)",
			      t->key, g, want);
	return pt_err(ctx, -EIO, "%s: the kernel accepted '%s' but reads back '%s'", t->key, want,
		      got);
}

static int block_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			  struct perftune_desc *d)
{
	int r = pt_file_describe(ctx, t, d);
	static const struct {
		const char *name, *unit;
	} units[] = { { "read_ahead_kb", "kB" },
		      { "max_sectors_kb", "kB" },
		      { "wbt_lat_usec", "us" },
		      { "nr_requests", "requests" } };

	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strstr(t->key, units[i].name))
			pt_desc_set_unit(d, units[i].unit);
	if (t->kind == ATTR_SCHED)
		pt_desc_add_info(d, "aliases: deadline=mq-deadline noop=none cfq=bfq; a|b = first "
				    "offered; changing it drops iosched.* parameters");
	return r;
}

/* udev: the rule's device and the attribute below it, in the order of a commit */
static void block_export_names(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t,
			       const char *value _unused_, struct pt_xnames *x)
{
	size_t g = strlen(t->group), n = strlen("sys/block/") + g + 1;

	/* emit_attr's paths: sys/block/<group>/<attribute> */
	if (strncmp(t->path, "sys/block/", 10) || strncmp(t->path + 10, t->group, g) ||
	    t->path[n - 1] != '/' || pt_snprintf(x->attr, sizeof(x->attr), "%s", t->path + n) < 0)
		return;
	snprintf(x->dev, sizeof(x->dev), "%s", t->group);
	x->order = t->order;
}

/* when udev set the disk up (its database's USEC_INITIALIZED): a disk added again has another */
static void udev_initialized(struct perftune_ctx *ctx, const char *disk, char *out, size_t size)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* devices' commit threads */
	struct udev_device *dev;
	struct udev *udev;
	const char *v;

	out[0] = '\0';
	if (!pt_root_is_host(ctx))
		return;
	pthread_mutex_lock(&lock);
	udev = pt_udev(ctx); /* NULL: libudev not installed, or no memory: no such time */
	dev = NULL;
	if (udev)
		dev = pt_libudev.udev_device_new_from_subsystem_sysname(udev, "block", disk);
	v = NULL;
	if (dev)
		v = pt_libudev.udev_device_get_property_value(dev, "USEC_INITIALIZED");
	if (v)
		snprintf(out, size, "%s", v);
	if (dev)
		pt_libudev.udev_device_unref(dev);
	pthread_mutex_unlock(&lock);
}

/*
 * A disk: its dev_t, and its diskseq (5.15: a number no other disk of this
 * boot gets, not even the same one added again), or where the kernel has none
 * when udev set it up.  A name and a dev_t come back with another disk
 * (sdb unplugged, another plugged in), with the kernel's defaults.
 */
static int block_identity(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			  char *buf, size_t size)
{
	char p[PATH_MAX], dev[32], seq[32] = "", init[32] = "";
	int r;

	(void)orig;
	if (pt_snprintf(p, sizeof(p), "sys/block/%s/dev", t->group) < 0)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	if (pt_attr_read(ctx, p, dev, sizeof(dev)) < 0) { /* gone: the write will say so */
		pt_err_clear(ctx);
		return 0;
	}
	snprintf(p, sizeof(p), "sys/block/%s/diskseq", t->group);
	if (pt_attr_read(ctx, p, seq, sizeof(seq)) < 0)
		udev_initialized(ctx, t->group, init, sizeof(init));
	pt_err_clear(ctx);
	if (seq[0])
		r = pt_snprintf(buf, size, "dev=%s diskseq=%s", dev, seq);
	else if (init[0])
		r = pt_snprintf(buf, size, "dev=%s udev=%s", dev, init);
	else
		r = pt_snprintf(buf, size, "dev=%s", dev);
	if (r < 0)
		return r;
	return 0;
}

const struct pt_family pt_block_family = {
	.name = "block",
	.resolve = block_resolve,
	.list = block_list,
	.read = block_read,
	.validate = block_validate,
	.validate_cur = block_validate_cur,
	.write = pt_file_write,
	.flags = PT_FAM_FILE,
	.describe = block_describe,
	.verify = block_verify,
	.export_names = block_export_names,
	.identity = block_identity,
};
