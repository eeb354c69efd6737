// SPDX-License-Identifier: LGPL-2.1-or-later
/* Keys and selectors: a table of bad input, each with its own error; resolution of good ones. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

static char long_key[PERFTUNE_KEY_MAX + 16];
static char long_sysctl[PERFTUNE_KEY_MAX - 8];

static const struct {
	const char *key;
	int err;
	const char *msg; /* a substring of the message */
} bad[] = {
	{ "", -EINVAL, "empty key" },
	{ "block", -EINVAL, "expected block.<device>.<attribute>" },
	{ "block.sda", -EINVAL, "expected block.<device>.<attribute>" },
	{ "block..scheduler", -EINVAL, "empty component" },
	{ ".block.sda.scheduler", -EINVAL, "empty component" },
	{ "block.sda.scheduler.", -EINVAL, "ends with '.'" },
	{ "block.sda.a.b.c", -EINVAL, "expected block.<device>" },
	{ "block.nosuch.scheduler", -ENODEV, "no such block device" },
	{ "block.sd?z.scheduler", -ENODEV, "no block device matches" },
	{ "block.sda.nosuch", -ENOENT, "no queue attribute 'nosuch'" },
	{ "block.sda.queue", -ENOENT, "no queue attribute" },
	{ "block.sda.iosched", -ENOENT, "no queue attribute 'iosched'" },
	{ "block.sda.iosched.nosuch", -ENOENT, "not a parameter of sda's scheduler" },
	{ "block.nvme0n1.iosched.read_expire", -ENOENT, "scheduler 'none'" },
	{ "block.sda.sched*", -EINVAL, "no brackets or globs" },
	{ "block.evil.scheduler", -ENODEV, "no such block device" },
	{ "block.../scheduler", -EINVAL, "empty component" },
	{ "block[..].scheduler", -EINVAL, "not a device name" },
	{ "block[sda/../../etc].scheduler", -EINVAL, "not a device name" },
	{ "block[/dev/nosuch].scheduler", -ENODEV, "not a block device" },
	{ "block[/tmp].scheduler", -ENODEV, "filesystem without a block device" },
	{ "block[].scheduler", -EINVAL, "empty [] selector" },
	{ "block[/dev/sda.scheduler", -EINVAL, "'[' without ']'" },
	{ "block[/dev/sda]scheduler", -EINVAL, "expected '.' after ']'" },
	{ "[block].sda.scheduler", -EINVAL, "must start with a family" },
	{ "nosuch.thing", -EINVAL, "unknown family 'nosuch'" },
	{ "Block.sda.scheduler", -EINVAL, "unknown family" },
	{ "block.sda.sched uler", -EINVAL, "bad character ' '" },
	{ "block.sda.sched\nuler", -EINVAL, "bad character" },
	{ "block.sda/x.scheduler", -EINVAL, "bad character '/'" },
	{ long_key, -ENAMETOOLONG, "longer than" },
	{ "sysctl", -EINVAL, "sysctl needs a name" },
	{ "sysctl.vm.nosuch", -ENOENT, "no such sysctl" },
	{ "sysctl.vm.[..].passwd", -EINVAL, "not a sysctl name component" },
	{ "sysctl.vm.[a/b]", -EINVAL, "not a sysctl name component" },
	{ long_sysctl, -ENOENT, "no such sysctl" },
	{ "sysfs", -EINVAL, "sysfs[/sys/path/to/attribute]" },
	{ "sysfs.block", -EINVAL, "sysfs[/sys/path/to/attribute]" },
	{ "sysfs[/etc/passwd]", -EPERM, "must be under /sys" },
	{ "sysfs[/sys/../etc/passwd]", -EPERM, "must not contain '..'" },
	{ "sysfs[/sys/block/./sda]", -EPERM, "must not contain" },
	{ "sysfs[/sys//block]", -EPERM, "must not contain" },
	{ "sysfs[/sys/kernel/mm/escape]", -EPERM, "outside /sys" },
	{ "sysfs[/sys/block/evil/passwd]", -EPERM, "outside /sys" },
	{ "sysfs[/sys/kernel/mm/transparent_hugepage]", -EINVAL, "not an attribute file" },
	{ "sysfs[/sys/nosuch]", -ENOENT, "No such file" },
	{ "thp", -EINVAL, "expected thp.<attribute>" },
	{ "thp.nosuch", -ENOENT, "no such THP attribute" },
	{ "thp.other.defrag", -EINVAL, "thp.khugepaged.<attribute>" },
	{ "hugepages.3M.nr", -ENOENT, "no 3M huge pages" },
	{ "hugepages.2X.nr", -EINVAL, "not a page size" },
	{ "hugepages.2M.free", -ENOENT, "not nr or overcommit" },
	{ "hugepages.2M.node7.nr", -ENODEV, "no NUMA node 7" },
	{ "hugepages.2M.nodeX.nr", -EINVAL, "not node<N>" },
	{ "hugepages.2M.cpu0.nr", -EINVAL, "per-node key" },
	{ "cpu", -EINVAL, "expected cpu.<cpus>" },
	{ "cpu.all", -EINVAL, "expected cpu.<cpus>" },
	{ "cpu.all.turbo", -EINVAL, "expected cpu.<cpus>" },
	{ "cpu.9.governor", -ENODEV, "no CPU 9" },
	{ "cpu.3-1.governor", -EINVAL, "not a CPU list" },
	{ "cpu.0-.governor", -EINVAL, "not a CPU list" },
	{ "cpu.0,,1.governor", -EINVAL, "not a CPU list" },
	{ "cpu.x.governor", -EINVAL, "not a CPU list" },
	{ "cpu.99999.governor", -EINVAL, "not a CPU list" },
	{ "cpu.2.idle.C6.disable", -ENOENT, "CPU 2 has no idle state 'C6'" },
	{ "cpu.all.idle.C9.disable", -ENOENT, "no CPU has an idle state 'C9'" },
	{ "cpu.3.idle.haltpoll idle.disable", -EINVAL, "bad character ' '" },
	{ "cpu.3.idle[C1 E].disable", -ENOTUNIQ, "more than one idle state named 'C1 E'" },
	{ "cpu.3.idle.C1_E.disable", -ENOENT, "CPU 3 has no idle state 'C1_E'" },
	{ "cpu.3.idle.state7.disable", -ENOENT, "CPU 3 has no idle state 'state7'" },
	{ "pmqos.other", -ENOENT, "pmqos.cpu_dma_latency_us" },
	{ "numa.nodes", -ENOENT, "numa.balancing" },
	{ "proc.abc.numa_nodes", -EINVAL, "not a process id" },
	{ "proc.0.numa_nodes", -EINVAL, "not a process id" },
	{ "proc.1.nice", -EINVAL, "proc.<pid>.numa_nodes or proc.<pid>.cpus" },
	{ "proc.0.cpus", -EINVAL, "not a process id" },
	{ "proc.user[(].cpus", -EINVAL, "not an extended regular expression" },
	/* issue 33 H6: compiled within bounds, not in gigabytes and seconds */
	{ "proc[((a{1,100}){1,100}){1,100}].cpus", -EINVAL, "does not compile" },
	{ "proc[(.*){1,32000}].cpus", -EINVAL, "does not compile" },
	{ "proc.all[((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a)))))))))))))"
	  ")))))))))))))))))))))))))))))))))))))))))))))))))))].cpus",
	  -EINVAL, "parentheses are too deeply nested" },
	/* escapes in brackets (shared/keyname.c): '\' takes the next character */
	{ "sysctl.net.[x\\]", -EINVAL, "'[' without ']'" },
	{ "sysctl.net.[\\x0g]", -EINVAL, "bad escape in [] selector" },
	{ "sysctl.net.[\\x00]", -EINVAL, "bad escape in [] selector" },
	{ "sysctl.net.[a[b]", -EINVAL, "bad character in [] selector" },
	{ "sysctl.net.ipv4.conf.[x*].rp_filter", -ENOENT, "no such sysctl" },
	{ "sysctl.net.ipv4.conf.[eth\\x2a].rp_filter", -ENOENT, "no such sysctl" },
	{ "block[sd*].scheduler", -ENODEV, "no such block device" },
	{ "workqueue[writ*].cpus", -ENODEV, "no workqueue 'writ*'" },
	{ "hugepages.2M.[node*].nr", -EINVAL, "not node<N>" },
	{ "proc.some.cpus", -EINVAL, "all, user or kernel" },
	{ "selinux.enforce", -EROFS, "only selinux.avc.cache_threshold" },
	{ "selinux.avc.cache_stats", -EROFS, "only selinux.avc.cache_threshold" },
};

