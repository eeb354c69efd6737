// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "fuzz-common.h"

static char root[PATH_MAX], scratch[PATH_MAX];
static bool own_root;
static int writes;

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	remove(path);
	return 0;
}

void fz_rmtree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
	if (scratch[0])
		fz_rmtree(scratch);
	if (own_root)
		fz_rmtree(root);
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "fuzz: the library tried to run a program (execve)\n";

	(void)sig, (void)si, (void)uc;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(98);
	abort();
}

/* execve/execveat raise SIGSYS, which aborts: libFuzzer keeps the input. */
static void forbid_exec(void)
{
#if defined(__x86_64__)
#define FZ_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FZ_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#ifdef FZ_AUDIT_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FZ_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };

	if (sigaction(SIGSYS, &sa, NULL) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		fz_fail("seccomp: %s", strerror(errno));
#endif
}

void fz_init(void)
{
	const char *given = getenv("PERFTUNE_FUZZ_ROOT"), *tmp = getenv("TMPDIR");
	char cmd[PATH_MAX + 64];

	if (scratch[0])
		return;
	snprintf(scratch, sizeof(scratch), "%s/perftune-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		fz_fail("mkdtemp %s: %s", scratch, strerror(errno));
	if (given && *given) {
		snprintf(root, sizeof(root), "%s", given);
	} else {
		snprintf(root, sizeof(root), "%s/root", scratch);
		snprintf(cmd, sizeof(cmd), "'%s' '%s' >/dev/null", MKROOT, root);
		if (system(cmd) != 0)
			fz_fail("%s failed", MKROOT);
	}
	own_root = !given;
	atexit(cleanup);
	forbid_exec();
}

const char *fz_root(void)
{
	return root;
}

const char *fz_scratch(void)
{
	return scratch;
}

static int refuse_write(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len,
			void *ud)
{
	(void)ctx, (void)path, (void)buf, (void)len, (void)ud;
	__atomic_add_fetch(&writes, 1, __ATOMIC_SEQ_CST); /* restores write from threads */
	return -EROFS;
}

static void drop_log(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx, (void)prio, (void)ud;
	if (!msg || strchr(msg, '\n'))
		fz_fail("log message is NULL or has a newline: %s", msg ? msg : "(null)");
}

struct perftune_ctx *fz_ctx(const char *jdir)
{
	struct perftune_ctx *ctx;

	if (perftune_ctx_new(&ctx) < 0 || perftune_ctx_set_root(ctx, root) < 0 ||
	    perftune_ctx_set_journal_dir(ctx, jdir) < 0)
		fz_fail("context on %s: %s", root, strerror(errno));
	pt_attr_set_write_fn(ctx, refuse_write, NULL);
	perftune_ctx_set_log_fn(ctx, drop_log, PERFTUNE_LOG_DEBUG, NULL);
	__atomic_store_n(&writes, 0, __ATOMIC_SEQ_CST);
	return ctx;
}

void fz_check_err(struct perftune_ctx *ctx, int r, const char *what)
{
	const char *msg = perftune_ctx_last_error(ctx);

	if (r >= 0)
		return;
	if (r != -ENOMEM && !msg[0])
		fz_fail("%s failed (%s) without a message", what, strerror(-r));
	if (strchr(msg, '\n'))
		fz_fail("%s: the message is not one line: %s", what, msg);
}

int fz_writes(void)
{
	return __atomic_load_n(&writes, __ATOMIC_SEQ_CST);
}

char *fz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		fz_fail("out of memory");
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fz_spill(const char *path, const void *data, size_t len, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);

	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || fchmod(fd, mode) < 0)
		fz_fail("write %s: %s", path, strerror(errno));
	close(fd);
}
