// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mapping a merged profile onto keys.  Units are taken in TuneD's instance
 * order (priority, then position), skipped when disabled or when their
 * cpuinfo_regex/uname_regex does not match this machine.  Every option
 * becomes an item: a key and value validated on a scratch transaction, or a
 * skip with its reason.  Options that would run something (script=, the
 * boot loader, modules, services) are always skips: nothing is executed.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "profile-internal.h"

static void pitem_free(struct pt_pitem *it)
{
	free(it->option);
	free(it->origin);
	free(it->raw);
	free(it->key);
	free(it->value);
	free(it->note);
	free(it->udev_match);
}

void pt_pitems_free(struct perftune_profile *p)
{
	for (size_t i = 0; i < p->nitems; i++)
		pitem_free(&p->items[i]);
	free(p->items);
	p->items = NULL;
	p->nitems = 0;
}

static struct pt_pitem *vadd(struct perftune_profile *p, const struct pt_punit *u,
			     const struct pt_popt *o, const char *key, const char *value,
			     unsigned flags, const char *fmt, va_list ap)
{
	struct pt_pitem *v = realloc(p->items, (p->nitems + 1) * sizeof(*v)), *it;
	bool fail = false;

	if (!v)
		return NULL;
	p->items = v;
	it = &v[p->nitems];
	memset(it, 0, sizeof(*it));
	if (asprintf(&it->option, "[%s] %s", u ? u->name : "main", o ? o->name : "") < 0)
		it->option = NULL;
	if (o && asprintf(&it->origin, "%s:%d", o->file, o->line) < 0)
		it->origin = NULL;
	else if (!o && u && asprintf(&it->origin, "%s:%d", u->file, u->line) < 0)
		it->origin = NULL;
	it->raw = o ? strdup(o->value) : NULL;
	it->key = key ? strdup(key) : NULL;
	it->value = value ? strdup(value) : NULL;
	if (fmt && vasprintf(&it->note, fmt, ap) < 0)
		it->note = NULL;
	it->flags = flags;
	fail = !it->option || !it->origin || (o && !it->raw) || (key && !it->key) ||
	       (value && !it->value) || (fmt && !it->note);
	if (fail) {
		pitem_free(it);
		return NULL;
	}
	p->nitems++;
	return it;
}

struct pt_pitem *pt_pitem_add(struct perftune_profile *p, const struct pt_punit *u,
			      const struct pt_popt *o, const char *key, const char *value,
			      unsigned flags, const char *fmt, ...)
{
	struct pt_pitem *it;
	va_list ap;

	va_start(ap, fmt);
	it = vadd(p, u, o, key, value, flags, fmt, ap);
	va_end(ap);
	return it;
}

void pt_pitem_skip(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(p, u, o, NULL, NULL, PERFTUNE_ITEM_SKIPPED, fmt, ap);
	va_end(ap);
}

int pt_err_prefix(struct perftune_ctx *ctx, int err, const char *fmt, ...)
{
	char msg[512], prefix[512];
	va_list ap;

	snprintf(msg, sizeof(msg), "%s", perftune_ctx_last_error(ctx));
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	return pt_err(ctx, err, "%s: %s", prefix, msg[0] ? msg : strerror(-err));
}

static bool absent(int r)
{
	return r == -ENOENT || r == -ENODEV || r == -EOPNOTSUPP || r == -EROFS;
}

/* the value the library resolved for a concrete key ("deadline" -> "mq-deadline") */
static void resolved_value(struct perftune_profile *p, struct pt_pitem *it)
{
	struct perftune_iter *ch;

	if (perftune_tx_changes(p->check, &ch) < 0)
		return;
	while (perftune_iter_next(ch))
		if (!strcmp(perftune_iter_key(ch), it->key)) {
			char *v = strdup(perftune_iter_value(ch));
			if (v) {
				free(it->value);
				it->value = v;
			}
		}
	perftune_iter_free(ch);
}

