// SPDX-License-Identifier: LGPL-2.1-or-later
/* sysctl.<name> (/proc/sys) and the sysfs[<path>] escape hatch (/sys). */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "perftune.h"
#include "macro.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/file.h"
#include "family/hugepages.h"
#include "net/netdev.h"

/*
 * "net.ipv4.conf.[eth0.100].rp_filter": a component with dots or other
 * characters outside the key alphabet keeps brackets (shared/keyname.c), and a
 * bracketed component is that one name ("[x*]" is not a glob).
 */
static int append_comp(char *key, size_t size, const char *comp)
{
	char c[PATH_MAX];
	size_t n = strlen(key);
	int r = pt_key_comp(c, sizeof(c), comp, PT_KEYFORM_BRACKET);

	if (r < 0)
		return r;
	return pt_snprintf(key + n, size - n, "%s%s", n ? "." : "", c);
}

/* t->kind of a sysctl: its mode, seen when the key resolved (fixed: /proc/sys refuses chmod) */
enum { SYSCTL_READABLE, SYSCTL_TRIGGER };

struct walk {
	const struct pt_keyparts *kp; /* NULL: list everything */
	int first;		      /* first component of kp that is a path part */
	pt_emit_fn emit;
	void *ud;
	int found;
};

static int emit_sysctl(struct perftune_ctx *ctx, struct walk *w, const char *path, const char *name,
		       mode_t mode)
{
	struct pt_tunable t;

	if (pt_tunable_init(&t, &pt_sysctl_family, path, "sysctl.%s", name) < 0)
		return 0; /* too long to name: not listed */
	/* write-only triggers (vm.drop_caches) are not readable tunables */
	t.kind = (mode & 0444) ? SYSCTL_READABLE : SYSCTL_TRIGGER;
	t.read_only = !(mode & 0222);
	w->found++;
	return w->emit(ctx, &t, w->ud);
}

/* listing: a readable file, writable or not (read-only ones are flagged by
 * perftune_list); write-only triggers (vm.drop_caches) have no value to list */
static int list_file(struct perftune_ctx *ctx, struct walk *w, const char *path, const char *name)
{
	struct stat st;

	if (pt_attr_stat_file(ctx, path, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0444))
		return 0;
	return emit_sysctl(ctx, w, path, name, st.st_mode);
}

static bool has_glob(const struct pt_keyparts *kp)
{
	for (int i = 0; i < kp->n; i++)
		if (kp->c[i].glob)
			return true;
	return false;
}

/* Walk proc/sys below @path matching components from @depth (all, if listing). */
static int walk(struct perftune_ctx *ctx, struct walk *w, const char *path, const char *name,
		int depth)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	const struct pt_comp *c = w->kp && depth < w->kp->n ? &w->kp->c[depth] : NULL;
	const char *pat = c && c->glob ? c->s : NULL;
	int r = 0;

	if (w->kp && depth == w->kp->n) { /* one look at the file: missing, a directory, mode */
		struct stat st;
		if (pt_attr_stat_file(ctx, path, &st) < 0)
			return 0;
		if (S_ISDIR(st.st_mode) && !has_glob(w->kp))
			return pt_err(ctx, -EINVAL, "%s: a directory of sysctls, not one (%s.*)",
				      w->kp->text, w->kp->text);
		if (S_ISDIR(st.st_mode))
			return 0;
		return emit_sysctl(ctx, w, path, name, st.st_mode);
	}
	if (c && !c->glob) { /* one name: no directory scan needed */
		char p[PATH_MAX], n[PERFTUNE_KEY_MAX];
		if (strcmp(c->name, ".") == 0 || strcmp(c->name, "..") == 0 || strchr(c->name, '/'))
			return pt_err(ctx, -EINVAL, "%s: '%s' is not a sysctl name component",
				      w->kp->text, c->s);
		n[0] = '\0';
		if (pt_snprintf(p, sizeof(p), "%s/%s", path, c->name) < 0 ||
		    pt_snprintf(n, sizeof(n), "%s", name) < 0 ||
		    append_comp(n, sizeof(n), c->name) < 0)
			return pt_err(ctx, -ENAMETOOLONG, "%s: name too long", w->kp->text);
		/* a missing directory on the way: the last component's look finds nothing */
		return walk(ctx, w, p, n, depth + 1);
	}
	d = pt_attr_opendir(ctx, path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && r >= 0) {
		char p[PATH_MAX], n[PERFTUNE_KEY_MAX];
		if (de->d_name[0] == '.')
			continue;
		if (pat && fnmatch(pat, de->d_name, 0) != 0)
			continue;
		snprintf(n, sizeof(n), "%s", name);
		if (pt_snprintf(p, sizeof(p), "%s/%s", path, de->d_name) < 0 ||
		    append_comp(n, sizeof(n), de->d_name) < 0)
			continue;
		if (de->d_type == DT_DIR)
			r = walk(ctx, w, p, n, depth + 1);
		else if (!w->kp && de->d_type == DT_REG)
			r = list_file(ctx, w, p, n);
		else if (w->kp)
			r = walk(ctx, w, p, n, depth + 1);
	}
	return r;
}

