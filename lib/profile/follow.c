// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A held transaction follows its profile: for a device added later, the
 * profile is mapped again against the machine as it is now (devices= globs
 * and ! exclusions, devices_udev_regex=, rotational=, the disk plugin's
 * default set, the first unit of a plugin taking a device: the rules of the
 * first mapping, by the same code), and the items of that device are staged;
 * those the mapping skips (a scheduler the disk does not offer) are logged,
 * as apply prints them.
 */
#include <errno.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "core/lookup.h"
#include "engine/watch.h"
#include "profile-internal.h"

/* the families whose keys can name a file of a device of @subsystem */
static bool may_name(const char *key, const char *subsystem)
{
	if (!strcmp(subsystem, "block"))
		return !strncmp(key, "block", 5) || !strncmp(key, "sysfs[", 6);
	return !strncmp(key, "net", 3) || !strncmp(key, "sysfs[", 6) ||
	       !strncmp(key, "sysctl.net.", 11);
}

static bool item_on_device(struct perftune_profile *p, const char *key, const char *subsystem,
			   const char *name)
{
	_cleanup_free_ struct pt_tunable *t = NULL;
	bool on = false;
	int n;

	if (!may_name(key, subsystem))
		return false;
	n = pt_resolve_all(p->ctx, key, &t);
	for (int i = 0; i < n && !on; i++)
		on = pt_tunable_on_device(&t[i], subsystem, name);
	pt_err_clear(p->ctx);
	return on;
}

int pt_profile_stage_device(struct perftune_profile *p, struct perftune_tx *sub,
			    const char *subsystem, const char *name)
{
	int r, n = 0;

	pt_lock(p->ctx);
	r = pt_profile_map(p, p->map_flags, perftune_tx_name(sub));
	for (size_t i = 0; i < p->nitems && r >= 0; i++) {
		const struct pt_pitem *x = &p->items[i];
		if (!x->key || (x->flags & PT_ITEM_UNCHANGED) ||
		    !item_on_device(p, x->key, subsystem, name))
			continue;
		if (x->flags & PT_ITEM_SKIPPED) { /* as apply prints it: "skipped: ..." */
			pt_log(p->ctx, PERFTUNE_LOG_NOTICE, "profile %s: %s added: skipped: %s: %s",
			       p->name, name, x->option, x->note ? x->note : "no reason");
			continue;
		}
		r = perftune_tx_set(sub, x->key, x->value);
		if (r < 0)
			pt_err_prefix(p->ctx, r, "%s: %s (%s)", p->name, x->option, x->origin);
		else
			n += r;
	}
	pt_unlock(p->ctx);
	if (r < 0)
		return r;
	return n;
}
