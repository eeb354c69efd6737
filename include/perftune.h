/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libperftune — get, set and restore Linux kernel tunables safely.
 *
 * One string names one tunable ("block.sda.scheduler", "thp.enabled",
 * "sysctl.vm.dirty_ratio"; see perftune(8) and doc/design.md (section 2) for the
 * namespace).  Every function returns 0, a non-negative count, or a negative
 * errno; the calling thread keeps a one-line message naming the key and the
 * cause, readable with perftune_ctx_last_error().  The library never prints
 * (unless a log function is set) and never exits.
 *
 * Errors.  Every int-returning function returns through one filter: the
 * codes below are the whole set a caller can see (anything else the kernel
 * or libc answers becomes -EIO, its cause kept in the message).  The codes a
 * function may return are listed with it.
 *   -EINVAL     malformed key or value, a value the tunable does not accept
 *               (also a number out of its range), a key naming a directory;
 *               a key that is a mistake for one this machine has, its
 *               message ending "; did you mean KEY?" (a sysctl name a letter
 *               or two off, a sysctl without "sysctl.": perftune(8) KEYS)
 *   -ENOENT     the key names a tunable this kernel does not have; no such
 *               transaction or profile
 *   -ENODEV     the selector names no device (or a device without the
 *               attribute, a path not on a block device, no such process)
 *   -EACCES/-EPERM  not allowed (not root, read-only attribute, a path
 *               outside /sys or /proc/sys, a kernel thread by pid that the
 *               kernel does not let move)
 *   -EROFS      the tunable is read-only by design (e.g. selinux.enforce)
 *   -ENOMEM     out of memory
 *   -EIO        the kernel accepted a write but did not carry it out, a
 *               journal that cannot be read, any other kernel or libc failure
 *   -EBUSY      a named transaction is held by a live process, or the kernel
 *               answered busy
 *   -ENAMETOOLONG  key, value, path or a journal record over the limits (a
 *               glob matching more than 4096 devices)
 *   -EOPNOTSUPP the tunable exists in the namespace but not on this machine
 *               (no cpufreq driver, SELinux not enabled, ...), or a library
 *               its keys need is not installed (libkmod for module keys; the
 *               message names the key and the library)
 *   -ENOTUNIQ   a key that must name one tunable names several that differ
 *   -EALREADY   the transaction was already committed (or released)
 *   -EAGAIN     fewer huge pages than asked, without ALLOW_PARTIAL
 *   -ELOOP      a symlinked journal; an include= cycle in a profile
 *   -EFBIG      a profile or journal file too large
 *   -ENOTDIR    perftune_ctx_set_root() of something not a directory
 *   -ECANCELED  an experiment stopped by perftune_experiment_abort()
 */
#ifndef PERFTUNE_H
#define PERFTUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFTUNE_KEY_MAX 512	/* bytes, including the NUL */
#define PERFTUNE_VALUE_MAX 4096 /* bytes, including the NUL */

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */

/** Opaque library context: root directory, journal directory, log.  Thread-safe. */
struct perftune_ctx;

/**
 * perftune_ctx_new() - create a context on the running machine.
 * The root is "/", the journal directory $PERFTUNE_JOURNAL_DIR or /run/perftune.
 * @ctxp: receives the new context (refcount 1).
 * Return: 0, or -ENOMEM, or -errno if "/" cannot be opened.
 */
int perftune_ctx_new(struct perftune_ctx **ctxp);

/** perftune_ctx_ref() - take a reference. Return: @ctx. */
struct perftune_ctx *perftune_ctx_ref(struct perftune_ctx *ctx);

/** perftune_ctx_unref() - drop a reference; frees at zero. Accepts NULL. Return: NULL. */
struct perftune_ctx *perftune_ctx_unref(struct perftune_ctx *ctx);

/**
 * perftune_ctx_set_root() - read and write kernel files below @root instead of "/".
 * Used by tests with a fake tree (root/sys, root/proc/sys, root/dev).
 * Return: 0, -ENOENT/-ENOTDIR if @root is not a directory, -ENOMEM.
 */
int perftune_ctx_set_root(struct perftune_ctx *ctx, const char *root);

/** perftune_ctx_get_root() - the root directory in use. */
const char *perftune_ctx_get_root(struct perftune_ctx *ctx);

/**
 * perftune_ctx_set_journal_dir() - keep transaction journals in @dir.
 * The directory is created with mode 0700 when first needed.
 * Return: 0, -EINVAL (relative path), -ENOMEM.
 */
int perftune_ctx_set_journal_dir(struct perftune_ctx *ctx, const char *dir);

/** perftune_ctx_get_journal_dir() - the journal directory in use. */
const char *perftune_ctx_get_journal_dir(struct perftune_ctx *ctx);

/** Log priorities, as in syslog(3). */
enum {
	PERFTUNE_LOG_ERR = 3,
	PERFTUNE_LOG_WARNING = 4,
	PERFTUNE_LOG_NOTICE = 5,
	PERFTUNE_LOG_INFO = 6,
	PERFTUNE_LOG_DEBUG = 7,
};

/** Log callback: @priority is a PERFTUNE_LOG_* value, @msg one line without newline. */
typedef void (*perftune_log_fn)(struct perftune_ctx *ctx, int priority, const char *msg,
				void *userdata);

/**
 * perftune_ctx_set_log_fn() - send log messages up to @max_priority to @fn.
 * @fn NULL disables logging (the default).
 */
void perftune_ctx_set_log_fn(struct perftune_ctx *ctx, perftune_log_fn fn, int max_priority,
			     void *userdata);

/**
 * perftune_ctx_last_error() - one line naming the key and the cause of the last
 * failed call made by the calling thread ("block.sdx.scheduler: no such block
 * device"), or "" if none.  The message is kept per thread, not per context:
 * threads sharing @ctx each read their own.  @ctx may be NULL.
 * Valid until the calling thread's next call into the library.
 */
const char *perftune_ctx_last_error(struct perftune_ctx *ctx);

/**
 * perftune_ctx_get_resolver() - how @ctx confines its paths below sys/, proc/
 * and dev/ of its root: "openat2 (RESOLVE_BENEATH)", or "user-space (...)" with
 * the reason (openat2 answered ENOSYS or EPERM: a kernel older than 5.6 or a
 * seccomp filter; or PERFTUNE_NO_OPENAT2 is set).  Probed on first use, then
 * kept for the context.  NULL if @ctx is NULL.  (LIBPERFTUNE_1)
 */
const char *perftune_ctx_get_resolver(struct perftune_ctx *ctx);

/** perftune_version() - the library version string, e.g. "0.1.0". */
const char *perftune_version(void);

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * perftune_get() - read the current value of @key.
 * A key that expands to several tunables (a glob, "cpu.all...") yields their
 * value if all agree, else -ENOTUNIQ naming the first two that differ.
 * @value: receives a malloc'd string; free() it.
 * Return: 0, -EINVAL, -ENOENT, -ENODEV, -EOPNOTSUPP, -EACCES, -ENOTUNIQ, -ENOMEM.
 */
int perftune_get(struct perftune_ctx *ctx, const char *key, char **value);

/*
 * Typed objects.  A function that lists things hands out an iterator typed
 * by what it lists; perftune_<object>_iter_next() returns the next object (or
 * NULL at the end) and never fails; the object stays valid until the
 * iterator is freed.  Accessors never fail either: they return NULL (or 0)
 * for a NULL object and for a field the object does not have, as named.
 *
 *   object                        listed by                 iterator
 *   struct perftune_tunable       perftune_list()           struct perftune_tunable_iter
 *   struct perftune_change        perftune_tx_changes()     struct perftune_change_iter
 *   struct perftune_status_entry  perftune_status()         struct perftune_status_iter
 *   struct perftune_profile_item  perftune_profile_items()  struct perftune_profile_item_iter
 *   struct perftune_profile_entry perftune_profile_list()   struct perftune_profile_entry_iter
 *
 * Each object's flags are its own.  Their bit values are historical (the
 * objects once shared one flag space, so PERFTUNE_TUNABLE_READONLY is 1 << 7
 * and PERFTUNE_PROFILE_ITEM_SKIPPED 1 << 10) and stay as they are: they are
 * part of the ABI.
 */

/** One existing tunable (perftune_list()). */
struct perftune_tunable;
struct perftune_tunable_iter;

/** perftune_tunable_iter_next() - the next tunable, or NULL at the end. */
const struct perftune_tunable *perftune_tunable_iter_next(struct perftune_tunable_iter *it);
/** perftune_tunable_iter_free() - free the iterator and its objects. Accepts NULL. */
void perftune_tunable_iter_free(struct perftune_tunable_iter *it);
/** perftune_tunable_key() - the concrete key ("block.sda.scheduler"). */
const char *perftune_tunable_key(const struct perftune_tunable *t);
/** perftune_tunable_value() - the current value, or NULL if it cannot be read (permission). */
const char *perftune_tunable_value(const struct perftune_tunable *t);
/** perftune_tunable_note() - a remark (resolution, alias), or NULL. */
const char *perftune_tunable_note(const struct perftune_tunable *t);

/** Flags of a tunable (perftune_tunable_flags()). */
enum perftune_tunable_flag {
	PERFTUNE_TUNABLE_READONLY = 1 << 7, /* the kernel file is read-only (kernel.ostype) */
	/* perftune_get_each(): not here (a disk without the attribute, no cpufreq
	 * driver); without it, a NULL value is unreadable (permission, EIO) */
	PERFTUNE_TUNABLE_ABSENT = 1 << 8,
};

/** perftune_tunable_flags() - PERFTUNE_TUNABLE_* bits. */
unsigned perftune_tunable_flags(const struct perftune_tunable *t);

