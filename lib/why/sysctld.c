// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sysctl.d(5) as systemd-sysctl reads it at boot: the *.conf files of
 * /etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d, /usr/lib/sysctl.d
 * (and /lib/sysctl.d), a name in an earlier directory masking the same name
 * in later ones, in the order of their names, a later line winning; then
 * /etc/sysctl.conf as procps' sysctl --system reads it last (unless a
 * sysctl.d file already is it: 99-sysctl.conf -> ../sysctl.conf).  No
 * library parses these files (libsystemd does not export its parser): this
 * file does, with systemd's rules: lines as read_line() ends them (a NUL
 * byte too), "-" before a name, globs, "." and "/" as separators.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "why-internal.h"

static const char *const sysctl_dirs[] = {
	"etc/sysctl.d",	    "run/sysctl.d", "usr/local/lib/sysctl.d",
	"usr/lib/sysctl.d", "lib/sysctl.d", NULL,
};

/* systemd's sysctl_normalize(): the "/" form ("net/ipv4/conf/eth0.100/rp_filter") */
static void normalize(char *name)
{
	char *sep = strpbrk(name, "./");

	if (!sep || *sep == '/')
		return;
	for (char *c = name; *c; c++)
		*c = *c == '.' ? '/' : *c == '/' ? '.' : *c;
}

static int scan_line(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *file,
		     int lineno, char *line, const char *want, struct pt_srcs *v)
{
	char name[PERFTUNE_KEY_MAX], *eq, *val;
	struct pt_src *s;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#' || *line == ';')
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		static __thread char warned[PATH_MAX + 16]; /* once, not once per key asked about */
		char here[sizeof(warned)];
		snprintf(here, sizeof(here), "%s:%d", file, lineno);
		if (strcmp(here, warned))
			pt_log(ctx, PERFTUNE_LOG_WARNING,
			       "%s: line is not 'name = value', ignored (as systemd-sysctl does)",
			       here);
		snprintf(warned, sizeof(warned), "%s", here);
		return 0;
	}
	*eq = '\0';
	val = eq + 1;
	pt_trim(line);
	pt_trim(val);
	if (*line == '-')
		line++;
	if (pt_snprintf(name, sizeof(name), "%s", line) < 0)
		return 0;
	normalize(name);
	if (fnmatch(name, want, FNM_PATHNAME))
		return 0;
	if (!(s = pt_src_add(v, PT_SRC_SYSCTL, t)))
		return -ENOMEM;
	snprintf(s->where, sizeof(s->where), "%s:%d", file, lineno);
	snprintf(s->value, sizeof(s->value), "%s", val);
	pt_normalize(s->value);
	s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	snprintf(s->note, sizeof(s->note), "systemd-sysctl sets %s at boot", line);
	return 0;
}

static int scan_file(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *rel,
		     const char *want, struct pt_srcs *v)
{
	_cleanup_free_ char *text = NULL;
	char file[PATH_MAX + 2], *line;
	struct pt_lines l;
	struct pt_src *s;
	size_t len;
	int r = pt_conf_read(ctx, rel, &text, &len);

	if (r == -ENOENT)
		return 0;
	snprintf(file, sizeof(file), "%s", pt_conf_shown(rel));
	if (r < 0) { /* named, and never fatal for the other files */
		pt_log(ctx, PERFTUNE_LOG_WARNING, "%s: cannot read: %s", file, strerror(-r));
		if (!(s = pt_src_add(v, PT_SRC_SYSCTL, t)))
			return -ENOMEM;
		snprintf(s->where, sizeof(s->where), "%s", file);
		snprintf(s->note, sizeof(s->note), "cannot read: %s", strerror(-r));
		s->flags |= PERFTUNE_SOURCE_ERROR;
		return 0;
	}
	pt_lines_init(&l, text, len); /* a NUL byte ends a line, as in systemd-sysctl */
	while ((line = pt_lines_next(&l))) {
		r = scan_line(ctx, t, file, l.lineno, line, want, v);
		if (r < 0)
			return r;
	}
	return 0;
}

int pt_why_sysctl(struct perftune_ctx *ctx, const struct pt_tunable *t, const struct pt_xnames *x,
		  struct pt_srcs *v)
{
	_cleanup_(pt_strv_freep) char **files = NULL;
	char want[PERFTUNE_KEY_MAX], file[PATH_MAX + 2];
	bool has_conf = false;
	int r;

	if (!x->sysctl[0])
		return 0;
	snprintf(want, sizeof(want), "%s", x->sysctl);
	normalize(want);
	r = pt_conf_files(ctx, sysctl_dirs, ".conf", &files);
	if (r < 0)
		return r;
	for (size_t i = 0; files[i]; i++) {
		char target[PATH_MAX];
		const char *root = perftune_ctx_get_root(ctx);
		ssize_t n;
		snprintf(file, sizeof(file), "%s/%s", strcmp(root, "/") ? root : "", files[i]);
		n = readlink(file, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			if (!strcmp(target, "../sysctl.conf") || !strcmp(target, "/etc/sysctl.conf"))
				has_conf = true;
		}
		r = scan_file(ctx, t, files[i], want, v);
		if (r < 0)
			return r;
	}
	return has_conf ? 0 : scan_file(ctx, t, "etc/sysctl.conf", want, v);
}
