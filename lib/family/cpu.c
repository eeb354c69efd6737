// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpu.*: cpufreq policy (Documentation/admin-guide/pm/cpufreq.rst), cpuidle
 * states by name (pm/cpuidle.rst), per-CPU resume latency QoS and boost.
 * cpufreq facts are read through libcpupower when built with it and it is
 * installed (opened on first use), sysfs otherwise; writes always go through
 * attr.c so every write is journaled, read back and can be fault-injected the
 * same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "perftune.h"
#include "internal.h"
#include "shared/cpulist.h"
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

#define CPU_DIR "sys/devices/system/cpu"
#define MAX_CPUS 8192

enum { C_GOVERNOR, C_MIN, C_MAX, C_EPP, C_IDLE, C_MAXLAT, C_RESUME, C_BOOST };

static const struct {
	const char *key, *file;
} freq_attrs[] = {
	[C_GOVERNOR] = { "governor", "cpufreq/scaling_governor" },
	[C_MIN] = { "min_khz", "cpufreq/scaling_min_freq" },
	[C_MAX] = { "max_khz", "cpufreq/scaling_max_freq" },
	[C_EPP] = { "epp", "cpufreq/energy_performance_preference" },
};

static bool cpu_present(struct perftune_ctx *ctx, int cpu)
{
	char p[64];
	snprintf(p, sizeof(p), CPU_DIR "/cpu%d", cpu);
	return pt_attr_is_dir(ctx, p);
}

/* "all", "3", "0-3,8" -> mask of present CPUs; returns count or -errno */
static int parse_cpus(struct perftune_ctx *ctx, const struct pt_keyparts *kp, unsigned char *mask)
{
	const char *s = kp->c[1].s;
	int n = 0;

	if (!strcmp(s, "all") || !strcmp(s, "*")) {
		/* the present CPUs, not a probe of all MAX_CPUS directories (8192 lookups) */
		char present[4096];
		memset(mask, 0xff, MAX_CPUS / 8);
		if (pt_attr_read(ctx, CPU_DIR "/present", present, sizeof(present)) >= 0 &&
		    pt_parse_cpulist(present, mask, MAX_CPUS) < 0)
			memset(mask, 0xff, MAX_CPUS / 8);
	} else {
		int r = pt_parse_cpulist(s, mask, MAX_CPUS);
		if (r < 0)
			return pt_err(ctx, -EINVAL, "%s: '%s' is not a CPU list (all, 3, 0-3,8)",
				      kp->text, s);
	}
	for (int i = pt_cpus_next(mask, MAX_CPUS, 0); i < MAX_CPUS;
	     i = pt_cpus_next(mask, MAX_CPUS, i + 1)) {
		if (cpu_present(ctx, i)) {
			n++;
		} else {
			if (strcmp(s, "all") && strcmp(s, "*"))
				return pt_err(ctx, -ENODEV, "%s: no CPU %d", kp->text, i);
			mask[i / 8] &= (unsigned char)~(1u << (i % 8));
		}
	}
	return n;
}

#define MAX_STATES 64

/*
 * The idle states of one CPU: kernel names and key forms.  A name outside the
 * key alphabet maps to '_' ("haltpoll idle" -> haltpoll_idle); a key form two
 * states share, or one that reads as another state's id, names each of them
 * by id (stateK) instead, so every key is unique per CPU (perftune(8) KEYS).
 */
struct idle_names {
	int n;
	char name[MAX_STATES][64]; /* as the kernel has it; "" unreadable */
	char key[MAX_STATES][64];
};

/* "state3" -> 3; -1 for anything else */
static int state_id(const char *s)
{
	if (strncmp(s, "state", 5) || !s[5] || strspn(s + 5, "0123456789") != strlen(s + 5) ||
	    strlen(s + 5) > 2)
		return -1;
	return atoi(s + 5);
}

