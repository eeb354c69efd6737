// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch.c and uevent.c: hotplug under a hold, on the fake tree.  Events are
 * lines written to the root's FIFO (run/perftune-uevents, tests/README.md);
 * devices are made in the tree before their event.  Keys given with a glob
 * and a profile's rules select them; add, change, remove, a storm of 1,000
 * events, a device gone before its write, a device that refuses, and a fault
 * and a kill at every write of a hotplug commit: after each, a restore
 * leaves the tree as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static void assert_same(const struct snap *before)
{
	struct snap *after = snap_take(f.root);
	char *d = snap_diff(before, after);

	ck_assert_msg(d == NULL, "machine differs: %s", d);
	snap_free(after);
}

static void link_to(const char *target, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", f.root, rel);
	ck_assert_int_eq(symlink(target, p), 0);
}

static int diskseq = 100;

/* a virtual disk @name (minor @minor) offering @sched, rotational @rot, as the kernel adds one */
static void add_disk(const char *name, int minor, const char *sched, const char *rot)
{
	char d[PATH_MAX], p[PATH_MAX], v[64];

	snprintf(d, sizeof(d), "sys/devices/virtual/block/%s", name);
	fx_mkdirs(&f, d);
	snprintf(p, sizeof(p), "%s/queue", d);
	fx_mkdirs(&f, p);
	snprintf(v, sizeof(v), "MAJOR=7\nMINOR=%d\nDEVNAME=%s\nDEVTYPE=disk", minor, name);
	snprintf(p, sizeof(p), "%s/uevent", d);
	fx_put(&f, p, v);
	snprintf(v, sizeof(v), "7:%d", minor);
	snprintf(p, sizeof(p), "%s/dev", d);
	fx_put(&f, p, v);
	snprintf(p, sizeof(p), "%s/removable", d);
	fx_put(&f, p, "0");
	snprintf(v, sizeof(v), "%d", ++diskseq); /* another disk each time, as 5.15 counts */
	snprintf(p, sizeof(p), "%s/diskseq", d);
	fx_put(&f, p, v);
	snprintf(p, sizeof(p), "%s/queue/scheduler", d);
	fx_put(&f, p, sched);
	snprintf(p, sizeof(p), "%s/queue/read_ahead_kb", d);
	fx_put(&f, p, "128");
	snprintf(p, sizeof(p), "%s/queue/rotational", d);
	fx_put(&f, p, rot);
	if (!strncmp(sched, "[mq-deadline]", 13)) { /* its parameters, as mkroot.sh has them */
		static const char *const iosched[][2] = { { "read_expire", "500" },
							  { "write_expire", "5000" },
							  { "fifo_batch", "16" },
							  { "front_merges", "1" } };
		snprintf(p, sizeof(p), "%s/queue/iosched", d);
		fx_mkdirs(&f, p);
		for (size_t i = 0; i < ARRAY_SIZE(iosched); i++) {
			snprintf(p, sizeof(p), "%s/queue/iosched/%s", d, iosched[i][0]);
			fx_put(&f, p, iosched[i][1]);
		}
	}
	snprintf(p, sizeof(p), "../devices/virtual/block/%s", name);
	snprintf(v, sizeof(v), "sys/block/%s", name);
	link_to(p, v);
	snprintf(p, sizeof(p), "../../devices/virtual/block/%s", name);
	snprintf(v, sizeof(v), "sys/class/block/%s", name);
	link_to(p, v);
}

static void del_disk(const char *name)
{
	char p[PATH_MAX];
	const char *rm[] = { "rm", "-rf", p, NULL };

	snprintf(p, sizeof(p), "%s/sys/block/%s", f.root, name);
	unlink(p);
	snprintf(p, sizeof(p), "%s/sys/class/block/%s", f.root, name);
	unlink(p);
	snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/%s", f.root, name);
	if (fork() == 0) {
		execvp(rm[0], (char **)rm);
		_exit(127);
	}
	wait(NULL);
}

