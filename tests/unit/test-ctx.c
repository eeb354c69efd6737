// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The context (lib/ctx.c, lib/log.c) through the public API: its defaults,
 * the root and journal directory it takes and refuses, references, the log
 * callback, the last error.  Small trees of its own: no fake machine.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "plain.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char top[PATH_MAX]; /* roots a and b, a file */

static void put(const char *rel, const char *text)
{
	plain_put(top, rel, text, 0644);
}

static void setup(void)
{
	snprintf(top, sizeof(top), "/tmp/pt-ctx-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(top));
	put("a/proc/sys/vm/swappiness", "10\n");
	put("b/proc/sys/vm/swappiness", "20\n");
	put("file", "not a directory\n");
	unsetenv("PERFTUNE_JOURNAL_DIR");
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(new_context_is_on_the_host_with_the_default_journal_dir)
{
	struct perftune_ctx *ctx;

	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_str_eq(perftune_ctx_get_root(ctx), "/");
	ck_assert_str_eq(perftune_ctx_get_journal_dir(ctx), "/run/perftune");
	perftune_ctx_unref(ctx);
	setenv("PERFTUNE_JOURNAL_DIR", "/var/tmp/pt-journals", 1);
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_str_eq(perftune_ctx_get_journal_dir(ctx), "/var/tmp/pt-journals");
	perftune_ctx_unref(ctx);
	setenv("PERFTUNE_JOURNAL_DIR", "", 1); /* empty: the default */
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_str_eq(perftune_ctx_get_journal_dir(ctx), "/run/perftune");
	perftune_ctx_unref(ctx);
	ck_assert_int_eq(perftune_ctx_new(NULL), -EINVAL);
}
END_TEST

/* a root, below the test's top directory if @below */
static const struct {
	const char *root;
	bool below;
	int err;
	const char *msg;
} roots[] = {
	{ "/a", true, 0, NULL },
	{ "relative/root", false, -EINVAL, "root 'relative/root': not an absolute path" },
	{ "", false, -EINVAL, "not an absolute path" },
	{ NULL, false, -EINVAL, "root '(null)': not an absolute path" },
	{ "/nosuch", true, -ENOENT, "/nosuch: No such file or directory" },
	{ "/file", true, -ENOTDIR, "/file: Not a directory" },
};

START_TEST(root_must_be_an_absolute_directory)
{
	struct perftune_ctx *ctx;
	char root[PATH_MAX * 2], *v = NULL;
	const char *arg = roots[_i].root;

	if (roots[_i].below) {
		snprintf(root, sizeof(root), "%s%s", top, arg);
		arg = root;
	}
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_int_eq(perftune_ctx_set_root(ctx, arg), roots[_i].err);
	if (roots[_i].err) { /* refused: the root is unchanged */
		ck_assert_msg(strstr(perftune_ctx_last_error(ctx), roots[_i].msg), "%s",
			      perftune_ctx_last_error(ctx));
		ck_assert_str_eq(perftune_ctx_get_root(ctx), "/");
	} else {
		ck_assert_str_eq(perftune_ctx_get_root(ctx), arg);
		ck_assert_int_eq(perftune_get(ctx, "sysctl.vm.swappiness", &v), 0);
		ck_assert_str_eq(v, "10");
		free(v);
	}
	perftune_ctx_unref(ctx);
}
END_TEST

START_TEST(journal_dir_must_be_absolute)
{
	struct perftune_ctx *ctx;

	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(ctx, "/not/yet/made"), 0); /* made on use */
	ck_assert_str_eq(perftune_ctx_get_journal_dir(ctx), "/not/yet/made");
	ck_assert_int_eq(perftune_ctx_set_journal_dir(ctx, "run/perftune"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(ctx),
				     "journal directory 'run/perftune': not an absolute path"));
	ck_assert_int_eq(perftune_ctx_set_journal_dir(ctx, NULL), -EINVAL);
	ck_assert_str_eq(perftune_ctx_get_journal_dir(ctx), "/not/yet/made");
	perftune_ctx_unref(ctx);
}
END_TEST

START_TEST(null_context_is_refused_not_dereferenced)
{
	ck_assert_int_eq(perftune_ctx_set_root(NULL, "/"), -EINVAL);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(NULL, "/run/x"), -EINVAL);
	ck_assert_ptr_null(perftune_ctx_get_root(NULL));
	ck_assert_ptr_null(perftune_ctx_get_journal_dir(NULL));
	ck_assert_ptr_null(perftune_ctx_get_resolver(NULL));
	ck_assert_ptr_null(perftune_ctx_ref(NULL));
	ck_assert_ptr_null(perftune_ctx_unref(NULL));
	perftune_ctx_set_log_fn(NULL, NULL, PERFTUNE_LOG_DEBUG, NULL);
	ck_assert_ptr_nonnull(perftune_ctx_last_error(NULL));
}
END_TEST

START_TEST(context_lives_until_its_last_reference_goes)
{
	struct perftune_ctx *ctx;
	char root[PATH_MAX + 8];

	snprintf(root, sizeof(root), "%s/b", top);
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	ck_assert_int_eq(perftune_ctx_set_root(ctx, root), 0);
	ck_assert_ptr_eq(perftune_ctx_ref(ctx), ctx);
	ck_assert_ptr_null(perftune_ctx_unref(ctx));
	ck_assert_str_eq(perftune_ctx_get_root(ctx), root); /* one reference left */
	ck_assert_ptr_null(perftune_ctx_unref(ctx));
}
END_TEST

