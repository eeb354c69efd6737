// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Profile regexes, read as TuneD reads them: Python's re.  PCRE2 speaks that
 * dialect (\d, \A, (?i), (?P<name>), lazy quantifiers, look-arounds) with
 * Unicode classes as Python's str patterns have them; translate() rewrites
 * the few spellings that differ and refuses what Python refuses.  A regex that does not
 * compile is an error naming it, never a branch; a match that backtracks past
 * a limit (Python would hang) is an error too.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "profile-internal.h"
#include "shared/dlopen.h"

/* PCRE2's default; the fuzz targets build with a lower one (tests/fuzz/meson.build) */
#ifndef PT_REGEX_MATCH_LIMIT
#define PT_REGEX_MATCH_LIMIT 10000000
#endif

/* the escapes Python's re knows (a letter after '\' that is none of them is an error there) */
static bool py_escape(char c, bool cls)
{
	if (!isalpha((unsigned char)c))
		return true;
	return strchr(cls ? "dDsSwWabfnrtvxuUN" : "AbBdDsSwWZafnrtvxuUN", c) != NULL;
}

/* "(?flags)" at @c: its length, 0 if @c does not start one */
static size_t global_flags(const char *c)
{
	size_t n = 2;

	if (strncmp(c, "(?", 2))
		return 0;
	while (c[n] && strchr("aiLmsux", c[n]))
		n++;
	return n > 2 && c[n] == ')' ? n + 1 : 0;
}

struct groups {
	bool open_capturing[64]; /* per open '(' */
	int depth, closed;	 /* capturing groups closed so far */
	const char *name[32];	 /* named groups closed so far ("n>" in the pattern) */
	int nnames;
	const char *open_name[64];
};

/* '(' and ')' as Python's re counts groups; a reference must name a closed one */
static const char *group(struct groups *g, const char *c)
{
	if (*c == '(') {
		if (g->depth == 64)
			return "more than 64 nested groups";
		g->open_capturing[g->depth] = c[1] != '?' || !strncmp(c, "(?P<", 4);
		g->open_name[g->depth++] = !strncmp(c, "(?P<", 4) ? c + 4 : NULL;
		return NULL;
	}
	if (!g->depth)
		return NULL; /* unbalanced: PCRE2 says so */
	g->depth--;
	g->closed += g->open_capturing[g->depth];
	if (g->open_name[g->depth] && g->nnames < 32)
		g->name[g->nnames++] = g->open_name[g->depth];
	return NULL;
}

static const char *reference(const struct groups *g, const char *c)
{
	if (!strncmp(c, "(?P=", 4)) {
		size_t n = strcspn(c + 4, ")");
		for (int i = 0; i < g->nnames; i++)
			if (!strncmp(g->name[i], c + 4, n) && g->name[i][n] == '>')
				return NULL;
		return "unknown group name (or a group not closed yet)";
	}
	if (c[0] == '\\' && c[1] >= '1' && c[1] <= '9' &&
	    !(isdigit((unsigned char)c[2]) && isdigit((unsigned char)c[3]))) {
		int n = isdigit((unsigned char)c[2]) ? (c[1] - '0') * 10 + c[2] - '0' : c[1] - '0';
		return n > g->closed ? "invalid group reference (or a group not closed yet)" : NULL;
	}
	return NULL;
}

/*
 * Python's re syntax in PCRE2's: \Z -> \z, \v -> \x0b, \uXXXX and
 * \UXXXXXXXX -> \x{...}, {,n} -> {0,n}, '[' ':' '.' '=' inside a class
 * literals (Python has no [:alpha:]); what Python refuses (unknown escapes,
 * \x without two hex digits, global flags not at the start, PCRE2-only groups
 * and verbs, a reference to a group not closed yet) refused with Python's
 * reason.  NULL and *@err, or the translation.
 */
