// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/why: the sources of a key (sysctl.d in every directory with masking,
 * udev rules matched against the device, TuneD's active profile with its
 * includes, the kernel command line, daemons, transactions) and verify's
 * statuses, on the fake machine with configuration files below its root;
 * the scans: each file read once per call (counted by inotify), the work
 * linear in the sources (counted by the library), lines as systemd reads
 * them, links kept inside the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "why/why-internal.h"

static struct fx f;

/* write @text to @rel below the root, its directories made */
static void put(const char *rel, const char *text)
{
	char path[PATH_MAX], cmd[PATH_MAX + 32];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f.root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	*strrchr(cmd, '/') = '\0';
	strcat(cmd, "'");
	ck_assert_int_eq(system(cmd), 0);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

/* @len bytes of @data (NUL bytes too) to @rel below the root, its directories made */
static void put_bytes(const char *rel, const char *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	put(rel, "");
	snprintf(path, sizeof(path), "%s/%s", f.root, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void link_at(const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", f.root, rel);
	*strrchr(path, '/') = '\0';
	ck_assert_int_eq(mkdir(path, 0755) == 0 || errno == EEXIST, 1);
	path[strlen(path)] = '/';
	ck_assert_int_eq(symlink(target, path), 0);
}

static void setup(void)
{
	fx_setup(&f);
	put("usr/lib/sysctl.d/50-default.conf", "vm.swappiness = 30\nvm.dirty_ratio=15\n");
	put("usr/lib/sysctl.d/60-masked.conf", "vm.swappiness = 99\n");
	link_at("/dev/null", "etc/sysctl.d/60-masked.conf");
	put("usr/local/lib/sysctl.d/70-run.conf", "vm.swappiness = 20\n");
	put("run/sysctl.d/70-run.conf", "# local\n\n-vm/swappiness = 10\nbogus line\n");
	put("etc/sysctl.d/80-net.conf", "net.ipv4.conf.*.rp_filter = 0\n"
					"net/ipv4/conf/eth0.100/rp_filter = 2\n");
	put("etc/udev/rules.d/60-sched.rules",
	    "# the scheduler of ATA disks\n"
	    "ACTION==\"add|change\", KERNEL==\"sd[a-z]\", ENV{ID_BUS}==\"ata\", \\\n"
	    "  ATTR{queue/scheduler}=\"bfq\"\n"
	    "KERNEL==\"sd*\", ATTR{queue/rotational}==\"0\", ATTR{queue/scheduler}=\"none\"\n"
	    "KERNEL==\"nvme*\", DRIVERS==\"nvme\", ATTR{queue/scheduler}=\"kyber\"\n");
	put("run/udev/data/b8:0", "E:ID_BUS=ata\nE:ID_MODEL=Disk\n");
	put("etc/tuned/active_profile", "child\n");
	put("usr/lib/tuned/base/tuned.conf",
	    "[main]\nsummary=base\n[sysctl]\nvm.swappiness=5\nvm.dirty_ratio=40\n");
	put("usr/lib/tuned/child/tuned.conf",
	    "[main]\ninclude=base\n[sysctl]\nvm.dirty_ratio=35\n[vm]\n"
	    "transparent_hugepages=never\n[bootloader]\ncmdline=isolcpus=1 nohz=on\n"
	    "[script]\nscript=foo.sh\n");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 transparent_hugepage=madvise "
			    "sysctl.vm.swappiness=7 nohz=on\n");
}

static void teardown(void)
{
	fx_teardown(&f);
}

/* the sources of @key as "kind location value flags" lines */
static char *why(const char *key, const char *value)
{
	struct perftune_source_iter *it;
	const struct perftune_source *s;
	struct pt_buf b = { 0 };
	int r = perftune_why(f.ctx, key, value, &it);

	ck_assert_msg(r >= 0, "%s: %s", key, perftune_ctx_last_error(f.ctx));
	while ((s = perftune_source_iter_next(it))) {
		unsigned fl = perftune_source_flags(s);
		pt_buf_printf(&b, "%s %s %s%s%s%s%s\n", perftune_source_kind(s),
			      perftune_source_location(s),
			      perftune_source_value(s) ? perftune_source_value(s) : "-",
			      fl & PERFTUNE_SOURCE_WINS ? " wins" : "",
			      fl & PERFTUNE_SOURCE_OVERRIDDEN ? " overridden" : "",
			      fl & PERFTUNE_SOURCE_DIFFERS ? " differs" : "",
			      fl & PERFTUNE_SOURCE_ERROR ? " error" : "");
	}
	perftune_source_iter_free(it);
	return pt_buf_steal(&b);
}

START_TEST(sysctl_d_in_effect_order_with_masking)
{
	char *got = why("sysctl.vm.swappiness", NULL);

	/* /etc's /dev/null masks 60-masked.conf; /run's 70-run.conf masks /usr/local/lib's */
	ck_assert_str_eq(got, "cmdline /proc/cmdline sysctl.vm.swappiness=7 differs\n"
			      "sysctl.d /usr/lib/sysctl.d/50-default.conf:1 30 overridden differs\n"
			      "sysctl.d /run/sysctl.d/70-run.conf:3 10 wins differs\n"
			      "tuned /usr/lib/tuned/base/tuned.conf:4 5 overridden differs\n");
	free(got);
	/* TuneD re-applies sysctl.d after its profile, unless told not to */
	put("etc/tuned/tuned-main.conf", "# daemon\nreapply_sysctl = 0\n");
	got = why("sysctl.vm.swappiness", NULL);
	ck_assert_ptr_nonnull(
		strstr(got, "tuned /usr/lib/tuned/base/tuned.conf:4 5 wins differs\n"));
	free(got);
}
END_TEST

START_TEST(sysctl_conf_is_read_last_and_once)
{
	char *got;

	put("etc/sysctl.conf", "vm.swappiness=1\n");
	got = why("sysctl.vm.swappiness", "1");
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /etc/sysctl.conf:1 1 wins\n"));
	free(got);
	link_at("../sysctl.conf", "etc/sysctl.d/99-sysctl.conf");
	got = why("sysctl.vm.swappiness", "1");
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /etc/sysctl.d/99-sysctl.conf:1 1 wins\n"));
	ck_assert_ptr_null(strstr(got, "/etc/sysctl.conf"));
	free(got);
}
END_TEST

START_TEST(sysctl_d_globs_and_slash_names)
{
	char *a = why("sysctl.net.ipv4.conf.eth0.rp_filter", NULL),
	     *b = why("sysctl.net.ipv4.conf.[eth0.100].rp_filter", NULL);

	ck_assert_str_eq(a, "sysctl.d /etc/sysctl.d/80-net.conf:1 0 wins differs\n");
	ck_assert_str_eq(b, "sysctl.d /etc/sysctl.d/80-net.conf:1 0 overridden differs\n"
			    "sysctl.d /etc/sysctl.d/80-net.conf:2 2 wins differs\n");
	free(a);
	free(b);
}
END_TEST

static int warnings;
static void count_warnings(struct perftune_ctx *ctx _unused_, int prio, const char *msg,
			   void *ud _unused_)
{
	if (prio == PERFTUNE_LOG_WARNING && (strstr(msg, "cannot read") || strstr(msg, "not 'name")))
		warnings++;
}

START_TEST(unreadable_and_malformed_files_are_named_not_fatal)
{
	char dir[PATH_MAX], *got;

	snprintf(dir, sizeof(dir), "%s/etc/sysctl.d/55-broken.conf", f.root);
	ck_assert_int_eq(mkdir(dir, 0755), 0); /* a directory: read() refuses it */
	warnings = 0;
	perftune_ctx_set_log_fn(f.ctx, count_warnings, PERFTUNE_LOG_WARNING, NULL);
	got = why("sysctl.vm.dirty_ratio", NULL);
	/* the file that cannot be read neither wins nor stops the others */
	ck_assert_str_eq(got,
			 "sysctl.d /usr/lib/sysctl.d/50-default.conf:2 15 wins differs\n"
			 "sysctl.d /etc/sysctl.d/55-broken.conf - error\n"
			 /* the include's line that the profile overrides, then the profile's */
			 "tuned /usr/lib/tuned/base/tuned.conf:5 40 overridden differs\n"
			 "tuned /usr/lib/tuned/child/tuned.conf:4 35 overridden differs\n");
	ck_assert_int_eq(warnings, 2); /* 55-broken.conf, and 70-run.conf's "bogus line" */
	free(got);
}
END_TEST

START_TEST(udev_rules_matched_against_the_device)
{
	char *sda = why("block.sda.scheduler", NULL), *sdb = why("block.sdb.scheduler", NULL),
	     *nvme = why("block.nvme0n1.scheduler", NULL);

	/* sda: ENV{ID_BUS}=="ata" from the udev database; rotational, so not the second rule */
	ck_assert_str_eq(sda, "udev /etc/udev/rules.d/60-sched.rules:2 bfq wins differs\n");
	ck_assert_str_eq(sdb, ""); /* no ID_BUS */
	/* DRIVERS== cannot be checked without udevd: assumed, and said so */
	ck_assert_str_eq(nvme, "udev /etc/udev/rules.d/60-sched.rules:5 kyber wins differs\n");
	free(sda);
	free(sdb);
	free(nvme);
	fx_write(&f, "sys/block/sdb/queue/rotational", "0");
	sdb = why("block.sdb.scheduler", "none");
	ck_assert_str_eq(sdb, "udev /etc/udev/rules.d/60-sched.rules:4 none wins\n");
	free(sdb);
}
END_TEST

/* a network device's attribute: SUBSYSTEM=="net", ENV{} from the udev database (n<ifindex>) */
START_TEST(udev_rules_of_a_network_device)
{
	char *got;

	put("sys/devices/virtual/net/eth9/ifindex", "9\n");
	put("sys/devices/virtual/net/eth9/tx_queue_len", "1000\n");
	put("sys/devices/virtual/net/eth9/uevent", "INTERFACE=eth9\nIFINDEX=9\n");
	put("sys/devices/virtual/net/eth9/queues/rx-0/rps_cpus", "0\n");
	link_at("../../devices/virtual/net/eth9", "sys/class/net/eth9");
	put("run/udev/data/n9", "E:ID_NET_DRIVER=virtio_net\n");
	put("etc/udev/rules.d/70-nic.rules",
	    "SUBSYSTEM==\"block\", KERNEL==\"eth9\", ATTR{tx_queue_len}=\"1\"\n"
	    "SUBSYSTEM==\"net\", ACTION==\"add\", ENV{ID_NET_DRIVER}==\"virtio_net\", "
	    "ATTR{tx_queue_len}=\"5000\"\n"
	    "SUBSYSTEM==\"net\", KERNEL==\"eth*\", ATTR{queues/rx-0/rps_cpus}=\"3\"\n"
	    "SUBSYSTEM==\"net\", ENV{ID_NET_DRIVER}==\"e1000e\", ATTR{tx_queue_len}=\"7\"\n");
	got = why("net.eth9.txqueuelen", NULL);
	/* not the block rule, not the e1000e one */
	ck_assert_str_eq(got, "udev /etc/udev/rules.d/70-nic.rules:2 5000 wins differs\n");
	free(got);
	got = why("net.eth9.rx.0.rps_cpus", NULL);
	ck_assert_str_eq(got, "udev /etc/udev/rules.d/70-nic.rules:3 3 wins differs\n");
	free(got);
}
END_TEST

START_TEST(tuned_profile_includes_and_cmdline)
{
	char *got = why("thp.enabled", NULL);

	ck_assert_str_eq(got, "cmdline /proc/cmdline transparent_hugepage=madvise\n"
			      "tuned /usr/lib/tuned/child/tuned.conf:6 never wins differs\n");
	free(got);
	got = why("thp.enabled", "never"); /* compared with another value */
	ck_assert_str_eq(got, "cmdline /proc/cmdline transparent_hugepage=madvise differs\n"
			      "tuned /usr/lib/tuned/child/tuned.conf:6 never wins\n");
	free(got);
}
END_TEST

START_TEST(daemons_from_proc)
{
	char *got;

	put("proc/812/comm", "tuned\n");
	put("proc/813/comm", "power-profiles-\n");
	got = why("thp.enabled", NULL);
	ck_assert_ptr_nonnull(strstr(got, "daemon tuned (pid 812) -\n"));
	free(got);
	got = why("cpu.0.epp", NULL);
	ck_assert_str_eq(got, "daemon power-profiles-daemon (pid 813) -\n");
	free(got);
	got = why("sysctl.net.ipv4.conf.eth0.rp_filter", NULL); /* reapply_sysctl */
	ck_assert_ptr_nonnull(strstr(got, "daemon tuned (pid 812) -\n"));
	free(got);
	got = why("block.sda.read_ahead_kb", NULL);
	ck_assert_str_eq(got, "");
	free(got);
	put("proc/814/comm", "irqbalance\n"); /* it moves IRQs back, not the default mask */
	got = why("irq.24.cpus", NULL);
	ck_assert_str_eq(got, "daemon irqbalance (pid 814) -\n");
	free(got);
	got = why("irq.default.cpus", NULL);
	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

static void commit(const char *name, const char *key, const char *value, unsigned flags)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, flags, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, key, value), 1);
	ck_assert_msg(perftune_tx_commit(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	perftune_tx_unref(tx);
}

START_TEST(our_transactions_are_sources)
{
	char *got;

	commit("db", "sysctl.vm.swappiness", "5", 0);
	got = why("sysctl.vm.swappiness", NULL);
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /run/sysctl.d/70-run.conf:3 10 wins differs\n"
					  "tuned /usr/lib/tuned/base/tuned.conf:4 5 overridden\n"
					  "transaction db 5 wins\n"));
	free(got);
}
END_TEST