START_TEST(each_context_reads_below_its_own_root)
{
	struct perftune_ctx *a, *b;
	char root[PATH_MAX + 8], *va = NULL, *vb = NULL;

	ck_assert_int_eq(perftune_ctx_new(&a), 0);
	ck_assert_int_eq(perftune_ctx_new(&b), 0);
	snprintf(root, sizeof(root), "%s/a", top);
	ck_assert_int_eq(perftune_ctx_set_root(a, root), 0);
	snprintf(root, sizeof(root), "%s/b", top);
	ck_assert_int_eq(perftune_ctx_set_root(b, root), 0);
	ck_assert_int_eq(perftune_get(a, "sysctl.vm.swappiness", &va), 0);
	ck_assert_int_eq(perftune_get(b, "sysctl.vm.swappiness", &vb), 0);
	ck_assert_str_eq(va, "10");
	ck_assert_str_eq(vb, "20");
	free(va);
	free(vb);
	/* and a root set again replaces the first */
	ck_assert_int_eq(perftune_ctx_set_root(a, root), 0);
	ck_assert_int_eq(perftune_get(a, "sysctl.vm.swappiness", &va), 0);
	ck_assert_str_eq(va, "20");
	free(va);
	perftune_ctx_unref(a);
	perftune_ctx_unref(b);
}
END_TEST

struct logged {
	int n, prio;
	char last[512];
	struct perftune_ctx *ctx;
};

static void log_fn(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	struct logged *l = ud;

	ck_assert_ptr_eq(ctx, l->ctx);
	ck_assert_ptr_null(strchr(msg, '\n'));
	l->n++;
	l->prio = prio;
	snprintf(l->last, sizeof(l->last), "%s", msg);
}

START_TEST(log_callback_gets_messages_up_to_its_priority)
{
	struct logged l = { 0 };
	char root[PATH_MAX + 8], *v = NULL;

	ck_assert_int_eq(perftune_ctx_new(&l.ctx), 0);
	snprintf(root, sizeof(root), "%s/a", top);
	ck_assert_int_eq(perftune_ctx_set_root(l.ctx, root), 0);
	/* an error is logged at debug priority: not below it */
	perftune_ctx_set_log_fn(l.ctx, log_fn, PERFTUNE_LOG_INFO, &l);
	ck_assert_int_eq(perftune_get(l.ctx, "sysctl.vm.nosuch", &v), -ENOENT);
	ck_assert_int_eq(l.n, 0);
	perftune_ctx_set_log_fn(l.ctx, log_fn, PERFTUNE_LOG_DEBUG, &l);
	ck_assert_int_eq(perftune_get(l.ctx, "sysctl.vm.nosuch", &v), -ENOENT);
	ck_assert_int_gt(l.n, 0);
	ck_assert_int_eq(l.prio, PERFTUNE_LOG_DEBUG);
	ck_assert_str_eq(l.last, "error: sysctl.vm.nosuch: no such sysctl");
	l.n = 0;
	perftune_ctx_set_log_fn(l.ctx, NULL, PERFTUNE_LOG_DEBUG, &l);
	ck_assert_int_eq(perftune_get(l.ctx, "sysctl.vm.nosuch", &v), -ENOENT);
	ck_assert_int_eq(l.n, 0);
	perftune_ctx_unref(l.ctx);
}
END_TEST

START_TEST(last_error_names_the_key_until_the_next_call)
{
	struct perftune_ctx *ctx;
	char root[PATH_MAX + 8], *v = NULL;

	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	snprintf(root, sizeof(root), "%s/a", top);
	ck_assert_int_eq(perftune_ctx_set_root(ctx, root), 0);
	ck_assert_int_eq(perftune_get(ctx, "sysctl.vm.nosuch", &v), -ENOENT);
	ck_assert_str_eq(perftune_ctx_last_error(ctx), "sysctl.vm.nosuch: no such sysctl");
	ck_assert_int_eq(perftune_get(ctx, "sysctl.vm.swappiness", &v), 0);
	free(v);
	ck_assert_str_eq(perftune_ctx_last_error(ctx), "");
	perftune_ctx_unref(ctx);
}
END_TEST

START_TEST(version_and_resolver_are_named)
{
	struct perftune_ctx *ctx;
	const char *r;

	ck_assert_str_eq(perftune_version(), PERFTUNE_VERSION);
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	r = perftune_ctx_get_resolver(ctx);
	ck_assert_msg(!strcmp(r, "openat2 (RESOLVE_BENEATH)") || !strncmp(r, "user-space (", 12),
		      "%s", r);
	ck_assert_str_eq(perftune_ctx_get_resolver(ctx), r); /* probed once, kept */
	perftune_ctx_unref(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctx");
	TCase *tc = tcase_create("ctx");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, new_context_is_on_the_host_with_the_default_journal_dir);
	tcase_add_loop_test(tc, root_must_be_an_absolute_directory, 0, (int)ARRAY_SIZE(roots));
	tcase_add_test(tc, journal_dir_must_be_absolute);
	tcase_add_test(tc, null_context_is_refused_not_dereferenced);
	tcase_add_test(tc, context_lives_until_its_last_reference_goes);
	tcase_add_test(tc, each_context_reads_below_its_own_root);
	tcase_add_test(tc, log_callback_gets_messages_up_to_its_priority);
	tcase_add_test(tc, last_error_names_the_key_until_the_next_call);
	tcase_add_test(tc, version_and_resolver_are_named);
	suite_add_tcase(s, tc);
	return plain_main(s);
}
