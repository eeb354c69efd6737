/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the library's files share.  Each struct is private to its file unless here. */
#ifndef PERFTUNE_INTERNAL_H
#define PERFTUNE_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "perftune.h"
#include "macro.h"

#define PT_READ_MAX 65536 /* bounded reads of kernel files */
#define PT_VAL PERFTUNE_VALUE_MAX
#define PT_TX_NAME_MAX 64 /* a transaction name: 1-64 of [A-Za-z0-9_.@-], not '.' or '-' first */
#define PT_KEY_SHOWN 96	  /* bytes of a key quoted in an error message, then "..." */
#define PT_ERR_MAX (PERFTUNE_KEY_MAX + 1024) /* one message: a key and what went wrong */

/*
 * The first member of struct perftune_ctx (ctx.c): the part that attr.c and
 * log.c read, so that neither calls into ctx.c (which creates and frees the
 * attr state) and lib/ has no import circle.  ctx.c alone sets it.
 */
struct pt_attr;
struct pt_nl_transport;
struct pt_ctx_head {
	struct pt_attr *attr; /* attr.c: root and top fds, file cache, write hook, resolver */
	const struct pt_nl_transport *nl; /* net/nl.c: NULL = the running kernel's netlink */
	void *nl_data;
	perftune_log_fn log_fn;
	int log_max;
	void *log_data;
	pthread_mutex_t log_lock;
};
static inline struct pt_ctx_head *pt_ctx_head(struct perftune_ctx *ctx)
{
	return (struct pt_ctx_head *)ctx;
}

/* ---- ctx.c ---- */
struct pt_fcache;
int *pt_ctx_jdir(struct perftune_ctx *ctx); /* journal.c's, kept in the context */
bool pt_root_is_host(struct perftune_ctx *ctx);
/* libraries that read /sys themselves (libcpupower) see our root: host, or umockdev on it */
bool pt_sys_is_root(struct perftune_ctx *ctx);
/* the context's libudev handle, made on first use; NULL if libudev is not installed (or no memory) */
struct udev *pt_udev(struct perftune_ctx *ctx);
/* Map @r onto the errno set perftune.h documents: every exported int function returns through it. */
int pt_api_ret(int r);

/* ---- log.c: the log callback and the calling thread's last error ---- */
void pt_log(struct perftune_ctx *ctx, int prio, const char *fmt, ...) _printf_(3, 4);
/* Set the calling thread's one-line error and return @err (a negative errno). */
int pt_err(struct perftune_ctx *ctx, int err, const char *fmt, ...) _printf_(3, 4);
void pt_err_clear(struct perftune_ctx *ctx);
/* The current message: the calling worker's own while redirected. */
const char *pt_errmsg(struct perftune_ctx *ctx);
/* Send this thread's messages to @buf (NULL: back to the context). */
void pt_err_redirect(char *buf, size_t size);
/* Run fn(i, ud) for i in [0, n) on up to @max threads (at most PT_THREADS_MAX);
 * returns when all are done. */
#define PT_THREADS_MAX 256 /* a thread per device: a scheduler switch on 256 disks at once */
int pt_parallel(size_t n, size_t max, void (*fn)(size_t i, void *ud), void *ud);
/*
 * uring.c: write iov[i] to fds[i] at offset 0, all at once, in the kernel's
 * io-wq workers; res[i] = bytes written or -errno, -EINPROGRESS where the
 * outcome is unknown (write it yourself: it is the same value).  Returns how
 * many were submitted, or -EOPNOTSUPP without io_uring (use threads).
 */
struct iovec;
bool pt_uring_available(void); /* probed once */
int pt_uring_write(size_t n, const int *fds, const struct iovec *iov, int *res);
/*
 * A wave: the next write of each of many devices, made at once with
 * pt_uring_write() through their kept fds (or fds of its own when the cache
 * is full).  add: 1 queued, 0 full (the next wave), -errno cannot open.
 * Run: pt_attr_write_batch().  After it, res[q] is 0, -errno (the kernel's
 * answer), or -EINPROGRESS: write it again yourself (not known, busy or gone).
 */
#define PT_WAVE_MAX 256
struct pt_wave {
	size_t n, cap;
	size_t *who; /* the caller's index of each write */
	int *fd;
	bool *own;
	struct iovec *iov;
	int *res;
	const char **path; /* the caller's strings, for the write hook */
};
int pt_wave_init(struct pt_wave *w, size_t cap);
void pt_wave_reset(struct pt_wave *w); /* for the next wave */
void pt_wave_free(struct pt_wave *w);
/* attr.c: they open the files (or take the kept ones) and write through the hook */
int pt_wave_add(struct perftune_ctx *ctx, struct pt_wave *w, size_t who, const char *path,
		const char *value);
void pt_wave_run(struct perftune_ctx *ctx, struct pt_wave *w);
void pt_lock(struct perftune_ctx *ctx);
void pt_unlock(struct perftune_ctx *ctx);

/* ---- batch.c: the one engine of commit, rollback and restore ---- */
enum pt_strategy {
	PT_BATCH_SERIAL,  /* no device or one: in the caller's thread */
	PT_BATCH_WAVES,	  /* devices' writes at once through io_uring */
	PT_BATCH_THREADS, /* a thread per device (no io_uring) */
};
/* serial for fewer than two devices; else waves where io_uring is, threads elsewhere */
enum pt_strategy pt_batch_strategy(size_t ndev);
/* the unit tier: take @strategy for two or more devices (-1: choose again) */
void pt_batch_force(int strategy);
/*
 * Per item @i of group @g.  pre: everything before its write: 1 write it,
 * 0 nothing to write, -errno.  file: true with the path and value if the
 * write is a plain file write (it may join a wave).  write: the write here
 * and now.  refused: the kernel's -errno of a wave's write into the message.
 * post: after the write with its result @r: the item's result.  end: the
 * item's result (pre's or post's), in the group's thread.
 */
