// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * beneath.c: both resolvers (openat2 and the user-space walk) give the same
 * answer for every path, and neither leads out of the top: ".." escapes,
 * absolute links, relative links out of the top, magic links, link loops,
 * and a link swapped in mid-resolution by another thread.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib-all.h"

static char root[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX * 2];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void link_(const char *target, const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(symlink(target, p), 0);
}

/*
 * root/secret and root/outside/attr are what an escape would reach ("secret");
 * everything below root/sys that may be reached reads "inside".
 */
static void mktree(void)
{
	char abs_in[PATH_MAX * 2], name[32], target[32];

	snprintf(root, sizeof(root), "/tmp/pt-resolve-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put("secret", "secret");
	dir("outside");
	put("outside/attr", "secret");
	dir("sys");
	dir("proc");
	dir("dev");
	dir("sys/devices");
	dir("sys/devices/a");
	put("sys/devices/a/attr", "inside");
	dir("sys/block");
	link_("../devices/a", "sys/block/x");
	link_("../../devices/a/attr", "sys/block/deep_ok_not"); /* ../.. from block/: above the top */
	link_("..", "sys/up");
	link_("/etc", "sys/abs");
	snprintf(abs_in, sizeof(abs_in), "%s/sys/devices/a", root);
	link_(abs_in, "sys/abs_in"); /* absolute, even when it points inside: refused */
	link_("../secret", "sys/out");
	link_("../outside", "sys/outdir");
	link_("devices/../../secret", "sys/out2");
	link_("loop2", "sys/loop1");
	link_("loop1", "sys/loop2");
	link_(".", "sys/self");
	link_("devices/a/attr", "sys/filelink"); /* last in the path, to a file */
	link_("nowhere", "sys/dangling");
	link_("/proc/self/root", "sys/magic");
	link_("../proc/x", "sys/toproc"); /* another top: out of this one */
	put("proc/x", "other top");
	for (int i = 0; i < 60; i++) { /* chain0 -> chain1 -> ... -> chain59 -> devices/a */
		snprintf(name, sizeof(name), "sys/chain%d", i);
		if (i == 59)
			snprintf(target, sizeof(target), "devices/a");
		else
			snprintf(target, sizeof(target), "chain%d", i + 1);
		link_(target, name);
	}
}

static void rmtree(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

static struct perftune_ctx *ctx_on(const char *r, bool user)
{
	struct perftune_ctx *ctx;

	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_int_eq(perftune_ctx_set_root(ctx, r), 0);
	pt_attr_beneath_force(ctx, user);
	return ctx;
}

/* 0 and the content in @buf, or -errno */
static int open_read(struct perftune_ctx *ctx, const char *path, int flags, char *buf,
		     size_t size)
{
	int fd = pt_attr_open(ctx, path, flags);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return fd;
	n = (flags & (O_PATH | O_DIRECTORY)) ? 0 : read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static const struct {
	const char *path;
	int flags;
	int want; /* 0 or -errno */
	const char *content;
} cases[] = {
	{ "sys/devices/a/attr", O_RDONLY, 0, "inside" },
	{ "sys/filelink", O_RDONLY, 0, "inside" },
	{ "sys/filelink/", O_RDONLY, -ENOTDIR, "" },
	{ "sys/block/x/", O_RDONLY | O_DIRECTORY, 0, "" },
	{ "sys/block/x/", O_PATH | O_NOFOLLOW, 0, "" },
	{ "sys/block/x/attr", O_RDONLY, 0, "inside" },
	{ "sys/block/x", O_RDONLY | O_DIRECTORY, 0, "" },
	{ "sys/block/x", O_PATH, 0, "" },
	{ "sys/block/x", O_RDONLY | O_NOFOLLOW, -ELOOP, "" },
	{ "sys/block/x", O_PATH | O_NOFOLLOW, 0, "" }, /* the link itself */
	{ "sys/block/x/../a/attr", O_RDONLY, 0, "inside" }, /* .. of the link's target */
	{ "sys/devices/../devices/a/attr", O_RDONLY, 0, "inside" },
	{ "sys/self/self/self/devices/a/attr", O_RDONLY, 0, "inside" },
	{ "sys/./devices//a/./attr", O_RDONLY, 0, "inside" },
	{ "sys", O_RDONLY | O_DIRECTORY, 0, "" },
	{ "sys/chain40", O_RDONLY | O_DIRECTORY, 0, "" }, /* 20 links */
	{ "sys/chain0", O_RDONLY | O_DIRECTORY, -ELOOP, "" }, /* 60 links */
	{ "sys/loop1", O_RDONLY, -ELOOP, "" },
	{ "sys/loop1/attr", O_RDONLY, -ELOOP, "" },
	{ "sys/..", O_RDONLY | O_DIRECTORY, -EPERM, "" },
	{ "sys/../secret", O_RDONLY, -EPERM, "" },
	{ "sys/devices/../../secret", O_RDONLY, -EPERM, "" },
	{ "sys/devices/a/../../../secret", O_RDONLY, -EPERM, "" },
	{ "sys/up/secret", O_RDONLY, -EPERM, "" },
	{ "sys/abs/passwd", O_RDONLY, -EPERM, "" },
	{ "sys/abs_in/attr", O_RDONLY, -EPERM, "" },
	{ "sys/out", O_RDONLY, -EPERM, "" },
	{ "sys/outdir/attr", O_RDONLY, -EPERM, "" },
	{ "sys/out2", O_RDONLY, -EPERM, "" },
	{ "sys/block/deep_ok_not", O_RDONLY, -EPERM, "" },
	{ "sys/magic/etc/passwd", O_RDONLY, -EPERM, "" },
	{ "sys/toproc", O_RDONLY, -EPERM, "" },
	{ "sys/dangling", O_RDONLY, -ENOENT, "" },
	{ "sys/nothing", O_RDONLY, -ENOENT, "" },
	{ "sys/devices/a/attr/", O_RDONLY, -ENOTDIR, "" },
	{ "sys/devices/a/attr/x", O_RDONLY, -ENOTDIR, "" },
	{ "sys/devices/a/attr", O_RDONLY | O_DIRECTORY, -ENOTDIR, "" },
	{ "proc/x", O_RDONLY, 0, "other top" },
	{ "etc/passwd", O_RDONLY, -EPERM, "" }, /* not a top */
};

START_TEST(both_resolvers_agree_and_stay_beneath)
{
	const char *name[] = { "openat2", "user-space" };
	char buf[64];

	mktree();
	for (int user = 0; user < 2; user++) {
		struct perftune_ctx *ctx = ctx_on(root, user);
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			int r = open_read(ctx, cases[i].path, cases[i].flags, buf, sizeof(buf));
			ck_assert_msg(r == cases[i].want && !strcmp(buf, cases[i].content),
				      "%s: %s (flags %#x): got %d '%s', want %d '%s'", name[user],
				      cases[i].path, cases[i].flags, r, buf, cases[i].want,
				      cases[i].content);
		}
		perftune_ctx_unref(ctx);
	}
	rmtree();
}
END_TEST

/* the host's /proc: magic links refused by both, plain ones (self) followed */
START_TEST(magic_links_are_refused)
{
	static const struct {
		const char *path;
		int want;
	} magic[] = {
		{ "proc/self/status", 0 },
		{ "proc/thread-self/status", 0 },
		{ "proc/sys/kernel/ostype", 0 },
		{ "proc/self/fd/0", -ELOOP },
		{ "proc/self/exe", -ELOOP },
		{ "proc/self/cwd/x", -ELOOP },
		{ "proc/self/root/etc/passwd", -ELOOP },
		{ "proc/self/ns/net", -ELOOP },
		{ "proc/self/../../etc/passwd", -EPERM },
	};
	char buf[256];

	for (int user = 0; user < 2; user++) {
		struct perftune_ctx *ctx = ctx_on("/", user);
		for (size_t i = 0; i < ARRAY_SIZE(magic); i++) {
			int r = open_read(ctx, magic[i].path, O_RDONLY, buf, sizeof(buf));
			ck_assert_msg(r == magic[i].want, "%s: %s: got %d, want %d",
				      user ? "user-space" : "openat2", magic[i].path, r,
				      magic[i].want);
		}
		perftune_ctx_unref(ctx);
	}
}
END_TEST

/* the real /sys: sysfs's relative links followed (a class link to its device) */
START_TEST(real_sysfs_links_are_followed)
{
	char a[256], b[256];
	struct perftune_ctx *k = ctx_on("/", false), *u = ctx_on("/", true);
	int rk = open_read(k, "sys/class/mem/null/dev", O_RDONLY, a, sizeof(a));
	int ru = open_read(u, "sys/class/mem/null/dev", O_RDONLY, b, sizeof(b));

	ck_assert_int_eq(rk, ru);
	if (rk == 0) /* a machine without /sys/class/mem answers -ENOENT both ways */
		ck_assert_str_eq(a, b);
	perftune_ctx_unref(k);
	perftune_ctx_unref(u);
}
END_TEST

struct flipper {
	volatile bool stop;
	const char *a, *b; /* exchanged again and again */
	volatile long flips;
	volatile int err; /* renameat2's errno when exchanging is impossible here */
};

static void *flip(void *arg)
{
	struct flipper *fl = arg;
	char a[PATH_MAX * 2], b[PATH_MAX * 2];

	snprintf(a, sizeof(a), "%s/%s", root, fl->a);
	snprintf(b, sizeof(b), "%s/%s", root, fl->b);
	while (!fl->stop) {
		if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0)
			fl->flips++;
		else if (errno != EINTR && errno != EBUSY)
			fl->err = errno;
	}
	return NULL;
}

/*
 * sys/flip is a directory holding attr ("inside") or, exchanged atomically
 * by another thread, a link @target out of the top: every open of
 * sys/flip/attr either fails or reads "inside", never "secret".
 */
static void swap_race(bool user, const char *target)
{
	struct flipper fl = { .a = "sys/flip", .b = "sys/flip_alt" };
	char buf[64], cmd[PATH_MAX * 2 + 32];
	struct perftune_ctx *ctx;
	pthread_t th;
	int ok = 0, refused = 0;

	dir("sys/flip");
	put("sys/flip/attr", "inside");
	link_(target, "sys/flip_alt");
	ctx = ctx_on(root, user);
	ck_assert_int_eq(pthread_create(&th, NULL, flip, &fl), 0);
	/* on a loaded machine the flipper may start late: race only once it runs */
	while (fl.flips == 0 && fl.err == 0)
		sched_yield();
	ck_assert_msg(fl.err == 0, "renameat2(RENAME_EXCHANGE): %s", strerror(fl.err));
	for (int i = 0; i < 4000; i++) {
		int r = open_read(ctx, "sys/flip/attr", O_RDONLY, buf, sizeof(buf));
		if (r == 0) {
			ck_assert_msg(!strcmp(buf, "inside"), "%s resolved outside: read '%s'",
				      user ? "user-space" : "openat2", buf);
			ok++;
		} else {
			ck_assert_msg(r == -EPERM || r == -ENOENT || r == -ENOTDIR,
				      "unexpected %d", r);
			refused++;
		}
	}
	fl.stop = true;
	pthread_join(th, NULL);
	ck_assert_msg(fl.flips > 0, "no flips");
	/* under a filter refusing openat2 both runs are the user-space walk: say so */
	fprintf(stderr, "%s, link to %s: %ld flips, %d opens read 'inside', %d refused\n",
		perftune_ctx_get_resolver(ctx), target, fl.flips, ok, refused);
	perftune_ctx_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/flip' '%s/sys/flip_alt'", root, root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(link_swapped_mid_resolution_never_escapes)
{
	mktree();
	for (int user = 0; user < 2; user++) {
		swap_race(user, "../outside");
		swap_race(user, "/tmp");
	}
	rmtree();
}
END_TEST

START_TEST(env_forces_the_user_space_resolver)
{
	struct perftune_ctx *ctx;

	setenv("PERFTUNE_NO_OPENAT2", "1", 1);
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_get_resolver(ctx), "user-space"));
	ck_assert_ptr_nonnull(strstr(perftune_ctx_get_resolver(ctx), "PERFTUNE_NO_OPENAT2"));
	perftune_ctx_unref(ctx);
	unsetenv("PERFTUNE_NO_OPENAT2");
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_ptr_null(strstr(perftune_ctx_get_resolver(ctx), "PERFTUNE_NO_OPENAT2"));
	perftune_ctx_unref(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("beneath");
	TCase *tc = tcase_create("beneath");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, both_resolvers_agree_and_stay_beneath);
	tcase_add_test(tc, magic_links_are_refused);
	tcase_add_test(tc, real_sysfs_links_are_followed);
	tcase_add_test(tc, link_swapped_mid_resolution_never_escapes);
	tcase_add_test(tc, env_forces_the_user_space_resolver);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
