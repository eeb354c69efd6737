// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Export as udev rules: the keys whose family names a device attribute (block
 * queue attributes, network devices' sysfs files).  Ethtool settings are no
 * attribute: a rule would have to RUN ethtool, which an export never writes.  One rule per attribute, guarded by TEST on its file: a
 * pattern rule (devices=sd*, rotational=0) also meets devices without it
 * (zram has no scheduler), and udev would log an error on their every event.
 * Per device or pattern, the scheduler's rule comes first: udev writes an
 * ATTR when it reads its rule, and a switch resets what follows it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "xlist.h"

/* the rule's match for @e: its pattern, or its device */
static void match_of(const struct xent *e, char *m, size_t size)
{
	const char *subsys = e->nm.subsys[0] ? e->nm.subsys : "block";

	if (e->hint)
		snprintf(m, size, "SUBSYSTEM==\"%s\", ENV{DEVTYPE}==\"disk\", %s", subsys, e->hint);
	else
		snprintf(m, size, "SUBSYSTEM==\"%s\", KERNEL==\"%s\"", subsys, e->nm.dev);
}

/* the rules of one device or pattern @match; number of keys they carry */
static int rules_of(const struct xlist *l, const char *match, struct pt_buf *b)
{
	struct pt_buf seen = { 0 }; /* "\nattr\n"...: a pattern stands for several disks */
	int n = 0;

	for (enum pt_order order = PT_ORDER_SCHED; order <= PT_ORDER_RESET; order++)
		for (size_t i = 0; i < l->n; i++) {
			const struct xent *e = &l->e[i];
			char m[1024], a[sizeof(e->nm.attr) + 2];
			if (!e->nm.attr[0] || e->nm.order != order)
				continue;
			match_of(e, m, sizeof(m));
			if (strcmp(m, match))
				continue;
			n++;
			snprintf(a, sizeof(a), "\n%s\n", e->nm.attr);
			if (seen.s && strstr(seen.s, a))
				continue;
			pt_buf_puts(&seen, a);
			pt_buf_printf(b,
				      "ACTION==\"add|change\", %s, TEST==\"%s\", "
				      "ATTR{%s}=\"%s\"\n",
				      match, e->nm.attr, e->nm.attr, e->value);
		}
	free(seen.s);
	return n;
}

int pt_export_udev(struct perftune_ctx *ctx, const struct xlist *l, struct pt_buf *b)
{
	char **match = calloc(l->n + 1, sizeof(*match));
	size_t nm = 0;
	int n = 0, r = 0;

	if (!match)
		return -ENOMEM;
	pt_export_header(
		b, l,
		"Install as /etc/udev/rules.d/60-perftune.rules; applied on add/change events.");
	for (size_t i = 0; i < l->n && r == 0; i++) { /* the devices and patterns, in order */
		char m[1024];
		bool seen = false;
		if (!l->e[i].nm.attr[0])
			continue;
		match_of(&l->e[i], m, sizeof(m));
		for (size_t k = 0; k < nm && !seen; k++)
			seen = !strcmp(match[k], m);
		if (!seen && !(match[nm++] = strdup(m)))
			r = -ENOMEM;
	}
	for (size_t k = 0; k < nm && r == 0; k++)
		n += rules_of(l, match[k], b);
	for (size_t i = 0; i < l->n; i++) {
		if (l->e[i].nm.attr[0])
			continue;
		if (l->e[i].nm.noattr[0]) { /* a device setting a rule cannot write */
			pt_buf_printf(b, "# not written by a rule: %s = %s: %s\n", l->e[i].key,
				      l->e[i].value, l->e[i].nm.noattr);
			pt_log(ctx, PERFTUNE_LOG_INFO, "udev export: %s: %s", l->e[i].key,
			       l->e[i].nm.noattr);
			continue;
		}
		pt_buf_printf(b, "# not a block queue attribute: %s = %s\n", l->e[i].key,
			      l->e[i].value);
		pt_log(ctx, PERFTUNE_LOG_INFO, "udev export: %s is not a block queue attribute",
		       l->e[i].key);
	}
	pt_export_skipped(b, l);
	for (size_t k = 0; k < nm; k++)
		free(match[k]);
	free(match);
	return r < 0 ? r : n;
}