/**
 * perftune_get_each() - read each tunable @key names on its own: a glob or a
 * selector reads what it can and says why it cannot read the rest (zram0 has
 * no scheduler: block.*.scheduler reads the other disks).
 * @iterp: receives the tunables in key order: perftune_tunable_key() the
 *   concrete key, perftune_tunable_value() its value, or NULL with the reason
 *   in perftune_tunable_note() (the message perftune_get() would give, naming
 *   the concrete key) and PERFTUNE_TUNABLE_ABSENT where it is not here.
 * Return: the number of values read (0: none, each reason in its note),
 *         -EINVAL, -ENOENT, -ENODEV, -EOPNOTSUPP (the key itself names nothing
 *         here: the message), -ENOMEM.
 */
int perftune_get_each(struct perftune_ctx *ctx, const char *key,
		      struct perftune_tunable_iter **iterp);

/**
 * perftune_list() - iterate over the existing tunables whose key starts with @prefix
 * (NULL or "" for all), in a stable order.
 * Tunables that exist but cannot be read (permission) are listed with value NULL;
 * read-only sysctls (kernel.ostype) are listed with PERFTUNE_TUNABLE_READONLY.
 * Return: 0, -EINVAL (@iterp NULL), -ENOMEM.
 */
int perftune_list(struct perftune_ctx *ctx, const char *prefix,
		  struct perftune_tunable_iter **iterp);

/** Describes one tunable (perftune_describe). */
struct perftune_desc;

/**
 * perftune_describe() - current value, allowed choices or range, unit, whether
 * it can be written and why not.  @key must name exactly one tunable.  A
 * tunable whose file refuses reads is described: value NULL, and
 * perftune_desc_unreadable() says why.
 * Return: 0, -EINVAL, -ENOENT, -ENODEV, -EOPNOTSUPP, -ENOTUNIQ, -ENOMEM.
 */
int perftune_describe(struct perftune_ctx *ctx, const char *key, struct perftune_desc **descp);

const char *perftune_desc_key(const struct perftune_desc *d);	  /* concrete key */
const char *perftune_desc_value(const struct perftune_desc *d);	  /* current value or NULL */
const char *perftune_desc_path(const struct perftune_desc *d);	  /* kernel file behind it */
const char *perftune_desc_choices(const struct perftune_desc *d); /* space separated, or NULL */
/** perftune_desc_range() - true if the value is a number in [*min, *max]. */
bool perftune_desc_range(const struct perftune_desc *d, long long *min, long long *max);
const char *perftune_desc_unit(const struct perftune_desc *d); /* "kB", "us", "pages" or NULL */
bool perftune_desc_writable(const struct perftune_desc *d);
const char *perftune_desc_reason(const struct perftune_desc *d); /* why not writable, or NULL */
const char *perftune_desc_info(const struct perftune_desc *d);	 /* extra facts, or NULL */
/**
 * perftune_desc_unreadable() - why the value cannot be read ("Input/output error",
 * "write-only trigger"), or NULL when perftune_desc_value() holds it.
 */
const char *perftune_desc_unreadable(const struct perftune_desc *d);
/** perftune_desc_free() - accepts NULL. */
void perftune_desc_free(struct perftune_desc *d);

/* ------------------------------------------------------------------------ */
/* Transactions                                                             */
/* ------------------------------------------------------------------------ */

/** A named, all-or-nothing set of changes with a journal of the originals. */
struct perftune_tx;

/** Transaction flags. */
enum {
	PERFTUNE_TX_DRY_RUN = 1 << 0,	    /* validate and report, write nothing */
	PERFTUNE_TX_HOLD = 1 << 1,	    /* keep held values (PM QoS fds) while the tx lives */
	PERFTUNE_TX_ALLOW_PARTIAL = 1 << 2, /* accept fewer huge pages than asked */
};

/**
 * perftune_tx_new() - start a transaction named @name ("default" if NULL).
 * The name is [A-Za-z0-9_.@-]{1,64}, not starting with '.' or '-' (a name
 * that reads as an option).  Re-using the name of a committed
 * transaction extends it: originals already journaled are kept.
 * Return: 0, -EINVAL (bad name or flags), -ENOMEM.
 */
int perftune_tx_new(struct perftune_ctx *ctx, const char *name, unsigned flags,
		    struct perftune_tx **txp);

struct perftune_tx *perftune_tx_ref(struct perftune_tx *tx);

/**
 * perftune_tx_unref() - drop a reference; at zero, free the transaction.  It
 * never writes the kernel or the journal: end a transaction with a result
 * first (perftune_tx_release(), perftune_tx_rollback()).  A committed HOLD
 * transaction whose last reference goes without a release keeps its journal,
 * recorded as held by this process (perftune_status(): HELD; perftune_restore()
 * of its name from this process, or with PERFTUNE_RESTORE_FORCE from another)
 * and as orphaned once the process exits (restore --orphans,
 * PERFTUNE_RESTORE_ORPHANS); only its PM QoS requests end, as the
 * kernel drops them with their fds.  A committed non-HOLD transaction stays in
 * force until perftune_restore(); staged values are dropped.  Accepts NULL.
 * Return: NULL.
 */
struct perftune_tx *perftune_tx_unref(struct perftune_tx *tx);

/**
 * perftune_tx_set() - validate @value for @key and stage it.  Nothing is written.
 * Aliases are mapped (scheduler "deadline" -> "mq-deadline"); a glob stages every
 * tunable it matches.  On error nothing is staged by this call.  A file that a
 * key of the same transaction makes may be staged before that key, in any
 * order: a device's iosched.* parameter before the scheduler that brings it,
 * a net queue's rx.<q>.rps_cpus before the channels.* that make queue <q>.
 * Its value is validated after that switch; if no such key is staged by the
 * commit, perftune_tx_commit() fails with this key's -ENOENT message before
 * writing anything.
 * Return: number of tunables staged (>= 1; 0 only for cpu.<cpus>.idle.max_latency_us
 *         when no idle state is deeper than the limit: nothing to disable), -EINVAL,
 *         -ENOENT, -ENODEV, -EACCES, -EROFS, -EOPNOTSUPP, -EALREADY (the tx was
 *         committed), -ENOMEM.
 */
int perftune_tx_set(struct perftune_tx *tx, const char *key, const char *value);

/**
 * perftune_tx_commit() - write every staged value: journal the original, write,
 * read back.  On any failure every key already written is restored in reverse
 * order and the error names the failing key.  With DRY_RUN nothing is written.
 * A commit that writes nothing (every key already at its value) still records
 * the transaction, empty, so that perftune_restore() of its name succeeds
 * (returning 0): an installer may run twice, or on a machine already tuned.
 * Return: number of tunables written (0 if all were already at their values),
 *         -EIO (read-back differs), -EAGAIN (partial huge pages without
 *         ALLOW_PARTIAL), -ENOENT (a staged key's file that no scheduler or
 *         channels key of the transaction makes: nothing written), -EBUSY
 *         (held by another process; or committed again under a name whose
 *         journal holds the original of a key's former object, which goes by
 *         another name now: restore it first), any write errno, -EALREADY.
 */
int perftune_tx_commit(struct perftune_tx *tx);

/**
 * perftune_tx_replace() - make @tx, when committed, take the place of the
 * committed or held transaction @old without a gap (since LIBPERFTUNE_5).
 * The commit writes each key both change straight from @old's value to
 * @tx's, journals and writes the keys only @tx has, then gives back the keys
 * only @old had, and moves @old's originals to @tx's journal in one step:
 * the transaction is named perftune_tx_name(@tx) (the same name as @old: a
 * reload in place), and a restore of it, or of an orphan left by a kill at
 * any point, gives back the machine's originals, not @old's values.  A
 * write that fails rolls back to @old's values, and @old stays as it was.
 * If another live process holds @old (perftune apply --hold), it is sent
 * SIGTERM after the commit: its rollback then finds the journal handed over
 * and writes nothing, and its PM QoS requests end after @tx's are open.  A
 * handle of @old in this process gives back nothing either: perftune_tx_unref()
 * it (its PM QoS fds close then).  perftune_tx_changes() lists the keys given
 * back with PERFTUNE_CHANGE_GIVEN_BACK.  Checked now and again at the commit.
 * Return: 0; -ENOENT (no transaction @old, or one from another boot), -EBUSY
 *   (@old did not complete its commit: restore it; or another transaction has
 *   @tx's name), -EINVAL (bad name), -EALREADY (@tx committed).
 */
int perftune_tx_replace(struct perftune_tx *tx, const char *old);

/**
 * perftune_tx_holder() - the live process that holds transaction @name
 * (since LIBPERFTUNE_5): the pid perftune_status() shows for it, this
 * process's own included.  A program tells with it whether another process
 * holds a name (perftune apply then takes its place with perftune_tx_replace())
 * or whether its own hold was taken over by a replace (the pid is no longer
 * its own).
 * Return: the pid (> 0); 0 (no transaction @name, or no live process holds
 *   it: committed without a hold, or orphaned); -EINVAL (@name not a
 *   transaction name, or a journal that cannot be read), -errno.
 */
int perftune_tx_holder(struct perftune_ctx *ctx, const char *name);

/** One staged tunable of a transaction (perftune_tx_changes()). */
struct perftune_change;
struct perftune_change_iter;

/** Flags of a change (perftune_change_flags()). */
enum perftune_change_flag {
	PERFTUNE_CHANGE_WRITTEN = 1 << 3,   /* the commit wrote the key */
	PERFTUNE_CHANGE_UNCHANGED = 1 << 4, /* already at the value: no write */
	/* a key only the replaced transaction had, given back to its original by the
	 * commit (perftune_tx_replace()): old value is that transaction's, new the
	 * original.  A bit no other object's flag has (the bindings' flag types are one;
	 * 1 << 11 and 1 << 12 are taken by the hotplug status flags, issue 35) */
	PERFTUNE_CHANGE_GIVEN_BACK = 1 << 13,
};

