// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ${f:function:arg:...} pass of expansion, as TuneD's Functions._process:
 * a stack of "${" positions; at each '}' the innermost function is evaluated
 * (func.c) and its text replaced by the result.  "\${" escapes; a
 * function that is not evaluated leaves its text, and says why.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "profile-internal.h"

static bool word(const char *s, size_t n)
{
	if (!n)
		return false;
	for (const char *c = s; c < s + n; c++)
		if (!(*c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= 'A' && *c <= 'Z')))
			return false;
	return true;
}

/* split "${f:name:a\:b:c" on unescaped ':' into argv (in place) */
static int split_args(char *s, char **argv, int max)
{
	int n = 0;

	argv[n++] = s;
	for (char *c = s; *c && n < max; c++) {
		if (*c == ':' && (c == s || c[-1] != '\\')) {
			*c = '\0';
			argv[n++] = c + 1;
		}
	}
	for (int i = 0; i < n; i++) /* "\:" -> ":" */
		for (char *c = argv[i]; (c = strstr(c, "\\:"));)
			memmove(c, c + 1, strlen(c));
	return n;
}

/* Evaluate the function text @s[from..to) ("${f:...", without the '}'). */
static int call(struct perftune_profile *p, const struct pt_popt *o, const char *s, size_t from,
		size_t to, char **out, struct pt_buf *why)
{
	_cleanup_free_ char *text = strndup(s + from, to - from);
	char *argv[64], *reason = NULL;
	int argc, r;

	*out = NULL;
	if (!text)
		return -ENOMEM;
	argc = split_args(text, argv, (int)ARRAY_SIZE(argv));
	if (argc < 2 || strcmp(argv[0], "${f") || !word(argv[1], strlen(argv[1])))
		return 0;
	for (int i = 2; i < argc; i++)
		if (strstr(argv[i], "${f:")) { /* an inner function was not evaluated */
			if (!why->len)
				pt_buf_printf(why, "function %s: an argument was not evaluated", argv[1]);
			return 0;
		}
	r = pt_func_call(p, o, argv[1], argc - 2, argv + 2, out, &reason);
	if (reason && !why->len)
		pt_buf_printf(why, "%s", reason);
	free(reason);
	return r;
}

static char *substitute(char *s, size_t from, size_t to, const char *res)
{
	size_t rl = strlen(res), len = strlen(s);
	char *ns = malloc(len - (to - from + 1) + rl + 1);

	if (ns) {
		memcpy(ns, s, from);
		memcpy(ns + from, res, rl);
		strcpy(ns + from + rl, s + to + 1);
	}
	free(s);
	return ns;
}

/* Pass 2: TuneD's Functions._process, a stack of "${" positions. */
char *pt_expand_functions(struct perftune_profile *p, const char *in, const struct pt_popt *o,
			      struct pt_buf *why, int *err)
{
	size_t stack[64], depth = 0;
	bool escs[64], esc = false;
	char *s = strdup(in);

	for (ssize_t i = 0; s && i < (ssize_t)strlen(s); i++) {
		if (s[i] == '}' && depth) {
			size_t from = stack[--depth];
			char *res = NULL;
			int r = escs[depth] ? 0 : call(p, o, s, from, (size_t)i, &res, why);
			if (r < 0) {
				*err = r;
				free(s);
				return NULL;
			}
			if (res) { /* go on right after the result */
				s = substitute(s, from, (size_t)i, res);
				i = (ssize_t)(from + strlen(res)) - 1;
				free(res);
				esc = s && i >= 0 && s[i] == '\\';
				continue;
			}
		} else if (s[i] == '$' && s[i + 1] == '{' && depth < ARRAY_SIZE(stack)) {
			escs[depth] = esc;
			stack[depth++] = (size_t)i;
		}
		esc = s[i] == '\\';
	}
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	for (char *c = s; (c = strstr(c, "\\${f:"));) /* unescape "\${f:" */
		memmove(c, c + 1, strlen(c));
	return s;
}
