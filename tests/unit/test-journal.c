// SPDX-License-Identifier: LGPL-2.1-or-later
/* The journal: its format, its permissions, and hostile or broken journals refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "harness.h"

static struct fx f;
static char jfile[PATH_MAX + 32];
static void setup(void)
{
	fx_setup(&f);
	snprintf(jfile, sizeof(jfile), "%s/j.journal", f.jdir);
	ck_assert_int_eq(mkdir(f.jdir, 0700), 0);
}
static void teardown(void) { fx_teardown(&f); }

static void commit_two(void)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "j", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "thp.enabled", "never"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 2);
	perftune_tx_unref(tx);
}

static char *slurp(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static char logged[4096];
static void keep_log(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx, (void)prio, (void)ud;
	snprintf(logged + strlen(logged), sizeof(logged) - strlen(logged), "%s\n", msg);
}

static void spill(const char *path, const char *data, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

/* restore refuses, says @msg, and writes nothing */
static void assert_refused(int err, const char *msg)
{
	struct snap *before = snap_take(f.root);
	struct snap *after;
	int r = perftune_restore(f.ctx, "j", 0);
	char *d;

	ck_assert_msg(r == err, "restore returned %d (%s), want %d", r,
		      perftune_ctx_last_error(f.ctx), err);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), msg), "message '%s' lacks '%s'",
		      perftune_ctx_last_error(f.ctx), msg);
	after = snap_take(f.root);
	d = snap_diff(before, after);
	ck_assert_msg(!d, "a refused journal changed the machine: %s", d);
	snap_free(before);
	snap_free(after);
}

