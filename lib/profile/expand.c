// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ${f:function:arg:...} pass of expansion, as TuneD's Functions._process:
 * a stack of "${" positions; at each '}' the innermost function is evaluated
 * (func.c) and its text replaced by the result.  "\${" escapes; a
 * function that is not evaluated leaves its text, and says why.
 *
 * The text is built once, left to right, in one buffer: a result replaces
 * its function's text at the end of the buffer and scanning goes on after the
 * '}' (TuneD does not rescan a result), so the work is linear in what is
 * written.  Every expansion stops at PT_PROFILE_VALUE_MAX bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "core/log.h"
#include "profile-internal.h"

bool pt_is_word(const char *s, size_t n)
{
	if (!n)
		return false;
	for (const char *c = s; c < s + n; c++)
		if (!(*c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= 'A' && *c <= 'Z')))
			return false;
	return true;
}

int pt_expand_too_long(struct perftune_profile *p, const struct pt_popt *o)
{
	if (o)
		return pt_err(p->ctx, -EINVAL,
			      "%s:%d: %s: the value expands to more than %d bytes (the profile "
			      "value limit)",
			      o->file, o->line, o->name, PT_PROFILE_VALUE_MAX);
	return pt_err(p->ctx, -EINVAL,
		      "profile %s: a unit attribute expands to more than %d bytes (the profile "
		      "value limit)",
		      p->path ? p->path : "?", PT_PROFILE_VALUE_MAX);
}

/* split "${f:name:a\:b:c" on unescaped ':' into argv (in place), "\:" -> ":"; -1: more than @max */
static int split_args(char *s, char **argv, int max)
{
	int n = 0;
	char *w = s;

	argv[n++] = s;
	for (char *c = s; *c; c++) {
		if (*c == '\\' && c[1] == ':') {
			*w++ = *++c;
		} else if (*c == ':' && n == max) {
			return -1;
		} else if (*c == ':') {
			*w++ = '\0';
			argv[n++] = w;
		} else {
			*w++ = *c;
		}
	}
	*w = '\0';
	return n;
}

/* the first "${name}" in @s (a variable left as written: undefined), or NULL */
static const char *undefined_ref(const char *s)
{
	for (const char *c = strstr(s, "${"); c; c = strstr(c + 2, "${")) {
		size_t n = 0;
		while (pt_is_word(c + 2 + n, 1))
			n++;
		if (n && c[2 + n] == '}')
			return c;
	}
	return NULL;
}

/* Evaluate the function text @s[0..n) ("${f:...", without the '}'). */
static int call(struct perftune_profile *p, const struct pt_popt *o, const char *s, size_t n,
		char **out, struct pt_buf *why)
{
	_cleanup_free_ char *text = strndup(s, n);
	char *argv[256], *reason = NULL;
	int argc, r;

	*out = NULL;
	if (!text)
		return -ENOMEM;
	if (strncmp(text, "${f:", 4))
		return 0;
	argc = split_args(text, argv, (int)ARRAY_SIZE(argv));
	if (argc < 0) {
		if (!why->len)
			pt_buf_printf(why, "a function with more than %d arguments",
				      (int)ARRAY_SIZE(argv) - 2);
		return 0;
	}
	if (argc < 2 || !pt_is_word(argv[1], strlen(argv[1])))
		return 0;
	for (int i = 2; i < argc; i++)
		if (strstr(argv[i], "${f:")) { /* an inner function was not evaluated */
			if (!why->len)
				pt_buf_printf(why, "function %s: an argument was not evaluated",
					      argv[1]);
			return 0;
		}
	r = pt_func_call(p, o, argv[1], argc - 2, argv + 2, out, &reason);
	if (reason && !why->len) {
		/* refused because an argument holds a variable nobody defined: say that */
		const char *ref = NULL;
		for (int i = 2; i < argc && !ref; i++)
			ref = undefined_ref(argv[i]);
		if (ref)
			pt_buf_printf(why, "variable %.*s is not defined (an argument of %s)",
				      (int)(strchr(ref, '}') - ref + 1), ref, argv[1]);
		else
			pt_buf_printf(why, "%s", reason);
	}
	free(reason);
	return r;
}

