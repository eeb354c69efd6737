// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * seccomp-run --errno ENOSYS|EPERM -- CMD...: run CMD as on Linux 4.18 (RHEL 8)
 * or under a container's seccomp filter.  openat2 and io_uring_setup/enter/
 * register answer the given errno (ENOSYS: an old kernel or systemd's
 * RestrictSUIDSGID= filter; EPERM: older systemd, nspawn, container
 * runtimes); every other call newer than 4.18 answers ENOSYS, as 4.18 does
 * (glibc's clone3, faccessat2, close_range... fall back on ENOSYS only, and a
 * filter answering EPERM for them breaks glibc itself, not us).  The filter
 * is inherited by CMD and everything it runs.
 *
 * --refuse-walk also answers the user-space resolver's own lookups (openat
 * with O_PATH|O_NOFOLLOW, no O_DIRECTORY) with that errno: a filter that
 * leaves perftune no way at all, whose error must say so.
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* what the library asks of the kernel that 4.18 lacks */
static const char *const lib_calls[] = {
	"openat2", "io_uring_setup", "io_uring_enter", "io_uring_register",
};

/* every other call added after 4.18 (5.1 ... 6.x), by name: libseccomp knows the numbers */
static const char *const newer[] = {
	"pidfd_send_signal", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
	"fspick", "pidfd_open", "clone3", "close_range", "pidfd_getfd", "faccessat2",
	"process_madvise", "epoll_pwait2", "mount_setattr", "quotactl_fd",
	"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
	"memfd_secret", "process_mrelease", "futex_waitv", "set_mempolicy_home_node",
	"cachestat", "fchmodat2", "map_shadow_stack", "futex_wake", "futex_wait",
	"futex_requeue", "statmount", "listmount", "lsm_get_self_attr", "lsm_set_self_attr",
	"lsm_list_modules", "mseal", "setxattrat", "getxattrat", "listxattrat",
	"removexattrat", "open_tree_attr",
};

#define X86_64_RSEQ 334 /* the last call of 4.18 on x86_64 */
#define X86_64_MAX 600

static int deny(scmp_filter_ctx f, int nr, int err)
{
	int r = seccomp_rule_add(f, SCMP_ACT_ERRNO((unsigned)err), nr, 0);

	return r == -EEXIST ? 0 : r;
}

static int usage(void)
{
	fprintf(stderr, "usage: seccomp-run --errno ENOSYS|EPERM [--refuse-walk] -- CMD [ARG...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	scmp_filter_ctx f;
	int err, r = 0, cmd = 4;
	bool walk = false;

	if (argc > 4 && !strcmp(argv[3], "--refuse-walk")) {
		walk = true;
		cmd = 5;
	}
	if (argc < cmd + 1 || strcmp(argv[1], "--errno") || strcmp(argv[cmd - 1], "--"))
		return usage();
	if (!strcmp(argv[2], "ENOSYS"))
		err = ENOSYS;
	else if (!strcmp(argv[2], "EPERM"))
		err = EPERM;
	else
		return usage();
	f = seccomp_init(SCMP_ACT_ALLOW);
	if (!f)
		return 1;
	for (size_t i = 0; i < sizeof(lib_calls) / sizeof(lib_calls[0]) && r == 0; i++) {
		int nr = seccomp_syscall_resolve_name(lib_calls[i]);
		if (nr == __NR_SCMP_ERROR) {
			fprintf(stderr, "seccomp-run: libseccomp does not know %s\n", lib_calls[i]);
			r = -ENOSYS;
		} else {
			r = deny(f, nr, err);
		}
	}
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]) && r == 0; i++) {
		int nr = seccomp_syscall_resolve_name(newer[i]);
		if (nr != __NR_SCMP_ERROR) /* a libseccomp older than the call: the range below */
			r = deny(f, nr, ENOSYS);
	}
	/* x86_64: whatever this libseccomp has no name for yet, by number */
	if (r == 0 && seccomp_arch_native() == SCMP_ARCH_X86_64)
		for (int nr = X86_64_RSEQ + 1; nr <= X86_64_MAX && r == 0; nr++)
			r = deny(f, nr, ENOSYS);
	if (r == 0 && walk)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO((unsigned)err), SCMP_SYS(openat), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, O_PATH | O_NOFOLLOW | O_DIRECTORY,
					     O_PATH | O_NOFOLLOW));
	if (r == 0)
		r = seccomp_load(f);
	seccomp_release(f);
	if (r < 0) {
		fprintf(stderr, "seccomp-run: cannot install the filter: %s\n", strerror(-r));
		return 1;
	}
	execvp(argv[cmd], argv + cmd);
	fprintf(stderr, "seccomp-run: %s: %s\n", argv[cmd], strerror(errno));
	return 127;
}