START_TEST(journal_format_records_original_before_write)
{
	struct stat st;
	const char *j;

	commit_two();
	ck_assert_int_eq(stat(f.jdir, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(stat(jfile, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	j = slurp(jfile);
	ck_assert_msg(!strncmp(j, "perftune-journal 2\nname j\nboot ", 31), "header: %s", j);
	ck_assert_ptr_nonnull(strstr(j, "\nflags 0\npid "));
	const char *o = strstr(j, " sysctl.vm.swappiness\t60\n");
	const char *w = strstr(j, "wrote sysctl.vm.swappiness\t10\n");
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(w);
	ck_assert(o < w);
	ck_assert_ptr_nonnull(strstr(j, "orig "));
	ck_assert_ptr_nonnull(strstr(j, "wrote thp.enabled\tnever\ncommit\npid 0 0\n"));
}
END_TEST

START_TEST(values_are_escaped)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "j", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.kernel.printk", "3\t4 1  7"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	/* the original as the kernel gave it, its tabs escaped (issue 33, H14); what was
	 * written as a read shows it */
	ck_assert_ptr_nonnull(strstr(slurp(jfile), "kernel.printk\t4%094%091%097\n"));
	ck_assert_ptr_nonnull(strstr(slurp(jfile), "wrote sysctl.kernel.printk\t3 4 1 7\n"));
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/kernel/printk"), "4\t4\t1\t7");
}
END_TEST

START_TEST(symlinked_journal_is_refused)
{
	char target[PATH_MAX + 16];

	commit_two();
	snprintf(target, sizeof(target), "%s/elsewhere", f.jdir);
	ck_assert_int_eq(rename(jfile, target), 0);
	ck_assert_int_eq(symlink(target, jfile), 0);
	assert_refused(-ELOOP, "is a symlink, refusing");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
}
END_TEST

START_TEST(journal_dir_open_to_others_is_refused)
{
	commit_two();
	ck_assert_int_eq(chmod(f.jdir, 0755), 0);
	assert_refused(-EPERM, "mode 0700, refusing");
}
END_TEST

START_TEST(journal_with_other_permissions_is_refused)
{
	commit_two();
	ck_assert_int_eq(chmod(jfile, 0644), 0);
	assert_refused(-EPERM, "not a private regular file");
}
END_TEST

START_TEST(hard_linked_journal_is_refused)
{
	char other[PATH_MAX + 16];

	commit_two();
	snprintf(other, sizeof(other), "%s/link", f.jdir);
	ck_assert_int_eq(link(jfile, other), 0);
	assert_refused(-EPERM, "not a private regular file");
}
END_TEST

START_TEST(corrupt_record_is_refused)
{
	commit_two();
	spill(jfile, "orig 1 sysctl.vm.swappiness no-tab-here\n", O_APPEND);
	assert_refused(-EINVAL, "corrupt record at line");
}
END_TEST

/* hole B: a record cut inside its key is an interrupted append, not a corrupt journal */
START_TEST(cut_last_record_is_ignored_and_the_rest_restored)
{
	char *j;

	commit_two();
	j = strdup(slurp(jfile));
	char *cut = strstr(j, "\ncommit\n"); /* drop the commit and the release */
	cut[1] = '\0';
	cut = strstr(j, " sysctl.vm.swappiness\t");
	ck_assert_ptr_nonnull(cut);
	/* the key's orig cut short inside its key; thp.enabled's orig comes after it */
	char *thp = strstr(j, "\norig ");
	thp = strstr(thp + 1, "\norig ");
	ck_assert_ptr_nonnull(thp);
	char tail[256];
	snprintf(tail, sizeof(tail), "%s", thp + 1); /* orig <seq> thp.enabled\t... */
	*strchr(tail, '\n') = '\0';
	strcpy(strstr(j, "\norig ") + 1, tail); /* now: header, thp's orig, nothing else */
	strcat(j, "\norig 1 sysctl.vm.swap"); /* and a record cut inside its key */
	spill(jfile, j, O_TRUNC);
	free(j);
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_WARNING, NULL);
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 1);
	ck_assert_msg(strstr(logged, "journal j: last record cut short"), "log: %s", logged);
	ck_assert_str_eq(fx_read(&f, "sys/kernel/mm/transparent_hugepage/enabled"),
			 "always [madvise] never");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10"); /* its record was cut */
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* the reproducer: a value cut short is never written back as "the original" */
START_TEST(cut_value_is_never_written_back)
{
	char j[512];

	snprintf(j, sizeof(j),
		 "perftune-journal 1\nname j\nboot %s\nflags 0\npid 4194303 123\n"
		 "orig 1 sysctl.vm.swappiness\t6",
		 slurp("/proc/sys/kernel/random/boot_id"));
	*strchr(strstr(j, "boot "), '\n') = '\0'; /* boot_id ends with its own newline */
	strcat(j, "\nflags 0\npid 4194303 123\norig 1 sysctl.vm.swappiness\t6");
	spill(jfile, j, O_TRUNC);
	fx_write(&f, "proc/sys/vm/swappiness", "10");
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_WARNING, NULL);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
	ck_assert_msg(strstr(logged, "journal j: last record cut short"), "log: %s", logged);
}
END_TEST

/*
 * Every cut point of a real journal of a three-key commit: a restore of the
 * copy cut at byte k gives back exactly the keys whose orig record is whole
 * (newline included) in the first k bytes, and never a partial value.
 */
START_TEST(every_cut_point_restores_only_complete_records)
{
	static const char *const keys[] = { "sysctl.vm.swappiness", "sysctl.vm.dirty_ratio",
					    "sysctl.vm.dirty_background_ratio" };
	static const char *const paths[] = { "proc/sys/vm/swappiness", "proc/sys/vm/dirty_ratio",
					     "proc/sys/vm/dirty_background_ratio" };
	static const char *const news[] = { "7", "33", "5" };
	char orig[3][32], rec[3][128];
	struct perftune_tx *tx;
	char *j;
	size_t len;

	for (int i = 0; i < 3; i++)
		snprintf(orig[i], sizeof(orig[i]), "%s", fx_read(&f, paths[i]));
	ck_assert_int_eq(perftune_tx_new(f.ctx, "j", 0, &tx), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(perftune_tx_set(tx, keys[i], news[i]), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 3);
	perftune_tx_unref(tx);
	j = strdup(slurp(jfile));
	len = strlen(j);
	for (int i = 0; i < 3; i++)
		snprintf(rec[i], sizeof(rec[i]), " %s\t%s\n", keys[i], orig[i]);
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_WARNING, NULL);
	for (size_t k = 0; k <= len; k++) {
		char *cut = strndup(j, k);
		int r, want = 0;
		for (int i = 0; i < 3; i++)
			fx_write(&f, paths[i], news[i]);
		spill(jfile, cut, O_TRUNC);
		logged[0] = '\0';
		r = perftune_restore(f.ctx, "j", 0);
		for (int i = 0; i < 3; i++) {
			bool whole = strstr(cut, rec[i]) != NULL;
			const char *now = fx_read(&f, paths[i]);
			want += whole;
			ck_assert_msg(!strcmp(now, whole ? orig[i] : news[i]),
				      "cut at %zu of %zu: %s is '%s', want '%s'", k, len, keys[i], now,
				      whole ? orig[i] : news[i]);
		}
		/* before the header's first newline there is no journal; after it, a restore */
		if (!strchr(cut, '\n'))
			want = -EINVAL;
		ck_assert_msg(r == want, "cut at %zu: restore returned %d (%s), want %d", k, r,
			      perftune_ctx_last_error(f.ctx), want);
		ck_assert_msg((k > 0 && cut[k - 1] != '\n' && strchr(cut, '\n')) ==
				      (strstr(logged, "journal j: last record cut short") != NULL),
			      "cut at %zu: log '%s'", k, logged);
		unlink(jfile);
		free(cut);
	}
	free(j);
}
END_TEST

/* a journal is never appended to after a record cut short: the cut record goes first */
START_TEST(append_after_a_cut_record_drops_it_first)
{
	struct perftune_tx *tx;
	const char *j;

	commit_two();
	spill(jfile, "orig 1 sysctl.vm.dirty_ratio\t2", O_APPEND); /* cut inside the value */
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_WARNING, NULL);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "j", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.dirty_background_ratio", "3"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	j = slurp(jfile);
	ck_assert_msg(!strstr(j, "dirty_ratio"), "cut record kept: %s", j);
	ck_assert_msg(strstr(logged, "journal j: dropped its last record, cut short"), "log: %s",
		      logged);
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 3);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/dirty_background_ratio"), "10");
}
END_TEST

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? -1 : st.st_size;
}

