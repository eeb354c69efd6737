// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keys: parsing into components, and the concrete tunables a family makes of
 * them (what every family uses; lib/lookup.c finds the family and asks it).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "core/key.h"
#include "core/log.h"
#include "family/family.h"

/* A printable, bounded copy of user input for error messages. */
const char *pt_key_shown(const char *key, char *buf, size_t size)
{
	size_t i;

	for (i = 0; key[i] && i + 4 < size && i < PT_KEY_SHOWN; i++)
		buf[i] = isprint((unsigned char)key[i]) ? key[i] : '?';
	buf[i] = '\0';
	if (key[i])
		strcpy(buf + (i > size - 4 ? size - 4 : i), "...");
	return buf;
}

static bool plain_char(char c)
{
	return pt_key_char(c) || c == '*' || c == '?'; /* globs */
}

static int hexval(char c)
{
	if (isdigit((unsigned char)c))
		return c - '0';
	return isxdigit((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10 : -1;
}

/*
 * The ']' that closes the bracket opened at @open, skipping "\c" pairs; NULL if none.
 * *@why: what is wrong inside, or NULL.
 */
const char *pt_key_bracket_end(const char *open, const char **why)
{
	*why = NULL;
	for (const char *q = open + 1; *q; q++) {
		if (*q == ']')
			return q;
		if (!isprint((unsigned char)*q) || *q == '[') {
			*why = "bad character in [] selector (write '\\[', or \\xHH for a byte)";
			return NULL;
		}
		if (*q != '\\')
			continue;
		if (q[1] == 'x' && (hexval(q[2]) < 0 || hexval(q[3]) < 0 ||
				    hexval(q[2]) * 16 + hexval(q[3]) == 0)) {
			*why = "bad escape in [] selector ('\\x' takes two hex digits, not 00)";
			return NULL;
		}
		if (!isprint((unsigned char)q[1])) {
			*why = "bad escape in [] selector ('\\' before the end or a control character)";
			return NULL;
		}
		q += q[1] == 'x' ? 3 : 1;
	}
	return NULL;
}

/* the name that @n bytes at @in spell: "\c" is c, "\xHH" the byte HH (checked by the parser) */
static void unescape_name(const char *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (in[i] != '\\') {
			out[o++] = in[i];
		} else if (in[i + 1] == 'x') {
			out[o++] = (char)(hexval(in[i + 2]) * 16 + hexval(in[i + 3]));
			i += 3;
		} else {
			out[o++] = in[++i];
		}
	}
	out[o] = '\0';
}

static int parse_bracket(struct perftune_ctx *ctx, const char *key, const char **pp,
			 struct pt_comp *c)
{
	char sb[PT_KEY_SHOWN + 4];
	const char *p = *pp, *why, *end = pt_key_bracket_end(p, &why);
	size_t n;

	if (!end)
		return pt_err(ctx, -EINVAL, "%s: %s", pt_key_shown(key, sb, sizeof(sb)),
			      why ? why : "'[' without ']'");
	n = (size_t)(end - p - 1);
	if (n == 0)
		return pt_err(ctx, -EINVAL, "%s: empty [] selector",
			      pt_key_shown(key, sb, sizeof(sb)));
	memcpy(c->s, p + 1, n);
	unescape_name(p + 1, n, c->name);
	c->bracketed = true;
	*pp = end + 1;
	if (**pp && **pp != '.')
		return pt_err(ctx, -EINVAL, "%s: expected '.' after ']'",
			      pt_key_shown(key, sb, sizeof(sb)));
	return 0;
}

int pt_key_parse(struct perftune_ctx *ctx, const char *key, struct pt_keyparts *kp)
{
	char sb[PT_KEY_SHOWN + 4];
	const char *p = key;
	size_t len;
	int r;

	if (!key || !*key)
		return pt_err(ctx, -EINVAL, "empty key");
	len = strnlen(key, PERFTUNE_KEY_MAX);
	if (len >= PERFTUNE_KEY_MAX)
		return pt_err(ctx, -ENAMETOOLONG, "%s: key longer than %d bytes",
			      pt_key_shown(key, sb, sizeof(sb)), PERFTUNE_KEY_MAX - 1);
	memset(kp, 0, sizeof(*kp));
	kp->text = key;
	while (*p) {
		struct pt_comp *c;
		size_t n = 0;

		if (kp->n == PT_MAX_COMPS)
			return pt_err(ctx, -EINVAL, "%s: more than %d components",
				      pt_key_shown(key, sb, sizeof(sb)), PT_MAX_COMPS);
		c = &kp->c[kp->n++];
		if (*p == '[') {
			r = parse_bracket(ctx, key, &p, c);
			if (r < 0)
				return r;
		} else {
			while (*p && *p != '.' && *p != '[') {
				if (!plain_char(*p))
					return pt_err(ctx, -EINVAL, "%s: bad character '%c' in key",
						      pt_key_shown(key, sb, sizeof(sb)),
						      isprint((unsigned char)*p) ? *p : '?');
				c->s[n++] = *p++;
			}
			if (n == 0)
				return pt_err(ctx, -EINVAL, "%s: empty component",
					      pt_key_shown(key, sb, sizeof(sb)));
			memcpy(c->name, c->s, n);
			c->glob = pt_glob(c->s);
			if (*p == '[')
				continue; /* family[selector] */
		}
		if (*p == '.') {
			p++;
			if (!*p)
				return pt_err(ctx, -EINVAL, "%s: key ends with '.'",
					      pt_key_shown(key, sb, sizeof(sb)));
		}
	}
	if (kp->c[0].bracketed)
		return pt_err(ctx, -EINVAL, "%s: key must start with a family name",
			      pt_key_shown(key, sb, sizeof(sb)));
	return 0;
}

bool pt_key_is(const struct pt_keyparts *kp, const char *key)
{
	for (int i = 0; i < kp->n; i++) {
		size_t n = strlen(kp->c[i].s);

		if (strncmp(key, kp->c[i].s, n) || key[n] != (i + 1 < kp->n ? '.' : '\0'))
			return false;
		key += n + 1;
	}
	return kp->n > 0;
}

bool pt_glob(const char *s)
{
	return strpbrk(s, "*?") != NULL;
}

/* The '=' of "KEY=VALUE": the first outside the key's brackets, which may
 * hold '=' of their own ("net[driver=ixgbe].txqueuelen=1", "net[v\=1]...");
 * in a bracket '\' takes the next character.  NULL if none, or if a bracket
 * is not closed.  What a bracket holds is the key parser's to check: a bad
 * escape is named there, not taken for a setting without '='. */
static const char *setting_eq(const char *kv)
{
	for (const char *p = kv; *p; p++) {
		if (*p == '=')
			return p;
		if (*p != '[')
			continue;
		while (*++p && *p != ']')
			if (*p == '\\' && p[1])
				p++;
		if (!*p)
			return NULL;
	}
	return NULL;
}

PERFTUNE_EXPORT int perftune_setting_split(struct perftune_ctx *ctx, const char *setting,
					   char **key, const char **value)
{
	const char *eq;

	if (!key || !value)
		return -EINVAL;
	*key = NULL;
	*value = NULL;
	if (!ctx || !setting)
		return -EINVAL;
	eq = setting_eq(setting);
	if (!eq || eq == setting)
		return pt_err(ctx, -EINVAL, "'%s' is not KEY=VALUE", setting);
	*key = strndup(setting, (size_t)(eq - setting));
	if (!*key)
		return pt_err(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	*value = eq + 1;
	return 0;
}

bool pt_comp_matches(const struct pt_comp *c, const char *name)
{
	if (c->glob)
		return fnmatch(c->s, name, 0) == 0;
	return strcmp(c->name, name) == 0;
}

void pt_ctun_free(struct pt_ctun *c)
{
	free(c->key);
	free(c->path);
	free(c->note);
	c->key = c->path = c->note = NULL;
}

int pt_ctun_set(struct pt_ctun *c, const struct pt_tunable *t)
{
	pt_ctun_free(c);
	c->fam = t->fam;
	snprintf(c->group, sizeof(c->group), "%s", t->group);
	snprintf(c->aux, sizeof(c->aux), "%s", t->aux);
	c->order = t->order;
	c->id = t->id;
	c->kind = t->kind;
	c->key = strdup(t->key);
	c->path = strdup(t->path);
	c->note = t->note[0] ? strdup(t->note) : NULL;
	if (c->key && c->path && (c->note || !t->note[0]))
		return 0;
	return -ENOMEM;
}

const struct pt_tunable *pt_ctun_get(const struct pt_ctun *c, struct pt_tunable *t)
{
	t->fam = c->fam;
	memcpy(t->key, c->key, strlen(c->key) + 1);
	memcpy(t->path, c->path, strlen(c->path) + 1);
	memcpy(t->group, c->group, sizeof(t->group));
	memcpy(t->aux, c->aux, sizeof(t->aux));
	t->order = c->order;
	t->id = c->id;
	t->kind = c->kind;
	t->read_only = false; /* a listing fact, not kept */
	snprintf(t->note, sizeof(t->note), "%s", c->note ? c->note : "");
	return t;
}

int pt_tunable_init(struct pt_tunable *t, const struct pt_family *fam, const char *path,
		    const char *fmt, ...)
{
	va_list ap;
	int n;

	memset(t, 0, sizeof(*t));
	t->fam = fam;
	t->order = PT_ORDER_ATTR;
	if (path && pt_snprintf(t->path, sizeof(t->path), "%s", path) < 0)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	n = vsnprintf(t->key, sizeof(t->key), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(t->key))
		return -ENAMETOOLONG;
	return 0;
}
