/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit programs without the fake machine (test-attr, test-uring, test-ctx):
 * files of a small tree of their own, and their main.
 */
#ifndef PERFTUNE_TEST_PLAIN_H
#define PERFTUNE_TEST_PLAIN_H

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* @root/@rel holding @text, with mode @mode; the directories on the way made */
static inline void plain_put(const char *root, const char *rel, const char *text, mode_t mode)
{
	char p[PATH_MAX * 2];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(p, mode), 0);
}

/* run suite @s: the exit status of a test program */
static inline int plain_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
