// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared/cpulist.c: the kernel's list syntax (keys), TuneD's (profile
 * functions), hex masks, and the lists and hex groups written back.  Tables
 * of input and the list each gives, and of bad input with its error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

/* the packed list of a mask, for comparing */
static const char *packed(const unsigned char *m)
{
	static char buf[8192];
	char *s = pt_cpus_list(m, "", true);

	ck_assert_ptr_nonnull(s);
	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	return buf;
}

/* ---- the kernel's syntax ---- */

static const struct {
	const char *in;
	int nbits, err;
	const char *list; /* packed, when err == 0 */
} kernel[] = {
	{ "0", 64, 0, "0" },
	{ "0-3,8", 64, 0, "0-3,8" },
	{ "8,0-3", 64, 0, "0-3,8" },
	{ "3-3", 64, 0, "3" },
	{ "1,1,1", 64, 0, "1" },
	{ "63", 64, 0, "63" },
	{ "8191", 8192, 0, "8191" },
	{ "0-8191", 8192, 0, "0-8191" },
	{ "", 64, -EINVAL, NULL },
	{ ",", 64, -EINVAL, NULL },
	{ "1,", 64, -EINVAL, NULL },
	{ ",1", 64, -EINVAL, NULL },
	{ "1,,2", 64, -EINVAL, NULL },
	{ "a", 64, -EINVAL, NULL },
	{ "1-", 64, -EINVAL, NULL },
	{ "-1", 64, -EINVAL, NULL },
	{ " 1", 64, -EINVAL, NULL },
	{ "+1", 64, -EINVAL, NULL },
	{ "1 ", 64, -EINVAL, NULL },
	{ "0x3", 64, -EINVAL, NULL },
	{ "^1", 64, -EINVAL, NULL },
	{ "3-1", 64, -ERANGE, NULL },
	{ "64", 64, -ERANGE, NULL },
	{ "0-64", 64, -ERANGE, NULL },
	{ "8192", 8192, -ERANGE, NULL },
	{ "99999999999999999999999", 64, -ERANGE, NULL },
};

START_TEST(kernel_syntax_parses_or_names_the_error)
{
	unsigned char m[PT_CPUS_BYTES];
	int r;

	memset(m, 0xaa, sizeof(m));
	r = pt_parse_cpulist(kernel[_i].in, m, kernel[_i].nbits);
	ck_assert_msg(r == kernel[_i].err, "'%s': %d, expected %d", kernel[_i].in, r, kernel[_i].err);
	if (r == 0) {
		/* bits past nbits were cleared too (the mask is nbits wide) */
		if (kernel[_i].nbits < PT_CPUS_MAX)
			memset(m + kernel[_i].nbits / 8, 0, sizeof(m) - (size_t)kernel[_i].nbits / 8);
		ck_assert_str_eq(packed(m), kernel[_i].list);
	}
}
END_TEST

