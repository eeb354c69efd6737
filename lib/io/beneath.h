/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* beneath.c: paths opened without leaving where they must stay. */
#ifndef PERFTUNE_IO_BENEATH_H
#define PERFTUNE_IO_BENEATH_H

#include <stdbool.h>

/* attr.c's, one per context: which way (openat2 or the walk, the "resolver"), why, a refusal of the fallback's calls */
struct pt_beneath_state {
	int mode, why, refused;
};
/*
 * Open @rest below the top directory fd @top: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), or where the kernel or a seccomp filter refuses it
 * (ENOSYS, EPERM; probed once per context) or PERFTUNE_NO_OPENAT2 is set, the
 * same confinement walked in user space.  -EPERM: it would leave the top;
 * -ELOOP: a magic link, too many links, or O_NOFOLLOW on a link.
 */
int pt_beneath_open(struct pt_beneath_state *s, int top, const char *rest, int flags);
/* use the user-space walk (@user) or openat2 from now on, no probe */
void pt_beneath_force(struct pt_beneath_state *s, bool user);
/* the name of pt_attr_beneath_name(), probed below @top (sys/ or proc/; -errno: none) if need be */
const char *pt_beneath_name(struct pt_beneath_state *s, int top);
/*
 * Open the directory @path (absolute) through root's directories only, as
 * systemd's chase() with CHASE_SAFE: the directory itself is never a symlink,
 * however it is spelled ("dir/", "dir/."); a symlink on the way is followed
 * only if it is root's in a directory only root can write (so /var/run ->
 * /run is fine).  Its last component is made (0700) if missing and @create.
 * Returns an O_RDONLY fd of the directory, or -errno with *@why saying what
 * was refused (NULL: the errno says it).  The journal directory's check.
 */
int pt_safe_dir_open(const char *path, bool create, const char **why);

#endif
