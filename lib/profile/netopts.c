// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TuneD's [net] options that TuneD hands to ethtool (plugin_net.py):
 * features= (ethtool -K), coalesce= (-C), pause= (-A), ring= (-G) and
 * channels= (-L), each a list of "name value" pairs, mapped onto the net
 * family's keys of every device the unit selects.  ethtool's short and legacy
 * feature names stand for the kernel's (tso: every tx-tcp*segmentation).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/keyname.h"
#include "shared/util.h"
#include "core/key.h"
#include "profile-internal.h"

static const struct {
	const char *option, *section;
} sections[] = {
	{ "features", "features" }, { "coalesce", "coalesce" }, { "pause", "pause" },
	{ "ring", "ring" },	    { "channels", "channels" },
};

/* ethtool's off_flag_def: its names (short, legacy) -> the kernel's, a glob where several */
static const char *const feature_alias[][3] = {
	{ "rx", "rx-checksumming", "rx-checksum" },
	{ "tx", "tx-checksumming", "tx-checksum-*" },
	{ "sg", "scatter-gather", "tx-scatter-gather*" },
	{ "tso", "tcp-segmentation-offload", "tx-tcp*segmentation" },
	{ "ufo", "udp-fragmentation-offload", "tx-udp-fragmentation" },
	{ "gso", "generic-segmentation-offload", "tx-generic-segmentation" },
	{ "gro", "generic-receive-offload", "rx-gro" },
	{ "lro", "large-receive-offload", "rx-lro" },
	{ "rxvlan", "rx-vlan-offload", "rx-vlan-hw-parse" },
	{ "txvlan", "tx-vlan-offload", "tx-vlan-hw-insert" },
	{ "ntuple", "ntuple-filters", "rx-ntuple-filter" },
	{ "rxhash", "receive-hashing", "rx-hashing" },
};

bool pt_net_ethtool_option(const char *option)
{
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		if (!strcmp(sections[i].option, option))
			return true;
	return false;
}

/* the key's last component for ethtool's @name in @section */
static void param_name(const char *section, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s", name);
	if (!strcmp(section, "features")) {
		for (size_t i = 0; i < ARRAY_SIZE(feature_alias); i++)
			if (!strcmp(name, feature_alias[i][0]) || !strcmp(name, feature_alias[i][1]))
				snprintf(out, size, "%s", feature_alias[i][2]);
		return;
	}
	for (char *c = out; *c; c++) /* ethtool -C rx-usecs: key coalesce.rx_usecs */
		if (*c == '-')
			*c = '_';
}

static int one_pair(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		    const char *section, const char *name, const char *value,
		    const struct pt_devset *devs)
{
	char param[64], key[PERFTUNE_KEY_MAX], dev[PERFTUNE_KEY_MAX];
	bool sized = !strcmp(section, "ring") || !strcmp(section, "channels");
	int r = 0;

	param_name(section, name, param, sizeof(param));
	if (!pt_key_plain(param) && !pt_glob(param)) {
		pt_pitem_skip(p, u, o, "%s: '%s' is not a name ethtool takes", o->name, name);
		return 0;
	}
	for (size_t i = 0; i < devs->n && r >= 0; i++) {
		if (pt_key_dev(dev, sizeof(dev), "net", devs->name[i]) < 0 ||
		    pt_snprintf(key, sizeof(key), "%s.%s.%s", dev, section, param) < 0)
			continue;
		/* ring and channel counts past what the device has: skipped, as TuneD's
		 * ethtool call fails there and the profile goes on */
		r = pt_pmap_key(p, u, o, key, value, sized, NULL);
	}
	if (r < 0)
		return r;
	return 0;
}

int pt_map_net_option(struct perftune_profile *p, struct pt_punit *u, struct pt_popt *o,
		      const struct pt_devset *devs)
{
	_cleanup_free_ char *v = NULL;
	const char *section = NULL;
	char *save = NULL, *name, *value;
	int r = pt_vars_value(p, u, o, &v);

	if (r <= 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		if (!strcmp(sections[i].option, o->name))
			section = sections[i].section;
	/* TuneD: the value split on blanks into name value pairs */
	for (name = strtok_r(v, " \t\n", &save); name && r >= 0;
	     name = strtok_r(NULL, " \t\n", &save)) {
		value = strtok_r(NULL, " \t\n", &save);
		if (!value) {
			pt_pitem_skip(p, u, o, "%s: '%s' has no value (pairs of name value)",
				      o->name, name);
			break;
		}
		r = one_pair(p, u, o, section, name, value, devs);
	}
	if (r < 0)
		return r;
	return 0;
}