START_TEST(bad_keys)
{
	struct perftune_source_iter *it = NULL;

	ck_assert_int_eq(perftune_why(f.ctx, "nosuch.key", NULL, &it), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "nosuch"));
	ck_assert_int_eq(perftune_why(f.ctx, "block.sdz.scheduler", NULL, &it), -ENODEV);
	ck_assert_int_eq(perftune_why(f.ctx, "sysctl.vm.nosuch", NULL, &it), -ENOENT);
	ck_assert_ptr_null(it);
}
END_TEST

/* ---- verify ---- */

static const struct {
	const char *cur, *want;
	bool same;
} values[] = {
	{ "[mq-deadline] kyber none", "mq-deadline", true },
	{ "mq-deadline", "deadline", true },
	{ "none", "noop", true },
	{ "bfq", "cfq", true },
	{ "kyber", "bfq|kyber", true },
	{ "none", "bfq|kyber", false },
	{ "0-3", "0,1,2,3", true },
	{ "0-3,8", "0-2,3,8", true },
	{ "0-3", "0-4", false },
	{ "4\t4  1 7", "4 4 1 7", true },
	{ "4096\t87380\t6291456", "4096 87380 6291456", true },
	{ "4096 87380", "4096 87381", false },
	{ "010", "10", true },
	{ "never", "madvise", false },
};

