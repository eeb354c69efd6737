/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFTUNE_EXPERIMENT_METRIC_SCAN_H
#define PERFTUNE_EXPERIMENT_METRIC_SCAN_H

/*
 * perftune_metric_* (perftune compare --metric): the number that REGEX's one
 * capture group finds in the last line of a program's output where REGEX matches (its last match there),
 * found while the output is fed in chunks of any size: time linear in the
 * output, memory bounded by the longest line kept (PT_METRIC_LINE_MAX) whatever
 * the output's size.  Each line is only tested for a match (cheap); the
 * capture is taken once, from the last line that matched.  A longer line is
 * scanned in windows of PT_METRIC_LINE_MAX bytes: a window keeps the matches that
 * end in its first part (all but the last 1/16), the next one starts where the
 * first match it did not keep starts (or where that part ends), so a match
 * shorter than 1/16 of the window is found as in the whole line.  Where the
 * windows fall depends on the line alone, never on how the output was cut into
 * chunks.  No I/O: the fuzz target and the unit test feed it directly.
 */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#define PT_METRIC_LINE_MAX (1024 * 1024)
#define PT_METRIC_NUM_MAX 64 /* the capture kept: a number is shorter */

struct pt_metric_scan {
	const regex_t *re; /* compiled with REG_EXTENDED | REG_NEWLINE, one group */
	size_t max;	   /* the window: PT_METRIC_LINE_MAX (tests make it small) */
	char *line;	   /* the current line (window) so far, at most max + 1 bytes, and a NUL */
	size_t len;
	bool window; /* line[0] is not the line's start (a long line's later window) */
	char *hit;   /* the last line that matched, its capture not taken yet */
	size_t hit_len;
	bool hit_window, have_hit;
	bool taken;		      /* a match of this line was taken (a window's) */
	bool matched;		      /* REGEX matched somewhere */
	bool found;		      /* and its group captured: @last */
	char last[PT_METRIC_NUM_MAX]; /* the capture, NUL-terminated, cut to fit */
	size_t last_len;	      /* its length before the cut */
};

/* scan with @re, lines kept up to @max bytes (0: PT_METRIC_LINE_MAX, at least
 * 16); 0, or -ENOMEM */
int pt_metric_scan_init(struct pt_metric_scan *s, const regex_t *re, size_t max);
/* the next @n bytes of the output */
void pt_metric_scan_feed(struct pt_metric_scan *s, const char *data, size_t n);
/* the end of the output: a last line without a newline is matched */
void pt_metric_scan_end(struct pt_metric_scan *s);
/* forget the output so far, for the next one (the buffers stay) */
void pt_metric_scan_reset(struct pt_metric_scan *s);
void pt_metric_scan_free(struct pt_metric_scan *s);
/* the number captured last: 0; or with the reason in @why, naming @regex:
 * -ENOENT ("'RE' matched nothing"), -ENODATA ("'RE' captured nothing in the
 * last line it matched"), -EINVAL ("'RE' captured 'x', which is not a number") */
int pt_metric_scan_value(const struct pt_metric_scan *s, const char *regex, double *v, char *why,
			 size_t wsize);

#endif
