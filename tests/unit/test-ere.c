// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared/ere.c: a POSIX extended regex in PCRE2's syntax where PCRE2 is too
 * old to convert it (10.32, RHEL 8).  Each case says what the converter
 * writes, byte for byte as PCRE2 10.34's pcre2_pattern_convert() does; where
 * that function is here (Debian 12's 10.42), every string of up to four
 * characters of a regex's alphabet is converted by both and compared.
 */
#include <check.h>
#include <string.h>
#include "lib-all.h"
#include "shared/dlopen.h"
#include "shared/ere.h"

static const struct {
	const char *re, *want; /* want NULL: the error code */
	int err;
} cases[] = {
	{ "^qemu", "(*NUL)^qemu", 0 },
	{ "p+$", "(*NUL)p+$", 0 },
	{ "a\\d", "(*NUL)ad", 0 },	      /* '\' takes the next character: no \d in ERE */
	{ "\\.\\*\\(", "(*NUL)\\.\\*\\(", 0 }, /* metacharacters taken literally stay so */
	{ "[\\]", "(*NUL)[\\\\]", 0 },	      /* in brackets, a backslash is one */
	{ "a)b", "(*NUL)a\\)b", 0 },	      /* a ')' without its '(' is literal */
	{ "(a|b)*", "(*NUL)(a|b)*", 0 },
	{ "a**b", "(*NUL)a*b", 0 }, /* "**" is one '*' */
	{ "x]", "(*NUL)x\\]", 0 },
	{ "[]a]", "(*NUL)[]a]", 0 }, /* a first ']' is in the bracket */
	{ "[^]a]", "(*NUL)[^]a]", 0 },
	{ "[[:digit:]]+", "(*NUL)[[:digit:]]+", 0 },
	{ "[[:alpha:]_-]", "(*NUL)[[:alpha:]_-]", 0 },
	{ "[[:alpha]]", "(*NUL)[[:alpha]\\]", 0 }, /* no class: the bracket ends at the first ']' */
	{ "[[.a.]]", "(*NUL)[[.a.]\\]", 0 },
	{ "[a[b]", "(*NUL)[a[b]", 0 },
	{ "a{2}.c", "(*NUL)a{2}.c", 0 },
	{ "*a", "(*NUL)*a", 0 },
	{ "\xc3\xa9?", "(*NUL)\xc3\xa9?", 0 }, /* bytes as they are */
	{ "a\\", NULL, PCRE2_ERROR_END_BACKSLASH },
	{ "[ab", NULL, PCRE2_ERROR_MISSING_SQUARE_BRACKET },
	{ "[[:alpha:]", NULL, PCRE2_ERROR_MISSING_SQUARE_BRACKET },
};

START_TEST(converter_writes_what_pcre2_10_34_writes)
{
	char *x = NULL;
	int e = pt_ere_to_pcre2(cases[_i].re, &x);

	ck_assert_msg(e == cases[_i].err, "'%s': error %d, want %d", cases[_i].re, e,
		      cases[_i].err);
	if (cases[_i].want)
		ck_assert_str_eq(x, cases[_i].want);
	else
		ck_assert_ptr_null(x);
	free(x);
}
END_TEST

/* @re converted by both: the same code and the same bytes */
static void same_as_pcre2(const char *re)
{
	PCRE2_UCHAR *px = NULL;
	PCRE2_SIZE n = 0;
	char *x = NULL;
	int pe = pt_libpcre2.pcre2_pattern_convert((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
						   PCRE2_CONVERT_POSIX_EXTENDED, &px, &n, NULL);
	int e = pt_ere_to_pcre2(re, &x);

	ck_assert_msg(e == pe, "'%s': error %d, PCRE2 says %d", re, e, pe);
	if (!e)
		ck_assert_msg(!strcmp(x, (const char *)px), "'%s': '%s', PCRE2 writes '%s'", re, x,
			      (const char *)px);
	pt_libpcre2.pcre2_converted_pattern_free(px);
	free(x);
}

START_TEST(converter_agrees_with_pcre2_on_every_short_regex)
{
	static const char alpha[] = "a\\[]()^:*|.-{}";
	const size_t k = sizeof(alpha) - 1;
	char re[5];
	size_t tried = 0;

	if (pt_dl_load(PT_DL_PCRE2) < 0 || !pt_libpcre2.pcre2_pattern_convert) {
		fprintf(stderr, "no pcre2_pattern_convert here (PCRE2 < 10.34): the table only\n");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		same_as_pcre2(cases[i].re);
	for (size_t len = 1; len <= 4; len++) {
		size_t total = 1;
		for (size_t j = 0; j < len; j++)
			total *= k;
		for (size_t m = 0; m < total; m++, tried++) {
			size_t v = m;
			for (size_t j = 0; j < len; j++, v /= k)
				re[j] = alpha[v % k];
			re[len] = '\0';
			same_as_pcre2(re);
		}
	}
	ck_assert_uint_gt(tried, 40000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ere");
	TCase *tc = tcase_create("ere");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, converter_writes_what_pcre2_10_34_writes, 0, ARRAY_SIZE(cases));
	tcase_add_test(tc, converter_agrees_with_pcre2_on_every_short_regex);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
