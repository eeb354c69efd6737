// SPDX-License-Identifier: LGPL-2.1-or-later
/* thp.*: /sys/kernel/mm/transparent_hugepage (Documentation/admin-guide/mm/transhuge.rst). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
#include "family/file.h"

#define THP_DIR "sys/kernel/mm/transparent_hugepage"

static int thp_emit(struct perftune_ctx *ctx, const char *sub, const char *file, pt_emit_fn emit,
		    void *ud)
{
	struct pt_tunable t;
	char path[PATH_MAX];
	const char *slash = "", *dot = ""; /* after @sub, when there is one */

	if (sub[0]) {
		slash = "/";
		dot = ".";
	}
	if (pt_snprintf(path, sizeof(path), THP_DIR "%s%s/%s", slash, sub, file) < 0 ||
	    pt_tunable_init(&t, &pt_thp_family, path, "thp.%s%s%s", sub, dot, file) < 0)
		return -ENAMETOOLONG;
	return emit(ctx, &t, ud);
}

static int thp_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud)
{
	const char *sub = kp->n == 3 ? kp->c[1].s : "";
	const char *file = kp->c[kp->n - 1].s;
	char path[PATH_MAX];
	struct stat st;

	if (kp->n < 2 || kp->n > 3 || (kp->n == 3 && strcmp(sub, "khugepaged") != 0) ||
	    kp->c[1].bracketed || pt_glob(file))
		return pt_err(ctx, -EINVAL,
			      "%s: expected thp.<attribute> or thp.khugepaged.<attribute>",
			      kp->text);
	snprintf(path, sizeof(path), THP_DIR "%s%s/%s", sub[0] ? "/" : "", sub, file);
	if (pt_attr_stat_file(ctx, path, &st) == 0 && !S_ISDIR(st.st_mode))
		return thp_emit(ctx, sub, file, emit, ud);
	if (!pt_attr_is_dir(ctx, THP_DIR))
		return pt_err(ctx, -EOPNOTSUPP,
			      "%s: this kernel has no transparent huge pages (" THP_DIR ")",
			      kp->text);
	return pt_err(ctx, -ENOENT, "%s: no such THP attribute", kp->text);
}

static int thp_list_dir(struct perftune_ctx *ctx, const char *sub, pt_emit_fn emit, void *ud)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int r = 0;

	snprintf(dir, sizeof(dir), THP_DIR "%s%s", sub[0] ? "/" : "", sub);
	d = pt_attr_opendir(ctx, dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && r >= 0) {
		char f[PATH_MAX];
		snprintf(f, sizeof(f), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_REG && pt_attr_tunable(ctx, f))
			r = thp_emit(ctx, sub, de->d_name, emit, ud);
	}
	return r;
}

static int thp_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	int r = thp_list_dir(ctx, "", emit, ud);
	if (r < 0)
		return r;
	return thp_list_dir(ctx, "khugepaged", emit, ud);
}

static void thp_export_names(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t,
			     const char *value, struct pt_xnames *x)
{
	if (!strcmp(t->key, "thp.enabled")) /* kernel-parameters.txt: only the mode, not defrag */
		snprintf(x->boot, sizeof(x->boot), "transparent_hugepage=%s", value);
}

const struct pt_family pt_thp_family = {
	.name = "thp",
	.resolve = thp_resolve,
	.list = thp_list,
	.read = pt_file_read,
	.validate = pt_file_validate,
	.validate_cur = pt_file_validate_cur,
	.write = pt_file_write,
	.flags = PT_FAM_FILE,
	.describe = pt_file_describe,
	.export_names = thp_export_names,
};