/*
 * TuneD's re.sub(r'\\(\${f:.*})', r'\1', s): on each line, the first "\${f:"
 * that a '}' follows loses its backslash; ".*" then takes the rest of the line
 */
static void unescape(char *s)
{
	for (char *line = s; line && *line;) {
		char *nl = strchr(line, '\n'), *end = line + strcspn(line, "\n");
		for (char *c = line; c < end; c++) {
			char *close;
			if (c[0] != '\\' || strncmp(c + 1, "${f:", 4))
				continue;
			close = memchr(c + 5, '}', (size_t)(end - c - 5));
			if (close) {
				memmove(c, c + 1, strlen(c + 1) + 1);
				if (nl)
					nl--;
			}
			break;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
}

/* Pass 2: TuneD's Functions._process, a stack of "${" positions in the output. */
static int expand_functions(struct perftune_profile *p, const char *in, const struct pt_popt *o,
			    struct pt_buf *why, char **out)
{
	size_t stack[64], depth = 0;
	bool escs[64];
	struct pt_buf b = { 0 };

	*out = NULL;
	for (const char *c = in; *c && !b.oom; c++) {
		bool esc = b.len && b.s[b.len - 1] == '\\';
		if (*c == '}' && !depth) { /* TuneD: "non pair '}'", the rest is left as written */
			pt_buf_puts(&b, c);
			break;
		}
		if (c[0] == '$' && c[1] == '{' && depth == ARRAY_SIZE(stack)) {
			if (!why->len)
				pt_buf_printf(why, "more than %d nested '${'",
					      (int)ARRAY_SIZE(stack));
			pt_buf_puts(&b, c);
			break;
		}
		if (*c == '}') {
			size_t from = stack[--depth];
			_cleanup_free_ char *res = NULL;
			int r = 0;
			if (!escs[depth])
				r = call(p, o, b.s + from, b.len - from, &res, why);
			if (r < 0) {
				free(b.s);
				return r;
			}
			if (res) { /* the result replaces the text; go on right after it */
				b.len = from;
				pt_buf_puts(&b, res);
				/* TuneD's _sub() clamps its position to 0: the next character is not looked at */
				if (!*res && !from && c[1])
					pt_buf_add(&b, ++c, 1);
			} else {
				pt_buf_add(&b, c, 1);
			}
		} else {
			if (c[0] == '$' && c[1] == '{') {
				escs[depth] = esc;
				stack[depth++] = b.len;
			}
			pt_buf_add(&b, c, 1);
		}
		if (b.len > PT_PROFILE_VALUE_MAX) {
			free(b.s);
			return pt_expand_too_long(p, o);
		}
	}
	*out = pt_buf_steal(&b);
	if (!*out)
		return -ENOMEM;
	unescape(*out);
	return 0;
}

int pt_expand_rest(struct perftune_profile *p, const char *in, const struct pt_popt *o,
		   struct pt_buf *why, char **out, char **unresolved)
{
	int r = expand_functions(p, in, o, why, out);

	*unresolved = NULL;
	if (r >= 0 && (why->len || why->oom)) {
		*unresolved = pt_buf_steal(why);
		r = 0;
		if (!*unresolved)
			r = -ENOMEM;
	}
	if (r < 0) {
		free(why->s);
		free(*out);
		*out = NULL;
	}
	return r;
}

int pt_func_expand(struct perftune_profile *p, const char *in, const struct pt_popt *o, char **out,
		   char **unresolved)
{
	struct pt_buf why = { 0 };

	*out = NULL;
	*unresolved = NULL;
	if (strlen(in) > PT_PROFILE_VALUE_MAX)
		return pt_expand_too_long(p, o);
	return pt_expand_rest(p, in, o, &why, out, unresolved);
}
