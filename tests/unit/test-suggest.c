// SPDX-License-Identifier: LGPL-2.1-or-later
/* suggest.c: the key meant by a mistyped one, and what stays "not here" (a table of each). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "core/suggest.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* a new file @rel of the fake tree holding @text */
static void create(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f.root, rel);
	fp = fopen(path, "w");
	ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
	fputs(text, fp);
	ck_assert_int_eq(fclose(fp), 0);
}

/* mistakes: -EINVAL, the message as before with "; did you mean MEANT?" */
static const struct {
	const char *key, *said, *meant;
} typo[] = {
	{ "sysctl.vm.swapiness", "no such sysctl", "sysctl.vm.swappiness" },
	{ "sysctl.vm.swappines", "no such sysctl", "sysctl.vm.swappiness" },
	{ "sysctl.vm.swapinness", "no such sysctl", "sysctl.vm.swappiness" }, /* two edits */
	{ "sysctl.vm.dirty_ratoi", "no such sysctl", "sysctl.vm.dirty_ratio" }, /* a swap */
	{ "sysctl.vmm.swappiness", "no such sysctl", "sysctl.vm.swappiness" },	/* a directory */
	{ "sysctl.VM.swappiness", "no such sysctl", "sysctl.vm.swappiness" }, /* case: even short */
	{ "CPU.0.governor", "unknown family 'CPU'", "cpu.0.governor" },
	{ "sysctl.kernel.numa_balanc1ng", "no such sysctl", "sysctl.kernel.numa_balancing" },
	{ "sysctl.net.ipv4.conf.[eth0.100].rp_filtr", "no such sysctl",
	  "sysctl.net.ipv4.conf.[eth0.100].rp_filter" },
	{ "vm.swappiness", "unknown family 'vm'", "sysctl.vm.swappiness" },
	{ "vm.swapiness", "unknown family 'vm'", "sysctl.vm.swappiness" },
	{ "kernel.ostype", "unknown family 'kernel'", "sysctl.kernel.ostype" },
	{ "net.ipv4.conf.eth0.rp_filter", "net.ipv4.conf.eth0.rp_filter: ",
	  "sysctl.net.ipv4.conf.eth0.rp_filter" }, /* net is a family too */
	{ "sysctll.vm.swappiness", "unknown family 'sysctll'", "sysctl.vm.swappiness" },
	{ "tph.enabled", "unknown family 'tph'", "thp.enabled" },
	{ "blokc.sda.scheduler", "unknown family 'blokc'", "block.sda.scheduler" },
	{ "blok[/dev/sda2].scheduler", "unknown family 'blok'", "block[/dev/sda2].scheduler" },
};

START_TEST(typo_is_einval_naming_the_key_meant)
{
	char *v = NULL, want[256];
	int r = perftune_get(f.ctx, typo[_i].key, &v);
	const char *msg = perftune_ctx_last_error(f.ctx);

	snprintf(want, sizeof(want), "; did you mean %s?", typo[_i].meant);
	ck_assert_msg(r == -EINVAL, "%s: %d (%s)", typo[_i].key, r, msg);
	ck_assert_msg(!strncmp(msg, typo[_i].key, strlen(typo[_i].key)) &&
			      strstr(msg, typo[_i].said),
		      "%s: message '%s' lacks the key or '%s'", typo[_i].key, msg, typo[_i].said);
	ck_assert_msg(strlen(msg) > strlen(want) && !strcmp(msg + strlen(msg) - strlen(want), want),
		      "%s: message '%s' does not end with '%s'", typo[_i].key, msg, want);
	ck_assert_ptr_null(v);
}
END_TEST

/* not mistakes: the error and its message as they were, no suggestion */
static const struct {
	const char *key;
	int err;
	const char *msg;
} absent[] = {
	{ "sysctl.vm.nosuch", -ENOENT, "sysctl.vm.nosuch: no such sysctl" },	 /* far */
	{ "sysctl.vm.swap", -ENOENT, "sysctl.vm.swap: no such sysctl" },	 /* far too */
	{ "sysctl.vm.sw", -ENOENT, "sysctl.vm.sw: no such sysctl" },		 /* too short */
	{ "sysctl.net.ipv4.conf.eth1.rp_filter", -ENOENT, "no such sysctl" }, /* another device */
	{ "sysctl.net.ipv6.conf.eth0.rp_filter", -ENOENT, "no such sysctl" }, /* ipv6: another */
	{ "sysctl.vm.swappiness.x", -ENOENT, "no such sysctl" },	      /* a file, not a dir */
	{ "sysctl.v*.swapiness", -ENOENT, "no such sysctl" },		      /* a glob: no typo */
	{ "sysctl.nosuchdir.swappiness", -ENOENT, "no such sysctl" },	      /* a module's */
	{ "nosuch.thing", -EINVAL, "unknown family 'nosuch' (block, cpu," },
	{ "blok.nosuch.scheduler", -EINVAL, "unknown family 'blok'" }, /* block.nosuch: nothing */
	{ "block.nosuch.scheduler", -ENODEV, "block.nosuch.scheduler: no such block device" },
	{ "block.sda.nosuch", -ENOENT, "no queue attribute 'nosuch'" },
	{ "thp.nosuch", -ENOENT, "thp.nosuch: no such THP attribute" },
};

