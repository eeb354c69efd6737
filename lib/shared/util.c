// SPDX-License-Identifier: LGPL-2.1-or-later
/* String helpers shared by the families: value normalization, choices, numbers. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "shared/util.h"

void pt_trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

/* "always [madvise] never\n" -> "madvise"; "4\t4\t1\t7\n" -> "4 4 1 7" */
bool pt_has_cntrl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Messages and log lines are one line: a control character becomes '?'. */
void pt_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/*
 * A selection file ("always [madvise] never", "none [mq-deadline] kyber"): words
 * between blanks, one of them whole in brackets; its text in *@at, *@n bytes.  A value
 * with a bracket inside a word ("/var/core/[%p]") is not one.
 */
static bool selection(const char *s, const char **at, size_t *n)
{
	const char *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;

	if (!close || close == open + 1 || (open > s && !isspace((unsigned char)open[-1])) ||
	    (close[1] && !isspace((unsigned char)close[1])))
		return false;
	for (const char *c = open + 1; c < close; c++)
		if (isspace((unsigned char)*c) || *c == '[')
			return false;
	*at = open + 1;
	*n = (size_t)(close - open - 1);
	return true;
}

bool pt_is_selection(const char *raw)
{
	const char *at;
	size_t n;

	return selection(raw, &at, &n);
}

void pt_normalize(char *s)
{
	const char *at;
	char *w = s;
	bool blank = false;
	size_t n;

	if (selection(s, &at, &n)) {
		memmove(s, at, n);
		s[n] = '\0';
		return;
	}
	pt_trim(s);
	for (char *r = s; *r; r++) {
		if (isspace((unsigned char)*r)) {
			blank = true;
			continue;
		}
		if (blank && w != s)
			*w++ = ' ';
		blank = false;
		*w++ = *r;
	}
	*w = '\0';
}

bool pt_value_eq(const char *a, const char *b)
{
	char x[PT_VAL], y[PT_VAL];

	if (!strcmp(a, b))
		return true;
	if (pt_snprintf(x, sizeof(x), "%s", a) < 0 || pt_snprintf(y, sizeof(y), "%s", b) < 0)
		return false;
	pt_normalize(x);
	pt_normalize(y);
	return !strcmp(x, y);
}

void pt_choices(const char *raw, char *out, size_t size)
{
	size_t o = 0;

	for (const char *p = raw; *p && o + 1 < size; p++) {
		if (*p == '[' || *p == ']')
			continue;
		if (isspace((unsigned char)*p)) {
			if (o && out[o - 1] != ' ')
				out[o++] = ' ';
			continue;
		}
		out[o++] = *p;
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

bool pt_choice_in(const char *raw, const char *word)
{
	char buf[PT_VAL], *save = NULL;

	pt_choices(raw, buf, sizeof(buf));
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (strcmp(t, word) == 0)
			return true;
	return false;
}

int pt_parse_ll(const char *s, long long *v)
{
	char *end;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int pt_parse_digits(const char *s, unsigned long max, unsigned long *v)
{
	unsigned long n = 0;

	/* strtoul would take a sign or leading spaces: "node+1", "proc.+5" */
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		n = n * 10 + (unsigned long)(*s - '0');
		if (n > max)
			return -ERANGE;
	}
	*v = n;
	return 0;
}

bool pt_value_ok(const char *v)
{
	size_t n = 0;

	for (; v[n]; n++)
		if (v[n] == '\n' || v[n] == '\r' || (iscntrl((unsigned char)v[n]) && v[n] != '\t'))
			return false;
	return n < PT_VAL;
}

int pt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return n;
}
