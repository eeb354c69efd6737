/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A family of tunables: the ops table each file of family/ fills, and the families. */
#ifndef PERFTUNE_FAMILY_FAMILY_H
#define PERFTUNE_FAMILY_FAMILY_H

#include "core/key.h"

/* The names a tunable goes by outside perftune, for lib/export; "" where it has none. */
struct pt_xnames {
	char sysctl[PERFTUNE_KEY_MAX]; /* sysctl.d: "vm.dirty_ratio", "net/ipv4/conf/eth0.100/rp_filter" */
	char dev[64];		       /* udev: the kernel's name of the device ("sda") */
	char attr[128];		       /* udev: its attribute ("queue/scheduler") */
	char subsys[16];	       /* udev: its SUBSYSTEM; "" = block */
	char noattr[128];	       /* udev: why it has no attribute to write, or "" */
	enum pt_order order;	       /* udev: the rules in the order of a commit */
	char boot[128]; /* kernel command line with the value: "numa_balancing=disable" */
	/* the value as the kernel file takes it, where that differs from the key's (a CPU list
	 * written as a hex mask); "" with @file_differs: too long to give, leave the file out */
	char file_value[256];
	bool file_differs;
};

struct pt_family {
	const char *name;
	/* expand parsed key into concrete tunables; errors name the key */
	int (*resolve)(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud);
	/* enumerate every tunable of the family present on this machine */
	int (*list)(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud);
	int (*read)(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size);
	/*
	 * optional: what read() gives before pt_normalize(), as write() takes it
	 * back byte for byte (kernel.core_pattern "a  b\tc", printk's tabs): the
	 * original a commit journals and a rollback writes; comparisons and what
	 * is shown use read()'s form
	 */
	int (*read_verbatim)(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf,
			     size_t size);
	/* check @in and produce the exact value to write and expect back */
	int (*validate)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size);
	/*
	 * optional: validate(), and from the same read of the file what read() gives
	 * now into @cur (PT_VAL bytes; "" where read() fails): staging reads a file once
	 */
	int (*validate_cur)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			    char *out, size_t size, char *cur, size_t cur_size);
	int (*write)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd);
	/*
	 * compare read-back with the value written: 0, -EIO, -EAGAIN (partial), -ERANGE
	 * (clamped: the kernel took it and holds its own limit instead; a commit takes it
	 * as partial with ALLOW_PARTIAL, else fails with -EIO), or 1: in force as asked,
	 * and @got (what the commit keeps as written) says more
	 */
	int (*verify)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got);
	int (*describe)(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d);
	/*
	 * optional: the original, before @t is set to @value, as a string write()
	 * restores exactly (PT_FAM_SNAPSHOT)
	 */
	int (*snapshot)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			char *buf, size_t size);
	/*
	 * optional: @t set to @value stands for other keys (cpu idle.max_latency_us:
	 * idle.<state>.disable of the deeper states): stage each of them and return
	 * 0, or -errno; 1: @t stands for itself (staged as it is)
	 */
	int (*expand)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		      pt_stage_fn stage, void *ud);
	/* optional: the names @t set to @value goes by in the export formats (@x zeroed) */
	void (*export_names)(struct perftune_ctx *ctx, const struct pt_tunable *t,
			     const char *value, struct pt_xnames *x);
	/*
	 * optional: the identity of the object @t names, for its original @orig
	 * (a snapshot names threads): a process's start time, a NIC's ifindex, a
	 * disk's dev_t and diskseq, as text in @buf ("" where this kernel shows
	 * none), journaled with the original so that a restore writes only that
	 * object (doc/design.md, "Identity"); or -errno, naming the key
	 */
	int (*identity)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			char *buf, size_t size);
	/*
	 * optional, with identity: @f->key was journaled as @f->id, and what it
	 * names now (@f->now, NULL if nothing) is not that object: where is it?
	 * PT_FOUND_SAME: @f->now after all, or a part of it (the threads not
	 * replaced since): the original to write in @f->value; PT_FOUND_MOVED:
	 * the object goes by the key @f->moved now (a renamed NIC); PT_FOUND_GONE:
	 * gone for good, the message says why; -errno: not here now, but it may
	 * be (the message says why).  @f->note: what was found, for the log.
	 */
	int (*reclaim)(struct perftune_ctx *ctx, struct pt_found *f);
	unsigned flags;
};
enum {
	PT_FAM_HELD = 1 << 0,	  /* the value lives with an open fd: restore = close */
	PT_FAM_SNAPSHOT = 1 << 1, /* the original is a snapshot string, not a value read back */
	PT_FAM_FILE = 1 << 2,	  /* write() is pt_file_write(): a plain file write (batch waves) */
};

extern const struct pt_family pt_block_family, pt_hugepages_family, pt_thp_family, pt_cpu_family,
	pt_pmqos_family, pt_numa_family, pt_proc_family, pt_selinux_family, pt_sysctl_family,
	pt_sysfs_family, pt_module_family, pt_net_family, pt_irq_family, pt_workqueue_family;
/* the keys of the proc family (family/proc.c): proc.<pid>.numa_nodes, proc.<sel>.cpus */
extern const struct pt_family pt_proc_numa_family, pt_proc_cpus_family;

#endif