/** perftune_change_iter_next() - the next change, or NULL at the end. */
const struct perftune_change *perftune_change_iter_next(struct perftune_change_iter *it);
/** perftune_change_iter_free() - free the iterator and its objects. Accepts NULL. */
void perftune_change_iter_free(struct perftune_change_iter *it);
/** perftune_change_key() - the concrete key. */
const char *perftune_change_key(const struct perftune_change *c);
/** perftune_change_old_value() - the value before the commit (known after it or a dry run), or NULL. */
const char *perftune_change_old_value(const struct perftune_change *c);
/** perftune_change_new_value() - the staged value, exact (after alias mapping). */
const char *perftune_change_new_value(const struct perftune_change *c);
/** perftune_change_note() - alias mapping ("from 'deadline'"), resolution, partial allocation, or NULL. */
const char *perftune_change_note(const struct perftune_change *c);
/** perftune_change_flags() - PERFTUNE_CHANGE_* bits. */
unsigned perftune_change_flags(const struct perftune_change *c);

/**
 * perftune_tx_changes() - iterate over the staged tunables.  Valid before and
 * after commit.
 * Return: 0, -EINVAL (@tx or @iterp NULL), -ENOMEM.
 */
int perftune_tx_changes(struct perftune_tx *tx, struct perftune_change_iter **iterp);

/**
 * perftune_tx_rollback() - restore every key of the committed transaction and
 * remove its journal (same as perftune_restore() of its name).
 * Return: number of keys written back, or -errno.
 */
int perftune_tx_rollback(struct perftune_tx *tx);

/**
 * perftune_tx_release() - end the transaction here, with a result: a
 * committed HOLD transaction is rolled back (its hold ends, its journal goes);
 * an uncommitted one drops what it staged; a committed non-HOLD one stays in
 * force (until perftune_restore() of its name).  Afterwards perftune_tx_set()
 * and perftune_tx_commit() answer -EALREADY.  Release before the last
 * perftune_tx_unref() of a HOLD transaction.
 * Return: number of keys written back (0 without a hold), or an error of
 *   perftune_tx_rollback(): the journal is kept and the release can be tried
 *   again; -EINVAL (@tx NULL).
 */
int perftune_tx_release(struct perftune_tx *tx);

/** perftune_tx_name() - the transaction's name. */
const char *perftune_tx_name(struct perftune_tx *tx);

/** Flags for perftune_restore(). */
enum {
	PERFTUNE_RESTORE_ALL = 1 << 0,	   /* every journaled transaction (@name NULL) */
	PERFTUNE_RESTORE_ORPHANS = 1 << 1, /* only those whose holder died (@name NULL) */
	PERFTUNE_RESTORE_FORCE = 1 << 2,   /* even if held by a live process */
};

/**
 * perftune_restore() - return every key of transaction @name to its original,
 * in reverse order (schedulers before their iosched parameters), and remove
 * its journal.  Keys that drifted are restored too and logged as such.
 * A key that a later live transaction also changed is handed over to it.
 * An original goes back only to the object it was taken from: a key whose
 * object is gone for good (its process exited and the pid is another's, its
 * device was deleted and another has the name) is logged and dropped, one
 * whose object has another name now (a renamed NIC) is written there, and
 * one whose object is not found now but may still be (another network
 * namespace) is not written and stays in the journal (-EIO).
 * Return: number of keys written back (0 for a transaction that changed
 *         nothing), -ENOENT (no such transaction, or already restored),
 *         -EBUSY (held by a live process, without FORCE), -EIO (a key not
 *         given back: the journal is kept), or -errno.
 */
int perftune_restore(struct perftune_ctx *ctx, const char *name, unsigned flags);

/** One key of one journaled transaction (perftune_status()). */
struct perftune_status_entry;
struct perftune_status_iter;

/** Flags of a status entry (perftune_status_entry_flags()). */
enum perftune_status_flag {
	PERFTUNE_STATUS_DRIFT = 1 << 0, /* the value now differs from what the transaction wrote */
	PERFTUNE_STATUS_ORPHANED = 1 << 1,  /* the transaction's holder process is gone */
	PERFTUNE_STATUS_HELD = 1 << 2,	    /* the transaction is held by a live process */
	PERFTUNE_STATUS_WRITTEN = 1 << 3,   /* the key was written (not just journaled) */
	PERFTUNE_STATUS_COMMITTED = 1 << 5, /* the transaction's commit completed */
	PERFTUNE_STATUS_SHADOWED = 1 << 6,  /* a later live transaction also changed the key */
	/*
	 * the object the original was taken from is gone for good: another
	 * process has its pid, another device its name (the note says which);
	 * restore drops the key without writing it.  (LIBPERFTUNE_2)
	 */
	PERFTUNE_STATUS_GONE = 1 << 8,
	/* the object goes by another key now (a renamed NIC: the note names it); restore
	 * gives the original back there (LIBPERFTUNE_2) */
	PERFTUNE_STATUS_MOVED = 1 << 9,
	/* the key was journaled and written by a hotplug watch, for a device added
	 * while the transaction was held (perftune_tx_watch(); LIBPERFTUNE_5).
	 * Not 1 << 10, PERFTUNE_PROFILE_ITEM_SKIPPED: the bindings keep all flags
	 * in one set */
	PERFTUNE_STATUS_HOTPLUG = 1 << 11,
	/* not a key: a device added while the transaction was held refused its
	 * settings; the entry's key names the device ("block.sdd", "net.veth1"),
	 * its note says why, and nothing of it stays written (LIBPERFTUNE_5) */
	PERFTUNE_STATUS_REFUSED = 1 << 12,
};

/** perftune_status_iter_next() - the next entry, or NULL at the end. */
const struct perftune_status_entry *perftune_status_iter_next(struct perftune_status_iter *it);
/** perftune_status_iter_free() - free the iterator and its objects. Accepts NULL. */
void perftune_status_iter_free(struct perftune_status_iter *it);
/** perftune_status_entry_tx_name() - the transaction's name. */
const char *perftune_status_entry_tx_name(const struct perftune_status_entry *e);
/** perftune_status_entry_key() - the concrete key. */
const char *perftune_status_entry_key(const struct perftune_status_entry *e);
/** perftune_status_entry_original() - the value before the transaction (journaled). */
const char *perftune_status_entry_original(const struct perftune_status_entry *e);
/** perftune_status_entry_written() - the value the transaction wrote, or NULL if not yet. */
const char *perftune_status_entry_written(const struct perftune_status_entry *e);
/** perftune_status_entry_current() - the value on the machine now, or NULL if unreadable. */
const char *perftune_status_entry_current(const struct perftune_status_entry *e);
/** perftune_status_entry_note() - drift, hand-over, why the value now is missing, or NULL. */
const char *perftune_status_entry_note(const struct perftune_status_entry *e);
/** perftune_status_entry_flags() - PERFTUNE_STATUS_* bits. */
unsigned perftune_status_entry_flags(const struct perftune_status_entry *e);
/** perftune_status_entry_pid() - holder pid of a held or orphaned transaction, else 0. */
int perftune_status_entry_pid(const struct perftune_status_entry *e);

/**
 * perftune_status() - iterate over every key of every journaled transaction,
 * so that drift and orphans show.
 * Return: 0, -EINVAL (@iterp NULL), -ENOMEM, -EACCES/-EPERM/-ELOOP (a journal
 *   directory or journal refused), -EIO.
 */
int perftune_status(struct perftune_ctx *ctx, struct perftune_status_iter **iterp);

/**
 * perftune_status_metrics() - perftune_status() as Prometheus metrics, in the
 * text exposition format of node_exporter's textfile collector (HELP and TYPE
 * lines, label values escaped): per key perftune_tunable_in_force and
 * perftune_tunable_drift {key, transaction}; per transaction
 * perftune_transaction_held, _orphaned, _committed and
 * perftune_journal_unreadable {transaction}; perftune_keys{state} (in_force,
 * drift, shadowed, not_written, unreadable), perftune_transactions{state}
 * (applied, held, orphaned, incomplete, unreadable), perftune_orphaned_journals and
 * perftune_holds.  Every family is written, also with no transaction.
 * @flags: 0 (reserved).
 * @text: receives a malloc'd string; free() it.
 * Return: number of status entries, -EINVAL (@ctx or @text NULL, @flags not
 *   0), or an error of perftune_status().  (LIBPERFTUNE_2)
 */
int perftune_status_metrics(struct perftune_ctx *ctx, unsigned flags, char **text);

/* ------------------------------------------------------------------------ */
/* NUMA placement of the calling process                                    */
/* ------------------------------------------------------------------------ */

/** Memory policies for perftune_numa_place_self(). */
enum {
	PERFTUNE_MEM_LOCAL = 0,	     /* allocate on the node the thread runs on (default) */
	PERFTUNE_MEM_BIND = 1,	     /* only from the given nodes */
	PERFTUNE_MEM_PREFERRED = 2,  /* from the first given node, others when it is full */
	PERFTUNE_MEM_INTERLEAVE = 3, /* round-robin over the given nodes */
};

/**
 * perftune_numa_place_self() - run the calling process on the CPUs of NUMA
 * nodes @nodes ("1", "0-1") with memory policy @mempolicy, as numactl does;
 * what it sets is inherited across fork() and execve() (perftune exec).
 * A running process is placed with the key proc.<pid>.numa_nodes instead.
 * Return: 0, -EINVAL (bad list or policy), -ENODEV (no such node),
 *         -EOPNOTSUPP (no NUMA), -errno from the kernel.
 */
int perftune_numa_place_self(struct perftune_ctx *ctx, const char *nodes, int mempolicy);

/* ------------------------------------------------------------------------ */
/* Profiles                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * A profile is TuneD's tuned.conf format (see perftune-profile(5)): [main]
 * include= and summary=, [variables], ${var} and ${f:function:...}, plugin
 * sections by name or type=, devices= globs with ! exclusions, replace=,
 * "a|b" alternatives and ">N"/"<N" conditional values.  Its options are
 * mapped onto keys; an option that has no key (script=, the boot loader,
 * anything that would run a program) or whose key this machine lacks is
 * an item flagged PERFTUNE_PROFILE_ITEM_SKIPPED, with its skip reason.  Nothing a profile
 * names is ever executed.
 */
struct perftune_profile;