struct pt_batch_ops {
	int (*pre)(void *ud, size_t g, size_t i);
	bool (*file)(void *ud, size_t g, size_t i, const char **path, const char **value);
	int (*write)(void *ud, size_t g, size_t i);
	int (*refused)(void *ud, size_t g, size_t i, int r);
	int (*post)(void *ud, size_t g, size_t i, int r);
	void (*end)(void *ud, size_t g, size_t i, int r);
	bool stop_on_error; /* a failure ends the batch: no item starts any more */
};
/* the ops of a batch user whose callbacks are b_pre(), b_file(), ... b_end() */
#define PT_BATCH_OPS(stop)                                                                         \
	{                                                                                          \
		.pre = b_pre, .file = b_file, .write = b_write, .refused = b_refused,              \
		.post = b_post, .end = b_end, .stop_on_error = stop,                               \
	}
/*
 * Group 0 (no device) first in this thread, then groups 1..@ngrp-1 side by
 * side; grp[g] = [start, end) of the items.  -ECANCELED: stopped by an error.
 */
int pt_batch_run(struct perftune_ctx *ctx, const struct pt_batch_ops *ops, void *ud,
		 const size_t (*grp)[2], size_t ngrp);
/* fn(ud, g) for the devices' groups side by side (threads), then group 0 */
void pt_batch_groups(void *ud, void (*fn)(void *ud, size_t g), size_t ngrp);

/* ---- resolve.c: how attr.c opens a path below a top directory without leaving it ---- */
/* attr.c's, one per context: which resolver, why, a refusal of the fallback's calls */
struct pt_resolver_state {
	int mode, why, refused;
};
/*
 * Open @rest below the top directory fd @top: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), or where the kernel or a seccomp filter refuses it
 * (ENOSYS, EPERM; probed once per context) or PERFTUNE_NO_OPENAT2 is set, the
 * same confinement walked in user space.  -EPERM: it would leave the top;
 * -ELOOP: a magic link, too many links, or O_NOFOLLOW on a link.
 */
int pt_resolve_open(struct pt_resolver_state *s, int top, const char *rest, int flags);
/* the user-space walk alone (the unit tier and the fuzzer test it directly) */
int pt_resolve_user(int top, const char *rest, int flags);
/* use the user-space walk (@user) or openat2 from now on, no probe */
void pt_resolver_state_force(struct pt_resolver_state *s, bool user);
/* the name of pt_resolver_name(), probed below @top (sys/ or proc/; -errno: none) if need be */
const char *pt_resolver_state_name(struct pt_resolver_state *s, int top);

/* ---- attr.c: the only place that opens, reads and writes kernel files ---- */
/*
 * Its state, one per context (ctx.c creates and frees it): the root fd and
 * its top directories (sys, proc, dev: opened once, on first use), the file
 * cache, the write hook, the resolver chosen.
 */
#define PT_TOP_MAX 3
struct pt_attr *pt_attr_new(void);
void pt_attr_free(struct pt_attr *a);
/* take @root_fd (an O_PATH directory) as the root; its top fds are opened again */
void pt_attr_set_root(struct pt_attr *a, int root_fd, bool host);
/* the root's O_PATH fd, the context's (not to be closed): lookups below the root start there */
int pt_attr_root_fd(struct perftune_ctx *ctx);
/* use the user-space walk (@user) or openat2 from now on, no probe */
void pt_resolve_force(struct perftune_ctx *ctx, bool user);
/* "openat2 (RESOLVE_BENEATH)" or "user-space (openat2: <why>)", probed if need be */
const char *pt_resolver_name(struct perftune_ctx *ctx);
/* ENOSYS or EPERM: the user-space walk's own calls were refused (a filter); 0 if not */
int pt_resolver_refused(struct perftune_ctx *ctx);
/*
 * Paths are relative to the context root and must start with "sys/",
 * "proc/" or "dev/"; they are opened with pt_resolve_open() below that top
 * directory, so neither ".." nor a symlink can lead out of /sys or /proc.
 */
int pt_attr_open(struct perftune_ctx *ctx, const char *path, int flags);
/*
 * Between begin and end (nested: the outermost end counts), regular files
 * below sys/ and proc/ that are read, written or pt_attr_stat_file()d stay
 * open read-write, so that a call that reads, writes and reads back a file
 * opens it once.  Worker threads of the call share them.
 */
void pt_attr_cache_begin(struct perftune_ctx *ctx);
void pt_attr_cache_end(struct perftune_ctx *ctx);
/*
 * A cache of one's own (a transaction's, kept from its staging to its
 * rollback): *@own, created on first use, becomes the context's until
 * pt_attr_cache_unuse(ctx, <what use returned>); its files stay open in it
 * until pt_attr_cache_destroy().
 */
struct pt_fcache *pt_attr_cache_use(struct perftune_ctx *ctx, struct pt_fcache **own);
void pt_attr_cache_unuse(struct perftune_ctx *ctx, struct pt_fcache *prev);
void pt_attr_cache_destroy(struct pt_fcache *fc);
size_t pt_attr_cache_files(struct pt_fcache *fc); /* how many it keeps open */
/* stat a path that should be a file (kept open in a cache scope); -errno */
int pt_attr_stat_file(struct perftune_ctx *ctx, const char *path, struct stat *st);
/* the kept read-write fd of @path (opened now if need be), or -1 outside a cache scope */
int pt_attr_kept_fd(struct perftune_ctx *ctx, const char *path);
/* what a write or read of a kept fd answers when its file went away (open it again) */
bool pt_attr_gone(int r);
/* Read at most @size-1 bytes, NUL-terminate; return length or -errno. */
int pt_attr_read_raw(struct perftune_ctx *ctx, const char *path, char *buf, size_t size);
/* Read and normalize: the bracketed choice of a selection file, trimmed, blanks collapsed. */
int pt_attr_read(struct perftune_ctx *ctx, const char *path, char *buf, size_t size);
int pt_attr_write(struct perftune_ctx *ctx, const char *path, const char *value);
/* Write @len bytes and keep the fd open in *@hold_fd (PM QoS). */
int pt_attr_write_hold(struct perftune_ctx *ctx, const char *path, const void *buf, size_t len,
		       int *hold_fd);