START_TEST(values_compare_as_the_kernel_shows_them)
{
	ck_assert_msg(pt_value_same(values[_i].cur, values[_i].want) == values[_i].same,
		      "'%s' vs '%s'", values[_i].cur, values[_i].want);
}
END_TEST

/* "status key = expected (reason)" lines; the return of the verify */
static char *checks(struct perftune_check_iter *it)
{
	const struct perftune_check *c;
	struct pt_buf b = { 0 };

	while ((c = perftune_check_iter_next(it)))
		pt_buf_printf(&b, "%s %s = %s (%s)\n",
			      perftune_check_status_name(perftune_check_status(c)),
			      perftune_check_key(c), perftune_check_expected(c),
			      perftune_check_reason(c) ? perftune_check_reason(c) : "");
	perftune_check_iter_free(it);
	return pt_buf_steal(&b);
}

static char *verify(int want, const char *const *settings)
{
	struct perftune_check_iter *it;
	int r = perftune_verify(f.ctx, settings, &it);

	ck_assert_msg(r == want, "%d: %s", r, perftune_ctx_last_error(f.ctx));
	return checks(it);
}

START_TEST(verify_statuses_of_settings)
{
	const char *const s[] = {
		"block.sda.scheduler=deadline", "sysctl.kernel.printk=4 4 1 7", "thp.enabled=never",
		"sysctl.vm.nosuch=1",		"block.sdz.scheduler=none",	NULL
	};
	char *got = verify(1, s);

	ck_assert_str_eq(got, "in force block.sda.scheduler = mq-deadline ()\n"
			      "in force sysctl.kernel.printk = 4 4 1 7 ()\n"
			      "differs thp.enabled = never (now madvise, expected never; set by "
			      "cmdline /proc/cmdline)\n"
			      "not here sysctl.vm.nosuch = 1 (sysctl.vm.nosuch: no such sysctl)\n"
			      "not here block.sdz.scheduler = none (block.sdz.scheduler: no such "
			      "block device)\n");
	free(got);
}
END_TEST

