// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared/dlopen.c: the libraries only some keys need, opened on first use.
 * Each one is made to answer as if it were not installed (pt_dl_hide(), in a
 * test process of its own): its keys fail with one line naming the key and
 * the SONAME, -EOPNOTSUPP, nothing written, while every other family works.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"
#include "shared/dlopen.h"

static struct fx f;
static void setup(void) { fx_setup(&f); }
static void teardown(void) { fx_teardown(&f); }

/* the directories of @rel below the fake root, and @rel itself if @dir */
static void mkdirs(const char *rel, bool dir, char *p, size_t size)
{
	snprintf(p, size, "%s/%s", f.root, rel);
	for (char *s = strchr(p + strlen(f.root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	ck_assert(!dir || mkdir(p, 0755) == 0 || errno == EEXIST);
}

/* a file below the fake root, its directories made */
static void put(const char *rel, const char *value)
{
	char p[PATH_MAX];
	FILE *fp;

	mkdirs(rel, false, p, sizeof(p));
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "%s\n", value);
	fclose(fp);
}

/* @r is -EOPNOTSUPP, the message exactly "<key>: <soname> is not installed (needed for <what>)" */
static void assert_missing(int r, enum pt_dl_lib lib, const char *key, const char *what)
{
	char want[512];

	snprintf(want, sizeof(want), "%s: %s is not installed (needed for %s)", key,
		 pt_dl_soname(lib), what);
	ck_assert_msg(r == -EOPNOTSUPP, "%s: expected -EOPNOTSUPP, got %d (%s)", key, r,
		      perftune_ctx_last_error(f.ctx));
	ck_assert_str_eq(perftune_ctx_last_error(f.ctx), want);
}

/* the families that need none of the libraries: sysctl read and a commit of it */
static void others_work(void)
{
	fx_get_is(&f, "sysctl.vm.swappiness", "60");
	fx_get_is(&f, "thp.enabled", "madvise");
	ck_assert_int_ge(fx_set_one(&f, "other", "sysctl.vm.swappiness", "10"), 0);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "10");
}

/* what pt_dl_load() answers here: every library is a build dependency (libcpupower optional) */
static int expected(enum pt_dl_lib lib)
{
	if (lib == PT_DL_CPUPOWER && !HAVE_CPUPOWER)
		return -EOPNOTSUPP;
	return 0;
}

static void *load_all(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = PT_DL_COUNT - 1; i >= 0; i--)
		bad += pt_dl_load((enum pt_dl_lib)i) != expected((enum pt_dl_lib)i);
	return (void *)bad;
}

START_TEST(every_library_loads_once_by_its_soname_from_any_thread)
{
	pthread_t t[8];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, load_all, NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		void *bad;
		ck_assert_int_eq(pthread_join(t[i], &bad), 0);
		ck_assert_ptr_null(bad);
	}
	for (int i = 0; i < PT_DL_COUNT; i++) { /* read off the linked dependency: "libkmod.so.2" */
		const char *so = pt_dl_soname((enum pt_dl_lib)i);
		if (expected((enum pt_dl_lib)i) == 0)
			ck_assert_msg(!strncmp(so, "lib", 3) && strstr(so, ".so."), "soname '%s'",
				      so);
	}
	/* the tables are filled: one call through each */
	ck_assert(pt_libkmod.kmod_new != NULL);
	ck_assert_int_ge(pt_libselinux.is_selinux_enabled(), 0);
	ck_assert_int_gt(pt_libmnl.mnl_nlmsg_size(4), 4);
}
END_TEST

START_TEST(without_libkmod_module_keys_say_so_and_change_nothing)
{
	struct perftune_tx *tx;
	char *v = NULL, p[PATH_MAX];


	put("sys/module/loop/initstate", "live");
	put("sys/module/loop/refcnt", "0");
	mkdirs("sys/module/loop/holders", true, p, sizeof(p));
	pt_dl_hide(PT_DL_KMOD);
	/* a module that is not loaded: only libkmod can find it */
	assert_missing(perftune_get(f.ctx, "module.dummy.loaded", &v), PT_DL_KMOD,
		       "module.dummy.loaded", "module keys");
	ck_assert_ptr_null(v);
	/* a loaded one reads from /sys/module; unloading it needs libkmod: refused when staged */
	fx_get_is(&f, "module.loop.loaded", "1");
	ck_assert_int_eq(perftune_tx_new(f.ctx, "m", 0, &tx), 0);
	ck_assert_int_ge(perftune_tx_set(tx, "sysctl.vm.swappiness", "5"), 0);
	assert_missing(perftune_tx_set(tx, "module.loop.loaded", "0"), PT_DL_KMOD,
		       "module.loop.loaded", "module keys");
	perftune_tx_unref(tx);
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/swappiness"), "60");
	ck_assert_int_eq(fx_journals(&f), 0);
	others_work();
}
END_TEST

