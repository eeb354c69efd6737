/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* attr.c: the only place that opens, reads and writes kernel files. */
#ifndef PERFTUNE_IO_ATTR_H
#define PERFTUNE_IO_ATTR_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include "perftune.h"
#include "io/uring.h"

#define PT_READ_MAX 65536 /* bounded reads of kernel files */
/*
 * Its state, one per context (ctx.c creates and frees it): the root fd and
 * its top directories (sys, proc, dev: opened once, on first use), the file
 * cache, the write hook, the resolver chosen.
 */
#define PT_TOP_MAX 3
struct pt_attr;
struct pt_fcache;
struct pt_attr *pt_attr_new(void);
void pt_attr_free(struct pt_attr *a);
/* take @root_fd (an O_PATH directory) as the root; its top fds are opened again */
void pt_attr_set_root(struct pt_attr *a, int root_fd, bool host);
/* the root's O_PATH fd, the context's (not to be closed): lookups below the root start there */
int pt_attr_root_fd(struct perftune_ctx *ctx);
/* use the user-space walk (@user) or openat2 from now on, no probe */
void pt_attr_beneath_force(struct perftune_ctx *ctx, bool user);
/* "openat2 (RESOLVE_BENEATH)" or "user-space (openat2: <why>)", probed if need be */
const char *pt_attr_beneath_name(struct perftune_ctx *ctx);
/* ENOSYS or EPERM: the user-space walk's own calls were refused (a filter); 0 if not */
int pt_attr_beneath_refused(struct perftune_ctx *ctx);
/*
 * Paths are relative to the context root and must start with "sys/",
 * "proc/" or "dev/"; they are opened with pt_beneath_open() below that top
 * directory, so neither ".." nor a symlink can lead out of /sys or /proc.
 */
int pt_attr_open(struct perftune_ctx *ctx, const char *path, int flags);
/*
 * Between begin and end (nested: the outermost end counts), regular files
 * below sys/ and proc/ that are read, written or pt_attr_stat_file()d stay
 * open read-write, so that a call that reads, writes and reads back a file
 * opens it once.  Worker threads of the call share them.
 */
void pt_attr_cache_begin(struct perftune_ctx *ctx);
void pt_attr_cache_end(struct perftune_ctx *ctx);
/*
 * A cache of one's own (a transaction's, kept from its staging to its
 * rollback): *@own, created on first use, becomes the context's until
 * pt_attr_cache_unuse(ctx, <what use returned>); its files stay open in it
 * until pt_attr_cache_destroy().
 */
struct pt_fcache *pt_attr_cache_use(struct perftune_ctx *ctx, struct pt_fcache **own);
void pt_attr_cache_unuse(struct perftune_ctx *ctx, struct pt_fcache *prev);
void pt_attr_cache_destroy(struct pt_fcache *fc);
size_t pt_attr_cache_files(struct pt_fcache *fc); /* how many it keeps open */
/* stat a path that should be a file (kept open in a cache scope); -errno */
int pt_attr_stat_file(struct perftune_ctx *ctx, const char *path, struct stat *st);
/* the kept read-write fd of @path (opened now if need be), or -1 outside a cache scope */
int pt_attr_kept_fd(struct perftune_ctx *ctx, const char *path);
/* what a write or read of a kept fd answers when its file went away (open it again) */
bool pt_attr_gone(int r);
/* Read at most @size-1 bytes, NUL-terminate; return length or -errno. */
int pt_attr_read_raw(struct perftune_ctx *ctx, const char *path, char *buf, size_t size);
/* Read and normalize: the bracketed choice of a selection file, trimmed, blanks collapsed. */
int pt_attr_read(struct perftune_ctx *ctx, const char *path, char *buf, size_t size);
int pt_attr_write(struct perftune_ctx *ctx, const char *path, const char *value);
/* Write @len bytes and keep the fd open in *@hold_fd (PM QoS). */
int pt_attr_write_hold(struct perftune_ctx *ctx, const char *path, const void *buf, size_t len,
		       int *hold_fd);
bool pt_attr_exists(struct perftune_ctx *ctx, const char *path);
bool pt_attr_is_dir(struct perftune_ctx *ctx, const char *path);
/* 1 writable, 0 not (reason filled), -errno if missing. */
int pt_attr_writable(struct perftune_ctx *ctx, const char *path, char *reason, size_t size);
/* the file has a write bit: a tunable, not a read-only fact */
bool pt_attr_tunable(struct perftune_ctx *ctx, const char *path);
/* opendir below the root, confined like pt_attr_open. */
DIR *pt_attr_opendir(struct perftune_ctx *ctx, const char *path);
/* 1 if the directory has an entry besides . and .., 0 if not, -errno (one getdents) */
int pt_attr_dir_has_entries(struct perftune_ctx *ctx, const char *path);
int pt_attr_readlink(struct perftune_ctx *ctx, const char *path, char *buf, size_t size);

/* Swappable write, for the unit tier's simulated kernel (not exported). */
typedef int (*pt_write_fn)(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len,
			   void *userdata);
void pt_attr_set_write_fn(struct perftune_ctx *ctx, pt_write_fn fn, void *userdata);
pt_write_fn pt_attr_get_write_fn(struct perftune_ctx *ctx, void **userdata);
/*
 * Write iov[q] to the open file fds[q] (@paths[q]) for q in [0, n), all at
 * once: through io_uring, else from threads.  With a write hook installed
 * (the unit tier's simulated kernel), the hook writes each path instead, so
 * its faults and kills reach these writes too.  res[q]: 0, the kernel's
 * -errno, or -EINPROGRESS: not known, busy or gone (write it again yourself).
 */
void pt_attr_write_batch(struct perftune_ctx *ctx, size_t n, const char *const *paths,
			 const int *fds, const struct iovec *iov, int *res);
/* The real write(2) path, for simulators that fall through to it. */
int pt_attr_write_real(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len);
/*
 * A thread's CPU affinity, a mask of PT_CPUS_MAX bits: read into @mask, or
 * set from it (@set).  -ESRCH: no such thread; -EINVAL: the kernel will not
 * move it (PF_NO_SETAFFINITY) or no CPU of @mask can run it; -EOPNOTSUPP
 * under a root that is not the host's.  Swappable for the unit tier.
 */
typedef int (*pt_affinity_fn)(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set,
			      void *userdata);
void pt_attr_set_affinity_fn(struct perftune_ctx *ctx, pt_affinity_fn fn, void *userdata);
int pt_attr_affinity(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set);
/* Kernel modules (shared/kmod.h: PT_KMOD_*) through a hook: swappable for the unit tier. */
typedef int (*pt_kmod_fn)(struct perftune_ctx *ctx, int op, const char *name, const char *options,
			  char *out, size_t size, void *userdata);
void pt_attr_set_kmod_fn(struct perftune_ctx *ctx, pt_kmod_fn fn, void *userdata);
int pt_attr_kmod(struct perftune_ctx *ctx, int op, const char *name, const char *options, char *out,
		 size_t size);
/* 0 when a load or unload can be tried: -EOPNOTSUPP naming @key when libkmod is not installed */
int pt_attr_kmod_need(struct perftune_ctx *ctx, const char *key);
/* waves (io/uring.h): they open the files (or take the kept ones) and write through the hook */
int pt_wave_add(struct perftune_ctx *ctx, struct pt_wave *w, size_t who, const char *path,
		const char *value);
void pt_wave_run(struct perftune_ctx *ctx, struct pt_wave *w);

#endif
