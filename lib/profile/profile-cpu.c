// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cpu plugin: governor and energy_performance_preference (first
 * alternative the kernel offers), energy_perf_bias (the kernel's per-CPU
 * power/energy_perf_bias file), intel_pstate's min/max_perf_pct and no_turbo,
 * per-CPU PM QoS, and force_latency: with a holding transaction the global
 * PM QoS request (pmqos.cpu_dma_latency_us, as TuneD's daemon holds it),
 * otherwise cpu.<cpus>.idle.max_latency_us, which disables the deeper idle
 * states and needs no process to stay alive.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/cpulist.h"
#include "shared/util.h"
#include "io/attr.h"
#include "family/cpumask.h"
#include "profile-internal.h"

#define PSTATE "sys/devices/system/cpu/intel_pstate"

/* "a|b|c": the first alternative the library accepts */
static int map_alternatives(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
			    const char *key, const char *value)
{
	_cleanup_free_ char *dup = strdup(value);
	char *save = NULL, last[512] = "";

	if (!dup)
		return -ENOMEM;
	for (char *a = strtok_r(dup, "|", &save); a; a = strtok_r(NULL, "|", &save)) {
		pt_trim(a);
		int r = perftune_tx_set(p->check, key, a);
		if (r >= 0 || r == -EACCES || r == -ENOENT || r == -ENODEV || r == -EOPNOTSUPP)
			return pt_pmap_key(p, u, o, key, a, true, NULL);
		snprintf(last, sizeof(last), "%s", perftune_ctx_last_error(p->ctx));
	}
	pt_pitem_add(p, u, o, key, value, PT_ITEM_SKIPPED, "none of '%s' is accepted: %s", value,
		     last);
	return 0;
}

/* x86_energy_perf_policy's names, as the kernel's energy_perf_bias file numbers them */
static const char *epb_number(const char *name)
{
	static const char *const names[][2] = {
		{ "performance", "0" }, { "balance-performance", "4" }, { "normal", "6" },
		{ "default", "6" },	{ "balance-power", "8" },	{ "power", "15" },
		{ "powersave", "15" },
	};
	long long v;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i][0]))
			return names[i][1];
	if (pt_parse_ll(name, &v) == 0 && v >= 0 && v <= 15)
		return name;
	return NULL;
}

static int map_epb(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		   const struct pt_devset *cpus, const char *value)
{
	_cleanup_free_ char *dup = strdup(value);
	char *save = NULL;
	const char *num = NULL;
	int r = 0;

	if (!dup)
		return -ENOMEM;
	for (char *a = strtok_r(dup, "|", &save); a && !num; a = strtok_r(NULL, "|", &save)) {
		pt_trim(a);
		num = epb_number(a);
	}
	if (!num) {
		pt_pitem_skip(p, u, o, "none of '%s' is an energy_perf_bias value", value);
		return 0;
	}
	for (size_t i = 0; i < cpus->n && r >= 0; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "sys/devices/system/cpu/%s/power/energy_perf_bias",
			 cpus->name[i]);
		if (!pt_attr_exists(p->ctx, path)) {
			pt_pitem_skip(p, u, o, "%s has no energy_perf_bias (an Intel CPU feature)",
				      cpus->name[i]);
			break;
		}
		r = pt_pmap_sysfs(p, u, o, path, num);
	}
	return r;
}

static int idle_state(struct perftune_ctx *ctx, const char *state, const char *file, char *buf,
		      size_t size)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu0/cpuidle/%s/%s", state, file);
	return pt_attr_read(ctx, p, buf, size);
}

/* TuneD's _parse_latency: N | cstate.id[_no_zero]:K | cstate.name[_no_zero]:NAME | None */
static long long parse_latency(struct perftune_ctx *ctx, const char *value, bool *none)
{
	_cleanup_free_ char *dup = strdup(value);
	char *save = NULL;

	*none = false;
	if (!dup)
		return -1;
	for (char *a = strtok_r(dup, "|", &save); a; a = strtok_r(NULL, "|", &save)) {
		char buf[64], state[32];
		long long v = -1, n;
		bool nz = strstr(a, "_no_zero:") != NULL;
		const char *arg = strchr(a, ':') ? strchr(a, ':') + 1 : "";
		pt_trim(a);
		if (pt_parse_ll(a, &n) == 0 && n >= 0)
			return n;
		if (!strcasecmp(a, "none")) {
			*none = true;
			return -1;
		}
		if (!strncmp(a, "cstate.id", 9)) {
			snprintf(state, sizeof(state), "state%s", arg);
			if (idle_state(ctx, state, "latency", buf, sizeof(buf)) >= 0 &&
			    pt_parse_ll(buf, &n) == 0)
				v = n;
		} else if (!strncmp(a, "cstate.name", 11)) {
			for (int k = 0; k < 64 && v < 0; k++) {
				snprintf(state, sizeof(state), "state%d", k);
				if (idle_state(ctx, state, "name", buf, sizeof(buf)) < 0)
					break;
				if (!strcmp(buf, arg) &&
				    idle_state(ctx, state, "latency", buf, sizeof(buf)) >= 0 &&
				    pt_parse_ll(buf, &n) == 0)
					v = n;
			}
		}
		if (v > 0 || (v == 0 && !nz))
			return v;
	}
	return -1;
}

