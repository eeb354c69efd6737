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
#include <pcre2.h>
#include <stdio.h>
#include <string.h>
#include "macro.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "shared/dlopen.h"
#include "shared/ere.h"
#include "profile/regex.h"
#include "profile-internal.h"

/*
 * Bounds on every regex, from a profile or a key's selector (issue 33: a counted
 * repetition nested three deep took 1.2 GB and 5.7 s to compile with regcomp): its
 * length, the nesting of its groups, the memory PCRE2 may take compiling it (a
 * counting allocator: on any PCRE2 build, whatever its link size), and in a match the
 * backtracking steps and the heap of backtracking frames.
 */
/* PCRE2's default; the fuzz targets build with a lower one (tests/fuzz/meson.build) */
#ifndef PT_REGEX_MATCH_LIMIT
#define PT_REGEX_MATCH_LIMIT 10000000
#endif
#define MATCH_LIMIT PT_REGEX_MATCH_LIMIT
#define SELECTOR_MATCH_LIMIT 100000 /* a process name has 15 bytes: a selector needs few */
#define MAX_PATTERN 4096	    /* bytes: a profile value's limit */
#define PARENS_NEST 64		    /* as translate() counts them */
#define COMPILE_MEMORY (1 << 20)    /* bytes PCRE2 may hold for one compiled regex */
#define HEAP_LIMIT_KIB 65536	    /* backtracking frames of one match */

/* PCRE2's allocations for one regex, counted against COMPILE_MEMORY */
struct budget {
	size_t used;
};

static void *budget_malloc(PCRE2_SIZE size, void *data)
{
	struct budget *b = data;
	size_t *p;

	if (size > COMPILE_MEMORY - b->used || !(p = malloc(sizeof(size_t) * 2 + size)))
		return NULL;
	b->used += size;
	p[0] = size;
	return p + 2;
}

static void budget_free(void *ptr, void *data)
{
	struct budget *b = data;
	size_t *p = ptr;

	if (!p)
		return;
	b->used -= p[-2];
	free(p - 2);
}

/* @x compiled with @opts within the bounds, its memory counted in @b; NULL and *@e */
static pcre2_code *bounded_compile(const char *x, uint32_t opts, struct budget *b, int *e,
				   PCRE2_SIZE *off)
{
	pcre2_general_context *gc =
		pt_libpcre2.pcre2_general_context_create(budget_malloc, budget_free, b);
	pcre2_compile_context *cc = NULL;
	pcre2_code *code = NULL;

	if (gc)
		cc = pt_libpcre2.pcre2_compile_context_create(gc);
	*e = PCRE2_ERROR_NOMEMORY;
	*off = 0;
	if (cc) {
		pt_libpcre2.pcre2_set_max_pattern_length(cc, MAX_PATTERN);
		pt_libpcre2.pcre2_set_parens_nest_limit(cc, PARENS_NEST);
		code = pt_libpcre2.pcre2_compile((PCRE2_SPTR)x, PCRE2_ZERO_TERMINATED, opts, e, off,
						 cc);
	}
	pt_libpcre2.pcre2_compile_context_free(cc);
	pt_libpcre2.pcre2_general_context_free(gc); /* the code keeps a copy of its allocator */
	return code;
}

/* PCRE2 cannot be opened (dlopen): -EOPNOTSUPP, the library named in *@err */
static int not_installed(const char *re, char **err)
{
	if (asprintf(err, "regex '%s': %s is not installed", re, pt_dl_soname(PT_DL_PCRE2)) < 0)
		return -ENOMEM;
	return -EOPNOTSUPP;
}

/* a compile error's text: PCRE2's, or the bound it hit */
static int compile_error(const char *re, int e, PCRE2_SIZE off, char **err)
{
	PCRE2_UCHAR msg[160];

	if (e == PCRE2_ERROR_NOMEMORY || e == PCRE2_ERROR_HEAPLIMIT)
		snprintf((char *)msg, sizeof(msg),
			 "it needs more than %d KiB to compile (the bound of a regex)",
			 COMPILE_MEMORY / 1024);
	else
		pt_libpcre2.pcre2_get_error_message(e, msg, sizeof(msg));
	if (asprintf(err, "regex '%s' does not compile: %s (at offset %zu)", re, (char *)msg,
		     (size_t)off) < 0)
		return -ENOMEM;
	return -EINVAL;
}

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
	if (n > 2 && c[n] == ')')
		return n + 1;
	return 0;
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
		if (n > g->closed)
			return "invalid group reference (or a group not closed yet)";
		return NULL;
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
		size_t f = 0;
		if (!cls)
			f = global_flags(c);
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

static int compile(const char *re, bool multiline, struct budget *b, pcre2_code **code, char **err)
{
	_cleanup_free_ char *x = translate(re, err);
	/* Python's ^ with re.MULTILINE also matches after a newline that ends the text */
	uint32_t opts =
		PCRE2_UTF | PCRE2_UCP | (multiline ? PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX : 0);
	PCRE2_SIZE off;
	int e;

#ifdef PCRE2_MATCH_INVALID_UTF
	opts |= PCRE2_MATCH_INVALID_UTF;
#endif
	if (!x) {
		if (*err)
			return -EINVAL;
		return -ENOMEM;
	}
	if (pt_dl_load(PT_DL_PCRE2) < 0) /* perftune_profile_load() said so first */
		return not_installed(re, err);
	*code = bounded_compile(x, opts, b, &e, &off);
	if (*code)
		return 0;
	return compile_error(re, e, off, err);
}

