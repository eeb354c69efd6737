/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/oldheaders: the system's <sys/syscall.h> without the numbers of the
 * calls newer than 4.18 that the library makes, as glibc 2.28 over 4.18
 * headers (RHEL 8) has it, so that lib/missing/ supplies them.
 */
#ifndef PT_OLDHEADERS_SYSCALL_H
#define PT_OLDHEADERS_SYSCALL_H
#include_next <sys/syscall.h>
#undef __NR_openat2
#undef SYS_openat2
#undef __NR_io_uring_setup
#undef SYS_io_uring_setup
#undef __NR_io_uring_enter
#undef SYS_io_uring_enter
#undef __NR_io_uring_register
#undef SYS_io_uring_register
#endif
