// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * udev rules that set a device's attribute when it is added: a block
 * device's queue attribute (ATTR{queue/...}="x"), a network device's
 * (ATTR{tx_queue_len}, ATTR{queues/rx-0/rps_cpus}); the family names the
 * subsystem, device and attribute (export_names).  The rules are the *.rules
 * files of /etc/udev/rules.d, /run/udev/rules.d, /usr/local/lib/udev/rules.d,
 * /usr/lib/udev/rules.d (and /lib/udev/rules.d), masked by name and ordered as
 * udevd reads them, a later assignment winning.  libudev reads devices, not
 * rules: the rules are parsed here, and each rule's matches are checked
 * against the device:
 * KERNEL, SUBSYSTEM, ACTION, DEVTYPE, ATTR{} and ENV{} (the device's
 * properties from libudev on the running machine; below another root, from
 * its sys/.../uevent and run/udev/data, the files libudev reads).  A match
 * that cannot be checked without udevd (DRIVERS, ATTRS, PROGRAM, ...) is
 * taken as true and named in the note.  Lines end as udevd's read_line()
 * ends them (a NUL byte too).
 */
#include <errno.h>
#include <fnmatch.h>
#include <libudev.h>
#include <stdio.h>
#include <string.h>
#include "why-internal.h"

static const char *const rules_dirs[] = {
	"etc/udev/rules.d",	"run/udev/rules.d", "usr/local/lib/udev/rules.d",
	"usr/lib/udev/rules.d", "lib/udev/rules.d", NULL,
};

struct dev {
	const char *name, *subsys; /* "sda", "block"; "eth0", "net" */
	struct udev_device *ud;	   /* the running machine's, or NULL */
	char *uevent, *db;	   /* below another root */
};

/* a property from libudev, or the uevent file and the udev database below the root */
static bool dev_prop(struct dev *d, const char *name, char *out, size_t size)
{
	const char *files[2] = { d->uevent, d->db };
	size_t n = strlen(name);

	if (d->ud) {
		const char *v = udev_device_get_property_value(d->ud, name);
		return v && pt_snprintf(out, size, "%s", v) >= 0;
	}
	for (size_t i = 0; i < 2; i++)
		for (const char *l = files[i]; l && *l;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
			const char *p = i ? (strncmp(l, "E:", 2) ? NULL : l + 2) : l;
			if (p && !strncmp(p, name, n) && p[n] == '=') {
				snprintf(out, size, "%.*s", (int)strcspn(p + n + 1, "\n"),
					 p + n + 1);
				return true;
			}
		}
	return false;
}

static void dev_open(struct perftune_ctx *ctx, struct dev *d, const char *subsys, const char *name)
{
	bool net = !strcmp(subsys, "net");
	char path[PATH_MAX], raw[256], rel[64];
	size_t len;

	d->name = name;
	d->subsys = subsys;
	if (pt_root_is_host(ctx)) {
		d->ud = udev_device_new_from_subsystem_sysname(pt_udev(ctx), subsys, name);
		return;
	}
	snprintf(path, sizeof(path), "sys/class/%s/%s/uevent", subsys, name);
	if (pt_attr_read_raw(ctx, path, raw, sizeof(raw)) >= 0)
		d->uevent = strdup(raw);
	/* udev's database: "b8:0" for a block device, "n3" for a network interface */
	snprintf(path, sizeof(path), "sys/class/%s/%s/%s", subsys, name, net ? "ifindex" : "dev");
	if (pt_attr_read_raw(ctx, path, raw, sizeof(raw)) >= 0) {
		pt_trim(raw);
		snprintf(rel, sizeof(rel), "run/udev/data/%c%s", net ? 'n' : 'b', raw);
		pt_conf_read(ctx, rel, &d->db, &len);
	}
}

static void dev_close(struct dev *d)
{
	udev_device_unref(d->ud);
	free(d->uevent);
	free(d->db);
}

/* udev's pattern: fnmatch() with "|" between alternatives */
static bool pattern(const char *pat, const char *value)
{
	char buf[1024], *save = NULL;

	if (!*pat)
		return !*value;
	snprintf(buf, sizeof(buf), "%s", pat);
	for (char *alt = strtok_r(buf, "|", &save); alt; alt = strtok_r(NULL, "|", &save))
		if (!fnmatch(alt, value, 0))
			return true;
	return false;
}

/* next KEY OP "VALUE" of a rule; false at its end or on a malformed token */
static bool token(char **p, char *key, size_t ks, char *op, char *val, size_t vs)
{
	char *s = *p, *k;
	size_t n = 0;

	while (*s == ' ' || *s == '\t' || *s == ',')
		s++;
	if (!*s)
		return false;
	k = s;
	while (*s && !strchr("=!+-:{", *s))
		s++;
	if (*s == '{') /* ATTR{queue/x}: the braces may hold any of the operator characters */
		s += strcspn(s, "}") + (strchr(s, '}') ? 1 : 0);
	while (*s && !strchr("=!+-:", *s))
		s++;
	if (!*s || (size_t)(s - k) >= ks)
		return false;
	snprintf(key, ks, "%.*s", (int)(s - k), k);
	pt_trim(key);
	op[0] = *s++;
	op[1] = op[2] = '\0';
	if (*s == '=')
		op[1] = *s++;
	else if (op[0] != '=')
		return false; /* "!", "+", "-", ":" alone */
	while (*s == ' ')
		s++;
	if (*s++ != '"')
		return false;
	for (; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++;
		if (n + 1 < vs)
			val[n++] = *s;
	}
	val[n] = '\0';
	if (*s != '"')
		return false;
	*p = s + 1;
	return true;
}