int pt_pmap_key(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		const char *key, const char *value, bool first_offered, struct pt_pitem **out)
{
	int r = perftune_tx_set(p->check, key, value);
	const char *msg = perftune_ctx_last_error(p->ctx);
	struct pt_pitem *it = NULL;

	if (out)
		*out = NULL;
	if (r >= 0) {
		it = pt_pitem_add(p, u, o, key, value, 0, NULL);
		if (it)
			resolved_value(p, it);
	} else if (absent(r) || (first_offered && (r == -EINVAL || r == -ERANGE))) {
		it = pt_pitem_add(p, u, o, key, value, PERFTUNE_ITEM_SKIPPED, "%s", msg);
		r = 0;
	} else if (r == -EACCES) { /* checked again when staged for real */
		it = pt_pitem_add(p, u, o, key, value, 0, "not validated: %s", msg);
		if (it)
			it->unvalidated = true;
	} else {
		return pt_err_prefix(p->ctx, r, "%s:%d: [%s] %s = %s", o->file, o->line, u->name,
				     o->name, o->value);
	}
	if (!it)
		return -ENOMEM;
	if (out)
		*out = it;
	return r < 0 ? 0 : it->flags & PERFTUNE_ITEM_SKIPPED ? 0 : 1;
}

int pt_pmap_cond(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		 const char *key, const char *value)
{
	_cleanup_free_ char *cur = NULL;
	long long want, now;
	int r;

	if ((value[0] != '>' && value[0] != '<') || !value[1])
		return 0;
	r = perftune_get(p->ctx, key, &cur);
	if (r < 0) {
		if (!absent(r) && r != -EACCES && r != -ENOTUNIQ)
			return pt_err_prefix(p->ctx, r, "%s:%d: [%s] %s", o->file, o->line, u->name,
					     o->name);
		return pt_pitem_add(p, u, o, key, value + 1, PERFTUNE_ITEM_SKIPPED, "%s",
				    perftune_ctx_last_error(p->ctx)) ? 1 : -ENOMEM;
	}
	if (pt_parse_ll(value + 1, &want) < 0 || pt_parse_ll(cur, &now) < 0)
		return pt_pitem_add(p, u, o, key, value + 1, PERFTUNE_ITEM_SKIPPED,
				    "cannot compare '%s' with the current value '%s'", value, cur)
			       ? 1 : -ENOMEM;
	if (value[0] == '>' ? want > now : want < now) {
		r = pt_pmap_key(p, u, o, key, value + 1, false, NULL);
		return r < 0 ? r : 1;
	}
	return pt_pitem_add(p, u, o, key, cur, PERFTUNE_ITEM_UNCHANGED,
			    "the current value %lld is already %s %lld", now,
			    value[0] == '>' ? ">=" : "<=", want) ? 1 : -ENOMEM;
}

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
	return 1;
}

static void unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		memmove(v, v + 1, n - 2);
		v[n - 2] = '\0';
	}
}

/* "vm.dirty_ratio" or "net/ipv4/conf/eth0.100/rp_filter" -> sysctl key */
static int sysctl_key(const char *name, char *key, size_t size)
{
	char sep = strchr(name, '/') ? '/' : '.';
	_cleanup_free_ char *dup = strdup(name);
	char *save = NULL, sepstr[2] = { sep, 0 };

	if (!dup)
		return -ENOMEM;
	snprintf(key, size, "sysctl");
	for (char *c = strtok_r(dup, sepstr, &save); c; c = strtok_r(NULL, sepstr, &save)) {
		bool br = c[strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-*?")];
		if (pt_snprintf(key + strlen(key), size - strlen(key), br ? ".[%s]" : ".%s", c) < 0)
			return -ENAMETOOLONG;
	}
	return 0;
}

static int map_sysctl(struct perftune_profile *p, struct pt_punit *u)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r >= 0; i++) {
		struct pt_popt *o = &u->opt[i];
		_cleanup_free_ char *v = NULL;
		char key[PERFTUNE_KEY_MAX];
		if ((r = value_of(p, u, o, &v)) <= 0)
			continue;
		unquote(v);
		if (sysctl_key(o->name, key, sizeof(key)) < 0) {
			pt_pitem_skip(p, u, o, "sysctl name too long");
			continue;
		}
		/* sysctls with a family of their own: huge pages report partial allocations */
		if (!strcmp(key, "sysctl.vm.nr_hugepages"))
			snprintf(key, sizeof(key), "hugepages.nr");
		else if (!strcmp(key, "sysctl.kernel.numa_balancing"))
			snprintf(key, sizeof(key), "numa.balancing");
		r = pt_pmap_cond(p, u, o, key, v);
		if (r == 0)
			r = pt_pmap_key(p, u, o, key, v, false, NULL);
	}
	return r;
}

