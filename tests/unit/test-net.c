// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The net family against the scripted ethtool netlink kernel (fakenl.c) and
 * the simulated file kernel: keys and selectors, "not here", the kernel's
 * extack text in errors, channels before the queue masks they make, a fault,
 * a kill and a vanishing device at every operation of a commit (every
 * setting it wrote given back), and a device gone before its restore.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fakenl.h"
#include "harness.h"

static struct fx f;
static struct fnl *k;
static void setup(void)
{
	fx_setup(&f);
	k = fnl_new(f.root);
	ck_assert_ptr_nonnull(k);
	fnl_install(f.ctx, k);
}
static void teardown(void)
{
	fnl_free(k);
	fx_teardown(&f);
}

static const char *get(const char *key)
{
	static char v[PT_VAL];
	char *s = NULL;
	int r = perftune_get(f.ctx, key, &s);

	ck_assert_msg(r == 0, "%s: %s", key, perftune_ctx_last_error(f.ctx));
	snprintf(v, sizeof(v), "%s", s);
	free(s);
	return v;
}

static int set1(const char *key, const char *value)
{
	struct perftune_tx *tx;
	int r;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "one", 0, &tx), 0);
	r = perftune_tx_set(tx, key, value);
	if (r >= 0)
		r = perftune_tx_commit(tx);
	perftune_tx_unref(tx);
	return r;
}

START_TEST(keys_read_through_netlink_and_sysfs)
{
	ck_assert_str_eq(get("net.eth0.ring.rx"), "256");
	ck_assert_str_eq(get("net.eth0.channels.combined"), "1");
	ck_assert_str_eq(get("net.eth0.coalesce.adaptive_rx"), "on");
	ck_assert_str_eq(get("net.eth0.features.rx-gro"), "on");
	ck_assert_str_eq(get("net.eth0.txqueuelen"), "1000");
	ck_assert_str_eq(get("net.eth0.rx.0.rps_cpus"), "0");
	ck_assert_str_eq(get("net.eth*.ring.tx"), "256");
	ck_assert_str_eq(get("net[driver=ixgbe].ring.rx"), "256");
	ck_assert_str_eq(get("net[pci=0000:00:03.0].txqueuelen"), "1000");
}
END_TEST

static void assert_err(int r, int err, const char *text)
{
	ck_assert_msg(r == err, "%d, not %d: %s", r, err, perftune_ctx_last_error(f.ctx));
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), text), "'%s' lacks '%s'",
		      perftune_ctx_last_error(f.ctx), text);
}

/* a glob or driver selector passes over the devices without the setting; none: not here */
START_TEST(selector_of_several_devices_skips_those_without_the_setting)
{
	struct perftune_tunable_iter *it;
	char *v = NULL;

	k->dev[1].ring_max[0] = 0; /* eth1: no rx ring */
	k->dev[0].ring[0] = 512;
	ck_assert_str_eq(get("net.eth*.ring.rx"), "512");
	assert_err(perftune_get(f.ctx, "net.eth*.ring.rx_mini", &v), -EOPNOTSUPP, "not here");
	assert_err(perftune_get(f.ctx, "net.eth1.ring.rx", &v), -EOPNOTSUPP, "not here");
	ck_assert_int_eq(perftune_list(f.ctx, "net.eth1.ring.rx", &it), 0);
	ck_assert_ptr_null(perftune_tunable_iter_next(it));
	perftune_tunable_iter_free(it);
}
END_TEST

START_TEST(list_shows_what_the_driver_reports)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	int n = 0, ring = 0, fixed = 0, pause = 0;

	ck_assert_int_eq(perftune_list(f.ctx, "net.eth0.", &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		const char *key = perftune_tunable_key(e);
		n++;
		ring += !strncmp(key, "net.eth0.ring.", 14);
		fixed += !strcmp(key, "net.eth0.features.rx-lro");
		pause += !strncmp(key, "net.eth0.pause.", 15);
		ck_assert_msg(perftune_tunable_value(e), "%s unreadable", key);
	}
	perftune_tunable_iter_free(it);
	/* rx and tx rings (no mini, no jumbo), other+combined channels, 3 coalescing
	 * parameters, 2 changeable features, txqueuelen, gro_flush_timeout, 2 masks */
	ck_assert_int_eq(ring, 2);
	ck_assert_int_eq(fixed, 0);
	ck_assert_int_eq(pause, 0);
	ck_assert_int_eq(n, 2 + 2 + 3 + 2 + 2 + 2);
}
END_TEST