/* one line on the FIFO the watch made */
static void event(const char *line)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/run/perftune-uevents", f.root);
	fd = open(p, O_WRONLY | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dprintf(fd, "%s\n", line), (int)strlen(line) + 1);
	close(fd);
}

/* a held transaction of @n KEY=VALUE settings, committed and watching */
static struct perftune_tx *hold(const char *const *kv, int n)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "hp", PERFTUNE_TX_HOLD, &tx), 0);
	for (int i = 0; i < n; i += 2)
		ck_assert_msg(perftune_tx_set(tx, kv[i], kv[i + 1]) >= 0, "%s",
			      perftune_ctx_last_error(f.ctx));
	ck_assert_msg(perftune_tx_commit(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_msg(perftune_tx_watch(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	return tx;
}

static const char *const sched_none[] = { "block.sd*.scheduler", "none" };
static const char *const sched_and_ra[] = { "block.sd*.scheduler", "none",
					    "block.sd*.read_ahead_kb", "512" };

/* entries of transaction hp with @flag and key @key (NULL: any) */
static int status_count(unsigned flag, const char *key)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	int n = 0;

	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it)))
		n += !strcmp(perftune_status_entry_tx_name(e), "hp") &&
		     (perftune_status_entry_flags(e) & flag) == flag &&
		     (!key || !strcmp(perftune_status_entry_key(e), key));
	perftune_status_iter_free(it);
	return n;
}

/* disk sdd added and tuned by the hold */
static void sdd_added(struct perftune_tx *tx)
{
	add_disk("sdd", 5, "[mq-deadline] kyber none", "1");
	event("add block sdd");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
}

START_TEST(watch_needs_a_committed_held_transaction)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "t", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_watch(tx), -EINVAL);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "t", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_eq(perftune_tx_watch(tx), -EALREADY);
	ck_assert_int_eq(perftune_tx_dispatch(tx), -EINVAL);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_tx_watch(NULL), -EINVAL);
	ck_assert_int_eq(perftune_tx_dispatch(NULL), -EINVAL);
}
END_TEST

/* the thread that ends perftune_tx_follow(): once sdd's scheduler is "none" (the
 * event dispatched), or after 60 s without it (the test's assertions then fail) */
static void *stop_when_tuned(void *arg)
{
	char path[PATH_MAX], buf[128];
	int efd = *(int *)arg;

	snprintf(path, sizeof(path), "%s/sys/block/sdd/queue/scheduler", f.root);
	for (int i = 0; i < 6000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = -1;
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (n > 0)
			buf[n] = '\0';
		if (n > 0 && strstr(buf, "[none]"))
			break;
		usleep(10000);
	}
	if (eventfd_write(efd, 1) < 0)
		abort();
	return NULL;
}

/* perftune_tx_follow() dispatches until the caller's descriptor is readable */
START_TEST(follow_dispatches_until_the_stop_descriptor)
{
	struct snap *before = snap_take(f.root);
	struct perftune_tx *tx = hold(sched_none, 2), *plain;
	int efd = eventfd(0, EFD_CLOEXEC);
	pthread_t th;

	ck_assert_int_ge(efd, 0);
	ck_assert_int_eq(perftune_tx_follow(NULL, efd), -EINVAL);
	ck_assert_int_eq(perftune_tx_follow(tx, -1), -EINVAL);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "plain", 0, &plain), 0);
	ck_assert_int_eq(perftune_tx_follow(plain, efd), -EINVAL); /* not held: no watch */
	perftune_tx_unref(plain);
	add_disk("sdd", 5, "[mq-deadline] kyber none", "1");
	event("add block sdd");
	ck_assert_int_eq(pthread_create(&th, NULL, stop_when_tuned, &efd), 0);
	ck_assert_int_eq(perftune_tx_follow(tx, efd), 0);
	pthread_join(th, NULL);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "mq-deadline kyber [none]");
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_HOTPLUG, "block.sdd.scheduler"), 1);
	ck_assert_int_eq(perftune_tx_follow(tx, efd), 0); /* still readable: at once */
	ck_assert_int_eq(perftune_tx_rollback(tx), 4);
	del_disk("sdd");
	assert_same(before);
	snap_free(before);
	perftune_tx_unref(tx);
	close(efd);
}
END_TEST

