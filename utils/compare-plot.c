// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune compare --plot: both distributions with gnuplot.  gnuplot runs as a
 * fixed program (execve, no shell) found where only root can change it when
 * perftune is root; it reads our script on its standard input and writes the
 * picture to its standard output, which is the plot file perftune made (an
 * out_file: gnuplot never opens a path), with -d (no gnuplotrc, no ~/.gnuplot,
 * no $XDG_CONFIG_HOME/gnuplot/gnuplotrc), an environment of PATH alone (no
 * HOME, no GNUPLOT_* variables, no locale or font paths of the caller) and /
 * as its working directory.  Every string we put into the script is quoted
 * for gnuplot and stripped of control characters. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
	struct perftune_experiment *e = c->exp;
	const char *ylabel = c->metric ? c->metric : "wall time (s)";
	bool png = !strcmp(c->plot + strlen(c->plot) - 4, ".png");
	char cmd[120], label[160];
	double bmed = perftune_experiment_median(e, PERFTUNE_BASELINE);
	double tmed = perftune_experiment_median(e, PERFTUNE_TUNED);
	double lo = perftune_experiment_ci95_low(e), hi = perftune_experiment_ci95_high(e);

	/* no "set output": the picture goes to gnuplot's standard output */
	fprintf(f, "set terminal %s size 800,560 font 'sans,12'\n",
		png ? "pngcairo" : "svg dynamic");
	cmdline(c, cmd, sizeof(cmd));
	fputs("set title ", f);
	snprintf(label, sizeof(label), "perftune compare: %s  (verdict: %s)", cmd,
		 perftune_verdict_name(perftune_experiment_verdict(e)));
	gp_str(f, label);
	fputs("\nset ylabel ", f);
	snprintf(label, sizeof(label), "%s, %s is better", ylabel, c->higher ? "higher" : "lower");
	gp_str(f, label);
	fprintf(f,
		"\nset xtics ('baseline (n=%zu)' 1, 'tuned (n=%zu)' 2)\n"
		"set xrange [0.4:2.9]\nset grid ytics\nset key below box\n"
		"set boxwidth 0.35\nset style fill transparent solid 0.25 border\n",
		c->n[PERFTUNE_BASELINE], c->n[PERFTUNE_TUNED]);
	/* the boxes: q1, min, max, q3 (candlesticks) and the median */
	fputs("$box << EOD\n", f);
	for (int s = 0; s < 2; s++) {
		double min = INFINITY, max = -INFINITY;
		for (size_t i = 0; i < c->n[s]; i++) {
			min = fmin(min, c->s[s][i].value);
			max = fmax(max, c->s[s][i].value);
		}
		fprintf(f, "%d %.10g %.10g %.10g %.10g %.10g\n", s + 1,
			perftune_experiment_q1(e, s), min, max, perftune_experiment_q3(e, s),
			perftune_experiment_median(e, s));
	}
	fputs("EOD\n$pts << EOD\n", f);
	for (int s = 0; s < 2; s++) {
		/* jitter along a golden-ratio sequence: every sample visible, the
		 * same picture for the same samples */
		for (size_t i = 0; i < c->n[s]; i++)
			fprintf(f, "%.4f %.10g\n",
				s + 1 + (fmod((double)i * 0.6180339887, 1) - 0.5) * 0.25,
				c->s[s][i].value);
		fputs(s ? "" : "\n\n", f); /* two blank lines: the next "index" */
	}
	/* the CI of the change, drawn where the tuned median would be: baseline
	 * median times (1 + change), beside the tuned box */
	fputs("EOD\n$ci << EOD\n", f);
	if (isfinite(lo))
		fprintf(f, "2.4 %.10g %.10g %.10g\n", tmed, bmed * (1 + lo / 100),
			bmed * (1 + hi / 100));
	else
		fprintf(f, "2.4 %.10g %.10g %.10g\n", tmed, tmed, tmed);
	snprintf(label, sizeof(label), "change of the median %+.1f%%, 95%% CI %+.1f%% .. %+.1f%%",
		 perftune_experiment_change_pct(e), lo, hi);
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