bool pt_attr_exists(struct perftune_ctx *ctx, const char *path);
bool pt_attr_is_dir(struct perftune_ctx *ctx, const char *path);
/* 1 writable, 0 not (reason filled), -errno if missing. */
int pt_attr_writable(struct perftune_ctx *ctx, const char *path, char *reason, size_t size);
/* the file has a write bit: a tunable, not a read-only fact */
bool pt_attr_tunable(struct perftune_ctx *ctx, const char *path);
/* opendir below the root, confined like pt_attr_open. */
DIR *pt_attr_opendir(struct perftune_ctx *ctx, const char *path);
/* 1 if the directory has an entry besides . and .., 0 if not, -errno (one getdents) */
int pt_attr_dir_has_entries(struct perftune_ctx *ctx, const char *path);
int pt_attr_readlink(struct perftune_ctx *ctx, const char *path, char *buf, size_t size);

/* Swappable write, for the unit tier's simulated kernel (not exported). */
typedef int (*pt_write_fn)(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len,
			   void *userdata);
void pt_attr_set_write_fn(struct perftune_ctx *ctx, pt_write_fn fn, void *userdata);
pt_write_fn pt_attr_get_write_fn(struct perftune_ctx *ctx, void **userdata);
/*
 * Write iov[q] to the open file fds[q] (@paths[q]) for q in [0, n), all at
 * once: through io_uring, else from threads.  With a write hook installed
 * (the unit tier's simulated kernel), the hook writes each path instead, so
 * its faults and kills reach these writes too.  res[q]: 0, the kernel's
 * -errno, or -EINPROGRESS: not known, busy or gone (write it again yourself).
 */
void pt_attr_write_batch(struct perftune_ctx *ctx, size_t n, const char *const *paths,
			 const int *fds, const struct iovec *iov, int *res);
/* The real write(2) path, for simulators that fall through to it. */
int pt_attr_write_real(struct perftune_ctx *ctx, const char *path, const char *buf, size_t len);
/*
 * A thread's CPU affinity, a mask of PT_CPUS_MAX bits: read into @mask, or
 * set from it (@set).  -ESRCH: no such thread; -EINVAL: the kernel will not
 * move it (PF_NO_SETAFFINITY) or no CPU of @mask can run it; -EOPNOTSUPP
 * under a root that is not the host's.  Swappable for the unit tier.
 */
typedef int (*pt_affinity_fn)(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set,
			      void *userdata);
void pt_attr_set_affinity_fn(struct perftune_ctx *ctx, pt_affinity_fn fn, void *userdata);
int pt_attr_affinity(struct perftune_ctx *ctx, int tid, unsigned char *mask, bool set);
/*
 * Kernel modules (shared/kmod.c, libkmod): FIND 0 in modules.dep, 1 built in,
 * -ENOENT; DEPS: the modules a load brings in that are not loaded, in @out;
 * LOAD with @options (modprobe.d's too; -EPERM with the command in @out when
 * modprobe.d has an install command for it: nothing is ever executed); UNLOAD
 * that one module.  Swappable for the unit tier; -EOPNOTSUPP under a root that
 * is not the host's.
 */
enum { PT_KMOD_FIND, PT_KMOD_DEPS, PT_KMOD_LOAD, PT_KMOD_UNLOAD };
typedef int (*pt_kmod_fn)(struct perftune_ctx *ctx, int op, const char *name, const char *options,
			  char *out, size_t size, void *userdata);
void pt_attr_set_kmod_fn(struct perftune_ctx *ctx, pt_kmod_fn fn, void *userdata);
int pt_attr_kmod(struct perftune_ctx *ctx, int op, const char *name, const char *options, char *out,
		 size_t size);
int pt_kmod_real(int op, const char *name, const char *options, char *out, size_t size);
/* 0 when a load or unload can be tried: -EOPNOTSUPP naming @key when libkmod is not installed */
int pt_attr_kmod_need(struct perftune_ctx *ctx, const char *key);
int pt_kmod_need(struct perftune_ctx *ctx, const char *key); /* libkmod, for the host */

/* ---- shared/util.c ---- */
bool pt_has_cntrl(const char *s);
void pt_one_line(char *s);
void pt_normalize(char *s);	       /* bracket choice, trim, collapse blanks */
bool pt_is_selection(const char *raw); /* "a [b] c": one word whole in brackets */
/* @a and @b compare as values: alike once normalized (a value is written as given, and
 * compared normalized: the kernel reads any run of blanks in a vector alike) */
bool pt_value_eq(const char *a, const char *b);
void pt_trim(char *s);
bool pt_choice_in(const char *raw, const char *word);	  /* word among the choices of raw */
void pt_choices(const char *raw, char *out, size_t size); /* "a [b] c" -> "a b c" */
int pt_parse_ll(const char *s, long long *v);
bool pt_value_ok(const char *v); /* printable, bounded, no newline */
int pt_snprintf(char *buf, size_t size, const char *fmt, ...)
	_printf_(3, 4); /* -ENAMETOOLONG on truncation */