START_TEST(kernel_list_round_trips_through_format)
{
	unsigned char m[PT_CPUS_BYTES], back[PT_CPUS_BYTES];
	char out[256];

	ck_assert_int_eq(pt_parse_cpulist("0-3,5,7-9,63", m, 64), 0);
	pt_format_cpulist(m, 64, out, sizeof(out));
	ck_assert_str_eq(out, "0-3,5,7-9,63");
	ck_assert_int_eq(pt_parse_cpulist(out, back, 64), 0);
	ck_assert_int_eq(memcmp(m, back, 8), 0);
	/* only the first nbits bits are written */
	pt_format_cpulist(m, 8, out, sizeof(out));
	ck_assert_str_eq(out, "0-3,5,7");
	memset(m, 0, sizeof(m));
	pt_format_cpulist(m, 64, out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(format_truncates_to_whole_items)
{
	unsigned char m[PT_CPUS_BYTES];
	char out[8];

	ck_assert_int_eq(pt_parse_cpulist("0-3,5,7-9,63", m, 64), 0);
	pt_format_cpulist(m, 64, out, sizeof(out)); /* "0-3,5,7-9,63" does not fit */
	ck_assert_str_eq(out, "0-3,5");
	pt_format_cpulist(m, 64, out, 4);
	ck_assert_str_eq(out, "0-3");
	pt_format_cpulist(m, 64, out, 3);
	ck_assert_str_eq(out, "");
}
END_TEST

/* ---- TuneD's syntax (cpulist_unpack) ---- */

static const struct {
	const char *in;
	int err;
	const char *list;
} tuned[] = {
	{ "0-3", 0, "0-3" },
	{ "0-3,^2", 0, "0-1,3" },
	{ "0-7,!2-5", 0, "0-1,6-7" },
	{ "^2,0-3", 0, "0-1,3" }, /* exclusions apply after everything */
	{ "'1,2'", 0, "1-2" },
	{ "\"4\"", 0, "4" },
	{ "1,,2", 0, "1-2" },
	{ ",", 0, "" },
	{ "", 0, "" },
	{ " 3", 0, "3" }, /* int() takes blanks */
	{ "0xf0", 0, "4-7" },
	{ "0x1,00000001", 0, "0,32" }, /* a mask spans commas */
	{ "0x1,,5", 0, "0,5" },	       /* ",," ends it */
	{ "0X3", 0, "0-1" },
	{ "8191", 0, "8191" },
	{ "8190-9000", -EINVAL, NULL }, /* past the mask: refused, never cut short */
	{ "8192", -EINVAL, NULL },
	{ "a", -EINVAL, NULL },
	{ "3-1", 0, "" }, /* Python's range(3, 2) is empty */
	/* issue 25: a mask no longer clears what came before it; blanks as int() takes them */
	{ "4-8,^6,0xf00,,!10-11", 0, "4-5,7-9" },
	{ "0x3,,0x4", 0, "0-2" },
	{ "1 ,2", 0, "1-2" },
	{ "1 - 3", 0, "1-3" },
	{ "0xf ", 0, "0-3" },
	{ "1-2-3", 0, "1-2" }, /* v.split("-"): the third part is ignored */
	{ "^1-2-3,0-5", 0, "0,3-5" },
	{ "+3", 0, "3" },
	{ "\t3\v", 0, "3" },
	{ "3\x1c", -EINVAL, NULL }, /* str.isspace(), but not int()'s blank (tuned-diff found it) */
	{ "1_0", -EINVAL, NULL }, /* Python's int() takes it: refused, not guessed */
	{ "\xd9\xa1", -EINVAL, NULL }, /* an Arabic-Indic digit one */
	{ "0x", -EINVAL, NULL },
	{ "0x-1", -EINVAL, NULL },
	{ "1'2", -EINVAL, NULL },
	{ "'1'\"", 0, "1" },
	{ "0x1_0", -EINVAL, NULL },
	{ "-1", -EINVAL, NULL },
	{ "1-", -EINVAL, NULL },
	{ "^x", -EINVAL, NULL },
	{ "0xfg", -EINVAL, NULL },
	{ "1 2", -EINVAL, NULL },
};

START_TEST(tuned_syntax_unpacks_like_tuned)
{
	unsigned char m[PT_CPUS_BYTES];
	char why[256] = "";
	int r = pt_cpus_parse(tuned[_i].in, m, why, sizeof(why));

	ck_assert_msg(r == tuned[_i].err, "'%s': %d, expected %d", tuned[_i].in, r, tuned[_i].err);
	if (r < 0) /* the reason names the item */
		ck_assert_msg(why[0] && strchr(why, '\''), "'%s': reason '%s'", tuned[_i].in, why);
	if (r == 0)
		ck_assert_str_eq(packed(m), tuned[_i].list);
}
END_TEST

START_TEST(lists_hex_groups_and_prefixes)
{
	unsigned char m[PT_CPUS_BYTES];
	char *s;

	ck_assert_int_eq(pt_cpus_parse("0-2,5,33", m, NULL, 0), 0);
	s = pt_cpus_list(m, "", false);
	ck_assert_str_eq(s, "0,1,2,5,33");
	free(s);
	s = pt_cpus_list(m, "cpu", false);
	ck_assert_str_eq(s, "cpu0,cpu1,cpu2,cpu5,cpu33");
	free(s);
	s = pt_cpus_list(m, "", true);
	ck_assert_str_eq(s, "0-2,5,33");
	free(s);
	s = pt_cpus_hexstr(m);
	ck_assert_str_eq(s, "00000002,00000027");
	free(s);
	memset(m, 0, sizeof(m));
	s = pt_cpus_hexstr(m);
	ck_assert_str_eq(s, "00000000");
	free(s);
	s = pt_cpus_list(m, "", true);
	ck_assert_str_eq(s, "");
	free(s);
	/* hex in, hex out */
	ck_assert_int_eq(pt_cpus_hex("0x00000002,00000027", m, NULL, 0), 0);
	ck_assert_str_eq(packed(m), "0-2,5,33");
	ck_assert_int_eq(pt_cpus_hex("0xzz", m, NULL, 0), -EINVAL);
	/* issue 25: hex2cpulist without "0x" keeps every digit, and every word */
	memset(m, 0, sizeof(m));
	ck_assert_int_eq(pt_cpus_hex("ff", m, NULL, 0), 0);
	ck_assert_str_eq(packed(m), "0-7");
	memset(m, 0, sizeof(m));
	ck_assert_int_eq(pt_cpus_hex("ff,ffffffff", m, NULL, 0), 0);
	ck_assert_str_eq(packed(m), "0-39");
	ck_assert_int_eq(pt_cpus_hex("-ff", m, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(set_and_has_stay_inside_the_mask)
{
	unsigned char m[PT_CPUS_BYTES] = { 0 };

	pt_cpus_set(m, -1, true);
	pt_cpus_set(m, PT_CPUS_MAX, true);
	ck_assert_str_eq(packed(m), "");
	ck_assert(!pt_cpus_has(m, -1));
	ck_assert(!pt_cpus_has(m, PT_CPUS_MAX));
	pt_cpus_set(m, 0, true);
	pt_cpus_set(m, PT_CPUS_MAX - 1, true);
	ck_assert(pt_cpus_has(m, 0) && pt_cpus_has(m, PT_CPUS_MAX - 1));
	pt_cpus_set(m, 0, false);
	ck_assert(!pt_cpus_has(m, 0));
	ck_assert_str_eq(packed(m), "8191");
}
END_TEST

/* pt_cpus_next: each set bit in order across byte and 64-bit word edges, none past @nbits */
static const struct {
	const char *list; /* the kernel's syntax; "" for none */
	int nbits;
	const char *walk; /* the bits visited from 0 on, "," separated */
	int from, at;	  /* the first bit at or after @from is @at (@nbits: none) */
} next[] = {
	{ "", PT_CPUS_MAX, "", 0, PT_CPUS_MAX },
	{ "0", PT_CPUS_MAX, "0", -5, 0 },
	{ "7-8,63-64,127,128", PT_CPUS_MAX, "7,8,63,64,127,128", 65, 127 },
	{ "8191", PT_CPUS_MAX, "8191", 1, 8191 },
	{ "0,4095,8190-8191", PT_CPUS_MAX, "0,4095,8190,8191", 4096, 8190 },
	/* only the first @nbits bits, also where @nbits ends inside a byte or a word */
	{ "3,9,70", 10, "3,9", 4, 9 },
	{ "3,60,70", 64, "3,60", 61, 64 },
	{ "5,66,100", 67, "5,66", 6, 66 },
	{ "63", 63, "", 0, 63 },
	/* the first bits of a word after an empty one */
	{ "64,200", PT_CPUS_MAX, "64,200", 65, 200 },
};

START_TEST(next_visits_every_set_bit_in_order)
{
	unsigned char m[PT_CPUS_BYTES] = { 0 };
	int nbits = next[_i].nbits;
	char walk[256] = "";
	size_t n = 0;

	if (next[_i].list[0])
		ck_assert_int_eq(pt_parse_cpulist(next[_i].list, m, PT_CPUS_MAX), 0);
	for (int i = pt_cpus_next(m, nbits, 0); i < nbits; i = pt_cpus_next(m, nbits, i + 1)) {
		ck_assert(pt_cpus_has(m, i));
		n += (size_t)snprintf(walk + n, sizeof(walk) - n, "%s%d", n ? "," : "", i);
	}
	ck_assert_str_eq(walk, next[_i].walk);
	ck_assert_int_eq(pt_cpus_next(m, nbits, next[_i].from), next[_i].at);
	ck_assert_int_eq(pt_cpus_next(m, nbits, nbits), nbits);
}
END_TEST

/* and on sparse masks of every density, for every @nbits ending in each bit of a word */
START_TEST(next_agrees_with_a_walk_bit_by_bit)
{
	unsigned char m[PT_CPUS_BYTES];
	unsigned seed = 12345u + (unsigned)_i;

	for (int density = 1; density <= 4096; density *= 8) {
		for (size_t b = 0; b < sizeof(m); b++) {
			m[b] = 0;
			for (int k = 0; k < 8; k++) {
				seed = seed * 1103515245u + 12345u;
				if ((seed >> 16) % (unsigned)density == 0)
					m[b] |= (unsigned char)(1u << k);
			}
		}
		for (int nbits = PT_CPUS_MAX - 64 + _i; nbits <= PT_CPUS_MAX; nbits += 64) {
			int got = pt_cpus_next(m, nbits, 0);
			for (int i = 0; i < nbits; i++) {
				if (!pt_cpus_has(m, i))
					continue;
				ck_assert_int_eq(got, i);
				got = pt_cpus_next(m, nbits, i + 1);
			}
			ck_assert_int_eq(got, nbits);
		}
	}
}
END_TEST

static Suite *cpulist_suite(void)
{
	Suite *s = suite_create("cpulist");
	TCase *tc = tcase_create("cpulist");

	tcase_add_loop_test(tc, kernel_syntax_parses_or_names_the_error, 0, (int)ARRAY_SIZE(kernel));
	tcase_add_test(tc, kernel_list_round_trips_through_format);
	tcase_add_test(tc, format_truncates_to_whole_items);
	tcase_add_loop_test(tc, tuned_syntax_unpacks_like_tuned, 0, (int)ARRAY_SIZE(tuned));
	tcase_add_test(tc, lists_hex_groups_and_prefixes);
	tcase_add_test(tc, set_and_has_stay_inside_the_mask);
	tcase_add_loop_test(tc, next_visits_every_set_bit_in_order, 0, (int)ARRAY_SIZE(next));
	tcase_add_loop_test(tc, next_agrees_with_a_walk_bit_by_bit, 0, 64);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	static Suite *(*const suites[])(void) = { cpulist_suite };

	return harness_main(argc, argv, suites, 1);
}