/** Flags for perftune_profile_stage(). */
enum {
	PERFTUNE_PROFILE_STRICT = 1 << 0, /* a skipped option is an error (-EOPNOTSUPP) */
	PERFTUNE_PROFILE_HOLD = 1 << 1,	  /* @tx holds (PERFTUNE_TX_HOLD): force_latency maps
					     to pmqos.cpu_dma_latency_us, not to
					     cpu.all.idle.max_latency_us */
};

/**
 * perftune_profile_load() - read a profile and map it onto this machine's keys.
 * @name_or_path: a name, searched in $PERFTUNE_PROFILE_PATH (colon-separated) or
 *   else /etc/perftune/profiles, <datadir>/perftune/profiles, /etc/tuned,
 *   /usr/lib/tuned (as <dir>/<name>/tuned.conf); or a path (with a '/') to a
 *   tuned.conf or to its directory.
 * @vars: "NAME=VALUE" strings, NULL-terminated (or NULL): override the
 *   profile's [variables] and its variables file.  A profile loaded by name
 *   reads the first <dir>/<name>/variables.conf on the search path
 *   (/etc/perftune/profiles/<name>/variables.conf for the admin), NAME=VALUE
 *   lines trusted as profiles are (perftune-profile(5)); perftune_profile_stage()
 *   logs a warning for each variable a value uses undefined.
 * @pp: receives the profile; free it with perftune_profile_free().
 * The context's root is used: devices and values are those below it.
 * Return: 0; -ENOENT (no such profile, or an include= that is missing),
 *   -EINVAL (syntax error, bad value, failed ${f:assertion}; the message names
 *   file, line, section and option), -EPERM (a variables file others than root
 *   can change, or a symbolic link), -ELOOP, -EFBIG, -ENOMEM.
 */
int perftune_profile_load(struct perftune_ctx *ctx, const char *name_or_path,
			  const char *const *vars, struct perftune_profile **pp);

/** perftune_profile_name() - the profile's name (its directory's name). */
const char *perftune_profile_name(struct perftune_profile *p);

/** perftune_profile_path() - the tuned.conf that was loaded. */
const char *perftune_profile_path(struct perftune_profile *p);

/** perftune_profile_summary() - [main] summary=, or NULL. */
const char *perftune_profile_summary(struct perftune_profile *p);

/** One option of a profile and what it maps to (perftune_profile_items()). */
struct perftune_profile_item;
struct perftune_profile_item_iter;

/** Flags of a profile item (perftune_profile_item_flags()). */
enum perftune_profile_item_flag {
	PERFTUNE_PROFILE_ITEM_UNCHANGED = 1 << 4, /* a ">N"/"<N" value the machine already meets */
	PERFTUNE_PROFILE_ITEM_SKIPPED =
		1 << 10, /* not applied: perftune_profile_item_skip_reason() */
};

/** perftune_profile_item_iter_next() - the next item, or NULL at the end. */
const struct perftune_profile_item *
perftune_profile_item_iter_next(struct perftune_profile_item_iter *it);
/** perftune_profile_item_iter_free() - free the iterator and its objects. Accepts NULL. */
void perftune_profile_item_iter_free(struct perftune_profile_item_iter *it);
/** perftune_profile_item_option() - the option, "[section] name" ("[disk] readahead"). */
const char *perftune_profile_item_option(const struct perftune_profile_item *i);
/** perftune_profile_item_value_as_written() - the value as the profile writes it. */
const char *perftune_profile_item_value_as_written(const struct perftune_profile_item *i);
/** perftune_profile_item_key() - the key it maps to, or NULL (a skipped option may have none). */
const char *perftune_profile_item_key(const struct perftune_profile_item *i);
/** perftune_profile_item_value() - the value as validated ("deadline" reads "mq-deadline"), or NULL. */
const char *perftune_profile_item_value(const struct perftune_profile_item *i);
/** perftune_profile_item_location() - where: "file:line" ("/usr/lib/tuned/x/tuned.conf:12"). */
const char *perftune_profile_item_location(const struct perftune_profile_item *i);
/** perftune_profile_item_skip_reason() - why a SKIPPED item is not applied; NULL if applied. */
const char *perftune_profile_item_skip_reason(const struct perftune_profile_item *i);
/** perftune_profile_item_note() - a remark on an applied item (alias, resolution), or NULL. */
const char *perftune_profile_item_note(const struct perftune_profile_item *i);
/** perftune_profile_item_flags() - PERFTUNE_PROFILE_ITEM_* bits. */
unsigned perftune_profile_item_flags(const struct perftune_profile_item *i);

/**
 * perftune_profile_items() - iterate over what the profile maps to, in
 * TuneD's order, as of the last perftune_profile_stage() (or the load).
 * Return: 0, -EINVAL (@p or @iterp NULL), -ENOMEM.
 */
int perftune_profile_items(struct perftune_profile *p, struct perftune_profile_item_iter **iterp);

/**
 * perftune_profile_stage() - map the profile again against the machine as it
 * is now and stage every mapped option into @tx with perftune_tx_set().
 * Every option is validated before anything is staged; an error leaves @tx
 * without any of the profile's values (short of the machine changing in
 * between, after which @tx should be dropped).  readahead_multiply scales
 * the original value journaled under @tx's name when there is one, so
 * applying a profile again does not compound it.
 * Return: number of tunables staged; -EOPNOTSUPP (STRICT and an option is
 *   skipped, first of all one that uses an undefined variable), or any error of perftune_tx_set() (the message names the option).
 */
int perftune_profile_stage(struct perftune_profile *p, struct perftune_tx *tx, unsigned flags);

/** A profile on the search path (perftune_profile_list()). */
struct perftune_profile_entry;
struct perftune_profile_entry_iter;

/** perftune_profile_entry_iter_next() - the next profile, or NULL at the end. */
const struct perftune_profile_entry *
perftune_profile_entry_iter_next(struct perftune_profile_entry_iter *it);
/** perftune_profile_entry_iter_free() - free the iterator and its objects. Accepts NULL. */
void perftune_profile_entry_iter_free(struct perftune_profile_entry_iter *it);
/** perftune_profile_entry_name() - the profile's name. */
const char *perftune_profile_entry_name(const struct perftune_profile_entry *e);
/** perftune_profile_entry_path() - the path of its tuned.conf. */
const char *perftune_profile_entry_path(const struct perftune_profile_entry *e);
/** perftune_profile_entry_summary() - its [main] summary=, or NULL. */
const char *perftune_profile_entry_summary(const struct perftune_profile_entry *e);
/** perftune_profile_entry_error() - why it cannot be read, or NULL if it can. */
const char *perftune_profile_entry_error(const struct perftune_profile_entry *e);
/**
 * perftune_profile_entry_variables() - the variables its values and devices=
 * use (${name}, its includes' too), space-separated in the order first used;
 * NULL if none.  Since LIBPERFTUNE_5.
 */
const char *perftune_profile_entry_variables(const struct perftune_profile_entry *e);
/**
 * perftune_profile_entry_unset_variables() - those of them that neither the
 * profile's [variables], nor its variables file (<dir>/<name>/variables.conf
 * on the search path, perftune-profile(5)) defines: the options that use them
 * are skipped unless -v sets them; NULL if none.  Since LIBPERFTUNE_5.
 */
const char *perftune_profile_entry_unset_variables(const struct perftune_profile_entry *e);

/**
 * perftune_profile_list() - iterate over the profiles on the search path,
 * sorted by name (a name found in several directories: the first one).
 * Return: 0, -EINVAL (@iterp NULL), -ENOMEM.
 */
int perftune_profile_list(struct perftune_ctx *ctx, struct perftune_profile_entry_iter **iterp);

/** perftune_profile_free() - accepts NULL. */
void perftune_profile_free(struct perftune_profile *p);

/* ------------------------------------------------------------------------ */
/* Export: persist values in the system's own formats                       */
/* ------------------------------------------------------------------------ */

/** Export formats. */
enum perftune_export_format {
	PERFTUNE_EXPORT_SYSCTL,	 /* a sysctl.d(5) file: sysctl.*, hugepages.nr, numa.balancing */
	PERFTUNE_EXPORT_UDEV,	 /* a udev rules file: block.*.<queue attribute> */
	PERFTUNE_EXPORT_CMDLINE, /* a kernel command line fragment: huge pages, THP, NUMA */
	PERFTUNE_EXPORT_TUNED,	 /* a TuneD profile (tuned.conf) */
};

/**
 * perftune_export_format_from_name() - the format named "sysctl", "udev",
 * "cmdline" or "tuned".
 * @formatp: receives the format.
 * Return: 0, -EINVAL (no such format, or @name or @formatp NULL).
 */
int perftune_export_format_from_name(const char *name, enum perftune_export_format *formatp);

/**
 * perftune_export_transaction() - write the values journaled transaction
 * @name wrote (as perftune_status() shows them) in @format.
 * Keys the format cannot express are listed in comments (cmdline has none:
 * they are logged at PERFTUNE_LOG_NOTICE).  @text receives a malloc'd string;
 * free() it.
 * Return: number of keys exported, -ENOENT (no such transaction), -EINVAL (bad
 *   @format), -ENOMEM.
 */
int perftune_export_transaction(struct perftune_ctx *ctx, const char *name,
				enum perftune_export_format format, char **text);

/**
 * perftune_export_profile() - the same for the keys @p maps to (">N"
 * conditions the machine already meets are left out; options this machine
 * skips are kept as "# skipped here: [unit] option = value: reason" comments,
 * for cmdline on the lines after the fragment).
 * Disk options of a section that selects disks by pattern (devices=sd*,
 * rotational=0) become udev rules for the pattern, each guarded by TEST on
 * its attribute.
 * Return: number of keys exported, -EINVAL, -ENOMEM.
 */
int perftune_export_profile(struct perftune_profile *p, enum perftune_export_format format,
			    char **text);

/**
 * Flags of perftune_export_named() and perftune_verify_named(): what a name
 * given to them may be (LIBPERFTUNE_5).  Without either, a journaled
 * transaction of that name, else a profile (a name with a '/' is a profile's
 * path, never a transaction's name).
 */
