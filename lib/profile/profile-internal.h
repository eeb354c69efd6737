/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the profile files share (lib/profile/, and lib/export/ for the items).
 * A profile is TuneD's tuned.conf format: found (path.c), read (ini.c) into
 * options and sections (opt.c), expanded (vars.c, expand.c, func.c, cpus.c),
 * merged with its includes (load.c) and mapped onto keys (map.c, then
 * plugins.c, disk.c, cpu.c, dev.c per plugin, items in item.c); profile.c is
 * the public API above them all.  The sections below go from the bottom up: a
 * file calls only files of the sections before its own, never one after.
 * Nothing a profile names is ever executed.
 */
#ifndef PERFTUNE_PROFILE_INTERNAL_H
#define PERFTUNE_PROFILE_INTERNAL_H

#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/buf.h"

/* Limits (perftune-profile(5)) */
#define PT_PROFILE_FILE_MAX (1 << 20)	  /* bytes of one tuned.conf */
#define PT_PROFILE_DEPTH 32		  /* include nesting */
#define PT_PROFILE_SECTIONS_MAX 256	  /* sections of one file */
#define PT_PROFILE_OPTIONS_MAX 1024	  /* options of one section in one file */
#define PT_PROFILE_VALUE_MAX (PT_VAL - 1) /* bytes of a value, as written or expanded */

/* ---- the data: a parsed file (ini.c), a profile (profile.c), its items (item.c) ---- */
struct pt_popt {
	char *name, *value;
	const char *file; /* owned by the profile's file list */
	int line;
};

struct pt_punit {
	char *name, *type, *devices, *drop;
	char *udev_regex, *cpuinfo_regex, *uname_regex, *script_pre, *script_post;
	bool enabled, replace;
	int priority;
	const char *file;
	int line;
	struct pt_popt *opt;
	size_t n;
};

struct pt_pconf {
	struct pt_popt *main; /* [main] options */
	size_t nmain;
	struct pt_punit *u;
	size_t n;
};

enum { PT_HINT_NONE, PT_HINT_DISK_GLOB };
/* the flags of an item: those of its public object (perftune_profile_items()) */
enum {
	PT_ITEM_SKIPPED = PERFTUNE_PROFILE_ITEM_SKIPPED,
	PT_ITEM_UNCHANGED = PERFTUNE_PROFILE_ITEM_UNCHANGED,
};
struct pt_pitem {
	char *option; /* "disk.readahead", "variables.tmpdir" */
	char *origin; /* "/usr/lib/tuned/x/tuned.conf:12" */
	char *raw;    /* value as written, after expansion */
	char *key;    /* NULL when skipped before a key was known */
	char *value;
	char *note;
	unsigned flags;	  /* PT_ITEM_SKIPPED, PT_ITEM_UNCHANGED */
	bool unvalidated; /* validation needs root: checked again when staged */
	/* export hint: the value holds for every disk the unit selects */
	char *udev_match; /* e.g. KERNEL=="sd*", ATTR{queue/rotational}=="0" */
};

struct pt_vars; /* vars.c's */

struct perftune_profile {
	struct perftune_ctx *ctx;
	char *name, *path, *summary, *description;
	char **files; /* every file read, for origins */
	size_t nfiles;
	struct pt_popt *main;
	size_t nmain;
	struct pt_punit *u; /* merged, in TuneD's instance order */
	size_t n;
	struct pt_vars *vars;
	char **overrides; /* -v NAME=VALUE */
	char **file_vars; /* NAME=VALUE of the instance's variables file (-v wins) */
	char *vars_file;  /* that file, or NULL */
	char *vars_hint;  /* without one: where it would be (loaded by name), or NULL */
	struct pt_pitem *items;
	size_t nitems;
	struct perftune_tx *check; /* scratch DRY_RUN transaction for validation */
	unsigned map_flags;
	char *txname;
	int refs; /* the caller's, and a held transaction's that follows its rules (follow.c) */
};

/* ---- regex.c: Python's re dialect (PCRE2) ---- */
/*
 * re.search(@re, @text[, re.MULTILINE]): 1, 0, or -EINVAL with *@err (malloc'd)
 * saying why @re does not compile or cannot be matched, -ENOMEM.
 */
int pt_regex_search(const char *re, const char *text, bool multiline, char **err);
/* re.split(@re, @text) into a NULL-terminated vector; NULL if out of memory or @re is bad */
char **pt_regex_split(const char *re, const char *text);

/* ---- path.c: the search path, finding a profile by name, whom a file is trusted from ---- */
char **pt_profile_path(void); /* search path, NULL-terminated, malloc'd */
/*
 * 0 and *path, or 0 and *path NULL (only files in @skip, already read), or -ENOENT.
 * @tuned_only: a TuneD profile includes as TuneD would, from TuneD's directories
 * only, so that perftune's profiles of the same name do not change it.  A
 * candidate others than root can write is refused with a warning.
 */
int pt_profile_locate(struct perftune_ctx *ctx, const char *name, char **const skip,
		      bool tuned_only, char **path);
