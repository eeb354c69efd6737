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
#include "perftune.h"
#include "internal.h"
#include "shared/buf.h"
#include "shared/util.h"
#include "core/key.h"
#include "core/log.h"
#include "xlist.h"

/*
 * udev's own syntax (udev(7), systemd's udev-rules.c): a value ends at the first '"' before
 * udev 247 (later: '\"' is one), a match splits at '|' into alternatives, and one with "*?["
 * is an fnmatch() pattern; an assignment substitutes '%' and '$' ("%%", "$$" are themselves).
 */

/*
 * @name as a KERNEL== value that only it matches: each of "*?[" in a bracket of its own
 * ("v[*]" is the device named v*, never every v-device).  NULL, with the reason in @why,
 * for what no rule can match exactly on every udev: '"', '|', '\', control bytes.
 */
static const char *udev_literal(const char *name, char *out, size_t size, const char **why)
{
	if (strpbrk(name, "\"|\\") || pt_has_cntrl(name)) {
		*why = "its name holds a character a udev rule cannot match exactly ('\"', '|', "
		       "'\\' or a control character)";
		return NULL;
	}
	if (pt_glob_literal(name, out, size) < 0) {
		*why = "its name is too long for a rule";
		return NULL;
	}
	return out;
}

/* @value as an ATTR{}= value: '%' and '$' doubled; NULL and @why for '"' or '\' */
static const char *udev_assigned(const char *value, char *out, size_t size, const char **why)
{
	size_t o = 0;

	for (const char *c = value; *c && o + 3 < size; c++) {
		if (*c == '"' || *c == '\\') {
			*why = "the value holds '\"' or '\\', which a udev rule cannot write on every udev";
			return NULL;
		}
		if (*c == '%' || *c == '$')
			out[o++] = *c;
		out[o++] = *c;
	}
	out[o] = '\0';
	return out;
}

/* the rule's match for @e (its pattern, or its device) in @m; NULL and @why if none can be */
static const char *match_of(const struct xent *e, char *m, size_t size, const char **why)
{
	const char *subsys = e->nm.subsys[0] ? e->nm.subsys : "block";
	char dev[3 * sizeof(e->nm.dev)], v[PT_VAL * 2];

	if (!udev_assigned(e->value, v, sizeof(v), why))
		return NULL;
	if (e->hint)
		snprintf(m, size, "SUBSYSTEM==\"%s\", ENV{DEVTYPE}==\"disk\", %s", subsys, e->hint);
	else if (udev_literal(e->nm.dev, dev, sizeof(dev), why))
		snprintf(m, size, "SUBSYSTEM==\"%s\", KERNEL==\"%s\"", subsys, dev);
	else
		return NULL;
	return m;
}

/* the rules of one device or pattern @match; number of keys they carry */
static int rules_of(const struct xlist *l, const char *match, struct pt_buf *b)
{
	struct pt_buf seen = { 0 }; /* "\nattr\n"...: a pattern stands for several disks */
	int n = 0;

	for (enum pt_order order = PT_ORDER_SCHED; order <= PT_ORDER_RESET; order++)
		for (size_t i = 0; i < l->n; i++) {
			const struct xent *e = &l->e[i];
			char m[1024], a[sizeof(e->nm.attr) + 2], v[PT_VAL * 2];
			const char *why;
			if (!e->nm.attr[0] || e->nm.order != order ||
			    !match_of(e, m, sizeof(m), &why) || strcmp(m, match))
				continue;
			n++;
			snprintf(a, sizeof(a), "\n%s\n", e->nm.attr);
			if (seen.s && strstr(seen.s, a))
				continue;
			pt_buf_puts(&seen, a);
			pt_buf_printf(b,
				      "ACTION==\"add|change\", %s, TEST==\"%s\", "
				      "ATTR{%s}=\"%s\"\n",
				      match, e->nm.attr, e->nm.attr,
				      udev_assigned(e->value, v, sizeof(v), &why));
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
		const char *why;
		bool seen = false;
		if (!l->e[i].nm.attr[0] || !match_of(&l->e[i], m, sizeof(m), &why))
			continue;
		for (size_t k = 0; k < nm && !seen; k++)
			seen = !strcmp(match[k], m);
		if (!seen && !(match[nm++] = strdup(m)))
			r = -ENOMEM;
	}
	for (size_t k = 0; k < nm && r == 0; k++)
		n += rules_of(l, match[k], b);
	for (size_t i = 0; i < l->n; i++) {
		char m[1024];
		const char *why = l->e[i].nm.noattr;
		if (l->e[i].nm.attr[0] && match_of(&l->e[i], m, sizeof(m), &why))
			continue;
		if (why[0]) { /* a device setting a rule cannot write, or not exactly */
			pt_buf_printf(b, "# not written by a rule: %s = %s: %s\n", l->e[i].key,
				      l->e[i].value, why);
			pt_log(ctx, PERFTUNE_LOG_INFO, "udev export: %s: %s", l->e[i].key, why);
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
	if (r < 0)
		return r;
	return n;
}
