// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/experiment: perftune_experiment_run() on the fake machine.  The measure
 * is a callback that reads the tunable (never the clock), so every figure is
 * known: the change is in force exactly during tuned runs, the order is ABBA
 * or the seeded coin, the statistics are scipy's for these samples, and the
 * machine is as found after a run, a failing measure and an abort.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

#define SWAP "proc/sys/vm/swappiness"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* what the callback saw, run by run */
struct seen {
	int n;
	char state[64];	      /* 'B' or 'T' per run */
	char label[64][40];   /* perftune_run_label() */
	int fail_at, abort_at; /* run index to fail (-ENOSPC) or abort at; -1: never */
	struct perftune_experiment *exp;
};

/* 100 + k baseline, 80 + k tuned (k = run index mod 5): tuned is 20% lower */
static int measure(struct perftune_run *run, void *ud, double *value)
{
	struct seen *s = ud;
	const char *v = fx_read(&f, SWAP);
	bool tuned = perftune_run_state(run) == PERFTUNE_TUNED;

	ck_assert_str_eq(v, tuned ? "10" : "60"); /* the change, exactly during tuned runs */
	ck_assert_uint_eq(perftune_run_index(run), (unsigned)s->n);
	snprintf(s->label[s->n], sizeof(s->label[0]), "%s", perftune_run_label(run));
	s->state[s->n] = tuned ? 'T' : 'B';
	*value = (tuned ? 80 : 100) + s->n % 5;
	if (s->abort_at == s->n)
		perftune_experiment_abort(s->exp);
	return s->fail_at == s->n++ ? -ENOSPC : 0;
}

static struct perftune_experiment *experiment(unsigned rounds, unsigned warmup)
{
	struct perftune_experiment *e;

	ck_assert_int_eq(perftune_experiment_new(f.ctx, "exp-test", &e), 0);
	ck_assert_int_eq(perftune_experiment_set(e, "sysctl.vm.swappiness", "10"), 0);
	ck_assert_int_eq(perftune_experiment_set_rounds(e, rounds), 0);
	ck_assert_int_eq(perftune_experiment_set_warmup(e, warmup), 0);
	return e;
}

static void machine_as_found(void)
{
	ck_assert_str_eq(fx_read(&f, SWAP), "60");
	ck_assert_int_eq(fx_journals(&f), 0);
}

START_TEST(known_effect_is_better_with_scipy_figures)
{
	struct perftune_experiment *e = experiment(5, 0);
	struct seen s = { .fail_at = -1, .abort_at = -1 };
	const double *b, *t;

	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), 0);
	machine_as_found();
	ck_assert_int_eq(s.n, 10);
	ck_assert_uint_eq(perftune_experiment_samples(e, PERFTUNE_BASELINE, &b), 5);
	ck_assert_uint_eq(perftune_experiment_samples(e, PERFTUNE_TUNED, &t), 5);
	/* ABBA from run 0: B T T B B T T B B T -> k = 0,3,4,7,8 and 1,2,5,6,9 */
	ck_assert_str_eq(s.state, "BTTBBTTBBT");
	ck_assert_double_eq(b[0], 100);
	ck_assert_double_eq(b[1], 103);
	ck_assert_double_eq(t[4], 84);
	/* numpy: median([100,103,104,102,103]) = 103, percentile 25/75: 102, 103 */
	ck_assert_double_eq(perftune_experiment_median(e, PERFTUNE_BASELINE), 103);
	ck_assert_double_eq(perftune_experiment_q1(e, PERFTUNE_BASELINE), 102);
	ck_assert_double_eq(perftune_experiment_q3(e, PERFTUNE_BASELINE), 103);
	/* tuned [81,82,80,81,84]: median 81 */
	ck_assert_double_eq(perftune_experiment_median(e, PERFTUNE_TUNED), 81);
	/* mannwhitneyu([81,82,80,81,84], [100,103,104,102,103]): U = 0; ties,
	 * so method 'auto' is the asymptotic one.  scipy is not installed on the
	 * machine this was written on: the p-value is scipy's formula evaluated
	 * with Python's math module (tie term 2 * (2^3 - 2) = 12, continuity
	 * correction 0.5): sd = sqrt(25/12 * (11 - 12/90)),
	 * math.erfc((25 - 12.5 - 0.5) / sd / sqrt(2)) = 0.011667312343319398.
	 * test-stats checks the same formula against scipy's published values. */
	ck_assert_double_eq(perftune_experiment_u(e), 0);
	ck_assert(!perftune_experiment_p_exact(e));
	ck_assert_msg(fabs(perftune_experiment_p_value(e) - 0.011667312343319398) < 1e-12,
		      "p %.17g", perftune_experiment_p_value(e));
	ck_assert_msg(fabs(perftune_experiment_change_pct(e) - 100 * (81.0 / 103 - 1)) < 1e-12,
		      "change %g", perftune_experiment_change_pct(e));
	ck_assert(perftune_experiment_ci95_high(e) < 0);
	ck_assert(perftune_experiment_ci95_low(e) <= perftune_experiment_change_pct(e));
	ck_assert_int_eq(perftune_experiment_verdict(e), PERFTUNE_BETTER);
	ck_assert_str_eq(perftune_verdict_name(perftune_experiment_verdict(e)), "better");
	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), -EALREADY);
	perftune_experiment_free(e);
}
END_TEST

