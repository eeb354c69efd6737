// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * irq.<n>.cpus: the CPUs IRQ <n> may be delivered to, /proc/irq/<n>/smp_affinity_list
 * (Documentation/core-api/irq/irq-affinity.rst); irq.default.cpus: the mask
 * new IRQs start with, /proc/irq/default_smp_affinity.  Selectors: irq.all,
 * and irq[<name>]: the IRQs with a handler (a directory /proc/irq/<n>/<action>)
 * called <name>, or starting with it unless a digit follows ("eth0" reaches
 * "eth0-TxRx-0", "nvme0" reaches "nvme0q1" but not "nvme01"), or matching it
 * as a glob, or those of the device behind the network interface or disk
 * <name> ("eth0" -> virtio2 -> "virtio2-input.0").
 *
 * The kernel will not move per-CPU and managed IRQs (irq_can_set_affinity_usr():
 * the write answers EIO); since 6.12 their files are read-only.  A selector
 * skips them, with the reason; asked for by number, they are an error naming
 * the IRQ.  Where modes do not tell (older kernels), a selector asks the
 * kernel by writing an IRQ's own affinity back to it, which moves nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/cpulist.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/cpumask.h"
#include "family/family.h"

#define IRQ_DIR "proc/irq"
#define IRQ_DEFAULT IRQ_DIR "/default_smp_affinity"
#define IRQ_INTERSECT "intersect:"

enum {
	IRQ_SEL = 1 << 4,   /* reached through a selector: an unmovable IRQ is skipped */
	IRQ_MODES = 1 << 5, /* this kernel shows unmovable IRQs read-only: no need to ask it */
};

/* the names of IRQ @n's handlers, "a,b", in @out ("" if none) */
static void irq_actions(struct perftune_ctx *ctx, int n, char *out, size_t size)
{
	char dir[64];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	size_t o = 0;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), IRQ_DIR "/%d", n);
	d = pt_attr_opendir(ctx, dir);
	while (d && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.' && o + 2 < size)
			o += (size_t)snprintf(out + o, size - o, "%s%s", o ? "," : "", de->d_name);
}

/* a handler's name matches @pat: equal, a glob match, or a prefix not followed by a digit */
static bool name_matches(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	if (!fnmatch(pat, name, 0))
		return true;
	return !pt_glob(pat) && !strncmp(name, pat, n) && !isdigit((unsigned char)name[n]);
}

/* what a selector looks for: @pat, and the kernel names of the device behind it */
struct irq_sel {
	const char *pat; /* NULL: every IRQ */
	char dev[2][64];
};

static void sel_devices(struct perftune_ctx *ctx, struct irq_sel *s)
{
	static const char *const where[] = { "sys/class/net", "sys/block" };
	char p[PATH_MAX], link[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		const char *base;
		s->dev[i][0] = '\0';
		if (strchr(s->pat, '/') || pt_glob(s->pat) ||
		    pt_snprintf(p, sizeof(p), "%s/%s/device", where[i], s->pat) < 0 ||
		    pt_attr_readlink(ctx, p, link, sizeof(link)) < 0)
			continue;
		base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		snprintf(s->dev[i], sizeof(s->dev[i]), "%s", base);
	}
}

static bool irq_selected(const struct irq_sel *s, const char *actions)
{
	_cleanup_free_ char *copy = strdup(actions);
	char *save = NULL;

	if (!s->pat)
		return true;
	if (!copy)
		return false;
	for (char *a = strtok_r(copy, ",", &save); a; a = strtok_r(NULL, ",", &save))
		if (name_matches(s->pat, a) || (s->dev[0][0] && name_matches(s->dev[0], a)) ||
		    (s->dev[1][0] && name_matches(s->dev[1], a)))
			return true;
	return false;
}