START_TEST(absent_key_keeps_its_error_without_suggestion)
{
	char *v = NULL;
	int r = perftune_get(f.ctx, absent[_i].key, &v);
	const char *msg = perftune_ctx_last_error(f.ctx);

	ck_assert_msg(r == absent[_i].err, "%s: expected %d, got %d (%s)", absent[_i].key,
		      absent[_i].err, r, msg);
	ck_assert_msg(strstr(msg, absent[_i].msg) && !strstr(msg, "did you mean"),
		      "%s: message '%s': expected '%s' and no suggestion", absent[_i].key, msg,
		      absent[_i].msg);
	ck_assert_ptr_null(v);
}
END_TEST

static const struct {
	const char *a, *b;
	int max, want;
} dist[] = {
	{ "", "", 2, 0 },
	{ "abc", "abc", 2, 0 },
	{ "abc", "", 2, 3 }, /* past max: max + 1 */
	{ "swapiness", "swappiness", 2, 1 },
	{ "ratoi", "ratio", 2, 1 },
	{ "kitten", "sitting", 3, 3 },
	{ "kitten", "sitting", 2, 3 },
	{ "ca", "abc", 3, 3 }, /* OSA, not Damerau: no edit inside a swapped pair */
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 2, 3 }, /* 65 */
};

START_TEST(edit_distance_table)
{
	ck_assert_int_eq(pt_edit_distance(dist[_i].a, dist[_i].b, dist[_i].max), dist[_i].want);
	ck_assert_int_eq(pt_edit_distance(dist[_i].b, dist[_i].a, dist[_i].max), dist[_i].want);
}
END_TEST

START_TEST(every_entry_point_carries_the_suggestion)
{
	const char *settings[] = { "sysctl.vm.swappiness=60", "sysctl.vm.swapiness=1", NULL };
	struct perftune_check_iter *checks = NULL;
	struct perftune_source_iter *src = NULL;
	struct perftune_desc *d = NULL;
	struct perftune_tx *tx = NULL;

	ck_assert_int_eq(perftune_describe(f.ctx, "sysctl.vm.swapiness", &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness?"));
	ck_assert_int_eq(perftune_why(f.ctx, "vm.swappiness", NULL, &src), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness?"));
	/* verify: a usage error, not "not here" that would pass a monitoring check */
	ck_assert_int_eq(perftune_verify(f.ctx, settings, &checks), -EINVAL);
	ck_assert_ptr_null(checks);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness?"));
	ck_assert_int_eq(perftune_tx_new(f.ctx, "typo", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swapiness", "1"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness?"));
	ck_assert_int_eq(perftune_tx_commit(tx), 0); /* nothing staged: nothing written */
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

START_TEST(profile_typo_names_file_line_and_the_key_meant)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct perftune_profile *p = NULL;
	int r;

	snprintf(dir, sizeof(dir), "%s/prof", f.root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	create("prof/tuned.conf", "[sysctl]\nvm.swapiness=1\n");
	snprintf(path, sizeof(path), "%s/tuned.conf", dir);
	r = perftune_profile_load(f.ctx, path, NULL, &p);
	ck_assert_msg(r == -EINVAL, "%d (%s)", r, perftune_ctx_last_error(f.ctx));
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "tuned.conf:2"));
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness?"));
	perftune_profile_free(p);
}
END_TEST

START_TEST(nearest_name_is_in_the_directory_of_the_missing_one)
{
	char *v = NULL;

	char dir[PATH_MAX];

	/* a nearer name in a directory below is not the one meant */
	snprintf(dir, sizeof(dir), "%s/proc/sys/vm/zz", f.root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	create("proc/sys/vm/zz/swapiness", "1\n");
	ck_assert_int_eq(perftune_get(f.ctx, "sysctl.vm.swapiness", &v), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappiness?"));
	/* ties go to the first name in byte order, whatever order readdir gives */
	create("proc/sys/vm/swappinesz", "1\n");
	create("proc/sys/vm/swappinesa", "1\n");
	ck_assert_int_eq(perftune_get(f.ctx, "sysctl.vm.swappinesq", &v), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.swappinesa?"));
}
END_TEST

static Suite *suggest_suite(void)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("table");

	tcase_add_unchecked_fixture(tc, setup, teardown); /* read-only: one tree */
	tcase_add_loop_test(tc, typo_is_einval_naming_the_key_meant, 0, (int)ARRAY_SIZE(typo));
	tcase_add_loop_test(tc, absent_key_keeps_its_error_without_suggestion, 0,
			    (int)ARRAY_SIZE(absent));
	tcase_add_loop_test(tc, edit_distance_table, 0, (int)ARRAY_SIZE(dist));
	suite_add_tcase(s, tc);
	tc = tcase_create("calls");
	tcase_add_checked_fixture(tc, setup, teardown); /* writes the tree */
	tcase_add_test(tc, every_entry_point_carries_the_suggestion);
	tcase_add_test(tc, profile_typo_names_file_line_and_the_key_meant);
	tcase_add_test(tc, nearest_name_is_in_the_directory_of_the_missing_one);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { suggest_suite };
	return harness_main(argc, argv, suites, 1);
}