START_TEST(bad_key_has_specific_error)
{
	char *v = NULL;
	int r = perftune_get(f.ctx, bad[_i].key, &v);
	const char *msg = perftune_ctx_last_error(f.ctx);

	ck_assert_msg(r == bad[_i].err, "%s: expected %d, got %d (%s)", bad[_i].key, bad[_i].err, r,
		      msg);
	ck_assert_msg(strstr(msg, bad[_i].msg), "%s: message '%s' lacks '%s'", bad[_i].key, msg,
		      bad[_i].msg);
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(bad_key_names_the_key)
{
	char *v = NULL;
	const char *k = bad[_i].key;

	if (!*k || strchr(k, '\n') || strlen(k) > 60) /* shown sanitized or shortened */
		return;
	perftune_get(f.ctx, k, &v);
	ck_assert_msg(strncmp(perftune_ctx_last_error(f.ctx), k, strlen(k)) == 0,
		      "message '%s' does not start with the key '%s'", perftune_ctx_last_error(f.ctx),
		      k);
}
END_TEST

START_TEST(table_has_forty_entries)
{
	ck_assert_int_ge((int)ARRAY_SIZE(bad), 40);
}
END_TEST

static const struct {
	const char *key;
	const char *want; /* concrete keys, space separated, in order */
} good[] = {
	{ "block.sda.scheduler", "block.sda.scheduler" },
	{ "block.sda1.scheduler", "block.sda.scheduler" },
	{ "block[/dev/sda2].scheduler", "block.sda.scheduler" },
	{ "block[/dev/nvme0n1p1].read_ahead_kb", "block.nvme0n1.read_ahead_kb" },
	{ "block[/var/lib/mysql].scheduler", "block.sda.scheduler" },
	{ "block[/var/lib/mysql/ibdata1].nr_requests", "block.sda.nr_requests" },
	{ "block[/srv/nvme].scheduler", "block.nvme0n1.scheduler" },
	{ "block[/dev/mapper/lin].scheduler", "block.sdb.scheduler block.sdc.scheduler" },
	{ "block[/data].iosched.read_expire", "block.sdb.iosched.read_expire block.sdc.iosched.read_expire" },
	{ "block.dm-0.nr_requests", "block.sdb.nr_requests block.sdc.nr_requests" },
	{ "block[/data].read_ahead_kb", "block.dm-0.read_ahead_kb" },
	{ "block[/dev/mapper/mpatha].scheduler", "block.dm-1.scheduler" },
	{ "block.sd*.scheduler", "block.sda.scheduler block.sdb.scheduler block.sdc.scheduler" },
	{ "block[sdb].rotational", "block.sdb.rotational" },
	{ "hugepages.nr", "hugepages.nr" },
	{ "hugepages.2048kB.nr", "hugepages.2M.nr" },
	{ "hugepages.1G.overcommit", "hugepages.1G.overcommit" },
	{ "hugepages.2M.node*.nr", "hugepages.2M.node0.nr hugepages.2M.node1.nr" },
	{ "cpu.all.governor", "cpu.0.governor cpu.1.governor cpu.2.governor cpu.3.governor" },
	{ "cpu.1-2.epp", "cpu.1.epp cpu.2.epp" },
	{ "cpu.0,3.max_khz", "cpu.0.max_khz cpu.3.max_khz" },
	{ "cpu.all.idle.C6.disable", "cpu.0.idle.C6.disable cpu.1.idle.C6.disable" },
	{ "cpu.2.idle.state2.disable", "cpu.2.idle.C3.disable" },
	/* kernel names outside the key alphabet: shared/keyname.c, perftune(8) KEYS */
	{ "cpu.3.idle.haltpoll_idle.disable", "cpu.3.idle.haltpoll_idle.disable" },
	{ "cpu.3.idle[haltpoll idle].disable", "cpu.3.idle.haltpoll_idle.disable" },
	{ "cpu.3.idle.[haltpoll idle].disable", "cpu.3.idle.haltpoll_idle.disable" },
	{ "cpu.all.idle[haltpoll idle].disable", "cpu.3.idle.haltpoll_idle.disable" },
	{ "cpu.3.idle[C1.E].disable", "cpu.3.idle.state4.disable" },
	{ "cpu.3.idle.state6.disable", "cpu.3.idle.state6.disable" },
	{ "sysctl.net.ipv4.conf.[wg#1].rp_filter", "sysctl.net.ipv4.conf.[wg#1].rp_filter" },
	{ "cpu.boost", "cpu.boost" },
	{ "sysctl.net.ipv4.conf.[eth0.100].rp_filter", "sysctl.net.ipv4.conf.[eth0.100].rp_filter" },
	{ "sysctl.net.ipv4.conf.eth*.rp_filter", "sysctl.net.ipv4.conf.[eth0.100].rp_filter sysctl.net.ipv4.conf.eth0.rp_filter" },
	{ "sysfs[/sys/block/sda/queue/scheduler]", "sysfs[/sys/block/sda/queue/scheduler]" },
	{ "selinux.avc.cache_threshold", "selinux.avc.cache_threshold" },
	{ "thp.khugepaged.defrag", "thp.khugepaged.defrag" },
	{ "numa.balancing", "numa.balancing" },
	{ "pmqos.cpu_dma_latency_us", "pmqos.cpu_dma_latency_us" },
};

static int cmp_key(const void *a, const void *b)
{
	return strverscmp(((const struct pt_tunable *)a)->key, ((const struct pt_tunable *)b)->key);
}

START_TEST(good_key_resolves)
{
	struct pt_tunable *t = NULL;
	char got[2048] = "";
	int n = pt_resolve_all(f.ctx, good[_i].key, &t);

	ck_assert_msg(n > 0, "%s: %s", good[_i].key, perftune_ctx_last_error(f.ctx));
	qsort(t, (size_t)n, sizeof(*t), cmp_key);
	for (int i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "", t[i].key);
	ck_assert_str_eq(got, good[_i].want);
	free(t);
}
END_TEST

START_TEST(bio_based_resolution_says_so)
{
	struct pt_tunable *t = NULL;
	int n = pt_resolve_all(f.ctx, "block[/dev/mapper/lin].scheduler", &t);

	ck_assert_int_eq(n, 2);
	ck_assert_ptr_nonnull(strstr(t[0].note, "via dm-0 (bio-based"));
	free(t);
}
END_TEST

START_TEST(key_parser_splits_brackets)
{
	struct pt_keyparts kp;

	ck_assert_int_eq(pt_key_parse(f.ctx, "block[/dev/a.b].iosched.x", &kp), 0);
	ck_assert_int_eq(kp.n, 4);
	ck_assert_str_eq(kp.c[0].s, "block");
	ck_assert_str_eq(kp.c[1].s, "/dev/a.b");
	ck_assert(kp.c[1].bracketed);
	ck_assert_str_eq(kp.c[3].s, "x");
}
END_TEST

/* a single-key family matches its key by components, brackets or not, and nothing else */
START_TEST(key_is_compares_components)
{
	static const struct {
		const char *key, *want;
		bool same;
	} cases[] = {
		{ "numa.balancing", "numa.balancing", true },
		{ "numa[balancing]", "numa.balancing", true },
		{ "numa.balancing.x", "numa.balancing", false },
		{ "numa.balanc", "numa.balancing", false },
		{ "numa", "numa.balancing", false },
		{ "numa.balancingx", "numa.balancing", false },
		{ "pmqos.cpu_dma_latency_us", "pmqos.cpu_dma_latency_us", true },
	};
	struct pt_keyparts kp;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		ck_assert_int_eq(pt_key_parse(f.ctx, cases[i].key, &kp), 0);
		ck_assert_msg(pt_key_is(&kp, cases[i].want) == cases[i].same, "%s vs %s",
			      cases[i].key, cases[i].want);
	}
}
END_TEST