/*
 * Writer side of hole B: an append that cannot be made whole (a full /run,
 * here RLIMIT_FSIZE: the write is cut short, then EFBIG) fails the commit
 * before the kernel write it was to protect, and leaves no record cut short.
 * @at: which orig record is cut (0: the first key's, 1: the second's).
 */
static void commit_with_a_short_append(int at)
{
	struct perftune_tx *tx;
	struct rlimit rl;
	const char *j;
	off_t limit;
	int r;

	commit_two(); /* the same journal, to measure where the records start */
	j = slurp(jfile);
	const char *o = strstr(j, "\norig ") + 1;
	if (at == 1)
		o = strstr(strstr(o, "\nwrote ") + 1, "\n") + 1; /* after the first key's wrote */
	limit = (off_t)(o - j) + 9;			       /* nine bytes into the record */
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 2);
	ck_assert_int_eq(fx_journals(&f), 0);
	f.sim.writes = 0;

	signal(SIGXFSZ, SIG_IGN);
	rl.rlim_cur = rl.rlim_max = (rlim_t)limit;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "j", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "thp.enabled", "never"), 1);
	r = perftune_tx_commit(tx);
	perftune_tx_unref(tx);
	ck_assert_msg(r == -EFBIG, "commit returned %d (%s)", r, perftune_ctx_last_error(f.ctx));
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "cannot write journal"), "message: %s",
		      perftune_ctx_last_error(f.ctx));
	/* the key whose record was cut was never written; the one before it was given back */
	ck_assert_int_eq(f.sim.writes, at == 0 ? 0 : 2);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_str_eq(fx_read(&f, "sys/kernel/mm/transparent_hugepage/enabled"),
			 "always [madvise] never");
	if (file_size(jfile) >= 0) { /* what is left ends with a whole record */
		j = slurp(jfile);
		ck_assert_msg(j[0] && j[strlen(j) - 1] == '\n', "journal left cut short: %s", j);
		ck_assert_int_le(file_size(jfile), limit);
	}
}

START_TEST(short_append_of_first_record_fails_before_any_write) { commit_with_a_short_append(0); }
END_TEST

START_TEST(short_append_of_second_record_fails_before_its_write) { commit_with_a_short_append(1); }
END_TEST

START_TEST(unknown_format_is_refused)
{
	spill(jfile, "perftune-journal 9\nname j\n", O_TRUNC);
	assert_refused(-EINVAL, "unknown format");
}
END_TEST

START_TEST(huge_line_is_refused)
{
	size_t n = 64 * 1024;
	char *big = malloc(n + 64);

	strcpy(big, "perftune-journal 1\nname j\norig 1 sysctl.vm.swappiness\t");
	memset(big + strlen(big), '7', n);
	big[n + 40] = '\n';
	big[n + 41] = '\0';
	spill(jfile, big, O_TRUNC);
	free(big);
	assert_refused(-EINVAL, "corrupt record");
}
END_TEST

