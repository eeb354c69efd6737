/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* netdev.c: a network device's identity (ifindex and namespace). */
#ifndef PERFTUNE_NET_NETDEV_H
#define PERFTUNE_NET_NETDEV_H

#include "core/key.h"

/* "ifindex=<n> netns=<inode>" of device @dev here ("" where it has no ifindex) */
int pt_netdev_identity(struct perftune_ctx *ctx, const char *dev, char *buf, size_t size);
/* a family's key @kp (whose device component is the device's name now) as text in @out */
typedef int (*pt_netdev_key_fn)(char *out, size_t size, const struct pt_keyparts *kp);
/*
 * The reclaim of a key whose component @comp names the device journaled as
 * @f->id: PT_FOUND_SAME (it has that name still), PT_FOUND_MOVED (renamed:
 * @key() gives f->moved, the key of its name now; f->note says so),
 * PT_FOUND_GONE (no device has its ifindex, or its namespace is gone: the
 * message names f->key), -EXDEV (it is in another namespace, which lives).
 */
int pt_netdev_reclaim(struct perftune_ctx *ctx, struct pt_found *f, int comp, pt_netdev_key_fn key);

#endif