/* ---- shared/keyname.c: key components from kernel names (perftune(8) KEYS) ---- */
enum pt_keyform {
	PT_KEYFORM_BRACKET, /* a name looked up as written: "[eth0.100]", "[x*]", "[v\=1]" */
	PT_KEYFORM_MAP,	    /* a name matched by content: "haltpoll idle" -> "haltpoll_idle" */
};
bool pt_key_char(char c);	  /* in the alphabet of a plain component (no glob) */
bool pt_key_plain(const char *s); /* non-empty, only pt_key_char() */
/* @name as a key component in @out: 0 as is, 1 bracketed (escaped) or mapped, -EINVAL empty */
int pt_key_comp(char *out, size_t size, const char *name, enum pt_keyform form);
/* "@family.@name" or "@family[@name]" (PT_KEYFORM_BRACKET) in @out: 0, -ENAMETOOLONG, -EINVAL */
int pt_key_dev(char *out, size_t size, const char *family, const char *name);

/* ---- shared/buf.c: a growable string; out of memory shows once, at pt_buf_steal() ---- */
struct pt_buf {
	char *s;
	size_t len, cap;
	bool oom;
};
void pt_buf_add(struct pt_buf *b, const char *s, size_t n);
void pt_buf_puts(struct pt_buf *b, const char *s);
void pt_buf_printf(struct pt_buf *b, const char *fmt, ...) _printf_(2, 3);
char *pt_buf_steal(struct pt_buf *b); /* NULL if out of memory; "" if nothing was added */

/* ---- shared/array.c: growable arrays, string vectors ---- */
/*
 * Room for @need elements in the array *@v of *@cap allocated ones: it grows by
 * doubling, from @first.  0, or -ENOMEM with *@v and *@cap unchanged.
 */
int pt_grow_(void **v, size_t *cap, size_t need, size_t size, size_t first);
#define pt_grow(v, cap, need, first) pt_grow_((void **)(v), (cap), (need), sizeof(**(v)), (first))
/* a copy of @s, NULL for NULL; a failed copy sets *@oom (many copies, one check) */
char *pt_strdup_or_null(const char *s, bool *oom);
/*
 * Append a copy of @s to the NULL-terminated vector *@v of *@n strings: the
 * copy, or NULL when out of memory (the vector is then still terminated).
 */
