// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The event sources of a watching transaction: libudev's monitor on the
 * machine, a FIFO below another root.  Nothing here polls: the caller waits
 * on pt_uevent_fd() and drains with pt_uevent_next().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "shared/dlopen.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/log.h"
#include "engine/uevent.h"

struct pt_uevent_src {
	struct udev_monitor *mon; /* or NULL: the FIFO */
	const char *kind;
	int fd;
	char buf[4096]; /* the FIFO's bytes not yet a whole line */
	size_t len;
};

static const char *const subsystems[] = { "block", "net" };

static bool watched(const char *subsystem)
{
	for (size_t i = 0; i < sizeof(subsystems) / sizeof(subsystems[0]); i++)
		if (subsystem && !strcmp(subsystem, subsystems[i]))
			return true;
	return false;
}

/* udev's events when systemd-udevd runs (its rules have run), else the kernel's */
static int monitor_open(struct perftune_ctx *ctx, struct pt_uevent_src *src)
{
	struct udev *udev = pt_udev(ctx);
	const char *kind = "kernel";
	int r;

	if (!udev) {
		r = pt_dl_need(ctx, PT_DL_UDEV, "hotplug watch");
		if (r < 0)
			return r;
		return -ENOMEM;
	}
	if (access("/run/udev/control", F_OK) == 0)
		kind = "udev";
	errno = EIO;
	src->mon = pt_libudev.udev_monitor_new_from_netlink(udev, kind);
	if (!src->mon)
		return pt_err(ctx, -errno, "hotplug watch: no %s monitor: %s", kind,
			      strerror(errno));
	for (size_t i = 0; i < sizeof(subsystems) / sizeof(subsystems[0]); i++) {
		r = pt_libudev.udev_monitor_filter_add_match_subsystem_devtype(src->mon,
									       subsystems[i], NULL);
		if (r < 0)
			return pt_err(ctx, r, "hotplug watch: filter %s: %s", subsystems[i],
				      strerror(-r));
	}
	r = pt_libudev.udev_monitor_enable_receiving(src->mon);
	if (r < 0)
		return pt_err(ctx, r, "hotplug watch: %s monitor: %s", kind, strerror(-r));
	src->fd = pt_libudev.udev_monitor_get_fd(src->mon);
	src->kind = kind;
	return 0;
}

/* below another root: its FIFO, made if missing, open read-write so it never reads EOF */
static int fake_open(struct perftune_ctx *ctx, struct pt_uevent_src *src)
{
	int root = pt_attr_root_fd(ctx);
	struct stat st;

	(void)mkdirat(root, "run", 0755);
	if (mkfifoat(root, PT_UEVENT_FAKE, 0600) < 0 && errno != EEXIST)
		return pt_err(ctx, -errno, "hotplug watch: /%s: %s", PT_UEVENT_FAKE,
			      strerror(errno));
	src->fd = openat(root, PT_UEVENT_FAKE, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (src->fd < 0)
		return pt_err(ctx, -errno, "hotplug watch: /%s: %s", PT_UEVENT_FAKE,
			      strerror(errno));
	if (fstat(src->fd, &st) < 0 || !S_ISFIFO(st.st_mode)) /* a file would read as ever ready */
		return pt_err(ctx, -EINVAL, "hotplug watch: /%s is not a FIFO", PT_UEVENT_FAKE);
	src->kind = "fake";
	return 0;
}

int pt_uevent_open(struct perftune_ctx *ctx, struct pt_uevent_src **out)
{
	struct pt_uevent_src *src = calloc(1, sizeof(*src));
	int r;

	if (!src)
		return -ENOMEM;
	src->fd = -1;
	if (pt_root_is_host(ctx))
		r = monitor_open(ctx, src);
	else
		r = fake_open(ctx, src);
	if (r < 0) {
		pt_uevent_close(src);
		return r;
	}
	*out = src;
	return 0;
}

void pt_uevent_close(struct pt_uevent_src *src)
{
	if (!src)
		return;
	if (src->mon)
		pt_libudev.udev_monitor_unref(src->mon); /* closes its fd */
	else if (src->fd >= 0)
		close(src->fd);
	free(src);
}

int pt_uevent_fd(const struct pt_uevent_src *src)
{
	return src->fd;
}

const char *pt_uevent_kind(const struct pt_uevent_src *src)
{
	return src->kind;
}

static int monitor_next(struct pt_uevent_src *src, struct pt_uevent *ev)
{
	struct udev_device *d;

	while ((d = pt_libudev.udev_monitor_receive_device(src->mon))) {
		const char *action = pt_libudev.udev_device_get_action(d),
			   *subsystem = pt_libudev.udev_device_get_subsystem(d),
			   *name = pt_libudev.udev_device_get_sysname(d);
		bool ok = action && name && watched(subsystem);
		if (ok) {
			snprintf(ev->action, sizeof(ev->action), "%s", action);
			snprintf(ev->subsystem, sizeof(ev->subsystem), "%s", subsystem);
			snprintf(ev->name, sizeof(ev->name), "%s", name);
		}
		pt_libudev.udev_device_unref(d);
		if (ok)
			return 1;
	}
	return 0; /* nothing pending (the socket is non-blocking) */
}

/* one whole line of the FIFO's bytes into @ev: 1, or 0 if there is none yet */
static int fake_line(struct pt_uevent_src *src, struct pt_uevent *ev)
{
	char *nl;

	while ((nl = memchr(src->buf, '\n', src->len))) {
		size_t n = (size_t)(nl - src->buf) + 1;
		int k;
		*nl = '\0';
		k = sscanf(src->buf, "%15s %15s %127s", ev->action, ev->subsystem, ev->name);
		memmove(src->buf, nl + 1, src->len - n);
		src->len -= n;
		if (k == 3 && watched(ev->subsystem))
			return 1;
	}
	return 0;
}

static int fake_next(struct pt_uevent_src *src, struct pt_uevent *ev)
{
	ssize_t n;

	for (;;) {
		if (fake_line(src, ev))
			return 1;
		if (src->len == sizeof(src->buf)) /* a line past the buffer: dropped */
			src->len = 0;
		n = read(src->fd, src->buf + src->len, sizeof(src->buf) - src->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		src->len += (size_t)n;
	}
}

int pt_uevent_next(struct pt_uevent_src *src, struct pt_uevent *ev)
{
	if (src->mon)
		return monitor_next(src, ev);
	return fake_next(src, ev);
}
