// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who holds a journal: this boot (its boot id), and a process known by its pid
 * and start time, so that a pid used again by another process is no holder.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "macro.h"
#include "shared/util.h"
#include "engine/holder.h"

/* the boot id: read once (a process does not outlive its boot) */
static char boot_cache[64];
static pthread_once_t boot_once = PTHREAD_ONCE_INIT;

static void boot_read(void)
{
	_cleanup_close_ int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, boot_cache, sizeof(boot_cache) - 1) : -1;

	boot_cache[n > 0 ? n : 0] = '\0';
	pt_trim(boot_cache);
	if (!boot_cache[0])
		snprintf(boot_cache, sizeof(boot_cache), "unknown");
}

void pt_boot_id(char *buf, size_t size)
{
	pthread_once(&boot_once, boot_read);
	snprintf(buf, size, "%s", boot_cache);
}

static unsigned long long proc_starttime(pid_t pid)
{
	char p[64], buf[1024], *rp;
	unsigned long long st = 0;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return 0;
	buf[n] = '\0';
	rp = strrchr(buf, ')'); /* comm may contain spaces */
	if (!rp || sscanf(rp + 2,
			  "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			  "%*d %*d %*d %*d %llu",
			  &st) != 1)
		return 0;
	return st;
}

/* this process's start time, read once per process (a fork reads its own) */
unsigned long long pt_self_starttime(void)
{
	static pid_t pid;
	static unsigned long long st;
	pid_t now = getpid();

	if (__atomic_load_n(&pid, __ATOMIC_ACQUIRE) != now) {
		unsigned long long v = proc_starttime(now);
		__atomic_store_n(&st, v, __ATOMIC_RELAXED);
		__atomic_store_n(&pid, now, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&st, __ATOMIC_RELAXED);
}

bool pt_holder_alive(pid_t pid, unsigned long long starttime)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	return proc_starttime(pid) == starttime; /* a reused pid is not the holder */
}