static const char *resolved(const char *key)
{
	static char got[2048];
	struct pt_tunable *t = NULL;
	int n = pt_resolve_all(f.ctx, key, &t);

	ck_assert_msg(n > 0, "%s: %s", key, perftune_ctx_last_error(f.ctx));
	qsort(t, (size_t)n, sizeof(*t), cmp_key);
	got[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "", t[i].key);
	free(t);
	return got;
}

/* cpu.all is the present CPUs (not a probe of 8192 directories); a bad list: every cpuN */
START_TEST(cpu_all_is_the_present_cpus)
{
	fx_write(&f, "sys/devices/system/cpu/present", "1-2");
	ck_assert_str_eq(resolved("cpu.all.governor"), "cpu.1.governor cpu.2.governor");
	fx_write(&f, "sys/devices/system/cpu/present", "garbage");
	ck_assert_str_eq(resolved("cpu.*.governor"),
			 "cpu.0.governor cpu.1.governor cpu.2.governor cpu.3.governor");
}
END_TEST

/* a component in brackets: the name it spells, never a glob; plain: a glob with '*' '?' */
START_TEST(bracket_escapes_spell_names)
{
	static const struct {
		const char *key, *name;
		bool glob;
	} cases[] = {
		{ "sysctl.net.[x*]", "x*", false },
		{ "sysctl.net.x*", "x*", true },
		{ "sysctl.net.[v=1]", "v=1", false },
		{ "sysctl.net.[v\\=1]", "v=1", false },
		{ "sysctl.net.[a\\]b]", "a]b", false },
		{ "sysctl.net.[a\\[b]", "a[b", false },
		{ "sysctl.net.[a\\\\b]", "a\\b", false },
		{ "sysctl.net.[\\x01x]", "\x01x", false },
		{ "sysctl.net.[caf\\xc3\\xA9]", "caf\xc3\xa9", false },
		{ "sysctl.net.[-x]", "-x", false },
	};
	struct pt_keyparts kp;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		ck_assert_msg(pt_key_parse(f.ctx, cases[i].key, &kp) == 0, "%s: %s", cases[i].key,
			      perftune_ctx_last_error(f.ctx));
		ck_assert_int_eq(kp.n, 3);
		ck_assert_str_eq(kp.c[2].name, cases[i].name);
		ck_assert_msg(kp.c[2].glob == cases[i].glob, "%s", cases[i].key);
	}
}
END_TEST