static int emit_irq(struct perftune_ctx *ctx, int n, unsigned kind, pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), IRQ_DIR "/%d/smp_affinity_list", n);
	if (pt_attr_stat_file(ctx, path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0; /* a uniprocessor kernel has no affinity files */
	pt_tunable_init(&t, &pt_irq_family, path, "irq.%d.cpus", n);
	t.id = n;
	t.kind = (int)kind;
	t.read_only = !(st.st_mode & 0222);
	irq_actions(ctx, n, t.aux, sizeof(t.aux));
	snprintf(t.note, sizeof(t.note), "%s", t.aux); /* its handlers, in list and set */
	return emit(ctx, &t, ud);
}

static bool irq_number(const char *s)
{
	return *s && strlen(s) < 8 && strspn(s, "0123456789") == strlen(s);
}

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* the IRQ numbers under /proc/irq (*@modes: one of them is read-only), in a malloc'd array */
static int irq_numbers(struct perftune_ctx *ctx, int **out, bool *modes)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, IRQ_DIR);
	struct dirent *de;
	size_t n = 0, cap = 0;

	*out = NULL;
	*modes = false;
	if (!d)
		return -EOPNOTSUPP;
	while ((de = readdir(d))) {
		char p[64];
		struct stat st;
		if (!irq_number(de->d_name))
			continue;
		if (pt_grow(out, &cap, n + 1, 64) < 0)
			return -ENOMEM;
		(*out)[n++] = atoi(de->d_name);
		snprintf(p, sizeof(p), IRQ_DIR "/%s/smp_affinity_list", de->d_name);
		if (pt_attr_stat_file(ctx, p, &st) == 0 && !(st.st_mode & 0222))
			*modes = true;
	}
	if (n)
		qsort(*out, n, sizeof(**out), by_number);
	return (int)n;
}

static int irq_scan(struct perftune_ctx *ctx, struct irq_sel *s, unsigned kind, pt_emit_fn emit,
		    void *ud, int *found)
{
	_cleanup_free_ int *v = NULL;
	bool modes;
	int n = irq_numbers(ctx, &v, &modes), r = 0;

	if (s->pat)
		sel_devices(ctx, s);
	for (int i = 0; i < n && r >= 0; i++) {
		char actions[sizeof(((struct pt_tunable *)0)->aux)];
		irq_actions(ctx, v[i], actions, sizeof(actions));
		if (!irq_selected(s, actions))
			continue;
		(*found)++;
		r = emit_irq(ctx, v[i], kind | (modes ? IRQ_MODES : 0), emit, ud);
	}
	if (n < 0)
		return n;
	return r;
}

/* irq.default.cpus: a hex mask in the file, id -1 */
static int emit_default(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;

	if (!pt_attr_exists(ctx, IRQ_DEFAULT))
		return pt_err(ctx, -EOPNOTSUPP,
			      "irq.default.cpus: this kernel has no /" IRQ_DEFAULT);
	pt_tunable_init(&t, &pt_irq_family, IRQ_DEFAULT, "irq.default.cpus");
	t.id = -1;
	t.kind = PT_CPUMASK_HEX;
	return emit(ctx, &t, ud);
}

static int irq_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	struct irq_sel all = { 0 };
	int found = 0, r = emit_default(ctx, emit, ud);

	if (r == -EOPNOTSUPP) /* the IRQs may be there without it */
		pt_err_clear(ctx);
	if (r < 0 && r != -EOPNOTSUPP)
		return r;
	return irq_scan(ctx, &all, 0, emit, ud, &found);
}