/* the -ENOENT of a profile (included from @from:@line, or NULL) not on the search path */
int pt_profile_not_found(struct perftune_ctx *ctx, const char *name, const char *from, int line);
bool pt_profile_in_tuned_dir(struct perftune_ctx *ctx, const char *file);
/* below its root */			     /* <TuneD's dir>/<name>/tuned.conf */
bool pt_profile_dir_holds(const char *real); /* a variables file may be read from there */
/* false, with a warning naming it, if others than root can change @file (or @dir) */
bool pt_profile_trusted(struct perftune_ctx *ctx, const char *file, const char *dir);
void pt_profile_warn_unsafe(struct perftune_ctx *ctx, const char *file); /* given by path */
#define PT_PROFILE_VARS_FILE "variables.conf"
/* the first <dir>/@name/variables.conf on the search path: 0 and *@path (or NULL), -EPERM */
int pt_profile_vars_path(struct perftune_ctx *ctx, const char *name, char **path);
/* perftune_verify_named(), perftune_export_named(): PERFTUNE_NAMED_* @flags known, not both */
bool pt_named_flags_ok(unsigned flags);
/* ... and is @name looked up as a journaled transaction before a profile? (a path is not) */
bool pt_named_tx_first(const char *name, unsigned flags);

/* ---- opt.c: options and sections, TuneD's unit attributes, the merge ---- */
void pt_pconf_free(struct pt_pconf *c);
void pt_punit_free(struct pt_punit *u);
struct pt_popt *pt_popt_find(struct pt_popt *o, size_t n, const char *name);
/* Set (update in place, or append) option @name. */
int pt_popt_set(struct pt_popt **o, size_t *n, const struct pt_popt *src);
void pt_popt_del(struct pt_popt *o, size_t *n, const char *name);
/* Split TuneD's unit attributes (type=, devices=, ...) off the options. */
int pt_unit_extract(struct pt_punit *u);
/* merge parsed file @b into @p (TuneD's Merger); @b is consumed */
int pt_profile_merge(struct perftune_profile *p, struct pt_pconf *b);
bool pt_is_true(const char *v);

/* ---- ini.c: one tuned.conf read the way ConfigParser does ---- */
size_t pt_py_space(const char *s); /* bytes of the Python whitespace character at @s, or 0 */
char *pt_py_strip(char *s);	   /* str.strip(), in place */
/* @path's text (at most PT_PROFILE_FILE_MAX bytes, no NUL), or NULL and *@err */
char *pt_profile_file_read(struct perftune_ctx *ctx, const char *path, int *err);
/* Parse @path (read from the host filesystem); errors name file and line. */
int pt_ini_parse(struct perftune_ctx *ctx, const char *path, const char *file_id, bool headerless,
		 struct pt_pconf *conf);

/* ---- item.c: items, staging a key on the scratch transaction, the sysfs mapping ---- */
void pt_pitems_free(struct perftune_profile *p);
/* Add an item; @key NULL for an option skipped before it had a key. */
struct pt_pitem *pt_pitem_add(struct perftune_profile *p, const struct pt_punit *u,
			      const struct pt_popt *o, const char *key, const char *value,
			      unsigned flags, const char *fmt, ...) _printf_(7, 8);
void pt_pitem_skip(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		   const char *fmt, ...) _printf_(4, 5);
/* pt_err() of "<prefix>: <the context's current message>" */
int pt_err_prefix(struct perftune_ctx *ctx, int err, const char *fmt, ...) _printf_(3, 4);
/* Validate @value for @key; map errors to a skip.  Return 1 staged, 0 skipped, -errno. */
int pt_pmap_key(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		const char *key, const char *value, bool first_offered, struct pt_pitem **out);
/* ">N" / "<N": keep the current value if it already satisfies; 1 = handled. */
int pt_pmap_cond(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		 const char *key, const char *value);
/*
 * A unit attribute (devices=, cpuinfo_regex=, ...) as an option for its
 * expansion and messages: "[disk] devices" (in @name) at the section's line.
 */
struct pt_popt pt_unit_attr(const struct pt_punit *u, const char *attr, const char *value,
			    char *name, size_t size);
/* @path relative to the root ("sys/..."), as a sysfs[] key; CPU masks in the file's width */
int pt_pmap_sysfs(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		  const char *path, const char *value);

/* ---- cpus.c: the CPUs of this machine (lists and masks: shared/cpulist.c) ---- */
/* calc_isolated_cores: every CPU but the first @reserve of each package, as TuneD lists them */
char *pt_cpus_isolated(struct perftune_ctx *ctx, long reserve);

/* ---- func.c: TuneD's built-in functions, evaluated by reading the machine ---- */
/* Run built-in function @name on @argv; *out is malloc'd, NULL if not evaluated. */
int pt_func_call(struct perftune_profile *p, const struct pt_popt *o, const char *name, int argc,
		 char **argv, char **out, char **why);
int pt_machine_uname(struct perftune_ctx *ctx, char *buf, size_t size);