START_TEST(verify_bad_input)
{
	struct perftune_check_iter *it = NULL;
	const char *const bad_value[] = { "block.sda.scheduler=cfq2", NULL };
	const char *const bad_key[] = { "nosuch=1", NULL };
	const char *const no_eq[] = { "thp.enabled", NULL };

	ck_assert_int_eq(perftune_verify(f.ctx, bad_value, &it), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "cfq2"));
	ck_assert_int_eq(perftune_verify(f.ctx, bad_key, &it), -EINVAL);
	ck_assert_int_eq(perftune_verify(f.ctx, no_eq, &it), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "KEY=VALUE"));
	ck_assert_int_eq(perftune_verify_transaction(f.ctx, "nosuch", &it), -ENOENT);
	ck_assert_ptr_null(it);
}
END_TEST

START_TEST(verify_transaction_changed_behind_our_back_names_the_source)
{
	struct perftune_check_iter *it;
	char *got;

	commit("db", "sysctl.vm.swappiness", "5", 0);
	ck_assert_int_eq(perftune_verify_transaction(f.ctx, "db", &it), 0);
	got = checks(it);
	ck_assert_str_eq(got, "in force sysctl.vm.swappiness = 5 ()\n");
	free(got);
	fx_write(&f, "proc/sys/vm/swappiness", "10"); /* systemd-sysctl ran again */
	ck_assert_int_eq(perftune_verify_transaction(f.ctx, "db", &it), 1);
	got = checks(it);
	ck_assert_str_eq(got, "differs sysctl.vm.swappiness = 5 (now 10, expected 5; set by "
			      "sysctl.d /run/sysctl.d/70-run.conf:3)\n");
	free(got);
}
END_TEST