START_TEST(higher_is_better_turns_the_verdict)
{
	struct perftune_experiment *e = experiment(5, 1);
	struct seen s = { .fail_at = -1, .abort_at = -1 };

	ck_assert_int_eq(perftune_experiment_set_higher_is_better(e, true), 0);
	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), 0);
	ck_assert_int_eq(perftune_experiment_verdict(e), PERFTUNE_WORSE);
	machine_as_found();
	perftune_experiment_free(e);
}
END_TEST

START_TEST(warmups_first_then_abba_with_labels)
{
	struct perftune_experiment *e = experiment(4, 1);
	struct seen s = { .fail_at = -1, .abort_at = -1 };

	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), 0);
	ck_assert_str_eq(s.state, "BTBTTBBTTB");
	ck_assert_str_eq(s.label[0], "warmup 1 (baseline run)");
	ck_assert_str_eq(s.label[1], "warmup 1 (tuned run)");
	ck_assert_str_eq(s.label[4], "round 2 (tuned run)");
	ck_assert_str_eq(s.label[9], "round 4 (baseline run)");
	ck_assert_uint_eq(perftune_experiment_samples(e, PERFTUNE_TUNED, NULL), 4);
	perftune_experiment_free(e);
}
END_TEST

START_TEST(random_order_is_seeded_and_starts_with_baseline)
{
	char first[64] = "";

	for (int k = 0; k < 3; k++) {
		struct perftune_experiment *e = experiment(12, 0);
		struct seen s = { .fail_at = -1, .abort_at = -1 };
		ck_assert_int_eq(perftune_experiment_set_order(e, PERFTUNE_ORDER_RANDOM), 0);
		ck_assert_int_eq(perftune_experiment_set_seed(e, k < 2 ? 7 : 8), 0);
		ck_assert_int_eq(perftune_experiment_run(e, measure, &s), 0);
		ck_assert_int_eq(s.state[0], 'B');
		for (int i = 0; i < 24; i += 2) /* each round one run of each */
			ck_assert_int_ne(s.state[i], s.state[i + 1]);
		if (k == 0)
			snprintf(first, sizeof(first), "%s", s.state);
		else if (k == 1)
			ck_assert_str_eq(s.state, first);
		else
			ck_assert_str_ne(s.state, first);
		ck_assert_str_ne(s.state, "BTTBBTTBBTTBBTTBBTTBBTTB"); /* not ABBA */
		perftune_experiment_free(e);
	}
	machine_as_found();
}
END_TEST

START_TEST(measure_error_is_returned_and_the_change_given_back)
{
	struct perftune_experiment *e = experiment(5, 0);
	struct seen s = { .fail_at = 2, .abort_at = -1 }; /* run 2: round 2's tuned run */

	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), -ENOSPC);
	ck_assert_int_eq(s.n, 3);
	machine_as_found();
	ck_assert_uint_eq(perftune_experiment_samples(e, PERFTUNE_TUNED, NULL), 0);
	ck_assert(isnan(perftune_experiment_median(e, PERFTUNE_TUNED)));
	perftune_experiment_free(e);
}
END_TEST