START_TEST(oversized_journal_is_refused)
{
	int fd = open(jfile, O_WRONLY | O_CREAT, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 5 << 20), 0);
	close(fd);
	assert_refused(-EFBIG, "larger than");
}
END_TEST

START_TEST(name_mismatch_is_refused)
{
	spill(jfile, "perftune-journal 1\nname other\n", O_TRUNC);
	assert_refused(-EINVAL, "corrupt record at line 2");
}
END_TEST

START_TEST(journal_from_another_boot_is_dropped_not_written)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	char *j;

	commit_two();
	j = strdup(slurp(jfile));
	char *b = strstr(j, "\nboot ") + 6;
	memset(b, 'f', 8); /* another boot id */
	spill(jfile, j, O_TRUNC);
	free(j);
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	ck_assert((e = perftune_status_iter_next(it)));
	ck_assert_str_eq(perftune_status_entry_note(e), "journal from another boot");
	perftune_status_iter_free(it);
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_DEBUG, NULL);
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 0);
	ck_assert_msg(strstr(logged, "'j' is from another boot: its values were reset then"),
		      "log: %s", logged);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10"); /* not written */
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* needs root to hand a file to another user; CI runs the unit tier as root */
static bool can_chown(void)
{
	if (geteuid() == 0)
		return true;
	fprintf(stderr, "NOTE: not root, the other-owner case is not checked\n");
	ck_assert_msg(!getenv("PERFTUNE_REQUIRE_ALL"), "PERFTUNE_REQUIRE_ALL: the other-owner "
						       "case needs root");
	return false;
}

START_TEST(journal_of_another_owner_is_refused)
{
	if (!can_chown())
		return;
	commit_two();
	ck_assert_int_eq(chown(jfile, 65534, 65534), 0);
	assert_refused(-EPERM, "not a private regular file of uid 0, refusing");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
}
END_TEST

START_TEST(journal_dir_of_another_owner_is_refused)
{
	if (!can_chown())
		return;
	commit_two();
	ck_assert_int_eq(chown(f.jdir, 65534, 65534), 0);
	assert_refused(-EPERM, "must be owned by uid 0 with mode 0700, refusing");
}
END_TEST

START_TEST(symlinked_journal_dir_is_refused)
{
	char real[PATH_MAX + 16];
	int r;

	commit_two();
	snprintf(real, sizeof(real), "%s.real", f.jdir);
	ck_assert_int_eq(rename(f.jdir, real), 0);
	ck_assert_int_eq(symlink(real, f.jdir), 0);
	r = perftune_restore(f.ctx, "j", 0);
	ck_assert_msg(r == -ELOOP || r == -ENOTDIR, "restore returned %d", r);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "is a symlink or not a directory"),
		      "message: %s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
}
END_TEST

/* an escaped newline in a key would make a multi-line message (found by fuzz-journal) */
START_TEST(control_character_in_key_is_refused)
{
	spill(jfile, "perftune-journal 1\nname j\norig 1 sysctl.vm.swappiness%0Ax\t60\n", O_TRUNC);
	assert_refused(-EINVAL, "corrupt record at line 3");
}
END_TEST

/* nor a newline in a value: restore would write two lines (found by fuzz-journal);
 * other control bytes are an original's own (test-restore.c) */
START_TEST(control_character_in_value_is_refused)
{
	spill(jfile, "perftune-journal 1\nname j\norig 1 sysctl.vm.swappiness\t6%0A0\n", O_TRUNC);
	assert_refused(-EINVAL, "corrupt record at line 3");
}
END_TEST

START_TEST(nul_byte_is_refused)
{
	static const char j[] = "perftune-journal 1\nname j\norig 1 sysctl.vm.swappiness\t6\0\n";
	int fd = open(jfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, j, sizeof(j) - 1), (ssize_t)sizeof(j) - 1);
	close(fd);
	assert_refused(-EINVAL, "corrupt (NUL byte)");
}
END_TEST

/* a journal planted as a symlink to some other file: commit refuses, the target is intact */
START_TEST(commit_never_writes_through_a_symlinked_journal)
{
	char target[PATH_MAX + 16];
	struct perftune_tx *tx;

	snprintf(target, sizeof(target), "%s/precious", f.jdir);
	spill(target, "precious\n", O_TRUNC);
	ck_assert_int_eq(symlink(target, jfile), 0);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "j", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), -ELOOP);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "journal j: is a symlink, refusing"),
		      "message: %s", perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
	ck_assert_str_eq(slurp(target), "precious\n");
	ck_assert_int_eq(f.sim.writes, 0);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

