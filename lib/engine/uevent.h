/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uevent.c: where a held transaction hears of devices coming and going.  On
 * the machine, libudev's monitor of the block and net subsystems ("udev"
 * when systemd-udevd runs, so that its rules have run first; the kernel's
 * own uevents otherwise); below another root, the FIFO PT_UEVENT_FAKE of
 * that root, one "ACTION SUBSYSTEM NAME" line per event (the unit tier).
 */
#ifndef PERFTUNE_ENGINE_UEVENT_H
#define PERFTUNE_ENGINE_UEVENT_H

#include "perftune.h"

#define PT_UEVENT_FAKE "run/perftune-uevents" /* below a root that is not the host's */

struct pt_uevent {
	char action[16];    /* add, remove, change, move, ... */
	char subsystem[16]; /* block, net */
	char name[128];	    /* the kernel's name: sdd, veth0 */
};

struct pt_uevent_src;
/* a source for @ctx, receiving from now on: 0, -EOPNOTSUPP (no libudev), -errno */
int pt_uevent_open(struct perftune_ctx *ctx, struct pt_uevent_src **out);
void pt_uevent_close(struct pt_uevent_src *src);
int pt_uevent_fd(const struct pt_uevent_src *src);	     /* readable when an event is pending */
const char *pt_uevent_kind(const struct pt_uevent_src *src); /* "udev", "kernel", "fake" */
/* the next pending event of a watched subsystem: 1 and *@ev, 0 when none is pending, -errno */
int pt_uevent_next(struct pt_uevent_src *src, struct pt_uevent *ev);

#endif