START_TEST(abort_in_a_tuned_run_is_ecanceled_and_restored)
{
	struct perftune_experiment *e = experiment(5, 0);
	struct seen s = { .fail_at = -1, .abort_at = 1, .exp = e };

	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), -ECANCELED);
	ck_assert_int_eq(s.n, 2); /* no run after the abort */
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "round 1 (tuned run)"));
	machine_as_found();
	perftune_experiment_free(e);
}
END_TEST

static struct perftune_experiment *from_handler;
static void on_signal(int sig)
{
	(void)sig;
	perftune_experiment_abort(from_handler); /* async-signal-safe */
}

START_TEST(abort_from_a_signal_handler_before_the_run)
{
	struct perftune_experiment *e = experiment(5, 0);
	struct seen s = { .fail_at = -1, .abort_at = -1 };

	from_handler = e;
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), -ECANCELED);
	ck_assert_int_eq(s.n, 0);
	machine_as_found();
	perftune_experiment_free(e);
}
END_TEST

START_TEST(bad_input_is_refused_naming_it_and_nothing_changes)
{
	struct perftune_experiment *e;
	struct perftune_tx *tx;
	struct seen s = { .fail_at = -1, .abort_at = -1 };

	ck_assert_int_eq(perftune_experiment_new(f.ctx, "exp-bad", &e), 0);
	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), -EINVAL); /* no change */
	ck_assert_int_eq(perftune_experiment_set_rounds(e, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "rounds 2"));
	ck_assert_int_eq(perftune_experiment_set_order(e, (enum perftune_order)7), -EINVAL);
	ck_assert_int_eq(perftune_experiment_set(e, "sysctl.vm.swappiness", "banana"), 0);
	ck_assert_int_eq(perftune_experiment_check(e, &tx), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "swappiness"));
	machine_as_found();
	perftune_experiment_free(e);

	e = experiment(3, 0);
	ck_assert_int_eq(perftune_experiment_check(e, &tx), 0); /* a dry run: the change shown */
	ck_assert_str_eq(fx_read(&f, SWAP), "60");
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_experiment_run(e, NULL, NULL), -EINVAL);
	perftune_experiment_free(e);
	ck_assert_int_eq(perftune_experiment_new(f.ctx, "", &e), -EINVAL);
	perftune_experiment_free(NULL);
}
END_TEST

START_TEST(median_of_values)
{
	const double x[] = { 3, 1, 4, 1, 5, 9 };
	double m;

	/* numpy.median([3, 1, 4, 1, 5, 9]) = 3.5 */
	ck_assert_int_eq(perftune_median(x, 6, &m), 0);
	ck_assert_double_eq(m, 3.5);
	ck_assert_int_eq(perftune_median(x, 0, &m), -EINVAL);
}
END_TEST

/* the baseline run takes the file away: the tuned run's change cannot be applied */
static int measure_removes_the_file(struct perftune_run *run, void *ud, double *value)
{
	char path[PATH_MAX];

	(void)run;
	(void)ud;
	snprintf(path, sizeof(path), "%s/%s", f.root, SWAP);
	ck_assert_int_eq(unlink(path), 0);
	*value = 1;
	return 0;
}

START_TEST(apply_failure_message_names_the_run_and_the_cause_once)
{
	struct perftune_experiment *e = experiment(3, 1);
	const char *msg;
	int r;

	r = perftune_experiment_run(e, measure_removes_the_file, NULL);
	ck_assert_int_lt(r, 0);
	msg = perftune_ctx_last_error(f.ctx);
	/* the prefix once, then the cause: the message was once formatted into
	 * the buffer it read the cause from, and came out garbled */
	ck_assert_msg(strncmp(msg, "cannot apply the change before warmup 1 (tuned run): ", 53) == 0,
		      "message: %s", msg);
	ck_assert_msg(strstr(msg + 53, "cannot apply") == NULL, "message: %s", msg);
	ck_assert_msg(strstr(msg, "swappiness") != NULL, "message: %s", msg);
	ck_assert_int_eq(fx_journals(&f), 0);
	perftune_experiment_free(e);
}
END_TEST

/* the measure above, and wall, user, system seconds of 1, 0.5 + k, 0.25 */
static int measure_timed(struct perftune_run *run, void *ud, double *value)
{
	struct seen *s = ud;
	double user = 0.5 + s->n % 5;

	ck_assert_int_eq(perftune_run_set_times(run, 1, user, 0.25), 0);
	return measure(run, ud, value);
}