START_TEST(unknown_transaction_is_enoent)
{
	ck_assert_int_eq(perftune_restore(f.ctx, "nosuch", 0), -ENOENT);
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx), "no transaction named 'nosuch'");
	ck_assert_int_eq(perftune_restore(f.ctx, "../etc/x", 0), -EINVAL);
}
END_TEST

/* hole D: a FIFO named *.journal is skipped with a warning, never waited for */
START_TEST(fifo_journal_is_skipped_not_waited_for)
{
	struct perftune_status_iter *it;
	int r;

	alarm(20); /* a hang fails the test instead of its timeout */
	ck_assert_int_eq(mkfifo(jfile, 0600), 0);
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_WARNING, NULL);
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	ck_assert_ptr_null(perftune_status_iter_next(it));
	perftune_status_iter_free(it);
	ck_assert_msg(strstr(logged, "j.journal is not a regular file, skipped"), "log: %s", logged);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	r = perftune_restore(f.ctx, "j", 0);
	ck_assert_msg(r == -EPERM, "restore returned %d", r);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "journal j: not a private regular file"),
		      "message: %s", perftune_ctx_last_error(f.ctx));
	struct perftune_tx *tx; /* the lock was let go: another transaction goes through */
	ck_assert_int_eq(perftune_tx_new(f.ctx, "k", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
	ck_assert_int_eq(perftune_tx_commit(tx), 1);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_restore(f.ctx, "k", 0), 1);
	alarm(0);
}
END_TEST

/* ... and a FIFO where a kernel file should be (a fake root) is refused, not waited for */
START_TEST(fifo_kernel_file_is_refused)
{
	char p[PATH_MAX + 64];
	char *v = NULL;
	int r;

	alarm(20);
	snprintf(p, sizeof(p), "%s/proc/sys/vm/swappiness", f.root);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	r = perftune_get(f.ctx, "sysctl.vm.swappiness", &v);
	ck_assert_msg(r == -EPERM, "get returned %d (%s)", r, perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx),
			 "sysctl.vm.swappiness: cannot read /proc/sys/vm/swappiness: not a regular "
			 "file, refusing");
	free(v);
	alarm(0);
}
END_TEST

/* hole C: the journal directory is never a symlink, however its path is spelled */
START_TEST(symlinked_journal_dir_is_refused_however_spelled)
{
	static const char *const tails[] = { "", "/", "/.", "/./", "//.//" };
	char real[PATH_MAX + 16], link[PATH_MAX + 16], dir[PATH_MAX + 32];

	snprintf(real, sizeof(real), "%s.real", f.jdir);
	snprintf(link, sizeof(link), "%s.link", f.jdir);
	ck_assert_int_eq(mkdir(real, 0700), 0);
	ck_assert_int_eq(symlink(real, link), 0);
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
		struct perftune_tx *tx;
		snprintf(dir, sizeof(dir), "%s%s", link, tails[i]);
		ck_assert_int_eq(perftune_ctx_set_journal_dir(f.ctx, dir), 0);
		ck_assert_int_eq(perftune_tx_new(f.ctx, "j", 0, &tx), 0);
		ck_assert_int_eq(perftune_tx_set(tx, "sysctl.vm.swappiness", "10"), 1);
		ck_assert_int_lt(perftune_tx_commit(tx), 0);
		perftune_tx_unref(tx);
		ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "is a symlink or not a directory"),
			      "'%s': %s", dir, perftune_ctx_last_error(f.ctx));
		ck_assert_int_lt(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ALL), 0);
		ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	}
	snprintf(dir, sizeof(dir), "%s/.lock", real);
	ck_assert_int_eq(access(dir, F_OK), -1); /* nothing was written through the link */
}
END_TEST

/*
 * A symlink on the way is followed only where root owns it and it sits in a
 * directory only root can write (CHASE_SAFE): /var/run -> /run works, a link
 * in a world-writable directory (/tmp) does not.
 */
