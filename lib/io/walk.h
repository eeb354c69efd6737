/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* walk.c: a path walked in user space, one component at a time, by policy. */
#ifndef PERFTUNE_IO_WALK_H
#define PERFTUNE_IO_WALK_H

#include <stdbool.h>

/*
 * @rest below the top directory fd @top, confined as openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS) confines it, opened with @flags: an fd or -errno
 * (-EPERM: it would leave the top; -ELOOP: a magic link, too many links, or
 * O_NOFOLLOW on a link).  *@refused: ENOSYS or EPERM where a call of the walk
 * itself was refused (a seccomp filter), else 0.
 */
int pt_walk_beneath(int top, const char *rest, int flags, int *refused);
/* pt_safe_dir_open()'s walk (io/beneath.h), for a path with a link on the way or to create */
int pt_walk_safe_dir(const char *path, bool create, const char **why);

#endif