/* ---- expand.c: the ${f:...} pass, and what every expansion shares ---- */
bool pt_is_word(const char *s, size_t n); /* [A-Za-z0-9_]+ */
/* the error of a value that expands past PT_PROFILE_VALUE_MAX, naming file, line, option */
int pt_expand_too_long(struct perftune_profile *p, const struct pt_popt *o);
/*
 * Evaluate the ${f:...} of @in (what ${name} expansion left) into *@out;
 * *@unresolved: @why and the reasons for what is not evaluated, or NULL.
 * 0 or -errno; @why is consumed.
 */
int pt_expand_rest(struct perftune_profile *p, const char *in, const struct pt_popt *o,
		   struct pt_buf *why, char **out, char **unresolved);
/* ${f:...} functions only, before variables exist (include=). */
int pt_func_expand(struct perftune_profile *p, const char *in, const struct pt_popt *o, char **out,
		   char **unresolved);

/* ---- vars.c: [variables], -v overrides, ${name} ---- */
struct pt_vars *pt_vars_new(void);
void pt_vars_free(struct pt_vars *v);
int pt_vars_override(struct perftune_profile *p, const char *const *defs);
/* read profile @name's variables file, if it has one (perftune-profile(5)) */
int pt_vars_instance(struct perftune_profile *p, const char *name);
/* the variables anew: the instance's file, -v, then each [variables] unit */
int pt_vars_setup(struct perftune_profile *p);
/* the @i-th variable a value used undefined since pt_vars_setup(), NULL past the end; *@where */
const char *pt_vars_undefined(struct perftune_profile *p, size_t i, const char **where);
/* pt_vars_setup(), then the ${name}s the profile uses and those defined nowhere, space-separated */
int pt_vars_scan(struct perftune_profile *p, char **used, char **unset);
/* Define the [variables] unit's variables in order (include= reads a file). */
int pt_vars_define(struct perftune_profile *p, const struct pt_punit *u);
/*
 * Expand ${var} and ${f:...} into *@out; *@unresolved says what could not be
 * evaluated (or NULL).  Return 0, or -errno (a failed assertion, a value past
 * PT_PROFILE_VALUE_MAX: -EINVAL).
 */
int pt_vars_expand(struct perftune_profile *p, const char *in, const struct pt_popt *o, char **out,
		   char **unresolved);
/* @o's value expanded into *@v: 1; 0 when it could not be evaluated (@o skipped, saying why) */
int pt_vars_value(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		  char **v);

/* ---- load.c: a profile read with its include= chain, merged ---- */
int pt_profile_read(struct perftune_profile *p, const char *name_or_path);

/* ---- netopts.c: TuneD's [net] options that go through ethtool, onto net.<dev>.* keys ---- */
/* the devices of a unit: dev.c's struct pt_devset */
struct pt_devset;
bool pt_net_ethtool_option(const char *option); /* features, coalesce, pause, ring, channels */
int pt_map_net_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		      const struct pt_devset *devs);

/* ---- dev.c: devices= and the device plugins (net, usb, audio, scsi_host) ---- */
struct pt_devset {
	char (*name)[128];
	size_t n;
};
void pt_devset_free(struct pt_devset *d);
bool pt_explicit_rules(const char *rules); /* a positive rule other than "*" */
/* devices= of @u expanded into *@rules; the devices it gets (none taken before) */
int pt_unit_devices(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
		    struct pt_devset *out, char **rules);
int pt_map_devattr(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken);

/* ---- disk.c: the disk plugin ---- */
int pt_map_disk(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken);

/* ---- cpu.c: the cpu plugin ---- */
int pt_map_cpu(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
	       unsigned flags);

/* ---- isolate.c: the IRQ side of CPU isolation: [scheduler] isolated_cores, [irq], [irqbalance] ---- */
bool pt_isolate_option(const char *name); /* a [scheduler] option isolate.c maps */
/* isolated_cores (with default_irq_smp_affinity, irq_process) of @u; @v: @o's expanded value */
int pt_map_isolate(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o, char *v);
int pt_map_irq(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken);
int pt_map_irqbalance(struct perftune_profile *p, struct pt_punit *u);

/* ---- threads.c: isolated_cores' thread part ([scheduler]) ---- */
/* proc.<pid>.cpus=&@others of each process ps_whitelist/ps_blacklist take (isolate.c calls it) */
int pt_map_isolated_threads(struct perftune_profile *p, const struct pt_punit *u,
			    const struct pt_popt *o, const char *others);

/* ---- plugins.c: a unit to its plugin; the plugins without devices ---- */
#define PT_DEVTYPES 7 /* disk, cpu, net, usb, audio, scsi_host, irq: devices are per plugin */
int pt_map_unit(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
		unsigned flags);

/* ---- map.c: a merged profile onto keys, unit by unit in TuneD's order ---- */
int pt_profile_map(struct perftune_profile *p, unsigned flags, const char *txname);

/* ---- follow.c: a held transaction follows the profile's rules for devices added later ---- */
/* stage into @sub what device @name of @subsystem gets from @p now: the number of keys, -errno */
int pt_profile_stage_device(struct perftune_profile *p, struct perftune_tx *sub,
			    const char *subsystem, const char *name);

#endif