START_TEST(symlink_on_the_way_only_if_root_owns_it_and_its_dir)
{
	char top[PATH_MAX], open_dir[PATH_MAX + 16], safe[PATH_MAX + 16], real[PATH_MAX + 16];
	char link[PATH_MAX + 32], dir[PATH_MAX + 48];

	if (!can_chown())
		return;
	snprintf(top, sizeof(top), "%.*s", (int)(strrchr(f.jdir, '/') - f.jdir), f.jdir);
	snprintf(real, sizeof(real), "%s/real", top);
	snprintf(open_dir, sizeof(open_dir), "%s/tmp", top);
	snprintf(safe, sizeof(safe), "%s/var", top);
	ck_assert_int_eq(mkdir(real, 0755), 0);
	ck_assert_int_eq(mkdir(open_dir, 0777), 0);
	ck_assert_int_eq(chmod(open_dir, 01777), 0);
	ck_assert_int_eq(mkdir(safe, 0755), 0);
	ck_assert_int_eq(chmod(top, 0755), 0);

	/* root's link in a world-writable dir: refused */
	snprintf(link, sizeof(link), "%s/run", open_dir);
	ck_assert_int_eq(symlink(real, link), 0);
	snprintf(dir, sizeof(dir), "%s/perftune", link);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(f.ctx, dir), 0);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ALL), -ELOOP);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "a symlink on the way is not root's"),
		      "message: %s", perftune_ctx_last_error(f.ctx));

	/* another user's link in a root-only dir: refused */
	snprintf(link, sizeof(link), "%s/nobody", safe);
	ck_assert_int_eq(symlink(real, link), 0);
	ck_assert_int_eq(lchown(link, 65534, 65534), 0);
	snprintf(dir, sizeof(dir), "%s/perftune", link);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(f.ctx, dir), 0);
	ck_assert_int_eq(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ALL), -ELOOP);

	/* root's link in a root-only dir (/var/run -> /run, relative here): followed */
	snprintf(link, sizeof(link), "%s/run", safe);
	ck_assert_int_eq(symlink("../real", link), 0);
	snprintf(dir, sizeof(dir), "%s/perftune", link);
	ck_assert_int_eq(perftune_ctx_set_journal_dir(f.ctx, dir), 0);
	commit_two();
	snprintf(dir, sizeof(dir), "%s/perftune/j.journal", real);
	ck_assert_int_eq(access(dir, F_OK), 0);
	snprintf(dir, sizeof(dir), "%s/perftune", real);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 2);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
}
END_TEST

/* a relative PERFTUNE_JOURNAL_DIR is an error naming it, not the default in disguise */
START_TEST(relative_journal_dir_variable_is_an_error)
{
	struct perftune_ctx *ctx;
	struct perftune_status_iter *it = NULL;

	setenv("PERFTUNE_JOURNAL_DIR", "run/perftune", 1);
	ck_assert_int_eq(perftune_ctx_new(&ctx), 0);
	unsetenv("PERFTUNE_JOURNAL_DIR");
	ck_assert_int_eq(perftune_ctx_set_root(ctx, f.root), 0);
	ck_assert_int_eq(perftune_status(ctx, &it), -EINVAL);
	ck_assert_str_eq(perftune_ctx_last_error(ctx),
			 "PERFTUNE_JOURNAL_DIR 'run/perftune': not an absolute path");
	ck_assert_int_eq(perftune_restore(ctx, NULL, PERFTUNE_RESTORE_ORPHANS), -EINVAL);
	perftune_ctx_unref(ctx);
}
END_TEST

/*
 * Linear restore --orphans: a journal of many keys (sysctls of the fake
 * tree) is given back whole; those a later live transaction also changed
 * are handed over to it, those already restored are left alone.
 */