/* expand a sysfs glob below the root, one path component at a time */
static int sysfs_glob(struct perftune_profile *p, const struct pt_punit *u,
		      const struct pt_popt *o, const char *dir, const char *rest, const char *v,
		      int *found)
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

static bool hexmask(const char *s)
{
	return *s && strspn(s, "0123456789abcdefABCDEF,") == strlen(s);
}

/*
 * TuneD writes CPU masks as 8-digit groups ("00000001"); the kernel prints
 * them as wide as nr_cpu_ids needs ("1", "00,00000001").  Write the width the
 * file reads back in, so that the read-back compares.
 */
static void cpumask_width(struct perftune_ctx *ctx, const char *path, const char *in, char *out,
			  size_t size)
{
	char cur[512], digits[512] = "";
	size_t nd = 0, width = 0, o = 0;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	snprintf(out, size, "%s", in);
	if ((!strstr(base, "mask") && !strstr(base, "cpumap") && !strstr(base, "affinity") &&
	     !strstr(base, "_cpus")) ||
	    !hexmask(in) || pt_attr_read(ctx, path, cur, sizeof(cur)) < 0 ||
	    !hexmask(cur))
		return;
	for (const char *c = in; *c && nd + 1 < sizeof(digits); c++)
		if (*c != ',')
			digits[nd++] = *c;
	for (const char *c = cur; *c; c++)
		width += *c != ',';
	size_t lead = 0;
	while (nd - lead > width && digits[lead] == '0')
		lead++;
	memmove(digits, digits + lead, nd - lead + 1);
	nd -= lead;
	if (nd > width || size < width + width / 8 + 1)
		return; /* more CPUs than this machine has: leave it to the kernel */
	for (size_t i = 0; i < width; i++) { /* right-align, commas where the kernel has them */
		size_t from_right = width - i;
		out[o++] = i + nd >= width ? digits[i + nd - width] : '0';
		if (from_right > 1 && (from_right - 1) % 8 == 0)
			out[o++] = ',';
	}
	out[o] = '\0';
}

/* @path is relative to the root ("sys/..."): the sysfs[] key confines it */
int pt_pmap_sysfs(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		  const char *path, const char *in)
{
	char key[PERFTUNE_KEY_MAX], value[PT_VAL];
	int r;

	cpumask_width(p->ctx, path, in, value, sizeof(value));

	if (pt_snprintf(key, sizeof(key), "sysfs[/%s]", path) < 0) {
		pt_pitem_skip(p, u, o, "/%s: path too long", path);
		return 0;
	}
	r = pt_pmap_cond(p, u, o, key, value);
	return r ? r : pt_pmap_key(p, u, o, key, value, false, NULL);
}

