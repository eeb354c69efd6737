/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nl.c: generic netlink through a transport (the unit tier installs a fake). */
#ifndef PERFTUNE_NET_NL_H
#define PERFTUNE_NET_NL_H

#include <stddef.h>
#include <stdint.h>
#include "perftune.h"

struct nlmsghdr;
typedef int (*pt_nl_cb)(const struct nlmsghdr *nlh, void *data); /* returns libmnl's MNL_CB_* */
#define PT_NL_BUF 65536 /* a reply: a device's verbose feature bitsets take ~8 KiB */
struct pt_nl_transport {
	/*
	 * Send @req (NLM_F_REQUEST | NLM_F_ACK), pass each reply to @cb (may be NULL) until
	 * the ack: 0, or the kernel's -errno and its extack message in @ext ("" if none).
	 * Called from a commit's worker threads: a transport keeps no shared socket unlocked.
	 */
	int (*talk)(void *data, const struct nlmsghdr *req, pt_nl_cb cb, void *cbdata, char *ext,
		    size_t extsize);
};
void pt_nl_set_transport(struct perftune_ctx *ctx, const struct pt_nl_transport *tp, void *data);
/*
 * A generic netlink request header in @buf (of PT_NL_BUF bytes or less: what it will
 * hold), built by libmnl: once pt_dl_load(PT_DL_MNL) succeeded (pt_nl_talk() and
 * net/ethtool.c load it).
 */
struct nlmsghdr *pt_nl_request(void *buf, uint16_t type, uint8_t cmd, uint8_t version);
/*
 * Resolve @family by name and send @req to it: 0, or -errno with the kernel's
 * extack message (or why there is no netlink: -EOPNOTSUPP) in @ext.
 */
int pt_nl_talk(struct perftune_ctx *ctx, const char *family, struct nlmsghdr *req, pt_nl_cb cb,
	       void *cbdata, char *ext, size_t extsize);

#endif