#define MANY 2000
START_TEST(restore_of_a_many_key_journal)
{
	char p[PATH_MAX + 64], *j, *k;
	size_t jl = 0, kl = 0, cap = (size_t)MANY * 80 + 4096;
	int nk = 0, written;

	snprintf(p, sizeof(p), "%s/proc/sys/many", f.root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	j = malloc(cap);
	k = malloc(cap);
	const char *boot = slurp("/proc/sys/kernel/random/boot_id");
	int bl = (int)strcspn(boot, "\n");
	jl = (size_t)sprintf(j, "perftune-journal 1\nname j\nboot %.*s\nflags 0\npid 4194303 1\n",
			     bl, boot);
	kl = (size_t)sprintf(k, "perftune-journal 1\nname k\nboot %.*s\nflags 0\npid %d 0\n", bl,
			     boot, getpid());
	for (int i = 0; i < MANY; i++) {
		char v[16];
		char line[32];
		snprintf(p, sizeof(p), "%s/proc/sys/many/k%d", f.root, i);
		snprintf(v, sizeof(v), "%d", i + 1000000); /* the current value */
		snprintf(line, sizeof(line), "%s\n", v);
		spill(p, line, O_TRUNC);
		jl += (size_t)sprintf(j + jl, "orig %d sysctl.many.k%d\t%d\nwrote sysctl.many.k%d\t%s\n",
				      i + 1, i, i, i, v);
		if (i % 7 == 3) /* given back already */
			jl += (size_t)sprintf(j + jl, "restored sysctl.many.k%d\n", i);
		if (i % 5 == 1) { /* a later transaction took it too */
			kl += (size_t)sprintf(k + kl, "orig %d sysctl.many.k%d\t%s\n", MANY + i, i, v);
			nk++;
		}
	}
	spill(jfile, j, O_TRUNC);
	snprintf(p, sizeof(p), "%s/k.journal", f.jdir);
	spill(p, k, O_TRUNC);
	written = perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS);
	ck_assert_msg(written >= 0, "restore: %d %s", written, perftune_ctx_last_error(f.ctx));
	int want = 0;
	for (int i = 0; i < MANY; i++) {
		char v[16];
		const char *now;
		snprintf(p, sizeof(p), "proc/sys/many/k%d", i);
		now = fx_read(&f, p);
		if (i % 7 == 3 || i % 5 == 1)
			snprintf(v, sizeof(v), "%d", i + 1000000); /* left alone or handed over */
		else
			snprintf(v, sizeof(v), "%d", i), want++;
		ck_assert_msg(!strcmp(now, v), "k%d is '%s', want '%s'", i, now, v);
	}
	ck_assert_int_eq(written, want);
	snprintf(p, sizeof(p), "%s/k.journal", f.jdir);
	const char *kj = slurp(p);
	ck_assert_ptr_nonnull(strstr(kj, "\nhandover sysctl.many.k1\t1\n"));
	ck_assert_ptr_null(strstr(kj, "\nhandover sysctl.many.k31\t")); /* restored before */
	ck_assert_int_eq(access(jfile, F_OK), -1);
	free(j);
	free(k);
}
END_TEST

/* ---- format 2: identities ---- */

#define SDA_RA "sys/devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:0/block/sda/queue/" \
	       "read_ahead_kb"

/* a journal of this boot with @records after its header (format @version) */
static void journal_of(int version, const char *records)
{
	char j[4096];
	const char *boot = slurp("/proc/sys/kernel/random/boot_id");

	snprintf(j, sizeof(j), "perftune-journal %d\nname j\nboot %.*s\nflags 0\npid 0 0\n%s",
		 version, (int)strcspn(boot, "\n"), boot, records);
	spill(jfile, j, O_TRUNC);
}

/* an original of a disk key is journaled with its dev_t, in the same write as its orig */
START_TEST(format_2_journals_the_identity_with_the_original)
{
	const char *j;

	ck_assert_int_eq(fx_set_one(&f, "j", "block.sda.read_ahead_kb", "512"), 1);
	j = slurp(jfile);
	ck_assert_msg(!strncmp(j, "perftune-journal 2\n", 19), "%s", j);
	ck_assert_msg(strstr(j, " block.sda.read_ahead_kb\t128\nident block.sda.read_ahead_kb\t"
				"dev=8:0\nwrote block.sda.read_ahead_kb\t512\n"),
		      "%s", j);
	ck_assert_ptr_null(strstr(j, "ident sysctl")); /* a sysctl has no identity of its own */
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 1);
	ck_assert_str_eq(fx_read(&f, SDA_RA), "128");
}
END_TEST

/* format 1 (no identities) restores by name, as it always did; appended to, it stays format 1 */
START_TEST(format_1_restores_by_name_and_stays_format_1)
{
	const char *j;

	journal_of(1, "orig 1 block.sda.read_ahead_kb\t64\nwrote block.sda.read_ahead_kb\t128\n"
		      "commit\n");
	ck_assert_int_eq(fx_set_one(&f, "j", "block.sdb.read_ahead_kb", "512"), 1);
	j = slurp(jfile);
	ck_assert_ptr_nonnull(strstr(j, " block.sdb.read_ahead_kb\t128\nwrote "));
	ck_assert_ptr_null(strstr(j, "ident "));
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 2);
	ck_assert_str_eq(fx_read(&f, SDA_RA), "64");
}
END_TEST

