// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/export/output.c: perftune_output_* on a scratch directory.  A file is
 * made beside the path and renamed over it; a link, a FIFO or a directory at
 * the path is refused, untouched, with a message naming the path; a
 * character device is written in place; a file never committed is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;
static char dir[PATH_MAX], path[PATH_MAX];

static void setup(void)
{
	fx_setup(&f);
	snprintf(dir, sizeof(dir), "%s/out", f.root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
}
static void teardown(void) { fx_teardown(&f); }

static const char *at(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* what the file @name in dir holds, trimmed (fx_read()) */
static const char *contents(const char *name)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "out/%s", name);
	return fx_read(&f, rel);
}

/* the files in dir: only those named, no leftover "*.perftune-*" */
static int entries(void)
{
	char cmd[PATH_MAX + 32];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	p = popen(cmd, "r");
	while (p && fgets(cmd, sizeof(cmd), p))
		n++;
	if (p)
		pclose(p);
	return n;
}

START_TEST(write_file_replaces_the_file_with_a_new_inode)
{
	struct stat before, after;

	ck_assert_int_eq(perftune_output_write_file(f.ctx, at("x"), "one\n", 0600), 0);
	ck_assert_str_eq(contents("x"), "one");
	ck_assert_int_eq(stat(at("x"), &before), 0);
	ck_assert_uint_eq(before.st_mode & 07777, 0600);
	ck_assert_int_eq(perftune_output_write_file(f.ctx, at("x"), "two\n", 0644), 0);
	ck_assert_int_eq(stat(at("x"), &after), 0);
	ck_assert_str_eq(contents("x"), "two");
	ck_assert_uint_eq(after.st_mode & 07777, 0644);
	ck_assert_uint_ne(before.st_ino, after.st_ino);
	ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(link_fifo_and_directory_are_refused_untouched)
{
	const char *names[] = { "link", "fifo", "dir" };
	const char *kinds[] = { "it is a symbolic link: perftune writes regular files only, never "
				"through a link (give the file's own path)",
				"it is a FIFO: perftune writes regular files only",
				"it is a directory: perftune writes regular files only" };
	char want[PATH_MAX + 200];
	struct perftune_output *o = (void *)1;

	ck_assert_int_eq(symlink("/nonexistent-target", at("link")), 0);
	ck_assert_int_eq(mkfifo(at("fifo"), 0644), 0);
	ck_assert_int_eq(mkdir(at("dir"), 0755), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "%s: %s", at(names[i]), kinds[i]);
		ck_assert_int_eq(perftune_output_check(f.ctx, at(names[i])), -EPERM);
		ck_assert_str_eq(perftune_ctx_last_error(f.ctx), want);
		ck_assert_int_eq(perftune_output_open(f.ctx, at(names[i]), 0644, &o), -EPERM);
		ck_assert_ptr_null(o);
		ck_assert_int_eq(perftune_output_write_file(f.ctx, at(names[i]), "x", 0644), -EPERM);
	}
	ck_assert_int_eq(access("/nonexistent-target", F_OK), -1);
	ck_assert_int_eq(entries(), 3);
}
END_TEST

START_TEST(not_committed_is_removed_and_the_old_file_stays)
{
	struct perftune_output *o;

	ck_assert_int_eq(perftune_output_write_file(f.ctx, at("x"), "old", 0644), 0);
	ck_assert_int_eq(perftune_output_open(f.ctx, at("x"), 0644, &o), 0);
	ck_assert_int_eq(write(perftune_output_fd(o), "new", 3), 3);
	ck_assert_int_eq(entries(), 2); /* x and the new file beside it */
	perftune_output_free(o);
	ck_assert_str_eq(contents("x"), "old");
	ck_assert_int_eq(entries(), 1);
	/* committed: the fd stays open and writable */
	ck_assert_int_eq(perftune_output_open(f.ctx, at("x"), 0644, &o), 0);
	ck_assert_int_eq(perftune_output_commit(o), 0);
	ck_assert_int_eq(write(perftune_output_fd(o), "new", 3), 3);
	perftune_output_free(o);
	ck_assert_str_eq(contents("x"), "new");
}
END_TEST

START_TEST(character_device_is_written_in_place)
{
	struct perftune_output *o;

	ck_assert_int_eq(perftune_output_check(f.ctx, "/dev/null"), 0);
	ck_assert_int_eq(perftune_output_open(f.ctx, "/dev/null", 0644, &o), 0);
	ck_assert_int_eq(perftune_output_commit(o), 0);
	perftune_output_free(o);
	ck_assert_int_eq(perftune_output_write_file(f.ctx, "/dev/null", "x", 0644), 0);
}
END_TEST

