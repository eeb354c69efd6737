// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Ethtool settings over the "ethtool" generic netlink family
 * (Documentation/networking/ethtool-netlink.rst, kernel 5.6 and later): the
 * ring sizes, channels, interrupt coalescing, pause frames and offload
 * features of a device, read as one section and set one parameter at a time.
 * A GET reply carries only what the driver supports (the kernel leaves out
 * rings and channels whose maximum is 0, and unsupported coalescing
 * parameters), so a parameter missing from it is "not here".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "missing/missing-ethtool_netlink.h"
#include <linux/genetlink.h>
#include "perftune.h"
#include "macro.h"
#include "shared/dlopen.h"
#include "net/ethtool.h"
#include "net/nl.h"

struct param {
	const char *name;
	uint16_t attr, max_attr; /* max_attr 0: no maximum */
	bool flag;		 /* u8 on/off */
};

static const struct param ring[] = {
	{ "rx", ETHTOOL_A_RINGS_RX, ETHTOOL_A_RINGS_RX_MAX, false },
	{ "rx_mini", ETHTOOL_A_RINGS_RX_MINI, ETHTOOL_A_RINGS_RX_MINI_MAX, false },
	{ "rx_jumbo", ETHTOOL_A_RINGS_RX_JUMBO, ETHTOOL_A_RINGS_RX_JUMBO_MAX, false },
	{ "tx", ETHTOOL_A_RINGS_TX, ETHTOOL_A_RINGS_TX_MAX, false },
};
static const struct param channels[] = {
	{ "rx", ETHTOOL_A_CHANNELS_RX_COUNT, ETHTOOL_A_CHANNELS_RX_MAX, false },
	{ "tx", ETHTOOL_A_CHANNELS_TX_COUNT, ETHTOOL_A_CHANNELS_TX_MAX, false },
	{ "other", ETHTOOL_A_CHANNELS_OTHER_COUNT, ETHTOOL_A_CHANNELS_OTHER_MAX, false },
	{ "combined", ETHTOOL_A_CHANNELS_COMBINED_COUNT, ETHTOOL_A_CHANNELS_COMBINED_MAX, false },
};
/* ethtool -C's names, with '_' for '-' */
static const struct param coalesce[] = {
	{ "rx_usecs", ETHTOOL_A_COALESCE_RX_USECS, 0, false },
	{ "rx_frames", ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 0, false },
	{ "rx_usecs_irq", ETHTOOL_A_COALESCE_RX_USECS_IRQ, 0, false },
	{ "rx_frames_irq", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, 0, false },
	{ "tx_usecs", ETHTOOL_A_COALESCE_TX_USECS, 0, false },
	{ "tx_frames", ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 0, false },
	{ "tx_usecs_irq", ETHTOOL_A_COALESCE_TX_USECS_IRQ, 0, false },
	{ "tx_frames_irq", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, 0, false },
	{ "stats_block_usecs", ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, 0, false },
	{ "adaptive_rx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 0, true },
	{ "adaptive_tx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, 0, true },
	{ "pkt_rate_low", ETHTOOL_A_COALESCE_PKT_RATE_LOW, 0, false },
	{ "rx_usecs_low", ETHTOOL_A_COALESCE_RX_USECS_LOW, 0, false },
	{ "rx_frames_low", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, 0, false },
	{ "tx_usecs_low", ETHTOOL_A_COALESCE_TX_USECS_LOW, 0, false },
	{ "tx_frames_low", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, 0, false },
	{ "pkt_rate_high", ETHTOOL_A_COALESCE_PKT_RATE_HIGH, 0, false },
	{ "rx_usecs_high", ETHTOOL_A_COALESCE_RX_USECS_HIGH, 0, false },
	{ "rx_frames_high", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, 0, false },
	{ "tx_usecs_high", ETHTOOL_A_COALESCE_TX_USECS_HIGH, 0, false },
	{ "tx_frames_high", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, 0, false },
	{ "sample_interval", ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, 0, false },
};
static const struct param pause_[] = {
	{ "autoneg", ETHTOOL_A_PAUSE_AUTONEG, 0, true },
	{ "rx", ETHTOOL_A_PAUSE_RX, 0, true },
	{ "tx", ETHTOOL_A_PAUSE_TX, 0, true },
};

struct section {
	const char *name, *what;
	uint8_t get, set;
	uint16_t header;
	const struct param *p;
	size_t n;
};

static const struct section sections[PT_ETH_NSEC] = {
	[PT_ETH_RING] = { "ring", "ring parameters", ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET,
			  ETHTOOL_A_RINGS_HEADER, ring, ARRAY_SIZE(ring) },
	[PT_ETH_CHANNELS] = { "channels", "channels", ETHTOOL_MSG_CHANNELS_GET,
			      ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_A_CHANNELS_HEADER, channels,
			      ARRAY_SIZE(channels) },
	[PT_ETH_COALESCE] = { "coalesce", "interrupt coalescing", ETHTOOL_MSG_COALESCE_GET,
			      ETHTOOL_MSG_COALESCE_SET, ETHTOOL_A_COALESCE_HEADER, coalesce,
			      ARRAY_SIZE(coalesce) },
	[PT_ETH_PAUSE] = { "pause", "pause frame parameters", ETHTOOL_MSG_PAUSE_GET,
			   ETHTOOL_MSG_PAUSE_SET, ETHTOOL_A_PAUSE_HEADER, pause_,
			   ARRAY_SIZE(pause_) },
	[PT_ETH_FEATURES] = { "features", "offload features", ETHTOOL_MSG_FEATURES_GET,
			      ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, NULL, 0 },
};

const char *pt_eth_sec_name(int sec)
{
	return sections[sec].name;
}

const char *pt_eth_sec_what(int sec)
{
	return sections[sec].what;
}

int pt_eth_sec_find(const char *name)
{
	for (int i = 0; i < PT_ETH_NSEC; i++)
		if (!strcmp(sections[i].name, name))
			return i;
	return -1;
}

bool pt_eth_sec_has(int sec, const char *param)
{
	for (size_t i = 0; i < sections[sec].n; i++)
		if (!strcmp(sections[sec].p[i].name, param))
			return true;
	return sec == PT_ETH_FEATURES;
}

const struct pt_eth_param *pt_eth_find(const struct pt_eth_sect *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->p[i].name, name))
			return &s->p[i];
	return NULL;
}

