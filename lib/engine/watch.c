// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hotplug under a hold.  A held transaction keeps what selected its devices
 * (keys given with a glob, tx-stage.c; a profile's rules, pt_tx_set_rules());
 * perftune_tx_watch() opens an event source (uevent.c) and
 * perftune_tx_dispatch() gives each device added since what those rules
 * select for it: one more commit under the transaction's name, so its
 * originals go into the same journal before the write, are read back and
 * are given back with the rest.  A device that refuses is journaled as
 * refused ("refused" record: status shows it) and nothing of it stays
 * written; the other devices keep theirs.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/keyname.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "engine/journal.h"
#include "engine/tx-internal.h"
#include "engine/uevent.h"
#include "engine/watch.h"

/* where a device of a subsystem is seen (the fake trees of the bindings have sys/block only) */
static const char *const devdirs[][2] = { { "block", "sys/class/block" },
					  { "block", "sys/block" },
					  { "net", "sys/class/net" } };

/* devices as "block/sdd" */
struct pt_devlist {
	char **id;
	size_t n, cap;
};

struct pt_watch {
	struct pt_uevent_src *src;
	/* there when the watch began: the commit's to select; a "change" of one is not new,
	 * an "add" is (one added between the commit and the watch) */
	struct pt_devlist present;
	struct pt_devlist seen; /* tuned or refused by the watch: no event adds them again */
};

static void devlist_free(struct pt_devlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->id[i]);
	free(l->id);
}

static void watch_free(struct pt_watch *w)
{
	pt_uevent_close(w->src);
	devlist_free(&w->present);
	devlist_free(&w->seen);
	free(w);
}

void pt_tx_set_rules(struct perftune_tx *tx, const struct pt_tx_rules_ops *ops, void *data)
{
	if (tx->profile_rules)
		tx->profile_rules->free(tx->profile_data);
	tx->profile_rules = NULL;
	tx->profile_data = NULL;
	if (!(tx->flags & PERFTUNE_TX_HOLD) || (tx->flags & PERFTUNE_TX_DRY_RUN)) {
		ops->free(data);
		return;
	}
	tx->profile_rules = ops;
	tx->profile_data = data;
}

/* "sys/block/NAME/...", "sys/class/net/NAME/...": @path is below @dir/@name */
static bool below(const char *path, const char *dir, const char *name)
{
	size_t nd = strlen(dir), nn = strlen(name);

	return !strncmp(path, dir, nd) && !strncmp(path + nd, name, nn) && path[nd + nn] == '/';
}

bool pt_tunable_on_device(const struct pt_tunable *t, const char *subsystem, const char *name)
{
	if (!strcmp(subsystem, "block"))
		return !strcmp(t->group, name) || below(t->path, "sys/block/", name) ||
		       below(t->path, "sys/class/block/", name);
	if (!strcmp(subsystem, "net"))
		return !strcmp(t->group, name) || below(t->path, "sys/class/net/", name);
	return false;
}

static bool devlist_has(const struct pt_devlist *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->id[i], id))
			return true;
	return false;
}

static int devlist_add(struct pt_devlist *l, const char *id)
{
	int r;

	if (devlist_has(l, id))
		return 0;
	r = pt_grow(&l->id, &l->cap, l->n + 1, 16);
	if (r < 0)
		return r;
	l->id[l->n] = strdup(id);
	if (!l->id[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static void devlist_del(struct pt_devlist *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->id[i], id)) {
			free(l->id[i]);
			l->id[i] = l->id[--l->n];
			return;
		}
}

/*
 * A disk without media (a loop device not bound, an empty drive) is not yet
 * the disk it will be: binding gives it another diskseq, so what was
 * journaled for it before would be "gone for good" at the restore.  It is
 * tuned at the "change" that gives it a size.  Unknown: taken as there.
 */
static bool has_media(struct perftune_ctx *ctx, const char *subsystem, const char *name)
{
	char path[PATH_MAX], v[32];

	if (strcmp(subsystem, "block"))
		return true;
	snprintf(path, sizeof(path), "sys/class/block/%s/size", name);
	if (pt_attr_read(ctx, path, v, sizeof(v)) < 0) {
		pt_err_clear(ctx);
		return true;
	}
	return strcmp(v, "0") != 0;
}

/* the devices there now were the transaction's to select when it was staged */
static int list_present(struct perftune_ctx *ctx, struct pt_devlist *l)
{
	int r = 0;

	for (size_t k = 0; k < ARRAY_SIZE(devdirs) && r >= 0; k++) {
		_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, devdirs[k][1]);
		struct dirent *de;
		while (d && r >= 0 && (de = readdir(d))) {
			char id[300];
			if (de->d_name[0] == '.')
				continue;
			if (!has_media(ctx, devdirs[k][0], de->d_name)) /* new when bound */
				continue;
			snprintf(id, sizeof(id), "%s/%s", devdirs[k][0], de->d_name);
			r = devlist_add(l, id);
		}
	}
	pt_err_clear(ctx);
	return r;
}

