// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A small fan-out for writes to different block devices.  An I/O scheduler
 * switch freezes the queue and waits for an RCU grace period (~25 ms, mostly
 * asleep in the kernel): switching N disks one after another costs N times
 * that, switching them from N threads about once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "io/parallel.h"

#define STACK_SIZE (512 * 1024)

struct pool {
	size_t n, next;
	void (*fn)(size_t i, void *ud);
	void *ud;
	pthread_mutex_t lock;
};

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;
		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		p->fn(i, p->ud);
	}
}

int pt_parallel(size_t n, size_t max, void (*fn)(size_t i, void *ud), void *ud)
{
	struct pool p = { .n = n, .fn = fn, .ud = ud };
	pthread_t *tids;
	pthread_attr_t attr;
	size_t started = 0;

	if (n == 0)
		return 0;
	if (max > PT_THREADS_MAX)
		max = PT_THREADS_MAX;
	if (n == 1 || max <= 1) { /* no thread for a single device */
		for (size_t i = 0; i < n; i++)
			fn(i, ud);
		return 0;
	}
	tids = calloc(n < max ? n : max, sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	pthread_mutex_init(&p.lock, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (; started < (n < max ? n : max); started++)
		if (pthread_create(&tids[started], &attr, worker, &p) != 0)
			break;
	if (started == 0)
		worker(&p); /* no threads to be had: do it here */
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_attr_destroy(&attr);
	pthread_mutex_destroy(&p.lock);
	free(tids);
	return 0;
}
