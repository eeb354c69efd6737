/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the profile files share (profile*.c, export.c).  A profile is TuneD's
 * tuned.conf format: read (ini.c), located and merged with its
 * includes (load.c), expanded (vars.c, func.c) and
 * mapped onto keys (map.c, dev.c, cpu.c).
 * Nothing a profile names is ever executed.
 */
#ifndef PERFTUNE_PROFILE_INTERNAL_H
#define PERFTUNE_PROFILE_INTERNAL_H

#include "internal.h"

#define PT_PROFILE_FILE_MAX (1 << 20) /* bytes of one tuned.conf */
#define PT_PROFILE_DEPTH 32	      /* include nesting */
#define PT_CPUS_MAX 8192

static inline void pt_strv_freep(char ***v)
{
	pt_strv_free(*v);
}

/* ---- a growable string (opt.c) ---- */
struct pt_buf {
	char *s;
	size_t len, cap;
	bool oom;
};
void pt_buf_add(struct pt_buf *b, const char *s, size_t n);
void pt_buf_puts(struct pt_buf *b, const char *s);
void pt_buf_printf(struct pt_buf *b, const char *fmt, ...) _printf_(2, 3);
char *pt_buf_steal(struct pt_buf *b); /* NULL if out of memory */

/* ---- ini.c (reading), opt.c (options, sections, merge) ---- */
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

/* Parse @path (read from the host filesystem); errors name file and line. */
int pt_ini_parse(struct perftune_ctx *ctx, const char *path, const char *file_id, bool headerless,
		 struct pt_pconf *conf);
void pt_pconf_free(struct pt_pconf *c);
/* opt.c: merge parsed file @b into @p (TuneD's Merger); @b is consumed */
int pt_profile_merge(struct perftune_profile *p, struct pt_pconf *b);
void pt_punit_free(struct pt_punit *u);
struct pt_popt *pt_popt_find(struct pt_popt *o, size_t n, const char *name);
/* Set (update in place, or append) option @name. */
int pt_popt_set(struct pt_popt **o, size_t *n, const struct pt_popt *src);
void pt_popt_del(struct pt_popt *o, size_t *n, const char *name);
/* Split TuneD's unit attributes (type=, devices=, ...) off the options. */
int pt_unit_extract(struct pt_punit *u);

/* ---- profile items: what the profile maps to ---- */
enum { PT_HINT_NONE, PT_HINT_DISK_GLOB };
struct pt_pitem {
	char *option; /* "disk.readahead", "variables.tmpdir" */
	char *origin; /* "/usr/lib/tuned/x/tuned.conf:12" */
	char *raw;    /* value as written, after expansion */
	char *key;    /* NULL when skipped before a key was known */
	char *value;
	char *note;
	unsigned flags; /* PT_ITEM_SKIPPED, PT_ITEM_UNCHANGED */
	bool unvalidated; /* validation needs root: checked again when staged */
	/* export hint: the value holds for every disk the unit selects */
	char *udev_match; /* e.g. KERNEL=="sd*", ATTR{queue/rotational}=="0" */
};

struct pt_vars;

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
	struct pt_pitem *items;
	size_t nitems;
	struct perftune_tx *check; /* scratch DRY_RUN transaction for validation */
	unsigned map_flags;
	char *txname;
};

/* ---- load.c ---- */
int pt_profile_locate(struct perftune_ctx *ctx, const char *name, char **const skip, bool tuned_only,
		      char **path);
int pt_profile_read(struct perftune_profile *p, const char *name_or_path);
char **pt_profile_path(void); /* search path, NULL-terminated, malloc'd */

/* ---- vars.c ---- */
struct pt_vars *pt_vars_new(void);
void pt_vars_free(struct pt_vars *v);
int pt_vars_override(struct perftune_profile *p, const char *const *defs);
/* Define the [variables] unit's variables in order (include= reads a file). */
int pt_vars_define(struct perftune_profile *p, const struct pt_punit *u);
/*
 * Expand ${var} and ${f:...} into *@out; *@unresolved says what could not be
 * evaluated (or NULL).  Return 0, or -errno (a failed assertion: -EINVAL).
 */
