// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Devices: which devices a unit gets (devices= globs with ! exclusions,
 * devices_udev_regex, the first unit of a plugin wins a device, as TuneD
 * assigns them), and the net, usb, audio and scsi_host options, which are
 * sysfs files of those devices.  The disk plugin is disk.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "shared/dlopen.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "profile-internal.h"

void pt_devset_free(struct pt_devset *d)
{
	free(d->name);
	memset(d, 0, sizeof(*d));
}

static bool devset_has(const struct pt_devset *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->name[i], name))
			return true;
	return false;
}

static int devset_add(struct pt_devset *d, const char *name)
{
	void *v = realloc(d->name, (d->n + 1) * sizeof(*d->name));

	if (!v)
		return -ENOMEM;
	d->name = v;
	snprintf(d->name[d->n++], sizeof(*d->name), "%s", name);
	return 0;
}

/* TuneD's DeviceMatcher: rules split on blanks or ",", "!" excludes, no positive rule = "*" */
static bool devices_match(const char *rules, const char *name)
{
	_cleanup_free_ char *dup = strdup(rules);
	char *save = NULL;
	bool pos = false, match = false;

	if (!dup)
		return false;
	for (char *r = strtok_r(dup, " \t\n,", &save); r; r = strtok_r(NULL, " \t\n,", &save)) {
		if (r[0] == '!') {
			if (!fnmatch(r + 1, name, 0))
				return false;
			continue;
		}
		pos = true;
		match |= !fnmatch(r, name, 0);
	}
	if (pos)
		return match;
	return true;
}

bool pt_explicit_rules(const char *rules)
{
	_cleanup_free_ char *dup = strdup(rules);
	char *save = NULL;

	if (!dup)
		return false;
	for (char *r = strtok_r(dup, " \t\n,", &save); r; r = strtok_r(NULL, " \t\n,", &save))
		if (r[0] != '!' && strcmp(r, "*"))
			return true;
	return false;
}

static bool link_has(struct perftune_ctx *ctx, const char *path, const char *const *words)
{
	char link[PATH_MAX];

	if (pt_attr_readlink(ctx, path, link, sizeof(link)) < 0)
		return false;
	for (size_t i = 0; words[i]; i++)
		if (strstr(link, words[i]))
			return true;
	return false;
}

/* TuneD's DiskPlugin._device_is_supported: not removable, no parent or a storage bus */
static bool disk_supported(struct perftune_ctx *ctx, const char *name)
{
	static const char *const buses[] = { "/scsi", "/virtio", "/xen", "/nvme", NULL };
	char p[PATH_MAX], v[16] = "";

	snprintf(p, sizeof(p), "sys/block/%s/removable", name);
	if (pt_attr_read(ctx, p, v, sizeof(v)) < 0 || strcmp(v, "0"))
		return false;
	snprintf(p, sizeof(p), "sys/block/%s/device", name);
	if (!pt_attr_exists(ctx, p))
		return true;
	snprintf(p, sizeof(p), "sys/block/%s/device/subsystem", name);
	return link_has(ctx, p, buses);
}

static bool candidate(struct perftune_ctx *ctx, const char *type, const char *dir, const char *name,
		      bool explicit)
{
	static const char *const virt[] = { "/virtual/", NULL };
	char p[PATH_MAX];

	if (!strcmp(type, "disk"))
		return explicit || disk_supported(ctx, name);
	if (!strcmp(type, "net")) {
		snprintf(p, sizeof(p), "%s/%s", dir, name);
		return !link_has(ctx, p, virt);
	}
	if (!strcmp(type, "usb"))
		return !strchr(name, ':');
	if (!strcmp(type, "audio"))
		return !strcmp(name, "snd_hda_intel") || !strcmp(name, "snd_ac97_codec");
	return true;
}

