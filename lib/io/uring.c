// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Many blocking writes at once without a thread each: an io_uring whose
 * writes run in the kernel's own io-wq workers.  A scheduler switch sleeps
 * ~25 ms in the kernel; 256 of them from 256 threads cost 256 user stacks
 * (~34 KB touched each: 8.5 MB of RSS), from one ring nothing in user space.
 * Raw system calls (no liburing): a ring of n entries, filled once, submitted
 * once, reaped, torn down.  Where io_uring is missing, disabled
 * (kernel.io_uring_disabled) or filtered (seccomp), or older than 5.6
 * (IOSQE_ASYNC), pt_uring_write() answers -EOPNOTSUPP and the caller uses
 * threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "missing/missing-io_uring.h"
#include "io/uring.h"

#define URING_MAX 4096 /* entries of one ring */

struct ring {
	int fd;
	void *sq, *cq;
	size_t sq_size, cq_size;
	struct io_uring_sqe *sqes;
	size_t sqes_size;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static void ring_close(struct ring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_size);
	if (r->cq && r->cq != MAP_FAILED && r->cq != r->sq)
		munmap(r->cq, r->cq_size);
	if (r->sq && r->sq != MAP_FAILED)
		munmap(r->sq, r->sq_size);
	if (r->fd >= 0)
		close(r->fd);
}

static int ring_open(struct ring *r, unsigned entries)
{
	struct io_uring_params p;
	unsigned workers[2] = { entries, 0 }; /* bounded (file writes), unbounded: as is */

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -EOPNOTSUPP;
	if (!(p.features & IORING_FEAT_RW_CUR_POS)) { /* before 5.6: no IOSQE_ASYNC */
		close(r->fd);
		r->fd = -1;
		return -EOPNOTSUPP;
	}
	r->sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	r->cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		r->sq_size = r->cq_size = r->sq_size > r->cq_size ? r->sq_size : r->cq_size;
	r->sq = mmap(NULL, r->sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		     IORING_OFF_SQ_RING);
	if (r->sq == MAP_FAILED)
		goto fail;
	r->cq = (p.features & IORING_FEAT_SINGLE_MMAP)
			? r->sq
			: mmap(NULL, r->cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			       r->fd, IORING_OFF_CQ_RING);
	if (r->cq == MAP_FAILED)
		goto fail;
	r->sqes_size = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		goto fail;
	r->sq_tail = (unsigned *)((char *)r->sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)((char *)r->sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)((char *)r->sq + p.sq_off.array);
	r->cq_head = (unsigned *)((char *)r->cq + p.cq_off.head);
	r->cq_tail = (unsigned *)((char *)r->cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)((char *)r->cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq + p.cq_off.cqes);
	/* as many kernel workers as writes (default: 4 per CPU); before 5.15 the default stays */
	syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_IOWQ_MAX_WORKERS, workers, 2);
	return 0;
fail:
	ring_close(r);
	return -EOPNOTSUPP;
}

static int enter(int fd, unsigned submit, unsigned wait)
{
	long n;

	do
		n = syscall(__NR_io_uring_enter, fd, submit, wait, IORING_ENTER_GETEVENTS, NULL, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (int)n;
}

static int probe(void)
{
	struct ring r;

	if (ring_open(&r, 1) < 0)
		return 0;
	ring_close(&r);
	return 1;
}

bool pt_uring_available(void)
{
	static int known = -1; /* -1: not probed yet */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (getenv("PERFTUNE_NO_IO_URING")) /* perftune(8); read each time: the unit tier sets it */
		return false;
	if (k < 0) {
		k = probe();
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k;
}

int pt_uring_write(size_t n, const int *fds, const struct iovec *iov, int *res)
{
	struct ring r;
	size_t done = 0;
	unsigned tail;
	int k;

	if (n == 0)
		return 0;
	if (n > URING_MAX || ring_open(&r, (unsigned)n) < 0)
		return -EOPNOTSUPP;
	tail = *r.sq_tail;
	for (size_t i = 0; i < n; i++) {
		unsigned slot = (tail + (unsigned)i) & *r.sq_mask;
		struct io_uring_sqe *sqe = &r.sqes[slot];
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_WRITEV;
		sqe->flags = IOSQE_ASYNC; /* to a worker: a kernfs write would block the ring */
		sqe->fd = fds[i];
		sqe->addr = (uint64_t)(uintptr_t)&iov[i];
		sqe->len = 1;
		sqe->off = 0;
		sqe->user_data = i;
		r.sq_array[slot] = slot;
		res[i] = -EINPROGRESS;
	}
	__atomic_store_n(r.sq_tail, tail + (unsigned)n, __ATOMIC_RELEASE);
	k = enter(r.fd, (unsigned)n, 1);
	if (k < 0 || (size_t)k != n) { /* nothing or not all taken: whatever was, finishes */
		if (k <= 0) {
			ring_close(&r);
			return -EOPNOTSUPP;
		}
		n = (size_t)k;
	}
	while (done < n) {
		unsigned head = *r.cq_head, ctail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
		for (; head != ctail; head++) {
			struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];
			if (cqe->user_data < n)
				res[cqe->user_data] = cqe->res;
			done++;
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
		if (done < n && enter(r.fd, 0, 1) < 0)
			break; /* cannot wait: the ring's teardown waits for the writes */
	}
	ring_close(&r);
	return (int)n;
}

/* ---- waves: one write per device, all at once ---- */

int pt_wave_init(struct pt_wave *w, size_t cap)
{
	memset(w, 0, sizeof(*w));
	if (cap > PT_WAVE_MAX)
		cap = PT_WAVE_MAX;
	w->cap = cap;
	w->who = calloc(cap, sizeof(*w->who));
	w->fd = calloc(cap, sizeof(*w->fd));
	w->own = calloc(cap, sizeof(*w->own));
	w->iov = calloc(cap, sizeof(*w->iov));
	w->res = calloc(cap, sizeof(*w->res));
	w->path = calloc(cap, sizeof(*w->path));
	if (!w->who || !w->fd || !w->own || !w->iov || !w->res || !w->path) {
		pt_wave_free(w);
		return -ENOMEM;
	}
	return 0;
}

static void wave_close(struct pt_wave *w)
{
	for (size_t q = 0; q < w->n; q++)
		if (w->own[q])
			close(w->fd[q]);
	w->n = 0;
}

void pt_wave_free(struct pt_wave *w)
{
	if (w->own)
		wave_close(w);
	free(w->who);
	free(w->fd);
	free(w->own);
	free(w->iov);
	free(w->res);
	free(w->path);
	memset(w, 0, sizeof(*w));
}

void pt_wave_reset(struct pt_wave *w)
{
	wave_close(w);
}