/* 1 matches, 0 not; an unchecked match appended to @assumed */
static int match(struct perftune_ctx *ctx, struct dev *d, const char *key, const char *val,
		 char *assumed, size_t size)
{
	char got[PT_VAL] = "", path[PATH_MAX];

	if (!strcmp(key, "KERNEL"))
		return pattern(val, d->name);
	if (!strcmp(key, "SUBSYSTEM"))
		return pattern(val, d->subsys);
	if (!strcmp(key, "ACTION"))
		return pattern(val, "add") || pattern(val, "change");
	if (!strcmp(key, "DEVTYPE"))
		return dev_prop(d, "DEVTYPE", got, sizeof(got)) && pattern(val, got);
	if (!strncmp(key, "ENV{", 4) && key[strlen(key) - 1] == '}') {
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)strlen(key) - 5, key + 4);
		dev_prop(d, name, got, sizeof(got));
		return pattern(val, got);
	}
	if (!strncmp(key, "ATTR{", 5) && key[strlen(key) - 1] == '}') {
		snprintf(path, sizeof(path), "sys/class/%s/%s/%.*s", d->subsys, d->name,
			 (int)strlen(key) - 6, key + 5);
		if (pt_attr_read_raw(ctx, path, got, sizeof(got)) >= 0)
			pt_trim(got);
		return pattern(val, got);
	}
	snprintf(assumed + strlen(assumed), size - strlen(assumed), "%s%s==\"%s\"",
		 *assumed ? ", " : "", key, val);
	return 1;
}

static int scan_rule(struct perftune_ctx *ctx, const struct pt_tunable *t, struct dev *d,
		     const char *attr, const char *where, char *rule, struct pt_srcs *v)
{
	char key[160], op[3], val[PT_VAL], set[PT_VAL], assumed[256] = "";
	bool sets = false;
	struct pt_src *s;
	char *p = rule;

	while (token(&p, key, sizeof(key), op, val, sizeof(val))) {
		bool eq = !strcmp(op, "=="), ne = !strcmp(op, "!=");
		if (eq || ne) {
			int m = match(ctx, d, key, val, assumed, sizeof(assumed));
			if (m == (ne ? 1 : 0))
				return 0;
			continue;
		}
		if (!strncmp(key, "ATTR{", 5) && !strncmp(key + 5, attr, strlen(attr)) &&
		    !strcmp(key + 5 + strlen(attr), "}")) {
			snprintf(set, sizeof(set), "%s", val);
			sets = true;
		}
	}
	if (!sets)
		return 0;
	if (!(s = pt_src_add(v, PT_SRC_UDEV, t)))
		return -ENOMEM;
	snprintf(s->where, sizeof(s->where), "%s", where);
	snprintf(s->value, sizeof(s->value), "%s", set);
	s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	snprintf(s->note, sizeof(s->note), "udev sets ATTR{%s} when %s is added%s%s", attr, d->name,
		 *assumed ? "; assumed without udevd: " : "", assumed);
	return 0;
}

static int scan_file(struct perftune_ctx *ctx, const struct pt_tunable *t, struct dev *d,
		     const char *attr, const char *rel, struct pt_srcs *v)
{
	_cleanup_free_ char *text = NULL;
	char where[PATH_MAX + 32], *line;
	size_t tlen;
	int r = pt_conf_read(ctx, rel, &text, &tlen), first = 0;
	struct pt_buf rule = { 0 };
	struct pt_lines l;

	if (r < 0) { /* named, and never fatal for the other files */
		struct pt_src *s;
		pt_log(ctx, PERFTUNE_LOG_WARNING, "%s: cannot read: %s", pt_conf_shown(rel),
		       strerror(-r));
		if (!(s = pt_src_add(v, PT_SRC_UDEV, t)))
			return -ENOMEM;
		snprintf(s->where, sizeof(s->where), "%s", pt_conf_shown(rel));
		snprintf(s->note, sizeof(s->note), "cannot read: %s", strerror(-r));
		s->flags |= PERFTUNE_SOURCE_ERROR;
		return 0;
	}
	pt_lines_init(&l, text, tlen); /* a NUL byte ends a line, as in udevd */
	while (r >= 0 && (line = pt_lines_next(&l))) {
		size_t len;
		if (line[strspn(line, " \t\r\n")] == '#')
			continue; /* a comment, within a continued rule too (udevd's way) */
		if (!rule.len)
			first = l.lineno;
		len = strlen(line);
		if (len && line[len - 1] == '\\') { /* continued on the next line */
			pt_buf_add(&rule, line, len - 1);
			continue;
		}
		pt_buf_puts(&rule, line);
		_cleanup_free_ char *whole = pt_buf_steal(&rule);
		if (!whole)
			return -ENOMEM;
		pt_trim(whole);
		if (*whole) {
			snprintf(where, sizeof(where), "%s:%d", pt_conf_shown(rel), first);
			r = scan_rule(ctx, t, d, attr, where, whole, v);
		}
	}
	free(pt_buf_steal(&rule));
	return r;
}

int pt_why_udev(struct perftune_ctx *ctx, const struct pt_tunable *t, const struct pt_xnames *x,
		struct pt_srcs *v)
{
	_cleanup_(pt_strv_freep) char **files = NULL;
	struct dev d = { 0 };
	int r;

	if (!x->dev[0] || !x->attr[0])
		return 0;
	r = pt_conf_files(ctx, rules_dirs, ".rules", &files);
	if (r < 0)
		return r;
	dev_open(ctx, &d, x->subsys[0] ? x->subsys : "block", x->dev);
	for (size_t i = 0; files[i] && r >= 0; i++)
		r = scan_file(ctx, t, &d, x->attr, files[i], v);
	dev_close(&d);
	return r;
}
