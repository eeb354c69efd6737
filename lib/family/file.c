// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The generic file family: ops for tunables that are one plain kernel file
 * (read, validate against what the file offers, write, describe, export
 * names), shared by the families whose tunables are such files
 * (PT_FAM_FILE).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/file.h"

static int file_errmsg(struct perftune_ctx *ctx, const struct pt_tunable *t, int r, const char *op)
{
	if (r == -ENOENT)
		return pt_err(ctx, -ENOENT, "%s: not present on this kernel (/%s)", t->key, t->path);
	if (r == -EMEDIUMTYPE) /* from pt_attr_open() */
		return pt_err(ctx, -EPERM, "%s: cannot %s /%s: not a regular file, refusing",
			      t->key, op, t->path);
	return pt_err(ctx, r, "%s: cannot %s /%s: %s", t->key, op, t->path, strerror(-r));
}

int pt_file_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	int r = pt_attr_read(ctx, t->path, buf, size);

	if (r < 0)
		return file_errmsg(ctx, t, r, "read");
	return 0;
}

/*
 * A sysctl string is written as given and read back with one '\n' added
 * (proc_dostring): without it, the bytes are the value.  A line with another
 * control character than a tab (a multi-line file) is given as read() gives
 * it: a journal's values are one line (journal.c).
 */
int pt_file_read_verbatim(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf,
			  size_t size)
{
	int r = pt_attr_read_raw(ctx, t->path, buf, size);
	size_t n;

	if (r < 0)
		return file_errmsg(ctx, t, r, "read");
	n = (size_t)r;
	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (buf[i] != '\t' && ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f))
			n = 0;
	if (!n || pt_is_selection(buf))
		pt_normalize(buf);
	return 0;
}

int pt_file_writable(struct perftune_ctx *ctx, const struct pt_tunable *t)
{
	char reason[160];
	int r = pt_attr_writable(ctx, t->path, reason, sizeof(reason));

	if (r < 0)
		return file_errmsg(ctx, t, r, "open");
	if (r == 0)
		return pt_err(ctx, strstr(reason, "root") ? -EACCES : -EROFS, "%s: %s", t->key,
			      reason);
	return 0;
}

/* a signed or an unsigned 64-bit number (kernel.shmall's default is 2^64 - 2^24 - 1) */
static bool number(const char *s)
{
	long long v;
	char *end;

	if (pt_parse_ll(s, &v) == 0)
		return true;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	strtoull(s, &end, 10);
	return !errno && !*end;
}

int pt_file_check(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *raw,
		  const char *in, char *out, size_t size)
{
	char cur[PT_VAL], choices[PT_VAL], norm[PT_VAL];
	int r;

	r = pt_file_writable(ctx, t);
	if (r < 0)
		return r;
	/* checked normalized, written as given (kernel.core_pattern keeps its blanks and
	 * tabs, as systemd-sysctl writes them); a selection: the choice's name */
	if (pt_snprintf(norm, sizeof(norm), "%s", in) < 0 || pt_snprintf(out, size, "%s", in) < 0)
		return pt_err(ctx, -ENAMETOOLONG, "%s: value too long", t->key);
	pt_normalize(norm);
	snprintf(cur, sizeof(cur), "%s", raw);
	pt_normalize(cur);
	if (pt_is_selection(raw)) {
		if (!pt_choice_in(raw, norm)) {
			pt_choices(raw, choices, sizeof(choices));
			return pt_err(ctx, -EINVAL, "%s: '%s' is not one of: %s", t->key, norm,
				      choices);
		}
		snprintf(out, size, "%s", norm);
	} else if (number(cur) && !number(norm)) {
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a number", t->key, norm);
	}
	return 0;
}

