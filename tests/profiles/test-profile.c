// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Profiles on the fake machine: the tuned.conf parser and its errors, include
 * and merge rules, variables and functions, device selection, conditional
 * values, staging (strict, all-or-nothing, re-apply), apply + restore, export.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

static struct fx f;
static char dir[PATH_MAX];

static void setup(void)
{
	fx_setup(&f);
	snprintf(dir, sizeof(dir), "%s/profiles", f.root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	setenv("PERFTUNE_PROFILE_PATH", dir, 1);
	/* real disks say whether they are removable: TuneD's default selection needs it */
	for (const char *const *d = (const char *const[]){ "sda", "sdb", "sdc", "nvme0n1", "zram0",
							   "dm-0", "dm-1", NULL };
	     *d; d++) {
		char path[PATH_MAX];
		FILE *fp;
		snprintf(path, sizeof(path), "%s/sys/block/%s/removable", f.root, *d);
		fp = fopen(path, "w");
		ck_assert_ptr_nonnull(fp);
		fputs("0\n", fp);
		fclose(fp);
	}
}

static void teardown(void)
{
	fx_teardown(&f);
}

/* @text as <dir>/@name/@file, mode @mode whatever the umask */
static void put_file(const char *name, const char *file, const char *text, mode_t mode)
{
	char p[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s", dir, name, file);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	ck_assert_int_eq(chmod(p, mode), 0);
}

static void put(const char *name, const char *text)
{
	put_file(name, "tuned.conf", text, 0644); /* others cannot write it */
}

static struct perftune_profile *load(const char *name, const char *const *vars)
{
	struct perftune_profile *p = NULL;
	int r = perftune_profile_load(f.ctx, name, vars, &p);

	ck_assert_msg(r == 0, "%s: %d %s", name, r, perftune_ctx_last_error(f.ctx));
	return p;
}

/* the value of @key among the items, NULL if absent; *flags gets its flags */
static const char *item(struct perftune_profile *p, const char *key, unsigned *flags)
{
	static char v[PERFTUNE_VALUE_MAX];
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;
	const char *res = NULL;

	ck_assert_int_eq(perftune_profile_items(p, &it), 0);
	while ((e = perftune_profile_item_iter_next(it)))
		if (perftune_profile_item_key(e) && !strcmp(perftune_profile_item_key(e), key)) {
			snprintf(v, sizeof(v), "%s", perftune_profile_item_value(e) ? perftune_profile_item_value(e) : "");
			if (flags)
				*flags = perftune_profile_item_flags(e);
			res = v;
		}
	perftune_profile_item_iter_free(it);
	return res;
}

/* the note of the skipped option @option ("[disk] apm"), NULL if not skipped */
static const char *skipped(struct perftune_profile *p, const char *option)
{
	static char v[1024];
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;
	const char *res = NULL;

	ck_assert_int_eq(perftune_profile_items(p, &it), 0);
	while ((e = perftune_profile_item_iter_next(it)))
		if ((perftune_profile_item_flags(e) & PERFTUNE_PROFILE_ITEM_SKIPPED) &&
		    !strcmp(perftune_profile_item_option(e), option)) {
			snprintf(v, sizeof(v), "%s", perftune_profile_item_skip_reason(e) ? perftune_profile_item_skip_reason(e) : "");
			res = v;
		}
	perftune_profile_item_iter_free(it);
	return res;
}

/* ---- bad input: each with its errno and a message naming file and line ---- */

static const struct {
	const char *text, *err;
	int errnum;
} bad[] = {
	{ "[sysctl]\nvm.swappiness\n", "tuned.conf:2: expected 'name = value'", -EINVAL },
	{ "vm.swappiness=1\n", "tuned.conf:1: option before the first [section]", -EINVAL },
	{ "[]\n", "tuned.conf:1: option before the first [section]", -EINVAL }, /* not a header */
	{ "[sysctl]\n=1\n", "tuned.conf:2: option without a name", -EINVAL },
	{ "[main]\ninclude=no-such-profile\n", "tuned.conf:2: included profile 'no-such-profile' not found",
	  -ENOENT },
	/* TuneD's locator takes the base name; "a b" is one name (issue 25) */
	{ "[main]\ninclude=../etc\n", "tuned.conf:2: included profile 'etc' not found", -ENOENT },
	{ "[main]\ninclude=a b\n", "'a b' is not a profile name", -EINVAL },
	{ "[main]\ninclude=-nothing,\n", "tuned.conf:2: include=-nothing,: an empty profile name",
	  -EINVAL },
	/* a regex that does not compile is an error naming the option, never a branch */
	{ "[sysctl]\nvm.swappiness=${f:cpuinfo_check:(:1:2}\n",
	  "tuned.conf:2: vm.swappiness: function cpuinfo_check: regex '(' does not compile", -EINVAL },
	{ "[sysctl]\nvm.swappiness=${f:regex_search_ternary:a:[:1:2}\n",
	  "tuned.conf:2: vm.swappiness: function regex_search_ternary: regex '[' does not compile",
	  -EINVAL },
	{ "[sysctl]\ncpuinfo_regex=a(\nvm.swappiness=1\n",
	  "tuned.conf:1: [sysctl] cpuinfo_regex: regex 'a(' does not compile", -EINVAL },
	/* what Python's re refuses and PCRE2 would take (found by tests/tuned-diff) */
	{ "[sysctl]\nvm.swappiness=${f:regex_search_ternary:a:\\h:1:2}\n",
	  "regex '\\h' does not compile: bad escape (Python's re)", -EINVAL },
	{ "[sysctl]\nvm.swappiness=${f:regex_search_ternary:a:a(?i):1:2}\n",
	  "regex 'a(?i)' does not compile: global flags not at the start", -EINVAL },
	{ "[sysctl]\nvm.swappiness=${f:regex_search_ternary:a:(?P=n)(?P<n>a):1:2}\n",
	  "does not compile: unknown group name", -EINVAL },
	{ "[main]\ninclude=${f:exec:/bin/true}\n", "tuned.conf:2: include=", -EINVAL },
	{ "[variables]\na=${f:assertion:cores set:1:2}\n", "tuned.conf:2: a: assertion 'cores set' failed",
	  -EINVAL },
	{ "[disk]\nreadahead=lots\n", "tuned.conf:2: [disk] readahead=lots", -EINVAL },
	{ "[disk]\nrotational=2\nelevator=none\n", "tuned.conf:2: [disk] rotational=2", -EINVAL },
	{ "[disk]\nreadahead_multiply=x4\n", "tuned.conf:2: [disk] readahead_multiply=x4", -EINVAL },
	{ "[sysctl]\nvm.swappiness=many\n", "tuned.conf:2: [sysctl] vm.swappiness = many", -EINVAL },
	{ "[vm]\ntransparent_hugepages=sometimes\n", "tuned.conf:2: [vm] transparent_hugepages",
	  -EINVAL },
	{ "[cpu]\npriority=first\n", "tuned.conf:2: [cpu] priority=first", -EINVAL },
	/* unit attributes are expanded too: errors name the section (this crashed before) */
	{ "[disk]\ndevices=${f:assertion:x:1:2}\nreadahead=4096\n",
	  "tuned.conf:1: [disk] devices: assertion 'x' failed", -EINVAL },
	{ "[disk]\ncpuinfo_regex=${f:assertion:x:1:2}\nreadahead=4096\n",
	  "tuned.conf:1: [disk] cpuinfo_regex: assertion 'x' failed", -EINVAL },
	{ "[sysctl]\nuname_regex=${f:cpulist_unpack:0-8191}\nvm.swappiness=1\n",
	  "tuned.conf:1: [sysctl] uname_regex: the value expands to more than 4095 bytes", -EINVAL },
	/* the value limit (issue 27 E; more shapes in expansion-limit.sh) */
	{ "[sysctl]\nvm.swappiness=${f:cpulist_unpack:0-8191}\n",
	  "tuned.conf:2: vm.swappiness: the value expands to more than 4095 bytes", -EINVAL },
	{ "[variables]\na=${f:cpulist_pack:0-1}\nb=${a}${a}${a}${a}${a}${a}${a}${a}${a}${a}\n"
	  "c=${b}${b}${b}${b}${b}${b}${b}${b}${b}${b}\nd=${c}${c}${c}${c}${c}${c}${c}${c}${c}${c}\n"
	  "e=${d}${d}${d}${d}${d}${d}${d}${d}${d}${d}\n",
	  "tuned.conf:6: e: the value expands to more than 4095 bytes", -EINVAL },
};

START_TEST(bad_input_is_an_error_naming_file_and_line)
{
	struct perftune_profile *p = NULL;
	int r;

	put("bad", bad[_i].text);
	r = perftune_profile_load(f.ctx, "bad", NULL, &p);
	ck_assert_msg(r == bad[_i].errnum, "case %d: %d, expected %d (%s)", _i, r, bad[_i].errnum,
		      perftune_ctx_last_error(f.ctx));
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), bad[_i].err), "case %d: '%s' lacks '%s'",
		      _i, perftune_ctx_last_error(f.ctx), bad[_i].err);
}
END_TEST

