// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The plugins without devices: sysctl, sysfs, vm, selinux, scheduler, modules,
 * and the plugins whose options never map (boot loader, scripts, services):
 * they are skips that say what the option would have done.  Nothing is executed.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "profile-internal.h"

/* a value with a ${...} that could not be evaluated is skipped with the reason */
static int value_of(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		    char **v)
{
	_cleanup_free_ char *why = NULL;
	int r = pt_vars_expand(p, o->value, o, v, &why);

	if (r < 0)
		return r;
	if (why) {
		pt_pitem_skip(p, u, o, "%s", why);
		free(*v);
		*v = NULL;
		return 0;
	}
	/*
	 * A multi-line value (continuation lines): TuneD writes its '\n's.  The
	 * kernel's integer-vector parsers take any whitespace between numbers, so
	 * numbers keep their meaning on one line; other text would be cut at the
	 * first line by the kernel's string parsers: a skip.
	 */
	if (strchr(*v, '\n')) {
		if ((*v)[strspn(*v, "0123456789+- \t\n")]) {
			pt_pitem_skip(p, u, o,
				      "a value of several lines (continuation lines): a kernel file "
				      "reads only the first");
			free(*v);
			*v = NULL;
			return 0;
		}
		for (char *c = *v; (c = strchr(c, '\n'));)
			*c = ' ';
	}
	return 1;
}

typedef int (*pt_opt_fn)(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v);

/*
 * @fn(option, its value) for each option of @u that @accept takes (NULL: all; a refusal
 * records its skip) and whose value expands; stops at the first error.
 */
static int each_value(struct perftune_profile *p, struct pt_punit *u,
		      bool (*accept)(struct perftune_profile *p, struct pt_punit *u,
				     struct pt_popt *o),
		      pt_opt_fn fn)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r >= 0; i++) {
		struct pt_popt *o = &u->opt[i];
		_cleanup_free_ char *v = NULL;

		if (accept && !accept(p, u, o))
			continue;
		r = value_of(p, u, o, &v);
		if (r > 0)
			r = fn(p, u, o, v);
	}
	return r;
}

static void unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		memmove(v, v + 1, n - 2);
		v[n - 2] = '\0';
	}
}

/*
 * "vm.dirty_ratio" or "net/ipv4/conf/eth0.100/rp_filter" -> sysctl key.  TuneD writes
 * /proc/sys/<name> as named: a component with '*' is the directory of that name, in
 * brackets like any outside the key alphabet, never a glob.
 */
static int sysctl_key(const char *name, char *key, size_t size)
{
	char sep = strchr(name, '/') ? '/' : '.';
	_cleanup_free_ char *dup = strdup(name);
	char *save = NULL, sepstr[2] = { sep, 0 };

	if (!dup)
		return -ENOMEM;
	snprintf(key, size, "sysctl");
	for (char *c = strtok_r(dup, sepstr, &save); c; c = strtok_r(NULL, sepstr, &save)) {
		size_t n = strlen(key);
		if (n + 1 >= size ||
		    pt_key_comp(key + n + 1, size - n - 1, c, PT_KEYFORM_BRACKET) < 0)
			return -ENAMETOOLONG;
		key[n] = '.';
	}
	return 0;
}

static int sysctl_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v)
{
	char key[PERFTUNE_KEY_MAX];
	int r;

	unquote(v);
	if (sysctl_key(o->name, key, sizeof(key)) < 0) {
		pt_pitem_skip(p, u, o, "sysctl name too long");
		return 0;
	}
	/* sysctls with a family of their own: huge pages report partial allocations */
	if (!strcmp(key, "sysctl.vm.nr_hugepages"))
		snprintf(key, sizeof(key), "hugepages.nr");
	else if (!strcmp(key, "sysctl.kernel.numa_balancing"))
		snprintf(key, sizeof(key), "numa.balancing");
	r = pt_pmap_cond(p, u, o, key, v);
	if (r == 0)
		return pt_pmap_key(p, u, o, key, v, false, NULL);
	return r;
}

static int map_sysctl(struct perftune_profile *p, struct pt_punit *u)
{
	return each_value(p, u, NULL, sysctl_option);
}