char *pt_strv_add(char ***v, size_t *n, const char *s);
void pt_strv_free(char **v); /* each string and the vector; NULL is fine */
static inline void pt_strv_freep(char ***v)
{
	pt_strv_free(*v);
}
/* free() each of the pointers given */
#define pt_free_all(...)                                                                           \
	pt_free_v((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
void pt_free_v(void *const *p, size_t n);

/* ---- shared/cpulist.c: CPU and node lists and masks (bit i in byte i / 8) ---- */
#define PT_CPUS_MAX 8192
#define PT_CPUS_BYTES (PT_CPUS_MAX / 8)
/* the kernel's syntax "0-3,8": 0, -EINVAL (syntax), -ERANGE (a > b, past @nbits) */
int pt_parse_cpulist(const char *s, unsigned char *mask, int nbits);
/* packed "0-3,8" of the first @nbits bits; truncated to whole items */
void pt_format_cpulist(const unsigned char *mask, int nbits, char *out, size_t size);
/* masks of PT_CPUS_MAX bits: */
void pt_cpus_set(unsigned char *m, long i, bool on); /* outside the mask: ignored */
bool pt_cpus_has(const unsigned char *m, long i);
/* the first set bit at or after @from among the first @nbits of @m, or @nbits if none */
int pt_cpus_next(const unsigned char *m, int nbits, int from);
/* TuneD's cpulist_unpack / hex2cpulist ("0x" optional, commas dropped, ORed in): 0, or
 * -EINVAL with the reason in @why (what TuneD silently empties, and Python's accidents) */
int pt_cpus_parse(const char *s, unsigned char *mask, char *why, size_t size);
int pt_cpus_hex(const char *s, unsigned char *m, char *why, size_t size);
char *pt_cpus_list(const unsigned char *m, const char *prefix, bool pack); /* "0,1" / "0-1" */
/* Python's int(@s) of a decimal within +-@max: 0, or -EINVAL with the reason in @why
 * (not a number, past @max, or what int() takes by accident: '_', non-ASCII digits) */
int pt_py_int(const char *s, long long max, long long *v, char *why, size_t size);
char *pt_cpus_hexstr(const unsigned char *m); /* "0000000f" */

/* ---- profile/regex.c: a key's selector regex (proc[<regex>]), bounded in memory and time ---- */
struct pt_regex;
/* @re, a POSIX extended regex, compiled: 0, or -EINVAL with *@err (malloc'd) saying why
 * (a syntax error, or past a bound: length, nesting, memory), -ENOMEM */
int pt_regex_new(const char *re, struct pt_regex **out, char **err);
/* 1 it matches @text, 0 not, -EINVAL with *@err past the bound of a match, -ENOMEM */
int pt_regex_match(struct pt_regex *rx, const char *text, char **err);
void pt_regex_free(struct pt_regex *rx);

/* ---- key.c: keys parsed into components, and concrete tunables ---- */
#define PT_MAX_COMPS 16
/*
 * One component.  Plain: the key alphabet, a glob with '*' or '?'.  In brackets: any
 * printable text, '\' taking the next character as it is ("\]", "\\", "\=") or
 * "\xHH" a byte; a name there is literal, never a glob (doc/design.md, Key namespace).
 */
struct pt_comp {
	char s[PERFTUNE_KEY_MAX];    /* as written: what a selector's regex or glob reads */
	char name[PERFTUNE_KEY_MAX]; /* the name it spells: brackets' escapes undone */
	bool bracketed;
	bool glob; /* plain, with '*' or '?' */
};
struct pt_keyparts {
	const char *text; /* the key as given */
	int n;
	struct pt_comp c[PT_MAX_COMPS];
};

/* Write order within a device's group (a commit; a restore gives the scheduler back first). */
enum pt_order {
	/* an upper limit before the rest: cpufreq clamps a new min to the current
	 * max (cpufreq_verify_within_limits), so max is written first and given
	 * back last; raising min above the current max works in one commit */
	PT_ORDER_LIMIT = 0,
	PT_ORDER_SCHED = 1, /* the I/O scheduler; a NIC's channels */
	PT_ORDER_ATTR = 2,  /* the device's other attributes */
	/* what a scheduler switch resets: iosched params, nr_requests; the queues
	 * (RPS/XPS masks) a channel change makes or removes */
	PT_ORDER_RESET = 3,
};

/* A concrete tunable: one key, one file (or one family-defined object). */
struct pt_tunable {
	const struct pt_family *fam;
	char key[PERFTUNE_KEY_MAX]; /* canonical concrete key */
	char path[PATH_MAX];	    /* kernel file, relative to the root */
	char group[64];		    /* commit group: a disk name; "" = no device */
	enum pt_order order;	    /* within a group */
	int id;			    /* cpu, node or pid */
	int kind;		    /* family-specific */
	char aux[64];		    /* family-specific */
	char note[192];		    /* how the key resolved, or "" */
	bool read_only;		    /* listed as a fact: its file cannot be written (list) */
};

/* Where a journaled original goes back to (identity.c, and the families' reclaim). */
enum { PT_FOUND_SAME, PT_FOUND_MOVED, PT_FOUND_GONE };
#define PT_IDENT_MAX (2 * PT_VAL) /* an identity: a process's threads' start times take room */
struct pt_found {
	const char *key, *id, *orig;  /* as journaled */
	const struct pt_tunable *now; /* what @key names now, or NULL */
	char moved[PERFTUNE_KEY_MAX]; /* PT_FOUND_MOVED: the key it goes by now */
	char value[PT_VAL];	      /* the original to write back */
	char note[256];		      /* what was found ("renamed ve", "thread 102 replaced") */
	struct pt_tunable t;	      /* identity.c's answer: the tunable to write */
};

/* A pt_tunable kept for long (many at once): its strings at their length. */
struct pt_ctun {
	const struct pt_family *fam;
	char *key, *path, *note; /* note: NULL or how the key resolved */
	char group[sizeof(((struct pt_tunable *)0)->group)];
	char aux[sizeof(((struct pt_tunable *)0)->aux)];
	enum pt_order order;
	int id, kind;
};
int pt_ctun_set(struct pt_ctun *c, const struct pt_tunable *t); /* 0 or -ENOMEM */
/* the full pt_tunable again, in @t (on the caller's stack) */
const struct pt_tunable *pt_ctun_get(const struct pt_ctun *c, struct pt_tunable *t);
void pt_ctun_free(struct pt_ctun *c);

typedef int (*pt_emit_fn)(struct perftune_ctx *ctx, const struct pt_tunable *t, void *ud);
/* stage @t set to @value (a transaction's staging) */
typedef int (*pt_stage_fn)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			   void *ud);

/* The names a tunable goes by outside perftune, for lib/export; "" where it has none. */
struct pt_xnames {
	char sysctl[PERFTUNE_KEY_MAX]; /* sysctl.d: "vm.dirty_ratio", "net/ipv4/conf/eth0.100/rp_filter" */
	char dev[64];		       /* udev: the kernel's name of the device ("sda") */
	char attr[128];		       /* udev: its attribute ("queue/scheduler") */
	char subsys[16];	       /* udev: its SUBSYSTEM; "" = block */
	char noattr[128];	       /* udev: why it has no attribute to write, or "" */
	enum pt_order order;	       /* udev: the rules in the order of a commit */
	char boot[128]; /* kernel command line with the value: "numa_balancing=disable" */
	/* the value as the kernel file takes it, where that differs from the key's (a CPU list
	 * written as a hex mask); "" with @file_differs: too long to give, leave the file out */
	char file_value[256];
	bool file_differs;
};

struct pt_family {
	const char *name;
	/* expand parsed key into concrete tunables; errors name the key */
	int (*resolve)(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud);
	/* enumerate every tunable of the family present on this machine */
	int (*list)(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud);
	int (*read)(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size);
	/*
	 * optional: what read() gives before pt_normalize(), as write() takes it
	 * back byte for byte (kernel.core_pattern "a  b\tc", printk's tabs): the
	 * original a commit journals and a rollback writes; comparisons and what
	 * is shown use read()'s form
	 */
	int (*read_verbatim)(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf,
			     size_t size);
	/* check @in and produce the exact value to write and expect back */
	int (*validate)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size);
	/*
	 * optional: validate(), and from the same read of the file what read() gives
	 * now into @cur (PT_VAL bytes; "" where read() fails): staging reads a file once
	 */
	int (*validate_cur)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			    char *out, size_t size, char *cur, size_t cur_size);
	int (*write)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd);
	/*
	 * compare read-back with the value written: 0, -EIO, -EAGAIN (partial), -ERANGE
	 * (clamped: the kernel took it and holds its own limit instead; a commit takes it
	 * as partial with ALLOW_PARTIAL, else fails with -EIO), or 1: in force as asked,
	 * and @got (what the commit keeps as written) says more
	 */
	int (*verify)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got);
	int (*describe)(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d);
	/*
	 * optional: the original, before @t is set to @value, as a string write()
	 * restores exactly (PT_FAM_SNAPSHOT)
	 */
	int (*snapshot)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			char *buf, size_t size);
	/*
	 * optional: @t set to @value stands for other keys (cpu idle.max_latency_us:
	 * idle.<state>.disable of the deeper states): stage each of them and return
	 * 0, or -errno; 1: @t stands for itself (staged as it is)
	 */
	int (*expand)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		      pt_stage_fn stage, void *ud);
	/* optional: the names @t set to @value goes by in the export formats (@x zeroed) */
	void (*export_names)(struct perftune_ctx *ctx, const struct pt_tunable *t,
			     const char *value, struct pt_xnames *x);
	/*
	 * optional: the identity of the object @t names, for its original @orig
	 * (a snapshot names threads): a process's start time, a NIC's ifindex, a
	 * disk's dev_t and diskseq, as text in @buf ("" where this kernel shows
	 * none), journaled with the original so that a restore writes only that
	 * object (doc/design.md, "Identity"); or -errno, naming the key
	 */
	int (*identity)(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig,
			char *buf, size_t size);
	/*
	 * optional, with identity: @f->key was journaled as @f->id, and what it
	 * names now (@f->now, NULL if nothing) is not that object: where is it?
	 * PT_FOUND_SAME: @f->now after all, or a part of it (the threads not
	 * replaced since): the original to write in @f->value; PT_FOUND_MOVED:
	 * the object goes by the key @f->moved now (a renamed NIC); PT_FOUND_GONE:
	 * gone for good, the message says why; -errno: not here now, but it may
	 * be (the message says why).  @f->note: what was found, for the log.
	 */
	int (*reclaim)(struct perftune_ctx *ctx, struct pt_found *f);
	unsigned flags;
};
enum {
	PT_FAM_HELD = 1 << 0,	  /* the value lives with an open fd: restore = close */
	PT_FAM_SNAPSHOT = 1 << 1, /* the original is a snapshot string, not a value read back */
	PT_FAM_FILE = 1 << 2,	  /* write() is pt_file_write(): a plain file write (batch waves) */
};