/* perftune_tx_holder(): this process while it holds, 0 once given back or unheld */
START_TEST(holder_is_the_live_process_that_holds)
{
	struct perftune_tx *tx = hold(sched_none, 2), *plain;

	ck_assert_int_eq(perftune_tx_holder(f.ctx, "hp"), getpid());
	ck_assert_int_eq(perftune_tx_holder(f.ctx, "nosuch"), 0);
	ck_assert_int_eq(perftune_tx_holder(f.ctx, "../x"), -EINVAL);
	ck_assert_int_eq(perftune_tx_holder(NULL, "hp"), -EINVAL);
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	ck_assert_int_eq(perftune_tx_holder(f.ctx, "hp"), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "plain", 0, &plain), 0);
	ck_assert_int_ge(perftune_tx_set(plain, "block.sda.scheduler", "none"), 1);
	ck_assert_int_ge(perftune_tx_commit(plain), 0);
	ck_assert_int_eq(perftune_tx_holder(f.ctx, "plain"), 0); /* committed, not held */
	ck_assert_int_ge(perftune_restore(f.ctx, "plain", 0), 0);
	perftune_tx_unref(plain);
}
END_TEST

/* a disk the glob matches gets the value, journaled; the rollback gives it back */
START_TEST(disk_added_under_a_glob_hold_is_tuned_and_given_back)
{
	struct snap *before = snap_take(f.root);
	struct perftune_tx *tx = hold(sched_none, 2);
	int fd = perftune_tx_watch(tx);

	ck_assert_int_eq(perftune_tx_watch(tx), fd); /* the same one */
	add_disk("sde", 6, "[mq-deadline] kyber none", "1");
	add_disk("vdx", 7, "[mq-deadline] none", "1"); /* the glob does not match it */
	event("add block sde");
	event("add block vdx");
	event("add net eth9"); /* no such device, no rule: nothing */
	event("bind block sde"); /* not an action that adds */
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/sde/queue/scheduler"), "mq-deadline kyber [none]");
	ck_assert_str_eq(fx_read(&f, "sys/block/vdx/queue/scheduler"), "[mq-deadline] none");
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_HOTPLUG, "block.sde.scheduler"), 1);
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_HOTPLUG, NULL), 1);
	ck_assert_int_eq(perftune_tx_dispatch(tx), 0); /* nothing pending */
	ck_assert_int_eq(perftune_tx_rollback(tx), 4);
	ck_assert_str_eq(fx_read(&f, "sys/block/sde/queue/scheduler"), "[mq-deadline] kyber none");
	del_disk("sde");
	del_disk("vdx");
	assert_same(before);
	snap_free(before);
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* change events of a device seen add no entry and write nothing twice */
START_TEST(change_events_make_no_duplicates)
{
	struct perftune_tx *tx = hold(sched_none, 2);
	int writes;

	add_disk("sdd", 5, "[mq-deadline] kyber none", "1");
	event("change block sdd"); /* bound (a loop device's attach): tuned */
	for (int i = 0; i < 5; i++)
		event("change block sdd");
	event("add block sdd");
	event("change block sda"); /* there at the commit: its own */
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
	writes = f.sim.writes;
	event("change block sdd");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 0);
	ck_assert_int_eq(f.sim.writes, writes);
	ck_assert_int_eq(status_count(0, "block.sdd.scheduler"), 1);
	ck_assert_int_eq(status_count(0, "block.sda.scheduler"), 1);
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[mq-deadline] kyber none");
	perftune_tx_unref(tx);
}
END_TEST