static int state_name(struct perftune_ctx *ctx, int cpu, int k, char *n, size_t size)
{
	char p[PATH_MAX];

#if HAVE_CPUPOWER
	char *cn = NULL;
	if (pt_sys_is_root(ctx) && pt_dl_load(PT_DL_CPUPOWER) == 0)
		cn = pt_libcpupower.cpuidle_state_name((unsigned)cpu, (unsigned)k);
	if (cn) {
		snprintf(n, size, "%s", cn);
		free(cn);
		return 0;
	}
#endif
	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d/name", cpu, k);
	return pt_attr_read(ctx, p, n, size);
}

static void idle_names(struct perftune_ctx *ctx, int cpu, struct idle_names *in)
{
	bool byid[MAX_STATES] = { false };
	int k;

	for (k = 0; k < MAX_STATES; k++) {
		char p[PATH_MAX];
		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state%d", cpu, k);
		if (!pt_attr_is_dir(ctx, p))
			break;
		if (state_name(ctx, cpu, k, in->name[k], sizeof(in->name[k])) < 0)
			in->name[k][0] = '\0';
		if (pt_key_comp(in->key[k], sizeof(in->key[k]), in->name[k], PT_KEYFORM_MAP) < 0)
			byid[k] = true;
	}
	in->n = k;
	for (int i = 0; i < in->n; i++) {
		int id = state_id(in->key[i]);
		if (id >= 0 && id != i)
			byid[i] = true;
		for (int j = 0; j < in->n && !byid[i]; j++)
			if (j != i && !strcmp(in->key[i], in->key[j]))
				byid[i] = byid[j] = true;
	}
	for (int i = 0; i < in->n; i++)
		if (byid[i])
			snprintf(in->key[i], sizeof(in->key[i]), "state%d", i);
}

/*
 * The state @sel names: its id (stateK), its key form, or its kernel name as
 * is (cpu.0.idle[haltpoll idle].disable) where no other state has that name.
 * -ENOENT none, -ENOTUNIQ the kernel name is not unique.
 */
static int idle_match(const struct idle_names *in, const char *sel)
{
	int id = state_id(sel), found = -ENOENT;

	if (id >= 0) {
		if (id < in->n)
			return id;
		return -ENOENT;
	}
	for (int k = 0; k < in->n; k++)
		if (!strcmp(in->key[k], sel))
			return k;
	for (int k = 0; k < in->n; k++)
		if (in->name[k][0] && !strcmp(in->name[k], sel)) {
			if (found >= 0)
				return -ENOTUNIQ;
			found = k;
		}
	return found;
}

static int emit_idle(struct perftune_ctx *ctx, int cpu, const struct idle_names *in, int k,
		     pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, k);
	if (pt_tunable_init(&t, &pt_cpu_family, path, "cpu.%d.idle.%s.disable", cpu, in->key[k]) < 0)
		return -ENAMETOOLONG;
	if (!pt_attr_exists(ctx, t.path))
		return -ENOENT;
	t.kind = C_IDLE;
	t.id = cpu;
	snprintf(t.aux, sizeof(t.aux), "%s", in->name[k]); /* the kernel's name, for describe */
	return emit(ctx, &t, ud);
}

static int emit_cpu(struct perftune_ctx *ctx, int cpu, int kind, const char *state, const char *key,
		    pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;
	char path[PATH_MAX];
	int r;

	switch (kind) {
	case C_IDLE: {
		struct idle_names in;
		idle_names(ctx, cpu, &in);
		r = -ENOENT;
		if (state)
			r = idle_match(&in, state);
		if (r == -ENOTUNIQ)
			return pt_err(ctx, r,
				      "%s: CPU %d has more than one idle state named '%s': "
				      "name it by id (stateK)",
				      key, cpu, state);
		if (r < 0)
			return r;
		return emit_idle(ctx, cpu, &in, r, emit, ud);
	}
	case C_MAXLAT: {
		/* a CPU without idle states (no cpuidle driver) has nothing to limit */
		struct idle_names in;
		idle_names(ctx, cpu, &in);
		if (in.n == 0)
			return -ENOENT;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpuidle", cpu);
		r = pt_tunable_init(&t, &pt_cpu_family, path, "cpu.%d.idle.max_latency_us", cpu);
		break;
	}
	case C_RESUME:
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/power/pm_qos_resume_latency_us", cpu);
		r = pt_tunable_init(&t, &pt_cpu_family, path, "cpu.%d.resume_latency_us", cpu);
		break;
	case C_BOOST:
		r = pt_tunable_init(&t, &pt_cpu_family, CPU_DIR "/cpufreq/boost", "cpu.boost");
		break;
	default:
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/%s", cpu, freq_attrs[kind].file);
		r = pt_tunable_init(&t, &pt_cpu_family, path, "cpu.%d.%s", cpu,
				    freq_attrs[kind].key);
		if (kind == C_MAX)
			t.order = PT_ORDER_LIMIT; /* before min_khz: see enum pt_order */
	}
	if (r < 0)
		return r;
	if (kind != C_MAXLAT && !pt_attr_exists(ctx, t.path))
		return -ENOENT;
	t.kind = kind;
	t.id = cpu;
	return emit(ctx, &t, ud);
}