/* ---- key.c (parsing and the tunables families make) and lookup.c (the registry) ---- */
int pt_key_parse(struct perftune_ctx *ctx, const char *key, struct pt_keyparts *kp);
/* the ']' closing the '[' at @open, past escaped characters; NULL and *@why (or NULL) if none */
const char *pt_key_bracket_end(const char *open, const char **why);
/* the '=' of "KEY=VALUE": the first outside the key's brackets ("net[driver=x].txqueuelen=1",
 * "net[v\=1].txqueuelen=1"), or NULL */
const char *pt_setting_eq(const char *kv);
/* A printable, bounded copy of user input @key for error messages, in @buf. */
const char *pt_key_shown(const char *key, char *buf, size_t size);
bool pt_glob(const char *s);
/* @name is what @c names: the name itself, or one its glob matches */
bool pt_comp_matches(const struct pt_comp *c, const char *name);
/* @kp's components are those of @key ("numa.balancing") */
bool pt_key_is(const struct pt_keyparts *kp, const char *key);
int pt_tunable_init(struct pt_tunable *t, const struct pt_family *fam, const char *path,
		    const char *fmt, ...) _printf_(4, 5);
/* lookup.c: the family of that name, or NULL */
const struct pt_family *pt_family_find(const char *name);
/* Parse and resolve @key; emit each concrete tunable. */
int pt_resolve(struct perftune_ctx *ctx, const char *key, pt_emit_fn emit, void *ud);
/* Resolve to exactly the tunables, into a malloc'd array. */
int pt_resolve_all(struct perftune_ctx *ctx, const char *key, struct pt_tunable **out);
/* Look a concrete key up again (journal replay). */
int pt_resolve_one(struct perftune_ctx *ctx, const char *key, struct pt_tunable *t);

/* ---- family/file.c: the generic file ops, for families whose tunables are plain files ---- */
int pt_file_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size);
/* the file as read, its kernel-added newline off (a selection: its choice); one line */
int pt_file_read_verbatim(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf,
			  size_t size);
int pt_file_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		     char *out, size_t size);
int pt_file_validate_cur(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			 char *out, size_t size, char *cur, size_t cur_size);
/* pt_file_validate() against @raw, the file's contents as read */
int pt_file_check(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *raw,
		  const char *in, char *out, size_t size);
/* 0 if the file of @t can be written, else -EACCES (not root), -EROFS or -ENOENT naming the key */
int pt_file_writable(struct perftune_ctx *ctx, const struct pt_tunable *t);
/* the error of a write the kernel refused with @r, naming the key */
int pt_file_refused(struct perftune_ctx *ctx, const char *key, const char *value, int r);
int pt_file_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		  int *hold_fd);
int pt_file_describe(struct perftune_ctx *ctx, const struct pt_tunable *t, struct perftune_desc *d);
/* emit the family's one tunable @name at @path, or -EOPNOTSUPP: "this kernel has no @what" */
int pt_file_emit_one(struct perftune_ctx *ctx, const struct pt_family *fam, const char *path,
		     const char *name, const char *what, pt_emit_fn emit, void *ud);
/* export_names of a file: its sysctl.d name if it lives in /proc/sys */
void pt_file_export_names(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			  struct pt_xnames *x);
/* validate a number in [min, max] */
int pt_validate_range(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		      long long min, long long max, char *out, size_t size);

/* ---- family/cpumask.c: files of CPU masks whose keys take CPU lists (irq, workqueue) ---- */
enum {
	PT_CPUMASK_HEX = 1 << 0, /* t->kind: the file holds a hex mask ("f"), not a list ("0-3") */
	PT_CPUMASK_NARROW = 1 << 1, /* t->kind: the kernel may keep fewer of the CPUs written */
};
/* the online CPUs (sys/devices/system/cpu/online) into a PT_CPUS_BYTES mask */
int pt_cpus_online(struct perftune_ctx *ctx, unsigned char *mask);
/* @in, a CPU list with an online CPU, into @m (PT_CPUS_BYTES); errors name the key */
int pt_cpumask_parse(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
		     unsigned char *m);
/*
 * Hex mask @in ("0000000f", TuneD's 8-digit groups) as wide as the kernel
 * shows the mask file @path ("f", "00,0000000f"), so that it reads back as
 * written; @in as it is where @path is no such file or @in no hex mask.
 */
void pt_cpumask_width(struct perftune_ctx *ctx, const char *path, const char *in, char *out,
		      size_t size);
