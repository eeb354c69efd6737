// SPDX-License-Identifier: LGPL-2.1-or-later
/* shared/dlopen.c: the libraries only some keys need, opened on first use. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"
#include "shared/dlopen.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* what pt_dl_load() answers here: every library is a build dependency (libcpupower optional) */
static int expected(enum pt_dl_lib lib)
{
	if (lib == PT_DL_CPUPOWER && !HAVE_CPUPOWER)
		return -EOPNOTSUPP;
	return 0;
}

static void *load_all(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = PT_DL_COUNT - 1; i >= 0; i--)
		bad += pt_dl_load((enum pt_dl_lib)i) != expected((enum pt_dl_lib)i);
	return (void *)bad;
}

START_TEST(every_library_loads_once_by_its_soname_from_any_thread)
{
	pthread_t t[8];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, load_all, NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		void *bad;
		ck_assert_int_eq(pthread_join(t[i], &bad), 0);
		ck_assert_ptr_null(bad);
	}
	for (int i = 0; i < PT_DL_COUNT; i++) { /* read off the linked dependency: "libkmod.so.2" */
		const char *so = pt_dl_soname((enum pt_dl_lib)i);
		if (expected((enum pt_dl_lib)i) == 0)
			ck_assert_msg(!strncmp(so, "lib", 3) && strstr(so, ".so."), "soname '%s'",
				      so);
	}
	/* the tables are filled: one call through each */
	ck_assert(pt_libkmod.kmod_new != NULL);
	ck_assert_int_ge(pt_libselinux.is_selinux_enabled(), 0);
	ck_assert_int_gt(pt_libmnl.mnl_nlmsg_size(4), 4);
}
END_TEST

static Suite *dlopen_suite(void)
{
	Suite *s = suite_create("dlopen");
	TCase *tc = tcase_create("dlopen");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_library_loads_once_by_its_soname_from_any_thread);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { dlopen_suite };

	return harness_main(argc, argv, suites, 1);
}