START_TEST(verify_partial_huge_pages_are_clamped)
{
	const char *const s[] = { "hugepages.2M.nr=8", NULL };
	char *got;

	f.sim.hp_cap = 2;
	commit("hp", "hugepages.2M.nr", "8", PERFTUNE_TX_ALLOW_PARTIAL);
	got = verify(1, s);
	ck_assert_ptr_nonnull(strstr(got, "clamped hugepages.2M.nr = 8 ("));
	free(got);
	fx_write(&f, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0");
	got = verify(1, s); /* not what we wrote: someone else's */
	ck_assert_ptr_nonnull(strstr(got, "differs hugepages.2M.nr = 8 (now 0"));
	free(got);
}
END_TEST

START_TEST(verify_profile_statuses)
{
	struct perftune_profile *p;
	struct perftune_check_iter *it;
	char path[PATH_MAX], *got;

	snprintf(path, sizeof(path), "%s/usr/lib/tuned/child/tuned.conf", f.root);
	ck_assert_msg(perftune_profile_load(f.ctx, path, NULL, &p) == 0, "%s",
		      perftune_ctx_last_error(f.ctx));
	ck_assert_int_eq(perftune_verify_profile(p, &it), 4);
	got = checks(it);
	ck_assert_str_eq(got,
			 "differs sysctl.vm.swappiness = 5 (now 60, expected 5)\n"
			 "differs sysctl.vm.dirty_ratio = 35 (now 20, expected 35)\n"
			 "differs thp.enabled = never (now madvise, expected never; set by cmdline "
			 "/proc/cmdline)\n"
			 "needs reboot [bootloader] cmdline = isolcpus=1 nohz=on (not on "
			 "/proc/cmdline: isolcpus=1)\n"
			 "skipped [script] script = foo.sh (runs a program: a profile never "
			 "executes anything)\n");
	free(got);
	fx_write(&f, "proc/sys/vm/swappiness", "5");
	ck_assert_int_eq(perftune_verify_profile(p, &it), 3);
	perftune_check_iter_free(it);
	perftune_profile_free(p);
}
END_TEST

/* ---- the scans: lines, links, each file once, linear work ---- */

static const struct {
	const char *text;
	size_t len;
	const char *lines; /* each line followed by "|" */
} line_cases[] = {
	{ "a\nb\n", 4, "a|b|" },   { "a\nb", 3, "a|b|" },   { "a\r\nb\n", 5, "a|b|" }, /* Windows */
	{ "a\rb\r", 4, "a|b|" },			    /* old MacOS */
	{ "a\n\rb", 4, "a|b|" },			    /* "\n\r" is one end too */
	{ "a\n\nb", 4, "a||b|" },			    /* "\n" seen twice: an empty line */
	{ "a\r\rb", 4, "a||b|" },  { "a\0b\n", 4, "a|b|" }, /* a NUL ends a line */
	{ "a\n\0b", 4, "a|b|" },			    /* "\n\0" is one end */
	{ "a\r\n\0b", 5, "a|b|" },			    /* and "\r\n\0" */
	{ "a\0\nb", 4, "a||b|" }, /* nothing after a NUL belongs to its end */
	{ "a\0\0b", 4, "a||b|" },  { "", 0, "" },	    { "\n", 1, "|" },
};

START_TEST(lines_end_as_systemd_reads_them)
{
	char *text = malloc(line_cases[_i].len + 1), *line;
	struct pt_buf b = { 0 };
	struct pt_lines l;
	int n = 0;

	memcpy(text, line_cases[_i].text, line_cases[_i].len);
	text[line_cases[_i].len] = '\0';
	pt_lines_init(&l, text, line_cases[_i].len);
	while ((line = pt_lines_next(&l))) {
		pt_buf_printf(&b, "%s|", line);
		ck_assert_int_eq(l.lineno, ++n);
	}
	line = pt_buf_steal(&b);
	ck_assert_msg(!strcmp(line, line_cases[_i].lines), "case %d: got '%s', want '%s'", _i, line,
		      line_cases[_i].lines);
	free(line);
	free(text);
}
END_TEST

/* H7: systemd-sysctl and udevd end a line at a NUL byte and read on; so does why */
START_TEST(a_nul_byte_ends_a_line_and_hides_nothing)
{
	static const char conf[] = "vm.swappiness = 11\0vm.dirty_ratio = 12\r\nvm.dirty_ratio = 13";
	static const char rules[] = "KERNEL==\"sdb\", ATTR{queue/scheduler}=\"none\"\0"
				    "KERNEL==\"sdb\", ATTR{queue/scheduler}=\"kyber\"\n";
	char *got;

	put_bytes("etc/sysctl.d/90-nul.conf", conf, sizeof(conf) - 1);
	got = why("sysctl.vm.dirty_ratio", NULL);
	ck_assert_ptr_nonnull(strstr(got,
				     "sysctl.d /etc/sysctl.d/90-nul.conf:2 12 overridden differs\n"
				     "sysctl.d /etc/sysctl.d/90-nul.conf:3 13 wins differs\n"));
	free(got);
	got = why("sysctl.vm.swappiness", NULL);
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /etc/sysctl.d/90-nul.conf:1 11 wins differs\n"));
	free(got);
	put_bytes("etc/udev/rules.d/90-nul.rules", rules, sizeof(rules) - 1);
	got = why("block.sdb.scheduler", NULL);
	ck_assert_str_eq(got, "udev /etc/udev/rules.d/90-nul.rules:1 none overridden differs\n"
			      "udev /etc/udev/rules.d/90-nul.rules:2 kyber wins differs\n");
	free(got);
}
END_TEST

/* H8: below --root, a link (relative or absolute) is resolved inside the root, as in a chroot */
START_TEST(links_below_another_root_stay_inside_it)
{
	char outside[PATH_MAX], *got;
	FILE *fp;

	/* a file beside the root: what a relative link with many ".." reached */
	snprintf(outside, sizeof(outside), "%.*s/outside", (int)(strrchr(f.root, '/') - f.root),
		 f.root);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	strcat(outside, "/x.conf");
	fp = fopen(outside, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("vm.dirty_ratio = 77\nKERNEL==\"sd*\", ATTR{queue/scheduler}=\"kyber\"\n", fp);
	fclose(fp);
	link_at("../../../outside/x.conf", "etc/sysctl.d/10-out.conf");
	link_at("../../../../../../outside/x.conf", "etc/udev/rules.d/10-out.rules");
	link_at("../../outside", "lib/sysctl.d"); /* a directory, the same way */
	/* one that stays inside once ".." stops at the root: the root's own file */
	link_at("../../../../../../usr/lib/sysctl.d/50-default.conf", "etc/sysctl.d/40-in.conf");
	got = why("sysctl.vm.dirty_ratio", NULL);
	ck_assert_ptr_null(strstr(got, "77"));
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /etc/sysctl.d/40-in.conf:2 15 "));
	free(got);
	got = why("block.sda.scheduler", NULL);
	ck_assert_ptr_null(strstr(got, "kyber"));
	free(got);
	/* an absolute link is taken below the root, as before */
	put("outside/y.conf", "vm.dirty_ratio = 66\n");
	link_at("/outside/y.conf", "etc/sysctl.d/20-abs.conf");
	got = why("sysctl.vm.dirty_ratio", NULL);
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /etc/sysctl.d/20-abs.conf:1 66 "));
	ck_assert_ptr_null(strstr(got, "77"));
	free(got);
}
END_TEST

/* H8: a link on the way to a file (a directory in the middle of its path) stays inside too */
START_TEST(links_on_the_way_below_another_root_stay_inside_it)
{
	char beside[PATH_MAX], cmd[2 * PATH_MAX], *got;

	/* a tree beside the root, with the files a link followed by the host would reach */
	snprintf(beside, sizeof(beside), "%.*s/beside", (int)(strrchr(f.root, '/') - f.root),
		 f.root);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/sysctl.d' '%s/lib/sysctl.d' && "
		 "echo 'vm.dirty_ratio = 77' >'%s/sysctl.d/x.conf' && "
		 "echo 'vm.dirty_ratio = 78' >'%s/lib/sysctl.d/y.conf' && rm -r '%s/usr/local'",
		 beside, beside, beside, beside, f.root);
	ck_assert_int_eq(system(cmd), 0);
	link_at("../beside", "lib");   /* lib/sysctl.d: relative, out by ".." */
	link_at(beside, "usr/local"); /* usr/local/lib/sysctl.d: absolute, the host's path */
	/* one that leads somewhere inside: taken from the root */
	put("inroot/udev/rules.d/70-in.rules", "KERNEL==\"sd*\", ATTR{queue/scheduler}=\"bfq\"\n");
	link_at("/inroot/udev", "usr/lib/udev");
	got = why("sysctl.vm.dirty_ratio", NULL);
	ck_assert_ptr_null(strstr(got, "77"));
	ck_assert_ptr_null(strstr(got, "78"));
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /usr/lib/sysctl.d/50-default.conf:2 15 "));
	free(got);
	got = why("block.sda.scheduler", NULL);
	ck_assert_ptr_nonnull(strstr(got, "udev /usr/lib/udev/rules.d/70-in.rules:1 bfq "));
	free(got);
}
END_TEST

/* IN_OPEN events of the files in directory @rel below the root, from now on */
static int watch_opens(const char *rel)
{
	char path[PATH_MAX];
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	snprintf(path, sizeof(path), "%s/%s", f.root, rel);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(inotify_add_watch(fd, path, IN_OPEN), 0);
	return fd;
}

/* how often @name was opened since the watch began (or the last call); closes it */
static int opens_of(int fd, const char *name)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;
	int n = 0;

	while ((len = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const void *)p;
			n += ev->len && !strcmp(ev->name, name);
			p += sizeof(*ev) + ev->len;
		}
	close(fd);
	return n;
}