static struct pt_eth_param *param_add(struct pt_eth_sect *s, const char *name)
{
	struct pt_eth_param *p = (struct pt_eth_param *)pt_eth_find(s, name);

	if (p || s->n == PT_ETH_MAX)
		return p;
	p = &s->p[s->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	return p;
}

/* libmnl builds and parses the messages: without it, why in @ext */
static bool no_mnl(char *ext, size_t extsize)
{
	if (pt_dl_load(PT_DL_MNL) == 0)
		return false;
	snprintf(ext, extsize, "%s is not installed", pt_dl_soname(PT_DL_MNL));
	return true;
}

static struct nlmsghdr *request(char *buf, int sec, bool set, const char *dev, uint32_t flags)
{
	const struct section *sc = &sections[sec];
	struct nlmsghdr *nlh = pt_nl_request(buf, 0, set ? sc->set : sc->get, ETHTOOL_GENL_VERSION);
	struct nlattr *hdr = pt_libmnl.mnl_attr_nest_start(nlh, sc->header);

	pt_libmnl.mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, dev);
	if (flags)
		pt_libmnl.mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
	pt_libmnl.mnl_attr_nest_end(nlh, hdr);
	return nlh;
}

struct get {
	int sec;
	struct pt_eth_sect *s;
	/* features: the bitset being read (hw, active, nochange), and whether it has no mask */
	int bitset;
	bool nomask;
};