START_TEST(missing_profile_names_the_search_path)
{
	struct perftune_profile *p = NULL;

	ck_assert_int_eq(perftune_profile_load(f.ctx, "nope", NULL, &p), -ENOENT);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), dir));
}
END_TEST

/* without $PERFTUNE_PROFILE_PATH: the admin's, the packages', ours, TuneD's */
START_TEST(default_path_puts_vendor_profiles_below_the_admins)
{
	struct perftune_profile *p = NULL;
	const char *e;

	unsetenv("PERFTUNE_PROFILE_PATH");
	ck_assert_int_eq(perftune_profile_load(f.ctx, "no-package-ships-this-name", NULL, &p),
			 -ENOENT);
	e = perftune_ctx_last_error(f.ctx);
	ck_assert_msg(strstr(e, " /etc/perftune/profiles:/usr/lib/perftune/profiles:" PERFTUNE_PROFILES_DIR
				":/etc/tuned:/usr/lib/tuned"),
		      "%s", e);
}
END_TEST

START_TEST(comments_continuations_and_duplicates_parse_like_configparser)
{
	struct perftune_profile *p;

	put("syntax", "# comment\n; comment\n[main]\nsummary = spaced   # inline\n"
		      "[sysctl]\n  vm.swappiness = 5\nvm.dirty_ratio=#30\nvm.dirty_ratio = 31\n"
		      "kernel.printk = 4\n   4 1 7\n[sysctl]\nvm.dirty_background_ratio=7\r\n");
	p = load("syntax", NULL);
	ck_assert_str_eq(perftune_profile_summary(p), "spaced");
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "5");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "31");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_background_ratio", NULL), "7");
	ck_assert_str_eq(item(p, "sysctl.kernel.printk", NULL), "4 4 1 7");
	perftune_profile_free(p);
}
END_TEST

/* ---- include, merge, replace, drop ---- */

START_TEST(include_merges_later_files_win)
{
	struct perftune_profile *p;

	put("base", "[main]\nsummary=base\n[sysctl]\nvm.swappiness=1\nvm.dirty_ratio=2\n"
		    "[vm]\ntransparent_hugepages=never\n");
	put("child", "[main]\ninclude=base\n[sysctl]\nvm.dirty_ratio=3\n");
	put("replacer", "[main]\ninclude=base\n[sysctl]\nreplace=true\nvm.dirty_background_ratio=4\n");
	put("dropper", "[main]\ninclude=base\n[sysctl]\ndrop=vm.swappiness\n");
	p = load("child", NULL);
	ck_assert_str_eq(perftune_profile_summary(p), "base");
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "1");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "3");
	ck_assert_str_eq(item(p, "thp.enabled", NULL), "never");
	perftune_profile_free(p);
	p = load("replacer", NULL);
	ck_assert_ptr_null(item(p, "sysctl.vm.swappiness", NULL));
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_background_ratio", NULL), "4");
	ck_assert_str_eq(item(p, "thp.enabled", NULL), "never");
	perftune_profile_free(p);
	p = load("dropper", NULL);
	ck_assert_ptr_null(item(p, "sysctl.vm.swappiness", NULL));
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "2");
	perftune_profile_free(p);
}
END_TEST

START_TEST(include_loops_and_optional_includes_terminate)
{
	struct perftune_profile *p;

	put("a", "[main]\ninclude=b\n[sysctl]\nvm.swappiness=11\n");
	put("b", "[main]\ninclude=a, -not-there\n[sysctl]\nvm.dirty_ratio=12\n");
	p = load("a", NULL);
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "11");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "12");
	perftune_profile_free(p);
}
END_TEST

/* ---- variables and functions ---- */

START_TEST(variables_functions_and_overrides)
{
	struct perftune_profile *p;
	char marker[PATH_MAX], text[2 * PATH_MAX];
	const char *vars[] = { "ratio=33", NULL };

	snprintf(marker, sizeof(marker), "%s/executed", f.root);
	snprintf(text, sizeof(text),
		 "[variables]\nratio=20\nbg=${ratio}\nlit=\\${ratio}\n"
		 "inv=${f:cpulist_invert:0}\nhex=${f:cpulist2hex:0-3}\npack=${f:cpulist_pack:0,1,2}\n"
		 "iso=${f:calc_isolated_cores:1}\nran=${f:exec:touch:%s}\n"
		 "[sysctl]\nvm.dirty_ratio=${ratio}\nvm.dirty_background_ratio=${bg}\n"
		 "kernel.printk=${inv} ${pack}\nvm.swappiness=${ran}\n"
		 "[sysfs]\n/sys/devices/system/node/node0/cpumap=${f:cpulist2hex:${f:hex2cpulist:0x3}}\n",
		 marker);
	put("vars", text);
	p = load("vars", NULL);
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "20");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_background_ratio", NULL), "20");
	ck_assert_str_eq(item(p, "sysctl.kernel.printk", NULL), "1,2,3 0-2");
	/* the kernel prints masks as wide as the machine: "00000003" is written "3" */
	ck_assert_str_eq(item(p, "sysfs[/sys/devices/system/node/node0/cpumap]", NULL), "3");
	ck_assert_ptr_nonnull(strstr(skipped(p, "[variables] ran"), "never runs programs"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[sysctl] vm.swappiness"), "${ran} is not evaluated"));
	ck_assert_int_ne(access(marker, F_OK), 0); /* nothing was executed */
	perftune_profile_free(p);
	p = load("vars", vars);
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "33");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_background_ratio", NULL), "33");
	perftune_profile_free(p);
}
END_TEST

START_TEST(variables_file_include_is_confined)
{
	struct perftune_profile *p;
	char text[PATH_MAX * 2], path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/vars.conf", dir);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("# a TuneD variables file\nswap=9\nno value line\n", fp);
	fclose(fp);
	snprintf(text, sizeof(text), "[variables]\ninclude=%s\n[sysctl]\nvm.swappiness=${swap}\n", path);
	put("incvars", text);
	p = load("incvars", NULL);
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "9");
	perftune_profile_free(p);
	put("outside", "[variables]\ninclude=/etc/passwd\n[sysctl]\nvm.swappiness=${swap}\n");
	p = load("outside", NULL);
	ck_assert_ptr_nonnull(strstr(skipped(p, "[variables] include"), "outside the profile"));
	ck_assert_ptr_nonnull(skipped(p, "[sysctl] vm.swappiness"));
	perftune_profile_free(p);
}
END_TEST

/* ---- issue 25: what TuneD's ConfigParser, loader and functions make of a profile ---- */