/* verify that names the source of many settings reads each file once (it did per setting) */
START_TEST(verify_of_many_settings_reads_each_file_once)
{
	const char *const s[] = { "sysctl.vm.swappiness=1", "sysctl.vm.dirty_ratio=1",
				  "sysctl.vm.dirty_background_ratio=1", "sysctl.kernel.printk=1",
				  NULL };
	int usr = watch_opens("usr/lib/sysctl.d"), run = watch_opens("run/sysctl.d");
	char *got = verify(4, s);

	ck_assert_ptr_nonnull(strstr(got, "differs sysctl.kernel.printk = 1 (now 4 4 1 7"));
	ck_assert_int_eq(opens_of(usr, "50-default.conf"), 1);
	ck_assert_int_eq(opens_of(run, "70-run.conf"), 1);
	free(got);
}
END_TEST

/* the sources of @keys (perftune_why_keys) as why() gives them, with each one's key first */
static char *why_keys(const char *const *keys, const char *const *cmp)
{
	struct perftune_source_iter *it;
	const struct perftune_source *s;
	struct pt_buf b = { 0 };
	int r = perftune_why_keys(f.ctx, keys, cmp, &it);

	ck_assert_msg(r >= 0, "%s", perftune_ctx_last_error(f.ctx));
	while ((s = perftune_source_iter_next(it)))
		pt_buf_printf(&b, "%s: %s %s %s%s\n", perftune_source_key(s),
			      perftune_source_kind(s), perftune_source_location(s),
			      perftune_source_value(s) ? perftune_source_value(s) : "-",
			      perftune_source_flags(s) & PERFTUNE_SOURCE_DIFFERS ? " differs" : "");
	perftune_source_iter_free(it);
	return pt_buf_steal(&b);
}

START_TEST(why_keys_reads_each_file_once_for_all_keys)
{
	const char *const keys[] = { "sysctl.vm.dirty_ratio", "block.sda.scheduler",
				     "sysctl.net.ipv4.conf.eth0.rp_filter", NULL };
	const char *const cmp[] = { "15", NULL, "1", NULL };
	int usr = watch_opens("usr/lib/sysctl.d"), etc = watch_opens("etc/sysctl.d"),
	    rules = watch_opens("etc/udev/rules.d");
	char *got = why_keys(keys, cmp);

	ck_assert_str_eq(
		got, "sysctl.vm.dirty_ratio: sysctl.d /usr/lib/sysctl.d/50-default.conf:2 15\n"
		     "sysctl.vm.dirty_ratio: tuned /usr/lib/tuned/base/tuned.conf:5 40 differs\n"
		     "sysctl.vm.dirty_ratio: tuned /usr/lib/tuned/child/tuned.conf:4 35 differs\n"
		     "block.sda.scheduler: udev /etc/udev/rules.d/60-sched.rules:2 bfq differs\n"
		     "sysctl.net.ipv4.conf.eth0.rp_filter: sysctl.d "
		     "/etc/sysctl.d/80-net.conf:1 0 differs\n");
	ck_assert_int_eq(opens_of(usr, "50-default.conf"), 1);
	ck_assert_int_eq(opens_of(etc, "80-net.conf"), 1);
	ck_assert_int_eq(opens_of(rules, "60-sched.rules"), 1);
	free(got);
}
END_TEST

START_TEST(why_keys_bad_input)
{
	const char *const bad[] = { "sysctl.vm.swappiness", "sysctl.vm.nosuch", NULL };
	const char *const none[] = { NULL };
	struct perftune_source_iter *it = NULL;

	ck_assert_int_eq(perftune_why_keys(f.ctx, bad, NULL, &it), -ENOENT);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "sysctl.vm.nosuch"));
	ck_assert_ptr_null(it);
	ck_assert_int_eq(perftune_why_keys(f.ctx, NULL, NULL, &it), -EINVAL);
	ck_assert_int_eq(perftune_why_keys(NULL, none, NULL, &it), -EINVAL);
	ck_assert_int_eq(perftune_why_keys(f.ctx, none, NULL, NULL), -EINVAL);
	ck_assert_int_eq(perftune_why_keys(f.ctx, none, NULL, &it), 0); /* no keys, no sources */
	perftune_source_iter_free(it);
}
END_TEST

/* only the kinds of source that can name a key are read; /proc only for a daemon's keys */
START_TEST(a_key_reads_only_the_sources_that_can_name_it)
{
	int sysctl_d, rules, proc;
	char *got;

	put("proc/812/comm", "tuned\n");
	sysctl_d = watch_opens("usr/lib/sysctl.d");
	proc = watch_opens("proc/812");
	got = why("block.sda.read_ahead_kb", NULL); /* no rule, no profile line, no daemon */
	ck_assert_str_eq(got, "");
	free(got);
	ck_assert_int_eq(opens_of(sysctl_d, "50-default.conf"), 0);
	ck_assert_int_eq(opens_of(proc, "comm"), 0);
	rules = watch_opens("etc/udev/rules.d");
	got = why("sysctl.vm.swappiness", NULL);
	ck_assert_ptr_nonnull(strstr(got, "daemon tuned (pid 812)")); /* tuned claims it */
	free(got);
	ck_assert_int_eq(opens_of(rules, "60-sched.rules"), 0);
}
END_TEST

/* the work of @keys counted by the library: pt_why_tunable() of each tunable, one pt_why */
static struct pt_why_work work_of(const char *key, size_t *nsrc, struct pt_srcs *keep)
{
	struct pt_tunable *t = NULL;
	struct pt_why *w = pt_why_new(f.ctx);
	struct pt_srcs v = { 0 };
	struct pt_why_work work;
	int n = pt_resolve_all(f.ctx, key, &t);