static int param_attr(const struct nlattr *a, void *data)
{
	struct get *g = data;
	const struct section *sc = &sections[g->sec];
	uint16_t type = pt_libmnl.mnl_attr_get_type(a);

	for (size_t i = 0; i < sc->n; i++) {
		const struct param *p = &sc->p[i];
		struct pt_eth_param *e;
		if (type != p->attr && (type != p->max_attr || !p->max_attr))
			continue;
		if (pt_libmnl.mnl_attr_validate(a, p->flag ? MNL_TYPE_U8 : MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		e = param_add(g->s, p->name);
		if (!e)
			return MNL_CB_ERROR;
		e->flag = p->flag;
		if (type == p->attr && p->flag)
			e->val = pt_libmnl.mnl_attr_get_u8(a);
		else if (type == p->attr)
			e->val = pt_libmnl.mnl_attr_get_u32(a);
		else
			e->max = pt_libmnl.mnl_attr_get_u32(a);
	}
	return MNL_CB_OK;
}

struct bit {
	const char *name;
	bool value;
};

static int bit_attr(const struct nlattr *a, void *data)
{
	struct bit *b = data;

	if (pt_libmnl.mnl_attr_get_type(a) == ETHTOOL_A_BITSET_BIT_NAME &&
	    pt_libmnl.mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		b->name = pt_libmnl.mnl_attr_get_str(a);
	if (pt_libmnl.mnl_attr_get_type(a) == ETHTOOL_A_BITSET_BIT_VALUE)
		b->value = true;
	return MNL_CB_OK;
}

/*
 * One listed bit of a verbose bitset: without a mask (NOMASK) every bit
 * listed is set; with one (hw: the mask is every feature the kernel knows)
 * a bit is set where it carries VALUE.
 */
static int bits_attr(const struct nlattr *a, void *data)
{
	struct get *g = data;
	struct pt_eth_param *e;
	struct bit b = { 0 };

	if (pt_libmnl.mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS_BIT)
		return MNL_CB_OK;
	if (pt_libmnl.mnl_attr_parse_nested(a, bit_attr, &b) < 0 || !b.name)
		return MNL_CB_ERROR;
	e = param_add(g->s, b.name);
	if (!e)
		return MNL_CB_OK; /* more features than PT_ETH_MAX: the rest unseen */
	e->flag = true;
	if (!g->nomask && !b.value)
		return MNL_CB_OK;
	if (g->bitset == ETHTOOL_A_FEATURES_ACTIVE)
		e->val = 1;
	else if (g->bitset == ETHTOOL_A_FEATURES_HW)
		e->max = 1; /* changeable */
	else
		e->fixed = true; /* NOCHANGE */
	return MNL_CB_OK;
}

static int nomask_attr(const struct nlattr *a, void *data)
{
	struct get *g = data;

	g->nomask |= pt_libmnl.mnl_attr_get_type(a) == ETHTOOL_A_BITSET_NOMASK;
	return MNL_CB_OK;
}

static int bitset_attr(const struct nlattr *a, void *data)
{
	if (pt_libmnl.mnl_attr_get_type(a) == ETHTOOL_A_BITSET_BITS)
		return pt_libmnl.mnl_attr_parse_nested(a, bits_attr, data);
	return MNL_CB_OK;
}

static int feature_attr(const struct nlattr *a, void *data)
{
	struct get *g = data;
	uint16_t type = pt_libmnl.mnl_attr_get_type(a);

	if (type != ETHTOOL_A_FEATURES_HW && type != ETHTOOL_A_FEATURES_ACTIVE &&
	    type != ETHTOOL_A_FEATURES_NOCHANGE)
		return MNL_CB_OK;
	g->bitset = type;
	g->nomask = false;
	if (pt_libmnl.mnl_attr_parse_nested(a, nomask_attr, g) < 0)
		return MNL_CB_ERROR;
	return pt_libmnl.mnl_attr_parse_nested(a, bitset_attr, g);
}

static int get_reply(const struct nlmsghdr *nlh, void *data)
{
	struct get *g = data;

	return pt_libmnl.mnl_attr_parse(nlh, GENL_HDRLEN,
					g->sec == PT_ETH_FEATURES ? feature_attr : param_attr, g);
}

int pt_eth_get(struct perftune_ctx *ctx, const char *dev, int sec, struct pt_eth_sect *s, char *ext,
	       size_t extsize)
{
	char buf[512] = { 0 }; /* no stray stack bytes in what goes to the kernel */
	struct get g = { .sec = sec, .s = s };
	int r;

	s->n = 0;
	if (no_mnl(ext, extsize))
		return -EOPNOTSUPP;
	r = pt_nl_talk(ctx, ETHTOOL_GENL_NAME, request(buf, sec, false, dev, 0), get_reply, &g, ext,
		       extsize);
	if (r < 0)
		return r;
	/* a feature the driver cannot change: not in hw_features, or "nochange" */
	for (size_t i = 0; sec == PT_ETH_FEATURES && i < s->n; i++)
		s->p[i].fixed |= !s->p[i].max;
	return 0;
}

int pt_eth_set(struct perftune_ctx *ctx, const char *dev, int sec, const char *param,
	       unsigned long long val, char *ext, size_t extsize)
{
	const struct section *sc = &sections[sec];
	char buf[512] = { 0 }; /* no stray stack bytes in what goes to the kernel */
	struct nlmsghdr *nlh;

	if (no_mnl(ext, extsize))
		return -EOPNOTSUPP;
	nlh = request(buf, sec, true, dev, ETHTOOL_FLAG_OMIT_REPLY);
	if (sec == PT_ETH_FEATURES) { /* a verbose bitset with a mask: the bits listed */
		struct nlattr *set = pt_libmnl.mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_WANTED);
		struct nlattr *bits = pt_libmnl.mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
		struct nlattr *bit = pt_libmnl.mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		pt_libmnl.mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, param);
		if (val)
			pt_libmnl.mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		pt_libmnl.mnl_attr_nest_end(nlh, bit);
		pt_libmnl.mnl_attr_nest_end(nlh, bits);
		pt_libmnl.mnl_attr_nest_end(nlh, set);
	}
	for (size_t i = 0; i < sc->n; i++) {
		if (strcmp(sc->p[i].name, param))
			continue;
		if (sc->p[i].flag)
			pt_libmnl.mnl_attr_put_u8(nlh, sc->p[i].attr, val ? 1 : 0);
		else
			pt_libmnl.mnl_attr_put_u32(nlh, sc->p[i].attr, (uint32_t)val);
	}
	return pt_nl_talk(ctx, ETHTOOL_GENL_NAME, nlh, NULL, NULL, ext, extsize);
}