/* "" if as root @prog may be run: it and the directories above it can be
 * changed by root alone (a directory others write only with the sticky bit),
 * else why not */
static int trusted(const char *prog, char *why, size_t size)
{
	char real[PATH_MAX], *slash;
	struct stat st;

	if (geteuid() != 0)
		return 0;
	if (!realpath(prog, real)) {
		snprintf(why, size, "%s: %s", prog, strerror(errno));
		return -EPERM;
	}
	for (bool file = true;; file = false) {
		const char *bad = NULL;
		if (stat(real[0] ? real : "/", &st) < 0)
			bad = strerror(errno);
		else if (st.st_uid != 0)
			bad = "owned by another user than root";
		else if ((st.st_mode & S_IWGRP) && st.st_gid != 0)
			bad = "writable by its group";
		else if ((st.st_mode & S_IWOTH) && (file || !(st.st_mode & S_ISVTX)))
			bad = "writable by others";
		if (bad) {
			snprintf(why, size,
				 "gnuplot %s: %s is %s: as root, perftune runs no program "
				 "that others can change",
				 prog, real[0] ? real : "/", bad);
			return -EPERM;
		}
		if (!real[0])
			return 0;
		slash = strrchr(real, '/');
		*slash = '\0'; /* "/usr/bin" -> "/usr" -> "" (the root) */
	}
}

int compare_find_gnuplot(struct compare *c, char *why, size_t size)
{
	const char *env = getenv("PERFTUNE_GNUPLOT");

	/* as root, not the caller's PATH: it may be another user's (sudo -E, su -m) */
	c->gnuplot = find_program(env ? env : "gnuplot",
				  geteuid() == 0 ? "/usr/local/bin:/usr/bin:/bin" : NULL);
	*why = '\0';
	if (!c->gnuplot) {
		if (env)
			snprintf(why, size, " (PERFTUNE_GNUPLOT=%s is no program)", env);
		return -ENOENT;
	}
	return trusted(c->gnuplot, why, size);
}

/* gnuplot, in a child: @script on stdin, the plot file on stdout */
static void run_gnuplot(struct compare *c, int script, int out)
{
	char *const argv[] = { c->gnuplot, "-d", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", NULL };

	if (dup2(script, 0) < 0 || dup2(out, 1) < 0 || chdir("/") < 0)
		_exit(127);
	execve(c->gnuplot, argv, envp);
	dprintf(2, "%s: --plot: cannot run %s: %s\n", program, c->gnuplot, strerror(errno));
	_exit(127);
}

/* the script in a memory file, read from its start */
static int make_script(struct compare *c)
{
	int fd = memfd_create("perftune-plot", MFD_CLOEXEC), dupfd;
	FILE *f;

	if (fd < 0)
		return -1;
	dupfd = dup(fd);
	if (dupfd < 0 || !(f = fdopen(dupfd, "w"))) {
		if (dupfd >= 0)
			close(dupfd);
		close(fd);
		return -1;
	}
	write_script(c, f);
	if (fclose(f) != 0 || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int compare_plot(struct compare *c)
{
	struct out_file out;
	char why[256];
	int script = make_script(c), status = 0, r;
	pid_t pid = -1;

	if (script < 0) {
		fprintf(stderr, "%s: --plot: cannot write a gnuplot script: %s\n", program,
			strerror(errno));
		return EXIT_FAIL;
	}
	r = out_file_open(&out, c->plot, out_file_mode(), why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "%s: --plot %s: %s\n", program, c->plot, why);
		out_file_close(&out);
		close(script);
		return EXIT_FAIL;
	}
	pid = fork();
	if (pid == 0)
		run_gnuplot(c, script, out.fd);
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	close(script);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: --plot %s: gnuplot (%s) failed\n", program, c->plot,
			c->gnuplot);
		out_file_close(&out);
		return EXIT_FAIL;
	}
	r = out_file_commit(&out, why, sizeof(why));
	out_file_close(&out);
	if (r < 0) {
		fprintf(stderr, "%s: --plot %s: %s\n", program, c->plot, why);
		return EXIT_FAIL;
	}
	return 0;
}