	ck_assert_int_ge(n, 1);
	for (int i = 0; i < n; i++)
		ck_assert_int_ge(pt_why_tunable(w, &t[i], NULL, &v), 0);
	work = *pt_why_work(w);
	*nsrc = v.n;
	if (keep) { /* the flags of the first and last source */
		keep->s = calloc(2, sizeof(*keep->s));
		keep->s[0].flags = v.s[0].flags;
		keep->s[1].flags = v.s[v.n - 1].flags;
		keep->n = 2;
	}
	pt_srcs_free(&v);
	pt_why_free(w);
	free(t);
	return work;
}

/* 65,536 lines that each set one key */
static void big_file(const char *rel, const char *line, size_t n)
{
	struct pt_buf b = { 0 };
	char *text;

	for (size_t i = 0; i < n; i++)
		pt_buf_puts(&b, line);
	text = pt_buf_steal(&b);
	ck_assert_ptr_nonnull(text);
	put(rel, text);
	free(text);
}

/* H3: one 1 MiB file of one key: why took 119 s and 614 MB (a scan per source pair) */
START_TEST(a_1_mib_file_of_one_key_takes_linear_work)
{
	const size_t n = 65536;
	struct pt_srcs first_last = { 0 };
	struct pt_why_work w;
	size_t nsrc;
	char *got;

	big_file("etc/sysctl.d/50-big.conf", "vm.swappiness=1\n", n);
	w = work_of("sysctl.vm.swappiness", &nsrc, &first_last);
	/* and the fixture's cmdline word, 2 sysctl.d lines and 1 TuneD line */
	ck_assert_uint_eq(nsrc, n + 4);
	ck_assert_uint_ge(w.lines, n);
	/* each line parsed once, each source found, built and flagged once: a few steps each */
	ck_assert_msg(w.steps <= 4 * n, "%zu steps for %zu lines", w.steps, n);
	free(first_last.s);
	/* the public call, under this test case's time limit (the quadratic scan took minutes) */
	got = why("sysctl.vm.swappiness", NULL);
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /etc/sysctl.d/50-big.conf:1 1 overridden "));
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /etc/sysctl.d/50-big.conf:65536 1 overridden "));
	ck_assert_ptr_nonnull(strstr(got, "sysctl.d /run/sysctl.d/70-run.conf:3 10 wins differs\n"));
	free(got);
}
END_TEST

/* the same with a glob that names every sysctl: matched once per key, not once per line */
START_TEST(a_1_mib_file_of_globs_takes_linear_work)
{
	const size_t n = 65536;
	struct pt_why_work w;
	size_t nsrc;

	big_file("etc/sysctl.d/50-big.conf", "*/*=1\n", n);
	w = work_of("sysctl.vm.dirty_ratio", &nsrc, NULL);
	ck_assert_uint_ge(nsrc, n);
	ck_assert_msg(w.steps <= 4 * n, "%zu steps for %zu lines", w.steps, n);
	/* two keys: twice the sources, twice the work, the file still read once */
	w = work_of("sysctl.vm.dirty_*", &nsrc, NULL);
	ck_assert_uint_ge(nsrc, 2 * n);
	ck_assert_msg(w.steps <= 8 * n, "%zu steps for 2 keys of %zu lines", w.steps, n);
	ck_assert_uint_eq(w.files,
			  3 + 1 + 1); /* 50-default, 70-run, 80-net, 50-big, active_profile */
}
END_TEST

/* H3: 20,000 one-line files (a scan of every name per name listed them) */
START_TEST(twenty_thousand_files_are_read_once_each)
{
	const size_t n = 20000;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct pt_why_work w;
	size_t nsrc;

	snprintf(dir, sizeof(dir), "%s/etc/sysctl.d", f.root);
	for (size_t i = 0; i < n; i++) {
		int fd;
		snprintf(path, sizeof(path), "%s/%05zu.conf", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, "vm.swappiness=1\n", 16), 16);
		close(fd);
	}
	w = work_of("sysctl.vm.swappiness", &nsrc, NULL);
	ck_assert_uint_eq(nsrc, n + 4);
	ck_assert_uint_eq(w.files, n + 4); /* and the fixture's 3 and active_profile */
	ck_assert_msg(w.steps <= 4 * n, "%zu steps for %zu files", w.steps, n);
}
END_TEST

/* H3: a name given 40,000 times in active_profile is one profile (TuneD loads a file once) */
START_TEST(active_profile_names_load_once)
{
	struct pt_buf b = { 0 };
	char *text, *got;

	for (int i = 0; i < 40000; i++)
		pt_buf_puts(&b, i % 2 ? "child " : "base ");
	pt_buf_puts(&b, "../../../etc bad/name\n"); /* not names TuneD loads */
	text = pt_buf_steal(&b);
	put("etc/tuned/active_profile", text);
	free(text);
	got = why("sysctl.vm.dirty_ratio", "35");
	/* base, then child without its include of base (processed already), each once */
	ck_assert_str_eq(got, "sysctl.d /usr/lib/sysctl.d/50-default.conf:2 15 wins differs\n"
			      "tuned /usr/lib/tuned/base/tuned.conf:5 40 overridden differs\n"
			      "tuned /usr/lib/tuned/child/tuned.conf:4 35 overridden\n");
	free(got);
	put("etc/tuned/active_profile", "child base child\n"); /* base: child's include */
	got = why("sysctl.vm.dirty_ratio", "35");
	ck_assert_str_eq(got, "sysctl.d /usr/lib/sysctl.d/50-default.conf:2 15 wins differs\n"
			      "tuned /usr/lib/tuned/base/tuned.conf:5 40 overridden differs\n"
			      "tuned /usr/lib/tuned/child/tuned.conf:4 35 overridden\n");
	free(got);
}
END_TEST

