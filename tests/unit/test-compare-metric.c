// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/experiment/metric-scan.c, perftune_metric_*'s (`compare --metric`'s) scanner: the capture of
 * the last match in the last line that matches, whatever the chunks the
 * output comes in; lines longer than the window; NUL bytes; the messages.
 * No kernel, no fake machine, no timing (tests/bench has the times).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metric-scan.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct result {
	int rc;
	double v;
	char why[200];
};

/* scan @len bytes of @out with @re in chunks of @chunk (0: at once), window @max */
static struct result scan(const char *re, const char *out, size_t len, size_t chunk, size_t max)
{
	struct result res = { 0 };
	struct pt_metric_scan s;
	regex_t rx;

	ck_assert_int_eq(regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE), 0);
	ck_assert_int_eq(pt_metric_scan_init(&s, &rx, max), 0);
	for (size_t off = 0; off < len;) {
		size_t n = chunk && chunk < len - off ? chunk : len - off;
		pt_metric_scan_feed(&s, out + off, n);
		off += n;
	}
	pt_metric_scan_end(&s);
	res.rc = pt_metric_scan_value(&s, re, &res.v, res.why, sizeof(res.why));
	if (res.rc < 0) /* which one: the cases' messages */
		res.rc = -1;
	pt_metric_scan_free(&s);
	regfree(&rx);
	return res;
}

static const struct {
	const char *name, *re, *out;
	size_t len; /* of @out, where it holds NUL bytes (else 0: strlen) */
	int rc;
	double v;
	const char *why;
} cases[] = {
	{ "last line wins", "result: ([0-9.]+)", "result: 1\nresult: 2.5\nother\n", 0, 0, 2.5,
	  NULL },
	{ "last match of the line", "a=([0-9])", "a=1\na=2 a=3 b=9\n", 0, 0, 3, NULL },
	{ "no newline at the end", "result: ([0-9]+)", "x\nresult: 42", 0, 0, 42, NULL },
	{ "anchors are the line's", "^t=([0-9]+)$", "xt=5\nt=6\nt=7 \n", 0, 0, 6, NULL },
	{ "NUL bytes in a line", "result: ([0-9]+)", "\0\0result: 4\0\n\0", 14, 0, 4, NULL },
	{ "CR is a character", "v=([0-9]+)\r$", "v=1\r\nv=2\n", 0, 0, 1, NULL },
	{ "matched nothing", "never-([0-9]+)", "result: 1\n", 0, -1, 0, "matched nothing" },
	{ "empty output", "([0-9]*)", "", 0, -1, 0, "matched nothing" },
	{ "group unused in the last line", "x([0-9])?", "x1\nx\n", 0, -1, 0,
	  "captured nothing in the last line it matched" },
	{ "not a number", "result: (.*)", "result: 1\nresult: abc\n", 0, -1, 0,
	  "captured 'abc', which is not a number" },
	{ "control characters shown as ?", "result: (.*)", "result: a\033[2Jb\n", 0, -1, 0,
	  "captured 'a?[2Jb'" },
	{ "a capture too long for a number", "n=([0-9]*)",
	  "n=1234567890123456789012345678901234567890123456789012345678901234567890\n", 0, -1, 0,
	  "...', which is not a number" },
};

START_TEST(scan_cases_at_once_and_byte_by_byte)
{
	const char *out = cases[_i].out;
	size_t len = cases[_i].len ? cases[_i].len : strlen(out);

	for (size_t chunk = 0; chunk <= 3; chunk++) {
		struct result r = scan(cases[_i].re, out, len, chunk, 0);
		ck_assert_msg(r.rc == cases[_i].rc, "%s, chunks of %zu: rc %d (%s)", cases[_i].name,
			      chunk, r.rc, r.why);
		if (r.rc == 0)
			ck_assert_msg(r.v == cases[_i].v, "%s: %g, want %g", cases[_i].name, r.v,
				      cases[_i].v);
		else
			ck_assert_msg(strstr(r.why, cases[_i].why), "%s: '%s'", cases[_i].name,
				      r.why);
	}
}
END_TEST

