// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hugepages.*: persistent huge pages per size and per NUMA node
 * (Documentation/admin-guide/mm/hugetlbpage.rst).  The kernel allocates what
 * it can and reports the real count: a read-back below the request is a
 * partial allocation (-EAGAIN), accepted only with PERFTUNE_TX_ALLOW_PARTIAL.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/file.h"
#include "family/hugepages.h"

#define HP_DIR "sys/kernel/mm/hugepages"
#define NODE_DIR "sys/devices/system/node"
#define HP_MAX (1LL << 31)

enum { HP_DEFAULT, HP_NR, HP_OVERCOMMIT, HP_NODE };

/* "2M", "1G", "2048kB", "64K" -> kB; 0 on error */
static unsigned long size_kb(const char *s)
{
	char *end;
	unsigned long v, unit = 0;

	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno)
		return 0;
	if (!strcmp(end, "kB") || !strcmp(end, "K") || !strcmp(end, "k") || !strcmp(end, "KB"))
		unit = 1;
	else if (!strcmp(end, "M") || !strcmp(end, "MB"))
		unit = 1024;
	else if (!strcmp(end, "G") || !strcmp(end, "GB"))
		unit = 1024 * 1024;
	/* a size that wraps around would name another, real page size */
	if (!unit || v > ULONG_MAX / unit)
		return 0;
	return v * unit;
}

static void size_name(unsigned long kb, char *buf, size_t size)
{
	if (kb % (1024 * 1024) == 0)
		snprintf(buf, size, "%luG", kb / (1024 * 1024));
	else if (kb % 1024 == 0)
		snprintf(buf, size, "%luM", kb / 1024);
	else
		snprintf(buf, size, "%lukB", kb);
}

static int emit_hp(struct perftune_ctx *ctx, int kind, unsigned long kb, int node, pt_emit_fn emit,
		   void *ud)
{
	struct pt_tunable t;
	char sz[32], path[PATH_MAX];
	int r;

	size_name(kb, sz, sizeof(sz));
	switch (kind) {
	case HP_DEFAULT:
		r = pt_tunable_init(&t, &pt_hugepages_family, "proc/sys/vm/nr_hugepages",
				    "hugepages.nr");
		break;
	case HP_NR:
		snprintf(path, sizeof(path), HP_DIR "/hugepages-%lukB/nr_hugepages", kb);
		r = pt_tunable_init(&t, &pt_hugepages_family, path, "hugepages.%s.nr", sz);
		break;
	case HP_OVERCOMMIT:
		snprintf(path, sizeof(path), HP_DIR "/hugepages-%lukB/nr_overcommit_hugepages", kb);
		r = pt_tunable_init(&t, &pt_hugepages_family, path, "hugepages.%s.overcommit", sz);
		break;
	default:
		snprintf(path, sizeof(path),
			 NODE_DIR "/node%d/hugepages/hugepages-%lukB/nr_hugepages", node, kb);
		r = pt_tunable_init(&t, &pt_hugepages_family, path, "hugepages.%s.node%d.nr", sz,
				    node);
	}
	if (r < 0)
		return r;
	t.kind = kind;
	t.id = node;
	snprintf(t.aux, sizeof(t.aux), "%lu", kb);
	if (!pt_attr_exists(ctx, t.path))
		return -ENOENT;
	return emit(ctx, &t, ud);
}

/* Call @fn for each node directory matching @pat (NULL: all). */
static int for_nodes(struct perftune_ctx *ctx, const char *pat, unsigned long kb, pt_emit_fn emit,
		     void *ud, int *found)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, NODE_DIR);
	struct dirent *de;
	int r = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && r >= 0) {
		char *end;
		long n;
		if (strncmp(de->d_name, "node", 4) || !isdigit((unsigned char)de->d_name[4]))
			continue;
		n = strtol(de->d_name + 4, &end, 10);
		if (*end || (pat && fnmatch(pat, de->d_name, 0)))
			continue;
		r = emit_hp(ctx, HP_NODE, kb, (int)n, emit, ud);
		if (r == -ENOENT)
			r = 0;
		else if (r >= 0)
			(*found)++;
	}
	return r;
}

static int hp_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		      void *ud)
{
	const char *last = kp->c[kp->n - 1].s;
	unsigned long kb;
	int r, found = 0;

	if (kp->n == 2 && !strcmp(last, "nr")) {
		r = emit_hp(ctx, HP_DEFAULT, 0, 0, emit, ud);
		if (r == -ENOENT)
			return pt_err(ctx, -EOPNOTSUPP, "%s: no huge page support", kp->text);
		return r;
	}
	if (kp->n < 3 || kp->n > 4 || kp->c[1].bracketed)
		return pt_err(ctx, -EINVAL,
			      "%s: expected hugepages.nr, hugepages.<size>.nr|overcommit or "
			      "hugepages.<size>.node<N>.nr",
			      kp->text);
	kb = size_kb(kp->c[1].s);
	if (!kb)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a page size (2M, 1G, 2048kB)",
			      kp->text, kp->c[1].s);
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), HP_DIR "/hugepages-%lukB", kb);
	if (!pt_attr_is_dir(ctx, dir))
		return pt_err(ctx, -ENOENT, "%s: this machine has no %s huge pages", kp->text,
			      kp->c[1].s);
	if (kp->n == 3) {
		if (strcmp(last, "nr") && strcmp(last, "overcommit"))
			return pt_err(ctx, -ENOENT, "%s: '%s' is not nr or overcommit", kp->text,
				      last);
		return emit_hp(ctx, strcmp(last, "nr") ? HP_OVERCOMMIT : HP_NR, kb, 0, emit, ud);
	}
	if (strcmp(last, "nr") || strncmp(kp->c[2].s, "node", 4))
		return pt_err(ctx, -EINVAL, "%s: per-node key is hugepages.<size>.node<N>.nr",
			      kp->text);
	if (!kp->c[2].glob) {
		unsigned long n;

		if (pt_parse_digits(kp->c[2].s + 4, 65535, &n) < 0)
			return pt_err(ctx, -EINVAL, "%s: '%s' is not node<N>", kp->text, kp->c[2].s);
		r = emit_hp(ctx, HP_NODE, kb, (int)n, emit, ud);
		if (r == -ENOENT)
			return pt_err(ctx, -ENODEV, "%s: no NUMA node %lu", kp->text, n);
		return r;
	}
	r = for_nodes(ctx, kp->c[2].s, kb, emit, ud, &found);
	return r;
}