/* the sources perftune_tx_conflicts() gives for @tx, as "key kind location value" lines */
static char *conflicts(struct perftune_tx *tx, unsigned flags, int want)
{
	struct perftune_source_iter *it;
	const struct perftune_source *s;
	struct pt_buf b = { 0 };
	int r = perftune_tx_conflicts(f.ctx, tx, flags, &it);

	ck_assert_msg(r == want, "%d: %s", r, perftune_ctx_last_error(f.ctx));
	while ((s = perftune_source_iter_next(it)))
		pt_buf_printf(&b, "%s %s %s %s\n", perftune_source_key(s), perftune_source_kind(s),
			      perftune_source_location(s), perftune_source_value(s));
	perftune_source_iter_free(it);
	if (!b.len)
		return strdup("");
	return pt_buf_steal(&b);
}

/* swappiness=5: sysctl.d's 10 comes back at boot; dirty_ratio=15 is what sysctl.d sets */
static struct perftune_tx *two_keys(const char *name, unsigned flags)
{
	struct perftune_tx *tx;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, flags, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, "sysctl.vm.dirty_ratio", "15"), 1);
	ck_assert_int_ge(perftune_tx_set(tx, "sysctl.vm.swappiness", "5"), 1);
	return tx;
}

START_TEST(conflicts_name_the_source_that_puts_a_key_back)
{
	struct perftune_tx *tx = two_keys("dry", PERFTUNE_TX_DRY_RUN);
	const char *want = "sysctl.vm.swappiness sysctl.d /run/sysctl.d/70-run.conf:3 10\n";
	char *got;

	ck_assert_int_ge(perftune_tx_commit(tx), 0);
	got = conflicts(tx, PERFTUNE_CONFLICTS_STAGED, 1);
	ck_assert_str_eq(got, want);
	free(got);
	/* a dry run writes nothing: without STAGED nothing is undone */
	got = conflicts(tx, 0, 0);
	ck_assert_str_eq(got, "");
	free(got);
	perftune_tx_unref(tx);

	tx = two_keys("real", 0);
	got = conflicts(tx, 0, 0); /* not committed yet: nothing written */
	ck_assert_str_eq(got, "");
	free(got);
	ck_assert_msg(perftune_tx_commit(tx) >= 0, "%s", perftune_ctx_last_error(f.ctx));
	got = conflicts(tx, 0, 1);
	ck_assert_str_eq(got, want);
	free(got);
	perftune_tx_unref(tx);
}
END_TEST

START_TEST(conflicts_bad_input)
{
	struct perftune_tx *tx = two_keys("bad", PERFTUNE_TX_DRY_RUN);
	struct perftune_source_iter *it = (void *)1;

	ck_assert_int_eq(perftune_tx_conflicts(NULL, tx, 0, &it), -EINVAL);
	ck_assert_ptr_null(it);
	ck_assert_int_eq(perftune_tx_conflicts(f.ctx, NULL, 0, &it), -EINVAL);
	ck_assert_int_eq(perftune_tx_conflicts(f.ctx, tx, 0, NULL), -EINVAL);
	ck_assert_int_eq(perftune_tx_conflicts(f.ctx, tx, 1u << 5, &it), -EINVAL);
	ck_assert_ptr_null(it);
	perftune_tx_unref(tx);
}
END_TEST

static Suite *why_suite(void)
{
	Suite *s = suite_create("why");
	TCase *tc = tcase_create("why");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sysctl_d_in_effect_order_with_masking);
	tcase_add_test(tc, sysctl_conf_is_read_last_and_once);
	tcase_add_test(tc, sysctl_d_globs_and_slash_names);
	tcase_add_test(tc, unreadable_and_malformed_files_are_named_not_fatal);
	tcase_add_test(tc, udev_rules_matched_against_the_device);
	tcase_add_test(tc, udev_rules_of_a_network_device);
	tcase_add_test(tc, tuned_profile_includes_and_cmdline);
	tcase_add_test(tc, daemons_from_proc);
	tcase_add_test(tc, our_transactions_are_sources);
	tcase_add_test(tc, bad_keys);
	tcase_add_test(tc, conflicts_name_the_source_that_puts_a_key_back);
	tcase_add_test(tc, conflicts_bad_input);
	suite_add_tcase(s, tc);
	tc = tcase_create("scan");
	tcase_add_checked_fixture(tc, setup, teardown);
	/* linear work takes well under a second here; the quadratic scans took minutes */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, lines_end_as_systemd_reads_them, 0, ARRAY_SIZE(line_cases));
	tcase_add_test(tc, a_nul_byte_ends_a_line_and_hides_nothing);
	tcase_add_test(tc, links_below_another_root_stay_inside_it);
	tcase_add_test(tc, links_on_the_way_below_another_root_stay_inside_it);
	tcase_add_test(tc, verify_of_many_settings_reads_each_file_once);
	tcase_add_test(tc, why_keys_reads_each_file_once_for_all_keys);
	tcase_add_test(tc, why_keys_bad_input);
	tcase_add_test(tc, a_key_reads_only_the_sources_that_can_name_it);
	tcase_add_test(tc, a_1_mib_file_of_one_key_takes_linear_work);
	tcase_add_test(tc, a_1_mib_file_of_globs_takes_linear_work);
	tcase_add_test(tc, twenty_thousand_files_are_read_once_each);
	tcase_add_test(tc, active_profile_names_load_once);
	suite_add_tcase(s, tc);
	tc = tcase_create("verify");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, values_compare_as_the_kernel_shows_them, 0, ARRAY_SIZE(values));
	tcase_add_test(tc, verify_statuses_of_settings);
	tcase_add_test(tc, verify_bad_input);
	tcase_add_test(tc, verify_transaction_changed_behind_our_back_names_the_source);
	tcase_add_test(tc, verify_partial_huge_pages_are_clamped);
	tcase_add_test(tc, verify_profile_statuses);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { why_suite };
	return harness_main(argc, argv, suites, 1);
}