enum {
	PERFTUNE_NAMED_PROFILE = 1 << 0,     /* a profile, even if a transaction has its name */
	PERFTUNE_NAMED_TRANSACTION = 1 << 1, /* a journaled transaction only */
};

/**
 * perftune_export_named() - perftune_export_transaction() of transaction
 * @name, else (none of that name) perftune_export_profile() of profile @name
 * loaded with @vars (as perftune_profile_load() takes them), as perftune
 * export NAME|PROFILE looks it up.  Since LIBPERFTUNE_5.
 * @flags: PERFTUNE_NAMED_*;
 * @text: receives a malloc'd string; free() it.
 * Return: as those calls: the number of keys exported; -ENOENT (neither: the
 *   message is the profile's, unless PERFTUNE_NAMED_TRANSACTION), -EINVAL
 *   (both flags, a bad @format), any error of perftune_profile_load().
 */
int perftune_export_named(struct perftune_ctx *ctx, const char *name, const char *const *vars,
			  enum perftune_export_format format, unsigned flags, char **text);

/* ------------------------------------------------------------------------ */
/* Why and verify: what else sets a key, and whether a setting is in force  */
/* (LIBPERFTUNE_2)                                                          */
/* ------------------------------------------------------------------------ */

/*
 * Every source on the machine that claims a key, in the order they take
 * effect: the kernel command line, sysctl.d (systemd-sysctl's precedence:
 * /etc, /run, /usr/local/lib, /usr/lib; a name masks the same name in later
 * directories; the later file and line win), udev rules that set the
 * device's attribute, TuneD's active profile with its includes, daemons
 * that set it again while they run (tuned, tuned-ppd,
 * power-profiles-daemon), and perftune's own transactions.  Files are read
 * below the context's root (perftune_ctx_set_root()).
 */
struct perftune_source;
struct perftune_source_iter;

/** Flags of a source (perftune_source_flags()). */
enum perftune_source_flag {
	PERFTUNE_SOURCE_WINS = 1 << 0,	     /* the last of its kind: the one in effect */
	PERFTUNE_SOURCE_OVERRIDDEN = 1 << 1, /* a later line or file of its kind sets it again */
	PERFTUNE_SOURCE_PERSISTENT = 1 << 2, /* puts its value back at boot or when re-applied */
	PERFTUNE_SOURCE_DIFFERS = 1 << 3,    /* its value is not the value compared with */
	PERFTUNE_SOURCE_ERROR = 1 << 4,	     /* a file that cannot be read: the note says why */
};

/** perftune_source_iter_next() - the next source, or NULL at the end. */
const struct perftune_source *perftune_source_iter_next(struct perftune_source_iter *it);
/** perftune_source_iter_free() - free the iterator and its objects. Accepts NULL. */
void perftune_source_iter_free(struct perftune_source_iter *it);
/** perftune_source_kind() - "cmdline", "sysctl.d", "udev", "tuned", "daemon" or "transaction". */
const char *perftune_source_kind(const struct perftune_source *s);
/** perftune_source_key() - the concrete key it claims. */
const char *perftune_source_key(const struct perftune_source *s);
/** perftune_source_location() - "file:line", "/proc/cmdline", "tuned (pid 812)", a transaction's name. */
const char *perftune_source_location(const struct perftune_source *s);
/** perftune_source_value() - the value it sets as it writes it, or NULL (a daemon, an error). */
const char *perftune_source_value(const struct perftune_source *s);
/** perftune_source_note() - what it is and when it acts, or why its file cannot be read. */
const char *perftune_source_note(const struct perftune_source *s);
/** perftune_source_flags() - PERFTUNE_SOURCE_* bits. */
unsigned perftune_source_flags(const struct perftune_source *s);
/** perftune_source_pid() - a running daemon's or a transaction's holder pid, else 0. */
int perftune_source_pid(const struct perftune_source *s);

/**
 * perftune_why() - iterate over the sources that claim @key (each tunable it
 * names), in the order they take effect.  A source whose value is not
 * @compare_to (NULL: the value now) is flagged PERFTUNE_SOURCE_DIFFERS.  A
 * configuration file that cannot be read is listed with
 * PERFTUNE_SOURCE_ERROR (and logged); it never fails the call.
 * Return: number of sources, -EINVAL, -ENOENT, -ENODEV, -EOPNOTSUPP, -ENOMEM.
 */
int perftune_why(struct perftune_ctx *ctx, const char *key, const char *compare_to,
		 struct perftune_source_iter **iterp);

/**
 * perftune_why_keys() - perftune_why() of many keys in one call: the sources
 * of each of @keys (NULL-terminated) in turn, each compared with
 * @compare_to[i] (@compare_to NULL, or an entry NULL: the value now).  Every
 * configuration file is read once for all of them, and only the kinds of
 * source that can name one of the keys are read (a sysctl: sysctl.d; a
 * device's attribute: udev rules).  perftune_source_key() tells whose each
 * source is.  A key that names nothing fails the call, naming the key.
 * Return: number of sources, -EINVAL, -ENOENT, -ENODEV, -EOPNOTSUPP, -ENOMEM.
 */
int perftune_why_keys(struct perftune_ctx *ctx, const char *const *keys,
		      const char *const *compare_to, struct perftune_source_iter **iterp);

/** What perftune_verify*() found for one setting (perftune_check_status()). */
enum perftune_check_result {
	PERFTUNE_CHECK_IN_FORCE = 0,	 /* reads back the expected value */
	PERFTUNE_CHECK_DIFFERS = 1,	 /* now another value */
	PERFTUNE_CHECK_CLAMPED = 2,	 /* the kernel holds less than asked (huge pages) */
	PERFTUNE_CHECK_NOT_HERE = 3,	 /* the machine lacks it: perftune_check_reason() */
	PERFTUNE_CHECK_NEEDS_REBOOT = 4, /* a boot parameter not on /proc/cmdline */
	PERFTUNE_CHECK_SKIPPED = 5,	 /* not applied by policy (scripts, programs) */
};

struct perftune_check;
struct perftune_check_iter;

/** perftune_check_iter_next() - the next check, or NULL at the end. */
const struct perftune_check *perftune_check_iter_next(struct perftune_check_iter *it);
/** perftune_check_iter_free() - free the iterator and its objects. Accepts NULL. */
void perftune_check_iter_free(struct perftune_check_iter *it);
/** perftune_check_key() - the concrete key, or the profile's option when it maps to none. */
const char *perftune_check_key(const struct perftune_check *c);
/** perftune_check_expected() - the value expected. */
const char *perftune_check_expected(const struct perftune_check *c);
/** perftune_check_current() - the value now, or NULL (not here, skipped). */
const char *perftune_check_current(const struct perftune_check *c);
/** perftune_check_reason() - why not in force, not here or skipped; or NULL. */
const char *perftune_check_reason(const struct perftune_check *c);
/** perftune_check_origin() - where the expectation comes from: "file:line", a transaction. */
const char *perftune_check_origin(const struct perftune_check *c);
/** perftune_check_status() - a PERFTUNE_CHECK_* value. */
int perftune_check_status(const struct perftune_check *c);
/** perftune_check_status_name() - "in force", "differs", "clamped", "not here", "needs reboot", "skipped". */
const char *perftune_check_status_name(int status);

/**
 * perftune_verify() - check "KEY=VALUE" settings (@settings NULL-terminated)
 * against the machine.  Values are compared as the kernel shows them:
 * the bracketed choice, aliases ("deadline" is "[mq-deadline]"), CPU lists
 * ("0-3" is "0,1,2,3"), blanks in vectors ("4096 87380" is "4096\t87380").
 * Return: number of settings not in force (differs, clamped, needs reboot),
 *   -EINVAL (malformed setting or key, a value the key never takes),
 *   -ENOMEM.
 */
int perftune_verify(struct perftune_ctx *ctx, const char *const *settings,
		    struct perftune_check_iter **iterp);

/**
 * perftune_verify_profile() - the same for every option of @p, as mapped on
 * this machine now; its [bootloader] cmdline is compared with /proc/cmdline.
 * Return: as perftune_verify().
 */
int perftune_verify_profile(struct perftune_profile *p, struct perftune_check_iter **iterp);

/**
 * perftune_verify_transaction() - the same for the values journaled
 * transaction @name wrote.
 * Return: as perftune_verify(), -ENOENT (no such transaction).
 */
int perftune_verify_transaction(struct perftune_ctx *ctx, const char *name,
				struct perftune_check_iter **iterp);

/**
 * perftune_verify_named() - perftune_verify_transaction() of transaction
 * @name, else (none of that name) perftune_verify_profile() of profile @name
 * loaded with @vars, as perftune verify NAME|PROFILE looks it up (flags:
 * PERFTUNE_NAMED_*, as perftune_export_named()).  Since LIBPERFTUNE_5.
 * Return: as perftune_verify(); -ENOENT (neither: the message is the
 *   profile's), any error of perftune_profile_load().
 */
int perftune_verify_named(struct perftune_ctx *ctx, const char *name, const char *const *vars,
			  unsigned flags, struct perftune_check_iter **iterp);

/**
 * perftune_verify_metrics() - the checks of @it (read to its end) as
 * Prometheus metrics in node_exporter's textfile format, each with the label
 * verified="@what" (the profile, transaction or "settings" verified):
 * perftune_verify_in_force{verified, key, origin} 1 or 0,
 * perftune_verify_checks{verified, state} per state (in_force, differs,
 * clamped, not_here, needs_reboot, skipped) and
 * perftune_verify_not_in_force{verified}.  HELP and TYPE lines, label values
 * escaped.  @text receives a malloc'd string; free() it.
 * Return: number of settings not in force, -EINVAL (a NULL argument), -ENOMEM.
 */
int perftune_verify_metrics(struct perftune_check_iter *it, const char *what, char **text);

