/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ethtool.c: a device's ethtool settings (ethtool genetlink family). */
#ifndef PERFTUNE_NET_ETHTOOL_H
#define PERFTUNE_NET_ETHTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include "perftune.h"

enum {
	PT_ETH_RING,
	PT_ETH_CHANNELS,
	PT_ETH_COALESCE,
	PT_ETH_PAUSE,
	PT_ETH_FEATURES,
	PT_ETH_NSEC,
};
#define PT_ETH_MAX 160 /* parameters of a section: features are the most (NETDEV_FEATURE_COUNT) */
struct pt_eth_param {
	char name[40];
	unsigned long long val, max; /* max 0: none reported (features: 1 = in hw_features) */
	bool flag;		     /* on/off */
	bool fixed;		     /* a feature the driver does not let change */
};
struct pt_eth_sect {
	size_t n;
	struct pt_eth_param p[PT_ETH_MAX];
};
const char *pt_eth_sec_name(int sec);		 /* "ring", "channels", ... as in keys */
const char *pt_eth_sec_what(int sec);		 /* "ring parameters", ... for messages */
int pt_eth_sec_find(const char *name);		 /* -1: none */
bool pt_eth_sec_has(int sec, const char *param); /* a parameter we know (features: any name) */
const struct pt_eth_param *pt_eth_find(const struct pt_eth_sect *s, const char *name);
/* what the kernel reports of @sec for device @dev: only what its driver supports */
int pt_eth_get(struct perftune_ctx *ctx, const char *dev, int sec, struct pt_eth_sect *s, char *ext,
	       size_t extsize);
int pt_eth_set(struct perftune_ctx *ctx, const char *dev, int sec, const char *param,
	       unsigned long long val, char *ext, size_t extsize);

#endif