static int kind_of(const struct pt_keyparts *kp, const char **state)
{
	const char *a = kp->c[2].s;

	*state = NULL;
	if (kp->n == 3) {
		for (int k = C_GOVERNOR; k <= C_EPP; k++)
			if (!strcmp(a, freq_attrs[k].key))
				return k;
		if (!strcmp(a, "resume_latency_us"))
			return C_RESUME;
	}
	if (kp->n == 4 && !strcmp(a, "idle") && !strcmp(kp->c[3].s, "max_latency_us"))
		return C_MAXLAT;
	if (kp->n == 5 && !strcmp(a, "idle") && !strcmp(kp->c[4].s, "disable") && !kp->c[3].glob) {
		*state = kp->c[3].name;
		return C_IDLE;
	}
	return -1;
}

/*
 * No idle states to name: the kernel has no cpuidle driver (current_driver
 * "none", or no cpuidle at all), so the CPUs idle in the architecture's
 * default loop, which nothing in sysfs controls.
 */
static int no_cpuidle(struct perftune_ctx *ctx, const char *key)
{
	char drv[64];

	if (pt_attr_read(ctx, CPU_DIR "/cpuidle/current_driver", drv, sizeof(drv)) < 0)
		snprintf(drv, sizeof(drv), "%s", "absent");
	return pt_err(ctx, -EOPNOTSUPP,
		      "%s: no cpuidle states on this machine (cpuidle driver: %s): idle states "
		      "cannot be disabled or limited here",
		      key, drv);
}

static bool has_idle_states(struct perftune_ctx *ctx, int cpu)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpuidle/state0", cpu);
	return pt_attr_is_dir(ctx, p);
}

static int cpu_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud)
{
	unsigned char mask[MAX_CPUS / 8];
	const char *state;
	int kind, n, found = 0, r = 0;
	bool all;

	if (kp->n == 2 && !strcmp(kp->c[1].s, "boost")) {
		r = emit_cpu(ctx, 0, C_BOOST, NULL, kp->text, emit, ud);
		if (r == -ENOENT)
			return pt_err(ctx, -EOPNOTSUPP,
				      "%s: this cpufreq driver has no boost switch", kp->text);
		return r;
	}
	if (kp->n < 3 || kp->c[1].bracketed || (kind = kind_of(kp, &state)) < 0)
		return pt_err(ctx, -EINVAL,
			      "%s: expected cpu.<cpus>.governor|min_khz|max_khz|epp|"
			      "resume_latency_us, cpu.<cpus>.idle.<state>.disable, "
			      "cpu.<cpus>.idle.max_latency_us or cpu.boost",
			      kp->text);
	n = parse_cpus(ctx, kp, mask);
	if (n < 0)
		return n;
	all = !strcmp(kp->c[1].s, "all") || !strcmp(kp->c[1].s, "*");
	for (int i = pt_cpus_next(mask, MAX_CPUS, 0); i < MAX_CPUS && r >= 0;
	     i = pt_cpus_next(mask, MAX_CPUS, i + 1)) {
		r = emit_cpu(ctx, i, kind, state, kp->text, emit, ud);
		if (r == -ENOENT) {
			if (!all && kind == C_IDLE && !has_idle_states(ctx, i))
				return no_cpuidle(ctx, kp->text);
			if (!all && kind == C_IDLE)
				return pt_err(ctx, -ENOENT, "%s: CPU %d has no idle state '%s'",
					      kp->text, i, state);
			r = 0;
			continue;
		}
		found++;
	}
	if (r >= 0 && !found) {
		if (kind <= C_EPP)
			return pt_err(ctx, -EOPNOTSUPP,
				      "%s: no cpufreq driver on this machine (no "
				      "/sys/devices/system/cpu/cpuN/cpufreq/%s)",
				      kp->text, strrchr(freq_attrs[kind].file, '/') + 1);
		if ((kind == C_IDLE && !has_idle_states(ctx, 0)) || kind == C_MAXLAT)
			return no_cpuidle(ctx, kp->text);
		if (kind == C_IDLE)
			return pt_err(ctx, -ENOENT, "%s: no CPU has an idle state '%s'", kp->text,
				      state);
		return pt_err(ctx, -EOPNOTSUPP, "%s: not supported on this machine", kp->text);
	}
	return r;
}

