/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* file.c: the generic file ops, for families whose tunables are plain files. */
#ifndef PERFTUNE_FAMILY_FILE_H
#define PERFTUNE_FAMILY_FILE_H

#include "core/key.h"
#include "family/family.h"

int pt_file_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size);
/* the file as read, its kernel-added newline off (a selection: its choice); one line */
int pt_file_read_verbatim(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf,
			  size_t size);
int pt_file_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		     char *out, size_t size);
int pt_file_validate_cur(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			 char *out, size_t size, char *cur, size_t cur_size);
/* pt_file_validate() against @raw, the file's contents as read */
int pt_file_check(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *raw,
		  const char *in, char *out, size_t size);
/* 0 if the file of @t can be written, else -EACCES (not root), -EROFS or -ENOENT naming the key */
int pt_file_writable(struct perftune_ctx *ctx, const struct pt_tunable *t);
/* the error of a write the kernel refused with @r, naming the key */
int pt_file_refused(struct perftune_ctx *ctx, const char *key, const char *value, int r);
int pt_file_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		  int *hold_fd);
int pt_file_describe(struct perftune_ctx *ctx, const struct pt_tunable *t, struct perftune_desc *d);
/* emit the family's one tunable @name at @path, or -EOPNOTSUPP: "this kernel has no @what" */
int pt_file_emit_one(struct perftune_ctx *ctx, const struct pt_family *fam, const char *path,
		     const char *name, const char *what, pt_emit_fn emit, void *ud);
/* export_names of a file: its sysctl.d name if it lives in /proc/sys */
void pt_file_export_names(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			  struct pt_xnames *x);
/* validate a number in [min, max] */
int pt_validate_range(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		      long long min, long long max, char *out, size_t size);

#endif