int pt_vars_expand(struct perftune_profile *p, const char *in, const struct pt_popt *o,
		   char **out, char **unresolved);
/* expand.c: the ${f:...} pass; *err < 0 on a failed assertion */
char *pt_expand_functions(struct perftune_profile *p, const char *in, const struct pt_popt *o,
			  struct pt_buf *why, int *err);
/* ${f:...} functions only, before variables exist (include=). */
int pt_func_expand(struct perftune_profile *p, const char *in, const struct pt_popt *o,
		   char **out, char **unresolved);

/* ---- func.c ---- */
/* Run built-in function @name on @argv; *out is malloc'd, NULL if not evaluated. */
int pt_func_call(struct perftune_profile *p, const struct pt_popt *o, const char *name, int argc,
		 char **argv, char **out, char **why);
/* ---- cpus.c: masks of PT_CPUS_MAX bits ---- */
#define PT_CPUS_BYTES (PT_CPUS_MAX / 8)
int pt_cpus_parse(const char *s, unsigned char *mask); /* TuneD's cpulist syntax */
int pt_cpus_online(struct perftune_ctx *ctx, unsigned char *mask);
void pt_cpus_set(unsigned char *m, long i, bool on);
bool pt_cpus_has(const unsigned char *m, int i);
int pt_cpus_hex(const char *s, unsigned char *m);     /* "0x..." (commas allowed) */
char *pt_cpus_list(const unsigned char *m, const char *prefix, bool pack); /* "0,1" / "0-1" */
char *pt_cpus_hexstr(const unsigned char *m);	      /* "0000000f" */
char *pt_cpus_isolated(struct perftune_ctx *ctx, int reserve); /* calc_isolated_cores */
bool pt_regex_search(const char *re, const char *text, bool *bad);
int pt_machine_uname(struct perftune_ctx *ctx, char *buf, size_t size);

/* ---- map.c ---- */
int pt_profile_map(struct perftune_profile *p, unsigned flags, const char *txname);
void pt_pitems_free(struct perftune_profile *p);
/* Add an item; @key NULL for an option skipped before it had a key. */
struct pt_pitem *pt_pitem_add(struct perftune_profile *p, const struct pt_punit *u,
			      const struct pt_popt *o, const char *key, const char *value,
			      unsigned flags, const char *fmt, ...) _printf_(7, 8);
void pt_pitem_skip(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		   const char *fmt, ...) _printf_(4, 5);
/* Validate @value for @key; map errors to a skip.  Return 1 staged, 0 skipped, -errno. */
int pt_pmap_key(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		const char *key, const char *value, bool first_offered, struct pt_pitem **out);
/* ">N" / "<N": keep the current value if it already satisfies; 1 = handled. */
int pt_pmap_cond(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		 const char *key, const char *value);
int pt_pmap_sysfs(struct perftune_profile *p, const struct pt_punit *u, const struct pt_popt *o,
		  const char *path, const char *value);
bool pt_is_true(const char *v);
/* pt_err() of "<prefix>: <the context's current message>" */
int pt_err_prefix(struct perftune_ctx *ctx, int err, const char *fmt, ...) _printf_(3, 4);

/* ---- dev.c: devices= and the device plugins ---- */
struct pt_devset {
	char (*name)[128];
	size_t n;
};
void pt_devset_free(struct pt_devset *d);
bool pt_devices_match(const char *rules, const char *name);
/* devices= of @u expanded into *@rules; the devices it gets (none taken before) */
int pt_unit_devices(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
		    struct pt_devset *out, char **rules);
int pt_map_disk(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken);
int pt_map_devattr(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken);

bool pt_explicit_rules(const char *rules); /* a positive rule other than "*" */

/* ---- plugins.c ---- */
#define PT_DEVTYPES 6 /* disk, cpu, net, usb, audio, scsi_host: devices are per plugin */
int pt_map_unit(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
		unsigned flags);

/* ---- cpu.c ---- */
int pt_map_cpu(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
	       unsigned flags);

#endif
