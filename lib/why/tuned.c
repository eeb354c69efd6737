// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TuneD: its active profile (/etc/tuned/active_profile, names separated by
 * blanks), loaded with lib/profile's loader (includes found in TuneD's
 * directories of the same root), and the daemons that set keys again while
 * they run, found by their names in /proc/<pid>/comm: tuned (and tuned-ppd)
 * applies its profile when it starts and re-applies sysctl.d after it
 * (reapply_sysctl, on by default); power-profiles-daemon writes the CPU's
 * energy preference and boost whenever the power profile changes.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "why-internal.h"
#include "profile/profile-internal.h"

static const char *const tuned_dirs[] = {
	"etc/tuned/profiles",
	"etc/tuned",
	"usr/lib/tuned/profiles",
	"usr/lib/tuned",
};

static int add_item(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *profile,
		    const struct perftune_profile_item *i, struct pt_srcs *v)
{
	struct pt_src *s = pt_src_add(v, PT_SRC_TUNED, t);
	const char *where = perftune_profile_item_location(i), *root = perftune_ctx_get_root(ctx);
	size_t n = strlen(root);

	if (!s)
		return -ENOMEM;
	if (strcmp(root, "/") && !strncmp(where, root, n) && where[n] == '/')
		where += n; /* as the machine below the root knows it */
	snprintf(s->where, sizeof(s->where), "%s", where);
	snprintf(s->value, sizeof(s->value), "%s", perftune_profile_item_value(i));
	snprintf(s->note, sizeof(s->note), "TuneD profile '%s' (active): %s", profile,
		 perftune_profile_item_option(i));
	s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	return 0;
}

/* @p's items that set @t from @file (NULL: any); the count, or -ENOMEM */
static int add_items(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *name,
		     struct perftune_profile *p, const char *file, struct pt_srcs *v)
{
	struct perftune_profile_item_iter *it = NULL;
	const struct perftune_profile_item *i;
	size_t n = file ? strlen(file) : 0;
	int r = perftune_profile_items(p, &it), found = 0;

	while (r >= 0 && (i = perftune_profile_item_iter_next(it))) {
		const char *key = perftune_profile_item_key(i),
			   *where = perftune_profile_item_location(i);
		if ((perftune_profile_item_flags(i) & PERFTUNE_PROFILE_ITEM_SKIPPED) || !key ||
		    strcmp(key, t->key) || (file && (strncmp(where, file, n) || where[n] != ':')))
			continue;
		r = add_item(ctx, t, name, i, v);
		found++;
	}
	perftune_profile_item_iter_free(it);
	return r == -ENOMEM ? r : found;
}

/*
 * The merged profile has the value that wins; the lines of the included
 * files it overrides are found by loading each include on its own, deepest
 * first (TuneD applies includes before the profile that includes them).  An
 * include that does not load alone (it needs the includer's variables) shows
 * only where it wins.
 */
static int scan_includes(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *name,
			 struct perftune_profile *p, struct pt_srcs *v)
{
	int r = 0, found = 0;

	for (size_t k = p->nfiles; k-- > 1 && r >= 0;) {
		struct perftune_profile *inc = NULL;
		if (perftune_profile_load(ctx, p->files[k], NULL, &inc) < 0) {
			pt_err_clear(ctx);
			r = add_items(ctx, t, name, p, p->files[k], v);
		} else {
			r = add_items(ctx, t, name, inc, p->files[k], v);
		}
		perftune_profile_free(inc);
		found += r > 0 ? r : 0;
	}
	if (r >= 0)
		r = add_items(ctx, t, name, p, p->files[0], v);
	return r < 0 ? r : found + r;
}

static int scan_profile(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *name,
			struct pt_srcs *v)
{
	struct perftune_profile *p = NULL;
	char rel[PATH_MAX], path[PATH_MAX];
	int r = -ENOENT;
	struct pt_src *s;

	for (size_t d = 0; d < ARRAY_SIZE(tuned_dirs) && r == -ENOENT; d++) {
		if (pt_snprintf(rel, sizeof(rel), "%s/%s/tuned.conf", tuned_dirs[d], name) < 0 ||
		    pt_conf_path(ctx, rel, path, sizeof(path)) < 0 || access(path, F_OK))
			continue;
		r = perftune_profile_load(ctx, path, NULL, &p);
	}
	if (r < 0) { /* named, and never fatal for the other sources */
		if (r == -ENOMEM)
			return r;
		if (!(s = pt_src_add(v, PT_SRC_TUNED, t)))
			return -ENOMEM;
		snprintf(s->where, sizeof(s->where), "/etc/tuned/active_profile");
		snprintf(s->note, sizeof(s->note), "active profile '%s': %s", name,
			 r == -ENOENT && !*pt_errmsg(ctx) ? "not found" : pt_errmsg(ctx));
		s->flags |= PERFTUNE_SOURCE_ERROR;
		pt_err_clear(ctx);
		return 0;
	}
	r = scan_includes(ctx, t, name, p, v);
	perftune_profile_free(p);
	return r;
}