/* ---- Experiments (LIBPERFTUNE_4): does a change help a workload? ----------
 *
 * An experiment measures a workload, through a callback the caller supplies,
 * in two states: baseline (the machine as it is) and tuned (a change: a
 * profile or KEY=VALUE settings, applied as a HOLD transaction named after
 * the experiment).  After @warmup unmeasured runs of each state it runs
 * @rounds rounds, each one run per state in an order that cancels drift
 * (ABBA, or a seeded coin per round); the first run of all is a baseline run.
 * The tuned state exists only during a tuned run: the change is committed
 * just before the callback and rolled back right after it, so an experiment
 * stopped anywhere has at most one run's change to give back, and a process
 * killed during a tuned run leaves an orphaned journal (perftune_status():
 * orphaned) that perftune_restore() of its name gives back.  The statistics (per state median,
 * quartiles, CV; the change of the median with a seeded bootstrap 95% CI; a
 * two-sided Mann-Whitney U test; a verdict) are read after
 * perftune_experiment_run() with the accessors below.
 */
struct perftune_experiment;
/** One run of an experiment, handed to the measure callback. */
struct perftune_run;

/** The two states of an experiment. */
enum perftune_state {
	PERFTUNE_BASELINE = 0, /* the machine as it is */
	PERFTUNE_TUNED = 1,    /* with the change */
};

/** The order of the two runs in each round (perftune_experiment_set_order()). */
enum perftune_order {
	PERFTUNE_ORDER_ABBA = 0, /* baseline first in odd rounds, tuned first in even */
	PERFTUNE_ORDER_RANDOM,	 /* a coin per round, seeded by perftune_experiment_set_seed() */
};

/** The verdict (perftune_experiment_verdict()). */
enum perftune_verdict {
	PERFTUNE_NO_DIFFERENCE = 0, /* p >= alpha, or the CI includes 0 */
	PERFTUNE_BETTER,
	PERFTUNE_WORSE,
};

/* the level of the test and the bootstrap's resamples */
#define PERFTUNE_EXPERIMENT_ALPHA 0.05
#define PERFTUNE_EXPERIMENT_RESAMPLES 2000

/**
 * perftune_measure_fn - measure the workload once, in the state @run says
 * (the change is in force during a tuned run).  Store the measure in @value
 * and return 0; a negative errno stops the experiment (the change is given
 * back) and perftune_experiment_run() returns it.  A warmup run's value is
 * not used.
 */
typedef int (*perftune_measure_fn)(struct perftune_run *run, void *userdata, double *value);

/**
 * perftune_experiment_new() - an experiment on @ctx; its transaction is named
 * @name (NULL: "experiment-PID").  Defaults: 10 rounds, 1 warmup, ABBA, seed
 * 1, lower is better.  Free it with perftune_experiment_free().
 * Return: 0, -EINVAL (@expp NULL, a bad name), -ENOMEM.
 */
int perftune_experiment_new(struct perftune_ctx *ctx, const char *name,
			    struct perftune_experiment **expp);

/** perftune_experiment_free() - free @exp (NULL is fine); not during a run. */
void perftune_experiment_free(struct perftune_experiment *exp);

/** perftune_experiment_name() - the name of its transaction. */
const char *perftune_experiment_name(struct perftune_experiment *exp);

/**
 * perftune_experiment_set() - add KEY=VALUE to the change (as
 * perftune_tx_set() takes it; checked by perftune_experiment_check()).
 * Return: 0, -EINVAL (NULL, a profile was given), -ENOMEM.
 */
int perftune_experiment_set(struct perftune_experiment *exp, const char *key, const char *value);

/**
 * perftune_experiment_set_profile() - the change is profile @p, staged with
 * PERFTUNE_PROFILE_HOLD before each tuned run.  @p is borrowed: keep it
 * until the experiment is freed.
 * Return: 0, -EINVAL (NULL, settings were given).
 */
int perftune_experiment_set_profile(struct perftune_experiment *exp, struct perftune_profile *p);

/** perftune_experiment_set_rounds() - measured rounds, 3 to 100000; 0 or -EINVAL. */
int perftune_experiment_set_rounds(struct perftune_experiment *exp, unsigned rounds);

/** perftune_experiment_set_warmup() - unmeasured runs of each state first, 0 to 100000; 0 or -EINVAL. */
int perftune_experiment_set_warmup(struct perftune_experiment *exp, unsigned warmup);

/** perftune_experiment_set_order() - PERFTUNE_ORDER_*; 0 or -EINVAL. */
int perftune_experiment_set_order(struct perftune_experiment *exp, enum perftune_order order);

/** perftune_experiment_set_seed() - seed of the bootstrap and of the random order; 0 or -EINVAL. */
int perftune_experiment_set_seed(struct perftune_experiment *exp, uint64_t seed);

/** perftune_experiment_set_higher_is_better() - a larger measure is better (for the verdict); 0 or -EINVAL. */
int perftune_experiment_set_higher_is_better(struct perftune_experiment *exp, bool higher);

/**
 * perftune_experiment_check() - validate the change as a dry run, exactly as
 * a transaction's commit would, changing nothing.
 * @txp: NULL, or receives the committed dry-run transaction, whose
 *   perftune_tx_changes() show the change; perftune_tx_unref() it.
 * Return: 0; -EINVAL (no change given), any error of perftune_tx_new(),
 *   perftune_tx_set(), perftune_profile_stage() or perftune_tx_commit().
 */
int perftune_experiment_check(struct perftune_experiment *exp, struct perftune_tx **txp);

/**
 * perftune_experiment_run() - run the experiment, calling @measure once per
 * run (2 * (warmup + rounds) times), and compute the statistics.  The change
 * is given back after every tuned run, whatever happens.
 * Return: 0; -ECANCELED (perftune_experiment_abort(): the change is given
 *   back), what @measure returned (negative), -EALREADY (run before),
 *   -EINVAL (@measure NULL, no change), -ENOMEM, or an error of applying or
 *   restoring the change (the message names the run; a failed restore
 *   leaves the journal: perftune_restore() of the experiment's name).
 */
int perftune_experiment_run(struct perftune_experiment *exp, perftune_measure_fn measure,
			    void *userdata);

/**
 * perftune_experiment_abort() - stop the experiment: the run in progress
 * finishes (the callback is not interrupted), the change is given back and
 * perftune_experiment_run() returns -ECANCELED; a later run does not start.
 * Async-signal-safe and callable from any thread (one atomic store).
 */
void perftune_experiment_abort(struct perftune_experiment *exp);

/** perftune_experiment_rounds() - the rounds set; perftune_experiment_warmup() the warmups. */
unsigned perftune_experiment_rounds(struct perftune_experiment *exp);
unsigned perftune_experiment_warmup(struct perftune_experiment *exp);
enum perftune_order perftune_experiment_order(struct perftune_experiment *exp);
uint64_t perftune_experiment_seed(struct perftune_experiment *exp);

/* ---- a run, during the measure callback ---- */

/** perftune_run_round() - the round, 1 to rounds; 0 during the warmup. */
unsigned perftune_run_round(const struct perftune_run *run);
/** perftune_run_warmup() - the warmup run, 1 to warmup; 0 in a round. */
unsigned perftune_run_warmup(const struct perftune_run *run);
/** perftune_run_state() - PERFTUNE_BASELINE or PERFTUNE_TUNED. */
enum perftune_state perftune_run_state(const struct perftune_run *run);
/** perftune_run_index() - how many runs came before (0 for the first). */
unsigned perftune_run_index(const struct perftune_run *run);
/** perftune_run_total() - all runs of the experiment, 2 * (warmup + rounds). */
unsigned perftune_run_total(const struct perftune_run *run);
/** perftune_run_label() - "round 3 (tuned run)", "warmup 1 (baseline run)". */
const char *perftune_run_label(const struct perftune_run *run);
/** perftune_run_experiment() - the experiment the run belongs to. */
struct perftune_experiment *perftune_run_experiment(const struct perftune_run *run);

/* ---- the results, after perftune_experiment_run() returned 0 ----
 * Before that the counts are 0 and the figures NaN. */

/** perftune_experiment_samples() - the measures of @state, round by round; their count. */
size_t perftune_experiment_samples(struct perftune_experiment *exp, enum perftune_state state,
				   const double **values);
/** perftune_state_name() - "baseline" or "tuned". */
const char *perftune_state_name(enum perftune_state state);

/* per state: median, quartiles (numpy's linear interpolation), their
 * distance, mean, coefficient of variation (sd with n - 1, over |mean|) */
double perftune_experiment_median(struct perftune_experiment *exp, enum perftune_state state);
double perftune_experiment_q1(struct perftune_experiment *exp, enum perftune_state state);
double perftune_experiment_q3(struct perftune_experiment *exp, enum perftune_state state);
double perftune_experiment_iqr(struct perftune_experiment *exp, enum perftune_state state);
double perftune_experiment_mean(struct perftune_experiment *exp, enum perftune_state state);
double perftune_experiment_cv(struct perftune_experiment *exp, enum perftune_state state);

/** perftune_experiment_change_pct() - 100 * (tuned median / baseline median - 1); NaN if the baseline's is 0. */
double perftune_experiment_change_pct(struct perftune_experiment *exp);
/** perftune_experiment_ci95_low(), _high() - the seeded percentile bootstrap 95% interval of it; NaN if none. */
double perftune_experiment_ci95_low(struct perftune_experiment *exp);
double perftune_experiment_ci95_high(struct perftune_experiment *exp);
/** perftune_experiment_u() - Mann-Whitney U of the tuned sample (scipy's statistic). */
double perftune_experiment_u(struct perftune_experiment *exp);
/** perftune_experiment_p_value() - its two-sided p-value. */
double perftune_experiment_p_value(struct perftune_experiment *exp);
/** perftune_experiment_p_exact() - the p-value is exact (no ties, a sample of at most 8), else normal. */
bool perftune_experiment_p_exact(struct perftune_experiment *exp);
/** perftune_experiment_verdict() - better or worse: p < alpha and the CI excludes 0. */
enum perftune_verdict perftune_experiment_verdict(struct perftune_experiment *exp);
/** perftune_verdict_name() - "better", "worse", "no difference". */
const char *perftune_verdict_name(enum perftune_verdict verdict);

/**
 * perftune_median() - the median of @n values (any order), as the
 * experiment computes it.
 * Return: 0, -EINVAL (@n 0, NULL), -ENOMEM.
 */
