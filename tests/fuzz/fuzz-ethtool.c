// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Ethtool netlink replies: the input is what a kernel answers, netlink
 * messages back to back, handed to the reply parser of each section through
 * a transport that answers with it (the family lookup answers an id).  Then
 * the net family reads, validates and describes a key of each section on the
 * fake machine's device, so that what the parser made of the reply goes
 * through the family too.  No socket is opened, nothing is written.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include "fuzz-common.h"

struct reply {
	const uint8_t *data;
	size_t size;
};

static int talk(void *ud, const struct nlmsghdr *req, pt_nl_cb cb, void *cbdata, char *ext,
		size_t extsize)
{
	struct reply *rp = ud;
	const struct nlmsghdr *nlh;
	size_t len = rp->size;
	int r = MNL_CB_OK;

	if (req->nlmsg_type == GENL_ID_CTRL) { /* the family id */
		char buf[256];
		struct nlmsghdr *m = pt_nl_request(buf, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, 1);
		mnl_attr_put_u16(m, CTRL_ATTR_FAMILY_ID, 0x1d);
		return cb(m, cbdata) < MNL_CB_OK ? -EBADMSG : 0;
	}
	if (rp->size && rp->data[0] == 0xff) { /* an error with an extack text */
		snprintf(ext, extsize, "%.*s", (int)(rp->size - 1), (const char *)rp->data + 1);
		return -EINVAL;
	}
	/* the reply's messages, aligned as they would be in a receive buffer */
	_cleanup_free_ uint8_t *copy = malloc(rp->size ? rp->size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rp->data, rp->size);
	/* what a socket's receive gives: whole messages (mnl_nlmsg_ok() compares signed) */
	for (nlh = (const struct nlmsghdr *)copy; cb && r >= MNL_CB_OK;) {
		size_t n;
		if (len < sizeof(*nlh) || nlh->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN) ||
		    nlh->nlmsg_len > len)
			break;
		r = cb(nlh, cbdata);
		n = NLMSG_ALIGN((size_t)nlh->nlmsg_len);
		if (n >= len)
			break;
		len -= n;
		nlh = (const struct nlmsghdr *)((const uint8_t *)nlh + n);
	}
	return r < MNL_CB_OK ? -EBADMSG : 0;
}

static const struct pt_nl_transport fuzz_transport = { .talk = talk };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = { "sys", "sys/class", "sys/class/net",
					    "sys/class/net/eth0" };
	char p[PATH_MAX];

	(void)argc, (void)argv;
	fz_init();
	/* a network device on the fake machine (the unit tier's has none) */
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", fz_root(), dirs[i]);
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fz_fail("mkdir %s: %s", p, strerror(errno));
	}
	snprintf(p, sizeof(p), "%s/sys/class/net/eth0/ifindex", fz_root());
	fz_spill(p, "2\n", 2, 0444);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {
		"net.eth0.ring.rx",	      "net.eth0.channels.combined",
		"net.eth0.coalesce.rx_usecs", "net.eth0.pause.autoneg",
		"net.eth0.features.rx-gro",   "net.eth0.features.*",
	};
	struct reply rp = { data, size };
	struct pt_eth_sect *s = malloc(sizeof(*s));
	struct perftune_ctx *ctx;
	char jdir[PATH_MAX], ext[256];

	if (!s)
		return 0;
	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
	pt_nl_set_transport(ctx, &fuzz_transport, &rp);
	for (int sec = 0; sec < PT_ETH_NSEC; sec++) {
		int r = pt_eth_get(ctx, "eth0", sec, s, ext, sizeof(ext));
		if (r > 0 || s->n > PT_ETH_MAX)
			fz_fail("pt_eth_get: %d, %zu parameters", r, s->n);
		for (size_t i = 0; r == 0 && i < s->n; i++)
			if (!memchr(s->p[i].name, '\0', sizeof(s->p[i].name)))
				fz_fail("a parameter name without its NUL");
	}
	free(s);
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		char *v = NULL;
		struct perftune_desc *d = NULL;
		int r = perftune_get(ctx, keys[k], &v);
		fz_check_err(ctx, r, "perftune_get");
		free(v);
		r = perftune_describe(ctx, keys[k], &d);
		fz_check_err(ctx, r, "perftune_describe");
		perftune_desc_free(d);
	}
	if (fz_writes())
		fz_fail("a read wrote");
	perftune_ctx_unref(ctx);
	return 0;
}