int pt_why_tuned(struct perftune_ctx *ctx, const struct pt_tunable *t, struct pt_srcs *v)
{
	_cleanup_free_ char *active = NULL;
	char *save = NULL;
	int r = 0, found = 0;
	size_t len;

	if (pt_conf_read(ctx, "etc/tuned/active_profile", &active, &len) < 0)
		return 0; /* no TuneD profile chosen on this machine */
	for (char *n = strtok_r(active, " \t\n", &save); n && r >= 0;
	     n = strtok_r(NULL, " \t\n", &save)) {
		r = scan_profile(ctx, t, n, v);
		found += r > 0 ? r : 0;
	}
	return r < 0 ? r : found;
}

bool pt_tuned_reapplies_sysctl(struct perftune_ctx *ctx)
{
	_cleanup_free_ char *conf = NULL;
	bool on = true; /* TuneD's default */
	struct pt_lines l;
	char *line;
	size_t len;

	if (pt_conf_read(ctx, "etc/tuned/tuned-main.conf", &conf, &len) < 0)
		return on;
	pt_lines_init(&l, conf, len);
	while ((line = pt_lines_next(&l))) {
		char *eq = strchr(line, '=');
		if (!eq || line[0] == '#')
			continue;
		*eq = '\0';
		pt_trim(line);
		pt_trim(eq + 1);
		if (!strcmp(line, "reapply_sysctl"))
			on = strcmp(eq + 1, "0") && strcasecmp(eq + 1, "false") &&
			     strcasecmp(eq + 1, "no") && strcasecmp(eq + 1, "off");
	}
	return on;
}

/* keys power-profiles-daemon writes (its intel_pstate/amd_pstate and platform drivers) */
static const char *const ppd_keys[] = { "cpu.*.epp", "cpu.boost", "cpu.*.governor" };

static int add_daemon(const struct pt_tunable *t, const char *comm, int pid, const char *what,
		      struct pt_srcs *v)
{
	struct pt_src *s = pt_src_add(v, PT_SRC_DAEMON, t);

	if (!s)
		return -ENOMEM;
	snprintf(s->where, sizeof(s->where), "%s (pid %d)", comm, pid);
	snprintf(s->note, sizeof(s->note), "%s", what);
	s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	s->pid = pid;
	return 0;
}

static int daemon_claims(const struct pt_tunable *t, const char *comm, int pid, bool tuned,
			 bool sysctl_d, struct pt_srcs *v)
{
	if (!strcmp(comm, "tuned") || !strcmp(comm, "tuned-ppd")) {
		if (tuned)
			return add_daemon(t, comm, pid, "running: applies the active profile again",
					  v);
		if (sysctl_d)
			return add_daemon(t, comm, pid,
					  "running: re-applies sysctl.d after its profile "
					  "(reapply_sysctl)",
					  v);
		return 0;
	}
	if (!strcmp(comm, "irqbalance")) /* it writes the smp_affinity of the IRQs it balances */
		return fnmatch("irq.*.cpus", t->key, 0) || !strcmp(t->key, "irq.default.cpus")
			       ? 0
			       : add_daemon(t, comm, pid,
					    "running: moves IRQs by its own configuration, onto "
					    "every CPU not in IRQBALANCE_BANNED_CPUS",
					    v);
	if (strcmp(comm, "power-profiles-") && strcmp(comm, "power-profiles-daemon"))
		return 0; /* comm is cut at 15 characters */
	for (size_t i = 0; i < ARRAY_SIZE(ppd_keys); i++)
		if (!fnmatch(ppd_keys[i], t->key, 0))
			return add_daemon(t, "power-profiles-daemon", pid,
					  "running: writes it when the power profile changes", v);
	return 0;
}

int pt_why_daemons(struct perftune_ctx *ctx, const struct pt_tunable *t, bool tuned, bool sysctl_d,
		   struct pt_srcs *v)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "proc");
	struct dirent *e;
	int r = 0;

	while (d && (e = readdir(d)) && r >= 0) {
		char path[64], comm[64];
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "proc/%.20s/comm", e->d_name);
		if (pt_attr_read_raw(ctx, path, comm, sizeof(comm)) < 0)
			continue; /* gone meanwhile */
		pt_trim(comm);
		r = daemon_claims(t, comm, atoi(e->d_name), tuned, sysctl_d, v);
	}
	pt_err_clear(ctx);
	return r;
}