/* every byte a kernel name may hold: named by pt_key_comp, parsed back to the same name */
START_TEST(any_name_round_trips_through_its_key)
{
	struct pt_keyparts kp;

	for (int c = 1; c < 256; c++) {
		char name[4] = { 'a', (char)c, 'b', 0 }, comp[32], key[64];
		ck_assert_int_ge(pt_key_comp(comp, sizeof(comp), name, PT_KEYFORM_BRACKET), 0);
		snprintf(key, sizeof(key), "sysctl.net.%s", comp);
		ck_assert_msg(pt_key_parse(f.ctx, key, &kp) == 0, "byte %d: %s: %s", c, key,
			      perftune_ctx_last_error(f.ctx));
		ck_assert_msg(!strcmp(kp.c[2].name, name) && !kp.c[2].glob, "byte %d: %s", c, key);
	}
	/* a name only a plain component could glob: bracketed by list */
	char comp[32];
	ck_assert_int_eq(pt_key_comp(comp, sizeof(comp), "x*", PT_KEYFORM_BRACKET), 1);
	ck_assert_str_eq(comp, "[x*]");
	ck_assert_int_eq(pt_key_comp(comp, sizeof(comp), "v=1", PT_KEYFORM_BRACKET), 1);
	ck_assert_str_eq(comp, "[v\\=1]");
}
END_TEST