/* "v=<d>" at every position of lines far longer than a window of 256 bytes:
 * found where it lies, across window boundaries, in every chunking */
START_TEST(long_lines_find_a_match_anywhere)
{
	enum { LEN = 3000 };
	char *out = malloc(LEN + 1);

	for (size_t at = 0; at + 4 <= LEN; at += 7) {
		memset(out, 'x', LEN);
		memcpy(out + at, "v=12", 4);
		out[LEN] = '\n';
		for (size_t chunk = 0; chunk <= 300; chunk += 100) {
			struct result r = scan("v=([0-9]+)", out, LEN + 1, chunk, 256);
			ck_assert_msg(r.rc == 0 && r.v == 12, "v=12 at %zu, chunks of %zu: %s", at,
				      chunk, r.why);
		}
	}
	/* the last of several, and one anchored at the end of the long line */
	memset(out, 'x', LEN);
	for (int k = 1; k <= 9; k++) {
		memcpy(out + k * 290, "v=", 2);
		out[k * 290 + 2] = (char)('0' + k);
	}
	out[LEN] = '\n';
	ck_assert_double_eq(scan("v=([0-9])", out, LEN + 1, 0, 256).v, 9);
	memcpy(out + LEN - 4, "e=77", 4);
	ck_assert_double_eq(scan("e=([0-9]+)$", out, LEN + 1, 1, 256).v, 77);
	/* ^ is the line's start only, never a window's: with no match, the second
	 * window of 256 bytes starts at 240 (the first keeps 15/16 of it) */
	memset(out, 'x', LEN);
	memcpy(out + 240, "v=5", 3);
	ck_assert_double_eq(scan("v=([0-9])", out, LEN + 1, 0, 256).v, 5);
	ck_assert_int_eq(scan("^v=([0-9])", out, LEN + 1, 0, 256).rc, -1);
	ck_assert_double_eq(scan("^x*v=([0-9])", out, 243, 0, 256).v, 5);
	free(out);
}
END_TEST

/* a line past the window, then a short line that matches: the short one wins;
 * and a long line that matches after a short one */
START_TEST(long_and_short_lines_in_order)
{
	char out[2000];

	memset(out, 'y', sizeof(out));
	memcpy(out, "v=1\n", 4);
	memcpy(out + 500, "v=2", 3);
	memcpy(out + 1500, "\nv=3\n", 5);
	ck_assert_double_eq(scan("v=([0-9])", out, 1505, 0, 128).v, 3);
	ck_assert_double_eq(scan("v=([0-9])", out, 1500, 0, 128).v, 2);
	ck_assert_double_eq(scan("v=([0-9])", out, 1500, 13, 128).v, 2);
}
END_TEST

/* the 300,000 matching lines (42 s before: each match rescanned the
 * rest of the output): the last one's number */
START_TEST(many_matching_lines_last_one)
{
	size_t cap = 300000 * 16, n = 0;
	char *out = malloc(cap);

	for (int i = 0; i < 300000; i++)
		n += (size_t)snprintf(out + n, cap - n, "result: %d\n", i);
	ck_assert_double_eq(scan("result: ([0-9]+)", out, n, 0, 0).v, 299999);
	ck_assert_double_eq(scan("result: ([0-9]+)", out, n, 65536, 0).v, 299999);
	free(out);
}
END_TEST

static Suite *metric_suite(void)
{
	Suite *s = suite_create("compare-metric");
	TCase *tc = tcase_create("compare-metric");

	tcase_add_loop_test(tc, scan_cases_at_once_and_byte_by_byte, 0, (int)N_OF(cases));
	tcase_add_test(tc, long_lines_find_a_match_anywhere);
	tcase_add_test(tc, long_and_short_lines_in_order);
	tcase_add_test(tc, many_matching_lines_last_one);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(metric_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
