// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Paths opened without leaving where they must stay.
 *
 * Beneath a top directory: how pt_attr_open() reaches a file below sys/,
 * proc/ or dev/ of the context root.  The kernel's way where it has one:
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) (Linux 5.6).  Where it
 * answers ENOSYS (older kernels: RHEL 8 is 4.18; systemd's RestrictSUIDSGID=
 * filter on every kernel) or EPERM (older systemd, nspawn, container
 * runtimes' seccomp profiles), the same confinement walked in user space
 * (walk.c).  The probe runs once per context; PERFTUNE_NO_OPENAT2=1 forces
 * the user-space walk.
 *
 * Through root's directories only: the journal directory, one openat2() call
 * where no link is on the way, else the walk with its CHASE_SAFE policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "missing/missing-openat2.h"
#include "io/beneath.h"
#include "io/walk.h"

#define OPEN_TRIES 64

enum { MODE_UNKNOWN, MODE_OPENAT2, MODE_USER };

static int open_kernel(int top, const char *rest, int flags)
{
	struct open_how how = {
		/* openat2 takes only these flags with O_PATH */
		.flags = (unsigned)flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd = -1;

	/*
	 * EAGAIN: a rename or mount somewhere on the system raced a ".." of the
	 * lookup (sysfs links are relative: ../devices/...), and the kernel could
	 * not prove it stayed beneath; it asks for a retry (udev renames files
	 * all the time while devices come and go).
	 */
	for (int tries = 0; tries < OPEN_TRIES; tries++) {
		fd = (int)syscall(SYS_openat2, top, rest, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	if (fd < 0)
		return -errno;
	return fd;
}

/* openat2 refused as such (not a file): ENOSYS, or EPERM from a filter */
static bool refused(int r)
{
	return r == -ENOSYS || r == -EPERM;
}

static int probe(struct pt_beneath_state *s, int top)
{
	const char *env = getenv("PERFTUNE_NO_OPENAT2");
	int fd, mode, why = 0;

	if (env && env[0] && strcmp(env, "0")) {
		mode = MODE_USER;
	} else {
		fd = open_kernel(top, ".", O_PATH | O_DIRECTORY);
		if (fd >= 0) {
			close(fd);
			mode = MODE_OPENAT2;
		} else if (refused(fd) || fd == -EINVAL || fd == -E2BIG) {
			mode = MODE_USER;
			why = -fd;
		} else {
			return fd; /* EMFILE and the like: try again next time */
		}
	}
	__atomic_store_n(&s->why, why, __ATOMIC_RELAXED);
	__atomic_store_n(&s->mode, mode, __ATOMIC_RELEASE);
	return mode;
}

/* the user-space walk, noting in @s a refusal of the calls it makes */
static int open_user(struct pt_beneath_state *s, int top, const char *rest, int flags)
{
	int fd, refused;

	fd = pt_walk_beneath(top, rest, flags, &refused);
	if (fd < 0 && refused)
		__atomic_store_n(&s->refused, refused, __ATOMIC_RELAXED);
	return fd;
}

int pt_beneath_open(struct pt_beneath_state *s, int top, const char *rest, int flags)
{
	int mode = __atomic_load_n(&s->mode, __ATOMIC_ACQUIRE), fd;

	if (mode == MODE_UNKNOWN)
		mode = probe(s, top);
	if (mode < 0)
		return mode;
	if (mode == MODE_USER)
		return open_user(s, top, rest, flags);
	fd = open_kernel(top, rest, flags);
	/*
	 * A filter installed since the probe (a seccomp filter can be added to a
	 * running process, never removed): ENOSYS, or EPERM for "." as well.
	 */
	if (fd == -ENOSYS || (fd == -EPERM && probe(s, top) == MODE_USER)) {
		__atomic_store_n(&s->why, -fd, __ATOMIC_RELAXED);
		__atomic_store_n(&s->mode, MODE_USER, __ATOMIC_RELEASE);
		return open_user(s, top, rest, flags);
	}
	return fd == -EXDEV ? -EPERM : fd; /* EXDEV: an escape attempt */
}

void pt_beneath_force(struct pt_beneath_state *s, bool user)
{
	s->why = 0;
	__atomic_store_n(&s->mode, user ? MODE_USER : MODE_OPENAT2, __ATOMIC_RELEASE);
}

const char *pt_beneath_name(struct pt_beneath_state *s, int top)
{
	int mode = __atomic_load_n(&s->mode, __ATOMIC_ACQUIRE), why;

	if (mode == MODE_UNKNOWN)
		mode = top < 0 ? top : probe(s, top);
	why = __atomic_load_n(&s->why, __ATOMIC_RELAXED);
	if (mode == MODE_OPENAT2)
		return "openat2 (RESOLVE_BENEATH)";
	if (mode != MODE_USER)
		return "not probed yet (no sys/ or proc/ below the root)";
	switch (why) {
	case 0:
		return "user-space (forced: PERFTUNE_NO_OPENAT2)";
	case ENOSYS:
		return "user-space (openat2: ENOSYS, kernel older than 5.6 or a seccomp filter)";
	case EPERM:
		return "user-space (openat2: EPERM, a seccomp filter)";
	default:
		return "user-space (openat2 refused the probe)";
	}
}

int pt_safe_dir_open(const char *path, bool create, const char **why)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS };
	/* no symlink on the way, nothing to create: one call (else, or without openat2, the walk) */
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	*why = NULL;
	if (fd >= 0)
		return fd;
	if (errno == ENOENT && !create)
		return -ENOENT; /* not there, and no link on the way: the walk would say the same */
	return pt_walk_safe_dir(path, create, why);
}
