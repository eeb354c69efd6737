// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keys: parsing into components, and the concrete tunables a family makes of
 * them (what every family uses; lib/lookup.c finds the family and asks it).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

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

int pt_key_parse(struct perftune_ctx *ctx, const char *key, struct pt_keyparts *kp)
{
	char sb[PT_KEY_SHOWN + 4];
	const char *p = key;
	size_t len;

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
			const char *end = strchr(p + 1, ']');
			if (!end)
				return pt_err(ctx, -EINVAL, "%s: '[' without ']'",
					      pt_key_shown(key, sb, sizeof(sb)));
			n = (size_t)(end - p - 1);
			if (n == 0)
				return pt_err(ctx, -EINVAL, "%s: empty [] selector",
					      pt_key_shown(key, sb, sizeof(sb)));
			for (const char *q = p + 1; q < end; q++)
				if (!isprint((unsigned char)*q) || *q == '[')
					return pt_err(ctx, -EINVAL,
						      "%s: bad character in [] selector",
						      pt_key_shown(key, sb, sizeof(sb)));
			memcpy(c->s, p + 1, n);
			c->bracketed = true;
			p = end + 1;
			if (*p && *p != '.')
				return pt_err(ctx, -EINVAL, "%s: expected '.' after ']'",
					      pt_key_shown(key, sb, sizeof(sb)));
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
	return c->key && c->path && (c->note || !t->note[0]) ? 0 : -ENOMEM;
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
	return n < 0 || (size_t)n >= sizeof(t->key) ? -ENAMETOOLONG : 0;
}
