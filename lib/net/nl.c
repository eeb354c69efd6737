// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Generic netlink behind a transport: the real one is a libmnl socket per
 * request (a commit's worker threads share no socket); the unit tier installs
 * a scripted kernel instead (pt_nl_set_transport()).  The kernel's extended
 * ack message (NLMSGERR_ATTR_MSG, the "why" of an EINVAL) is handed back with
 * the error.  Netlink talks to the running kernel, not to a root tree: with
 * another root and no transport installed there is none.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "perftune.h"
#include "macro.h"
#include "shared/dlopen.h"
#include "core/ctx.h"
#include "net/nl.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

struct reply {
	pt_nl_cb cb;
	void *data;
	int err; /* the ack's error: 0 or -errno */
	char *ext;
	size_t extsize;
};

/* NLMSG_ERROR: the ack (error 0) ends the exchange; its TLVs carry the extack text */
static int on_error(const struct nlmsghdr *nlh, void *data)
{
	struct reply *rp = data;
	const struct nlmsgerr *e = pt_libmnl.mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	const char *payload;
	size_t off = sizeof(*e), len;

	if (nlh->nlmsg_len < pt_libmnl.mnl_nlmsg_size(sizeof(*e))) {
		rp->err = -EBADMSG;
		return MNL_CB_ERROR;
	}
	rp->err = e->error > 0 ? -e->error : e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	payload = (const char *)e + off;
	len = pt_libmnl.mnl_nlmsg_get_payload_len(nlh) - off;
	/* mnl_attr_for_each_payload(payload, len), through the table */
	for (attr = (const void *)payload;
	     nlh->nlmsg_flags & NLM_F_ACK_TLVS &&
	     pt_libmnl.mnl_attr_ok(attr, (int)(payload + len - (const char *)attr));
	     attr = pt_libmnl.mnl_attr_next(attr)) {
		if (pt_libmnl.mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    pt_libmnl.mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(rp->ext, rp->extsize, "%s", pt_libmnl.mnl_attr_get_str(attr));
	}
	if (rp->err)
		return MNL_CB_ERROR;
	return MNL_CB_STOP;
}

static int on_msg(const struct nlmsghdr *nlh, void *data)
{
	struct reply *rp = data;

	if (rp->cb)
		return rp->cb(nlh, rp->data);
	return MNL_CB_OK;
}

static int real_talk(void *data _unused_, const struct nlmsghdr *req, pt_nl_cb cb, void *cbdata,
		     char *ext, size_t extsize)
{
	int one = 1;
	struct reply rp = { .cb = cb, .data = cbdata, .ext = ext, .extsize = extsize };
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = on_error };
	struct mnl_socket *nl = pt_libmnl.mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	_cleanup_free_ char *buf = malloc(PT_NL_BUF);
	unsigned portid;
	int r = 0;

	if (!nl || !buf) {
		r = -errno; /* the socket's */
		if (nl)
			r = -ENOMEM;
		goto out;
	}
	/* without these a kernel still answers; the message is just shorter */
	pt_libmnl.mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	pt_libmnl.mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (pt_libmnl.mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    pt_libmnl.mnl_socket_sendto(nl, req, req->nlmsg_len) < 0) {
		r = -errno;
		goto out;
	}
	portid = pt_libmnl.mnl_socket_get_portid(nl);
	for (;;) {
		ssize_t n = pt_libmnl.mnl_socket_recvfrom(nl, buf, PT_NL_BUF);
		if (n < 0) {
			r = -errno;
			break;
		}
		r = pt_libmnl.mnl_cb_run2(buf, (size_t)n, req->nlmsg_seq, portid, on_msg, &rp, ctl,
					  NLMSG_MIN_TYPE);
		if (r <= MNL_CB_STOP) {
			if (r != MNL_CB_ERROR)
				r = 0;
			else if (rp.err)
				r = rp.err; /* the kernel's answer */
			else
				r = -errno;
			break;
		}
	}
out:
	if (nl)
		pt_libmnl.mnl_socket_close(nl);
	return r;
}

static int family_attr(const struct nlattr *a, void *data)
{
	if (pt_libmnl.mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    pt_libmnl.mnl_attr_validate(a, MNL_TYPE_U16) == 0)
		*(int *)data = pt_libmnl.mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_reply(const struct nlmsghdr *nlh, void *data)
{
	return pt_libmnl.mnl_attr_parse(nlh, GENL_HDRLEN, family_attr, data);
}

/* CTRL_CMD_GETFAMILY by name, through the same talk (the fake answers it too) */
static int family_id(const struct pt_nl_transport *tp, void *data, const char *name, char *ext,
		     size_t extsize)
{
	char buf[256] = { 0 };
	struct nlmsghdr *nlh = pt_nl_request(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	int id = 0, r;

	pt_libmnl.mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	r = tp->talk(data, nlh, family_reply, &id, ext, extsize);
	if (r < 0)
		return r;
	if (id > 0)
		return id;
	return -ENOENT;
}

static const struct pt_nl_transport real_transport = { .talk = real_talk };

void pt_nl_set_transport(struct perftune_ctx *ctx, const struct pt_nl_transport *tp, void *data)
{
	pt_ctx_head(ctx)->nl = tp;
	pt_ctx_head(ctx)->nl_data = data;
}

struct nlmsghdr *pt_nl_request(void *buf, uint16_t type, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = pt_libmnl.mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	g = pt_libmnl.mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

int pt_nl_talk(struct perftune_ctx *ctx, const char *family, struct nlmsghdr *req, pt_nl_cb cb,
	       void *cbdata, char *ext, size_t extsize)
{
	const struct pt_nl_transport *tp = pt_ctx_head(ctx)->nl;
	void *data = pt_ctx_head(ctx)->nl_data;
	int id;

	ext[0] = '\0';
	if (!tp && !pt_root_is_host(ctx)) {
		snprintf(ext, extsize, "netlink reaches the running kernel, not the root tree");
		return -EOPNOTSUPP;
	}
	if (!tp)
		tp = &real_transport;
	if (pt_dl_load(PT_DL_MNL) < 0) { /* net.c asked for it first, naming the key */
		snprintf(ext, extsize, "%s is not installed", pt_dl_soname(PT_DL_MNL));
		return -EOPNOTSUPP;
	}
	id = family_id(tp, data, family, ext, extsize);
	if (id < 0) {
		if (id == -ENOENT && !ext[0])
			snprintf(ext, extsize, "this kernel has no generic netlink family '%s'",
				 family);
		if (id == -ENOENT)
			return -EOPNOTSUPP;
		return id;
	}
	req->nlmsg_type = (uint16_t)id;
	return tp->talk(data, req, cb, cbdata, ext, extsize);
}
