/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The unit tier's scripted ethtool netlink kernel: a few devices whose ring,
 * channel, coalescing and feature settings live in shared memory (a child
 * killed mid-commit leaves them changed, as a kernel would), with faults,
 * kills, extack refusals and a device that vanishes at a chosen operation.
 */
#ifndef PERFTUNE_TEST_FAKENL_H
#define PERFTUNE_TEST_FAKENL_H

#include <stdbool.h>
#include "lib-all.h"

#define FNL_DEVS 2
#define FNL_FEATS 4
struct fnl_dev {
	char name[16];
	bool gone;
	unsigned ring[4], ring_max[4];		   /* rx, rx_mini, rx_jumbo, tx; max 0: none */
	unsigned chan[4], chan_max[4];		   /* rx, tx, other, combined */
	unsigned rx_usecs, rx_frames, adaptive_rx; /* the coalescing it supports */
	bool feat[FNL_FEATS]; /* rx-gro, tx-tcp-segmentation, rx-lro (fixed), highdma */
};
struct fnl {
	char root[PATH_MAX]; /* the fake tree: queues appear and go with channels */
	struct fnl_dev dev[FNL_DEVS];
	int sets;	  /* SET operations seen */
	int fault_at;	  /* SET number N answers -EIO (0: never) */
	int crash_at;	  /* _exit(99) at SET number N */
	int vanish_at;	  /* the device of SET number N is gone from then on */
	bool ignore_sets; /* accept SETs without doing them (a read-back catches it) */
};

/* a fake in shared memory, with eth0 (ixgbe, ifindex 2) and eth1 (3) set up in @root's
 * sys/class/net */
struct fnl *fnl_new(const char *root);
void fnl_free(struct fnl *k);
void fnl_install(struct perftune_ctx *ctx, struct fnl *k);
/* a device gone: its sysfs directory too */
void fnl_remove(struct fnl *k, int dev);
/* a device renamed (ip link set NAME name NEW): its settings and ifindex go with it */
void fnl_rename(struct fnl *k, int dev, const char *name);
/* a device deleted and made again under its name: ifindex @ifindex, the defaults */
void fnl_recreate(struct fnl *k, int dev, int ifindex);

#endif