/* a log: a new empty file at the path at once, its fd appending, shared by writers */
START_TEST(log_is_a_new_file_appended_by_each_writer)
{
	struct stat before, after;
	int a, b;

	ck_assert_int_eq(perftune_output_write_file(f.ctx, at("log"), "old run\n", 0644), 0);
	ck_assert_int_eq(stat(at("log"), &before), 0);
	a = perftune_output_open_log(f.ctx, at("log"), 0640);
	ck_assert_msg(a >= 0, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(stat(at("log"), &after), 0); /* committed: no leftover beside it */
	ck_assert_uint_ne(before.st_ino, after.st_ino);
	ck_assert_uint_eq(after.st_mode & 07777, 0640);
	ck_assert_int_eq(after.st_size, 0);
	ck_assert_int_eq(entries(), 1);
	ck_assert_int_ne(fcntl(a, F_GETFL) & O_APPEND, 0);
	ck_assert_int_ne(fcntl(a, F_GETFD) & FD_CLOEXEC, 0);
	/* a second writer (a child's stderr) never writes over the first */
	b = open(at("log"), O_WRONLY);
	ck_assert_int_ge(b, 0);
	ck_assert_int_eq(write(a, "one\n", 4), 4);
	ck_assert_int_eq(lseek(b, 0, SEEK_SET), 0);
	ck_assert_int_eq(fcntl(b, F_SETFL, O_APPEND), 0);
	ck_assert_int_eq(write(b, "two\n", 4), 4);
	ck_assert_int_eq(write(a, "three", 5), 5);
	close(a);
	close(b);
	ck_assert_str_eq(contents("log"), "one\ntwo\nthree");
	a = perftune_output_open_log(f.ctx, "/dev/null", 0644);
	ck_assert_int_ge(a, 0);
	close(a);
	ck_assert_int_eq(mkfifo(at("fifo"), 0644), 0);
	ck_assert_int_eq(perftune_output_open_log(f.ctx, at("fifo"), 0644), -EPERM);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "it is a FIFO"));
	ck_assert_int_eq(perftune_output_open_log(f.ctx, at("no/such/dir"), 0644), -ENOENT);
	ck_assert_int_eq(perftune_output_open_log(NULL, at("x"), 0644), -EINVAL);
}
END_TEST

START_TEST(bad_paths_and_arguments)
{
	struct perftune_output *o;
	char want[PATH_MAX + 100];

	ck_assert_int_eq(perftune_output_check(f.ctx, at("")), -EINVAL); /* ends in '/' */
	snprintf(want, sizeof(want), "%s: it names a directory, not a file", path);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx), want);
	ck_assert_int_eq(perftune_output_check(f.ctx, at("none/x")), -ENOENT);
	ck_assert_int_eq(perftune_output_check(NULL, at("x")), -EINVAL);
	ck_assert_int_eq(perftune_output_open(f.ctx, at("x"), 010000, &o), -EINVAL);
	ck_assert_int_eq(perftune_output_write_file(f.ctx, at("x"), NULL, 0644), -EINVAL);
	ck_assert_int_eq(perftune_output_fd(NULL), -EINVAL);
	ck_assert_int_eq(perftune_output_commit(NULL), -EINVAL);
	perftune_output_free(NULL);
	ck_assert_int_eq(entries(), 0);
}
END_TEST

START_TEST(another_users_file_in_a_sticky_directory_is_refused)
{
	if (geteuid() != 0)
		return; /* chown needs root */
	ck_assert_int_eq(chmod(dir, 01777), 0);
	ck_assert_int_eq(perftune_output_write_file(f.ctx, at("x"), "theirs", 0644), 0);
	ck_assert_int_eq(chown(at("x"), 65534, 65534), 0);
	ck_assert_int_eq(perftune_output_write_file(f.ctx, at("x"), "ours", 0644), -EPERM);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "belongs to uid 65534"), "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(contents("x"), "theirs");
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("output");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, write_file_replaces_the_file_with_a_new_inode);
	tcase_add_test(tc, link_fifo_and_directory_are_refused_untouched);
	tcase_add_test(tc, not_committed_is_removed_and_the_old_file_stays);
	tcase_add_test(tc, character_device_is_written_in_place);
	tcase_add_test(tc, log_is_a_new_file_appended_by_each_writer);
	tcase_add_test(tc, bad_paths_and_arguments);
	tcase_add_test(tc, another_users_file_in_a_sticky_directory_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { output_suite };
	return harness_main(argc, argv, suites, 1);
}
