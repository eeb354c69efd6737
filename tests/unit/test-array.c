// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared/array.c and shared/buf.c: growable arrays, string vectors and the
 * string buffer every part of the library builds its lists and texts with.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

struct pair {
	int a;
	long b;
};

START_TEST(grow_keeps_elements_and_doubles_from_first)
{
	struct pair *v = NULL;
	size_t n = 0, cap = 0;

	for (int i = 0; i < 1000; i++) {
		ck_assert_int_eq(pt_grow(&v, &cap, n + 1, 8), 0);
		ck_assert_uint_ge(cap, n + 1);
		v[n++] = (struct pair){ i, -i };
	}
	/* 8 doubled up to the first power of two times 8 past 1000 */
	ck_assert_uint_eq(cap, 1024);
	for (size_t i = 0; i < n; i++)
		ck_assert(v[i].a == (int)i && v[i].b == -(long)i);
	free(v);
}
END_TEST

START_TEST(grow_with_room_left_changes_nothing)
{
	int *v = NULL, *before;
	size_t cap = 0;

	ck_assert_int_eq(pt_grow(&v, &cap, 3, 4), 0);
	ck_assert_uint_eq(cap, 4);
	before = v;
	ck_assert_int_eq(pt_grow(&v, &cap, 4, 4), 0);
	ck_assert_ptr_eq(v, before);
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(pt_grow(&v, &cap, 0, 4), 0);
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(pt_grow(&v, &cap, 5, 4), 0);
	ck_assert_uint_eq(cap, 8);
	free(v);
}
END_TEST

START_TEST(grow_too_large_fails_and_keeps_the_array)
{
	struct pair *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(pt_grow(&v, &cap, 2, 2), 0);
	v[0] = (struct pair){ 7, 8 };
	/* the element count times the size overflows size_t */
	ck_assert_int_eq(pt_grow(&v, &cap, SIZE_MAX / 4, 2), -ENOMEM);
	/* the count itself cannot double any more */
	ck_assert_int_eq(pt_grow(&v, &cap, SIZE_MAX, 2), -ENOMEM);
	ck_assert_uint_eq(cap, 2);
	ck_assert(v[0].a == 7 && v[0].b == 8);
	free(v);
}
END_TEST

START_TEST(strv_add_copies_and_stays_terminated)
{
	char **v = NULL, word[] = "one";
	size_t n = 0;
	const char *got = pt_strv_add(&v, &n, word);

	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_ne(got, word);
	word[0] = 'X'; /* a copy: the caller's string may change */
	ck_assert_str_eq(v[0], "one");
	ck_assert_ptr_eq(v[0], got);
	ck_assert_ptr_null(v[1]);
	for (int i = 0; i < 100; i++) {
		char s[16];
		snprintf(s, sizeof(s), "s%d", i);
		ck_assert_str_eq(pt_strv_add(&v, &n, s), s);
	}
	ck_assert_uint_eq(n, 101);
	ck_assert_str_eq(v[0], "one");
	ck_assert_str_eq(v[100], "s99");
	ck_assert_ptr_null(v[101]);
	pt_strv_free(v);
}
END_TEST

START_TEST(strdup_or_null_counts_only_failures)
{
	bool oom = false;
	char *a = pt_strdup_or_null("x", &oom), *b = pt_strdup_or_null(NULL, &oom);

	ck_assert_str_eq(a, "x");
	ck_assert_ptr_null(b);
	ck_assert(!oom);
	free(a);
}
END_TEST

START_TEST(buf_appends_formats_and_steals)
{
	struct pt_buf b = { 0 };
	char *s;

	pt_buf_puts(&b, "key");
	pt_buf_add(&b, " = value", 3);
	for (int i = 0; i < 200; i++) /* past the 512-byte fast path of pt_buf_printf */
		pt_buf_printf(&b, "%c%d", i ? ',' : ':', i);
	s = pt_buf_steal(&b);
	ck_assert_ptr_nonnull(s);
	ck_assert(!strncmp(s, "key = :0,1,2,", 13));
	ck_assert_uint_eq(strlen(s), strlen("key = :0") + 9 * 2 + 90 * 3 + 100 * 4);
	ck_assert_ptr_null(b.s);
	ck_assert_uint_eq(b.len, 0);
	free(s);
	s = pt_buf_steal(&b); /* nothing added: an empty string, not NULL */
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(buf_long_printf_is_whole)
{
	struct pt_buf b = { 0 };
	char big[2000];
	char *s;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pt_buf_printf(&b, "<%s>", big);
	s = pt_buf_steal(&b);
	ck_assert_uint_eq(strlen(s), sizeof(big) + 1);
	ck_assert(s[0] == '<' && s[sizeof(big)] == '>');
	free(s);
}
END_TEST

static Suite *array_suite(void)
{
	Suite *s = suite_create("array");
	TCase *tc = tcase_create("array");

	tcase_add_test(tc, grow_keeps_elements_and_doubles_from_first);
	tcase_add_test(tc, grow_with_room_left_changes_nothing);
	tcase_add_test(tc, grow_too_large_fails_and_keeps_the_array);
	tcase_add_test(tc, strv_add_copies_and_stays_terminated);
	tcase_add_test(tc, strdup_or_null_counts_only_failures);
	tcase_add_test(tc, buf_appends_formats_and_steals);
	tcase_add_test(tc, buf_long_printf_is_whole);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	static Suite *(*const suites[])(void) = { array_suite };

	return harness_main(argc, argv, suites, 1);
}
