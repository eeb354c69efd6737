// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include "missing/missing-ethtool_netlink.h"
#include <linux/genetlink.h>
#include "fakenl.h"

#define FAMILY_ID 0x1d
static const char *const feat_names[FNL_FEATS] = { "rx-gro", "tx-tcp-segmentation", "rx-lro",
						   "highdma" };
static const bool feat_hw[FNL_FEATS] = { true, true, false, false };

static void put(const char *root, const char *rel, const char *v)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%s\n", v);
		fclose(f);
	}
}

static void mkdirs(const char *root, const char *rel)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void queue(const char *root, const char *dev, const char *dir, unsigned q, bool on)
{
	char rel[PATH_MAX], cmd[PATH_MAX * 2];

	snprintf(rel, sizeof(rel), "sys/class/net/%s/queues/%s-%u", dev, dir, q);
	if (!on) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, rel);
		if (system(cmd) != 0)
			return;
		return;
	}
	mkdirs(root, rel);
	strcat(rel, !strcmp(dir, "rx") ? "/rps_cpus" : "/xps_cpus");
	put(root, rel, "0");
}

static void dev_tree(const char *root, const char *dev, bool pci, int ifindex)
{
	char rel[PATH_MAX], p[PATH_MAX], idx[16];

	snprintf(rel, sizeof(rel), "sys/class/net/%s", dev);
	mkdirs(root, rel);
	snprintf(p, sizeof(p), "%s/ifindex", rel);
	snprintf(idx, sizeof(idx), "%d", ifindex);
	put(root, p, idx);
	snprintf(p, sizeof(p), "%s/tx_queue_len", rel);
	put(root, p, "1000");
	snprintf(p, sizeof(p), "%s/gro_flush_timeout", rel);
	put(root, p, "0");
	queue(root, dev, "rx", 0, true);
	queue(root, dev, "tx", 0, true);
	if (pci) {
		char full[PATH_MAX];
		mkdirs(root, "sys/bus/pci/drivers/ixgbe");
		mkdirs(root, "sys/devices/pci0000:00/0000:00:03.0");
		snprintf(full, sizeof(full), "%s/sys/devices/pci0000:00/0000:00:03.0/driver", root);
		if (symlink("../../../bus/pci/drivers/ixgbe", full) < 0)
			return;
		snprintf(full, sizeof(full), "%s/%s/device", root, rel);
		if (symlink("../../../devices/pci0000:00/0000:00:03.0", full) < 0)
			return;
	}
}

static const struct fnl_dev eth0 = {
	.name = "eth0",
	.ring = { 256, 0, 0, 256 },
	.ring_max = { 4096, 0, 0, 4096 },
	.chan = { 0, 0, 1, 1 },
	.chan_max = { 0, 0, 1, 4 },
	.rx_usecs = 50,
	.rx_frames = 0,
	.adaptive_rx = 1,
	.feat = { true, true, false, true },
};

struct fnl *fnl_new(const char *root)
{
	struct fnl *k =
		mmap(NULL, sizeof(*k), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (k == MAP_FAILED)
		return NULL;
	memset(k, 0, sizeof(*k));
	snprintf(k->root, sizeof(k->root), "%s", root);
	k->dev[0] = eth0;
	k->dev[1] = eth0;
	snprintf(k->dev[1].name, sizeof(k->dev[1].name), "eth1");
	dev_tree(root, "eth0", true, 2);
	dev_tree(root, "eth1", false, 3);
	return k;
}

void fnl_free(struct fnl *k)
{
	munmap(k, sizeof(*k));
}

void fnl_remove(struct fnl *k, int dev)
{
	char cmd[PATH_MAX * 2];

	k->dev[dev].gone = true;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/class/net/%s'", k->root, k->dev[dev].name);
	if (system(cmd) != 0)
		return;
}

void fnl_rename(struct fnl *k, int dev, const char *name)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/sys/class/net/%s", k->root, k->dev[dev].name);
	snprintf(to, sizeof(to), "%s/sys/class/net/%s", k->root, name);
	if (rename(from, to) == 0)
		snprintf(k->dev[dev].name, sizeof(k->dev[dev].name), "%s", name);
}

void fnl_recreate(struct fnl *k, int dev, int ifindex)
{
	char name[sizeof(k->dev[dev].name)];

	snprintf(name, sizeof(name), "%s", k->dev[dev].name);
	fnl_remove(k, dev);
	k->dev[dev] = eth0;
	snprintf(k->dev[dev].name, sizeof(k->dev[dev].name), "%s", name);
	dev_tree(k->root, name, false, ifindex);
}

struct req {
	const char *dev;
	const struct nlattr *tb[ETHTOOL_A_COALESCE_MAX + 1];
	char feat[40];
	int feat_on;
};

static int hdr_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == ETHTOOL_A_HEADER_DEV_NAME)
		*(const char **)data = mnl_attr_get_str(a);
	return MNL_CB_OK;
}