static int cpu_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	int r = emit_cpu(ctx, 0, C_BOOST, NULL, NULL, emit, ud);

	for (int i = 0; i < MAX_CPUS && (r >= 0 || r == -ENOENT); i++) {
		if (!cpu_present(ctx, i))
			break;
		for (int k = C_GOVERNOR; k <= C_EPP; k++)
			if ((r = emit_cpu(ctx, i, k, NULL, NULL, emit, ud)) < 0 && r != -ENOENT)
				return r;
		r = emit_cpu(ctx, i, C_RESUME, NULL, NULL, emit, ud);
		if (r < 0 && r != -ENOENT)
			return r;
		r = emit_cpu(ctx, i, C_MAXLAT, NULL, NULL, emit, ud);
		if (r < 0 && r != -ENOENT)
			return r;
		struct idle_names in;
		idle_names(ctx, i, &in);
		for (int k = 0; k < in.n && (r >= 0 || r == -ENOENT); k++)
			r = emit_idle(ctx, i, &in, k, emit, ud);
	}
	if (r == -ENOENT)
		return 0;
	return r;
}

/* idle.max_latency_us reads as the deepest exit latency still allowed */
static int maxlat_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	long long max = -1;

	for (int k = 0; k < 64; k++) {
		char p[PATH_MAX], v[32];
		long long lat, dis;
		snprintf(p, sizeof(p), "%s/state%d/latency", t->path, k);
		if (pt_attr_read(ctx, p, v, sizeof(v)) < 0)
			break;
		pt_parse_ll(v, &lat);
		snprintf(p, sizeof(p), "%s/state%d/disable", t->path, k);
		if (pt_attr_read(ctx, p, v, sizeof(v)) < 0 || pt_parse_ll(v, &dis) < 0 || dis)
			continue;
		if (lat > max)
			max = lat;
	}
	if (max < 0)
		max = 0;
	if (pt_snprintf(buf, size, "%lld", max) < 0)
		return -ENAMETOOLONG;
	return 0;
}

static int cpu_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	if (t->kind == C_MAXLAT)
		return maxlat_read(ctx, t, buf, size);
#if HAVE_CPUPOWER
	if (pt_sys_is_root(ctx) &&
	    (t->kind == C_GOVERNOR || t->kind == C_MIN || t->kind == C_MAX) &&
	    pt_dl_load(PT_DL_CPUPOWER) == 0) {
		struct cpufreq_policy *p = pt_libcpupower.cpufreq_get_policy((unsigned)t->id);
		if (p) {
			int r;
			if (t->kind == C_GOVERNOR)
				r = pt_snprintf(buf, size, "%s", p->governor);
			else if (t->kind == C_MIN)
				r = pt_snprintf(buf, size, "%lu", p->min);
			else
				r = pt_snprintf(buf, size, "%lu", p->max);
			pt_libcpupower.cpufreq_put_policy(p);
			if (r < 0)
				return -ENAMETOOLONG;
			return 0;
		}
	}