static const char *type_dir(const char *type)
{
	static const char *const dirs[][2] = {
		{ "disk", "sys/block" },
		{ "net", "sys/class/net" },
		{ "usb", "sys/bus/usb/devices" },
		{ "audio", "sys/module" },
		{ "scsi_host", "sys/class/scsi_host" },
		{ "cpu", "sys/devices/system/cpu" },
		{ "irq", "proc/irq" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!strcmp(dirs[i][0], type))
			return dirs[i][1];
	return NULL;
}

/* TuneD: re.search(re, "KEY=value\n"..., re.MULTILINE): 1, 0, or -errno (a bad regex) */
static int udev_matches(struct perftune_profile *p, struct pt_punit *u, const char *name)
{
	const char *type = u->type, *re = u->udev_regex;
	const char *subsys = type;
	struct udev_device *d;
	struct udev_list_entry *e;
	struct pt_buf b = { 0 };
	char *err = NULL, what[256];
	int m;

	if (!pt_root_is_host(p->ctx))
		return 0;
	if (!strcmp(type, "disk"))
		subsys = "block"; /* the disk plugin's devices; net's are in "net" */
	if (!pt_udev(p->ctx)) {
		snprintf(what, sizeof(what), "%s:%d: [%s] devices_udev_regex", u->file, u->line,
			 u->name);
		if (pt_dl_load(PT_DL_UDEV) < 0)
			return pt_dl_need(p->ctx, PT_DL_UDEV, what);
		return -ENOMEM;
	}
	d = pt_libudev.udev_device_new_from_subsystem_sysname(pt_udev(p->ctx), subsys, name);
	if (!d)
		return 0;
	/* udev_list_entry_foreach(), through the table */
	for (e = pt_libudev.udev_device_get_properties_list_entry(d); e;
	     e = pt_libudev.udev_list_entry_get_next(e))
		pt_buf_printf(&b, "%s=%s\n", pt_libudev.udev_list_entry_get_name(e),
			      pt_libudev.udev_list_entry_get_value(e));
	pt_libudev.udev_device_unref(d);
	m = pt_regex_search(re, b.s ? b.s : "", true, &err);
	free(b.s);
	if (m == -EINVAL)
		m = pt_err(p->ctx, m, "%s:%d: [%s] devices_udev_regex: %s", u->file, u->line,
			   u->name, err);
	free(err);
	return m;
}

/*
 * The [irq] plugin's devices, as TuneD names them: "irq<n>" for /proc/irq/<n>,
 * "DEFAULT" for default_smp_affinity; @name itself for other plugins (NULL: no device).
 */
static const char *irq_device(const char *type, const char *name, char *buf, size_t size)
{
	if (strcmp(type, "irq"))
		return name;
	if (!strcmp(name, "default_smp_affinity"))
		return "DEFAULT";
	if (!name[0] || strspn(name, "0123456789") != strlen(name))
		return NULL;
	snprintf(buf, size, "irq%s", name);
	return buf;
}

/* the file of device @n below its plugin's directory (irq24: 24, DEFAULT: default_smp_affinity) */
static const char *device_file(const char *type, const char *n)
{
	if (strcmp(type, "irq"))
		return n;
	if (!strcmp(n, "DEFAULT"))
		return "default_smp_affinity";
	return n + 3 * !strncmp(n, "irq", 3);
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp((const char *)a, (const char *)b);
}

/* The devices of unit @u not taken by an earlier unit of the same plugin. */
static int select_devices(struct perftune_profile *p, struct pt_punit *u, const char *rules,
			  struct pt_devset *taken, struct pt_devset *out)
{
	const char *dir = type_dir(u->type);
	_cleanup_closedir_ DIR *d = pt_attr_opendir(p->ctx, dir);
	bool explicit = pt_explicit_rules(rules);
	struct dirent *de;
	int r = 0;

	while (d && (de = readdir(d)) && r >= 0) {
		char dev[128];
		const char *n = irq_device(u->type, de->d_name, dev, sizeof(dev));
		if (!n || n[0] == '.' || devset_has(taken, n) ||
		    !candidate(p->ctx, u->type, dir, n, explicit))
			continue;
		if (!strcmp(u->type, "cpu") &&
		    (strncmp(n, "cpu", 3) || !n[3] || strspn(n + 3, "0123456789") != strlen(n + 3)))
			continue;
		if (!devices_match(rules, n))
			continue;
		if (u->udev_regex && (r = udev_matches(p, u, n)) <= 0)
			continue;
		r = devset_add(out, n);
	}
	if (out->n)
		qsort(out->name, out->n, sizeof(*out->name), name_cmp);
	for (size_t i = 0; i < out->n && r >= 0; i++)
		r = devset_add(taken, out->name[i]);
	return r;
}

/* devices= after variables; a name without wildcards that is absent is a skip */
int pt_unit_devices(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken,
		    struct pt_devset *out, char **rules)
{
	_cleanup_free_ char *why = NULL;
	char *save = NULL, *dup, an[160];
	struct pt_popt attr = pt_unit_attr(u, "devices", u->devices, an, sizeof(an));
	int r = pt_vars_expand(p, u->devices, &attr, rules, &why);

	memset(out, 0, sizeof(*out));
	if (r < 0)
		return r;
	if (why) {
		for (size_t i = 0; i < u->n; i++)
			pt_pitem_skip(p, u, &u->opt[i], "devices=%s: %s", u->devices, why);
		return 0;
	}
	r = select_devices(p, u, *rules, taken, out);
	if (r < 0 || !(dup = strdup(*rules))) {
		pt_devset_free(out);
		if (r < 0)
			return r;
		return -ENOMEM;
	}
	for (char *n = strtok_r(dup, " \t\n,", &save); n; n = strtok_r(NULL, " \t\n,", &save)) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", type_dir(u->type), device_file(u->type, n));
		if (n[0] != '!' && !pt_glob(n) && !pt_attr_exists(p->ctx, path))
			pt_pitem_skip(p, u, NULL, "devices=%s: no device '%s' on this machine",
				      *rules, n);
	}
	free(dup);
	if (!out->n)
		pt_log(p->ctx, PERFTUNE_LOG_INFO, "profile %s: [%s] matches no device here",
		       p->name, u->name);
	return 0;
}

