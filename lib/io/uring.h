/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uring.c: writes to many files at once through io_uring, in waves. */
#ifndef PERFTUNE_IO_URING_H
#define PERFTUNE_IO_URING_H

#include <stdbool.h>
#include <stddef.h>

/*
 * uring.c: write iov[i] to fds[i] at offset 0, all at once, in the kernel's
 * io-wq workers; res[i] = bytes written or -errno, -EINPROGRESS where the
 * outcome is unknown (write it yourself: it is the same value).  Returns how
 * many were submitted, or -EOPNOTSUPP without io_uring (use threads).
 */
struct iovec;
bool pt_uring_available(void); /* probed once */
int pt_uring_write(size_t n, const int *fds, const struct iovec *iov, int *res);
/*
 * A wave: the next write of each of many devices, made at once with
 * pt_uring_write() through their kept fds (or fds of its own when the cache
 * is full).  add: 1 queued, 0 full (the next wave), -errno cannot open.
 * Run: pt_attr_write_batch().  After it, res[q] is 0, -errno (the kernel's
 * answer), or -EINPROGRESS: write it again yourself (not known, busy or gone).
 */
#define PT_WAVE_MAX 256
struct pt_wave {
	size_t n, cap;
	size_t *who; /* the caller's index of each write */
	int *fd;
	bool *own;
	struct iovec *iov;
	int *res;
	const char **path; /* the caller's strings, for the write hook */
};
int pt_wave_init(struct pt_wave *w, size_t cap);
void pt_wave_reset(struct pt_wave *w); /* for the next wave */
void pt_wave_free(struct pt_wave *w);

#endif