START_TEST(loader_reads_what_tuned_reads)
{
	struct perftune_profile *p;
	char path[PATH_MAX];
	FILE *fp;

	put("lbase", "[sysctl]\nvm.swappiness=1\nvm.dirty_ratio=2\n");
	snprintf(path, sizeof(path), "%s/loader/vars.conf", dir);
	put("loader",
	    /* [DEFAULT] goes to every section; include= takes the base name */
	    "[DEFAULT]\nvm.dirty_background_ratio=9\n[main]\ninclude=sub/lbase\n"
	    /* ${i:PROFILE_DIR}: the profile's directory */
	    "[variables]\ninclude=${i:PROFILE_DIR}/vars.conf\n"
	    /* drop= splits on ',' and ';' only: "a b" is one name, nothing is dropped */
	    "[sysctl]\ndrop=vm.swappiness vm.dirty_ratio\nkernel.printk=${p}\n\n   4 1 7\n"
	    /* "[ sysctl ]" is another section, and no plugin TuneD has */
	    "[ sysctl ]\nvm.swappiness=33\n"
	    /* option names are never expanded */
	    "[sysfs]\n/sys/${p}=1\n");
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("p=4\n", fp);
	fclose(fp);
	p = load("loader", NULL);
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "1");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "2");
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_background_ratio", NULL), "9");
	/* a blank line inside a multi-line value; numbers on several lines mean the same:
	 * a line break is a blank, and the value is written with its blanks (issue 33 H14) */
	ck_assert_str_eq(item(p, "sysctl.kernel.printk", NULL), "4  4 1 7");
	ck_assert_ptr_nonnull(skipped(p, "[ sysctl ] vm.swappiness"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[sysfs] /sys/${p}"), "/sys/${p}: matches no file"));
	perftune_profile_free(p);
	/* text on several lines is not cut to its first line silently */
	put("lines", "[sysctl]\nkernel.printk=4\n  four\n");
	p = load("lines", NULL);
	ck_assert_ptr_nonnull(strstr(skipped(p, "[sysctl] kernel.printk"), "several lines"));
	perftune_profile_free(p);
}
END_TEST

static const struct {
	const char *value, *want; /* want NULL: skipped, the reason has @why */
	const char *why;
} funcs[] = {
	/* TuneD's own test input: a mask no longer clears the CPUs listed before it */
	{ "${f:cpulist_pack:4-8,^6,0xf00,,!10-11}", "4-5,7-9", NULL },
	{ "${f:cpulist_pack:0x3:0x4}", "0-2", NULL },
	{ "${f:cpulist_pack:1 ,2}", "1-2", NULL },
	{ "${f:cpulist_pack:1 - 3}", "1-3", NULL },
	{ "${f:cpulist_pack:3-1,5}", "5", NULL },
	{ "${f:cpulist_pack:1-2-3}", "1-2", NULL },
	{ "${f:hex2cpulist:ff}", "0,1,2,3,4,5,6,7", NULL },
	{ "${f:cpulist_pack:${f:hex2cpulist:ff,ffffffff}}", "0-39", NULL },
	{ "${f:cpulist_pack:1_0}", NULL, "'_' in a CPU number" },
	{ "${f:cpulist_pack:8192}", NULL, "past 8191" },
	{ "${f:cpulist_pack:1,x}", NULL, "'x' is not a CPU number" },
	{ "${f:s2kb:1}", "0", NULL }, /* round half to even */
	{ "${f:s2kb:3}", "2", NULL },
	{ "${f:s2kb:5}", "2", NULL },
	{ "${f:s2kb:-3}", "-2", NULL },
	{ "${f:s2kb:9007199254740994}", NULL, "past" }, /* TuneD's float is off there */
	{ "${f:kb2s:9223372036854775807}", NULL, "past" },
	{ "${f:calc_isolated_cores:x}", NULL, "'x' is not a number of CPUs" },
	{ "${f:calc_isolated_cores:2}", "2,3", NULL },
	{ "${f:regex_search_ternary:x9:\\A\\w\\d\\Z:a:b}", "a", NULL }, /* Python's \A, \d, \Z */
	{ "${f:regex_search_ternary:X:(?i)x+?:a:b}", "a", NULL },
	{ "${f:regex_search_ternary:xy:x\\Z:a:b}", "b", NULL },
	{ "${f:strip:  x\xc2\xa0}", "x", NULL }, /* Python's whitespace, Unicode's included */
	{ "${f:regex_search_ternary:A:\\u0041:a:b}", "a", NULL }, /* Python's \uXXXX */
	{ "${f:regex_search_ternary:\x0b:^\\v$:a:b}", "a", NULL }, /* Python's \v: VT only */
	{ "${f:regex_search_ternary:l]:[[\\:alpha\\:]]:a:b}", "a", NULL }, /* no [:class:] */
};

START_TEST(functions_give_tuned_values_or_say_why_not)
{
	struct perftune_profile *p;
	char text[512], path[PATH_MAX];
	const char *v, *option = "[sysfs] /sys/kernel/text";
	FILE *fp;

	snprintf(path, sizeof(path), "%s/sys/kernel/text", f.root); /* any text goes */
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);
	snprintf(text, sizeof(text), "[variables]\nv=%s\n[sysfs]\n/sys/kernel/text=${v}\n",
		 funcs[_i].value);
	put("funcs", text);
	p = load("funcs", NULL);
	v = item(p, "sysfs[/sys/kernel/text]", NULL);
	if (funcs[_i].want) {
		ck_assert_msg(v && !strcmp(v, funcs[_i].want), "%s: '%s', expected '%s'", funcs[_i].value,
			      v ? v : "(none)", funcs[_i].want);
	} else {
		ck_assert_msg(!v, "%s: '%s', expected a skip", funcs[_i].value, v);
		ck_assert_msg(skipped(p, option) && strstr(skipped(p, option), funcs[_i].why),
			      "%s: the reason '%s' lacks '%s'", funcs[_i].value,
			      skipped(p, option) ? skipped(p, option) : "(none)", funcs[_i].why);
	}
	perftune_profile_free(p);
}
END_TEST

/*
 * An option naming an unset variable is skipped, but for the argument of
 * check_net_queue_count: TuneD's realtime profiles leave netdev_queue_count
 * commented out, and the function answers the online CPU count there.
 */
START_TEST(unset_variable_skips_but_asks_the_queue_count)
{
	const char *option = "[sysfs] /sys/kernel/text";
	struct perftune_profile *p;
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/sys/kernel/text", f.root);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);
	put("queues", "[sysfs]\n/sys/kernel/text=${f:check_net_queue_count:${netdev_queue_count}}\n");
	p = load("queues", NULL);
	ck_assert_str_eq(item(p, "sysfs[/sys/kernel/text]", NULL), "4"); /* CPUs 0-3 online */
	perftune_profile_free(p);
	put("unset", "[sysfs]\n/sys/kernel/text=${f:cpulist_pack:${netdev_queue_count}}\n");
	p = load("unset", NULL);
	ck_assert_ptr_null(item(p, "sysfs[/sys/kernel/text]", NULL));
	ck_assert_msg(skipped(p, option) &&
			      strstr(skipped(p, option), "variable ${netdev_queue_count} is not defined"),
		      "reason: %s", skipped(p, option) ? skipped(p, option) : "(none)");
	perftune_profile_free(p);
	/* cpu-partitioning's no_balance_cores_expanded: the [variables] entry
	 * names the variable, not the '_' that int() would take */
	put("unsetvar", "[variables]\nx=${f:cpulist_unpack:${no_balance_cores}}\n"
			"[sysctl]\nvm.swappiness=60\n");
	p = load("unsetvar", NULL);
	ck_assert_msg(skipped(p, "[variables] x") &&
			      strstr(skipped(p, "[variables] x"),
				     "variable ${no_balance_cores} is not defined (an argument of "
				     "cpulist_unpack)"),
		      "reason: %s",
		      skipped(p, "[variables] x") ? skipped(p, "[variables] x") : "(none)");
	perftune_profile_free(p);
}
END_TEST