START_TEST(unsupported_is_not_here_with_the_reason)
{
	char *v = NULL;

	assert_err(perftune_get(f.ctx, "net.eth0.pause.rx", &v), -EOPNOTSUPP,
		   "not here: the driver ixgbe of eth0 has no pause frame parameters");
	assert_err(perftune_get(f.ctx, "net.eth0.ring.rx_mini", &v), -EOPNOTSUPP, "not here");
	assert_err(set1("net.eth0.features.rx-lro", "on"), -EOPNOTSUPP,
		   "not here: eth0's feature rx-lro is fixed (off)");
	assert_err(set1("net.eth0.features.nosuch", "on"), -ENOENT,
		   "the kernel has no feature 'nosuch'");
	assert_err(set1("net.eth0.ring.bogus", "1"), -ENOENT, "no ring parameter 'bogus'");
	assert_err(set1("net.eth7.ring.rx", "1"), -ENODEV, "no such network device 'eth7'");
	assert_err(set1("net[driver=e1000e].ring.rx", "1"), -ENODEV, "no network device matches");
	assert_err(set1("net.eth0.ring.rx", "9999"), -EINVAL, "out of range [0, 4096]");
	assert_err(set1("net.eth0.coalesce.adaptive_rx", "maybe"), -EINVAL, "on off");
	assert_err(set1("net.eth0.rx.0.rps_cpus", "zz"), -EINVAL, "hexadecimal CPU mask");
	assert_err(set1("net.eth0.wat", "1"), -EINVAL, "expected net.<dev>");
	ck_assert_int_eq(k->sets, 0);
}
END_TEST

