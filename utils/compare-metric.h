/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_UTILS_COMPARE_METRIC_H
#define PERFTUNE_UTILS_COMPARE_METRIC_H

/*
 * perftune compare --metric: the number that REGEX's one capture group finds in
 * the last line of CMD's output where REGEX matches (its last match there),
 * found while the output is fed in chunks of any size: time linear in the
 * output, memory bounded by the longest line kept (METRIC_LINE_MAX) whatever
 * the output's size.  Each line is only tested for a match (cheap); the
 * capture is taken once, from the last line that matched.  A longer line is
 * scanned in windows of METRIC_LINE_MAX bytes: a window keeps the matches that
 * end in its first part (all but the last 1/16), the next one starts where the
 * first match it did not keep starts (or where that part ends), so a match
 * shorter than 1/16 of the window is found as in the whole line.  Where the
 * windows fall depends on the line alone, never on how the output was cut into
 * chunks.  No I/O: the fuzz target and the unit test feed it directly.
 */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#define METRIC_LINE_MAX (1024 * 1024)
#define METRIC_NUM_MAX 64 /* the capture kept: a number is shorter */

struct metric_scan {
	const regex_t *re; /* compiled with REG_EXTENDED | REG_NEWLINE, one group */
	size_t max;	   /* the window: METRIC_LINE_MAX (tests make it small) */
	char *line;	   /* the current line (window) so far, at most max + 1 bytes, and a NUL */
	size_t len;
	bool window; /* line[0] is not the line's start (a long line's later window) */
	char *hit;   /* the last line that matched, its capture not taken yet */
	size_t hit_len;
	bool hit_window, have_hit;
	bool taken;		   /* a match of this line was taken (a window's) */
	bool matched;		   /* REGEX matched somewhere */
	bool found;		   /* and its group captured: @last */
	char last[METRIC_NUM_MAX]; /* the capture, NUL-terminated, cut to fit */
	size_t last_len;	   /* its length before the cut */
};

/* scan with @re, lines kept up to @max bytes (0: METRIC_LINE_MAX, at least
 * 16); 0, or -ENOMEM */
int metric_scan_init(struct metric_scan *s, const regex_t *re, size_t max);
/* the next @n bytes of the output */
void metric_scan_feed(struct metric_scan *s, const char *data, size_t n);
/* the end of the output: a last line without a newline is matched */
void metric_scan_end(struct metric_scan *s);
void metric_scan_free(struct metric_scan *s);
/* the number captured last: 0, or -1 with @why ("--metric 'RE' matched nothing in
 * CMD's output", "... captured 'x', which is not a number") */
int metric_scan_value(const struct metric_scan *s, const char *metric, double *v, char *why,
		      size_t wsize);

#endif