#endif
	return pt_file_read(ctx, t, buf, size);
}

static int read_sibling(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *file,
			char *buf, size_t size)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/cpufreq/%s", t->id, file);
	return pt_attr_read(ctx, p, buf, size);
}

static int hw_limits(struct perftune_ctx *ctx, const struct pt_tunable *t, long long *min,
		     long long *max)
{
	char a[32], b[32];

#if HAVE_CPUPOWER
	unsigned long lo, hi;
	if (pt_sys_is_root(ctx) && pt_dl_load(PT_DL_CPUPOWER) == 0 &&
	    pt_libcpupower.cpufreq_get_hardware_limits((unsigned)t->id, &lo, &hi) == 0) {
		*min = (long long)lo;
		*max = (long long)hi;
		return 0;
	}
#endif
	if (read_sibling(ctx, t, "cpuinfo_min_freq", a, sizeof(a)) < 0 ||
	    read_sibling(ctx, t, "cpuinfo_max_freq", b, sizeof(b)) < 0 || pt_parse_ll(a, min) < 0 ||
	    pt_parse_ll(b, max) < 0)
		return -ENOENT;
	return 0;
}

static int cpu_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size)
{
	char avail[PT_VAL], tmp[PT_VAL];
	long long lo = 0, hi = 0;
	int r;

	switch (t->kind) {
	case C_GOVERNOR:
	case C_EPP:
		r = read_sibling(ctx, t,
				 t->kind == C_GOVERNOR ? "scaling_available_governors"
						       : "energy_performance_available_preferences",
				 avail, sizeof(avail));
		snprintf(out, size, "%s", in);
		pt_trim(out);
		if (r >= 0 && !pt_choice_in(avail, out))
			return pt_err(ctx, -EINVAL, "%s: '%s' is not one of: %s", t->key, out,
				      avail);
		return pt_file_validate(ctx, t, out, tmp, sizeof(tmp));
	case C_MIN:
	case C_MAX:
		if (hw_limits(ctx, t, &lo, &hi) < 0)
			return pt_file_validate(ctx, t, in, out, size);
		r = pt_validate_range(ctx, t, in, lo, hi, out, size);
		if (r < 0)
			return r;
		return pt_file_validate(ctx, t, out, tmp, sizeof(tmp));
	case C_RESUME:
		snprintf(out, size, "%s", in);
		pt_trim(out);
		if (!strcmp(out, "n/a"))
			return pt_file_validate(ctx, t, "0", tmp, sizeof(tmp));
		r = pt_validate_range(ctx, t, out, 0, 2000000000LL, out, size);
		if (r < 0)
			return r;
		return pt_file_validate(ctx, t, out, tmp, sizeof(tmp));
	case C_IDLE:
	case C_BOOST:
		r = pt_validate_range(ctx, t, in, 0, 1, out, size);
		if (r < 0)
			return r;
		return pt_file_validate(ctx, t, out, tmp, sizeof(tmp));
	default:
		return pt_err(ctx, -EINVAL, "%s: internal: not directly writable", t->key);
	}
}

/*
 * min/max are frequency QoS requests since Linux 5.4: the policy takes the
 * new limit in a work item (cpufreq_notifier_min/max -> schedule_work), so a
 * read right after the write may still show the old one.  Wait for it,
 * bounded (0.2 s); a limit the kernel clamped never shows and fails.
 */
static int cpu_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got)
{
	char now[PT_VAL];

	if (!strcmp(want, got))
		return 0;
	for (int i = 0; (t->kind == C_MIN || t->kind == C_MAX) && i < 100; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
		if (cpu_read(ctx, t, now, sizeof(now)) < 0)
			break;
		if (!strcmp(want, now))
			return 0;
	}
	return pt_err(ctx, -EIO, "%s: the kernel accepted '%s' but reads back '%s'", t->key, want,
		      got);
}