/* KEY=VALUE splits at the '=' outside the key's brackets (verify's settings, the CLI's) */
START_TEST(setting_splits_outside_brackets)
{
	static const struct {
		const char *kv, *key; /* key NULL: not KEY=VALUE */
	} cases[] = {
		{ "sysctl.vm.swappiness=10", "sysctl.vm.swappiness" },
		{ "net[driver=ixgbe].txqueuelen=700", "net[driver=ixgbe].txqueuelen" },
		{ "net[v\\=1].txqueuelen=7=8", "net[v\\=1].txqueuelen" },
		{ "net[a\\]=b].txqueuelen=7", "net[a\\]=b].txqueuelen" },
		/* a bad bracket is the key's parser's to name, after the split */
		{ "sysctl.net.[a[b].x=1", "sysctl.net.[a[b].x" },
		{ "sysctl.net.[\\x0g]=1", "sysctl.net.[\\x0g]" },
		{ "net[v=1.txqueuelen", NULL },
		{ "net[v\\]=1", NULL },
		{ "sysctl.vm.swappiness", NULL },
		{ "=10", NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *value = "x";
		char *key = (char *)"x", want[300];
		int r = perftune_setting_split(f.ctx, cases[i].kv, &key, &value);

		if (!cases[i].key) {
			ck_assert_msg(r == -EINVAL && !key && !value, "%s: %d", cases[i].kv, r);
			snprintf(want, sizeof(want), "'%s' is not KEY=VALUE", cases[i].kv);
			ck_assert_str_eq(perftune_ctx_last_error(f.ctx), want);
			continue;
		}
		ck_assert_msg(r == 0, "%s: %d %s", cases[i].kv, r, perftune_ctx_last_error(f.ctx));
		ck_assert_str_eq(key, cases[i].key);
		ck_assert_ptr_eq(value, cases[i].kv + strlen(cases[i].key) + 1);
		free(key);
	}
	/* no context for the message: refused, not a crash */
	ck_assert_int_eq(perftune_setting_split(NULL, "a", &(char *){ NULL }, &(const char *){ NULL }),
			 -EINVAL);
	ck_assert_int_eq(perftune_setting_split(f.ctx, NULL, &(char *){ NULL }, &(const char *){ NULL }),
			 -EINVAL);
}
END_TEST

/* the key of a split setting is parsed as any key: its bad bracket is named */
START_TEST(setting_split_key_fault_named_by_parser)
{
	const char *value;
	char *key, *v = NULL;

	ck_assert_int_eq(perftune_setting_split(f.ctx, "sysctl.net.[a[b].x=1", &key, &value), 0);
	ck_assert_int_eq(perftune_get(f.ctx, key, &v), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "bad character in [] selector"));
	free(key);
}
END_TEST

