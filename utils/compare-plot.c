// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune compare --plot: both distributions with gnuplot.  gnuplot runs as a
 * fixed program (execv, no shell) on a script file we write; every string we put
 * into the script is quoted for gnuplot and stripped of control characters. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "compare.h"

/* a gnuplot single-quoted string: ' is doubled, control characters dropped */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void cmdline(struct compare *c, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (char **a = c->cmd; *a && len + 1 < size; a++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", a == c->cmd ? "" : " ", *a);
	if (len >= size && size > 4)
		strcpy(buf + size - 4, "...");
}

static void write_script(struct compare *c, FILE *f)
{
	const struct compare_state *b = &c->st[BASELINE], *t = &c->st[TUNED];
	const char *ylabel = c->metric ? c->metric : "wall time (s)";
	bool png = !strcmp(c->plot + strlen(c->plot) - 4, ".png");
	char cmd[120], label[160];
	uint64_t rng = c->seed;

	fprintf(f, "set terminal %s size 800,560 font 'sans,12'\nset output ",
		png ? "pngcairo" : "svg dynamic");
	gp_str(f, c->plot);
	cmdline(c, cmd, sizeof(cmd));
	fputs("\nset title ", f);
	snprintf(label, sizeof(label), "perftune compare: %s  (verdict: %s)", cmd, c->verdict);
	gp_str(f, label);
	fputs("\nset ylabel ", f);
	snprintf(label, sizeof(label), "%s, %s is better", ylabel, c->higher ? "higher" : "lower");
	gp_str(f, label);
	fprintf(f,
		"\nset xtics ('baseline (n=%zu)' 1, 'tuned (n=%zu)' 2)\n"
		"set xrange [0.4:2.9]\nset grid ytics\nset key below box\n"
		"set boxwidth 0.35\nset style fill transparent solid 0.25 border\n",
		b->n, t->n);
	/* the boxes: q1, min, max, q3 (candlesticks) and the median */
	fputs("$box << EOD\n", f);
	for (int s = 0; s < 2; s++) {
		const struct stats_summary *m = &c->st[s].sum;
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < c->st[s].n; i++) {
			lo = fmin(lo, c->st[s].values[i]);
			hi = fmax(hi, c->st[s].values[i]);
		}
		fprintf(f, "%d %.10g %.10g %.10g %.10g %.10g\n", s + 1, m->q1, lo, hi, m->q3,
			m->median);
	}
	fputs("EOD\n$pts << EOD\n", f);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < c->st[s].n; i++) /* seeded jitter: every sample visible */
			fprintf(f, "%.4f %.10g\n", s + 1 + (stats_uniform(&rng) - 0.5) * 0.25,
				c->st[s].values[i]);
		fputs(s ? "" : "\n\n", f); /* two blank lines: the next "index" */
	}
	/* the CI of the change, drawn where the tuned median would be: baseline
	 * median times (1 + change), beside the tuned box */
	fputs("EOD\n$ci << EOD\n", f);
	if (isfinite(c->lo))
		fprintf(f, "2.4 %.10g %.10g %.10g\n", t->sum.median,
			b->sum.median * (1 + c->lo / 100), b->sum.median * (1 + c->hi / 100));
	else
		fprintf(f, "2.4 %.10g %.10g %.10g\n", t->sum.median, t->sum.median, t->sum.median);
	snprintf(label, sizeof(label), "change of the median %+.1f%%, 95%% CI %+.1f%% .. %+.1f%%",
		 c->change, c->lo, c->hi);
	/* whiskerbars before lc: gnuplot 5.4 takes no style option after the colour */
	fputs("EOD\nplot $box using 1:2:3:4:5 with candlesticks whiskerbars 0.5 lc rgb '#4477aa' "
	      "title 'quartiles, min-max', \\\n"
	      "  $box using 1:6:6:6:6 with candlesticks lc rgb '#222222' lw 2 notitle, \\\n"
	      "  $pts index 0 using 1:2 with points pt 7 ps 0.8 lc rgb '#4477aa' "
	      "title 'baseline samples', \\\n"
	      "  $pts index 1 using 1:2 with points pt 7 ps 0.8 lc rgb '#ee6677' "
	      "title 'tuned samples', \\\n"
	      "  $ci using 1:2:3:4 with yerrorbars pt 5 ps 1 lw 2 lc rgb '#228833' title ",
	      f);
	gp_str(f, label);
	fputc('\n', f);
}

int compare_plot(struct compare *c)
{
	char script[] = "/tmp/perftune-plot-XXXXXX";
	int fd = mkstemp(script), status = 0, null;
	FILE *f;
	pid_t pid;

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "%s: --plot: cannot write a gnuplot script: %s\n", program,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_FAIL;
	}
	write_script(c, f);
	fclose(f);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { c->gnuplot, script, NULL };
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execv(c->gnuplot, argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	unlink(script);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: --plot %s: gnuplot (%s) failed\n", program, c->plot,
			c->gnuplot);
		return EXIT_FAIL;
	}
	return 0;
}