/* the first match of @code in @text at or after @start within @limit steps: 1 (its bounds
 * in @md), 0, -errno */
static int match(const pcre2_code *code, const char *re, const char *text, size_t start,
		 uint32_t limit, pcre2_match_data *md, char **err)
{
	pcre2_match_context *mc = pt_libpcre2.pcre2_match_context_create(NULL);
	const char *why;
	int r;

	if (!mc)
		return -ENOMEM;
	pt_libpcre2.pcre2_set_match_limit(mc, limit);
	pt_libpcre2.pcre2_set_heap_limit(mc, HEAP_LIMIT_KIB);
	r = pt_libpcre2.pcre2_match(code, (PCRE2_SPTR)text, strlen(text), start, 0, md, mc);
	pt_libpcre2.pcre2_match_context_free(mc);
	if (r >= 0)
		return 1;
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	if (r == PCRE2_ERROR_MATCHLIMIT)
		why = "it backtracks past the match limit";
	else if (r == PCRE2_ERROR_HEAPLIMIT || r == PCRE2_ERROR_NOMEMORY)
		why = "its backtracking needs more memory than the bound of a match";
	else
		why = "the text is not UTF-8";
	if (asprintf(err, "regex '%s' cannot be matched (%s)", re, why) < 0)
		return -ENOMEM;
	return -EINVAL;
}

int pt_regex_search(const char *re, const char *text, bool multiline, char **err)
{
	struct budget b = { 0 };
	pcre2_code *code = NULL;
	pcre2_match_data *md;
	int r;

	*err = NULL;
	r = compile(re, multiline, &b, &code, err);
	if (r < 0)
		return r;
	md = pt_libpcre2.pcre2_match_data_create_from_pattern(code, NULL);
	r = -ENOMEM;
	if (md)
		r = match(code, re, text, 0, MATCH_LIMIT, md, err);
	pt_libpcre2.pcre2_match_data_free(md);
	pt_libpcre2.pcre2_code_free(code);
	return r;
}

char **pt_regex_split(const char *re, const char *text)
{
	struct budget b = { 0 };
	pcre2_code *code = NULL;
	pcre2_match_data *md = NULL;
	_cleanup_free_ char *err = NULL;
	char **v = NULL;
	size_t n = 0, from = 0, at = 0, len = strlen(text);
	int r = compile(re, false, &b, &code, &err);

	if (r == 0 && !(md = pt_libpcre2.pcre2_match_data_create_from_pattern(code, NULL)))
		r = -ENOMEM;
	while (r == 0 && (r = match(code, re, text, at, MATCH_LIMIT, md, &err)) == 1) {
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

/* ---- selectors: a key's POSIX extended regex (proc[<regex>]), PCRE2 within the bounds ---- */

struct pt_regex {
	struct budget b; /* before code: its allocator's data while it lives */
	pcre2_code *code;
	pcre2_match_data *md;
	char *re;
};

/*
 * ERE as POSIX has it ("[\]" a backslash, no \d) in PCRE2's syntax, into *@x
 * (malloc'd): 0 or a PCRE2 error code.  PCRE2 converts it from 10.34 on;
 * before (RHEL 8's 10.32), shared/ere.c writes what it would.
 */
static int ere_convert(const char *re, char **x)
{
	PCRE2_UCHAR *c = NULL;
	PCRE2_SIZE n = 0;
	int e;

	if (!pt_libpcre2.pcre2_pattern_convert)
		return pt_ere_to_pcre2(re, x);
	e = pt_libpcre2.pcre2_pattern_convert((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
					      PCRE2_CONVERT_POSIX_EXTENDED, &c, &n, NULL);
	if (e == 0 && !(*x = strdup((const char *)c)))
		e = PCRE2_ERROR_NOMEMORY;
	pt_libpcre2.pcre2_converted_pattern_free(c);
	return e;
}

int pt_regex_new(const char *re, struct pt_regex **out, char **err)
{
	struct pt_regex *rx = calloc(1, sizeof(*rx));
	char *x = NULL;
	PCRE2_SIZE off = 0;
	int e, r = -ENOMEM;

	*err = NULL;
	if (!rx || !(rx->re = strdup(re)))
		goto fail;
	if (pt_dl_load(PT_DL_PCRE2) < 0) {
		r = not_installed(re, err);
		goto fail;
	}
	if (strlen(re) > MAX_PATTERN)
		e = PCRE2_ERROR_PATTERN_TOO_LARGE;
	else
		e = ere_convert(re, &x);
	if (e == 0)
		rx->code = bounded_compile(x, 0, &rx->b, &e, &off);
	free(x);
	if (!rx->code) {
		r = compile_error(re, e, off, err);
		goto fail;
	}
	if (!(rx->md = pt_libpcre2.pcre2_match_data_create_from_pattern(rx->code, NULL)))
		goto fail;
	*out = rx;
	return 0;
fail:
	pt_regex_free(rx);
	return r;
}

int pt_regex_match(struct pt_regex *rx, const char *text, char **err)
{
	*err = NULL;
	return match(rx->code, rx->re, text, 0, SELECTOR_MATCH_LIMIT, rx->md, err);
}

void pt_regex_free(struct pt_regex *rx)
{
	if (!rx)
		return;
	pt_libpcre2.pcre2_match_data_free(rx->md);
	pt_libpcre2.pcre2_code_free(rx->code);
	free(rx->re);
	free(rx);
}