static int map_sysfs(struct perftune_profile *p, struct pt_punit *u)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r >= 0; i++) {
		struct pt_popt *o = &u->opt[i];
		_cleanup_free_ char *v = NULL, *why = NULL, *path = NULL;
		int found = 0;
		if ((r = pt_vars_expand(p, o->name, o, &path, &why)) < 0)
			return r;
		if ((r = value_of(p, u, o, &v)) <= 0)
			continue;
		if (why || strncmp(path, "/sys/", 5) || strstr(path, "/../") || strstr(path, "/./")) {
			pt_pitem_skip(p, u, o, "%s: %s", path,
				      why ? why : "a [sysfs] path must be under /sys");
			continue;
		}
		r = sysfs_glob(p, u, o, "sys", path + 5, v, &found);
		if (r >= 0 && !found)
			pt_pitem_skip(p, u, o, "%s: matches no file on this machine", path);
	}
	return r;
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
	{ "modules", "loads kernel modules (modprobe): a profile never executes anything" },
	{ "systemd", "changes systemd's configuration (CPUAffinity): not a kernel tunable" },
	{ "irqbalance", "changes irqbalance's configuration: not a kernel tunable" },
	{ "service", "starts or stops services: not a kernel tunable" },
	{ "mounts", "remounts file systems (barriers): not a kernel tunable" },
	{ "video", "radeon power management: no perftune key" },
	{ "eeepc_she", "dynamic tuning of an Eee PC's FSB: needs TuneD's daemon" },
	{ "rtentsk", "keeps a timestamping socket open inside TuneD's daemon" },
};

static int map_simple(struct perftune_profile *p, struct pt_punit *u)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r >= 0; i++) {
		struct pt_popt *o = &u->opt[i];
		const char *key = NULL;
		_cleanup_free_ char *v = NULL;
		for (size_t k = 0; k < ARRAY_SIZE(simple); k++)
			if (!strcmp(simple[k].type, u->type) && !strcmp(simple[k].option, o->name))
				key = simple[k].key;
		if (!key) {
			pt_pitem_skip(p, u, o, "unknown option of the %s plugin", u->type);
			continue;
		}
		if ((r = value_of(p, u, o, &v)) <= 0)
			continue;
		r = pt_pmap_cond(p, u, o, key, v);
		if (r == 0)
			r = pt_pmap_key(p, u, o, key, v, false, NULL);
	}
	return r;
}

/* kernel.sched_* moved to debugfs (sched/...) in 5.13: write whichever exists */
static int map_scheduler(struct perftune_profile *p, struct pt_punit *u)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r >= 0; i++) {
		struct pt_popt *o = &u->opt[i];
		_cleanup_free_ char *v = NULL;
		char path[PATH_MAX], dbg[PATH_MAX];
		const char *n = o->name;
		bool numa = !strncmp(n, "numa_balancing_", 15);
		if (strncmp(n, "sched_", 6) && !numa) {
			pt_pitem_skip(p, u, o, "process scheduling policy, affinity, cgroups or IRQ "
					       "affinity: not a kernel tunable");
			continue;
		}
		if ((r = value_of(p, u, o, &v)) <= 0)
			continue;
		snprintf(path, sizeof(path), "proc/sys/kernel/%s", n);
		snprintf(dbg, sizeof(dbg), numa ? "sys/kernel/debug/sched/numa_balancing/%s"
						: "sys/kernel/debug/sched/%s",
			 n + (numa ? 15 : 6));
		if (pt_attr_exists(p->ctx, path)) {
			char key[PERFTUNE_KEY_MAX];
			snprintf(key, sizeof(key), "sysctl.kernel.%s", n);
			r = pt_pmap_key(p, u, o, key, v, false, NULL);
		} else if (pt_attr_exists(p->ctx, dbg)) {
			r = pt_pmap_sysfs(p, u, o, dbg, v);
		} else {
			pt_pitem_skip(p, u, o, "neither /%s nor /%s exists (debugfs not mounted, or "
					       "the kernel has no such knob)",
				      path, dbg);
		}
	}
	return r;
}

static const char *const devtypes[] = { "net", "usb", "audio", "scsi_host" };

static int map_unit(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
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
	if (!strcmp(t, "disk"))
		return pt_map_disk(p, u, &taken[0]);
	if (!strcmp(t, "cpu"))
		return pt_map_cpu(p, u, &taken[1], flags);
	for (size_t i = 0; i < ARRAY_SIZE(devtypes); i++)
		if (!strcmp(t, devtypes[i]))
			return pt_map_devattr(p, u, &taken[2 + i]);
	for (size_t k = 0; k < u->n; k++)
		pt_pitem_skip(p, u, &u->opt[k], "unknown plugin type '%s'", t);
	return 0;
}