/* idle.max_latency_us=N stages idle.<state>.disable=1 for each deeper state */
static int cpu_expand(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		      pt_stage_fn stage, void *ud)
{
	long long limit;
	int r = 0;

	if (t->kind != C_MAXLAT)
		return 1;

	if (pt_parse_ll(value, &limit) < 0 || limit < 0)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a latency in us", t->key, value);
	struct idle_names in;
	idle_names(ctx, t->id, &in);
	for (int k = 0; k < in.n && r >= 0; k++) {
		char p[PATH_MAX], v[64];
		long long lat;
		struct pt_tunable s;
		snprintf(p, sizeof(p), "%s/state%d/latency", t->path, k);
		if (pt_attr_read(ctx, p, v, sizeof(v)) < 0)
			break;
		if (pt_parse_ll(v, &lat) < 0 || lat <= limit)
			continue;
		pt_tunable_init(&s, &pt_cpu_family, NULL, "cpu.%d.idle.%s.disable", t->id,
				in.key[k]);
		snprintf(s.path, sizeof(s.path), "%s/state%d/disable", t->path, k);
		s.kind = C_IDLE;
		s.id = t->id;
		snprintf(s.aux, sizeof(s.aux), "%s", in.name[k]);
		snprintf(s.note, sizeof(s.note), "from %s=%s (exit latency %lld us)", t->key, value,
			 lat);
		r = stage(ctx, &s, "1", ud);
	}
	return r;
}

static int cpu_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d)
{
	char avail[PT_VAL];
	long long lo, hi;
	int r;

	if (t->kind == C_MAXLAT) {
		r = maxlat_read(ctx, t, avail, sizeof(avail));
		pt_desc_set_value(d, avail);
		pt_desc_set_unit(d, "us");
		pt_desc_set_writable(d, true, NULL);
		pt_desc_add_info(d,
				 "setting N disables every idle state whose exit latency exceeds "
				 "N us; restore re-enables exactly those");
		return r;
	}
	r = pt_file_describe(ctx, t, d);
	if (t->kind == C_GOVERNOR &&
	    read_sibling(ctx, t, "scaling_available_governors", avail, sizeof(avail)) >= 0)
		pt_desc_set_choices(d, avail);
	if (t->kind == C_EPP && read_sibling(ctx, t, "energy_performance_available_preferences",
					     avail, sizeof(avail)) >= 0)
		pt_desc_set_choices(d, avail);
	if ((t->kind == C_MIN || t->kind == C_MAX) && hw_limits(ctx, t, &lo, &hi) == 0) {
		pt_desc_set_range(d, lo, hi);
		pt_desc_set_unit(d, "kHz");
	}
	if (t->kind == C_RESUME) {
		pt_desc_set_unit(d, "us");
		pt_desc_add_info(d, "0 = no constraint, n/a = no idle at all (kernel convention)");
	}
	if (t->kind == C_IDLE) {
		pt_desc_set_range(d, 0, 1);
		char p[PATH_MAX], lat[32];
		snprintf(p, sizeof(p), "%.*s/latency", (int)(strrchr(t->path, '/') - t->path),
			 t->path);
		if (pt_attr_read(ctx, p, lat, sizeof(lat)) >= 0)
			pt_desc_add_info(d, "exit latency %s us", lat);
		pt_desc_add_info(d, "kernel name '%s' (%.*s)", t->aux,
				 (int)strcspn(strstr(t->path, "/state") + 1, "/"),
				 strstr(t->path, "/state") + 1);
	}
	if (pt_dl_load(PT_DL_CPUPOWER) == 0)
		pt_desc_add_info(d, "cpufreq read through libcpupower");
	return r;
}

const struct pt_family pt_cpu_family = {
	.name = "cpu",
	.resolve = cpu_resolve,
	.list = cpu_list,
	.read = cpu_read,
	.validate = cpu_validate,
	.write = pt_file_write,
	.flags = PT_FAM_FILE,
	.describe = cpu_describe,
	.expand = cpu_expand,
	.verify = cpu_verify,
};
