/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What lib/uring.c uses of io_uring (Linux 5.1; IOSQE_ASYNC and
 * IORING_FEAT_RW_CUR_POS 5.6, IORING_REGISTER_IOWQ_MAX_WORKERS 5.15) for
 * builds against older kernel headers (RHEL 8: 4.18, none of it; RHEL 9: 5.14,
 * no IORING_REGISTER_IOWQ_MAX_WORKERS), systemd's missing_*.h way: the
 * system's <linux/io_uring.h> when meson found it (config.h
 * HAVE_LINUX_IO_URING_H), else the ABI defined here, limited to what uring.c
 * touches; then what that header may lack.  Whether the running kernel has the
 * calls is another matter: uring.c probes it and falls back to threads.
 */
#pragma once

#include <stdint.h>
#include <sys/syscall.h>

#if HAVE_LINUX_IO_URING_H
#include <linux/io_uring.h>
#else
/* the kernel's ABI (include/uapi/linux/io_uring.h), unions reduced to the member used */
struct io_uring_sqe {
	uint8_t opcode;
	uint8_t flags;
	uint16_t ioprio;
	int32_t fd;
	uint64_t off;
	uint64_t addr;
	uint32_t len;
	uint32_t rw_flags;
	uint64_t user_data;
	uint16_t buf_index;
	uint16_t personality;
	int32_t splice_fd_in;
	uint64_t __pad2[2];
};

struct io_uring_cqe {
	uint64_t user_data;
	int32_t res;
	uint32_t flags;
};

struct io_sqring_offsets {
	uint32_t head, tail, ring_mask, ring_entries, flags, dropped, array, resv1;
	uint64_t resv2;
};

struct io_cqring_offsets {
	uint32_t head, tail, ring_mask, ring_entries, overflow, cqes, flags, resv1;
	uint64_t resv2;
};

struct io_uring_params {
	uint32_t sq_entries;
	uint32_t cq_entries;
	uint32_t flags;
	uint32_t sq_thread_cpu;
	uint32_t sq_thread_idle;
	uint32_t features;
	uint32_t wq_fd;
	uint32_t resv[3];
	struct io_sqring_offsets sq_off;
	struct io_cqring_offsets cq_off;
};

_Static_assert(sizeof(struct io_uring_sqe) == 64, "io_uring_sqe is 64 bytes");
_Static_assert(sizeof(struct io_uring_params) == 120, "io_uring_params is 120 bytes");

#define IORING_OP_WRITEV 2
#define IORING_OFF_SQ_RING 0ULL
#define IORING_OFF_CQ_RING 0x8000000ULL
#define IORING_OFF_SQES 0x10000000ULL
#define IORING_ENTER_GETEVENTS (1U << 0)
#endif

/* macros, so each can be tested on its own (the header's version may be older) */
#ifndef IOSQE_ASYNC /* 5.6 */
#define IOSQE_ASYNC (1U << 4)
#endif
#ifndef IORING_FEAT_SINGLE_MMAP /* 5.4 */
#define IORING_FEAT_SINGLE_MMAP (1U << 0)
#endif
#ifndef IORING_FEAT_RW_CUR_POS /* 5.6 */
#define IORING_FEAT_RW_CUR_POS (1U << 3)
#endif
/* an enum constant: meson's has_header_symbol decides (config.h) */
#if !HAVE_DECL_IORING_REGISTER_IOWQ_MAX_WORKERS
#define IORING_REGISTER_IOWQ_MAX_WORKERS 19
#endif

/* one number on every architecture since 5.1 (alpha: +110) */
#if defined(__alpha__)
#define PT_NR_IO_URING_BASE 535
#else
#define PT_NR_IO_URING_BASE 425
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup (PT_NR_IO_URING_BASE + 0)
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter (PT_NR_IO_URING_BASE + 1)
#endif
#ifndef __NR_io_uring_register
#define __NR_io_uring_register (PT_NR_IO_URING_BASE + 2)
#endif
