// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * workqueue.cpus: the CPUs unbound workqueues may run on,
 * /sys/devices/virtual/workqueue/cpumask; workqueue.<name>.cpus: that of one
 * workqueue exposed in sysfs (writeback, ...), <name>/cpumask
 * (Documentation/core-api/workqueue.rst).  Hex masks in the files, CPU lists
 * in the keys; the kernel keeps only the possible, housekeeping CPUs of what
 * is written (a narrower read-back is accepted and noted).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/cpulist.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "family/cpumask.h"
#include "family/family.h"

#define WQ_DIR "sys/devices/virtual/workqueue"

static int wq_emit(struct perftune_ctx *ctx, const char *name, pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;
	char path[PATH_MAX], comp[128];
	int r;

	if (name) {
		r = pt_snprintf(path, sizeof(path), WQ_DIR "/%s/cpumask", name);
		if (r >= 0)
			r = pt_key_comp(comp, sizeof(comp), name, PT_KEYFORM_BRACKET);
		if (r >= 0)
			r = pt_tunable_init(&t, &pt_workqueue_family, path, "workqueue.%s.cpus",
					    comp);
	} else {
		r = pt_snprintf(path, sizeof(path), WQ_DIR "/cpumask");
		if (r >= 0)
			r = pt_tunable_init(&t, &pt_workqueue_family, path, "workqueue.cpus");
	}
	if (r < 0)
		return 0; /* no key can name it */
	if (!pt_attr_tunable(ctx, path))
		return 0;
	t.kind = PT_CPUMASK_HEX | PT_CPUMASK_NARROW;
	return emit(ctx, &t, ud);
}

/* the workqueues @sel names or matches (NULL: all) that have a CPU mask; *@found of them */
static int wq_scan(struct perftune_ctx *ctx, const struct pt_comp *sel, pt_emit_fn emit, void *ud,
		   int *found)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, WQ_DIR);
	struct dirent *de;
	int r = 0;

	while (d && (de = readdir(d)) && r >= 0) {
		char p[PATH_MAX];
		if (de->d_name[0] == '.' || (sel && !pt_comp_matches(sel, de->d_name)) ||
		    pt_snprintf(p, sizeof(p), WQ_DIR "/%s/cpumask", de->d_name) < 0 ||
		    !pt_attr_tunable(ctx, p))
			continue;
		(*found)++;
		r = wq_emit(ctx, de->d_name, emit, ud);
	}
	return r;
}

static int wq_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	int found = 0, r = wq_emit(ctx, NULL, emit, ud);

	if (r < 0)
		return r;
	return wq_scan(ctx, NULL, emit, ud, &found);
}

static int wq_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		      void *ud)
{
	const struct pt_comp *sel = kp->n == 3 ? &kp->c[1] : NULL;
	int found = 0, r;

	if (kp->n < 2 || kp->n > 3 || strcmp(kp->c[kp->n - 1].s, "cpus") ||
	    kp->c[kp->n - 1].bracketed)
		return pt_err(ctx, -EINVAL, "%s: expected workqueue.cpus or workqueue.<name>.cpus",
			      kp->text);
	if (!pt_attr_is_dir(ctx, WQ_DIR))
		return pt_err(ctx, -EOPNOTSUPP, "%s: this kernel has no /" WQ_DIR, kp->text);
	if (!sel) {
		if (!pt_attr_exists(ctx, WQ_DIR "/cpumask"))
			return pt_err(ctx, -EOPNOTSUPP,
				      "%s: this kernel has no /" WQ_DIR "/cpumask (before 4.6)",
				      kp->text);
		return wq_emit(ctx, NULL, emit, ud);
	}
	if (strchr(sel->name, '/') || !strcmp(sel->name, ".") || !strcmp(sel->name, ".."))
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a workqueue name", kp->text, sel->s);
	r = wq_scan(ctx, sel, emit, ud, &found);
	if (r >= 0 && !found)
		return pt_err(ctx, -ENODEV,
			      "%s: no workqueue '%s' with a CPU mask in /" WQ_DIR
			      " (only unbound workqueues made visible in sysfs have one)",
			      kp->text, sel->s);
	return r;
}

/*
 * workqueue.cpus on the kernel command line (6.6 and later): workqueue.unbound_cpus=;
 * the file (TuneD's [sysfs]) takes the CPU list as a hex mask
 */
static void wq_export_names(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t,
			    const char *value, struct pt_xnames *x)
{
	unsigned char m[PT_CPUS_BYTES];
	_cleanup_free_ char *hex = NULL;

	if (!strcmp(t->key, "workqueue.cpus"))
		snprintf(x->boot, sizeof(x->boot), "workqueue.unbound_cpus=%s", value);
	x->file_differs = true;
	if (pt_parse_cpulist(value, m, PT_CPUS_MAX) == 0 && (hex = pt_cpus_hexstr(m)))
		pt_snprintf(x->file_value, sizeof(x->file_value), "%s", hex);
}

const struct pt_family pt_workqueue_family = {
	.name = "workqueue",
	.resolve = wq_resolve,
	.list = wq_list,
	.read = pt_cpumask_read,
	.validate = pt_cpumask_validate,
	.write = pt_cpumask_write,
	.verify = pt_cpumask_verify,
	.describe = pt_cpumask_describe,
	.export_names = wq_export_names,
};