int pt_cpumask_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size);
int pt_cpumask_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size);
int pt_cpumask_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd);
int pt_cpumask_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got);
int pt_cpumask_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d);
/* ---- net/nl.c: generic netlink through a transport (the unit tier installs a fake) ---- */
struct nlmsghdr;
typedef int (*pt_nl_cb)(const struct nlmsghdr *nlh, void *data); /* returns libmnl's MNL_CB_* */
#define PT_NL_BUF 65536 /* a reply: a device's verbose feature bitsets take ~8 KiB */
struct pt_nl_transport {
	/*
	 * Send @req (NLM_F_REQUEST | NLM_F_ACK), pass each reply to @cb (may be NULL) until
	 * the ack: 0, or the kernel's -errno and its extack message in @ext ("" if none).
	 * Called from a commit's worker threads: a transport keeps no shared socket unlocked.
	 */
	int (*talk)(void *data, const struct nlmsghdr *req, pt_nl_cb cb, void *cbdata, char *ext,
		    size_t extsize);
};
void pt_nl_set_transport(struct perftune_ctx *ctx, const struct pt_nl_transport *tp, void *data);
/*
 * A generic netlink request header in @buf (of PT_NL_BUF bytes or less: what it will
 * hold), built by libmnl: once pt_dl_load(PT_DL_MNL) succeeded (pt_nl_talk() and
 * net/ethtool.c load it).
 */
struct nlmsghdr *pt_nl_request(void *buf, uint16_t type, uint8_t cmd, uint8_t version);
/*
 * Resolve @family by name and send @req to it: 0, or -errno with the kernel's
 * extack message (or why there is no netlink: -EOPNOTSUPP) in @ext.
 */
int pt_nl_talk(struct perftune_ctx *ctx, const char *family, struct nlmsghdr *req, pt_nl_cb cb,
	       void *cbdata, char *ext, size_t extsize);

/* ---- net/netdev.c: a network device's identity (ifindex and namespace) ---- */
/* "ifindex=<n> netns=<inode>" of device @dev here ("" where it has no ifindex) */
int pt_netdev_identity(struct perftune_ctx *ctx, const char *dev, char *buf, size_t size);
/* a family's key @kp (whose device component is the device's name now) as text in @out */
typedef int (*pt_netdev_key_fn)(char *out, size_t size, const struct pt_keyparts *kp);
/*
 * The reclaim of a key whose component @comp names the device journaled as
 * @f->id: PT_FOUND_SAME (it has that name still), PT_FOUND_MOVED (renamed:
 * @key() gives f->moved, the key of its name now; f->note says so),
 * PT_FOUND_GONE (no device has its ifindex, or its namespace is gone: the
 * message names f->key), -EXDEV (it is in another namespace, which lives).
 */
int pt_netdev_reclaim(struct perftune_ctx *ctx, struct pt_found *f, int comp, pt_netdev_key_fn key);

/* ---- net/ethtool.c: a device's ethtool settings (ethtool genetlink family) ---- */
enum {
	PT_ETH_RING,
	PT_ETH_CHANNELS,
	PT_ETH_COALESCE,
	PT_ETH_PAUSE,
	PT_ETH_FEATURES,
	PT_ETH_NSEC,
};
#define PT_ETH_MAX 160 /* parameters of a section: features are the most (NETDEV_FEATURE_COUNT) */
struct pt_eth_param {
	char name[40];
	unsigned long long val, max; /* max 0: none reported (features: 1 = in hw_features) */
	bool flag;		     /* on/off */
	bool fixed;		     /* a feature the driver does not let change */
};
struct pt_eth_sect {
	size_t n;
	struct pt_eth_param p[PT_ETH_MAX];
};
const char *pt_eth_sec_name(int sec);		 /* "ring", "channels", ... as in keys */
const char *pt_eth_sec_what(int sec);		 /* "ring parameters", ... for messages */
int pt_eth_sec_find(const char *name);		 /* -1: none */
bool pt_eth_sec_has(int sec, const char *param); /* a parameter we know (features: any name) */
const struct pt_eth_param *pt_eth_find(const struct pt_eth_sect *s, const char *name);
/* what the kernel reports of @sec for device @dev: only what its driver supports */
int pt_eth_get(struct perftune_ctx *ctx, const char *dev, int sec, struct pt_eth_sect *s, char *ext,
	       size_t extsize);
int pt_eth_set(struct perftune_ctx *ctx, const char *dev, int sec, const char *param,
	       unsigned long long val, char *ext, size_t extsize);

/* ---- object/desc.c: the description a family's describe op fills ---- */
#include "object/desc.h"

/* ---- families ---- */
extern const struct pt_family pt_block_family, pt_hugepages_family, pt_thp_family, pt_cpu_family,
	pt_pmqos_family, pt_numa_family, pt_proc_family, pt_selinux_family, pt_sysctl_family,
	pt_sysfs_family, pt_module_family, pt_net_family, pt_irq_family, pt_workqueue_family;
/* the keys of the proc family (family/proc.c): proc.<pid>.numa_nodes, proc.<sel>.cpus */
extern const struct pt_family pt_proc_numa_family, pt_proc_cpus_family;

/* ---- family/proc.c: processes by selector ---- */
#define PT_PF_KTHREAD 0x00200000	/* PF_KTHREAD in /proc/<pid>/stat's flags */
#define PT_PF_NO_SETAFFINITY 0x04000000 /* the kernel will not move it (per-CPU kthreads) */
struct pt_pstat {
	char comm[64]; /* as /proc/<pid>/stat shows it, without the parentheses */
	char state;
	unsigned long flags;
	unsigned long long start; /* field 22: when it started, in clock ticks after boot */
	bool has_start;		  /* the file had that field */
};
/* /proc/<pid>/stat (@tid > 0: /proc/<pid>/task/<tid>/stat); -ESRCH: gone */
int pt_proc_stat(struct perftune_ctx *ctx, int pid, int tid, struct pt_pstat *st);
/*
 * proc.<pid>.<attr> (a process that the kernel will not move is an error), or a
 * selector: proc.all, proc.user (no kernel threads), proc.kernel, each with an
 * optional [ERE] that comm matches (re.search, as TuneD's ps_whitelist), or
 * proc[ERE]: emit a @fam tunable per process; unmovable ones skipped, logged.
 */