static void mkdir_at(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", f.root, rel);
	ck_assert_msg(mkdir(p, 0755) == 0, "mkdir %s: %s", p, strerror(errno));
}

/* a new file of the tree (fx_write writes those there are) */
static void put_at(const char *rel, const char *value)
{
	char p[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f.root, rel);
	fp = fopen(p, "w");
	ck_assert_msg(fp, "%s: %s", p, strerror(errno));
	fprintf(fp, "%s\n", value);
	fclose(fp);
}

static const char *restore_count(const char *name)
{
	static char msg[64];
	int r = perftune_restore(f.ctx, name, 0);

	snprintf(msg, sizeof(msg), "%d %d", r, fx_journals(&f));
	return msg;
}

/*
 * Issue 33 H5: a directory named x* beside xa.  The listed key of x* names x* alone:
 * set changes it and not xa, restore gives it back and its journal goes; the glob
 * x* still means both.
 */
START_TEST(glob_characters_in_a_sysctl_name_are_literal)
{
	static const char *const k = "sysctl.net.ipv4.conf.[x*].rp_filter";
	struct perftune_tunable_iter *it;
	const struct perftune_tunable *e;
	int listed = 0;

	mkdir_at("proc/sys/net/ipv4/conf/x*");
	mkdir_at("proc/sys/net/ipv4/conf/xa");
	put_at("proc/sys/net/ipv4/conf/x*/rp_filter", "1");
	put_at("proc/sys/net/ipv4/conf/xa/rp_filter", "1");
	ck_assert_str_eq(resolved(k), k);
	ck_assert_str_eq(resolved("sysctl.net.ipv4.conf.x*.rp_filter"),
			 "sysctl.net.ipv4.conf.[x*].rp_filter sysctl.net.ipv4.conf.xa.rp_filter");
	ck_assert_int_eq(perftune_list(f.ctx, "sysctl.net.ipv4.conf.[x*].", &it), 0);
	while ((e = perftune_tunable_iter_next(it))) {
		struct pt_tunable t;
		ck_assert_int_eq(pt_resolve_one(f.ctx, perftune_tunable_key(e), &t), 0);
		ck_assert_str_eq(t.key, perftune_tunable_key(e));
		listed++;
	}
	perftune_tunable_iter_free(it);
	ck_assert_int_eq(listed, 1);
	ck_assert_int_eq(fx_set_one(&f, "glob", k, "2"), 1);
	ck_assert_str_eq(fx_read(&f, "proc/sys/net/ipv4/conf/x*/rp_filter"), "2");
	ck_assert_str_eq(fx_read(&f, "proc/sys/net/ipv4/conf/xa/rp_filter"), "1");
	ck_assert_str_eq(restore_count("glob"), "1 0");
	ck_assert_str_eq(fx_read(&f, "proc/sys/net/ipv4/conf/x*/rp_filter"), "1");
}
END_TEST

