/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resolve.c: how attr.c opens a path below a top directory without leaving it. */
#ifndef PERFTUNE_IO_RESOLVE_H
#define PERFTUNE_IO_RESOLVE_H

#include <stdbool.h>

/* attr.c's, one per context: which resolver, why, a refusal of the fallback's calls */
struct pt_resolver_state {
	int mode, why, refused;
};
/*
 * Open @rest below the top directory fd @top: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), or where the kernel or a seccomp filter refuses it
 * (ENOSYS, EPERM; probed once per context) or PERFTUNE_NO_OPENAT2 is set, the
 * same confinement walked in user space.  -EPERM: it would leave the top;
 * -ELOOP: a magic link, too many links, or O_NOFOLLOW on a link.
 */
int pt_resolve_open(struct pt_resolver_state *s, int top, const char *rest, int flags);
/* the user-space walk alone (the unit tier and the fuzzer test it directly) */
int pt_resolve_user(int top, const char *rest, int flags);
/* use the user-space walk (@user) or openat2 from now on, no probe */
void pt_resolver_state_force(struct pt_resolver_state *s, bool user);
/* the name of pt_resolver_name(), probed below @top (sys/ or proc/; -errno: none) if need be */
const char *pt_resolver_state_name(struct pt_resolver_state *s, int top);

#endif