/* ---- net, usb, audio, scsi_host: sysfs attributes where the kernel has them ---- */

static const struct {
	const char *type, *option, *fmt; /* fmt: %s = device, NULL = not mapped (why) */
	const char *why;
} devattrs[] = {
	{ "net", "txqueuelen", "sys/class/net/%s/tx_queue_len", NULL },
	{ "net", "mtu", "sys/class/net/%s/mtu", NULL },
	{ "net", "nf_conntrack_hashsize", "sys/module/nf_conntrack/parameters/hashsize", NULL },
	{ "net", "wake_on_lan", NULL, "set through ethtool (wake-on-LAN): no perftune key" },
	{ "usb", "autosuspend", "sys/bus/usb/devices/%s/power/autosuspend", NULL },
	{ "audio", "timeout", "sys/module/%s/parameters/power_save", NULL },
	{ "audio", "reset_controller", "sys/module/%s/parameters/power_save_controller", NULL },
	{ "scsi_host", "alpm", "sys/class/scsi_host/%s/link_power_management_policy", NULL },
};

static int devattr_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
			  const char *fmt, const struct pt_devset *devs)
{
	_cleanup_free_ char *v = NULL;
	int r = pt_vars_value(p, u, o, &v);

	if (r <= 0)
		return r;
	if (!strcmp(o->name, "reset_controller")) {
		char *yn = strdup(pt_is_true(v) ? "Y" : "N");
		if (!yn)
			return -ENOMEM;
		free(v);
		v = yn;
	}
	if (!strstr(fmt, "%s")) { /* one global file */
		if (!pt_attr_exists(p->ctx, fmt)) {
			pt_pitem_skip(p, u, o, "/%s does not exist (module not loaded?)", fmt);
			return 0;
		}
		return pt_pmap_sysfs(p, u, o, fmt, v);
	}
	for (size_t i = 0; i < devs->n && r >= 0; i++) {
		char path[PATH_MAX];
		const char *at = strstr(fmt, "%s");
		snprintf(path, sizeof(path), "%.*s%s%s", (int)(at - fmt), fmt, devs->name[i],
			 at + 2);
		if (pt_attr_exists(p->ctx, path))
			r = pt_pmap_sysfs(p, u, o, path, v);
		else
			pt_pitem_skip(p, u, o, "/%s does not exist", path);
	}
	return r;
}

int pt_map_devattr(struct perftune_profile *p, struct pt_punit *u, struct pt_devset *taken)
{
	struct pt_devset devs;
	_cleanup_free_ char *rules = NULL;
	int r = pt_unit_devices(p, u, taken, &devs, &rules);

	for (size_t i = 0; r >= 0 && rules && i < u->n; i++) {
		struct pt_popt *o = &u->opt[i];
		size_t k;
		if (!strcmp(o->name, "dynamic") && !pt_is_true(o->value))
			continue;
		for (k = 0; k < ARRAY_SIZE(devattrs); k++)
			if (!strcmp(devattrs[k].type, u->type) &&
			    !strcmp(devattrs[k].option, o->name))
				break;
		if (!strcmp(u->type, "net") && pt_net_ethtool_option(o->name))
			r = pt_map_net_option(p, u, o, &devs); /* netopts.c */
		else if (k == ARRAY_SIZE(devattrs) && !strcmp(o->name, "dynamic"))
			pt_pitem_skip(p, u, o, "dynamic tuning needs TuneD's daemon");
		else if (k == ARRAY_SIZE(devattrs))
			pt_pitem_skip(p, u, o, "unknown option of the %s plugin", u->type);
		else if (!devattrs[k].fmt)
			pt_pitem_skip(p, u, o, "%s", devattrs[k].why);
		else
			r = devattr_option(p, u, o, devattrs[k].fmt, &devs);
	}
	pt_devset_free(&devs);
	return r;
}
