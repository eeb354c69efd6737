// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * POSIX extended regexes (a key's proc[<regex>]) in PCRE2's syntax, as
 * pcre2_pattern_convert() writes them from PCRE2 10.34 on: RHEL 8's 10.32
 * has no such function.  The same output, so that a selector means one thing
 * on either: "(*NUL)" first (no newline convention: '$' is the end, '.' any
 * byte), a '\' takes the next character literally ("\d" is "d"), a bracket
 * is copied with its '\' made literal ("[\]" is a backslash) and its
 * "[:class:]" names kept, a ')' without its '(' is literal, "**" is '*'.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "shared/ere.h"

/* where a character of a bracket expression is: PCRE2's POSIX_CLASS_* states */
enum class_state {
	OUTSIDE,
	IN_CLASS,   /* POSIX_CLASS_NOT_STARTED */
	CLASS_OPEN, /* a '[' inside: "[:" may start a class name */
	CLASS_NAME, /* in "[:name" */
};

/* one character @c inside a bracket (after its '[', '^' and first ']'); @r at the next */
static const char *in_class(const char *r, char c, enum class_state *st, char **w)
{
	if (c == ']') {
		*(*w)++ = ']';
		*st = OUTSIDE;
		return r;
	}
	switch (*st) {
	case CLASS_NAME:
		if (c >= 'a' && c <= 'z')
			break;
		*st = IN_CLASS;
		if (c == ':' && *r == ']') {
			*(*w)++ = ':';
			*(*w)++ = ']';
			return r + 1;
		}
		/* fall through */
	case IN_CLASS:
		if (c == '[')
			*st = CLASS_OPEN;
		break;
	case CLASS_OPEN:
		if (c == ':')
			*st = CLASS_NAME;
		break;
	case OUTSIDE:
		break;
	}
	if (c == '\\')
		*(*w)++ = '\\';
	*(*w)++ = c;
	return r;
}

int pt_ere_to_pcre2(const char *re, char **out)
{
	static const char literal[] = "\\?*+|.^${}[]()"; /* escaped where taken literally */
	char *o = malloc(sizeof("(*NUL)") + 2 * strlen(re)), *w = o;
	enum class_state st = OUTSIDE;
	unsigned parens = 0;
	char last = 0; /* the last special character copied ('*': a second one is dropped) */

	*out = NULL;
	if (!o)
		return PCRE2_ERROR_NOMEMORY;
	w = stpcpy(w, "(*NUL)");
	for (const char *r = re; *r;) {
		char c = *r++;
		bool lit = false;
		if (st != OUTSIDE) {
			r = in_class(r, c, &st, &w);
			continue;
		}
		if (c == '\\') {
			if (!*r) {
				free(o);
				return PCRE2_ERROR_END_BACKSLASH;
			}
			c = *r++;
			lit = true;
		}
		if (lit || c == ']' || (c == ')' && !parens)) {
			if (strchr(literal, c))
				*w++ = '\\';
			*w++ = c;
			last = 0;
		} else if (c == '[') {
			*w++ = '[';
			st = IN_CLASS;
			if (*r == '^')
				*w++ = *r++;
			if (*r == ']')
				*w++ = *r++;
		} else if (c == '*' && last == '*') {
			continue;
		} else {
			parens += c == '(';
			parens -= c == ')';
			if (strchr(literal, c))
				last = c;
			else
				last = 0;
			*w++ = c;
		}
	}
	if (st != OUTSIDE) {
		free(o);
		return PCRE2_ERROR_MISSING_SQUARE_BRACKET;
	}
	*w = '\0';
	*out = o;
	return 0;
}
