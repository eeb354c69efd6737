// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The errno set of perftune.h: every exported function returns through one
 * filter, so that codes from deep inside (ERANGE, ENOTBLK, ESRCH, EISDIR,
 * E2BIG, EPROTO) reach a caller as the documented code, with the message.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* the set perftune.h and libperftune(3) document */
static const int documented[] = {
	EINVAL, ENOENT,	  ENODEV,   EACCES, EPERM, EROFS, ENOMEM, EIO,	   EBUSY,
	ENAMETOOLONG,	  EOPNOTSUPP, ENOTUNIQ, EALREADY, EAGAIN, ELOOP, EFBIG, ENOTDIR, ECANCELED,
};

static bool is_documented(int r)
{
	for (size_t i = 0; i < sizeof(documented) / sizeof(*documented); i++)
		if (r == -documented[i])
			return true;
	return false;
}

/* @r is @want, in the set, and the message says @msg */
static void assert_err(int r, int want, const char *msg)
{
	const char *m = perftune_ctx_last_error(f.ctx);

	ck_assert_msg(is_documented(r), "%d (%s) is not in the documented set", r, strerror(-r));
	ck_assert_msg(r == want, "expected %d, got %d (%s)", want, r, m);
	ck_assert_msg(strstr(m, msg), "message '%s' lacks '%s'", m, msg);
}

START_TEST(filter_maps_every_errno_into_the_set)
{
	for (int e = 1; e < 4096; e++) {
		int r = pt_api_ret(-e);
		ck_assert_msg(is_documented(r), "-%d (%s) escapes as %d", e, strerror(e), r);
	}
	for (size_t i = 0; i < sizeof(documented) / sizeof(*documented); i++)
		ck_assert_int_eq(pt_api_ret(-documented[i]), -documented[i]);
	ck_assert_int_eq(pt_api_ret(0), 0);
	ck_assert_int_eq(pt_api_ret(7), 7);
}
END_TEST

START_TEST(out_of_range_is_einval)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "e", 0, &tx), 0);
	assert_err(perftune_tx_set(tx, "cpu.0.max_khz", "9000000"), -EINVAL, "out of range");
	assert_err(perftune_tx_set(tx, "block.sda.read_ahead_kb", "-5"), -EINVAL, "out of range");
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(directory_is_einval)
{
	char *v = NULL;

	assert_err(perftune_get(f.ctx, "sysfs[/sys/kernel/mm/transparent_hugepage]", &v), -EINVAL,
		   "not an attribute file");
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(no_such_process_is_enodev)
{
	char *v = NULL;

	assert_err(perftune_get(f.ctx, "proc.4000000.numa_nodes", &v), -ENODEV, "no process 4000000");
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(not_a_block_device_is_enodev)
{
	struct perftune_ctx *host;
	char *v = NULL;

	/* only the host root stat()s the path: a read, nothing is written */
	ck_assert_int_eq(perftune_ctx_new(&host), 0);
	int r = perftune_get(host, "block[/dev/null].scheduler", &v);
	const char *m = perftune_ctx_last_error(host);
	ck_assert_msg(r == -ENODEV, "expected -ENODEV, got %d (%s)", r, m);
	ck_assert_msg(strstr(m, "not a block device"), "message '%s'", m);
	ck_assert_ptr_null(v);
	perftune_ctx_unref(host);
}
END_TEST

START_TEST(too_many_devices_is_enametoolong)
{
	char p[PATH_MAX + 32];
	char *v = NULL;

	for (int i = 0; i <= 4096; i++) {
		snprintf(p, sizeof(p), "%s/sys/block/zz%04d", f.root, i);
		ck_assert_int_eq(mkdir(p, 0755), 0);
	}
	assert_err(perftune_get(f.ctx, "block.zz*.scheduler", &v), -ENAMETOOLONG,
		   "matches more than 4096 devices");
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(journal_of_unknown_format_is_einval)
{
	char p[PATH_MAX + 32];
	FILE *fp;

	ck_assert_int_eq(mkdir(f.jdir, 0700), 0);
	snprintf(p, sizeof(p), "%s/j.journal", f.jdir);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("perftune-journal 9\nname j\n", fp);
	fclose(fp);
	chmod(p, 0600);
	assert_err(perftune_restore(f.ctx, "j", 0), -EINVAL, "unknown format");
}
END_TEST

/* the last error belongs to the thread that made the call */
static void *fail_in_thread(void *ud)
{
	char *v = NULL;
	static char seen[1024];

	(void)ud;
	if (perftune_get(f.ctx, "thp.nosuch", &v) != -ENOENT)
		return NULL;
	snprintf(seen, sizeof(seen), "%s", perftune_ctx_last_error(f.ctx));
	return seen;
}

START_TEST(last_error_is_per_thread)
{
	pthread_t t;
	void *seen = NULL;
	char *v = NULL;

	ck_assert_int_eq(perftune_get(f.ctx, "block.nosuch.scheduler", &v), -ENODEV);
	ck_assert_int_eq(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(t, &seen), 0);
	ck_assert_ptr_nonnull(seen);
	ck_assert_msg(strstr(seen, "thp.nosuch"), "thread saw '%s'", (char *)seen);
	/* this thread's message is its own call's, not the other thread's */
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "block.nosuch.scheduler"), "main saw '%s'",
		      perftune_ctx_last_error(f.ctx));
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("errors");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, filter_maps_every_errno_into_the_set);
	tcase_add_test(tc, out_of_range_is_einval);
	tcase_add_test(tc, directory_is_einval);
	tcase_add_test(tc, no_such_process_is_enodev);
	tcase_add_test(tc, not_a_block_device_is_enodev);
	tcase_add_test(tc, too_many_devices_is_enametoolong);
	tcase_add_test(tc, journal_of_unknown_format_is_einval);
	tcase_add_test(tc, last_error_is_per_thread);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { errors_suite };
	return harness_main(argc, argv, suites, 1);
}