/* a device removed: no error, and nothing written for it at the rollback */
START_TEST(device_removed_is_not_written_at_restore)
{
	struct perftune_tx *tx = hold(sched_none, 2);

	sdd_added(tx);
	del_disk("sdd");
	event("remove block sdd");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 0);
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_REFUSED, NULL), 0);
	/* another disk under the name and number (another diskseq): not the one tuned */
	add_disk("sdd", 5, "[kyber] mq-deadline none", "1");
	ck_assert_int_eq(perftune_tx_rollback(tx), 3);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[kyber] mq-deadline none");
	ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/scheduler"),
			 "[mq-deadline] kyber bfq none");
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* removed and added again: tuned again, one original in the journal */
START_TEST(device_added_again_is_tuned_again)
{
	struct perftune_tx *tx = hold(sched_none, 2);

	sdd_added(tx);
	del_disk("sdd");
	event("remove block sdd");
	add_disk("sdd", 9, "[kyber] mq-deadline none", "1");
	event("add block sdd");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "kyber mq-deadline [none]");
	ck_assert_int_eq(status_count(0, "block.sdd.scheduler"), 1);
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[kyber] mq-deadline none");
	perftune_tx_unref(tx);
}
END_TEST

/* a loop device made, then bound: tuned at the bind, as the disk it is then */
START_TEST(disk_without_media_is_tuned_when_bound)
{
	struct perftune_tx *tx = hold(sched_none, 2);

	add_disk("sdd", 5, "[mq-deadline] kyber none", "1");
	fx_put(&f, "sys/devices/virtual/block/sdd/size", "0");
	event("add block sdd");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[mq-deadline] kyber none");
	fx_put(&f, "sys/devices/virtual/block/sdd/size", "32768");
	fx_put(&f, "sys/devices/virtual/block/sdd/diskseq", "999"); /* a bind makes another disk */
	event("change block sdd");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "mq-deadline kyber [none]");
	ck_assert_int_eq(perftune_tx_rollback(tx), 4);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[mq-deadline] kyber none");
	perftune_tx_unref(tx);
}
END_TEST

/* a device that refuses: reported, nothing of it written, the others keep theirs */
START_TEST(device_that_refuses_is_reported_and_the_rest_stays)
{
	struct perftune_tx *tx = hold(sched_and_ra, 4);
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	char msg[512] = "";

	add_disk("sdd", 5, "[mq-deadline] kyber", "1"); /* no "none" */
	add_disk("sde", 6, "[mq-deadline] none", "1");
	event("add block sdd");
	event("add block sde");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[mq-deadline] kyber");
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/read_ahead_kb"), "128");
	ck_assert_str_eq(fx_read(&f, "sys/block/sde/queue/scheduler"), "mq-deadline [none]");
	ck_assert_str_eq(fx_read(&f, "sys/block/sde/queue/read_ahead_kb"), "512");
	ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/read_ahead_kb"), "512");
	ck_assert_int_eq(perftune_status(f.ctx, &it), 0);
	while ((e = perftune_status_iter_next(it)))
		if (perftune_status_entry_flags(e) & PERFTUNE_STATUS_REFUSED) {
			ck_assert_str_eq(perftune_status_entry_key(e), "block.sdd");
			ck_assert_ptr_null(perftune_status_entry_original(e));
			snprintf(msg, sizeof(msg), "%s", perftune_status_entry_note(e));
		}
	perftune_status_iter_free(it);
	ck_assert_msg(strstr(msg, "block.sdd.scheduler") && strstr(msg, "not offered"), "%s", msg);
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sde/queue/scheduler"), "[mq-deadline] none");
	ck_assert_str_eq(fx_read(&f, "sys/block/sde/queue/read_ahead_kb"), "128");
	perftune_tx_unref(tx);
}
END_TEST

/* an event whose device is gone before the write: skipped, not a refusal */
START_TEST(device_gone_before_its_write_is_skipped)
{
	struct perftune_tx *tx = hold(sched_none, 2);

	add_disk("sdd", 5, "[mq-deadline] none", "1");
	event("add block sdd");
	del_disk("sdd");
	event("add block sdz"); /* never there */
	ck_assert_int_eq(perftune_tx_dispatch(tx), 0);
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_REFUSED, NULL), 0);
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_HOTPLUG, NULL), 0);
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* 1,000 events of 20 disks coming, changing, going and coming back: each tuned once
 * per appearance, and the rollback leaves the tree as it was */