static int bit_attr(const struct nlattr *a, void *data)
{
	struct req *q = data;

	if (mnl_attr_get_type(a) == ETHTOOL_A_BITSET_BIT_NAME)
		snprintf(q->feat, sizeof(q->feat), "%s", mnl_attr_get_str(a));
	if (mnl_attr_get_type(a) == ETHTOOL_A_BITSET_BIT_VALUE)
		q->feat_on = 1;
	return MNL_CB_OK;
}

static int nest_walk(const struct nlattr *a, void *data)
{
	uint16_t t = mnl_attr_get_type(a);

	if (t == ETHTOOL_A_BITSET_BITS || t == ETHTOOL_A_BITSET_BITS_BIT)
		return mnl_attr_parse_nested(a, t == ETHTOOL_A_BITSET_BITS ? nest_walk : bit_attr,
					     data);
	return MNL_CB_OK;
}

static int req_attr(const struct nlattr *a, void *data)
{
	struct req *q = data;
	uint16_t t = mnl_attr_get_type(a);

	if (t == 1) /* every section's header is attribute 1 */
		return mnl_attr_parse_nested(a, hdr_attr, &q->dev);
	if (t <= ETHTOOL_A_COALESCE_MAX)
		q->tb[t] = a;
	return MNL_CB_OK;
}

/* as the kernel's features_fill_reply(): hw masked by every feature, active without a mask */
static void put_bits(struct nlmsghdr *nlh, uint16_t type, const struct fnl_dev *d, int hw)
{
	struct nlattr *set = mnl_attr_nest_start(nlh, type), *bits;

	if (!hw)
		mnl_attr_put(nlh, ETHTOOL_A_BITSET_NOMASK, 0, NULL);
	bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
	for (int i = 0; i < FNL_FEATS; i++) {
		struct nlattr *bit;
		if (!hw && !d->feat[i])
			continue;
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_BIT_INDEX, (uint32_t)i);
		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, feat_names[i]);
		if (hw && feat_hw[i])
			mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
	}
	mnl_attr_nest_end(nlh, bits);
	mnl_attr_nest_end(nlh, set);
}

static void put_pairs(struct nlmsghdr *nlh, const unsigned *v, const unsigned *max, uint16_t vattr,
		      uint16_t mattr)
{
	for (uint16_t i = 0; i < 4; i++)
		if (max[i]) {
			mnl_attr_put_u32(nlh, mattr + i, max[i]);
			mnl_attr_put_u32(nlh, vattr + i, v[i]);
		}
}

static int get(struct fnl_dev *d, uint8_t cmd, pt_nl_cb cb, void *cbdata, char *ext, size_t n)
{
	char buf[4096];
	struct nlmsghdr *nlh = pt_nl_request(buf, FAMILY_ID, (uint8_t)(cmd + 1), 1);

	switch (cmd) {
	case ETHTOOL_MSG_RINGS_GET:
		put_pairs(nlh, d->ring, d->ring_max, ETHTOOL_A_RINGS_RX, ETHTOOL_A_RINGS_RX_MAX);
		break;
	case ETHTOOL_MSG_CHANNELS_GET:
		put_pairs(nlh, d->chan, d->chan_max, ETHTOOL_A_CHANNELS_RX_COUNT,
			  ETHTOOL_A_CHANNELS_RX_MAX);
		break;
	case ETHTOOL_MSG_COALESCE_GET:
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_USECS, d->rx_usecs);
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, d->rx_frames);
		mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, (uint8_t)d->adaptive_rx);
		break;
	case ETHTOOL_MSG_FEATURES_GET:
		put_bits(nlh, ETHTOOL_A_FEATURES_HW, d, 1);
		put_bits(nlh, ETHTOOL_A_FEATURES_ACTIVE, d, 0);
		break;
	default:
		return -EOPNOTSUPP; /* no pause frames: as veth */
	}
	(void)ext;
	(void)n;
	return cb && cb(nlh, cbdata) < MNL_CB_OK ? -EBADMSG : 0;
}

static int set_u32(unsigned *v, const unsigned *max, const struct nlattr *const *tb, uint16_t vattr,
		   char *ext, size_t n)
{
	for (uint16_t i = 0; i < 4; i++) {
		if (!tb[vattr + i])
			continue;
		if (max && mnl_attr_get_u32(tb[vattr + i]) > max[i]) {
			snprintf(ext, n, "requested ring size exceeds maximum");
			return -EINVAL;
		}
		v[i] = mnl_attr_get_u32(tb[vattr + i]);
	}
	return 0;
}

/* channels make and remove queues, as netif_set_real_num_rx_queues() does */
static void requeue(struct fnl *k, struct fnl_dev *d, const unsigned *old)
{
	unsigned was = old[0] + old[3], now = d->chan[0] + d->chan[3];

	for (unsigned q = now; q < was; q++)
		queue(k->root, d->name, "rx", q, false);
	for (unsigned q = was; q < now; q++)
		queue(k->root, d->name, "rx", q, true);
}

