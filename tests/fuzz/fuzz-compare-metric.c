// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune compare --metric's scanner (lib/experiment/metric-scan.c) on CMD output.
 * The first byte picks a regex (a fixed list: glibc's regex engine is not
 * what is fuzzed here), the second the chunk sizes, the rest is the output.
 * Checks: the result is the same fed at once and in chunks, with a window
 * longer than any input (8 kB: max_len is 4 kB; the real 1 MiB one costs a
 * large allocation per run) and with one of 16 to 79 bytes that long lines
 * cross; with the long window it is what a plain scan of each whole line
 * finds: the last match of the last line that matches.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metric-scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WHOLE_LINES 8192 /* a window no input line reaches (run: max_len=4096) */

static const char *const regexes[] = {
	"result: ([0-9.]+)",  "^t=([0-9]+)$", "([0-9]+)",	    "x([0-9])?", "(a*)",
	"tps = ([0-9.e+-]+)", "([^ ]*) ms$",  "^([^:]*):",	    "()",	 "(.)",
	"v=([0-9]+)\r?$",     "(b|bb)+(c)?",  "[[:space:]]([0-9])", "(z*)$",
};

struct outcome {
	int rc;
	double v;
	char why[200];
};

static void fail(const char *what, const struct outcome *a, const struct outcome *b)
{
	fprintf(stderr, "%s: rc %d v %.17g '%s' against rc %d v %.17g '%s'\n", what, a->rc, a->v,
		a->why, b->rc, b->v, b->why);
	abort();
}

static void same(const char *what, const struct outcome *a, const struct outcome *b)
{
	if (a->rc != b->rc || strcmp(a->why, b->why) || (a->rc == 0 && a->v != b->v))
		fail(what, a, b);
}

/* the scanner over @out, in chunks drawn from @seed (0: at once) */
static struct outcome scan(const regex_t *re, const char *pattern, const char *out, size_t len,
			   unsigned seed, size_t max)
{
	struct outcome o = { 0 };
	struct pt_metric_scan s;

	if (pt_metric_scan_init(&s, re, max) < 0)
		abort();
	for (size_t off = 0; off < len;) {
		size_t n = seed ? 1 + (seed = seed * 1103515245 + 12345) % 97 : len;
		if (n > len - off)
			n = len - off;
		pt_metric_scan_feed(&s, out + off, n);
		off += n;
	}
	pt_metric_scan_end(&s);
	o.rc = pt_metric_scan_value(&s, pattern, &o.v, o.why, sizeof(o.why));
	if (s.len || s.have_hit)
		abort(); /* everything was taken at the end */
	pt_metric_scan_free(&s);
	return o;
}

/* the plain scan: each whole line, every match, the last line that matches */
static struct outcome reference(const regex_t *re, const char *pattern, const char *out, size_t len)
{
	struct outcome o = { .rc = -1 };
	char last[PT_METRIC_NUM_MAX] = "";
	size_t last_len = 0;
	bool matched = false, found = false;

	for (size_t start = 0; start < len;) {
		const char *nl = memchr(out + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - out) : len, pos = start;
		bool line_matched = false;
		regmatch_t m[2];
		do {
			m[0].rm_so = (regoff_t)pos;
			m[0].rm_eo = (regoff_t)end;
			if (regexec(re, out, 2, m, REG_STARTEND | (pos > start ? REG_NOTBOL : 0)))
				break;
			if (!line_matched)
				found = false;
			line_matched = matched = true;
			if (m[1].rm_so >= 0) {
				last_len = (size_t)(m[1].rm_eo - m[1].rm_so);
				snprintf(last, sizeof(last), "%.*s",
					 (int)(last_len < sizeof(last) ? last_len
								       : sizeof(last) - 1),
					 out + m[1].rm_so);
				found = true;
			}
			pos = m[0].rm_eo > (regoff_t)pos ? (size_t)m[0].rm_eo : pos + 1;
		} while (pos < end);
		start = end + 1;
	}
	/* the same message and number as the scanner's, from what was found here */
	{
		struct pt_metric_scan s = { .matched = matched, .found = found, .last_len = last_len };
		memcpy(s.last, last, sizeof(last));
		o.rc = pt_metric_scan_value(&s, pattern, &o.v, o.why, sizeof(o.why));
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *pattern;
	struct outcome whole, chunked, small, small_chunked, ref;
	unsigned seed;
	char *out;
	regex_t re;

	if (size < 2)
		return 0;
	pattern = regexes[data[0] % (sizeof(regexes) / sizeof(regexes[0]))];
	seed = data[1] | 1u;
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE))
		abort();
	/* the plain scan's regexec gets the output whole: NUL-terminated after it
	 * for the sanitizer's interceptor, which reads up to a NUL */
	out = malloc(size - 1);
	if (!out)
		abort();
	memcpy(out, data + 2, size - 2);
	out[size - 2] = '\0';
	whole = scan(&re, pattern, (const char *)data + 2, size - 2, 0, WHOLE_LINES);
	chunked = scan(&re, pattern, (const char *)data + 2, size - 2, seed, WHOLE_LINES);
	same("whole against chunked", &whole, &chunked);
	ref = reference(&re, pattern, out, size - 2);
	same("scanner against the plain scan of each line", &whole, &ref);
	/* windows of 16 to 79 bytes: lines longer than that are cut */
	small = scan(&re, pattern, (const char *)data + 2, size - 2, 0, 16 + data[1] % 64);
	small_chunked =
		scan(&re, pattern, (const char *)data + 2, size - 2, seed, 16 + data[1] % 64);
	same("small windows: whole against chunked", &small, &small_chunked);
	regfree(&re);
	free(out);
	return 0;
}