/* an identity that is not what the disk has now: the key is dropped, nothing written */
START_TEST(format_2_identity_of_another_disk_is_not_written)
{
	journal_of(2, "orig 1 block.sda.read_ahead_kb\t64\nident block.sda.read_ahead_kb\t"
		      "dev=8:0 diskseq=3\nwrote block.sda.read_ahead_kb\t256\ncommit\n");
	ck_assert_int_eq(perftune_restore(f.ctx, "j", 0), 0);
	ck_assert_str_eq(fx_read(&f, SDA_RA), "128");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* "ident" where it cannot be: format 1, twice, no live original, before its original */
START_TEST(misplaced_identity_is_a_corrupt_record)
{
	static const struct {
		int version;
		const char *records;
	} bad[] = {
		{ 1, "orig 1 block.sda.read_ahead_kb\t64\nident block.sda.read_ahead_kb\tdev=8:0\n" },
		{ 2, "orig 1 block.sda.read_ahead_kb\t64\nident block.sda.read_ahead_kb\tdev=8:0\n"
		     "ident block.sda.read_ahead_kb\tdev=8:0\n" },
		{ 2, "orig 1 block.sda.read_ahead_kb\t64\nrestored block.sda.read_ahead_kb\n"
		     "ident block.sda.read_ahead_kb\tdev=8:0\n" },
		{ 2, "ident block.sda.read_ahead_kb\tdev=8:0\n" },
		{ 2, "orig 1 block.sda.read_ahead_kb\t64\nident block.sda.read_ahead_kb\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		journal_of(bad[i].version, bad[i].records);
		assert_refused(-EINVAL, "corrupt record at line");
	}
}
END_TEST

static Suite *journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("journal");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, journal_format_records_original_before_write);
	tcase_add_test(tc, values_are_escaped);
	tcase_add_test(tc, symlinked_journal_is_refused);
	tcase_add_test(tc, journal_dir_open_to_others_is_refused);
	tcase_add_test(tc, journal_with_other_permissions_is_refused);
	tcase_add_test(tc, hard_linked_journal_is_refused);
	tcase_add_test(tc, corrupt_record_is_refused);
	tcase_add_test(tc, cut_last_record_is_ignored_and_the_rest_restored);
	tcase_add_test(tc, cut_value_is_never_written_back);
	tcase_add_test(tc, every_cut_point_restores_only_complete_records);
	tcase_add_test(tc, append_after_a_cut_record_drops_it_first);
	tcase_add_test(tc, short_append_of_first_record_fails_before_any_write);
	tcase_add_test(tc, short_append_of_second_record_fails_before_its_write);
	tcase_add_test(tc, unknown_format_is_refused);
	tcase_add_test(tc, huge_line_is_refused);
	tcase_add_test(tc, oversized_journal_is_refused);
	tcase_add_test(tc, name_mismatch_is_refused);
	tcase_add_test(tc, journal_from_another_boot_is_dropped_not_written);
	tcase_add_test(tc, unknown_transaction_is_enoent);
	tcase_add_test(tc, journal_of_another_owner_is_refused);
	tcase_add_test(tc, journal_dir_of_another_owner_is_refused);
	tcase_add_test(tc, symlinked_journal_dir_is_refused);
	tcase_add_test(tc, nul_byte_is_refused);
	tcase_add_test(tc, control_character_in_key_is_refused);
	tcase_add_test(tc, control_character_in_value_is_refused);
	tcase_add_test(tc, commit_never_writes_through_a_symlinked_journal);
	tcase_add_test(tc, fifo_journal_is_skipped_not_waited_for);
	tcase_add_test(tc, fifo_kernel_file_is_refused);
	tcase_add_test(tc, symlinked_journal_dir_is_refused_however_spelled);
	tcase_add_test(tc, symlink_on_the_way_only_if_root_owns_it_and_its_dir);
	tcase_add_test(tc, relative_journal_dir_variable_is_an_error);
	tcase_add_test(tc, restore_of_a_many_key_journal);
	tcase_add_test(tc, format_2_journals_the_identity_with_the_original);
	tcase_add_test(tc, format_1_restores_by_name_and_stays_format_1);
	tcase_add_test(tc, format_2_identity_of_another_disk_is_not_written);
	tcase_add_test(tc, misplaced_identity_is_a_corrupt_record);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { journal_suite };
	return harness_main(argc, argv, suites, 1);
}