int perftune_median(const double *values, size_t n, double *median);

/* ---- Metrics and plots (LIBPERFTUNE_5) ------------------------------------
 * What perftune compare --metric and --plot need that is not the program's
 * business: the number a command's output reports, and the picture's gnuplot
 * script.  The library runs no program: the caller runs the command and feeds
 * its output, and runs gnuplot on the script if it wants the picture.
 */

/** The number a program's output reports (perftune_metric_new()). */
struct perftune_metric;

/**
 * perftune_metric_new() - read a measure from a program's output: the number
 * that @regex's (POSIX extended) one capture group finds in the last line of
 * the output where @regex matches, its last match there ("time: ([0-9.]+)").
 * The output is fed in chunks of any size; time is linear in it and memory
 * bounded (a line longer than 1 MiB is matched in windows).  One object
 * reads any number of outputs, one after the other.
 * Return: 0, -EINVAL (@regex does not compile, or has not exactly one capture
 *         group: the message names it), -ENOMEM.
 */
int perftune_metric_new(struct perftune_ctx *ctx, const char *regex,
			struct perftune_metric **metricp);
/** perftune_metric_feed() - the next @size bytes of the output (NUL bytes are characters). */
void perftune_metric_feed(struct perftune_metric *metric, const void *data, size_t size);
/**
 * perftune_metric_end() - the output has ended: its number in @value; @metric
 * is then ready for the next output.
 * Return: 0, -ENOENT (@regex matched nothing), -ENODATA (its group captured
 *         nothing in the last line it matched), -EINVAL (it captured text that
 *         is not a finite number); the message names the regex.
 */
int perftune_metric_end(struct perftune_metric *metric, double *value);
/** perftune_metric_free() - accepts NULL. */
void perftune_metric_free(struct perftune_metric *metric);

/** Flags of perftune_experiment_plot(). */
enum {
	PERFTUNE_PLOT_PNG = 1 << 0, /* a PNG picture (gnuplot's pngcairo), else SVG */
};

/**
 * perftune_experiment_plot() - a gnuplot script that draws @exp's results:
 * both states' quartiles, min-max and every sample, and the 95% CI of the
 * change.  It sets no output: run gnuplot with the script on its standard
 * input, the picture comes on its standard output.
 * @title: the picture's title, the verdict added ("perftune compare: CMD");
 * @ylabel: what was measured ("wall time (s)"), ", lower is better" added.
 * @script: receives a malloc'd string; free() it.
 * Return: 0, -EINVAL (@exp has no results: perftune_experiment_run() did not
 *         complete; unknown @flags), -ENOMEM.
 */
int perftune_experiment_plot(struct perftune_experiment *exp, const char *title, const char *ylabel,
			     unsigned flags, char **script);

/**
 * perftune_run_set_times() - in the measure callback: the wall, user and
 * system seconds the run took, as the caller measured them (perftune compare:
 * its command's, from wait4()).  perftune_experiment_report() shows them; a
 * warmup run's are not kept.  Runs without them report NaN (null in JSON).
 * Return: 0, -EINVAL (@run NULL).
 */
int perftune_run_set_times(struct perftune_run *run, double wall, double user, double sys);

/**
 * Flags of perftune_experiment_report() and of the other perftune_*_report()
 * calls (LIBPERFTUNE_5): what the perftune program prints of an object, as
 * text or as the JSON perftune(8) documents, in a malloc'd string.
 */
enum {
	PERFTUNE_REPORT_JSON = 1 << 0, /* JSON (the program's --json), else its text */
	/* perftune_list_report() only: leave out the read-only tunables (list --writable) */
	PERFTUNE_REPORT_WRITABLE = 1 << 1,
};

/**
 * perftune_experiment_report() - @exp's results as perftune compare prints
 * them (perftune(8)): how it ran, per state n, median, IQR, CV and the median
 * user and system seconds, the change of the median with its 95% CI, the
 * Mann-Whitney U test and the verdict; with PERFTUNE_REPORT_JSON one JSON
 * object (compare --json's, ending in a newline).
 * @metric: the regex the measure came from (perftune_metric_new()), NULL for
 *          the wall time in seconds;
 * @log: where the measured command's output went, named in the report (NULL: none);
 * @plot: the picture's file, named in the JSON (NULL: none);
 * @text: receives a malloc'd string; free() it.
 * Return: 0, -EINVAL (@exp has no results: perftune_experiment_run() did not
 *         complete; unknown @flags), -ENOMEM.
 */
int perftune_experiment_report(struct perftune_experiment *exp, unsigned flags, const char *metric,
			       const char *log, const char *plot, char **text);

/**
 * perftune_tx_report() - what perftune set and apply print of @tx
 * (perftune(8)), after its commit.  A dry run (PERFTUNE_TX_DRY_RUN) shows
 * each staged key, a commit the keys it wrote, kept or gave back.  Text: a
 * line "key: old -> new" per change, a note in parentheses, and with a
 * profile @p (the one staged into @tx, perftune_profile_stage()) a line per
 * option it skipped ("skipped: [section] option: reason") or kept ("kept:
 * key = value (option: why)").  With PERFTUNE_REPORT_JSON one JSON object
 * (set --json's: transaction, dry_run, changes, warnings; with @p apply
 * --json's: profile, path, transaction, dry_run, changes, skipped, kept,
 * warnings), ending in a newline.
 * @p: the profile applied, or NULL (a transaction of single keys);
 * @text: receives a malloc'd string; free() it;
 * @warnings: text only: receives a malloc'd string of one line per key that a
 *            persistent source will put back (perftune_tx_conflicts()),
 *            "warning: key: kind location puts back value (note)", or NULL
 *            if none (perftune prints each line on stderr after "perftune: ");
 *            NULL to skip that search, which reads the configuration files.
 *            With PERFTUNE_REPORT_JSON the warnings are the object's member
 *            and *@warnings is NULL.
 * Return: 0, -EINVAL (@tx or @text NULL, unknown @flags), -ENOMEM.
 */
int perftune_tx_report(struct perftune_tx *tx, struct perftune_profile *p, unsigned flags,
		       char **text, char **warnings);

/**
 * perftune_status_report() - the journaled transactions as perftune status
 * prints them (perftune(8)): a line per transaction with its state (applied,
 * held, ORPHANED, incomplete) and holder pid, under it a line per key
 * "key: original -> written, now current" with DRIFT, GONE, MOVED, HOTPLUG
 * or REFUSED and the note; "no transactions" if none.  With
 * PERFTUNE_REPORT_JSON status --json's array, one object per entry, ending
 * in a newline.  The metrics of status --format prometheus are
 * perftune_status_metrics().
 * @text: receives a malloc'd string; free() it.
 * Return: 0, -EINVAL (@ctx or @text NULL, unknown @flags), -ENOMEM, and those
 *         of perftune_status(): -EACCES/-EPERM/-ELOOP, -EIO.
 */
int perftune_status_report(struct perftune_ctx *ctx, unsigned flags, char **text);
/*
 * The reports of reading, why and verify (LIBPERFTUNE_5): what perftune
 * list, describe, list-profiles, why and verify print, byte for byte, text
 * or with PERFTUNE_REPORT_JSON the JSON perftune(8) documents (ending in a
 * newline).  @text receives a malloc'd string; free() it.  A flag a report
 * does not take is -EINVAL.
 */

/**
 * perftune_list_report() - perftune_list() of @prefix (NULL: all) as perftune
 * list prints it: "KEY = VALUE" per tunable, "(unreadable)" for a value that
 * cannot be read, " (read-only)" after a read-only one; JSON: an array of
 * {key, value, read_only, note}.  PERFTUNE_REPORT_WRITABLE leaves the
 * read-only tunables out.
 * Return: 0, -EINVAL, -ENOMEM, any error of perftune_list().
 */
int perftune_list_report(struct perftune_ctx *ctx, const char *prefix, unsigned flags, char **text);

/**
 * perftune_desc_report() - @d as perftune describe prints it: key, value
 * (with its unit, or "(unreadable: REASON)"), file, choices, range, whether
 * writable and why not, info; JSON: one object of those.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int perftune_desc_report(struct perftune_desc *d, unsigned flags, char **text);

/**
 * perftune_profile_list_report() - perftune_profile_list() as perftune
 * list-profiles prints it: a line per profile with its summary (or why it
 * cannot be read) and its variables, those unset after them; JSON: an array
 * of {name, summary, path, error, variables, unset}.
 * Return: 0, -EINVAL, -ENOMEM, any error of perftune_profile_list().
 */
int perftune_profile_list_report(struct perftune_ctx *ctx, unsigned flags, char **text);

/**
 * perftune_why_report() - @key's value now (perftune_get()) and its sources
 * (perftune_why()) as perftune why prints them: a numbered line per source
 * with its marks ([wins], [overridden], [differs from now], [error]) and its
 * note, then what a reboot brings back (the last persistent source in
 * effect); JSON: {key, value, sources}.  A value that cannot be read is
 * shown as such (JSON: null), it does not fail the call.
 * Return: 0, -EINVAL (also a malformed or mistyped key: the message), -ENOENT,
 *   -ENODEV, -EOPNOTSUPP, -ENOMEM.
 */
int perftune_why_report(struct perftune_ctx *ctx, const char *key, unsigned flags, char **text);

/**
 * perftune_verify_report() - the checks of @it (read to its end) as perftune
 * verify prints them: a line per setting ("differs KEY = EXPECTED (REASON)")
 * and the counts per state; JSON: {verified: @what, in_force, settings,
 * counts}.  @what: the profile, transaction or "settings" verified (JSON
 * only; NULL: null).
 * Return: the number of settings not in force (differs, clamped, needs
 *   reboot: as perftune_verify() returns it), -EINVAL, -ENOMEM.
 */
int perftune_verify_report(struct perftune_check_iter *it, const char *what, unsigned flags,
			   char **text);