static int tx_watch_impl(struct perftune_tx *tx)
{
	struct pt_watch *w;
	int r;

	if (!(tx->flags & PERFTUNE_TX_HOLD) || (tx->flags & PERFTUNE_TX_DRY_RUN))
		return pt_err(tx->ctx, -EINVAL,
			      "transaction '%s': only a held transaction follows devices",
			      tx->name);
	if (!tx->committed || tx->done || tx->released)
		return pt_err(tx->ctx, -EALREADY, "transaction '%s' is not committed and held",
			      tx->name);
	if (tx->watch)
		return pt_uevent_fd(tx->watch->src);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	r = pt_uevent_open(tx->ctx, &w->src); /* before the listing: no device falls between */
	if (r >= 0)
		r = list_present(tx->ctx, &w->present);
	if (r < 0) {
		watch_free(w);
		return r;
	}
	tx->watch = w;
	tx->watch_free = watch_free;
	pt_log(tx->ctx, PERFTUNE_LOG_INFO, "transaction '%s': following %s events of block and net",
	       tx->name, pt_uevent_kind(w->src));
	return pt_uevent_fd(w->src);
}

/* @impl(@tx) under the context's lock, its message cleared first */
static int locked(struct perftune_tx *tx, int (*impl)(struct perftune_tx *tx))
{
	int r;

	if (!tx)
		return pt_api_ret(-EINVAL);
	pt_lock(tx->ctx);
	pt_err_clear(tx->ctx);
	r = impl(tx);
	pt_unlock(tx->ctx);
	return pt_api_ret(r);
}

PERFTUNE_EXPORT int perftune_tx_watch(struct perftune_tx *tx)
{
	return locked(tx, tx_watch_impl);
}

/* the keys given with a glob that match a key of the device: staged in @sub */
static int stage_rules(struct perftune_tx *tx, struct perftune_tx *sub, const struct pt_uevent *ev)
{
	int n = 0, r = 0;

	for (size_t i = 0; i < tx->nrules && r >= 0; i++) {
		_cleanup_free_ struct pt_tunable *t = NULL;
		int k = pt_resolve_all(tx->ctx, tx->rules[i].key, &t);
		pt_err_clear(tx->ctx); /* a glob that matches nothing now */
		for (int j = 0; j < k && r >= 0; j++) {
			if (!pt_tunable_on_device(&t[j], ev->subsystem, ev->name))
				continue;
			r = perftune_tx_set(sub, t[j].key, tx->rules[i].value);
			n += r > 0;
		}
	}
	if (r < 0)
		return r;
	return n;
}

/* a device that went away before it was tuned (or given back): nothing to say */
static bool device_gone(struct perftune_ctx *ctx, const struct pt_uevent *ev)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(devdirs); i++) {
		if (strcmp(devdirs[i][0], ev->subsystem))
			continue;
		snprintf(path, sizeof(path), "%s/%s", devdirs[i][1], ev->name);
		if (pt_attr_exists(ctx, path))
			return false;
	}
	return true;
}

/* a device refused: logged and journaled ("block.sdd"), for status */
static void refused(struct perftune_tx *tx, const struct pt_uevent *ev, int r)
{
	char key[PERFTUNE_KEY_MAX], why[PT_ERR_MAX];
	const char *family = "block";

	if (!strcmp(ev->subsystem, "net"))
		family = "net";
	snprintf(why, sizeof(why), "%s", pt_errmsg(tx->ctx));
	if (!why[0])
		snprintf(why, sizeof(why), "%s", strerror(-r));
	if (pt_key_dev(key, sizeof(key), family, ev->name) < 0)
		snprintf(key, sizeof(key), "%s", family);
	pt_log(tx->ctx, PERFTUNE_LOG_WARNING, "transaction '%s': %s added, not tuned: %s", tx->name,
	       key, why);
	if (pt_journal_append_to(tx->ctx, tx->name, "refused", key, why) < 0)
		pt_log(tx->ctx, PERFTUNE_LOG_ERR, "transaction '%s': refusal of %s not journaled",
		       tx->name, key);
}

/* each key the commit wrote: "plugged KEY\tNAME" (status), and a line in the log */
static void tuned(struct perftune_tx *tx, struct perftune_tx *sub, const struct pt_uevent *ev)
{
	for (size_t i = 0; i < sub->n; i++) {
		const struct pt_stage *s = &sub->s[i];
		if (!(s->flags & PERFTUNE_CHANGE_WRITTEN))
			continue;
		pt_log(tx->ctx, PERFTUNE_LOG_NOTICE, "transaction '%s': %s added: %s: %s -> %s",
		       tx->name, ev->name, s->c.key, s->old, s->value);
		if (pt_journal_append_to(tx->ctx, tx->name, "plugged", s->c.key, ev->name) < 0)
			pt_log(tx->ctx, PERFTUNE_LOG_ERR,
			       "transaction '%s': %s: not marked plugged", tx->name, s->c.key);
	}
}

