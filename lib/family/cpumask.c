// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CPU-mask files as keys whose values are CPU lists ("0-3,8"): the kernel's
 * list files (/proc/irq/<n>/smp_affinity_list) and its hex masks
 * (/proc/irq/default_smp_affinity, the workqueue cpumask), converted both ways
 * through shared/cpulist.c.  The irq and workqueue families share these ops;
 * t->kind holds the PT_CPUMASK_* bits of a tunable.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/cpulist.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/cpumask.h"
#include "family/file.h"

int pt_cpus_online(struct perftune_ctx *ctx, unsigned char *m)
{
	char buf[4096];
	int r = pt_attr_read_raw(ctx, "sys/devices/system/cpu/online", buf, sizeof(buf));

	if (r < 0)
		return r;
	pt_trim(buf);
	return pt_cpus_parse(buf, m, NULL, 0);
}

static bool hexmask(const char *s)
{
	return *s && strspn(s, "0123456789abcdefABCDEF,") == strlen(s);
}

/*
 * TuneD writes CPU masks as 8-digit groups ("00000001"); the kernel prints
 * them as wide as nr_cpu_ids needs ("1", "00,00000001").  Write the width the
 * file reads back in, so that the read-back compares.
 */
void pt_cpumask_width(struct perftune_ctx *ctx, const char *path, const char *in, char *out,
		      size_t size)
{
	char cur[512], digits[512] = "";
	size_t nd = 0, width = 0, o = 0;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	snprintf(out, size, "%s", in);
	if ((!strstr(base, "mask") && !strstr(base, "cpumap") && !strstr(base, "affinity") &&
	     !strstr(base, "_cpus")) ||
	    !hexmask(in) || pt_attr_read(ctx, path, cur, sizeof(cur)) < 0 || !hexmask(cur))
		return;
	for (const char *c = in; *c && nd + 1 < sizeof(digits); c++)
		if (*c != ',')
			digits[nd++] = *c;
	for (const char *c = cur; *c; c++)
		width += *c != ',';
	size_t lead = 0;
	while (nd - lead > width && digits[lead] == '0')
		lead++;
	memmove(digits, digits + lead, nd - lead + 1);
	nd -= lead;
	if (nd > width || size < width + width / 8 + 1)
		return; /* more CPUs than this machine has: leave it to the kernel */
	for (size_t i = 0; i < width; i++) { /* right-align, commas where the kernel has them */
		size_t from_right = width - i;
		out[o++] = i + nd >= width ? digits[i + nd - width] : '0';
		if (from_right > 1 && (from_right - 1) % 8 == 0)
			out[o++] = ',';
	}
	out[o] = '\0';
}

/* the CPUs of @raw, as the file of @t shows them; -EIO if it reads as neither form */
static int mask_of(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *raw,
		   unsigned char *m)
{
	char s[PT_VAL], why[160] = "";
	int r;

	snprintf(s, sizeof(s), "%s", raw);
	pt_trim(s);
	memset(m, 0, PT_CPUS_BYTES);
	if (t->kind & PT_CPUMASK_HEX)
		r = pt_cpus_hex(s, m, why, sizeof(why));
	else if (s[0])
		r = pt_parse_cpulist(s, m, PT_CPUS_MAX);
	else
		r = 0; /* "": no CPU */
	if (r < 0)
		return pt_err(ctx, -EIO, "%s: /%s reads '%s', not a CPU %s", t->key, t->path, s,
			      t->kind & PT_CPUMASK_HEX ? "mask" : "list");
	return 0;
}

int pt_cpumask_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	unsigned char m[PT_CPUS_BYTES];
	char raw[PT_VAL];
	int r = pt_attr_read_raw(ctx, t->path, raw, sizeof(raw));

	if (r < 0)
		return pt_err(ctx, r, "%s: cannot read /%s: %s", t->key, t->path, strerror(-r));
	r = mask_of(ctx, t, raw, m);
	if (r < 0)
		return r;
	pt_format_cpulist(m, PT_CPUS_MAX, buf, size);
	return 0;
}

int pt_cpumask_parse(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		     unsigned char *m)
{
	unsigned char on[PT_CPUS_BYTES] = { 0 };
	bool any = false;
	int r = pt_parse_cpulist(in, m, PT_CPUS_MAX);

	if (r < 0)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a CPU list (0-3,8)%s", t->key, in,
			      r == -ERANGE ? ": a range runs backwards or past the last CPU" : "");
	if (pt_cpus_online(ctx, on) < 0)
		return 0; /* no online list (containers): the kernel judges */
	for (size_t i = 0; i < PT_CPUS_BYTES && !any; i++)
		any = m[i] & on[i];
	if (!any)
		return pt_err(ctx, -EINVAL, "%s: none of CPUs %s is online", t->key, in);
	return 0;
}

int pt_cpumask_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size)
{
	unsigned char m[PT_CPUS_BYTES];
	int r = pt_file_writable(ctx, t);

	if (r >= 0)
		r = pt_cpumask_parse(ctx, t, in, m);
	if (r >= 0)
		pt_format_cpulist(m, PT_CPUS_MAX, out, size);
	return r;
}

int pt_cpumask_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd _unused_)
{
	unsigned char m[PT_CPUS_BYTES];
	_cleanup_free_ char *hex = NULL;
	char w[PT_VAL];
	int r;

	if (pt_parse_cpulist(value, m, PT_CPUS_MAX) < 0)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a CPU list", t->key, value);
	if ((t->kind & PT_CPUMASK_HEX) && !(hex = pt_cpus_hexstr(m)))
		return -ENOMEM;
	if (hex) /* as wide as the kernel shows it: a fake root's file reads back the same */
		pt_cpumask_width(ctx, t->path, hex, w, sizeof(w));
	r = pt_attr_write(ctx, t->path, hex ? w : value);
	if (r < 0)
		return pt_file_refused(ctx, t->key, value, r);
	return 0;
}

/* @got, a list, holds no CPU outside @want and at least one */
static bool narrowed(const char *want, const char *got)
{
	unsigned char w[PT_CPUS_BYTES], g[PT_CPUS_BYTES];

	if (pt_parse_cpulist(want, w, PT_CPUS_MAX) < 0 || pt_parse_cpulist(got, g, PT_CPUS_MAX) < 0)
		return false;
	for (int i = 0; i < PT_CPUS_BYTES; i++)
		if (g[i] & ~w[i])
			return false;
	return true;
}

int pt_cpumask_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got)
{
	/* the workqueue mask: the kernel keeps only possible, housekeeping CPUs */
	if (!strcmp(want, got) || ((t->kind & PT_CPUMASK_NARROW) && narrowed(want, got)))
		return 0;
	return pt_err(ctx, -EIO, "%s: the kernel accepted '%s' but reads back '%s'", t->key, want,
		      got);
}

int pt_cpumask_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d)
{
	char v[PT_VAL], reason[160];
	int r = pt_cpumask_read(ctx, t, v, sizeof(v));

	if (r < 0)
		return r;
	pt_desc_set_value(d, v);
	pt_desc_set_unit(d, "CPU list");
	r = pt_attr_writable(ctx, t->path, reason, sizeof(reason));
	if (r < 0)
		snprintf(reason, sizeof(reason), "%s", strerror(-r));
	pt_desc_set_writable(d, r > 0, reason);
	if (t->kind & PT_CPUMASK_HEX)
		pt_desc_add_info(d, "/%s holds a hex mask; the key reads and takes a CPU list",
				 t->path);
	return 0;
}