static int irq_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud)
{
	const struct pt_comp *c = &kp->c[1];
	struct irq_sel s = { .pat = c->s };
	char path[64];
	int found = 0, r;

	if (kp->n != 3 || strcmp(kp->c[2].s, "cpus") || kp->c[2].bracketed)
		return pt_err(ctx, -EINVAL,
			      "%s: expected irq.<n>.cpus, irq.default.cpus, irq.all.cpus or "
			      "irq[<device or handler>].cpus",
			      kp->text);
	if (!c->bracketed && !strcmp(c->s, "default"))
		return emit_default(ctx, emit, ud);
	if (!c->bracketed && irq_number(c->s)) {
		snprintf(path, sizeof(path), IRQ_DIR "/%d", atoi(c->s));
		if (!pt_attr_is_dir(ctx, path))
			return pt_err(ctx, -ENODEV, "%s: no IRQ %s on this machine (/%s)", kp->text,
				      c->s, path);
		return emit_irq(ctx, atoi(c->s), 0, emit, ud);
	}
	if (!c->bracketed && !strcmp(c->s, "all"))
		s.pat = NULL;
	r = irq_scan(ctx, &s, IRQ_SEL, emit, ud, &found);
	if (r == -EOPNOTSUPP)
		return pt_err(ctx, r, "%s: this kernel has no /" IRQ_DIR, kp->text);
	if (r >= 0 && !found && s.pat)
		return pt_err(ctx, -ENODEV, "%s: no IRQ of a device or handler named '%s'",
			      kp->text, s.pat);
	return r;
}

/*
 * Whether the kernel moves IRQ @t: its file's mode where the kernel tells
 * (6.12), else its answer to a write of the IRQ's own affinity: EIO for
 * per-CPU and managed IRQs, nothing moved for the others.
 */
static bool irq_movable(struct perftune_ctx *ctx, const struct pt_tunable *t)
{
	char cur[PT_VAL];
	struct stat st;

	if (pt_attr_stat_file(ctx, t->path, &st) == 0 && !(st.st_mode & 0222))
		return false;
	if ((t->kind & IRQ_MODES) || pt_attr_read_raw(ctx, t->path, cur, sizeof(cur)) < 0)
		return true;
	pt_trim(cur);
	return pt_attr_write(ctx, t->path, cur) != -EIO;
}

static int unmovable(struct perftune_ctx *ctx, const struct pt_tunable *t, int err)
{
	return pt_err(ctx, err,
		      "%s: the kernel will not move IRQ %d%s%s%s: it is per-CPU or its affinity is "
		      "managed by the kernel",
		      t->key, t->id, t->aux[0] ? " (" : "", t->aux, t->aux[0] ? ")" : "");
}

/* "intersect:<cpus>" (TuneD's mode=intersect): the IRQ's CPUs among <cpus>, or <cpus> if none */
static int irq_intersect(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			 char *out, size_t size)
{
	unsigned char want[PT_CPUS_BYTES], cur[PT_CPUS_BYTES], both[PT_CPUS_BYTES];
	char now[PT_VAL];
	bool any = false;
	int r = pt_cpumask_parse(ctx, t, in + strlen(IRQ_INTERSECT), want);

	if (r < 0)
		return r;
	r = pt_cpumask_read(ctx, t, now, sizeof(now));
	if (r < 0)
		return r;
	if (now[0] && pt_parse_cpulist(now, cur, PT_CPUS_MAX) == 0)
		for (int i = 0; i < PT_CPUS_BYTES; i++) {
			both[i] = want[i] & cur[i];
			any |= both[i] != 0;
		}
	pt_format_cpulist(any ? both : want, PT_CPUS_MAX, out, size);
	return 0;
}

static int irq_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size)
{
	char v[PT_VAL];
	struct stat st;
	int r;

	if (t->id >= 0 && t->path[0] && pt_attr_stat_file(ctx, t->path, &st) == 0 &&
	    !(st.st_mode & 0222))
		return unmovable(ctx, t, -EROFS);
	if (!strncmp(in, IRQ_INTERSECT, strlen(IRQ_INTERSECT))) {
		r = irq_intersect(ctx, t, in, v, sizeof(v));
		if (r < 0)
			return r;
		in = v;
	}
	return pt_cpumask_validate(ctx, t, in, out, size);
}

