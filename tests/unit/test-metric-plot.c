// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LIBPERFTUNE_5 on the fake machine: perftune_metric_* (compare --metric) read
 * output after output with the messages compare prints; perftune_experiment_plot()
 * writes the script of a run experiment (text only) and refuses one not run;
 * perftune_profile_default_path() is the path the CLI puts its build tree's
 * profiles before; perftune_metric_feed_fd() reads a file descriptor to its
 * end and copies it; perftune_run_eta() is the pace of the runs so far.  The
 * scanner's chunks and long lines: test-compare-metric.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* the number in @out for @m, or the error; @why gets the message */
static int read_output(struct perftune_metric *m, const char *out, double *v, char *why)
{
	int r;

	perftune_metric_feed(m, out, strlen(out));
	r = perftune_metric_end(m, v);
	strcpy(why, perftune_ctx_last_error(f.ctx));
	return r;
}

START_TEST(metric_reads_each_output_in_turn_with_its_errors)
{
	struct perftune_metric *m;
	char why[512];
	double v = 0;

	ck_assert_int_eq(perftune_metric_new(f.ctx, "t=([0-9.a-z]+)", &m), 0);
	ck_assert_int_eq(read_output(m, "a\nt=1.5 t=2.5\nb\n", &v, why), 0);
	ck_assert_double_eq(v, 2.5);
	ck_assert_int_eq(read_output(m, "t=7", &v, why), 0); /* the last output's, alone */
	ck_assert_double_eq(v, 7);
	ck_assert_int_eq(read_output(m, "nothing\n", &v, why), -ENOENT);
	ck_assert_str_eq(why, "'t=([0-9.a-z]+)' matched nothing");
	ck_assert_int_eq(read_output(m, "t=abc\n", &v, why), -EINVAL);
	ck_assert_str_eq(why, "'t=([0-9.a-z]+)' captured 'abc', which is not a number");
	ck_assert_int_eq(read_output(m, "t=3\n", &v, why), 0); /* nothing kept from before */
	ck_assert_double_eq(v, 3);
	perftune_metric_free(m);
	ck_assert_int_eq(perftune_metric_new(f.ctx, "x([0-9])?", &m), 0);
	ck_assert_int_eq(read_output(m, "x1\nx\n", &v, why), -ENODATA);
	ck_assert_str_eq(why, "'x([0-9])?' captured nothing in the last line it matched");
	perftune_metric_free(m);
	perftune_metric_free(NULL);
}
END_TEST