/* the same for a disk named v* beside va, and a workqueue named w* beside wa */
START_TEST(glob_characters_in_device_names_are_literal)
{
	static const char *const sched = "none [mq-deadline] kyber";

	mkdir_at("sys/block/v*");
	mkdir_at("sys/block/v*/queue");
	mkdir_at("sys/block/va");
	mkdir_at("sys/block/va/queue");
	put_at("sys/block/v*/queue/scheduler", sched);
	put_at("sys/block/va/queue/scheduler", sched);
	ck_assert_str_eq(resolved("block[v*].scheduler"), "block[v*].scheduler");
	ck_assert_str_eq(resolved("block.v*.scheduler"), "block.va.scheduler block[v*].scheduler");
	ck_assert_int_eq(fx_set_one(&f, "disk", "block[v*].scheduler", "none"), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/v*/queue/scheduler"), "[none] mq-deadline kyber");
	ck_assert_str_eq(fx_read(&f, "sys/block/va/queue/scheduler"), sched);
	ck_assert_str_eq(restore_count("disk"), "1 0");
	ck_assert_str_eq(fx_read(&f, "sys/block/v*/queue/scheduler"), sched);

	mkdir_at("sys/devices/virtual/workqueue/w*");
	mkdir_at("sys/devices/virtual/workqueue/wa");
	put_at("sys/devices/virtual/workqueue/w*/cpumask", "f");
	put_at("sys/devices/virtual/workqueue/wa/cpumask", "f");
	ck_assert_str_eq(resolved("workqueue.[w*].cpus"), "workqueue.[w*].cpus");
	ck_assert_str_eq(resolved("workqueue.w*.cpus"), "workqueue.[w*].cpus workqueue.wa.cpus workqueue.writeback.cpus");
}
END_TEST

/* exports name that one device or sysctl: udev and sysctl.d take "*?[" as globs */
START_TEST(exports_name_the_object_not_a_pattern)
{
	char *t = NULL;

	mkdir_at("proc/sys/net/ipv4/conf/x*");
	put_at("proc/sys/net/ipv4/conf/x*/rp_filter", "1");
	mkdir_at("sys/block/v*");
	mkdir_at("sys/block/v*/queue");
	put_at("sys/block/v*/queue/scheduler", "none [mq-deadline]");
	mkdir_at("sys/block/v\"q");
	mkdir_at("sys/block/v\"q/queue");
	put_at("sys/block/v\"q/queue/read_ahead_kb", "128");
	ck_assert_int_eq(fx_set_one(&f, "x", "sysctl.net.ipv4.conf.[x*].rp_filter", "2"), 1);
	ck_assert_int_eq(fx_set_one(&f, "x", "block[v*].scheduler", "none"), 1);
	ck_assert_int_eq(fx_set_one(&f, "x", "block[v\"q].read_ahead_kb", "256"), 1);
	ck_assert_int_eq(perftune_export_transaction(f.ctx, "x", PERFTUNE_EXPORT_UDEV, &t), 1);
	ck_assert_msg(strstr(t, "KERNEL==\"v[*]\", TEST==\"queue/scheduler\", "
				"ATTR{queue/scheduler}=\"none\"\n"),
		      "%s", t);
	ck_assert_msg(!strstr(t, "KERNEL==\"v*\"") && !strstr(t, "KERNEL==\"v\"q"), "%s", t);
	ck_assert_msg(strstr(t, "# not written by a rule: block[v\"q].read_ahead_kb = 256: its name "
				"holds a character a udev rule cannot match exactly"),
		      "%s", t);
	free(t);
	ck_assert_int_eq(perftune_export_transaction(f.ctx, "x", PERFTUNE_EXPORT_SYSCTL, &t), 1);
	ck_assert_msg(strstr(t, "\nnet.ipv4.conf.x[*].rp_filter = 2\n"), "%s", t);
	free(t);
	ck_assert_int_eq(perftune_export_transaction(f.ctx, "x", PERFTUNE_EXPORT_TUNED, &t), 3);
	ck_assert_msg(strstr(t, "type=disk\ndevices=v[*]\nelevator=none\n"), "%s", t);
	ck_assert_msg(strstr(t, "\n[disk_2]\ntype=disk\ndevices=v\"q\nreadahead=256\n"), "%s", t);
	free(t);
	ck_assert_int_eq(perftune_restore(f.ctx, "x", 0), 3);
}
END_TEST

static Suite *key_suite(void)
{
	Suite *s = suite_create("key");
	TCase *tc = tcase_create("bad");

	memset(long_key, 'a', sizeof(long_key) - 1);
	memcpy(long_key, "block.", 6);
	memset(long_sysctl, 'b', sizeof(long_sysctl) - 1);
	memcpy(long_sysctl, "sysctl.", 7);
	tcase_add_unchecked_fixture(tc, setup, teardown); /* read-only: one tree */
	tcase_add_test(tc, table_has_forty_entries);
	tcase_add_loop_test(tc, bad_key_has_specific_error, 0, (int)ARRAY_SIZE(bad));
	tcase_add_loop_test(tc, bad_key_names_the_key, 0, (int)ARRAY_SIZE(bad));
	suite_add_tcase(s, tc);
	tc = tcase_create("good");
	tcase_add_unchecked_fixture(tc, setup, teardown); /* read-only: one tree */
	tcase_add_loop_test(tc, good_key_resolves, 0, (int)ARRAY_SIZE(good));
	tcase_add_test(tc, bio_based_resolution_says_so);
	tcase_add_test(tc, key_parser_splits_brackets);
	tcase_add_test(tc, key_is_compares_components);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_checked_fixture(tc, setup, teardown); /* writes the tree */
	tcase_add_test(tc, bracket_escapes_spell_names);
	tcase_add_test(tc, any_name_round_trips_through_its_key);
	tcase_add_test(tc, setting_splits_outside_brackets);
	tcase_add_test(tc, setting_split_key_fault_named_by_parser);
	tcase_add_test(tc, glob_characters_in_a_sysctl_name_are_literal);
	tcase_add_test(tc, glob_characters_in_device_names_are_literal);
	tcase_add_test(tc, exports_name_the_object_not_a_pattern);
	suite_add_tcase(s, tc);
	tc = tcase_create("cpus");
	tcase_add_checked_fixture(tc, setup, teardown); /* writes the tree */
	tcase_add_test(tc, cpu_all_is_the_present_cpus);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { key_suite };
	return harness_main(argc, argv, suites, 1);
}