/* expand a sysfs glob below the root, one path component at a time */
static int sysfs_glob(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		      const char *dir, const char *rest, const char *v, int *found)
{
	const char *slash = strchr(rest, '/');
	size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
	_cleanup_free_ char *comp = strndup(rest, n);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int r = 0;

	if (!comp)
		return -ENOMEM;
	if (!pt_glob(comp)) {
		char next[PATH_MAX];
		if (pt_snprintf(next, sizeof(next), "%s/%s", dir, comp) < 0)
			return 0;
		if (slash)
			return sysfs_glob(p, u, o, next, slash + 1, v, found);
		if (!pt_attr_exists(p->ctx, next))
			return 0;
		(*found)++;
		return pt_pmap_sysfs(p, u, o, next, v);
	}
	d = pt_attr_opendir(p->ctx, dir);
	while (d && (de = readdir(d)) && r >= 0) {
		char next[PATH_MAX];
		if (de->d_name[0] == '.' || fnmatch(comp, de->d_name, FNM_PERIOD))
			continue;
		if (pt_snprintf(next, sizeof(next), "%s/%s", dir, de->d_name) < 0)
			continue;
		if (slash)
			r = sysfs_glob(p, u, o, next, slash + 1, v, found);
		else if ((*found)++, true)
			r = pt_pmap_sysfs(p, u, o, next, v);
	}
	return r;
}

static int sysfs_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v)
{
	const char *path = o->name; /* TuneD expands values only, never the path */
	int found = 0, r;

	if (strncmp(path, "/sys/", 5) || strstr(path, "/../") || strstr(path, "/./")) {
		pt_pitem_skip(p, u, o, "%s: a [sysfs] path must be under /sys", path);
		return 0;
	}
	r = sysfs_glob(p, u, o, "sys", path + 5, v, &found);
	if (r >= 0 && !found)
		pt_pitem_skip(p, u, o, "%s: matches no file on this machine", path);
	return r;
}

static int map_sysfs(struct perftune_profile *p, struct pt_punit *u)
{
	return each_value(p, u, NULL, sysfs_option);
}

struct simple_map {
	const char *type, *option, *key;
};

static const struct simple_map simple[] = {
	{ "vm", "transparent_hugepages", "thp.enabled" },
	{ "vm", "transparent_hugepage", "thp.enabled" },
	{ "vm", "transparent_hugepage.defrag", "thp.defrag" },
	{ "selinux", "avc_cache_threshold", "selinux.avc.cache_threshold" },
};

/* plugins whose options never map: what they would do instead */
static const struct {
	const char *type, *why;
} unmapped[] = {
	{ "bootloader", "changes the kernel command line or initrd for the next boot: no runtime "
			"key (perftune export --format cmdline writes a fragment)" },
	{ "script", "runs a program: a profile never executes anything" },
	{ "systemd", "writes CPUAffinity= into /etc/systemd/system.conf, which PID 1 reads at "
		     "the next boot: not a kernel tunable (the processes running now move with "
		     "[scheduler] isolated_cores)" },
	{ "service", "starts or stops services: not a kernel tunable" },
	{ "mounts", "remounts file systems (barriers): not a kernel tunable" },
	{ "video", "radeon power management: no perftune key" },
	{ "eeepc_she", "dynamic tuning of an Eee PC's FSB: needs TuneD's daemon" },
	{ "rtentsk", "keeps a timestamping socket open inside TuneD's daemon" },
};

static const char *simple_key(const struct pt_punit *u, const struct pt_popt *o)
{
	for (size_t k = 0; k < ARRAY_SIZE(simple); k++)
		if (!strcmp(simple[k].type, u->type) && !strcmp(simple[k].option, o->name))
			return simple[k].key;
	return NULL;
}

static bool simple_known(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o)
{
	if (simple_key(u, o))
		return true;
	pt_pitem_skip(p, u, o, "unknown option of the %s plugin", u->type);
	return false;
}

static int simple_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v)
{
	const char *key = simple_key(u, o);
	int r = pt_pmap_cond(p, u, o, key, v);

	if (r == 0)
		return pt_pmap_key(p, u, o, key, v, false, NULL);
	return r;
}

static int map_simple(struct perftune_profile *p, struct pt_punit *u)
{
	return each_value(p, u, simple_known, simple_option);
}

/* the options that select the threads isolated_cores moves (threads.c) */
static bool sched_threads(const char *name)
{
	return !strcmp(name, "ps_blacklist") || !strcmp(name, "ps_whitelist");
}

static bool sched_knob(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o)
{
	if (!strncmp(o->name, "sched_", 6) || !strncmp(o->name, "numa_balancing_", 15) ||
	    sched_threads(o->name))
		return true;
	if (pt_isolate_option(o->name)) /* isolated_cores: IRQs and workqueues (isolate.c) */
		return true;
	pt_pitem_skip(p, u, o,
		      "process scheduling policy, affinity, cgroups or IRQ affinity: not a "
		      "kernel tunable");
	return false;
}