static int set(struct fnl *k, struct fnl_dev *d, uint8_t cmd, struct req *q, char *ext, size_t n)
{
	unsigned old[4];
	int r = 0;

	switch (cmd) {
	case ETHTOOL_MSG_RINGS_SET:
		return set_u32(d->ring, d->ring_max, q->tb, ETHTOOL_A_RINGS_RX, ext, n);
	case ETHTOOL_MSG_CHANNELS_SET:
		memcpy(old, d->chan, sizeof(old));
		r = set_u32(d->chan, d->chan_max, q->tb, ETHTOOL_A_CHANNELS_RX_COUNT, ext, n);
		if (r == 0 && d->chan[0] + d->chan[3] == 0) {
			memcpy(d->chan, old, sizeof(old));
			snprintf(ext, n, "neither RX nor combined channels");
			return -EINVAL;
		}
		requeue(k, d, old);
		return r;
	case ETHTOOL_MSG_COALESCE_SET:
		if (q->tb[ETHTOOL_A_COALESCE_TX_USECS]) {
			snprintf(ext, n, "unsupported parameter");
			return -EOPNOTSUPP;
		}
		if (q->tb[ETHTOOL_A_COALESCE_RX_USECS] &&
		    mnl_attr_get_u32(q->tb[ETHTOOL_A_COALESCE_RX_USECS]) % 2) {
			snprintf(ext, n, "fake: rx-usecs must be even");
			return -EINVAL;
		}
		if (q->tb[ETHTOOL_A_COALESCE_RX_USECS])
			d->rx_usecs = mnl_attr_get_u32(q->tb[ETHTOOL_A_COALESCE_RX_USECS]);
		if (q->tb[ETHTOOL_A_COALESCE_RX_MAX_FRAMES])
			d->rx_frames = mnl_attr_get_u32(q->tb[ETHTOOL_A_COALESCE_RX_MAX_FRAMES]);
		if (q->tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX])
			d->adaptive_rx = mnl_attr_get_u8(q->tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]);
		return 0;
	case ETHTOOL_MSG_FEATURES_SET:
		if (q->tb[ETHTOOL_A_FEATURES_WANTED])
			mnl_attr_parse_nested(q->tb[ETHTOOL_A_FEATURES_WANTED], nest_walk, q);
		for (int i = 0; i < FNL_FEATS; i++)
			if (!strcmp(q->feat, feat_names[i]) && feat_hw[i])
				d->feat[i] = q->feat_on; /* a fixed one stays: the kernel says 0 */
		return 0;
	}
	return -EOPNOTSUPP;
}

static int talk_locked(void *data, const struct nlmsghdr *nlh, pt_nl_cb cb, void *cbdata, char *ext,
		       size_t n);

/* the kernel takes the RTNL lock for an ethtool request: one at a time, as here */
static int talk(void *data, const struct nlmsghdr *nlh, pt_nl_cb cb, void *cbdata, char *ext,
		size_t n)
{
	static pthread_mutex_t rtnl = PTHREAD_MUTEX_INITIALIZER;
	int r;

	pthread_mutex_lock(&rtnl);
	r = talk_locked(data, nlh, cb, cbdata, ext, n);
	pthread_mutex_unlock(&rtnl);
	return r;
}

static int talk_locked(void *data, const struct nlmsghdr *nlh, pt_nl_cb cb, void *cbdata, char *ext,
		       size_t n)
{
	struct fnl *k = data;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct req q = { 0 };
	struct fnl_dev *d = NULL;

	if (nlh->nlmsg_type == GENL_ID_CTRL) { /* CTRL_CMD_GETFAMILY "ethtool" */
		char buf[256];
		struct nlmsghdr *r = pt_nl_request(buf, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, 1);
		mnl_attr_put_u16(r, CTRL_ATTR_FAMILY_ID, FAMILY_ID);
		return cb(r, cbdata) < MNL_CB_OK ? -EBADMSG : 0;
	}
	if (nlh->nlmsg_type != FAMILY_ID)
		return -ENOENT;
	mnl_attr_parse(nlh, sizeof(*g), req_attr, &q);
	for (int i = 0; i < FNL_DEVS && q.dev; i++)
		if (!strcmp(k->dev[i].name, q.dev) && !k->dev[i].gone)
			d = &k->dev[i];
	if (g->cmd % 2 == 0) { /* a SET: counted, faulted, killed at */
		k->sets++;
		if (k->crash_at == k->sets)
			_exit(99);
		if (k->vanish_at == k->sets && d) {
			fnl_remove(k, (int)(d - k->dev));
			d = NULL;
		}
	}
	if (!d) {
		snprintf(ext, n, "no device matches name");
		return -ENODEV;
	}
	if (g->cmd % 2 == 1)
		return get(d, g->cmd, cb, cbdata, ext, n);
	if (k->fault_at == k->sets)
		return -EIO;
	return k->ignore_sets ? 0 : set(k, d, g->cmd, &q, ext, n);
}

static const struct pt_nl_transport fake = { .talk = talk };

void fnl_install(struct perftune_ctx *ctx, struct fnl *k)
{
	pt_nl_set_transport(ctx, &fake, k);
}
