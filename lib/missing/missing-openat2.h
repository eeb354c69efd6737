/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * openat2(2) (Linux 5.6) for builds against older kernel headers (RHEL 8:
 * 4.18), systemd's missing_*.h way: the system's <linux/openat2.h> when meson
 * found it (config.h HAVE_LINUX_OPENAT2_H), else the same ABI defined here;
 * the system call number where <sys/syscall.h> has none.  Whether the running
 * kernel has the call is another matter: the library probes it.
 */
#pragma once

#include <stdint.h>
#include <sys/syscall.h>

#if HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#else
/* the kernel's ABI (include/uapi/linux/openat2.h), which never changes */
struct open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

#define RESOLVE_NO_XDEV 0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#define RESOLVE_IN_ROOT 0x10
#endif

#ifndef RESOLVE_CACHED /* 5.12 */
#define RESOLVE_CACHED 0x20
#endif

/* one number on every architecture since 5.1 (alpha: +110) */
#ifndef __NR_openat2
#if defined(__alpha__)
#define __NR_openat2 547
#else
#define __NR_openat2 437
#endif
#endif
#ifndef SYS_openat2
#define SYS_openat2 __NR_openat2
#endif
