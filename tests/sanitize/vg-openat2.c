// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test-only LD_PRELOAD for the CLI under valgrind (tests/sanitize/valgrind-cli).
 *
 * valgrind 3.19 (Debian 12) does not know openat2 (syscall 437) and fails it
 * with ENOSYS, and lib/io/attr.c opens every attribute with openat2(RESOLVE_BENEATH
 * | RESOLVE_NO_MAGICLINKS).  This syscall() passes everything through and only
 * when openat2 comes back ENOSYS emulates it for the test run: openat(), then
 * the opened file must lie beneath the directory (else EXDEV, as the kernel
 * says for an escape).  The real confinement is tested by the unit, host, ASan
 * and fuzz runs with the kernel's openat2; this run looks for memory errors.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

static int fd_path(int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static long emulate_openat2(int dirfd, const char *path, const struct open_how *how, size_t size)
{
	char dir[PATH_MAX], got[PATH_MAX];
	size_t dl;
	int fd;

	if (size < sizeof(*how) || (how->resolve & ~(__u64)(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS))) {
		errno = EINVAL;
		return -1;
	}
	if ((how->resolve & RESOLVE_BENEATH) && path[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	fd = openat(dirfd, path, (int)how->flags, (mode_t)how->mode);
	if (fd < 0 || !(how->resolve & RESOLVE_BENEATH))
		return fd;
	if (fd_path(dirfd, dir, sizeof(dir)) < 0 || fd_path(fd, got, sizeof(got)) < 0)
		goto escape;
	dl = strlen(dir);
	if (!strcmp(dir, "/") || (!strncmp(got, dir, dl) && (got[dl] == '/' || !got[dl])))
		return fd;
escape:
	close(fd);
	errno = EXDEV;
	return -1;
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6], r;
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	r = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r == -1 && errno == ENOSYS && nr == SYS_openat2)
		return emulate_openat2((int)a[0], (const char *)a[1], (const struct open_how *)a[2],
				       (size_t)a[3]);
	return r;
}
