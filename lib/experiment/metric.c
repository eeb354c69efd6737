// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune_metric_*: the number a program's output reports (perftune compare
 * --metric), read while the output streams in (the scanner: metric-scan.c).
 * The caller runs the program and feeds its output, or the file descriptor
 * it reads it from: nothing here runs one. */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "core/log.h"
#include "metric-scan.h"

struct perftune_metric {
	struct perftune_ctx *ctx; /* a reference */
	char *regex;
	regex_t re;
	struct pt_metric_scan scan;
};

PERFTUNE_EXPORT int perftune_metric_new(struct perftune_ctx *ctx, const char *regex,
					struct perftune_metric **metricp)
{
	struct perftune_metric *m;
	char err[256];
	int r;

	if (!ctx || !regex || !metricp)
		return -EINVAL;
	*metricp = NULL;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->regex = strdup(regex))) {
		free(m);
		return pt_err(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	r = regcomp(&m->re, regex, REG_EXTENDED | REG_NEWLINE);
	if (r) {
		regerror(r, &m->re, err, sizeof(err));
		free(m->regex);
		free(m);
		return pt_err(ctx, -EINVAL, "'%s': %s", regex, err);
	}
	m->ctx = perftune_ctx_ref(ctx);
	if (m->re.re_nsub != 1) {
		r = pt_err(ctx, -EINVAL,
			   "'%s' has %zu capture groups: it needs exactly one, around the "
			   "number, e.g. 'time: ([0-9.]+)'",
			   regex, m->re.re_nsub);
		perftune_metric_free(m);
		return r;
	}
	if (pt_metric_scan_init(&m->scan, &m->re, 0) < 0) {
		perftune_metric_free(m);
		return pt_err(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	*metricp = m;
	return 0;
}

PERFTUNE_EXPORT void perftune_metric_free(struct perftune_metric *m)
{
	if (!m)
		return;
	pt_metric_scan_free(&m->scan);
	regfree(&m->re);
	free(m->regex);
	perftune_ctx_unref(m->ctx);
	free(m);
}

PERFTUNE_EXPORT void perftune_metric_feed(struct perftune_metric *m, const void *data, size_t size)
{
	if (m && data)
		pt_metric_scan_feed(&m->scan, data, size);
}

#define FEED_CHUNK (1024 * 1024)

/* all @n bytes of @buf to @fd: 0, or the errno of the write */
static int copy_out(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		if (w == 0)
			return EIO;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

PERFTUNE_EXPORT int perftune_metric_feed_fd(struct perftune_metric *m, int fd, int copy_fd)
{
	int copy_err = 0, err = 0;
	char *buf;
	ssize_t n;

	if (!m || fd < 0)
		return -EINVAL;
	buf = malloc(FEED_CHUNK);
	if (!buf)
		err = ENOMEM;
	while (buf && (n = read(fd, buf, FEED_CHUNK)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		/* a copy that fails stops; the metric still reads the output to its end */
		if (copy_fd >= 0 && !copy_err)
			copy_err = copy_out(copy_fd, buf, (size_t)n);
		pt_metric_scan_feed(&m->scan, buf, (size_t)n);
	}
	free(buf);
	if (err) {
		pt_metric_scan_reset(&m->scan); /* this output is lost: ready for the next */
		return pt_err(m->ctx, -err, "cannot read the output: %s", strerror(err));
	}
	if (copy_err)
		return pt_err(m->ctx, copy_err, "cannot copy the output: %s", strerror(copy_err));
	return 0;
}

PERFTUNE_EXPORT int perftune_metric_end(struct perftune_metric *m, double *value)
{
	char why[PT_METRIC_NUM_MAX + 512];
	int r;

	if (!m || !value)
		return -EINVAL;
	pt_metric_scan_end(&m->scan);
	r = pt_metric_scan_value(&m->scan, m->regex, value, why, sizeof(why));
	/* ready for the next output: the buffers are kept */
	pt_metric_scan_reset(&m->scan);
	if (r < 0)
		return pt_err(m->ctx, r, "%s", why);
	return 0;
}