int pt_file_validate_cur(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			 char *out, size_t size, char *cur, size_t cur_size)
{
	char raw[PT_VAL];
	int r;

	r = pt_attr_read_raw(ctx, t->path, raw, sizeof(raw));
	if (r < 0)
		return file_errmsg(ctx, t, r, "read");
	r = pt_file_check(ctx, t, raw, in, out, size);
	if (r < 0)
		return r;
	snprintf(cur, cur_size, "%s", raw); /* as pt_file_read() gives it, with cur_size PT_VAL */
	pt_normalize(cur);
	return 0;
}

int pt_file_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		     char *out, size_t size)
{
	char cur[PT_VAL];

	return pt_file_validate_cur(ctx, t, in, out, size, cur, sizeof(cur));
}

int pt_validate_range(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		      long long min, long long max, char *out, size_t size)
{
	long long v;

	if (pt_parse_ll(in, &v) < 0)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a number", t->key, in);
	if (v < min || v > max)
		return pt_err(ctx, -ERANGE, "%s: %lld is out of range [%lld, %lld]", t->key, v, min,
			      max);
	if (pt_snprintf(out, size, "%lld", v) < 0)
		return -ENAMETOOLONG;
	return 0;
}

int pt_file_refused(struct perftune_ctx *ctx, const char *key, const char *value, int r)
{
	return pt_err(ctx, r, "%s: kernel refused '%s': %s", key, value, strerror(-r));
}

int pt_file_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		  int *hold_fd _unused_)
{
	int r = pt_attr_write(ctx, t->path, value);

	if (r < 0)
		return pt_file_refused(ctx, t->key, value, r);
	return 0;
}

int pt_file_describe(struct perftune_ctx *ctx, const struct pt_tunable *t, struct perftune_desc *d)
{
	char raw[PT_VAL], buf[PT_VAL], reason[160];
	int r = pt_attr_read_raw(ctx, t->path, raw, sizeof(raw));

	/* gone since it resolved: an error; there but refusing reads
	 * (stable_secret unset: EIO): described, as list shows it */
	if (r == -ENOENT || r == -ENOMEM)
		return file_errmsg(ctx, t, r, "read");
	if (r < 0) {
		pt_desc_set_unreadable(d, strerror(-r));
	} else {
		if (pt_is_selection(raw)) {
			pt_choices(raw, buf, sizeof(buf));
			pt_desc_set_choices(d, buf);
		}
		snprintf(buf, sizeof(buf), "%s", raw);
		pt_normalize(buf);
		pt_desc_set_value(d, buf);
	}
	r = pt_attr_writable(ctx, t->path, reason, sizeof(reason));
	if (r < 0)
		snprintf(reason, sizeof(reason), "%s", strerror(-r));
	pt_desc_set_writable(d, r > 0, reason);
	return 0;
}

void pt_file_export_names(struct perftune_ctx *ctx _unused_, const struct pt_tunable *t,
			  const char *value _unused_, struct pt_xnames *x)
{
	const char *p = t->path + strlen("proc/sys/");
	bool slash = false;
	char *c;

	if (strncmp(t->path, "proc/sys/", 9) ||
	    pt_snprintf(x->sysctl, sizeof(x->sysctl), "%s", p) < 0) {
		x->sysctl[0] = '\0';
		return;
	}
	/* sysctl.d(5): '.' or '/' separate; a name with a dot (eth0.100) needs '/' */
	for (c = x->sysctl; *c && !slash; c++)
		slash = *c == '.';
	for (c = x->sysctl; *c && !slash; c++)
		if (*c == '/')
			*c = '.';
}

int pt_file_emit_one(struct perftune_ctx *ctx, const struct pt_family *fam, const char *path,
		     const char *name, const char *what, pt_emit_fn emit, void *ud)
{
	struct pt_tunable t;

	if (!pt_attr_exists(ctx, path))
		return pt_err(ctx, -EOPNOTSUPP, "%s: this kernel has no %s", name, what);
	if (pt_tunable_init(&t, fam, path, "%s", name) < 0)
		return -ENAMETOOLONG;
	return emit(ctx, &t, ud);
}