START_TEST(metric_refuses_a_bad_regex_naming_it)
{
	struct perftune_metric *m = (void *)1;

	ck_assert_int_eq(perftune_metric_new(f.ctx, "((", &m), -EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_msg(!strncmp(perftune_ctx_last_error(f.ctx), "'((': ", 6), "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_metric_new(f.ctx, "(a)(b)", &m), -EINVAL);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "'(a)(b)' has 2 capture groups: it needs exactly one, around the number, "
			 "e.g. 'time: ([0-9.]+)'");
	ck_assert_int_eq(perftune_metric_new(f.ctx, "[0-9]+", &m), -EINVAL);
	ck_assert_int_eq(perftune_metric_new(NULL, "(a)", &m), -EINVAL);
}
END_TEST

/* @n bytes of @text in a new memfd, its offset at 0 */
static int memfd_with(const char *text, size_t n)
{
	int fd = memfd_create("test-metric", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* an output longer than the chunk read: its metric, and every byte copied */
START_TEST(metric_feed_fd_reads_to_the_end_and_copies)
{
	size_t n = 3 * 1024 * 1024 / 2, len;
	char *out = malloc(n + 16), *back = malloc(n + 16);
	struct perftune_metric *m;
	int fd, copy, p[2];
	double v = 0;

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(back);
	for (size_t i = 0; i < n; i++)
		out[i] = i % 64 == 63 ? '\n' : 'a' + (char)(i % 26);
	len = n + (size_t)sprintf(out + n, "t=4.25\nx\n");
	ck_assert_int_eq(perftune_metric_new(f.ctx, "t=([0-9.]+)", &m), 0);
	fd = memfd_with(out, len);
	copy = memfd_create("test-copy", MFD_CLOEXEC);
	ck_assert_int_eq(perftune_metric_feed_fd(m, fd, copy), 0);
	ck_assert_int_eq(perftune_metric_end(m, &v), 0);
	ck_assert_double_eq(v, 4.25);
	ck_assert_int_eq(pread(copy, back, n + 16, 0), (ssize_t)len);
	ck_assert(memcmp(out, back, len) == 0);
	/* from the fd's offset: nothing left there is an output without a match */
	ck_assert_int_eq(perftune_metric_feed_fd(m, fd, -1), 0);
	ck_assert_int_eq(perftune_metric_end(m, &v), -ENOENT);
	close(fd);
	close(copy);
	/* a pipe, read until its writer is gone */
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(write(p[1], "t=1\nt=2", 7), 7);
	close(p[1]);
	ck_assert_int_eq(perftune_metric_feed_fd(m, p[0], -1), 0);
	close(p[0]);
	ck_assert_int_eq(perftune_metric_end(m, &v), 0);
	ck_assert_double_eq(v, 2);
	perftune_metric_free(m);
	free(out);
	free(back);
}
END_TEST

START_TEST(metric_feed_fd_names_a_failed_copy_and_a_failed_read)
{
	struct perftune_metric *m;
	int fd, ro = open("/dev/null", O_RDONLY | O_CLOEXEC), wo;
	double v = 0;

	ck_assert_int_eq(perftune_metric_new(f.ctx, "t=([0-9.]+)", &m), 0);
	/* the copy fails: positive errno, the output still read for the metric */
	fd = memfd_with("t=5\n", 4);
	ck_assert_int_eq(perftune_metric_feed_fd(m, fd, ro), EBADF);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "cannot copy the output: Bad file descriptor");
	ck_assert_int_eq(perftune_metric_end(m, &v), 0);
	ck_assert_double_eq(v, 5);
	close(fd);
	/* the read fails: negative errno, what came before is forgotten */
	wo = open("/dev/null", O_WRONLY | O_CLOEXEC);
	perftune_metric_feed(m, "t=9\n", 4);
	ck_assert_int_eq(perftune_metric_feed_fd(m, wo, -1), -EBADF);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "cannot read the output: Bad file descriptor");
	perftune_metric_feed(m, "none\n", 5);
	ck_assert_int_eq(perftune_metric_end(m, &v), -ENOENT);
	ck_assert_int_eq(perftune_metric_feed_fd(NULL, ro, -1), -EINVAL);
	ck_assert_int_eq(perftune_metric_feed_fd(m, -1, -1), -EINVAL);
	close(ro);
	close(wo);
	perftune_metric_free(m);
}
END_TEST

/* perftune_run_eta() in each run: none in the first, a finite figure after */
static int measure_eta(struct perftune_run *run, void *ud, double *value)
{
	unsigned *finite = ud;
	double eta = perftune_run_eta(run);

	if (perftune_run_index(run) == 0)
		ck_assert(isnan(eta));
	else if (isfinite(eta) && eta >= 0)
		(*finite)++;
	*value = 1 + perftune_run_index(run) % 3;
	return 0;
}

START_TEST(run_eta_is_none_first_then_the_pace)
{
	struct perftune_experiment *e;
	unsigned finite = 0;

	ck_assert_int_eq(perftune_experiment_new(f.ctx, "eta-test", &e), 0);
	ck_assert_int_eq(perftune_experiment_set(e, "sysctl.vm.swappiness", "10"), 0);
	ck_assert_int_eq(perftune_experiment_set_rounds(e, 3), 0);
	ck_assert_int_eq(perftune_experiment_run(e, measure_eta, &finite), 0);
	ck_assert_uint_eq(finite, 2 * (1 + 3) - 1);
	ck_assert(isnan(perftune_run_eta(NULL)));
	perftune_experiment_free(e);
}
END_TEST

/* 100 + k baseline, 80 + k tuned: the tuned state is better */
static int measure(struct perftune_run *run, void *ud, double *value)
{
	(void)ud;
	*value = 100 + perftune_run_index(run) % 5;
	if (perftune_run_state(run) == PERFTUNE_TUNED)
		*value -= 20;
	return 0;
}

START_TEST(plot_script_of_a_run_experiment)
{
	struct perftune_experiment *e;
	char *s = NULL;

	ck_assert_int_eq(perftune_experiment_new(f.ctx, "plot-test", &e), 0);
	ck_assert_int_eq(perftune_experiment_set(e, "sysctl.vm.swappiness", "10"), 0);
	ck_assert_int_eq(perftune_experiment_set_rounds(e, 5), 0);
	ck_assert_int_eq(perftune_experiment_plot(e, "t", "y", 0, &s), -EINVAL); /* not run */
	ck_assert_ptr_null(s);
	ck_assert_int_eq(perftune_experiment_run(e, measure, NULL), 0);
	ck_assert_int_eq(perftune_experiment_plot(e, "t", "y", 1u << 5, &s), -EINVAL);
	ck_assert_int_eq(perftune_experiment_plot(e, "it's\t\x01here", "ms", 0, &s), 0);
	ck_assert_ptr_nonnull(strstr(s, "set terminal svg dynamic size 800,560"));
	/* quoted for gnuplot, control characters dropped, the verdict added */
	ck_assert_ptr_nonnull(strstr(s, "set title 'it''shere  (verdict: better)'\n"));
	ck_assert_ptr_nonnull(strstr(s, "set ylabel 'ms, lower is better'\n"));
	ck_assert_ptr_nonnull(strstr(s, "set xtics ('baseline (n=5)' 1, 'tuned (n=5)' 2)"));
	ck_assert_ptr_null(strstr(s, "set output")); /* the picture goes to stdout */
	ck_assert_ptr_nonnull(strstr(s, "$box << EOD\n1 "));
	free(s);
	ck_assert_int_eq(perftune_experiment_plot(e, "t", "y", PERFTUNE_PLOT_PNG, &s), 0);
	ck_assert_ptr_nonnull(strstr(s, "set terminal pngcairo"));
	free(s);
	perftune_experiment_free(e);
}
END_TEST

START_TEST(default_profile_path_is_the_one_searched)
{
	const char *p = perftune_profile_default_path();
	size_t n = strlen(p);

	ck_assert_msg(!strncmp(p, "/etc/perftune/profiles:", 23), "%s", p);
	ck_assert_msg(n > 26 && !strcmp(p + n - 26, ":/etc/tuned:/usr/lib/tuned"), "%s", p);
}
END_TEST

static Suite *metric_plot_suite(void)
{
	Suite *s = suite_create("metric-plot");
	TCase *tc = tcase_create("lib5");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, metric_reads_each_output_in_turn_with_its_errors);
	tcase_add_test(tc, metric_refuses_a_bad_regex_naming_it);
	tcase_add_test(tc, metric_feed_fd_reads_to_the_end_and_copies);
	tcase_add_test(tc, metric_feed_fd_names_a_failed_copy_and_a_failed_read);
	tcase_add_test(tc, run_eta_is_none_first_then_the_pace);
	tcase_add_test(tc, plot_script_of_a_run_experiment);
	tcase_add_test(tc, default_profile_path_is_the_one_searched);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { metric_plot_suite };
	return harness_main(argc, argv, suites, 1);
}