static int sysctl_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			  void *ud)
{
	struct walk w = { .kp = kp, .emit = emit, .ud = ud };
	int r;

	if (kp->n < 2)
		return pt_err(ctx, -EINVAL, "%s: sysctl needs a name (sysctl.vm.swappiness)",
			      kp->text);
	r = walk(ctx, &w, "proc/sys", "", 1);
	if (r >= 0 && !w.found)
		return pt_err(ctx, -ENOENT, "%s: no such sysctl", kp->text);
	return r;
}

static int sysctl_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	struct walk w = { .emit = emit, .ud = ud };
	return walk(ctx, &w, "proc/sys", "", 1);
}

static int sysctl_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	if (t->kind == SYSCTL_TRIGGER)
		return pt_err(ctx, -EACCES, "%s: write-only trigger, not a tunable", t->key);
	return pt_file_read(ctx, t, buf, size);
}

/* a string keeps its blanks and tabs (kernel.core_pattern), as systemd-sysctl writes it */
static int sysctl_read_verbatim(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf,
				size_t size)
{
	if (t->kind == SYSCTL_TRIGGER)
		return sysctl_read(ctx, t, buf, size);
	return pt_file_read_verbatim(ctx, t, buf, size);
}

static int sysctl_validate_cur(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			       char *out, size_t size, char *cur, size_t cur_size)
{
	int r = pt_file_validate_cur(ctx, t, in, out, size, cur, cur_size);

	if (r == 0 && t->kind == SYSCTL_TRIGGER)
		cur[0] = '\0'; /* sysctl_read() refuses it */
	return r;
}

static int sysctl_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			   struct perftune_desc *d)
{
	int r = pt_file_describe(ctx, t, d);

	if (r == 0 && t->kind == SYSCTL_TRIGGER) /* as sysctl_read() says */
		pt_desc_set_unreadable(d, "write-only trigger");
	return r;
}

static void sysctl_export_names(struct perftune_ctx *ctx, const struct pt_tunable *t,
				const char *value, struct pt_xnames *x)
{
	pt_file_export_names(ctx, t, value, x);
	if (!strcmp(x->sysctl, "vm.nr_hugepages")) /* the default size's pool, as hugepages.nr */
		pt_hugepages_boot(ctx, 0, value, x->boot, sizeof(x->boot));
}

/*
 * The sysctls of a network device (net.<proto>.conf|neigh.<dev>.*) belong to
 * it as its ethtool settings do: deleted and made again, it has new ones;
 * renamed, they go with it (net/netdev.c's identity).  @dev: its name, from
 * the path proc/sys/net/<proto>/<conf|neigh>/<dev>/...; false for others.
 */