int pt_proc_select(struct perftune_ctx *ctx, const struct pt_keyparts *kp,
		   const struct pt_family *fam, pt_emit_fn emit, void *ud);
/* a @fam tunable for each process the kernel lets move */
int pt_proc_each(struct perftune_ctx *ctx, const struct pt_family *fam, pt_emit_fn emit, void *ud);
/*
 * The identity of process @pid and of its threads @tids (sorted here): "start=<S>
 * threads=<tid>[-<tid>]:<S>,...", their start times; "exited" for a process gone,
 * "" where /proc shows no start time.
 */
int pt_proc_identity(struct perftune_ctx *ctx, int pid, int *tids, size_t n, char *buf, size_t size);
/*
 * The reclaim of a key of process @pid journaled as @f->id: PT_FOUND_GONE when
 * another process has the pid now (the message says so, with both start times), else
 * PT_FOUND_SAME with the journaled threads that are not the same threads now
 * (exited, or another thread has the tid: f->note says which) in the malloc'd
 * *@stale, for the family to leave out of its original.
 */
int pt_proc_reclaim(struct perftune_ctx *ctx, struct pt_found *f, int pid, int **stale,
		    size_t *nstale);
bool pt_tids_has(const int *v, size_t n, int tid); /* @v sorted, as pt_proc_reclaim's */

/* hugepages.c: the boot parameters for @value pages of @kb (0: the default size) */
void pt_hugepages_boot(struct perftune_ctx *ctx, unsigned long kb, const char *value, char *buf,
		       size_t size);

/* ---- journal.c ---- */
struct pt_journal;
struct pt_jentry {
	char *key;
	char *orig;		/* original value (possibly handed over) */
	char *written;		/* last value written, or NULL */
	char *ident;		/* what the original belongs to (format 2), or NULL */
	bool restored;		/* already given back */
	unsigned long long seq; /* when the original was taken: orders stacked transactions */
};
struct pt_jinfo {
	char name[PT_TX_NAME_MAX + 1];
	unsigned long long seq;
	pid_t pid;
	unsigned long long starttime;
	bool committed, orphaned, held, foreign_boot;
	int version; /* of its format: 1 keeps no identities; 0 = not loaded (a new one) */
	unsigned flags;
	size_t n, cap;
	struct pt_jentry *e;
	size_t *idx, nidx; /* key -> entry + 1, open addressing: a key is found in O(1) */
};
int pt_journal_name_ok(const char *name);
int pt_journal_dir_open(struct perftune_ctx *ctx, bool create);
int pt_journal_lock(struct perftune_ctx *ctx, int *lockfd); /* keeps the dir open till unlock */
void pt_journal_unlock(struct perftune_ctx *ctx, int lockfd);
int pt_journal_load(struct perftune_ctx *ctx, const char *name, struct pt_jinfo *ji);
void pt_jinfo_free(struct pt_jinfo *ji);
struct pt_jentry *pt_jinfo_find(struct pt_jinfo *ji, const char *key);
int pt_journal_names(struct perftune_ctx *ctx, char ***names); /* NULL-terminated, sorted by seq */
/*
 * Open the journal of @name for this process: a new one (whole: header and
 * holder); if there is one already, -EEXIST when @create, else append to it.
 */
int pt_journal_begin(struct perftune_ctx *ctx, const char *name, unsigned flags, bool create,
		     int *jfd);
int pt_journal_append(struct perftune_ctx *ctx, int jfd, const char *tag, const char *key,
		      const char *value);
/*
 * "orig" of @key with its original @value and, where @ident is not empty, the
 * identity of its object ("ident"), in one write: both or neither.
 */
int pt_journal_append_orig(struct perftune_ctx *ctx, int jfd, const char *key, const char *value,
			   const char *ident);
/* the journal @ji keeps identities (format 2; a new one is) */
bool pt_journal_has_identity(const struct pt_jinfo *ji);
/* pt_journal_load(), and the journal kept open in *@jfd for pt_journal_append() */
int pt_journal_load_fd(struct perftune_ctx *ctx, const char *name, struct pt_jinfo *ji, int *jfd);
/* "restored <key>" for each of @keys, in one write */
int pt_journal_append_restored(struct perftune_ctx *ctx, int jfd, const char *const *keys, size_t n);
int pt_journal_append_to(struct perftune_ctx *ctx, const char *name, const char *tag,
			 const char *key, const char *value);
int pt_journal_remove(struct perftune_ctx *ctx, const char *name);

/* ---- identity.c: which object a journaled original belongs to, found again ---- */
/* the identity of @t for its original @orig into @buf: "" where its family keeps none */
int pt_ident_of(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *orig, char *buf,
		size_t size);
/*
 * Where the original @orig of @key, journaled with the identity @id (NULL or
 * "": none, as in journals of format 1), goes back to, in @f: PT_FOUND_SAME
 * (@key's object) or PT_FOUND_MOVED (the object goes by another key now), both
 * with f->t to write and f->value to write there; PT_FOUND_GONE: gone for good
 * (the message says why; without @id: @key resolves no more); or -errno: not
 * found now, though it may still be (the message says why).
 */
int pt_ident_find(struct perftune_ctx *ctx, const char *key, const char *id, const char *orig,
		  struct pt_found *f);
/* two identities name one object: equal, or one of them unknown (NULL or "") */
bool pt_ident_same(const char *a, const char *b);

/* ---- restore.c ---- */
/* Restore transaction @name; lock must be held. */
int pt_restore_locked(struct perftune_ctx *ctx, const char *name, unsigned flags);

#endif