static int hp_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, HP_DIR);
	struct dirent *de;
	int r = emit_hp(ctx, HP_DEFAULT, 0, 0, emit, ud), found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && (r >= 0 || r == -ENOENT)) {
		unsigned long kb;
		if (sscanf(de->d_name, "hugepages-%lukB", &kb) != 1)
			continue;
		r = emit_hp(ctx, HP_NR, kb, 0, emit, ud);
		if (r >= 0 || r == -ENOENT)
			r = emit_hp(ctx, HP_OVERCOMMIT, kb, 0, emit, ud);
		if (r >= 0 || r == -ENOENT)
			r = for_nodes(ctx, NULL, kb, emit, ud, &found);
	}
	if (r == -ENOENT)
		return 0;
	return r;
}

static int hp_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		       char *out, size_t size)
{
	int r = pt_validate_range(ctx, t, in, 0, HP_MAX, out, size);
	char tmp[PT_VAL];

	if (r < 0)
		return r;
	return pt_file_validate(ctx, t, out, tmp, sizeof(tmp));
}

static int hp_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		     const char *got)
{
	long long w, g;

	if (pt_parse_ll(want, &w) < 0 || pt_parse_ll(got, &g) < 0)
		return pt_err(ctx, -EIO, "%s: read back '%s'", t->key, got);
	if (g == w || t->kind == HP_OVERCOMMIT) {
		if (g == w)
			return 0;
		return pt_err(ctx, -EIO, "%s: wrote %s, read back %s", t->key, want, got);
	}
	if (g < w)
		return pt_err(ctx, -EAGAIN,
			      "%s: asked for %lld huge pages, the kernel allocated %lld", t->key, w,
			      g);
	return pt_err(ctx, -EIO, "%s: asked for %lld huge pages, %lld remain (in use)", t->key, w,
		      g);
}

static int hp_describe(struct perftune_ctx *ctx, const struct pt_tunable *t, struct perftune_desc *d)
{
	char path[PATH_MAX], free_pages[64] = "?";
	const char *slash = strrchr(t->path, '/');
	int r = pt_file_describe(ctx, t, d);

	pt_desc_set_range(d, 0, HP_MAX);
	pt_desc_set_unit(d, "pages");
	if (t->kind != HP_DEFAULT && slash) {
		snprintf(path, sizeof(path), "%.*s/free_hugepages", (int)(slash - t->path), t->path);
		pt_attr_read(ctx, path, free_pages, sizeof(free_pages));
		pt_desc_add_info(d, "page size %s kB, %s free", t->aux, free_pages);
	}
	return r;
}

void pt_hugepages_boot(struct perftune_ctx *ctx, unsigned long kb, const char *value, char *buf,
		       size_t size)
{
	char sz[32], info[8192], *p;

	if (kb) {
		size_name(kb, sz, sizeof(sz));
		snprintf(buf, size, "hugepagesz=%s hugepages=%s", sz, value);
		return;
	}
	kb = 2048;
	if (pt_attr_read_raw(ctx, "proc/meminfo", info, sizeof(info)) >= 0 &&
	    (p = strstr(info, "Hugepagesize:")))
		kb = strtoul(p + 13, NULL, 10);
	size_name(kb, sz, sizeof(sz));
	snprintf(buf, size, "default_hugepagesz=%s hugepages=%s", sz, value);
}

static void hp_export_names(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			    struct pt_xnames *x)
{
	unsigned long kb = 0; /* 0: the default size's pool */

	pt_file_export_names(ctx, t, value, x); /* hugepages.nr: vm.nr_hugepages */
	if (t->kind == HP_NR)
		kb = strtoul(t->aux, NULL, 10);
	if (t->kind == HP_DEFAULT || t->kind == HP_NR) /* the kernel sets no node's pool at boot */
		pt_hugepages_boot(ctx, kb, value, x->boot, sizeof(x->boot));
}

const struct pt_family pt_hugepages_family = {
	.name = "hugepages",
	.resolve = hp_resolve,
	.list = hp_list,
	.read = pt_file_read,
	.validate = hp_validate,
	.write = pt_file_write,
	.flags = PT_FAM_FILE,
	.describe = hp_describe,
	.verify = hp_verify,
	.export_names = hp_export_names,
};