/* ---- units: conditions, devices, plugins ---- */

START_TEST(devices_globs_exclusions_first_unit_wins)
{
	struct perftune_profile *p;

	put("dev", "[disk-a]\ntype=disk\ndevices=sd* !sdb\nelevator=bfq\n"
		   "[disk-b]\ntype=disk\ndevices=sd*, nvme0n1\nelevator=kyber\n"
		   "[disk-c]\ntype=disk\ndevices=sdq\nelevator=none\n");
	p = load("dev", NULL);
	ck_assert_str_eq(item(p, "block.sda.scheduler", NULL), "bfq");
	ck_assert_str_eq(item(p, "block.sdc.scheduler", NULL), "bfq");
	ck_assert_str_eq(item(p, "block.sdb.scheduler", NULL), "kyber");
	ck_assert_str_eq(item(p, "block.nvme0n1.scheduler", NULL), "kyber");
	ck_assert_ptr_nonnull(strstr(skipped(p, "[disk-c] "), "no device 'sdq'"));
	perftune_profile_free(p);
}
END_TEST

START_TEST(unit_conditions_priority_and_disabled)
{
	struct perftune_profile *p;

	put("cond", "[sysctl]\nvm.swappiness=1\n"
		    "[late]\ntype=sysctl\npriority=-5\nvm.swappiness=2\n"
		    "[off]\ntype=sysctl\nenabled=false\nvm.dirty_ratio=3\n"
		    "[arm]\ntype=sysctl\nuname_regex=aarch64\nvm.dirty_background_ratio=4\n"
		    "[ostype]\ntype=vm\nuname_regex=^Linux\ntransparent_hugepages=always\n"
		    "[cpuinfo]\ntype=sysctl\ncpuinfo_regex=no such cpu\nvm.dirty_ratio=5\n");
	p = load("cond", NULL);
	/* [late] has priority -5: it goes first, [sysctl] overrides it */
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "1");
	ck_assert_ptr_null(item(p, "sysctl.vm.dirty_ratio", NULL));
	ck_assert_ptr_null(item(p, "sysctl.vm.dirty_background_ratio", NULL));
	ck_assert_str_eq(item(p, "thp.enabled", NULL), "always");
	perftune_profile_free(p);
}
END_TEST

START_TEST(conditional_and_sector_values)
{
	struct perftune_profile *p;
	unsigned fl = 0;

	put("ra", "[disk-a]\ntype=disk\ndevices=sda\nreadahead=>64\n"
		  "[disk-b]\ntype=disk\ndevices=sdb\nreadahead=>4096\n"
		  "[disk-c]\ntype=disk\ndevices=sdc\nreadahead=8192 s\n"
		  "[sysctl]\nvm.swappiness=<70\nvm.dirty_ratio=<10\n");
	p = load("ra", NULL);
	ck_assert_str_eq(item(p, "block.sda.read_ahead_kb", &fl), "128");
	ck_assert_uint_eq(fl, PERFTUNE_PROFILE_ITEM_UNCHANGED);
	ck_assert_str_eq(item(p, "block.sdb.read_ahead_kb", &fl), "4096");
	ck_assert_uint_eq(fl, 0);
	ck_assert_str_eq(item(p, "block.sdc.read_ahead_kb", NULL), "4096");
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", &fl), "60");
	ck_assert_uint_eq(fl, PERFTUNE_PROFILE_ITEM_UNCHANGED);
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "10");
	perftune_profile_free(p);
}
END_TEST

START_TEST(plugins_map_or_skip_with_reason)
{
	struct perftune_profile *p;
	unsigned fl = 0;

	put("plug", "[cpu]\ngovernor=ondemand|performance\nenergy_performance_preference=power\n"
		    "energy_perf_bias=performance\nforce_latency=cstate.name:C1E|5\nload_threshold=0.2\n"
		    "[selinux]\navc_cache_threshold=8192\n[vm]\ntransparent_hugepage.defrag=never\n"
		    "[disk]\ndevices=sda\nelevator=deadline\napm=128\nscheduler_quantum=10\n"
		    "[script]\nscript=${i:PROFILE_DIR}/script.sh\n[bootloader]\ncmdline=quiet\n"
		    "[scheduler]\nsched_min_granularity_ns=10000000\nisolated_cores=1\n"
		    "[mystery]\nfoo=bar\n[sysfs]\n/etc/passwd=1\n/sys/kernel/mm/escape=1\n");
	p = load("plug", NULL);
	ck_assert_str_eq(item(p, "cpu.all.governor", NULL), "performance");
	ck_assert_str_eq(item(p, "cpu.all.epp", NULL), "power");
	/* the exit latency of C1E on cpu0 */
	ck_assert_str_eq(item(p, "cpu.all.idle.max_latency_us", NULL), "10");
	ck_assert_str_eq(item(p, "selinux.avc.cache_threshold", NULL), "8192");
	ck_assert_str_eq(item(p, "thp.defrag", NULL), "never");
	ck_assert_str_eq(item(p, "block.sda.scheduler", NULL), "mq-deadline");
	ck_assert_ptr_nonnull(item(p, "block.sda.iosched.quantum", &fl));
	ck_assert_uint_eq(fl, PERFTUNE_PROFILE_ITEM_SKIPPED); /* mq-deadline has no quantum */
	ck_assert_ptr_nonnull(strstr(skipped(p, "[cpu] energy_perf_bias"), "energy_perf_bias"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[cpu] load_threshold"), "daemon"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[disk] apm"), "hdparm"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[script] script"), "never executes"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[bootloader] cmdline"), "command line"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[scheduler] sched_min_granularity_ns"), "neither"));
	/* isolated_cores: the IRQs (but the managed one), the default mask, the workqueues */
	ck_assert_str_eq(item(p, "irq.all.cpus", NULL), "intersect:0,2-3");
	ck_assert_str_eq(item(p, "irq.default.cpus", NULL), "0,2-3"); /* f, intersected */
	ck_assert_str_eq(item(p, "workqueue.cpus", NULL), "0,2-3");
	ck_assert_str_eq(item(p, "irq.27.cpus", &fl), "intersect:0,2-3");
	ck_assert_uint_eq(fl, PERFTUNE_PROFILE_ITEM_SKIPPED); /* managed: the kernel keeps it */
	ck_assert_ptr_nonnull(strstr(skipped(p, "[scheduler] isolated_cores"), "will not move"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[mystery] foo"), "unknown plugin type"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[sysfs] /etc/passwd"), "under /sys"));
	/* a symlink out of /sys is no file of /sys */
	ck_assert_ptr_nonnull(skipped(p, "[sysfs] /sys/kernel/mm/escape"));
	perftune_profile_free(p);
}
END_TEST

