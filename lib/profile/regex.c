// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Profile regexes, read as TuneD reads them: Python's re.  PCRE2 speaks that
 * dialect (\d, \A, (?i), (?P<name>), lazy quantifiers, look-arounds) with
 * Unicode classes as Python's str patterns have them; the one spelling that
 * means something else is Python's \Z (PCRE2's \z).  A regex that does not
 * compile is an error naming it, never a branch; a match that backtracks past
 * a limit (Python would hang) is an error too.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <string.h>
#include "profile-internal.h"

#define MATCH_LIMIT 10000000

/* Python's \Z -> PCRE2's \z (outside character classes; Python refuses \Z in one) */
static char *translate(const char *re)
{
	struct pt_buf b = { 0 };
	bool cls = false;

	for (const char *c = re; *c; c++) {
		if (c[0] == '\\' && c[1]) {
			pt_buf_add(&b, !cls && c[1] == 'Z' ? "\\z" : c, 2);
			c++;
			continue;
		}
		if (!cls && *c == '[') {
			cls = true;
			pt_buf_add(&b, c, 1);
			if (c[1] == '^')
				pt_buf_add(&b, ++c, 1);
			if (c[1] == ']') /* a ']' first in a class is a literal */
				pt_buf_add(&b, ++c, 1);
			continue;
		}
		if (cls && *c == ']')
			cls = false;
		pt_buf_add(&b, c, 1);
	}
	return pt_buf_steal(&b);
}

static int compile(const char *re, bool multiline, pcre2_code **code, char **err)
{
	_cleanup_free_ char *x = translate(re);
	uint32_t opts = PCRE2_UTF | PCRE2_UCP | (multiline ? PCRE2_MULTILINE : 0);
	PCRE2_UCHAR msg[160];
	PCRE2_SIZE off;
	int e;

#ifdef PCRE2_MATCH_INVALID_UTF
	opts |= PCRE2_MATCH_INVALID_UTF;
#endif
	if (!x)
		return -ENOMEM;
	*code = pcre2_compile((PCRE2_SPTR)x, PCRE2_ZERO_TERMINATED, opts, &e, &off, NULL);
	if (*code)
		return 0;
	pcre2_get_error_message(e, msg, sizeof(msg));
	if (asprintf(err, "regex '%s' does not compile: %s (at offset %zu)", re, (char *)msg,
		     (size_t)off) < 0)
		return -ENOMEM;
	return -EINVAL;
}

/* the first match of @code in @text at or after @start: 1 (its bounds in @ov), 0, -errno */
static int match(const pcre2_code *code, const char *re, const char *text, size_t start,
		 pcre2_match_data *md, char **err)
{
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	int r;

	if (!mc)
		return -ENOMEM;
	pcre2_set_match_limit(mc, MATCH_LIMIT);
	r = pcre2_match(code, (PCRE2_SPTR)text, strlen(text), start, 0, md, mc);
	pcre2_match_context_free(mc);
	if (r >= 0)
		return 1;
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	if (asprintf(err, "regex '%s' cannot be matched (%s)", re,
		     r == PCRE2_ERROR_MATCHLIMIT ? "it backtracks past the match limit"
						 : "the text is not UTF-8") < 0)
		return -ENOMEM;
	return -EINVAL;
}

int pt_regex_search(const char *re, const char *text, bool multiline, char **err)
{
	pcre2_code *code = NULL;
	pcre2_match_data *md;
	int r;

	*err = NULL;
	r = compile(re, multiline, &code, err);
	if (r < 0)
		return r;
	md = pcre2_match_data_create_from_pattern(code, NULL);
	r = md ? match(code, re, text, 0, md, err) : -ENOMEM;
	pcre2_match_data_free(md);
	pcre2_code_free(code);
	return r;
}

char **pt_regex_split(const char *re, const char *text)
{
	pcre2_code *code = NULL;
	pcre2_match_data *md = NULL;
	_cleanup_free_ char *err = NULL;
	char **v = NULL;
	size_t n = 0, from = 0, at = 0, len = strlen(text);
	int r = compile(re, false, &code, &err);

	if (r == 0 && !(md = pcre2_match_data_create_from_pattern(code, NULL)))
		r = -ENOMEM;
	while (r == 0 && (r = match(code, re, text, at, md, &err)) == 1) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		_cleanup_free_ char *piece = strndup(text + from, ov[0] - from);
		if (!piece || !pt_strv_add(&v, &n, piece))
			r = -ENOMEM;
		else
			r = 0;
		from = ov[1];
		/* an empty match splits there and moves one character on (Python 3.7) */
		at = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
		if (at > len)
			break;
	}
	if (r >= 0 && !pt_strv_add(&v, &n, text + from))
		r = -ENOMEM;
	pcre2_match_data_free(md);
	pcre2_code_free(code);
	if (r < 0) {
		pt_strv_free(v);
		return NULL;
	}
	return v;
}
