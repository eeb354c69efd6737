// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pmqos.cpu_dma_latency_us: the global CPU latency QoS request
 * (Documentation/power/pm_qos_interface.rst).  A request is a 4-byte binary
 * s32 written to /dev/cpu_dma_latency and is in force only while that fd is
 * open, so it needs a holding transaction; reading gives the aggregate
 * (smallest) request of all holders.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"
#include "family/file.h"

#define PMQOS_PATH "dev/cpu_dma_latency"
#define PMQOS_MAX 2000000000LL /* PM_QOS_DEFAULT_VALUE is S32_MAX: "no constraint" */

static int pmqos_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	return pt_file_emit_one(ctx, &pt_pmqos_family, PMQOS_PATH, "pmqos.cpu_dma_latency_us",
				"/dev/cpu_dma_latency", emit, ud);
}

static int pmqos_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
			 void *ud)
{
	if (!pt_key_is(kp, "pmqos.cpu_dma_latency_us"))
		return pt_err(ctx, -ENOENT,
			      "%s: the only PM QoS key is pmqos.cpu_dma_latency_us (per CPU: "
			      "cpu.<cpus>.resume_latency_us)",
			      kp->text);
	return pmqos_list(ctx, emit, ud);
}

static int pmqos_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	_cleanup_close_ int fd = pt_attr_open(ctx, t->path, O_RDONLY);
	int32_t v;

	if (fd < 0)
		return pt_err(ctx, fd, "%s: cannot open /%s: %s", t->key, t->path, strerror(-fd));
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return pt_err(ctx, -EIO, "%s: short read from /%s", t->key, t->path);
	if (pt_snprintf(buf, size, "%d", v) < 0)
		return -ENAMETOOLONG;
	return 0;
}

static int pmqos_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			  char *out, size_t size)
{
	return pt_validate_range(ctx, t, in, 0, PMQOS_MAX, out, size);
}

static int pmqos_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		       int *hold_fd)
{
	long long v;
	int32_t s;
	int r;

	if (!hold_fd)
		return pt_err(ctx, -EINVAL,
			      "%s: a PM QoS request lasts only while its fd is open: use a holding "
			      "transaction (perftune set --hold)",
			      t->key);
	pt_parse_ll(value, &v);
	s = (int32_t)v;
	r = pt_attr_write_hold(ctx, t->path, &s, sizeof(s), hold_fd);
	if (r < 0)
		return pt_err(ctx, r, "%s: cannot request %s us: %s", t->key, value, strerror(-r));
	return 0;
}

/* The aggregate is the smallest request: ours is in force if it is not larger. */
static int pmqos_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
			const char *got)
{
	long long w, g;

	if (pt_parse_ll(want, &w) < 0 || pt_parse_ll(got, &g) < 0 || g > w)
		return pt_err(ctx, -EIO, "%s: requested %s us but the kernel reports %s us", t->key,
			      want, got);
	return 0;
}

static int pmqos_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			  struct perftune_desc *d)
{
	char v[32], reason[160];
	int r = pmqos_read(ctx, t, v, sizeof(v));

	if (r < 0)
		return r;
	pt_desc_set_value(d, v);
	pt_desc_set_range(d, 0, PMQOS_MAX);
	pt_desc_set_unit(d, "us");
	r = pt_attr_writable(ctx, t->path, reason, sizeof(reason));
	pt_desc_set_writable(d, r > 0, reason);
	pt_desc_add_info(d, "held: in force only while a holding transaction runs "
			    "(perftune set --hold); the value read is the smallest request");
	return 0;
}

const struct pt_family pt_pmqos_family = {
	.name = "pmqos",
	.resolve = pmqos_resolve,
	.list = pmqos_list,
	.read = pmqos_read,
	.validate = pmqos_validate,
	.write = pmqos_write,
	.describe = pmqos_describe,
	.flags = PT_FAM_HELD,
	.verify = pmqos_verify,
};