/* what the rules select for the device, in one commit: 1 tuned, 0 nothing selected, -errno */
static int tune_device(struct perftune_tx *tx, const struct pt_uevent *ev)
{
	struct perftune_tx *sub = NULL;
	unsigned flags = tx->flags & (PERFTUNE_TX_HOLD | PERFTUNE_TX_ALLOW_PARTIAL);
	int r, n;

	r = perftune_tx_new(tx->ctx, tx->name, flags, &sub);
	if (r < 0)
		return r;
	n = r = stage_rules(tx, sub, ev);
	if (r >= 0 && tx->profile_rules) {
		r = tx->profile_rules->stage_device(tx->profile_data, sub, ev->subsystem, ev->name);
		n += r;
	}
	if (r >= 0 && n > 0)
		r = perftune_tx_commit(sub);
	if (r >= 0 && n > 0)
		tuned(tx, sub, ev);
	if (r < 0 && r != -ENOMEM && device_gone(tx->ctx, ev)) {
		pt_log(tx->ctx, PERFTUNE_LOG_INFO,
		       "transaction '%s': %s %s went away before it was tuned", tx->name,
		       ev->subsystem, ev->name);
		r = n = 0;
	} else if (r < 0 && r != -ENOMEM) {
		refused(tx, ev, r);
		r = n = 0;
	}
	perftune_tx_unref(sub); /* committed and held: stays journaled under the name */
	pt_err_clear(tx->ctx);
	if (r < 0)
		return r;
	return n > 0;
}

static int handle(struct perftune_tx *tx, const struct pt_uevent *ev)
{
	struct pt_watch *w = tx->watch;
	char id[160];
	int r;

	snprintf(id, sizeof(id), "%s/%s", ev->subsystem, ev->name);
	if (!strcmp(ev->action, "remove")) { /* its originals: gone for good at restore */
		devlist_del(&w->present, id);
		devlist_del(&w->seen, id);
		return 0;
	}
	if (!has_media(tx->ctx, ev->subsystem, ev->name)) { /* unbound: tuned when bound again */
		devlist_del(&w->present, id);
		devlist_del(&w->seen, id);
		return 0;
	}
	if (devlist_has(&w->seen, id))
		return 0;
	/* add; change of a device not there before: a loop device bound, media inserted;
	 * move: a NIC renamed */
	if (strcmp(ev->action, "add") &&
	    ((strcmp(ev->action, "change") && strcmp(ev->action, "move")) ||
	     devlist_has(&w->present, id)))
		return 0;
	r = devlist_add(&w->seen, id);
	if (r < 0)
		return r;
	return tune_device(tx, ev);
}

static int tx_dispatch_impl(struct perftune_tx *tx)
{
	struct pt_uevent ev;
	int r, n = 0;

	if (!tx->watch)
		return pt_err(tx->ctx, -EINVAL,
			      "transaction '%s' is not watching (perftune_tx_watch)", tx->name);
	while ((r = pt_uevent_next(tx->watch->src, &ev)) > 0) {
		if (!tx->committed || tx->done || tx->released)
			continue; /* given back: drained, nothing more is tuned */
		r = handle(tx, &ev);
		if (r < 0)
			return r;
		n += r;
	}
	if (r < 0)
		return pt_err(tx->ctx, r, "transaction '%s': hotplug events: %s", tx->name,
			      strerror(-r));
	return n;
}

PERFTUNE_EXPORT int perftune_tx_dispatch(struct perftune_tx *tx)
{
	return locked(tx, tx_dispatch_impl);
}

/*
 * Until @stop_fd is readable: the watch's events dispatched as they come.
 * Waiting happens without the context's lock (another thread may use the
 * context meanwhile); a dispatch that fails is logged and following goes on,
 * as the device that refused is given back alone by the dispatch itself.
 */
static int follow(struct perftune_tx *tx, int stop_fd)
{
	struct pollfd p[2] = { { .fd = stop_fd, .events = POLLIN }, { .events = POLLIN } };
	int r = perftune_tx_watch(tx);

	if (r < 0)
		return r;
	p[1].fd = r;
	for (;;) {
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, -1) < 0 && errno == EINTR)
			continue;
		if (p[0].revents == 0 && p[1].revents == 0)
			return pt_api_ret(pt_err(tx->ctx, -errno, "transaction '%s': poll: %s",
						 tx->name, strerror(errno)));
		if (p[0].revents)
			return 0;
		if (!(p[1].revents & POLLIN)) /* closed: the transaction ended meanwhile */
			return pt_api_ret(pt_err(tx->ctx, -EBADF,
						 "transaction '%s': its watch was closed",
						 tx->name));
		if (perftune_tx_dispatch(tx) < 0)
			pt_log(tx->ctx, PERFTUNE_LOG_WARNING, "%s",
			       perftune_ctx_last_error(tx->ctx));
	}
}

PERFTUNE_EXPORT int perftune_tx_follow(struct perftune_tx *tx, int stop_fd)
{
	if (!tx || stop_fd < 0)
		return pt_api_ret(-EINVAL);
	return follow(tx, stop_fd);
}