/* TuneD creates an instance only if cpuinfo_regex and uname_regex match */
static bool unit_applies(struct perftune_profile *p, struct pt_punit *u)
{
	char un[1024];
	bool bad = false;

	if (!u->enabled)
		return false;
	if (u->cpuinfo_regex) {
		_cleanup_free_ char *ci = malloc(PT_READ_MAX), *why = NULL, *re = NULL;
		if (!ci || pt_vars_expand(p, u->cpuinfo_regex, NULL, &re, &why) < 0)
			return false;
		if (pt_attr_read_raw(p->ctx, "proc/cpuinfo", ci, PT_READ_MAX) < 0)
			ci[0] = '\0';
		if (!pt_regex_search(re, ci, &bad))
			return false;
	}
	if (u->uname_regex) {
		_cleanup_free_ char *why = NULL, *re = NULL;
		pt_machine_uname(p->ctx, un, sizeof(un));
		if (pt_vars_expand(p, u->uname_regex, NULL, &re, &why) < 0 ||
		    !pt_regex_search(re, un, &bad))
			return false;
	}
	return true;
}

static int prio_cmp(const void *a, const void *b)
{
	const struct pt_punit *const *x = a, *const *y = b;

	if ((*x)->priority != (*y)->priority)
		return (*x)->priority < (*y)->priority ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

static int priorities(struct perftune_profile *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct pt_popt *o = pt_popt_find(p->u[i].opt, p->u[i].n, "priority");
		long long v = 0;
		if (!o)
			continue;
		if (pt_parse_ll(o->value, &v) < 0 || v < -1000000 || v > 1000000)
			return pt_err(p->ctx, -EINVAL, "%s:%d: [%s] priority=%s is not a number",
				      o->file, o->line, p->u[i].name, o->value);
		p->u[i].priority = (int)v;
		pt_popt_del(p->u[i].opt, &p->u[i].n, "priority");
	}
	return 0;
}

int pt_profile_map(struct perftune_profile *p, unsigned flags, const char *txname)
{
	struct pt_devset taken[2 + ARRAY_SIZE(devtypes)] = { 0 };
	_cleanup_free_ struct pt_punit **order = calloc(p->n + 1, sizeof(*order));
	size_t n = 0;
	int r;

	if (!order)
		return -ENOMEM;
	pt_pitems_free(p);
	perftune_tx_unref(p->check);
	p->check = NULL;
	free(p->txname);
	p->txname = txname ? strdup(txname) : NULL;
	p->map_flags = flags;
	r = perftune_tx_new(p->ctx, "profile-check",
			    PERFTUNE_TX_DRY_RUN | (flags & PERFTUNE_PROFILE_HOLD ? PERFTUNE_TX_HOLD : 0),
			    &p->check);
	if (r < 0)
		return r;
	pt_vars_free(p->vars);
	p->vars = pt_vars_new();
	if (!p->vars)
		return -ENOMEM;
	r = pt_vars_override(p, (const char *const *)p->overrides);
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (!strcmp(p->u[i].name, "variables"))
			r = pt_vars_define(p, &p->u[i]);
	if (r >= 0)
		r = priorities(p);
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (strcmp(p->u[i].name, "variables") && unit_applies(p, &p->u[i]))
			order[n++] = &p->u[i];
		else if (strcmp(p->u[i].name, "variables"))
			pt_log(p->ctx, PERFTUNE_LOG_INFO, "profile %s: [%s] does not apply here",
			       p->name, p->u[i].name);
	qsort(order, n, sizeof(*order), prio_cmp);
	for (size_t i = 0; i < n && r >= 0; i++)
		r = map_unit(p, order[i], taken, flags);
	for (size_t i = 0; i < ARRAY_SIZE(taken); i++)
		pt_devset_free(&taken[i]);
	return r;
}
