// SPDX-License-Identifier: LGPL-2.1-or-later
/* The last number a regex captures in a program's output, streamed line by
 * line (metric-scan.h says which, and how long lines are cut): the scanner
 * behind perftune_metric_*, with no I/O and nothing else of the library. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metric-scan.h"

int pt_metric_scan_init(struct pt_metric_scan *s, const regex_t *re, size_t max)
{
	*s = (struct pt_metric_scan){ .re = re, .max = max };
	if (!max)
		s->max = PT_METRIC_LINE_MAX;
	if (s->max < 16)
		s->max = 16;
	s->line = malloc(s->max + 2);
	s->hit = malloc(s->max + 2);
	if (s->line && s->hit) {
		s->line[0] = s->hit[0] = '\0';
		s->line[s->max + 1] = s->hit[s->max + 1] = '\0'; /* after the longest data */
		return 0;
	}
	pt_metric_scan_free(s);
	return -ENOMEM;
}

void pt_metric_scan_reset(struct pt_metric_scan *s)
{
	struct pt_metric_scan keep = { .re = s->re, .max = s->max, .line = s->line, .hit = s->hit };

	*s = keep;
	s->line[0] = s->hit[0] = '\0';
}

void pt_metric_scan_free(struct pt_metric_scan *s)
{
	free(s->line);
	free(s->hit);
	s->line = s->hit = NULL;
}

/* regexec of @p[0..@len) (REG_STARTEND: regexec runs no strlen() over the rest
 * of the line for each match, and a NUL byte is a character).  The buffers
 * still end in a NUL after the data: sanitizers' regexec interceptors read
 * the string up to one. */
static int exec(const struct pt_metric_scan *s, const char *p, size_t len, size_t nmatch,
		regmatch_t *m, int flags)
{
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	return regexec(s->re, p, nmatch, m, REG_STARTEND | flags);
}

/* The matches in @p[0..@len), one after the other, as far as @keep: those that
 * end by @keep are taken, the capture of the last one with its group kept;
 * returns where the first one not taken starts, or @keep.  @notbol: @p is not
 * where the line starts; @noteol: nor where it ends. */
static size_t take(struct pt_metric_scan *s, const char *p, size_t len, size_t keep, bool notbol,
		   bool noteol)
{
	regmatch_t m[2];
	size_t pos = 0;
	int eflags = 0;

	if (noteol)
		eflags |= REG_NOTEOL;
	do {
		if (notbol || pos)
			eflags |= REG_NOTBOL;
		if (exec(s, p + pos, len - pos, 2, m, eflags) != 0)
			break;
		if (pos + (size_t)m[0].rm_eo > keep && pos + (size_t)m[0].rm_so == 0)
			return keep;
		if (pos + (size_t)m[0].rm_eo > keep)
			return pos + (size_t)m[0].rm_so;
		s->matched = true;
		s->have_hit = false; /* a later match than the pending line's */
		if (!s->taken) /* the first of its line: the capture is this line's, or none */
			s->found = false;
		s->taken = true;
		if (m[1].rm_so >= 0) {
			size_t n = (size_t)(m[1].rm_eo - m[1].rm_so);
			s->found = true;
			s->last_len = n;
			if (n >= PT_METRIC_NUM_MAX)
				n = PT_METRIC_NUM_MAX - 1;
			memcpy(s->last, p + pos + m[1].rm_so, n);
			s->last[n] = '\0';
		}
		pos += (size_t)m[0].rm_eo;
		if (m[0].rm_eo == 0) /* an empty match: on by one */
			pos++;
	} while (pos < len);
	return keep;
}

/* the line holds max + 1 bytes and goes on: take the matches of a window of
 * max bytes, and keep what the next window starts with */
static void next_window(struct pt_metric_scan *s)
{
	size_t from = take(s, s->line, s->max, s->max - s->max / 16, s->window, true);

	s->len -= from;
	memmove(s->line, s->line + from, s->len + 1);
	s->window = true;
}

/* a line (or a long line's last window) ends: if it matches, it is the hit */
static void line_end(struct pt_metric_scan *s)
{
	regmatch_t m[1];
	char *p = s->line;

	if (exec(s, s->line, s->len, 0, m, s->window ? REG_NOTBOL : 0) == 0) {
		s->line = s->hit; /* the buffers swap: no copy */
		s->line[0] = '\0';
		s->hit = p;
		s->hit_len = s->len;
		s->hit_window = s->window;
		s->have_hit = true;
		s->matched = true;
	}
	s->len = 0;
	s->window = false;
	s->taken = false;
}

void pt_metric_scan_feed(struct pt_metric_scan *s, const char *data, size_t n)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t seg = nl ? (size_t)(nl - data) : n;
		while (seg) {
			size_t k = s->max + 1 - s->len;
			if (k > seg)
				k = seg;
			memcpy(s->line + s->len, data, k);
			s->len += k;
			s->line[s->len] = '\0';
			data += k;
			n -= k;
			seg -= k;
			if (s->len > s->max)
				next_window(s);
		}
		if (nl) {
			line_end(s);
			data++;
			n--;
		}
	}
}

void pt_metric_scan_end(struct pt_metric_scan *s)
{
	if (s->len || s->window)
		line_end(s);
	if (s->have_hit) {
		take(s, s->hit, s->hit_len, s->hit_len, s->hit_window, false);
		s->have_hit = false;
	}
}

int pt_metric_scan_value(const struct pt_metric_scan *s, const char *regex, double *v, char *why,
			 size_t wsize)
{
	char num[PT_METRIC_NUM_MAX], *end;
	size_t n = strlen(s->last);
	bool cut = s->last_len > n;

	if (!s->found && !s->matched) {
		snprintf(why, wsize, "'%s' matched nothing", regex);
		return -ENOENT;
	}
	if (!s->found) {
		snprintf(why, wsize, "'%s' captured nothing in the last line it matched", regex);
		return -ENODATA;
	}
	/* the capture in a message: control characters of the output shown as '?' */
	for (size_t i = 0; i <= n; i++) {
		num[i] = s->last[i];
		if (num[i] && (unsigned char)num[i] < 0x20)
			num[i] = '?';
	}
	errno = 0;
	*v = strtod(s->last, &end);
	if (cut || end == s->last || *end || errno || !isfinite(*v)) {
		snprintf(why, wsize, "'%s' captured '%s%s', which is not a number", regex, num,
			 cut ? "..." : "");
		return -EINVAL;
	}
	return 0;
}