START_TEST(storm_of_a_thousand_events)
{
	struct snap *before = snap_take(f.root);
	struct perftune_tx *tx = hold(sched_none, 2);
	char name[64], line[64];
	int tuned = 0, n = 0;

	for (int d = 0; d < 20; d++) {
		snprintf(name, sizeof(name), "sdx%d", d);
		add_disk(name, 100 + d, "[mq-deadline] kyber none", "1");
	}
	for (int round = 0; n < 1000; round++) {
		for (int d = 0; d < 20 && n < 1000; d++, n++) {
			const char *what = "change";
			if (round % 10 == 1)
				what = "add";
			snprintf(line, sizeof(line), "%s block sdx%d", what, d);
			event(line);
		}
		if (n % 200 == 0) /* the FIFO holds 64 KiB: drain now and then */
			tuned += perftune_tx_dispatch(tx);
	}
	tuned += perftune_tx_dispatch(tx);
	ck_assert_int_eq(tuned, 20);
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_HOTPLUG, NULL), 20);
	ck_assert_int_eq(perftune_tx_rollback(tx), 23);
	for (int d = 0; d < 20; d++) {
		snprintf(name, sizeof(name), "sys/block/sdx%d/queue/scheduler", d);
		ck_assert_str_eq(fx_read(&f, name), "[mq-deadline] kyber none");
		snprintf(name, sizeof(name), "sdx%d", d);
		del_disk(name);
	}
	assert_same(before);
	snap_free(before);
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* a fault at each write of a hotplug commit: that device is given back, the rest stays */
START_TEST(fault_at_every_hotplug_write_keeps_the_rest)
{
	struct perftune_tx *tx = hold(sched_and_ra, 4);
	struct snap *before;

	add_disk("sdd", 5, "[mq-deadline] kyber none", "1");
	before = snap_take(f.root);
	f.sim.fault_at = f.sim.writes + 1 + _i; /* write 1 (scheduler) or 2 (read_ahead_kb) */
	event("add block sdd");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 0);
	f.sim.fault_at = 0;
	assert_same(before); /* sdd given back, sda..sdc as committed */
	snap_free(before);
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_REFUSED, "block.sdd"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[mq-deadline] kyber none");
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/read_ahead_kb"), "128");
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* killed at each write of a hotplug commit: restore --orphans gives back everything */
START_TEST(killed_at_every_hotplug_write_then_restore_orphans)
{
	struct snap *before = snap_take(f.root);
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		struct perftune_tx *tx = hold(sched_and_ra, 4);
		add_disk("sdd", 5, "[mq-deadline] kyber none", "1");
		f.sim.crash_at = f.sim.writes + 1 + _i;
		event("add block sdd");
		perftune_tx_dispatch(tx);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 99, "did not die at write %d", _i + 1);
	ck_assert_int_eq(status_count(PERFTUNE_STATUS_ORPHANED, "block.sdd.scheduler"), 1);
	ck_assert_int_ge(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[mq-deadline] kyber none");
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/read_ahead_kb"), "128");
	del_disk("sdd");
	assert_same(before);
	snap_free(before);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* a held transaction of the profile @text, committed and watching */
static struct perftune_tx *hold_profile(const char *text)
{
	struct perftune_profile *p = NULL;
	struct perftune_tx *tx;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/../tuned.conf", f.root);
	fx_put(&f, "../tuned.conf", text);
	ck_assert_msg(perftune_profile_load(f.ctx, path, NULL, &p) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_tx_new(f.ctx, "hp", PERFTUNE_TX_HOLD, &tx), 0);
	ck_assert_int_ge(perftune_profile_stage(p, tx, PERFTUNE_PROFILE_HOLD), 0);
	perftune_profile_free(p); /* the transaction keeps what it follows */
	ck_assert_msg(perftune_tx_commit(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_int_ge(perftune_tx_watch(tx), 0);
	return tx;
}

/* a profile's rules: devices= globs and ! exclusions, rotational= */
START_TEST(profile_rules_select_the_disks_added)
{
	struct perftune_tx *tx = hold_profile("[main]\nsummary=hotplug\n[disk]\ndevices=sd*, !sdf\n"
					      "rotational=0\nelevator=none\nreadahead=1024");

	add_disk("sdd", 5, "[mq-deadline] none", "0"); /* selected */
	add_disk("sde", 6, "[mq-deadline] none", "1"); /* rotational */
	add_disk("sdf", 7, "[mq-deadline] none", "0"); /* excluded */
	add_disk("vdg", 8, "[mq-deadline] none", "0"); /* not sd* */
	event("add block sdd");
	event("add block sde");
	event("add block sdf");
	event("add block vdg");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "mq-deadline [none]");
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/read_ahead_kb"), "1024");
	ck_assert_str_eq(fx_read(&f, "sys/block/sde/queue/scheduler"), "[mq-deadline] none");
	ck_assert_str_eq(fx_read(&f, "sys/block/sdf/queue/scheduler"), "[mq-deadline] none");
	ck_assert_str_eq(fx_read(&f, "sys/block/vdg/queue/scheduler"), "[mq-deadline] none");
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/scheduler"), "[mq-deadline] none");
	ck_assert_str_eq(fx_read(&f, "sys/block/sdd/queue/read_ahead_kb"), "128");
	perftune_tx_unref(tx);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

/* the default disk set (no devices=): a removable disk is not one of them */
START_TEST(profile_default_disk_set_leaves_removable_disks)
{
	struct perftune_tx *tx = hold_profile("[main]\nsummary=hotplug\n[disk]\nreadahead=2048");

	add_disk("vdd", 5, "[mq-deadline] none", "0");
	add_disk("sr1", 6, "[mq-deadline] none", "0");
	fx_put(&f, "sys/devices/virtual/block/sr1/removable", "1");
	event("add block vdd");
	event("add block sr1");
	ck_assert_int_eq(perftune_tx_dispatch(tx), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/vdd/queue/read_ahead_kb"), "2048");
	ck_assert_str_eq(fx_read(&f, "sys/block/sr1/queue/read_ahead_kb"), "128");
	ck_assert_int_ge(perftune_tx_rollback(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/vdd/queue/read_ahead_kb"), "128");
	perftune_tx_unref(tx);
}
END_TEST

static Suite *watch_suite(void)
{
	Suite *s = suite_create("watch");
	TCase *tc = tcase_create("watch");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, watch_needs_a_committed_held_transaction);
	tcase_add_test(tc, follow_dispatches_until_the_stop_descriptor);
	tcase_add_test(tc, holder_is_the_live_process_that_holds);
	tcase_add_test(tc, disk_added_under_a_glob_hold_is_tuned_and_given_back);
	tcase_add_test(tc, change_events_make_no_duplicates);
	tcase_add_test(tc, device_removed_is_not_written_at_restore);
	tcase_add_test(tc, device_added_again_is_tuned_again);
	tcase_add_test(tc, disk_without_media_is_tuned_when_bound);
	tcase_add_test(tc, device_that_refuses_is_reported_and_the_rest_stays);
	tcase_add_test(tc, device_gone_before_its_write_is_skipped);
	tcase_add_test(tc, storm_of_a_thousand_events);
	tcase_add_loop_test(tc, fault_at_every_hotplug_write_keeps_the_rest, 0, 2);
	tcase_add_loop_test(tc, killed_at_every_hotplug_write_then_restore_orphans, 0, 2);
	tcase_add_test(tc, profile_rules_select_the_disks_added);
	tcase_add_test(tc, profile_default_disk_set_leaves_removable_disks);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { watch_suite };

	return harness_main(argc, argv, suites, 1);
}