START_TEST(without_libudev_a_partition_says_so_and_disks_work)
{
	char *v = NULL;

	pt_dl_hide(PT_DL_UDEV);
	assert_missing(perftune_get(f.ctx, "block.sda1.scheduler", &v), PT_DL_UDEV,
		       "block.sda1.scheduler", "device paths, partitions and udev properties");
	assert_missing(perftune_get(f.ctx, "block[/dev/sda1].scheduler", &v), PT_DL_UDEV,
		       "block[/dev/sda1].scheduler",
		       "device paths, partitions and udev properties");
	ck_assert_ptr_null(v);
	fx_get_is(&f, "block.sda.scheduler", "mq-deadline");
	others_work();
}
END_TEST

START_TEST(without_libnuma_numa_placement_says_so)
{
	struct perftune_desc *d = NULL;
	char *v = NULL, want[128];

	put("proc/4242/status", "Name:\tdb");
	pt_dl_hide(PT_DL_NUMA);
	assert_missing(perftune_get(f.ctx, "proc.4242.numa_nodes", &v), PT_DL_NUMA,
		       "proc.4242.numa_nodes", "NUMA placement");
	assert_missing(perftune_numa_place_self(f.ctx, "0", PERFTUNE_MEM_BIND), PT_DL_NUMA,
		       "exec --nodes 0", "NUMA placement");
	/* numa.balancing is a sysctl: there, its node facts say why they are missing */
	fx_get_is(&f, "numa.balancing", "1");
	ck_assert_int_eq(perftune_describe(f.ctx, "numa.balancing", &d), 0);
	snprintf(want, sizeof(want), "%s is not installed: no node facts", pt_dl_soname(PT_DL_NUMA));
	ck_assert_msg(strstr(perftune_desc_info(d), want), "info: %s", perftune_desc_info(d));
	perftune_desc_free(d);
	others_work();
}
END_TEST

START_TEST(without_libmnl_ethtool_keys_say_so_and_sysfs_net_keys_work)
{
	char *v = NULL;

	put("sys/class/net/eth0/ifindex", "2");
	put("sys/class/net/eth0/tx_queue_len", "1000");
	pt_dl_hide(PT_DL_MNL);
	assert_missing(perftune_get(f.ctx, "net.eth0.ring.rx", &v), PT_DL_MNL, "net.eth0.ring.rx",
		       "ethtool keys over netlink");
	ck_assert_ptr_null(v);
	fx_get_is(&f, "net.eth0.txqueuelen", "1000");
	others_work();
}
END_TEST

START_TEST(without_pcre2_a_profile_says_so)
{
	struct perftune_profile *p = NULL;
	char dir[PATH_MAX], key[PATH_MAX + 16];

	put("profiles/p/tuned.conf", "[sysctl]\nvm.swappiness=5");
	snprintf(dir, sizeof(dir), "%s/profiles/p", f.root);
	snprintf(key, sizeof(key), "profile %s", dir);
	pt_dl_hide(PT_DL_PCRE2);
	assert_missing(perftune_profile_load(f.ctx, dir, NULL, &p), PT_DL_PCRE2, key,
		       "profile regexes");
	ck_assert_ptr_null(p);
	others_work();
}
END_TEST

START_TEST(without_libselinux_the_host_says_so_and_a_root_tree_needs_none)
{
	pt_dl_hide(PT_DL_SELINUX);
	/* below a root, selinuxfs is its sys/fs/selinux: libselinux is not asked */
	fx_get_is(&f, "selinux.avc.cache_threshold", "512");
	/* on the host, where libselinux says where selinuxfs is */
	assert_missing(pt_dl_need(f.ctx, PT_DL_SELINUX, "selinux.avc.cache_threshold"),
		       PT_DL_SELINUX, "selinux.avc.cache_threshold", "selinux keys");
	others_work();
}
END_TEST

START_TEST(without_libcpupower_cpufreq_is_read_from_sysfs)
{
	const char *gov = fx_read(&f, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	struct perftune_desc *d = NULL;

	pt_dl_hide(PT_DL_CPUPOWER);
	fx_get_is(&f, "cpu.0.governor", gov);
	ck_assert_int_eq(perftune_describe(f.ctx, "cpu.0.governor", &d), 0);
	ck_assert_msg(!perftune_desc_info(d) || !strstr(perftune_desc_info(d), "libcpupower"),
		      "info: %s", perftune_desc_info(d));
	perftune_desc_free(d);
	others_work();
}
END_TEST

static Suite *dlopen_suite(void)
{
	Suite *s = suite_create("dlopen");
	TCase *tc = tcase_create("dlopen");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_library_loads_once_by_its_soname_from_any_thread);
	tcase_add_test(tc, without_libkmod_module_keys_say_so_and_change_nothing);
	tcase_add_test(tc, without_libudev_a_partition_says_so_and_disks_work);
	tcase_add_test(tc, without_libnuma_numa_placement_says_so);
	tcase_add_test(tc, without_libmnl_ethtool_keys_say_so_and_sysfs_net_keys_work);
	tcase_add_test(tc, without_pcre2_a_profile_says_so);
	tcase_add_test(tc, without_libselinux_the_host_says_so_and_a_root_tree_needs_none);
	tcase_add_test(tc, without_libcpupower_cpufreq_is_read_from_sysfs);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	Suite *(*const suites[])(void) = { dlopen_suite };

	return harness_main(argc, argv, suites, 1);
}