/* a selector skips the IRQs the kernel will not move, and says so */
static int irq_expand(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		      pt_stage_fn stage _unused_, void *ud _unused_)
{
	if (!(t->kind & IRQ_SEL) || irq_movable(ctx, t))
		return 1;
	unmovable(ctx, t, -EROFS);
	pt_log(ctx, PERFTUNE_LOG_NOTICE, "%s; skipped (%s)", pt_errmsg(ctx), value);
	pt_err_clear(ctx);
	return 0;
}

static int irq_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd)
{
	int r;

	r = pt_cpumask_write(ctx, t, value, hold_fd);
	if (r == -EIO && t->id >= 0)
		return unmovable(ctx, t, r);
	return r;
}

/* the effective affinity (x86, GICv3: one CPU of the mask) follows at the IRQ's next interrupt */
static int irq_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got)
{
	struct pt_tunable eff = *t;
	char e[PT_VAL];
	int r = pt_cpumask_verify(ctx, t, want, got);

	if (r < 0 || t->id < 0)
		return r;
	snprintf(eff.path, sizeof(eff.path), IRQ_DIR "/%d/effective_affinity_list", t->id);
	if (pt_attr_exists(ctx, eff.path) && pt_cpumask_read(ctx, &eff, e, sizeof(e)) == 0 &&
	    e[0] && pt_cpumask_verify(ctx, &eff, want, e) < 0)
		pt_log(ctx, PERFTUNE_LOG_INFO, "%s: still delivered to CPU %s until it moves",
		       t->key, e);
	pt_err_clear(ctx);
	return 0;
}

static int irq_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d)
{
	char p[64], v[PT_VAL];
	int r;

	r = pt_cpumask_describe(ctx, t, d);
	if (r < 0 || t->id < 0) {
		pt_desc_add_info(d, "the affinity IRQs start with when they are requested");
		return r;
	}
	snprintf(p, sizeof(p), IRQ_DIR "/%d/effective_affinity_list", t->id);
	if (pt_attr_read(ctx, p, v, sizeof(v)) >= 0)
		pt_desc_add_info(d, "delivered to CPU %s (effective affinity)", v);
	if (t->read_only)
		pt_desc_add_info(d, "per-CPU or managed by the kernel: it will not move");
	return 0;
}

/* irq.default.cpus on the kernel command line: irqaffinity= (kernel-parameters.txt) */
static void irq_export_names(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t,
			     const char *value, struct pt_xnames *x)
{
	if (t->id < 0)
		snprintf(x->boot, sizeof(x->boot), "irqaffinity=%s", value);
}

/*
 * An IRQ number comes back with another interrupt when its descriptor is
 * freed and allocated again (a driver unbound, MSI vectors given up): its
 * chip and the chip's number for it (/sys/kernel/irq/<n>, 4.10) tell them
 * apart.  Its handlers do not: they come and go with drivers.
 */
static int irq_identity(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			char *buf, size_t size)
{
	char p[64], chip[64], hw[32];
	int r = 0;

	(void)orig;
	buf[0] = '\0';
	if (t->id < 0) /* irq.default.cpus: no interrupt's */
		return 0;
	snprintf(p, sizeof(p), "sys/kernel/irq/%d/chip_name", t->id);
	if (pt_attr_read(ctx, p, chip, sizeof(chip)) >= 0) {
		snprintf(p, sizeof(p), "sys/kernel/irq/%d/hwirq", t->id);
		if (pt_attr_read(ctx, p, hw, sizeof(hw)) < 0)
			hw[0] = '\0';
		r = pt_snprintf(buf, size, "chip=%s hwirq=%s", chip, hw);
	}
	pt_err_clear(ctx); /* a kernel without them: none to keep */
	if (r < 0)
		return r;
	return 0;
}

const struct pt_family pt_irq_family = {
	.name = "irq",
	.resolve = irq_resolve,
	.list = irq_list,
	.read = pt_cpumask_read,
	.validate = irq_validate,
	.write = irq_write,
	.verify = irq_verify,
	.describe = irq_describe,
	.export_names = irq_export_names,
	.expand = irq_expand,
	.identity = irq_identity,
};