/* ---- Output files (LIBPERFTUNE_5) -------------------------------------------
 * A file written on a path the caller gives (an export, a metrics file,
 * perftune compare's log and plot), maybe as root in a directory that others
 * write: a new file is made beside the path and renamed over it, so a link, a
 * FIFO or a hard link planted there is replaced, never followed, opened or
 * truncated.  Only a regular file is replaced, and not another user's in a
 * sticky directory that others may write (as protected_regular=2); a
 * character device (/dev/null) is written in place.  The path is taken as
 * given (relative to the working directory), not below the context's root.
 * The messages (perftune_ctx_last_error()) start with the path.
 */

/** A file being written (perftune_output_open()). */
struct perftune_output;

/**
 * perftune_output_check() - would perftune_output_open() take @path?  Checks
 * what is there, creating nothing, so that a caller refuses before it starts.
 * Return: 0, -EPERM (a link, a FIFO, a socket, a block device, a directory,
 *         another user's file in a sticky directory), -EINVAL (a path ending in
 *         '/'), -ENOENT, -ENOTDIR, -EACCES (its directory), -ENOMEM.
 */
int perftune_output_check(struct perftune_ctx *ctx, const char *path);

/**
 * perftune_output_open() - a new file for @path, of mode @mode (the umask is
 * not applied), renamed over the path by perftune_output_commit(); a
 * character device is opened in place.  Write through perftune_output_fd().
 * Return: 0, the errors of perftune_output_check(), -EIO (the new file cannot
 *         be made).
 */
int perftune_output_open(struct perftune_ctx *ctx, const char *path, unsigned mode,
			 struct perftune_output **outp);
/** perftune_output_fd() - the file to write (it stays open after the commit); -EINVAL for NULL. */
int perftune_output_fd(const struct perftune_output *out);
/** perftune_output_commit() - rename the new file over the path; 0, -EINVAL, -EACCES, -EIO. */
int perftune_output_commit(struct perftune_output *out);
/** perftune_output_free() - close; a new file not committed is removed.  Accepts NULL. */
void perftune_output_free(struct perftune_output *out);

/**
 * perftune_output_write_file() - @text as the whole file @path, of mode
 * @mode, through perftune_output_open() and perftune_output_commit(): the
 * path holds the old file or the new one, never a part.
 * Return: 0, the errors of perftune_output_open(), -EIO (a failed write).
 */
int perftune_output_write_file(struct perftune_ctx *ctx, const char *path, const char *text,
			       unsigned mode);

/**
 * perftune_profile_default_path() - the profile search path used when
 * $PERFTUNE_PROFILE_PATH is unset or empty, as that variable writes it:
 * directories separated by ':', the first one searched first.
 */
const char *perftune_profile_default_path(void);

/* ---- From the perftune program (LIBPERFTUNE_5) ------------------------------
 * What perftune set, run, verify and compare did on their own and a binding
 * needs as much: KEY=VALUE split where the key ends, a measured command's
 * output read for a metric while it is copied to a log, the log itself, and
 * an experiment's progress.
 */

/**
 * perftune_setting_split() - split a "KEY=VALUE" setting where the key ends:
 * at the first '=' outside the key's brackets, which may hold '=' of their
 * own ("net[driver=ixgbe].txqueuelen=1000", "net[v\=1].txqueuelen=1000"); in
 * a bracket '\' takes the next character.  The key is not parsed: a bad
 * selector is perftune_tx_set()'s to name.
 * @ctx: for the message (perftune_ctx_last_error());
 * @key: receives the key, a malloc'd string; free() it (NULL on an error);
 * @value: receives the value, a pointer into @setting after the '='.
 * Return: 0, -EINVAL (no '=' outside brackets, an empty key, a bracket not
 *         closed: "'SETTING' is not KEY=VALUE"; a NULL argument), -ENOMEM.
 */
int perftune_setting_split(struct perftune_ctx *ctx, const char *setting, char **key,
			   const char **value);

/**
 * perftune_metric_feed_fd() - perftune_metric_feed() all that @fd gives, from
 * its offset to its end (a pipe's writers gone, a file's end), each chunk
 * also written to @copy_fd unless it is -1 (perftune compare's log).  A
 * write to @copy_fd that fails stops the copy, not the reading: the output
 * is still read to its end for the metric.  Then call perftune_metric_end().
 * Return: 0; a positive errno: @fd was read to its end, but writing @copy_fd
 *         failed (the message: "cannot copy the output: ..."); a negative
 *         errno: reading @fd failed (-ENOMEM, or read(2)'s: "cannot read the
 *         output: ..."), this output is forgotten and @metric ready for the
 *         next; -EINVAL (@metric NULL, @fd negative).
 */
int perftune_metric_feed_fd(struct perftune_metric *metric, int fd, int copy_fd);

/**
 * perftune_output_open_log() - a log at @path, for several writers (a
 * command's standard output and error, the caller's own lines): a new empty
 * file of mode @mode made as perftune_output_open() makes it and renamed over
 * the path at once, or a character device opened in place.
 * Return: a file descriptor in append mode, close-on-exec, the caller's to
 *         close; or the errors of perftune_output_open() and
 *         perftune_output_commit().
 */
int perftune_output_open_log(struct perftune_ctx *ctx, const char *path, unsigned mode);

/**
 * perftune_run_eta() - in the measure callback: the seconds the runs left
 * (this one included) will take at the pace of those before it, from the
 * start of perftune_experiment_run(); NaN in the first run (and for NULL).
 */
double perftune_run_eta(const struct perftune_run *run);

/* ---- Conflicts of a transaction (LIBPERFTUNE_5) ---------------------------- */

/** Flags of perftune_tx_conflicts(). */
enum {
	/* every staged key (a dry run), not only those written */
	PERFTUNE_CONFLICTS_STAGED = 1 << 0,
};

/**
 * perftune_tx_conflicts() - what will undo @tx: for each key it wrote (each
 * change flagged PERFTUNE_CHANGE_WRITTEN; with PERFTUNE_CONFLICTS_STAGED,
 * each key staged, as a dry run reports them), the last persistent source in
 * effect that sets another value -- a sysctl.d line, a udev rule, TuneD's
 * profile -- as perftune_why_keys() finds it, in the order of
 * perftune_tx_changes().  perftune_source_key() is the change's key.  A key
 * whose sources cannot be found (gone since the commit) has none.  @ctx is
 * the context of @tx.
 * Return: number of sources, -EINVAL (NULL argument, unknown @flags), -ENOMEM.
 */
int perftune_tx_conflicts(struct perftune_ctx *ctx, struct perftune_tx *tx, unsigned flags,
			  struct perftune_source_iter **iterp);

/* ---- Hotplug under a hold (LIBPERFTUNE_5) ----------------------------------- */

/**
 * perftune_tx_watch() - follow devices added while @tx is held, as udev's
 * and sd-device's monitors are followed: the returned file descriptor
 * becomes readable when block or net devices come or go; then call
 * perftune_tx_dispatch().  @tx must be committed with PERFTUNE_TX_HOLD.
 * What selects a device is what selected those of the commit: each key
 * given with a glob (block.sd*.scheduler), and the rules of a profile
 * staged with perftune_profile_stage() (devices= globs with ! exclusions,
 * devices_udev_regex=, rotational=, the disk plugin's default set).  On the
 * machine the events are libudev's monitor ("udev" when systemd-udevd runs,
 * else the kernel's); below another root (perftune_ctx_set_root()), lines
 * "ACTION SUBSYSTEM NAME" written to the FIFO run/perftune-uevents of that
 * root (made if missing).  The devices present when it is called are taken
 * as the commit's: call it right after the commit, since a device added
 * between the two is not seen.  The descriptor is the transaction's: do not close it;
 * it stays valid until perftune_tx_unref().  A second call returns the same
 * one.
 * Return: the descriptor (>= 0), -EINVAL (@tx NULL, not a held transaction),
 *   -EALREADY (not committed, rolled back or released), -EOPNOTSUPP
 *   (libudev is not installed), -ENOMEM, -errno of the monitor.
 */
int perftune_tx_watch(struct perftune_tx *tx);

/**
 * perftune_tx_dispatch() - handle every event pending on perftune_tx_watch()'s
 * descriptor, without waiting.  A device added (or bound: a "change" of a
 * device not seen before, as a loop device's attach) that the rules select
 * gets its settings in one more commit under the transaction's name: each
 * original journaled before its write, the write read back, everything given
 * back with the rest by perftune_tx_rollback() or perftune_restore(), a
 * crash included (restore --orphans).  perftune_status() flags those keys
 * PERFTUNE_STATUS_HOTPLUG.  A device that refuses a setting (a value it does
 * not offer, a write that fails) is given back alone, logged at
 * PERFTUNE_LOG_WARNING and shown by perftune_status() as an entry flagged
 * PERFTUNE_STATUS_REFUSED; what is in force on the other devices stays.  A
 * device removed leaves nothing to do: its originals are dropped at restore
 * (PERFTUNE_STATUS_GONE), never written to another device of its name.  A
 * device that goes away between its event and its write is skipped.  Each
 * key written is logged at PERFTUNE_LOG_NOTICE.
 * Return: the number of devices tuned (0: none), -EINVAL (@tx NULL, not
 *   watching), -ENOMEM, -errno reading the events.
 */
int perftune_tx_dispatch(struct perftune_tx *tx);

/**
 * perftune_tx_follow() - perftune_tx_watch() and perftune_tx_dispatch() in
 * one blocking call (since LIBPERFTUNE_5): the events of devices added are
 * dispatched as they come, until @stop_fd becomes readable (a signalfd, an
 * eventfd, a pipe: the caller's way to end it; it is not read).  A dispatch
 * that fails is logged as a warning and following goes on.  The context's
 * lock is not held while waiting.
 * Return: 0 (@stop_fd readable); -EINVAL (@tx NULL, @stop_fd < 0); an error
 *   of perftune_tx_watch(), at once (nothing is followed: wait on @stop_fd
 *   alone); -errno of poll().
 */
int perftune_tx_follow(struct perftune_tx *tx, int stop_fd);

#ifdef __cplusplus
}
#endif

#endif /* PERFTUNE_H */
