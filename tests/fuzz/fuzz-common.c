// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <sanitizer/common_interface_defs.h>
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

/*
 * Nothing the library parses may run a program.  These definitions take the
 * place of libc's for the whole process (the library is linked in statically,
 * libudev and friends resolve to the executable first); the sanitizers'
 * symbolizer spawns with raw syscalls and is not affected.  Before fz_init()
 * is done they pass through (mkroot.sh runs then).
 */
static bool guard;

#define FORBID(ret, name, params, args)                                                            \
	ret name params                                                                            \
	{                                                                                          \
		ret(*real) params = (ret(*) params)dlsym(RTLD_NEXT, #name);                        \
		if (guard || !real)                                                                \
			fz_fail("the library tried to run a program (%s)", #name);               \
		return real args;                                                                  \
	}

FORBID(int, execve, (const char *p, char *const a[], char *const e[]), (p, a, e))
FORBID(int, execv, (const char *p, char *const a[]), (p, a))
FORBID(int, execvp, (const char *p, char *const a[]), (p, a))
FORBID(int, execvpe, (const char *p, char *const a[], char *const e[]), (p, a, e))
FORBID(int, fexecve, (int fd, char *const a[], char *const e[]), (fd, a, e))
FORBID(int, system, (const char *cmd), (cmd))
FORBID(FILE *, popen, (const char *cmd, const char *mode), (cmd, mode))
FORBID(int, posix_spawn,
       (pid_t * pid, const char *p, const posix_spawn_file_actions_t *fa,
	const posix_spawnattr_t *at, char *const a[], char *const e[]),
       (pid, p, fa, at, a, e))
FORBID(int, posix_spawnp,
       (pid_t * pid, const char *p, const posix_spawn_file_actions_t *fa,
	const posix_spawnattr_t *at, char *const a[], char *const e[]),
       (pid, p, fa, at, a, e))

int execl(const char *p, const char *arg, ...)
{
	fz_fail("the library tried to run a program (execl %s %s)", p, arg);
}

int execlp(const char *p, const char *arg, ...)
{
	fz_fail("the library tried to run a program (execlp %s %s)", p, arg);
}

int execle(const char *p, const char *arg, ...)
{
	fz_fail("the library tried to run a program (execle %s %s)", p, arg);
}

/*
 * One input's limit in CPU time, PERFTUNE_FUZZ_CPU_LIMIT seconds (tests/fuzz/run
 * sets it), where libFuzzer's -timeout counts wall time: on a loaded machine an
 * input gets a fraction of a CPU, and a limit in wall time fails inputs that are
 * not slow.  tests/fuzz/run keeps a longer -timeout for an input that waits.
 * LLVMFuzzerTestOneInput is wrapped at link time (-Wl,--wrap, meson.build).
 */
static struct itimerval cpu_limit;

static void cpu_limit_hit(int sig)
{
	static const char msg[] = "fuzz: the input used more CPU time than "
				  "PERFTUNE_FUZZ_CPU_LIMIT allows\n";

	ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)sig, (void)n;
	__sanitizer_print_stack_trace(); /* where the time went */
	abort();			 /* libFuzzer writes the input out as a crash */
}

static void cpu_limit_init(void)
{
	const char *s = getenv("PERFTUNE_FUZZ_CPU_LIMIT");
	struct sigaction sa = { .sa_handler = cpu_limit_hit };
	char *end;
	double secs = s ? strtod(s, &end) : 0;

	if (!s || !*s)
		return;
	if (*end || !(secs > 0))
		fz_fail("PERFTUNE_FUZZ_CPU_LIMIT=%s: not a number of seconds above 0", s);
	cpu_limit.it_value.tv_sec = (time_t)secs;
	cpu_limit.it_value.tv_usec = (suseconds_t)((secs - (double)(time_t)secs) * 1e6);
	if (sigaction(SIGPROF, &sa, NULL) < 0)
		fz_fail("sigaction SIGPROF: %s", strerror(errno));
}

int __real_LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) __attribute__((weak));
int __wrap_LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __wrap_LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct itimerval off;
	int r;

	setitimer(ITIMER_PROF, &cpu_limit, NULL); /* a zero limit: no timer */
	r = __real_LLVMFuzzerTestOneInput(data, size);
	setitimer(ITIMER_PROF, &off, NULL);
	return r;
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
	own_root = !(given && *given);
	atexit(cleanup);
	cpu_limit_init();
	guard = true;
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
	int fd;

	/* a new file, not the old one truncated: ext4 flushes a file truncated to 0 on close */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || fchmod(fd, mode) < 0)
		fz_fail("write %s: %s", path, strerror(errno));
	close(fd);
}