START_TEST(irq_plugins_and_isolated_cores_options)
{
	struct perftune_profile *p;
	unsigned fl = 0;

	/* TuneD's [irq]: irq<n> devices and DEFAULT, the first unit wins a device */
	put("irqs", "[irq_special]\ntype=irq\ndevices=irq24\naffinity=2\n"
		    "[irq]\naffinity=0-1\nmode=intersect\n"
		    "[irqbalance]\nbanned_cpus=3\n"
		    "[scheduler]\nisolated_cores=3\ndefault_irq_smp_affinity=1\n"
		    "[sched2]\ntype=scheduler\nreplace=1\ndefault_irq_smp_affinity=ignore\n");
	p = load("irqs", NULL);
	ck_assert_str_eq(item(p, "irq.24.cpus", NULL), "2");
	ck_assert_str_eq(item(p, "irq.25.cpus", NULL), "1"); /* on CPU 1: kept there */
	ck_assert_str_eq(item(p, "irq.0.cpus", NULL), "0-1");
	/* managed: skipped by [irq] and by isolated_cores (the last item) */
	ck_assert_str_eq(item(p, "irq.27.cpus", &fl), "intersect:0-2");
	ck_assert_uint_eq(fl, PERFTUNE_PROFILE_ITEM_SKIPPED);
	ck_assert_ptr_nonnull(strstr(skipped(p, "[irqbalance] banned_cpus"), "not a kernel tunable"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[sched2] default_irq_smp_affinity"),
				     "with isolated_cores"));
	ck_assert_str_eq(item(p, "irq.all.cpus", NULL), "intersect:0-2");
	ck_assert_str_eq(item(p, "irq.default.cpus", NULL), "1"); /* default_irq_smp_affinity */
	ck_assert_str_eq(item(p, "workqueue.cpus", NULL), "0-2");
	perftune_profile_free(p);
	/* before 6.12 (the managed IRQ's file reads writable): the kernel's EIO tells */
	ck_assert_int_eq(system("chmod 0644 \"$UMOCKDEV_DIR/proc/irq/27/smp_affinity_list\""), 0);
	put("iso0", "[scheduler]\nisolated_cores=3\n");
	p = load("iso0", NULL);
	ck_assert_ptr_nonnull(strstr(skipped(p, "[scheduler] isolated_cores"), "(nvme0q1)"));
	ck_assert_str_eq(item(p, "irq.all.cpus", NULL), "intersect:0-2");
	perftune_profile_free(p);
	/* CPUs that are not online: TuneD changes nothing; irq_process=false: no IRQ */
	put("iso", "[scheduler]\nisolated_cores=5\n[s2]\ntype=scheduler\nisolated_cores=1\n"
		   "irq_process=false\n[irq]\ntype=irq\naffinity=x\nmode=sometimes\n");
	p = load("iso", NULL);
	ck_assert_ptr_nonnull(strstr(skipped(p, "[scheduler] isolated_cores"), "CPU 5 is not online"));
	ck_assert_ptr_null(item(p, "irq.all.cpus", NULL));
	ck_assert_str_eq(item(p, "workqueue.cpus", NULL), "0,2-3");
	ck_assert_ptr_nonnull(skipped(p, "[irq] affinity"));
	ck_assert_ptr_nonnull(strstr(skipped(p, "[irq] mode"), "set or intersect"));
	perftune_profile_free(p);
}
END_TEST

START_TEST(rotational_selects_disks_by_their_attribute)
{
	struct perftune_profile *p;

	put("flash", "[disk-ssd]\ntype=disk\ndevices=sd* nvme*\nrotational=0\nelevator=none\n");
	fx_write(&f, "sys/block/sdb/queue/rotational", "0");
	p = load("flash", NULL);
	ck_assert_ptr_null(item(p, "block.sda.scheduler", NULL));
	ck_assert_str_eq(item(p, "block.sdb.scheduler", NULL), "none");
	ck_assert_str_eq(item(p, "block.nvme0n1.scheduler", NULL), "none");
	perftune_profile_free(p);
}
END_TEST

/* ---- staging and committing ---- */

static struct perftune_tx *tx_new(const char *name, unsigned flags)
{
	struct perftune_tx *tx = NULL;

	ck_assert_int_eq(perftune_tx_new(f.ctx, name, flags, &tx), 0);
	return tx;
}

static int staged(struct perftune_tx *tx)
{
	struct perftune_change_iter *it;
	const struct perftune_change *e;
	int n = 0;

	ck_assert_int_eq(perftune_tx_changes(tx, &it), 0);
	while ((e = perftune_change_iter_next(it)))
		n++;
	perftune_change_iter_free(it);
	return n;
}

START_TEST(strict_turns_a_skip_into_an_error_and_stages_nothing)
{
	struct perftune_profile *p;
	struct perftune_tx *tx = tx_new("s", 0);

	put("strict", "[sysctl]\nvm.swappiness=5\n[script]\nscript=run.sh\n");
	p = load("strict", NULL);
	ck_assert_int_eq(perftune_profile_stage(p, tx, PERFTUNE_PROFILE_STRICT), -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "[script] script"));
	ck_assert_int_eq(staged(tx), 0);
	ck_assert_int_eq(perftune_profile_stage(p, tx, 0), 1);
	ck_assert_int_eq(staged(tx), 1);
	perftune_tx_unref(tx);
	perftune_profile_free(p);
}
END_TEST

START_TEST(apply_then_restore_gives_back_every_file)
{
	struct perftune_profile *p;
	struct perftune_tx *tx = tx_new("tp", 0);
	struct snap *before, *after;
	char *diff;

	put("tp", "[disk]\ndevices=sd*\nelevator=bfq\nreadahead_multiply=4\n"
		  "[sysctl]\nvm.swappiness=10\nvm.nr_hugepages=4\nkernel.numa_balancing=0\n"
		  "[vm]\ntransparent_hugepages=never\n[cpu]\ngovernor=performance\n"
		  "force_latency=cstate.id:1\n");
	before = snap_take(f.root);
	p = load("tp", NULL);
	ck_assert_int_gt(perftune_profile_stage(p, tx, 0), 0);
	ck_assert_int_gt(perftune_tx_commit(tx), 0);
	ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/scheduler"), "mq-deadline kyber [bfq] none");
	ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/read_ahead_kb"), "512");
	ck_assert_str_eq(fx_read(&f, "proc/sys/vm/nr_hugepages"), "4");
	ck_assert_str_eq(fx_read(&f, "sys/devices/system/cpu/cpu0/cpuidle/state3/disable"), "1");
	perftune_tx_unref(tx);
	ck_assert_int_gt(perftune_restore(f.ctx, "tp", 0), 0);
	after = snap_take(f.root);
	diff = snap_diff(before, after);
	ck_assert_msg(!diff, "%s", diff);
	snap_free(before);
	snap_free(after);
	perftune_profile_free(p);
}
END_TEST

START_TEST(reapply_does_not_compound_readahead_multiply)
{
	struct perftune_profile *p;
	struct perftune_tx *tx;

	put("ra4", "[disk]\ndevices=sda\nreadahead_multiply=4\n");
	p = load("ra4", NULL);
	for (int round = 0; round < 2; round++) {
		tx = tx_new("ra4", 0);
		ck_assert_int_eq(perftune_profile_stage(p, tx, 0), 1);
		ck_assert_int_ge(perftune_tx_commit(tx), 0);
		perftune_tx_unref(tx);
		ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/read_ahead_kb"), "512");
	}
	ck_assert_int_eq(perftune_restore(f.ctx, "ra4", 0), 1);
	ck_assert_str_eq(fx_read(&f, "sys/block/sda/queue/read_ahead_kb"), "128");
	perftune_profile_free(p);
}
END_TEST

START_TEST(force_latency_holds_pmqos_only_with_a_hold)
{
	struct perftune_profile *p;
	struct perftune_tx *tx = tx_new("lat", PERFTUNE_TX_HOLD | PERFTUNE_TX_DRY_RUN);

	put("lat", "[cpu]\nforce_latency=7\n");
	p = load("lat", NULL);
	ck_assert_str_eq(item(p, "cpu.all.idle.max_latency_us", NULL), "7");
	ck_assert_int_eq(perftune_profile_stage(p, tx, PERFTUNE_PROFILE_HOLD), 1);
	ck_assert_str_eq(item(p, "pmqos.cpu_dma_latency_us", NULL), "7");
	ck_assert_ptr_null(item(p, "cpu.all.idle.max_latency_us", NULL));
	perftune_tx_unref(tx);
	perftune_profile_free(p);
}
END_TEST

/* ---- export ---- */

static char *export_p(struct perftune_profile *p, int fmt)
{
	char *text = NULL;

	ck_assert_int_ge(perftune_export_profile(p, fmt, &text), 0);
	return text;
}