static char *translate(const char *re, char **err)
{
	struct pt_buf b = { 0 };
	struct groups g = { .depth = 0 };
	bool cls = false, start = true;
	const char *why = NULL;

	for (const char *c = re; *c && !why; c++) {
		size_t f = cls ? 0 : global_flags(c);
		if (!cls && !strncmp(c, "(?#", 3) && strchr(c, ')')) { /* a comment, even first */
			pt_buf_add(&b, c, (size_t)(strchr(c, ')') - c + 1));
			c = strchr(c, ')');
			continue;
		}
		if (f) {
			if (!start)
				why = "global flags not at the start of the expression";
			else if (c[strcspn(c, "aLu)")] != ')')
				why = "flags a, L, u are not supported";
			pt_buf_add(&b, c, f);
			c += f - 1;
			continue;
		}
		start = false;
		if (!cls && (why = reference(&g, c)))
			break;
		if (c[0] == '\\') {
			if (!c[1]) {
				why = "bad escape (end of pattern)";
			} else if (!py_escape(c[1], cls)) {
				why = "bad escape";
			} else if (c[1] == 'Z') {
				pt_buf_puts(&b, "\\z");
			} else if (c[1] == 'v') {
				pt_buf_puts(&b, "\\x0b");
			} else if (c[1] == 'x' && (!isxdigit((unsigned char)c[2]) ||
						   !isxdigit((unsigned char)c[3]))) {
				why = "incomplete escape \\x (two hexadecimal digits)";
			} else if (c[1] == 'N') {
				why = "\\N{...} (a character by its name) is not supported";
			} else if (c[1] == 'u' || c[1] == 'U') {
				size_t n = c[1] == 'u' ? 4 : 8;
				if (strspn(c + 2, "0123456789abcdefABCDEF") < n) {
					why = "incomplete escape \\u or \\U";
				} else {
					pt_buf_printf(&b, "\\x{%.*s}", (int)n, c + 2);
					c += n;
				}
			} else {
				pt_buf_add(&b, c, 2);
			}
			c++;
			continue;
		}
		if (cls) {
			if (*c == ']')
				cls = false;
			if (strchr("[:.=", *c)) /* Python has no [:class:], [.x.], [=x=]: literals */
				pt_buf_printf(&b, "\\%c", *c);
			else
				pt_buf_add(&b, c, 1);
			continue;
		}
		if (*c == '[') {
			cls = true;
			pt_buf_add(&b, c, 1);
			if (c[1] == '^')
				pt_buf_add(&b, ++c, 1);
			if (c[1] == ']') { /* a ']' first in a class is a literal */
				pt_buf_puts(&b, "\\]");
				c++;
			}
			continue;
		}
		if ((*c == '(' || *c == ')') && (why = group(&g, c)))
			break;
		if (c[0] == '(' && c[1] == '*') {
			why = "nothing to repeat";
		} else if (c[0] == '(' && c[1] == '?' &&
			   !strchr(":=!#(>P<-aiLmsux", c[2] ? c[2] : '?')) {
			why = "unknown extension";
		} else if (c[0] == '(' && c[1] == '?' && c[2] == '<' && c[3] != '=' && c[3] != '!') {
			why = "unknown extension ?<";
		} else if (c[0] == '{' && c[1] == ',' && isdigit((unsigned char)c[2]) &&
			   c[2 + strspn(c + 2, "0123456789")] == '}') {
			pt_buf_puts(&b, "{0");
			continue;
		}
		pt_buf_add(&b, c, 1);
	}
	if (why) {
		free(b.s);
		if (asprintf(err, "regex '%s' does not compile: %s (Python's re)", re, why) < 0)
			*err = NULL;
		return NULL;
	}
	return pt_buf_steal(&b);
}

static int compile(const char *re, bool multiline, pcre2_code **code, char **err)
{
	_cleanup_free_ char *x = translate(re, err);
	/* Python's ^ with re.MULTILINE also matches after a newline that ends the text */
	uint32_t opts =
		PCRE2_UTF | PCRE2_UCP | (multiline ? PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX : 0);
	PCRE2_UCHAR msg[160];
	PCRE2_SIZE off;
	int e;

#ifdef PCRE2_MATCH_INVALID_UTF
	opts |= PCRE2_MATCH_INVALID_UTF;
#endif
	if (!x)
		return *err ? -EINVAL : -ENOMEM;
	if (pt_dl_load(PT_DL_PCRE2) < 0) { /* perftune_profile_load() said so first */
		if (asprintf(err, "regex '%s': %s is not installed", re,
			     pt_dl_soname(PT_DL_PCRE2)) < 0)
			return -ENOMEM;
		return -EOPNOTSUPP;
	}
	*code = pt_libpcre2.pcre2_compile((PCRE2_SPTR)x, PCRE2_ZERO_TERMINATED, opts, &e, &off,
					  NULL);
	if (*code)
		return 0;
	pt_libpcre2.pcre2_get_error_message(e, msg, sizeof(msg));
	if (asprintf(err, "regex '%s' does not compile: %s (at offset %zu)", re, (char *)msg,
		     (size_t)off) < 0)
		return -ENOMEM;
	return -EINVAL;
}

/* the first match of @code in @text at or after @start: 1 (its bounds in @ov), 0, -errno */
static int match(const pcre2_code *code, const char *re, const char *text, size_t start,
		 pcre2_match_data *md, char **err)
{
	pcre2_match_context *mc = pt_libpcre2.pcre2_match_context_create(NULL);
	int r;

	if (!mc)
		return -ENOMEM;
	pt_libpcre2.pcre2_set_match_limit(mc, PT_REGEX_MATCH_LIMIT);
	r = pt_libpcre2.pcre2_match(code, (PCRE2_SPTR)text, strlen(text), start, 0, md, mc);
	pt_libpcre2.pcre2_match_context_free(mc);
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
	md = pt_libpcre2.pcre2_match_data_create_from_pattern(code, NULL);
	r = md ? match(code, re, text, 0, md, err) : -ENOMEM;
	pt_libpcre2.pcre2_match_data_free(md);
	pt_libpcre2.pcre2_code_free(code);
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

	if (r == 0 && !(md = pt_libpcre2.pcre2_match_data_create_from_pattern(code, NULL)))
		r = -ENOMEM;
	while (r == 0 && (r = match(code, re, text, at, md, &err)) == 1) {
		PCRE2_SIZE *ov = pt_libpcre2.pcre2_get_ovector_pointer(md);
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
	pt_libpcre2.pcre2_match_data_free(md);
	pt_libpcre2.pcre2_code_free(code);
	if (r < 0) {
		pt_strv_free(v);
		return NULL;
	}
	return v;
}
