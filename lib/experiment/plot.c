// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_experiment_plot(): the gnuplot script of an experiment's results,
 * both distributions (quartiles, min-max, every sample) and the CI of the
 * change.  Text only: the library runs no program.  The script sets no
 * output: the caller runs gnuplot (perftune compare --plot: a fixed program,
 * no shell, no init file, no environment) with the script on its standard
 * input and the picture on its standard output.  Every string put into the
 * script is quoted for gnuplot and stripped of control characters.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "experiment-internal.h"

/* a gnuplot single-quoted string: ' is doubled, control characters dropped */
static void gp_str(struct pt_buf *b, const char *s)
{
	pt_buf_puts(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			pt_buf_puts(b, "''");
		else if ((unsigned char)*s >= 0x20)
			pt_buf_add(b, s, 1);
	}
	pt_buf_puts(b, "'");
}

/* the boxes (q1, min, max, q3: candlesticks; the median) and every sample */
static void plot_data(struct pt_buf *b, struct perftune_experiment *e)
{
	const double *v[2];
	size_t n[2];

	pt_buf_puts(b, "$box << EOD\n");
	for (int s = 0; s < 2; s++) {
		double min = INFINITY, max = -INFINITY;
		n[s] = perftune_experiment_samples(e, s, &v[s]);
		for (size_t i = 0; i < n[s]; i++) {
			min = fmin(min, v[s][i]);
			max = fmax(max, v[s][i]);
		}
		pt_buf_printf(b, "%d %.10g %.10g %.10g %.10g %.10g\n", s + 1,
			      perftune_experiment_q1(e, s), min, max, perftune_experiment_q3(e, s),
			      perftune_experiment_median(e, s));
	}
	pt_buf_puts(b, "EOD\n$pts << EOD\n");
	for (int s = 0; s < 2; s++) {
		/* jitter along a golden-ratio sequence: every sample visible, the
		 * same picture for the same samples */
		for (size_t i = 0; i < n[s]; i++)
			pt_buf_printf(b, "%.4f %.10g\n",
				      s + 1 + (fmod((double)i * 0.6180339887, 1) - 0.5) * 0.25,
				      v[s][i]);
		if (s == 0)
			pt_buf_puts(b, "\n\n"); /* two blank lines: the next "index" */
	}
}

/* the CI of the change, drawn where the tuned median would be: the baseline
 * median times (1 + change), beside the tuned box */
static void plot_ci(struct pt_buf *b, struct perftune_experiment *e)
{
	double bmed = perftune_experiment_median(e, PERFTUNE_BASELINE);
	double tmed = perftune_experiment_median(e, PERFTUNE_TUNED);
	double lo = perftune_experiment_ci95_low(e), hi = perftune_experiment_ci95_high(e);
	char label[160];

	pt_buf_puts(b, "EOD\n$ci << EOD\n");
	if (isfinite(lo))
		pt_buf_printf(b, "2.4 %.10g %.10g %.10g\n", tmed, bmed * (1 + lo / 100),
			      bmed * (1 + hi / 100));
	else
		pt_buf_printf(b, "2.4 %.10g %.10g %.10g\n", tmed, tmed, tmed);
	snprintf(label, sizeof(label), "change of the median %+.1f%%, 95%% CI %+.1f%% .. %+.1f%%",
		 perftune_experiment_change_pct(e), lo, hi);
	/* whiskerbars before lc: gnuplot 5.4 takes no style option after the colour */
	pt_buf_puts(b,
		    "EOD\nplot $box using 1:2:3:4:5 with candlesticks whiskerbars 0.5 lc rgb "
		    "'#4477aa' title 'quartiles, min-max', \\\n"
		    "  $box using 1:6:6:6:6 with candlesticks lc rgb '#222222' lw 2 notitle, \\\n"
		    "  $pts index 0 using 1:2 with points pt 7 ps 0.8 lc rgb '#4477aa' "
		    "title 'baseline samples', \\\n"
		    "  $pts index 1 using 1:2 with points pt 7 ps 0.8 lc rgb '#ee6677' "
		    "title 'tuned samples', \\\n"
		    "  $ci using 1:2:3:4 with yerrorbars pt 5 ps 1 lw 2 lc rgb '#228833' title ");
	gp_str(b, label);
	pt_buf_puts(b, "\n");
}

PERFTUNE_EXPORT int perftune_experiment_plot(struct perftune_experiment *e, const char *title,
					     const char *ylabel, unsigned flags, char **script)
{
	const char *terminal = "svg dynamic", *better = "lower";
	struct pt_buf b = { 0 };
	char label[160];

	if (!e || !title || !ylabel || !script || (flags & ~PERFTUNE_PLOT_PNG))
		return -EINVAL;
	*script = NULL;
	if (!perftune_experiment_samples(e, PERFTUNE_BASELINE, NULL) ||
	    !perftune_experiment_samples(e, PERFTUNE_TUNED, NULL))
		return -EINVAL; /* not run */
	if (flags & PERFTUNE_PLOT_PNG)
		terminal = "pngcairo";
	if (e->higher)
		better = "higher";
	/* no "set output": the picture goes to gnuplot's standard output */
	pt_buf_printf(&b, "set terminal %s size 800,560 font 'sans,12'\nset title ", terminal);
	snprintf(label, sizeof(label), "%s  (verdict: %s)", title,
		 perftune_verdict_name(perftune_experiment_verdict(e)));
	gp_str(&b, label);
	pt_buf_puts(&b, "\nset ylabel ");
	snprintf(label, sizeof(label), "%s, %s is better", ylabel, better);
	gp_str(&b, label);
	pt_buf_printf(&b,
		      "\nset xtics ('baseline (n=%zu)' 1, 'tuned (n=%zu)' 2)\n"
		      "set xrange [0.4:2.9]\nset grid ytics\nset key below box\n"
		      "set boxwidth 0.35\nset style fill transparent solid 0.25 border\n",
		      perftune_experiment_samples(e, PERFTUNE_BASELINE, NULL),
		      perftune_experiment_samples(e, PERFTUNE_TUNED, NULL));
	plot_data(&b, e);
	plot_ci(&b, e);
	*script = pt_buf_steal(&b);
	return *script ? 0 : -ENOMEM;
}