START_TEST(export_formats_of_a_profile)
{
	struct perftune_profile *p, *q;
	char *t, path[PATH_MAX];
	const char *vars[] = { "disks=sd*", NULL };
	FILE *fp;

	put("ex", "[disk]\ndevices=${disks}\nelevator=deadline\nreadahead=256\n"
		  "[disk-ssd]\ntype=disk\ndevices=nvme*\nrotational=0\nelevator=none\n"
		  "[sysctl]\nvm.swappiness=10\nvm.nr_hugepages=64\nnet/ipv4/conf/eth0.100/rp_filter=0\n"
		  "[vm]\ntransparent_hugepages=never\n[selinux]\navc_cache_threshold=8192\n"
		  "[script]\nscript=/bin/true\n");
	p = load("ex", vars);
	t = export_p(p, PERFTUNE_EXPORT_SYSCTL);
	ck_assert_ptr_nonnull(strstr(t, "\nvm.swappiness = 10\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nvm.nr_hugepages = 64\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nnet/ipv4/conf/eth0.100/rp_filter = 0\n"));
	ck_assert_ptr_nonnull(strstr(t, "# not a sysctl: thp.enabled = never"));
	free(t);
	t = export_p(p, PERFTUNE_EXPORT_UDEV);
	/* one rule per attribute, each guarded by its file, the scheduler first */
	ck_assert_ptr_nonnull(strstr(t, "ACTION==\"add|change\", SUBSYSTEM==\"block\", "
					"ENV{DEVTYPE}==\"disk\", KERNEL==\"sd*\", "
					"TEST==\"queue/scheduler\", ATTR{queue/scheduler}=\"mq-deadline\"\n"
					"ACTION==\"add|change\", SUBSYSTEM==\"block\", "
					"ENV{DEVTYPE}==\"disk\", KERNEL==\"sd*\", "
					"TEST==\"queue/read_ahead_kb\", ATTR{queue/read_ahead_kb}=\"256\"\n"));
	ck_assert_ptr_nonnull(strstr(t, "KERNEL==\"nvme*\", ATTR{queue/rotational}==\"0\", "
					"TEST==\"queue/scheduler\", ATTR{queue/scheduler}=\"none\"\n"));
	for (const char *l = strstr(t, "ACTION=="); l; l = strstr(l + 1, "ACTION==")) {
		const char *end = strchr(l, '\n');
		int assigned = 0; /* ATTR{x}="v" (a match is ATTR{x}=="v") */
		for (const char *a = strstr(l, "}=\""); a && a < end; a = strstr(a + 1, "}=\""))
			assigned++;
		ck_assert_msg(assigned == 1, "not one assignment: %.*s", (int)(end - l), l);
	}
	free(t);
	t = export_p(p, PERFTUNE_EXPORT_CMDLINE);
	ck_assert_str_eq(t, "default_hugepagesz=2M hugepages=64 transparent_hugepage=never\n"
			    "# skipped here: [script] script = /bin/true: runs a program: a profile "
			    "never executes anything\n");
	free(t);
	/* the TuneD export loads again to the same keys */
	t = export_p(p, PERFTUNE_EXPORT_TUNED);
	mkdir(strcat(strcpy(path, dir), "/roundtrip"), 0755);
	fp = fopen(strcat(path, "/tuned.conf"), "w");
	ck_assert_ptr_nonnull(fp);
	fputs(t, fp);
	fclose(fp);
	free(t);
	q = load("roundtrip", NULL);
	static const char *const keys[] = { "block.sda.scheduler", "block.sdc.read_ahead_kb",
					    "block.nvme0n1.scheduler", "sysctl.vm.swappiness",
					    "hugepages.nr", "thp.enabled", "selinux.avc.cache_threshold",
					    "sysctl.net.ipv4.conf.[eth0.100].rp_filter" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *a = item(p, keys[i], NULL);
		char va[PERFTUNE_VALUE_MAX];
		ck_assert_msg(a, "%s missing", keys[i]);
		snprintf(va, sizeof(va), "%s", a);
		ck_assert_msg(item(q, keys[i], NULL) && !strcmp(item(q, keys[i], NULL), va),
			      "%s: %s after the round trip", keys[i], va);
	}
	perftune_profile_free(q);
	perftune_profile_free(p);
}
END_TEST

START_TEST(export_of_a_transaction)
{
	struct perftune_tx *tx = tx_new("ext", 0);
	char *t = NULL;

	ck_assert_int_eq(perftune_export_transaction(f.ctx, "ext", PERFTUNE_EXPORT_SYSCTL, &t),
			 -ENOENT);
	ck_assert_int_ge(perftune_tx_set(tx, "sysctl.vm.swappiness", "7"), 1);
	ck_assert_int_ge(perftune_tx_set(tx, "block.sda.scheduler", "none"), 1);
	ck_assert_int_ge(perftune_tx_commit(tx), 2);
	ck_assert_int_eq(perftune_export_transaction(f.ctx, "ext", PERFTUNE_EXPORT_SYSCTL, &t), 1);
	ck_assert_ptr_nonnull(strstr(t, "\nvm.swappiness = 7\n"));
	free(t);
	ck_assert_int_eq(perftune_export_transaction(f.ctx, "ext", PERFTUNE_EXPORT_UDEV, &t), 1);
	ck_assert_ptr_nonnull(strstr(t, "KERNEL==\"sda\", TEST==\"queue/scheduler\", "
					"ATTR{queue/scheduler}=\"none\"\n"));
	free(t);
	perftune_tx_unref(tx);
	ck_assert_int_eq(perftune_restore(f.ctx, "ext", 0), 2);
}
END_TEST

/* a pattern rule meets devices without the attribute: zram0 has no iosched */
START_TEST(export_udev_guards_each_rule_by_its_attribute)
{
	struct perftune_profile *p;
	char *t;

	put("flash", "[disk-flash]\ntype=disk\nrotational=0\nelevator=none\n");
	p = load("flash", NULL);
	t = export_p(p, PERFTUNE_EXPORT_UDEV);
	ck_assert_ptr_nonnull(strstr(t, "ENV{DEVTYPE}==\"disk\", ATTR{queue/rotational}==\"0\", "
					"TEST==\"queue/scheduler\", ATTR{queue/scheduler}=\"none\"\n"));
	free(t);
	perftune_profile_free(p);
}
END_TEST

/* what this machine skips stays in every format, with the reason */
START_TEST(export_keeps_skipped_options_as_comments)
{
	struct perftune_profile *p;
	char cmd[PATH_MAX + 64];
	const int fmts[] = { PERFTUNE_EXPORT_SYSCTL, PERFTUNE_EXPORT_UDEV, PERFTUNE_EXPORT_CMDLINE,
			     PERFTUNE_EXPORT_TUNED };

	/* a build host: no cpufreq driver, SELinux off */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/fs/selinux %s/sys/devices/system/cpu/cpu*/cpufreq",
		 f.root, f.root);
	ck_assert_int_eq(system(cmd), 0);
	put("build", "[cpu]\ngovernor=performance\n[selinux]\navc_cache_threshold=8192\n"
		     "[sysctl]\nvm.swappiness=10\n");
	p = load("build", NULL);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		char *t = export_p(p, fmts[i]);
		const char *gov = strstr(t, "\n# skipped here: [cpu] governor = performance: ");
		const char *se = strstr(t, "\n# skipped here: [selinux] avc_cache_threshold = 8192: ");
		ck_assert_msg(gov, "format %d lost [cpu] governor:\n%s", fmts[i], t);
		ck_assert_msg(se, "format %d lost [selinux]:\n%s", fmts[i], t);
		ck_assert_ptr_nonnull(strstr(gov, "no cpufreq driver"));
		ck_assert_ptr_nonnull(strstr(se, "SELinux is not enabled"));
		free(t);
	}
	perftune_profile_free(p);
}
END_TEST

