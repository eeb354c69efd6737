/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the libFuzzer targets: a fake machine, a context on it, guards. */
#ifndef PERFTUNE_FUZZ_COMMON_H
#define PERFTUNE_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "../unit/lib-all.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Once per process: the fake machine ($PERFTUNE_FUZZ_ROOT, or built with
 * tests/unit/mkroot.sh into a temp dir removed at exit), a private scratch
 * dir, and from then on any exec*, system, popen or posix_spawn aborts:
 * nothing the library parses may ever run a program.
 */
void fz_init(void);
const char *fz_root(void);
const char *fz_scratch(void); /* private dir, mode 0700, removed at exit */

/* A context on the fake root, journals in @jdir, writes counted and refused. */
struct perftune_ctx *fz_ctx(const char *jdir);
/* Writes attempted through attr.c since the last fz_ctx() (none succeed). */
int fz_writes(void);

/* A failed call (@r < 0) left a one-line message (DESIGN §3), unless -ENOMEM. */
void fz_check_err(struct perftune_ctx *ctx, int r, const char *what);
/* @data as a NUL-terminated string (stops at the first NUL); free() it. */
char *fz_str(const uint8_t *data, size_t size);
/* @path made anew with @len bytes of @data and mode @mode; abort on failure. */
void fz_spill(const char *path, const void *data, size_t len, unsigned mode);
/* rm -rf, in-process (no program may run once the filter is in place). */
void fz_rmtree(const char *path);
/* Abort with a message: libFuzzer records the input as a crash. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
