// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pmqos family (lib/family/pmqos.c) through the public API on the fake
 * machine: the binary s32 of /dev/cpu_dma_latency, its range, the hold a
 * request needs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static const struct fx_bad_key bad_keys[] = {
	{ "pmqos", -ENOENT, "the only PM QoS key is pmqos.cpu_dma_latency_us" },
	{ "pmqos.cpu_dma_latency", -ENOENT, "the only PM QoS key is" },
	{ "pmqos.cpu_dma_latency_us.x", -ENOENT, "(per CPU: cpu.<cpus>.resume_latency_us)" },
};

START_TEST(bad_key_names_the_key_and_the_cause)
{
	fx_bad_key_is_refused(&f, &bad_keys[_i]);
}
END_TEST

/* the request as the kernel keeps it: a native s32 */
static void put_request(int32_t v)
{
	char p[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/dev/cpu_dma_latency", f.root);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fwrite(&v, sizeof(v), 1, fp), 1);
	fclose(fp);
}

START_TEST(read_is_the_binary_request_in_decimal)
{
	fx_get_is(&f, "pmqos.cpu_dma_latency_us", "2000000000");
	put_request(55);
	fx_get_is(&f, "pmqos.cpu_dma_latency_us", "55");
	put_request(0);
	fx_get_is(&f, "pmqos.cpu_dma_latency_us", "0");
}
END_TEST

START_TEST(short_file_is_eio)
{
	fx_write(&f, "dev/cpu_dma_latency", "0"); /* "0\n": 2 bytes, not 4 */
	fx_get_fails(&f, "pmqos.cpu_dma_latency_us", -EIO, "short read from /dev/cpu_dma_latency");
}
END_TEST

static const struct {
	const char *value, *staged; /* NULL: refused */
	const char *msg;
} values[] = {
	{ "0", "0", NULL },
	{ "2000000000", "2000000000", NULL },
	{ "2000000001", NULL, "out of range [0, 2000000000]" },
	{ "-1", NULL, "out of range [0, 2000000000]" },
	{ "10us", NULL, "'10us' is not a number" },
};

START_TEST(request_is_checked_against_the_range)
{
	struct perftune_tx *tx;
	int r;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "q", PERFTUNE_TX_HOLD | PERFTUNE_TX_DRY_RUN, &tx),
			 0);
	r = perftune_tx_set(tx, "pmqos.cpu_dma_latency_us", values[_i].value);
	if (values[_i].staged) {
		ck_assert_int_eq(r, 1);
	} else {
		ck_assert_int_eq(r, -EINVAL);
		ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), values[_i].msg));
	}
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(held_request_is_written_in_binary_and_ends_with_the_release)
{
	struct perftune_tx *tx;

	fx_set_fails(&f, "pmqos.cpu_dma_latency_us", "10", -EINVAL,
		     "it needs a holding transaction");
	ck_assert_int_eq(perftune_tx_new(f.ctx, "hold", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "pmqos.cpu_dma_latency_us", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	fx_get_is(&f, "pmqos.cpu_dma_latency_us", "10"); /* the simulated kernel keeps it */
	ck_assert_int_eq(fx_journals(&f), 1);
	ck_assert_int_ge(perftune_tx_release(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

START_TEST(describe_says_it_is_held)
{
	struct perftune_desc *d;
	long long lo, hi;

	ck_assert_int_eq(perftune_describe(f.ctx, "pmqos.cpu_dma_latency_us", &d), 0);
	ck_assert_str_eq(perftune_desc_value(d), "2000000000");
	ck_assert_str_eq(perftune_desc_unit(d), "us");
	ck_assert(perftune_desc_range(d, &lo, &hi));
	ck_assert_int_eq(lo, 0);
	ck_assert_int_eq(hi, 2000000000);
	ck_assert_ptr_nonnull(strstr(perftune_desc_info(d), "in force only while a holding"));
	ck_assert_str_eq(perftune_desc_path(d), "/dev/cpu_dma_latency");
	perftune_desc_free(d);
}
END_TEST

static Suite *pmqos_suite(void)
{
	Suite *s = suite_create("pmqos");
	TCase *tc = tcase_create("read");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* nothing written: one tree */
	tcase_add_loop_test(tc, bad_key_names_the_key_and_the_cause, 0, (int)ARRAY_SIZE(bad_keys));
	tcase_add_loop_test(tc, request_is_checked_against_the_range, 0, (int)ARRAY_SIZE(values));
	tcase_add_test(tc, describe_says_it_is_held);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_is_the_binary_request_in_decimal);
	tcase_add_test(tc, short_file_is_eio);
	tcase_add_test(tc, held_request_is_written_in_binary_and_ends_with_the_release);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { pmqos_suite };
	return harness_main(argc, argv, suites, 1);
}