START_TEST(list_sorted_first_directory_wins)
{
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;
	char two[PATH_MAX], env[2 * PATH_MAX + 2], p[PATH_MAX + 32];
	const char *names[3] = { 0 };
	int n = 0;
	FILE *fp;

	put("zeta", "[main]\nsummary=last\n");
	put("alpha", "[main]\nsummary=first\n");
	snprintf(two, sizeof(two), "%s/two", f.root);
	snprintf(p, sizeof(p), "%s/alpha", two);
	ck_assert_int_eq(mkdir(two, 0755) | mkdir(p, 0755), 0);
	fp = fopen(strcat(p, "/tuned.conf"), "w");
	fputs("[main]\nsummary=shadowed\n", fp);
	fclose(fp);
	snprintf(env, sizeof(env), "%s:%s", dir, two);
	setenv("PERFTUNE_PROFILE_PATH", env, 1);
	ck_assert_int_eq(perftune_profile_list(f.ctx, &it), 0);
	while ((e = perftune_profile_entry_iter_next(it))) {
		ck_assert_int_lt(n, 2);
		names[n++] = strdup(perftune_profile_entry_name(e));
		if (!strcmp(perftune_profile_entry_name(e), "alpha"))
			ck_assert_str_eq(perftune_profile_entry_summary(e), "first");
	}
	perftune_profile_entry_iter_free(it);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(names[0], "alpha");
	ck_assert_str_eq(names[1], "zeta");
	free((void *)names[0]);
	free((void *)names[1]);
}
END_TEST

/* ---- whom a profile is trusted from ---- */

static char warnings[4096];

static void keep_warning(struct perftune_ctx *ctx, int prio, const char *msg, void *ud)
{
	(void)ctx;
	(void)ud;
	if (prio <= PERFTUNE_LOG_WARNING)
		snprintf(warnings + strlen(warnings), sizeof(warnings) - strlen(warnings), "%s\n",
			 msg);
}

/* load @name: its errno, warnings in warnings[] */
static int load_warned(const char *name)
{
	struct perftune_profile *p = NULL;
	int r;

	warnings[0] = '\0';
	perftune_ctx_set_log_fn(f.ctx, keep_warning, PERFTUNE_LOG_WARNING, NULL);
	r = perftune_profile_load(f.ctx, name, NULL, &p);
	perftune_profile_free(p);
	return r;
}

static void assert_warned(const char *what)
{
	ck_assert_msg(strstr(warnings, what), "warnings lack '%s': '%s'", what, warnings);
}

START_TEST(profile_others_can_write_is_refused_by_name_read_by_path)
{
	char conf[PATH_MAX], pdir[PATH_MAX], inc[PATH_MAX], path[PATH_MAX + 16];

	put("trusted", "[sysctl]\nvm.swappiness=5\n");
	put("child", "[main]\ninclude=trusted\n[sysctl]\nvm.dirty_ratio=7\n");
	snprintf(pdir, sizeof(pdir), "%s/trusted", dir);
	snprintf(conf, sizeof(conf), "%s/trusted/tuned.conf", dir);
	snprintf(inc, sizeof(inc), "%s/child/tuned.conf", dir);
	ck_assert_int_eq(load_warned("trusted"), 0);
	ck_assert_str_eq(warnings, "");

	/* the file writable by others, by its group, the directory, the search directory */
	static const struct {
		const char *what;
		mode_t file, pdir, sdir;
		const char *why;
	} modes[] = {
		{ "file o+w", 0646, 0755, 0755, "tuned.conf is writable by others (mode 0646)" },
		{ "file g+w", 0664, 0755, 0755, "tuned.conf is writable by its group (mode 0664)" },
		{ "dir o+w", 0644, 0757, 0755, "/trusted is writable by others (mode 0757)" },
		{ "dir o+w sticky", 0644, 01777, 0755, "/trusted is writable by others (mode 1777)" },
		{ "search dir o+w", 0644, 0755, 0777, "/profiles is writable by others (mode 0777)" },
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		bool grp = modes[i].file & S_IWGRP;
		ck_assert_int_eq(chmod(conf, modes[i].file) | chmod(pdir, modes[i].pdir) |
					 chmod(dir, modes[i].sdir),
				 0);
		/* group write is fine for root's group: make the file's group another one */
		if (grp && getuid() == 0)
			ck_assert_int_eq(chown(conf, 0, 65534), 0);
		if (grp && getuid() != 0 && getgid() == 0)
			continue; /* cannot give the file another group than root's */
		ck_assert_msg(load_warned("trusted") == -ENOENT, "%s: accepted", modes[i].what);
		assert_warned("trusted/tuned.conf refused: ");
		assert_warned(modes[i].why);
		ck_assert_msg(strstr(perftune_ctx_last_error(f.ctx), "profile 'trusted' not found"),
			      "%s: %s", modes[i].what, perftune_ctx_last_error(f.ctx));
		/* found by name through include=: refused too, the includer names the line */
		ck_assert_msg(load_warned("child") == -ENOENT, "%s: include accepted", modes[i].what);
		assert_warned(modes[i].why);
		ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx),
					     modes[i].sdir == 0755
						     ? "child/tuned.conf:2: included profile 'trusted' not found"
						     : "profile 'child' not found"));
		/* given by path: read, with a warning */
		ck_assert_int_eq(load_warned(conf), 0);
		assert_warned("can be changed by others than root: ");
		assert_warned(modes[i].why);
		snprintf(path, sizeof(path), "%s", pdir);
		ck_assert_int_eq(load_warned(path), 0);
		assert_warned(modes[i].why);
		if (grp && getuid() == 0)
			ck_assert_int_eq(chown(conf, 0, 0), 0);
	}
	ck_assert_int_eq(chmod(conf, 0644) | chmod(pdir, 0755) | chmod(dir, 0755), 0);
	ck_assert_int_eq(load_warned("child"), 0);
	ck_assert_str_eq(warnings, "");
	/* group root may write (as sudo allows), a sticky o+w directory above the search path too */
	if (getgid() == 0 || getuid() == 0) {
		ck_assert_int_eq(chown(conf, getuid(), 0), 0);
		ck_assert_int_eq(chmod(conf, 0664), 0);
		ck_assert_int_eq(load_warned("trusted"), 0);
		ck_assert_str_eq(warnings, "");
		ck_assert_int_eq(chmod(conf, 0644), 0);
	}
	ck_assert_int_eq(chmod(f.root, 01777), 0);
	ck_assert_int_eq(load_warned("child"), 0);
	ck_assert_str_eq(warnings, "");
	ck_assert_int_eq(chmod(f.root, 0777), 0);
	ck_assert_int_eq(load_warned("child"), -ENOENT);
	assert_warned(" is writable by others (mode 0777)");
	ck_assert_int_eq(chmod(f.root, 0700), 0);

	/* owned by another user (root only: chown) */
	if (getuid() == 0) {
		ck_assert_int_eq(chown(conf, 65534, 0), 0);
		ck_assert_int_eq(load_warned("trusted"), -ENOENT);
		assert_warned("tuned.conf is owned by another user than root (mode 0644)");
		ck_assert_int_eq(load_warned(conf), 0);
		assert_warned("owned by another user than root");
		ck_assert_int_eq(chown(conf, 0, 0), 0);
	}
}
END_TEST

START_TEST(list_leaves_out_profiles_others_can_write)
{
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;
	char conf[PATH_MAX];
	int n = 0;

	put("kept", "[main]\nsummary=kept\n");
	put("open", "[main]\nsummary=open\n");
	snprintf(conf, sizeof(conf), "%s/open/tuned.conf", dir);
	ck_assert_int_eq(chmod(conf, 0666), 0);
	warnings[0] = '\0';
	perftune_ctx_set_log_fn(f.ctx, keep_warning, PERFTUNE_LOG_WARNING, NULL);
	ck_assert_int_eq(perftune_profile_list(f.ctx, &it), 0);
	while ((e = perftune_profile_entry_iter_next(it))) {
		ck_assert_str_eq(perftune_profile_entry_name(e), "kept");
		n++;
	}
	perftune_profile_entry_iter_free(it);
	ck_assert_int_eq(n, 1);
	assert_warned("open/tuned.conf refused: ");
}
END_TEST