static int map_latency(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		       const char *spec, const char *value, unsigned flags)
{
	char key[PERFTUNE_KEY_MAX], num[32];
	bool none;
	long long lat = parse_latency(p->ctx, value, &none);

	if (none)
		return 0; /* "None": TuneD sets no latency */
	if (lat < 0) {
		pt_pitem_skip(p, u, o, "no C-state named by '%s' on this machine", value);
		return 0;
	}
	snprintf(num, sizeof(num), "%lld", lat);
	if (flags & PERFTUNE_PROFILE_HOLD)
		snprintf(key, sizeof(key), "pmqos.cpu_dma_latency_us");
	else
		snprintf(key, sizeof(key), "cpu.%s.idle.max_latency_us", spec);
	return pt_pmap_key(p, u, o, key, num, false, NULL);
}

static int pstate(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		  const char *file, const char *value)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), PSTATE "/%s", file);
	if (!pt_attr_exists(p->ctx, path)) {
		pt_pitem_skip(p, u, o, "no intel_pstate driver on this machine (/%s)", path);
		return 0;
	}
	if (!strcmp(file, "no_turbo"))
		value = pt_is_true(value) ? "1" : "0";
	return pt_pmap_sysfs(p, u, o, path, value);
}

/* "all" when the unit has every online CPU, else a CPU list */
static void cpu_spec(struct perftune_profile *p, const struct pt_devset *cpus, char *spec,
		     size_t size)
{
	unsigned char m[PT_CPUS_MAX / 8] = { 0 }, online[PT_CPUS_MAX / 8];
	int n = 0;

	for (size_t i = 0; i < cpus->n; i++) {
		long c = strtol(cpus->name[i] + 3, NULL, 10);
		if (c >= 0 && c < PT_CPUS_MAX)
			m[c / 8] |= (unsigned char)(1u << (c % 8));
	}
	if (pt_cpus_online(p->ctx, online) == 0)
		for (int i = 0; i < PT_CPUS_MAX; i++)
			n += !!(online[i / 8] & (1u << (i % 8)));
	if ((size_t)n == cpus->n)
		snprintf(spec, size, "all");
	else
		pt_format_cpulist(m, PT_CPUS_MAX, spec, size);
}

static int cpu_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		      const struct pt_devset *cpus, const char *spec, const char *v, unsigned flags)
{
	char key[PERFTUNE_KEY_MAX];
	const char *n = o->name;

	if (!strcmp(n, "governor") || !strcmp(n, "energy_performance_preference")) {
		snprintf(key, sizeof(key), "cpu.%s.%s", spec, n[0] == 'g' ? "governor" : "epp");
		return map_alternatives(p, u, o, key, v);
	}
	if (!strcmp(n, "energy_perf_bias"))
		return map_epb(p, u, o, cpus, v);
	if (!strcmp(n, "min_perf_pct") || !strcmp(n, "max_perf_pct") || !strcmp(n, "no_turbo"))
		return pstate(p, u, o, n, v);
	if (!strcmp(n, "pm_qos_resume_latency_us")) {
		snprintf(key, sizeof(key), "cpu.%s.resume_latency_us", spec);
		return pt_pmap_key(p, u, o, key, v, false, NULL);
	}
	if (!strcmp(n, "boost"))
		return pt_pmap_key(p, u, o, "cpu.boost", pt_is_true(v) ? "1" : "0", false, NULL);
	if (!strcmp(n, "sampling_down_factor")) {
		const char *path = "sys/devices/system/cpu/cpufreq/ondemand/sampling_down_factor";
		if (pt_attr_exists(p->ctx, path))
			return pt_pmap_sysfs(p, u, o, path, v);
		pt_pitem_skip(p, u, o, "no ondemand governor tunables (/%s)", path);
		return 0;
	}
	if (!strcmp(n, "force_latency"))
		return map_latency(p, u, o, spec, v, flags);
	if (!strcmp(n, "load_threshold") || !strcmp(n, "latency_low") ||
	    !strcmp(n, "latency_high") || !strcmp(n, "dynamic"))
		pt_pitem_skip(p, u, o, "dynamic PM QoS by load needs TuneD's daemon");
	else
		pt_pitem_skip(p, u, o, "unknown option of the cpu plugin");
	return 0;
}

int pt_map_cpu(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
	       unsigned flags)
{
	struct pt_devset cpus;
	_cleanup_free_ char *rules = NULL;
	char spec[1024];
	int r = pt_unit_devices(p, u, taken, &cpus, &rules);

	if (r < 0 || !rules)
		return r;
	cpu_spec(p, &cpus, spec, sizeof(spec));
	for (size_t i = 0; i < u->n && r >= 0 && cpus.n; i++) {
		struct pt_popt *o = &u->opt[i];
		_cleanup_free_ char *v = NULL, *why = NULL;
		if ((r = pt_vars_expand(p, o->value, o, &v, &why)) < 0)
			break;
		if (why)
			pt_pitem_skip(p, u, o, "%s", why);
		else
			r = cpu_option(p, u, o, &cpus, spec, v, flags);
	}
	pt_devset_free(&cpus);
	return r;
}
