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
 * taken as true and named in the note.  The files are read once per call
 * (lines as udevd's read_line() ends them, a NUL byte too) into rules
 * indexed by the attribute they assign: a key looks only at the rules that
 * assign its attribute.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "internal.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "shared/dlopen.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"
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
		const char *v = pt_libudev.udev_device_get_property_value(d->ud, name);
		return v && pt_snprintf(out, size, "%s", v) >= 0;
	}
	for (size_t i = 0; i < 2; i++)
		for (const char *l = files[i]; l && *l;
		     l += strcspn(l, "\n") + (strchr(l, '\n') != NULL)) {
			const char *p = l;
			if (i && strncmp(l, "E:", 2))
				continue; /* the database: only its E: lines are properties */
			if (i)
				p = l + 2;
			if (!strncmp(p, name, n) && p[n] == '=') {
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
	if (pt_root_is_host(ctx) && pt_udev(ctx)) { /* else the files libudev reads */
		d->ud = pt_libudev.udev_device_new_from_subsystem_sysname(pt_udev(ctx), subsys,
									  name);
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
		pt_conf_read(ctx, rel, &d->db, &len, NULL, NULL);
	}
}

static void dev_close(struct dev *d)
{
	if (d->ud)
		pt_libudev.udev_device_unref(d->ud);
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

/* one KEY OP "VALUE" of a rule, in place in the rule's text */
struct token {
	char *key, *val;  /* "ATTR{queue/scheduler}", its value unescaped */
	const char *attr; /* an ATTR{} assignment: "queue/scheduler", else NULL */
	char op[3];
};

/*
 * The next token of *@p: its key and value NUL-terminated in place (the
 * value unescaped, never longer than as written).  False at the end of the
 * rule or on a malformed token.
 */
static bool token(char **p, struct token *tk)
{
	char *s = *p, *k, *end, *out;

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
	if (!*s || (size_t)(s - k) >= 160)
		return false;
	end = s;
	tk->op[0] = *s++;
	tk->op[1] = tk->op[2] = '\0';
	if (*s == '=')
		tk->op[1] = *s++;
	else if (tk->op[0] != '=')
		return false; /* "!", "+", "-", ":" alone */
	while (*s == ' ')
		s++;
	if (*s++ != '"')
		return false;
	*end = '\0';
	pt_trim(k);
	tk->key = k;
	tk->val = out = s;
	for (; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++;
		*out++ = *s;
	}
	if (*s != '"')
		return false;
	*p = s + 1;
	*out = '\0';
	tk->attr = NULL;
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

/* a rule, or a file that cannot be read (ntok 0, err < 0), in the order they take effect */
struct rule {
	char *text; /* the tokens' strings */
	size_t file, tok, ntok;
	int line, err;
};

struct pt_udev_rules {
	struct perftune_ctx *ctx;
	char **shown; /* the files' names */
	size_t nfiles;
	struct rule *r;
	size_t nr, rcap;
	struct token *tk;
	size_t ntk, tkcap;
	struct pt_ref *assign; /* the rules that assign an attribute, by its name */
	size_t nassign, acap;
	size_t *err, nerr; /* the files that cannot be read */
};

static int add_rule(struct pt_udev_rules *u, const struct rule *r)
{
	if (pt_grow(&u->r, &u->rcap, u->nr + 1, 16) < 0)
		return -ENOMEM;
	u->r[u->nr++] = *r;
	return 0;
}

/* one rule (its lines joined): its tokens, and what it assigns, into the index */
static int parse_rule(struct pt_udev_rules *u, char *text, int line)
{
	struct rule r = { .text = text, .file = u->nfiles - 1, .tok = u->ntk, .line = line };
	struct token tk;
	char *p = text;

	while (token(&p, &tk)) { /* a malformed token ends the rule, as before */
		bool assign = strcmp(tk.op, "==") && strcmp(tk.op, "!=");
		size_t kl = strlen(tk.key);
		if (pt_grow(&u->tk, &u->tkcap, u->ntk + 1, 64) < 0)
			goto oom;
		if (assign && !strncmp(tk.key, "ATTR{", 5) && tk.key[kl - 1] == '}') {
			tk.key[kl - 1] = '\0';
			tk.attr = tk.key + 5;
			if (pt_grow(&u->assign, &u->acap, u->nassign + 1, 16) < 0)
				goto oom;
			u->assign[u->nassign++] = (struct pt_ref){ tk.attr, u->nr };
		}
		u->tk[u->ntk++] = tk;
	}
	r.ntok = u->ntk - r.tok;
	if (add_rule(u, &r) == 0)
		return 0;
oom:
	free(text);
	return -ENOMEM;
}

/* the lines of a rules file as udevd reads them: "\" joins the next, "#" lines left out */
static int parse_text(struct pt_udev_rules *u, char *text, size_t len, struct pt_why_work *work)
{
	struct pt_buf rule = { 0 };
	struct pt_lines l;
	char *line;
	int first = 0, r = 0;

	pt_lines_init(&l, text, len);
	while (r >= 0 && (line = pt_lines_next(&l))) {
		size_t n;
		work->lines++;
		line += strspn(line, " \t\r\n");
		if (*line == '#') /* a comment, within a continued rule too (udevd's way) */
			continue;
		if (!rule.len)
			first = l.lineno;
		n = strlen(line);
		if (n && line[n - 1] == '\\') { /* continued on the next line */
			pt_buf_add(&rule, line, n - 1);
			continue;
		}
		pt_buf_puts(&rule, line);
		char *whole = pt_buf_steal(&rule);
		if (!whole)
			return -ENOMEM;
		pt_trim(whole);
		if (*whole)
			r = parse_rule(u, whole, first);
		else
			free(whole);
	}
	free(pt_buf_steal(&rule));
	return r;
}

static int add_file(struct pt_udev_rules *u, const char *rel, char *text, size_t len, int err,
		    struct pt_why_work *work)
{
	int r = -ENOMEM;

	if (pt_strv_add(&u->shown, &u->nfiles, pt_conf_shown(rel))) {
		if (err) {
			pt_log(u->ctx, PERFTUNE_LOG_WARNING, "%s: cannot read: %s",
			       pt_conf_shown(rel), strerror(-err));
			r = add_rule(u, &(struct rule){ .file = u->nfiles - 1, .err = err });
		} else {
			r = parse_text(u, text, len, work);
		}
	}
	free(text);
	return r;
}

static int index_rules(struct pt_udev_rules *u)
{
	u->err = calloc(u->nr + 1, sizeof(*u->err));
	if (!u->err)
		return -ENOMEM;
	for (size_t i = 0; i < u->nr; i++)
		if (u->r[i].err)
			u->err[u->nerr++] = i;
	pt_refs_sort(u->assign, u->nassign);
	return 0;
}

/* the rules indexed, or freed (*@out NULL) on failure */
static int done(struct pt_udev_rules *u, int r, struct pt_udev_rules **out)
{
	if (r >= 0)
		r = index_rules(u);
	if (r < 0) {
		pt_udev_rules_free(u);
		*out = NULL;
	}
	return r;
}

static struct pt_udev_rules *rules_alloc(struct perftune_ctx *ctx)
{
	struct pt_udev_rules *u = calloc(1, sizeof(*u));

	if (u)
		u->ctx = ctx;
	return u;
}

int pt_udev_rules_new(struct perftune_ctx *ctx, struct pt_udev_rules **out, struct pt_why_work *work)
{
	struct pt_udev_rules *u = rules_alloc(ctx);
	struct pt_conf_list *files = NULL;
	int r = -ENOMEM;

	*out = u;
	if (u)
		r = pt_conf_files(ctx, rules_dirs, ".rules", &files);
	for (size_t i = 0; r >= 0 && i < pt_conf_list_n(files); i++) {
		char *text = NULL;
		size_t len = 0;
		int e = pt_conf_list_read(ctx, files, i, &text, &len, NULL, work);
		if (e == -ENOMEM)
			r = e;
		else if (e != -ENOENT) /* named, and never fatal for the other files */
			r = add_file(u, pt_conf_list_path(files, i), text, len, e, work);
	}
	pt_conf_list_free(files);
	return done(u, r, out);
}

int pt_udev_rules_parse(struct perftune_ctx *ctx, const char *rel, char *text, size_t len,
			struct pt_udev_rules **out, struct pt_why_work *work)
{
	struct pt_udev_rules *u = rules_alloc(ctx);
	int r;

	*out = u;
	if (!u) {
		free(text);
		return -ENOMEM;
	}
	r = add_file(u, rel, text, len, 0, work);
	return done(u, r, out);
}

void pt_udev_rules_free(struct pt_udev_rules *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr; i++)
		free(u->r[i].text);
	pt_strv_free(u->shown);
	pt_free_all(u->r, u->tk, u->assign, u->err, u);
}

/* rule @ri for the device @d: a source if every match holds and it assigns @attr */
static int check_rule(struct pt_udev_rules *u, const struct pt_tunable *t, struct dev *d,
		      const char *attr, size_t ri, struct pt_srcs *v)
{
	const struct rule *r = &u->r[ri];
	char where[PATH_MAX + 32], assumed[256] = "";
	const char *set = NULL;
	struct pt_src *s;

	if (r->err)
		return pt_src_error(v, PT_SRC_UDEV, t, u->shown[r->file], r->err);
	snprintf(where, sizeof(where), "%s:%d", u->shown[r->file], r->line);
	for (size_t i = r->tok; i < r->tok + r->ntok; i++) {
		const struct token *tk = &u->tk[i];
		bool eq = !strcmp(tk->op, "=="), ne = !strcmp(tk->op, "!=");
		if (eq || ne) {
			int m = match(u->ctx, d, tk->key, tk->val, assumed, sizeof(assumed));
			if (m == (ne ? 1 : 0))
				return 0;
		} else if (tk->attr && !strcmp(tk->attr, attr)) {
			set = tk->val;
		}
	}
	if (!set)
		return 0;
	s = pt_src_add(v, PT_SRC_UDEV, t, where, set, "udev sets ATTR{%s} when %s is added%s%s",
		       attr, d->name, *assumed ? "; assumed without udevd: " : "", assumed);
	if (!s)
		return -ENOMEM;
	s->flags |= PERFTUNE_SOURCE_PERSISTENT;
	return 0;
}

int pt_udev_rules_why(struct pt_udev_rules *u, const struct pt_tunable *t,
		      const struct pt_xnames *x, struct pt_srcs *v, struct pt_why_work *work)
{
	struct pt_hits h = { 0 };
	struct dev d = { 0 };
	int r = 0;

	if (!x->dev[0] || !x->attr[0])
		return 0;
	for (size_t k = 0; k < u->nerr && r >= 0; k++)
		r = pt_hits_add(&h, u->err[k], work);
	for (size_t k = pt_refs_find(u->assign, u->nassign, x->attr, work);
	     k < u->nassign && !strcmp(u->assign[k].name, x->attr) && r >= 0; k++)
		if (!h.n || h.i[h.n - 1] != u->assign[k].i) /* a rule assigning it twice: once */
			r = pt_hits_add(&h, u->assign[k].i, work);
	pt_hits_sort(&h);
	if (h.n)
		dev_open(u->ctx, &d, x->subsys[0] ? x->subsys : "block", x->dev);
	for (size_t k = 0; k < h.n && r >= 0; k++)
		r = check_rule(u, t, &d, x->attr, h.i[k], v);
	if (h.n)
		dev_close(&d);
	free(h.i);
	return r;
}