static bool netdev_of(const struct pt_tunable *t, char *dev, size_t size)
{
	const char *p = t->path, *slash;

	if (strncmp(p, "proc/sys/net/", 13) || !(p = strchr(p + 13, '/')) ||
	    (strncmp(p, "/conf/", 6) && strncmp(p, "/neigh/", 7)))
		return false;
	p = strchr(p + 1, '/') + 1;
	slash = strchr(p, '/');
	if (!slash || (size_t)(slash - p) >= size)
		return false;
	snprintf(dev, size, "%.*s", (int)(slash - p), p);
	return strcmp(dev, "all") && strcmp(dev, "default");
}

static int sysctl_identity(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			   char *buf, size_t size)
{
	char dev[64];

	(void)orig;
	buf[0] = '\0';
	if (netdev_of(t, dev, sizeof(dev)))
		return pt_netdev_identity(ctx, dev, buf, size);
	return 0;
}

/* sysctl.<each component of @kp>: a renamed device's key */
static int key_of(char *out, size_t size, const struct pt_keyparts *kp)
{
	int r = pt_snprintf(out, size, "sysctl");

	for (int i = 1; i < kp->n && r >= 0; i++)
		r = append_comp(out, size, kp->c[i].s);
	return r;
}

/* a device renamed since: sysctl.net.<proto>.conf.<its name now>.<name> */
static int sysctl_reclaim(struct perftune_ctx *ctx, struct pt_found *f)
{
	return pt_netdev_reclaim(ctx, f, 4, key_of);
}

const struct pt_family pt_sysctl_family = {
	.name = "sysctl",
	.resolve = sysctl_resolve,
	.list = sysctl_list,
	.read = sysctl_read,
	.validate = pt_file_validate,
	.validate_cur = sysctl_validate_cur,
	.write = pt_file_write,
	.flags = PT_FAM_FILE,
	.read_verbatim = sysctl_read_verbatim,
	.describe = sysctl_describe,
	.export_names = sysctl_export_names,
	.identity = sysctl_identity,
	.reclaim = sysctl_reclaim,
};

/* ---- sysfs[<path>] ---- */

static int sysfs_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			 void *ud)
{
	const char *p = kp->c[1].s;
	struct pt_tunable t;

	if (kp->n != 2 || !kp->c[1].bracketed)
		return pt_err(ctx, -EINVAL, "%s: write sysfs[/sys/path/to/attribute]", kp->text);
	if (strncmp(p, "/sys/", 5) != 0 || !p[5])
		return pt_err(ctx, -EPERM, "%s: path must be under /sys", kp->text);
	if (strstr(p, "/../") || strstr(p, "/./") || strstr(p, "//") ||
	    (strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0) || p[strlen(p) - 1] == '/')
		return pt_err(ctx, -EPERM,
			      "%s: path must not contain '..', '.', '//' or end in '/'", kp->text);
	if (pt_tunable_init(&t, &pt_sysfs_family, p + 1, "sysfs[%s]", p) < 0)
		return pt_err(ctx, -ENAMETOOLONG, "%s: path too long", kp->text);
	int fd = pt_attr_open(ctx, t.path, O_PATH);
	if (fd == -EPERM || fd == -ELOOP)
		return pt_err(ctx, -EPERM, "%s: path resolves outside /sys (symlink)", kp->text);
	if (fd < 0)
		return pt_err(ctx, fd, "%s: %s", kp->text, strerror(-fd));
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && !S_ISREG(st.st_mode))
		return pt_err(ctx, -EISDIR, "%s: not an attribute file", kp->text);
	if (r < 0)
		return r;
	return emit(ctx, &t, ud);
}

static int sysfs_list(struct perftune_ctx *ctx _unused_, pt_emit_fn emit _unused_, void *ud _unused_)
{
	return 0; /* an escape hatch, not enumerated */
}

const struct pt_family pt_sysfs_family = {
	.name = "sysfs",
	.resolve = sysfs_resolve,
	.list = sysfs_list,
	.read = pt_file_read,
	.validate = pt_file_validate,
	.validate_cur = pt_file_validate_cur,
	.write = pt_file_write,
	.flags = PT_FAM_FILE,
	.describe = pt_file_describe,
};