/* kernel.sched_* moved to debugfs (sched/...) in 5.13: write whichever exists */
static int sched_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v)
{
	char path[PATH_MAX], dbg[PATH_MAX];
	const char *n = o->name;
	bool numa = !strncmp(n, "numa_balancing_", 15);
	char key[PERFTUNE_KEY_MAX];

	if (pt_isolate_option(n))
		return pt_map_isolate(p, u, o, v);
	if (sched_threads(n)) { /* ps_blacklist, ps_whitelist: read by isolated_cores */
		if (!pt_popt_find(u->opt, u->n, "isolated_cores"))
			pt_pitem_skip(p, u, o,
				      "selects the threads isolated_cores moves: this profile sets no "
				      "isolated_cores");
		return 0;
	}
	snprintf(path, sizeof(path), "proc/sys/kernel/%s", n);
	if (numa)
		snprintf(dbg, sizeof(dbg), "sys/kernel/debug/sched/numa_balancing/%s", n + 15);
	else
		snprintf(dbg, sizeof(dbg), "sys/kernel/debug/sched/%s", n + 6);
	if (pt_attr_exists(p->ctx, path)) {
		snprintf(key, sizeof(key), "sysctl.kernel.%s", n);
		return pt_pmap_key(p, u, o, key, v, false, NULL);
	}
	if (pt_attr_exists(p->ctx, dbg))
		return pt_pmap_sysfs(p, u, o, dbg, v);
	pt_pitem_skip(p, u, o,
		      "neither /%s nor /%s exists (debugfs not mounted, or the kernel has no such "
		      "knob)",
		      path, dbg);
	return 0;
}

static int map_scheduler(struct perftune_profile *p, struct pt_punit *u)
{
	return each_value(p, u, sched_knob, sched_option);
}

/*
 * TuneD's [modules]: "name=+r [options]" loads the module now (through libkmod:
 * module.<name>.loaded); without +r TuneD only writes modprobe.d for its next load.
 */
static int module_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v)
{
	char key[PERFTUNE_KEY_MAX], val[PT_VAL];
	const char *opts = v + strspn(v, " \t");

	if (strncmp(opts, "+r", 2)) {
		pt_pitem_skip(p, u, o,
			      "writes modprobe.d options for the module's next load (TuneD loads "
			      "it only with +r): perftune writes no configuration");
		return 0;
	}
	opts += 2 + strspn(opts + 2, " \t");
	opts += *opts == ',';
	opts += strspn(opts, " \t");
	if (pt_snprintf(key, sizeof(key), "module.%s.loaded", o->name) < 0 ||
	    pt_snprintf(val, sizeof(val), "1%s%s", *opts ? " " : "", opts) < 0) {
		pt_pitem_skip(p, u, o, "module name or options too long");
		return 0;
	}
	return pt_pmap_key(p, u, o, key, val, false, NULL);
}

static int map_modules(struct perftune_profile *p, struct pt_punit *u)
{
	return each_value(p, u, NULL, module_option);
}

static const char *const devtypes[] = { "net", "usb", "audio", "scsi_host" };

int pt_map_unit(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
		unsigned flags)
{
	const char *t = u->type;

	if (u->script_pre || u->script_post)
		pt_pitem_skip(p, u, NULL, "script_pre/script_post run a program: never executed");
	for (size_t i = 0; i < ARRAY_SIZE(unmapped); i++)
		if (!strcmp(t, unmapped[i].type)) {
			for (size_t k = 0; k < u->n; k++)
				pt_pitem_skip(p, u, &u->opt[k], "%s", unmapped[i].why);
			return 0;
		}
	if (!strcmp(t, "sysctl"))
		return map_sysctl(p, u);
	if (!strcmp(t, "sysfs"))
		return map_sysfs(p, u);
	if (!strcmp(t, "vm") || !strcmp(t, "selinux"))
		return map_simple(p, u);
	if (!strcmp(t, "scheduler"))
		return map_scheduler(p, u);
	if (!strcmp(t, "modules"))
		return map_modules(p, u);
	if (!strcmp(t, "disk"))
		return pt_map_disk(p, u, &taken[0]);
	if (!strcmp(t, "cpu"))
		return pt_map_cpu(p, u, &taken[1], flags);
	if (!strcmp(t, "irq"))
		return pt_map_irq(p, u, &taken[PT_DEVTYPES - 1]);
	if (!strcmp(t, "irqbalance"))
		return pt_map_irqbalance(p, u);
	for (size_t i = 0; i < ARRAY_SIZE(devtypes); i++)
		if (!strcmp(t, devtypes[i]))
			return pt_map_devattr(p, u, &taken[2 + i]);
	for (size_t k = 0; k < u->n; k++)
		pt_pitem_skip(p, u, &u->opt[k], "unknown plugin type '%s'", t);
	return 0;
}