START_TEST(kernel_refusal_carries_its_extack_text)
{
	assert_err(set1("net.eth0.coalesce.rx_usecs", "7"), -EINVAL, "fake: rx-usecs must be even");
	assert_err(set1("net.eth0.channels.combined", "0"), -EINVAL,
		   "neither RX nor combined channels");
	ck_assert_uint_eq(k->dev[0].chan[3], 1);
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

START_TEST(write_that_does_not_take_fails_the_read_back)
{
	k->ignore_sets = true;
	assert_err(set1("net.eth0.ring.rx", "512"), -EIO, "reads back '256'");
}
END_TEST

static char logged[4096];
static void keep_log(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx, (void)prio, (void)ud;
	snprintf(logged + strlen(logged), sizeof(logged) - strlen(logged), "%s\n", msg);
}

/* -vv shows an ethtool write as it shows a file's (the VM's crash tests kill at one) */
START_TEST(debug_log_shows_each_netlink_write)
{
	logged[0] = '\0';
	perftune_ctx_set_log_fn(f.ctx, keep_log, PERFTUNE_LOG_DEBUG, NULL);
	ck_assert_int_eq(set1("net.eth0.ring.rx", "512"), 1);
	ck_assert_int_eq(set1("net.eth0.txqueuelen", "700"), 1);
	perftune_ctx_set_log_fn(f.ctx, NULL, 0, NULL);
	ck_assert_msg(strstr(logged, "write net.eth0.ring.rx (ethtool netlink) <- 512\n"), "%s",
		      logged);
	ck_assert_msg(strstr(logged, "write sys/class/net/eth0/tx_queue_len <- 700\n"), "%s",
		      logged);
}
END_TEST

/* a mixed commit on two devices: ethtool settings, sysfs files, a queue that channels make */
static const char *const keys[][2] = {
	{ "net.eth0.ring.rx", "1024" },	   { "net.eth0.channels.combined", "3" },
	{ "net.eth0.rx.2.rps_cpus", "3" }, { "net.eth0.features.rx-gro", "off" },
	{ "net.eth0.txqueuelen", "5000" }, { "net.eth1.coalesce.rx_usecs", "8" },
	{ "net.eth1.ring.tx", "2048" },	   { "net.eth1.gro_flush_timeout", "20000" },
};
#define NKEYS ((int)ARRAY_SIZE(keys))

static int commit_keys(void)
{
	struct perftune_tx *tx;
	int r = 0;

	ck_assert_int_eq(perftune_tx_new(f.ctx, "nic", 0, &tx), 0);
	for (int i = 0; i < NKEYS && r >= 0; i++) {
		r = perftune_tx_set(tx, keys[i][0], keys[i][1]);
		ck_assert_msg(r == 1, "%s: %s", keys[i][0], perftune_ctx_last_error(f.ctx));
	}
	r = perftune_tx_commit(tx);
	perftune_tx_unref(tx);
	return r;
}

static void assert_all_back(const struct snap *before, const struct fnl_dev *d)
{
	struct snap *now = snap_take(f.root);
	char *diff = snap_diff(before, now);

	ck_assert_msg(!diff, "%s", diff);
	snap_free(now);
	for (int i = 0; i < FNL_DEVS; i++)
		ck_assert_msg(!memcmp(&d[i], &k->dev[i], sizeof(d[i])), "%s not given back",
			      d[i].name);
}

START_TEST(channels_go_before_the_queue_masks_they_make_and_come_back_first)
{
	struct snap *before = snap_take(f.root);
	struct fnl_dev d0 = k->dev[0], d1 = k->dev[1];

	ck_assert_msg(commit_keys() == NKEYS, "%s", perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(fx_read(&f, "sys/class/net/eth0/queues/rx-2/rps_cpus"), "3");
	ck_assert_uint_eq(k->dev[0].chan[3], 3);
	ck_assert_uint_eq(k->dev[0].ring[0], 1024);
	ck_assert(!k->dev[0].feat[0]);
	ck_assert_uint_eq(k->dev[1].rx_usecs, 8);
	ck_assert_str_eq(get("net.eth1.gro_flush_timeout"), "20000");
	/* channels back first: rx-2 goes with them, its mask needs no write */
	ck_assert_int_eq(perftune_restore(f.ctx, "nic", 0), NKEYS - 1);
	ck_assert_msg(!memcmp(&d0, &k->dev[0], sizeof(d0)), "eth0 not restored");
	ck_assert_msg(!memcmp(&d1, &k->dev[1], sizeof(d1)), "eth1 not restored");
	assert_all_back(before, (struct fnl_dev[]){ d0, d1 });
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

/*
 * The mask of a queue that the channels make, staged before the channels key
 * (any order a caller or a profile gives): it waits for it.  Without one, the
 * commit (and a dry run) fails with the missing file's error, before writing.
 */
START_TEST(queue_mask_staged_before_its_channels_waits_for_them)
{
	struct snap *before = snap_take(f.root);
	struct fnl_dev d0 = k->dev[0];
	struct perftune_tx *tx;
	unsigned flags[] = { 0, PERFTUNE_TX_DRY_RUN };

	ck_assert_int_eq(perftune_tx_new(f.ctx, "order", 0, &tx), 0);
	ck_assert_int_eq(perftune_tx_set(tx, "net.eth0.rx.2.rps_cpus", "3"), 1);
	ck_assert_int_eq(perftune_tx_set(tx, "net.eth0.channels.combined", "3"), 1);
	ck_assert_msg(perftune_tx_commit(tx) == 2, "%s", perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/eth0/queues/rx-2/rps_cpus"), "3");
	ck_assert_uint_eq(k->dev[0].chan[3], 3);
	ck_assert_int_eq(perftune_restore(f.ctx, "order", 0), 1);
	ck_assert_msg(!memcmp(&d0, &k->dev[0], sizeof(d0)), "eth0 not restored");
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		ck_assert_int_eq(perftune_tx_new(f.ctx, "alone", flags[i], &tx), 0);
		ck_assert_int_eq(perftune_tx_set(tx, "net.eth0.rx.2.rps_cpus", "3"), 1);
		ck_assert_int_eq(perftune_tx_set(tx, "net.eth0.txqueuelen", "900"), 1);
		assert_err(perftune_tx_commit(tx), -ENOENT,
			   "net.eth0.rx.2.rps_cpus: not present on this kernel");
		perftune_tx_unref(tx);
	}
	assert_all_back(before, (struct fnl_dev[]){ d0, k->dev[1] });
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

/* _i: the strategy (serial, waves, threads) and the netlink SET or file write to fail */
START_TEST(commit_fault_at_every_operation_gives_everything_back)
{
	struct snap *before = snap_take(f.root);
	struct fnl_dev d[FNL_DEVS] = { k->dev[0], k->dev[1] };
	int n = _i / 3 + 1;

	fx_strategy(_i % 3);
	if (n <= 5)
		k->fault_at = n; /* 5 ethtool settings */
	else
		f.sim.fault_at = n - 5; /* 3 files */
	ck_assert_int_lt(commit_keys(), 0);
	ck_assert_int_ge(k->sets, 1);
	assert_all_back(before, d);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

START_TEST(commit_killed_at_every_netlink_set_is_restored_by_the_next)
{
	struct snap *before = snap_take(f.root);
	struct fnl_dev d[FNL_DEVS] = { k->dev[0], k->dev[1] };
	pid_t pid;
	int st;

	fx_strategy(_i % 3);
	pid = fork();
	if (pid == 0) {
		k->crash_at = _i / 3 + 1;
		commit_keys();
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 99, "no crash at set %d", _i / 3 + 1);
	ck_assert_msg(perftune_restore(f.ctx, NULL, PERFTUNE_RESTORE_ORPHANS) >= 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	assert_all_back(before, d);
	ck_assert_int_eq(fx_journals(&f), 0);
	snap_free(before);
}
END_TEST

/* a device vanishes at SET n: the commit fails and the other device is given back */
START_TEST(device_vanishing_mid_commit_fails_it_and_the_rest_is_given_back)
{
	struct fnl_dev d1 = k->dev[1];
	int r;

	k->vanish_at = _i + 1;
	r = commit_keys();
	ck_assert_int_lt(r, 0);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "is gone") ||
			      strstr(perftune_ctx_last_error(f.ctx), "No such"),
		      "%s", perftune_ctx_last_error(f.ctx));
	if (!k->dev[1].gone)
		ck_assert_msg(!memcmp(&d1, &k->dev[1], sizeof(d1)), "eth1 not given back");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

START_TEST(device_gone_before_restore_is_reported_and_the_rest_restored)
{
	struct fnl_dev d1 = k->dev[1];
	int r;

	ck_assert_int_eq(commit_keys(), NKEYS);
	fnl_remove(k, 0);
	r = perftune_restore(f.ctx, "nic", 0);
	ck_assert_msg(r == 3, "%d: %s", r, perftune_ctx_last_error(f.ctx));
	ck_assert_msg(!memcmp(&d1, &k->dev[1], sizeof(d1)), "eth1 not restored");
	ck_assert_int_eq(fx_journals(&f), 0);
}
END_TEST

START_TEST(without_a_transport_a_fake_root_has_no_netlink)
{
	char *v = NULL;

	pt_nl_set_transport(f.ctx, NULL, NULL);
	assert_err(perftune_get(f.ctx, "net.eth0.ring.rx", &v), -EOPNOTSUPP,
		   "netlink reaches the running kernel, not the root tree");
	ck_assert_str_eq(get("net.eth0.txqueuelen"), "1000");
}
END_TEST

/* TuneD's [net] options that go through ethtool: keys of the net family, or skips that say why */
START_TEST(tuned_net_section_maps_onto_net_keys)
{
	static const char *const want[][2] = {
		{ "net.eth0.features.rx-gro", "off" },
		{ "net.eth0.features.tx-tcp*segmentation", "off" },
		{ "net.eth0.coalesce.adaptive_rx", "off" },
		{ "net.eth0.coalesce.rx_usecs", "10" },
		{ "net.eth0.ring.rx", "1024" },
		{ "net.eth0.channels.combined", "2" },
	};
	struct perftune_profile *p = NULL;
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *i;
	struct perftune_tx *tx;
	char path[PATH_MAX];
	int staged = 0, lro = 0, pause = 0, wol = 0, n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/../net.conf", f.root);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("[net]\ndevices=eth0\nfeatures=gro off tso off lro on\n"
	      "coalesce=adaptive-rx off rx-usecs 10\nring=rx 1024\nchannels=combined 2\n"
	      "pause=autoneg off\nwake_on_lan=g\n",
	      fp);
	fclose(fp);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_msg(perftune_profile_load(f.ctx, path, NULL, &p) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_profile_items(p, &it), 0);
	while ((i = perftune_profile_item_iter_next(it))) {
		const char *key = perftune_profile_item_key(i), *why;
		why = perftune_profile_item_skip_reason(i);
		if (!why) {
			for (size_t w = 0; w < ARRAY_SIZE(want); w++)
				staged += key && !strcmp(key, want[w][0]) &&
					  !strcmp(perftune_profile_item_value(i), want[w][1]);
			continue;
		}
		lro += key && !strcmp(key, "net.eth0.features.rx-lro") &&
		       strstr(why, "not here: eth0's feature rx-lro is fixed (off)");
		pause += key && !strcmp(key, "net.eth0.pause.autoneg") && strstr(why, "not here");
		wol += strstr(why, "wake-on-LAN") != NULL;
	}
	perftune_profile_item_iter_free(it);
	ck_assert_int_eq(staged, (int)ARRAY_SIZE(want));
	ck_assert_int_eq(lro + pause + wol, 3);
	ck_assert_int_eq(perftune_tx_new(f.ctx, "prof", 0, &tx), 0);
	ck_assert_msg(perftune_profile_stage(p, tx, 0) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	n = perftune_tx_commit(tx);
	ck_assert_msg(n == (int)ARRAY_SIZE(want), "%d: %s", n, perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
	perftune_profile_free(p);
	ck_assert(!k->dev[0].feat[0] && !k->dev[0].feat[1]);
	ck_assert_uint_eq(k->dev[0].chan[3], 2);
}
END_TEST

/* @dev (0 eth0, 1 eth1) renamed @name, in sysfs and in the scripted kernel */
static void rename_dev(int dev, const char *name)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/sys/class/net/%s", f.root, k->dev[dev].name);
	snprintf(to, sizeof(to), "%s/sys/class/net/%s", f.root, name);
	ck_assert_int_eq(rename(from, to), 0);
	snprintf(k->dev[dev].name, sizeof(k->dev[dev].name), "%s", name);
}

/*
 * Issue 33 H13 and H5: a device named v=1 is listed in a form get takes (not the
 * [driver=...] selector), and one named v* beside va is that device alone.
 */
START_TEST(device_names_with_selector_characters_are_literal)
{
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	int listed = 0;

	rename_dev(1, "v=1");
	ck_assert_int_eq(perftune_list(f.ctx, "net", &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		const char *key = perftune_tunable_key(e);
		char *v = NULL;
		if (strncmp(key, "net[v", 5))
			continue;
		ck_assert_msg(!strncmp(key, "net[v\\=1].", 10), "%s", key);
		ck_assert_msg(perftune_get(f.ctx, key, &v) == 0, "%s: %s", key,
			      perftune_ctx_last_error(f.ctx));
		free(v);
		listed++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_gt(listed, 5);
	ck_assert_str_eq(get("net[v=1].txqueuelen"), "1000");
	ck_assert_int_eq(set1("net[v\\=1].txqueuelen", "700"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/v=1/tx_queue_len"), "700");
	ck_assert_int_eq(perftune_restore(f.ctx, "one", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/v=1/tx_queue_len"), "1000");

	rename_dev(0, "va");
	rename_dev(1, "v*");
	ck_assert_int_eq(set1("net[v*].txqueuelen", "700"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/class/net/v*/tx_queue_len"), "700");
	ck_assert_str_eq(fx_read(&f, "sys/class/net/va/tx_queue_len"), "1000");
	ck_assert_int_eq(perftune_restore(f.ctx, "one", 0), 1);
	ck_assert_int_eq(set1("net.v*.txqueuelen", "700"), 2); /* the glob: both */
	ck_assert_int_eq(perftune_restore(f.ctx, "one", 0), 2);
}
END_TEST

static Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("net");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, keys_read_through_netlink_and_sysfs);
	tcase_add_test(tc, list_shows_what_the_driver_reports);
	tcase_add_test(tc, selector_of_several_devices_skips_those_without_the_setting);
	tcase_add_test(tc, unsupported_is_not_here_with_the_reason);
	tcase_add_test(tc, kernel_refusal_carries_its_extack_text);
	tcase_add_test(tc, write_that_does_not_take_fails_the_read_back);
	tcase_add_test(tc, debug_log_shows_each_netlink_write);
	tcase_add_test(tc, channels_go_before_the_queue_masks_they_make_and_come_back_first);
	tcase_add_test(tc, queue_mask_staged_before_its_channels_waits_for_them);
	tcase_add_loop_test(tc, commit_fault_at_every_operation_gives_everything_back, 0, 3 * 8);
	tcase_add_loop_test(tc, commit_killed_at_every_netlink_set_is_restored_by_the_next, 0,
			    3 * 5);
	tcase_add_loop_test(tc, device_vanishing_mid_commit_fails_it_and_the_rest_is_given_back, 0,
			    5);
	tcase_add_test(tc, device_gone_before_restore_is_reported_and_the_rest_restored);
	tcase_add_test(tc, without_a_transport_a_fake_root_has_no_netlink);
	tcase_add_test(tc, tuned_net_section_maps_onto_net_keys);
	tcase_add_test(tc, device_names_with_selector_characters_are_literal);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { net_suite };

	return harness_main(argc, argv, suites, 1);
}