/* ---- an instance's variables file: <dir>/<name>/variables.conf ---- */

static void put_vars(const char *name, const char *text, mode_t mode)
{
	put_file(name, "variables.conf", text, mode);
}

static const char inst_conf[] = "[variables]\nratio=20\n"
				"[sysctl]\nvm.dirty_ratio=${ratio}\nvm.swappiness=${swap}\n"
				"[disk]\ndevices=${disks}\nelevator=none\n";

START_TEST(instance_variables_file_sets_and_v_overrides_it)
{
	const char *vars[] = { "ratio=40", NULL };
	struct perftune_profile *p;
	char path[PATH_MAX];

	put("inst", inst_conf);
	put_vars("inst", "# the admin's\n ratio = 30 \n\nswap=7\ndisks=sdb\n", 0644);
	p = load("inst", NULL);
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "30"); /* over [variables] */
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "7");
	ck_assert_str_eq(item(p, "block.sdb.scheduler", NULL), "none");
	perftune_profile_free(p);
	p = load("inst", vars); /* -v wins over the file */
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "40");
	ck_assert_str_eq(item(p, "sysctl.vm.swappiness", NULL), "7");
	perftune_profile_free(p);
	/* given by path, a profile has no instance: the file is not read */
	snprintf(path, sizeof(path), "%s/inst", dir);
	p = load(path, NULL);
	ck_assert_str_eq(item(p, "sysctl.vm.dirty_ratio", NULL), "20");
	ck_assert_ptr_nonnull(strstr(skipped(p, "[sysctl] vm.swappiness"), "${swap} is not defined"));
	perftune_profile_free(p);
}
END_TEST

START_TEST(instance_variables_file_refused_unless_only_root_can_change_it)
{
	struct perftune_profile *p = NULL;
	char file[PATH_MAX], other[PATH_MAX];

	put("inst", inst_conf);
	snprintf(file, sizeof(file), "%s/inst/variables.conf", dir);
	put_vars("inst", "swap=7\n", 0646);
	ck_assert_int_eq(perftune_profile_load(f.ctx, "inst", NULL, &p), -EPERM);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "is writable by others"));
	/* a link, even to a file root owns, is refused: its directory is not checked */
	put("other", "[main]\n");
	put_vars("other", "swap=9\n", 0644);
	snprintf(other, sizeof(other), "%s/other/variables.conf", dir);
	ck_assert_int_eq(unlink(file) | symlink(other, file), 0);
	ck_assert_int_eq(perftune_profile_load(f.ctx, "inst", NULL, &p), -EPERM);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "a symbolic link"));
	ck_assert_int_eq(unlink(file), 0);
	put_vars("inst", "swap=7\nswap 8\n", 0644); /* the -v syntax, nothing looser */
	ck_assert_int_eq(perftune_profile_load(f.ctx, "inst", NULL, &p), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx),
				     "inst/variables.conf:2: expected NAME=VALUE"));
	ck_assert_ptr_null(p);
}
END_TEST

START_TEST(undefined_variable_warns_and_strict_names_it_before_staging)
{
	struct perftune_tx *tx = tx_new("u", 0);
	struct perftune_profile *p;

	put("inst", inst_conf);
	p = load("inst", NULL);
	warnings[0] = '\0';
	perftune_ctx_set_log_fn(f.ctx, keep_warning, PERFTUNE_LOG_WARNING, NULL);
	ck_assert_int_eq(perftune_profile_stage(p, tx, PERFTUNE_PROFILE_STRICT), -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "is not defined (strict)"));
	ck_assert_ptr_nonnull(strstr(perftune_ctx_last_error(f.ctx), "inst/variables.conf"));
	ck_assert_int_eq(staged(tx), 0);
	ck_assert_int_eq(perftune_profile_stage(p, tx, 0), 1); /* vm.dirty_ratio only */
	assert_warned("variable ${swap} is not defined: vm.swappiness (");
	assert_warned("variable ${disks} is not defined: [disk] devices (");
	assert_warned("set it with -v disks=VALUE or in ");
	perftune_tx_unref(tx);
	perftune_profile_free(p);
}
END_TEST

START_TEST(list_names_the_variables_and_those_unset)
{
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;

	put("inst", inst_conf);
	put_vars("inst", "swap=7\n", 0644);
	put("plain", "[sysctl]\nvm.swappiness=\\${lit}\n");
	ck_assert_int_eq(perftune_profile_list(f.ctx, &it), 0);
	e = perftune_profile_entry_iter_next(it);
	ck_assert_str_eq(perftune_profile_entry_name(e), "inst");
	ck_assert_str_eq(perftune_profile_entry_variables(e), "ratio swap disks");
	ck_assert_str_eq(perftune_profile_entry_unset_variables(e), "disks");
	e = perftune_profile_entry_iter_next(it);
	ck_assert_str_eq(perftune_profile_entry_name(e), "plain");
	ck_assert_ptr_null(perftune_profile_entry_variables(e)); /* an escaped literal */
	ck_assert_ptr_null(perftune_profile_entry_unset_variables(e));
	perftune_profile_entry_iter_free(it);
	ck_assert_ptr_null(perftune_profile_entry_variables(NULL));
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, bad_input_is_an_error_naming_file_and_line, 0,
			    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, missing_profile_names_the_search_path);
	tcase_add_test(tc, default_path_puts_vendor_profiles_below_the_admins);
	tcase_add_test(tc, comments_continuations_and_duplicates_parse_like_configparser);
	tcase_add_test(tc, include_merges_later_files_win);
	tcase_add_test(tc, include_loops_and_optional_includes_terminate);
	tcase_add_test(tc, variables_functions_and_overrides);
	tcase_add_test(tc, variables_file_include_is_confined);
	tcase_add_test(tc, loader_reads_what_tuned_reads);
	tcase_add_test(tc, unset_variable_skips_but_asks_the_queue_count);
	tcase_add_loop_test(tc, functions_give_tuned_values_or_say_why_not, 0,
			    (int)(sizeof(funcs) / sizeof(funcs[0])));
	tcase_add_test(tc, devices_globs_exclusions_first_unit_wins);
	tcase_add_test(tc, unit_conditions_priority_and_disabled);
	tcase_add_test(tc, conditional_and_sector_values);
	tcase_add_test(tc, plugins_map_or_skip_with_reason);
	tcase_add_test(tc, irq_plugins_and_isolated_cores_options);
	tcase_add_test(tc, rotational_selects_disks_by_their_attribute);
	tcase_add_test(tc, strict_turns_a_skip_into_an_error_and_stages_nothing);
	tcase_add_test(tc, apply_then_restore_gives_back_every_file);
	tcase_add_test(tc, reapply_does_not_compound_readahead_multiply);
	tcase_add_test(tc, force_latency_holds_pmqos_only_with_a_hold);
	tcase_add_test(tc, export_formats_of_a_profile);
	tcase_add_test(tc, export_of_a_transaction);
	tcase_add_test(tc, export_udev_guards_each_rule_by_its_attribute);
	tcase_add_test(tc, export_keeps_skipped_options_as_comments);
	tcase_add_test(tc, list_sorted_first_directory_wins);
	tcase_add_test(tc, profile_others_can_write_is_refused_by_name_read_by_path);
	tcase_add_test(tc, list_leaves_out_profiles_others_can_write);
	tcase_add_test(tc, instance_variables_file_sets_and_v_overrides_it);
	tcase_add_test(tc, instance_variables_file_refused_unless_only_root_can_change_it);
	tcase_add_test(tc, undefined_variable_warns_and_strict_names_it_before_staging);
	tcase_add_test(tc, list_names_the_variables_and_those_unset);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	static Suite *(*const suites[])(void) = { profile_suite };

	return harness_main(argc, argv, suites, 1);
}
