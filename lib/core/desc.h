/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* desc.c: description and generic iterator objects. */
#ifndef PERFTUNE_CORE_DESC_H
#define PERFTUNE_CORE_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"

struct pt_tunable;
struct perftune_desc *pt_desc_new(const struct pt_tunable *t);
void pt_desc_set_value(struct perftune_desc *d, const char *v);
/* the value cannot be read, and @why (strerror text, "write-only trigger") */
void pt_desc_set_unreadable(struct perftune_desc *d, const char *why);
void pt_desc_set_choices(struct perftune_desc *d, const char *choices);
void pt_desc_set_range(struct perftune_desc *d, long long min, long long max);
void pt_desc_set_unit(struct perftune_desc *d, const char *unit);
void pt_desc_set_writable(struct perftune_desc *d, bool w, const char *reason);
void pt_desc_add_info(struct perftune_desc *d, const char *fmt, ...) _printf_(2, 3);
/* the value as @t's family reads it, writable: 0, or read()'s -errno */
int pt_desc_read_writable(struct perftune_ctx *ctx, const struct pt_tunable *t,
			  struct perftune_desc *d);

/*
 * The store behind the typed iterators of perftune.h: what each field is
 * depends on the object (desc.c's accessors say which), the flag bits are
 * those of the public enums.
 */
enum {
	PT_ITEM_DRIFT = PERFTUNE_STATUS_DRIFT,
	PT_ITEM_ORPHANED = PERFTUNE_STATUS_ORPHANED,
	PT_ITEM_HELD = PERFTUNE_STATUS_HELD,
	PT_ITEM_WRITTEN = PERFTUNE_STATUS_WRITTEN,
	PT_ITEM_UNCHANGED = PERFTUNE_CHANGE_UNCHANGED,
	PT_ITEM_COMMITTED = PERFTUNE_STATUS_COMMITTED,
	PT_ITEM_SHADOWED = PERFTUNE_STATUS_SHADOWED,
	PT_ITEM_GONE = PERFTUNE_STATUS_GONE,
	PT_ITEM_MOVED = PERFTUNE_STATUS_MOVED,
	PT_ITEM_SKIPPED = PERFTUNE_PROFILE_ITEM_SKIPPED,
	PT_ITEM_READONLY = PERFTUNE_TUNABLE_READONLY,
	PT_ITEM_ABSENT = PERFTUNE_TUNABLE_ABSENT,
};
struct pt_item {
	char *name, *key, *value, *old, *current, *note;
	char *now; /* a status entry's key its object goes by now (moved: a renamed NIC), or NULL */
	unsigned flags;
	int pid;
};
struct pt_iter;
struct pt_iter *pt_iter_new(void);
/* Takes copies of the strings. */
int pt_iter_add(struct pt_iter *it, const struct pt_item *item);
void pt_iter_sort(struct pt_iter *it);
void pt_iter_free(struct pt_iter *it);
/* item @i of @ud for pt_iter_collect(); @note: a buffer of PT_ITEM_NOTE bytes the item may use */
typedef void (*pt_item_fn)(void *ud, size_t i, struct pt_item *item, char *note);
#define PT_ITEM_NOTE (PT_VAL + 256)
/* A store of @n items from @fill, in *@out: 0, or -ENOMEM (nothing in *@out). */
int pt_iter_collect(size_t n, pt_item_fn fill, void *ud, struct pt_iter **out);
/* The typed iterators of perftune.h around a store (NULL stays NULL). */
struct perftune_tunable_iter *pt_tunable_iter(struct pt_iter *it);
struct perftune_change_iter *pt_change_iter(struct pt_iter *it);
struct perftune_status_iter *pt_status_iter(struct pt_iter *it);
/* the key a status entry's object goes by now: its key, or where it moved (export) */
const char *pt_status_entry_key_now(const struct perftune_status_entry *e);
struct perftune_profile_item_iter *pt_profile_item_iter(struct pt_iter *it);
struct perftune_profile_entry_iter *pt_profile_entry_iter(struct pt_iter *it);
struct perftune_source_iter *pt_source_iter(struct pt_iter *it);
struct perftune_check_iter *pt_check_iter(struct pt_iter *it);

#endif