START_TEST(report_text_and_json_as_compare_prints_them)
{
	struct perftune_experiment *e = experiment(5, 0);
	struct seen s = { .fail_at = -1, .abort_at = -1 };
	char *text = NULL;

	ck_assert_int_eq(perftune_experiment_report(e, 0, NULL, NULL, NULL, &text), -EINVAL);
	ck_assert_ptr_null(text);
	ck_assert_int_eq(perftune_experiment_run(e, measure_timed, &s), 0);
	ck_assert_int_eq(perftune_experiment_report(e, 1 << 5, NULL, NULL, NULL, &text), -EINVAL);
	ck_assert_int_eq(perftune_experiment_report(e, 0, "t: ([0-9]+)", "x.log", NULL, &text), 0);
	ck_assert_msg(strstr(text, "5 rounds, ABBA order, 0 warmup runs of each; CMD's output in "
				   "x.log\nmetric: last match of 't: ([0-9]+)' in CMD's stdout, "
				   "lower is better\n"),
		      "%s", text);
	/* baseline k = 0,3,4,7,8: user 0.5 + (0,3,4,2,3), median 3.5 */
	ck_assert_msg(strstr(text, "baseline     5        103            1      1.5%        3.5      "
				   " 0.25\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "verdict: better: the tuned median is 21.4% lower"), "%s", text);
	free(text);
	ck_assert_int_eq(perftune_experiment_report(e, PERFTUNE_REPORT_JSON, NULL, "x.log",
						    "p.svg", &text),
			 0);
	ck_assert_msg(strstr(text, "{\"metric\": \"wall_time\", \"unit\": \"s\", "
				   "\"higher_is_better\": false, \"rounds\": 5, \"warmup\": 0, "
				   "\"order\": \"ABBA\", \"seed\": 1, \"transaction\": "
				   "\"exp-test\", \"log\": \"x.log\", \"plot\": \"p.svg\",\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\"samples\": [100, 103, 104, 102, 103],\n    \"wall_s\": [1, "
				   "1, 1, 1, 1],\n    \"user_s\": [0.5, 3.5, 4.5, 2.5, 3.5],\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\"verdict\": \"better\"}\n"), "%s", text);
	free(text);
	perftune_experiment_free(e);
}
END_TEST

START_TEST(report_without_times_has_nan_and_null)
{
	struct perftune_experiment *e = experiment(3, 1);
	struct seen s = { .fail_at = -1, .abort_at = -1 };
	char *text = NULL;

	ck_assert_int_eq(perftune_run_set_times(NULL, 1, 1, 1), -EINVAL);
	ck_assert_int_eq(perftune_experiment_run(e, measure, &s), 0);
	ck_assert_int_eq(perftune_experiment_report(e, 0, NULL, NULL, NULL, &text), 0);
	ck_assert_msg(strstr(text, "1 warmup run of each\n"), "%s", text);
	ck_assert_msg(strstr(text, "nan        nan\n"), "%s", text);
	free(text);
	ck_assert_int_eq(perftune_experiment_report(e, PERFTUNE_REPORT_JSON, NULL, NULL, NULL, &text),
			 0);
	ck_assert_msg(strstr(text, "\"user_s\": [null, null, null]"), "%s", text);
	free(text);
	perftune_experiment_free(e);
}
END_TEST

static Suite *experiment_suite(void)
{
	Suite *s = suite_create("experiment");
	TCase *tc = tcase_create("run");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, known_effect_is_better_with_scipy_figures);
	tcase_add_test(tc, higher_is_better_turns_the_verdict);
	tcase_add_test(tc, warmups_first_then_abba_with_labels);
	tcase_add_test(tc, random_order_is_seeded_and_starts_with_baseline);
	tcase_add_test(tc, measure_error_is_returned_and_the_change_given_back);
	tcase_add_test(tc, abort_in_a_tuned_run_is_ecanceled_and_restored);
	tcase_add_test(tc, abort_from_a_signal_handler_before_the_run);
	tcase_add_test(tc, bad_input_is_refused_naming_it_and_nothing_changes);
	tcase_add_test(tc, median_of_values);
	tcase_add_test(tc, report_text_and_json_as_compare_prints_them);
	tcase_add_test(tc, report_without_times_has_nan_and_null);
	tcase_add_test(tc, apply_failure_message_names_the_run_and_the_cause_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { experiment_suite };
	return harness_main(argc, argv, suites, 1);
}
