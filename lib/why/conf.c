// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Configuration files below the context's root: sysctl.d, udev rules,
 * TuneD's active_profile, the udev database.  Not kernel files (those go
 * through attr.c): plain reads of /etc, /run and /usr, so that a fixture
 * tree given as the root (--root, the unit tier) stands for the machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "why-internal.h"

const char *pt_conf_shown(const char *rel)
{
	static __thread char buf[PATH_MAX + 1];

	snprintf(buf, sizeof(buf), "/%s", rel);
	return buf;
}

int pt_conf_path(struct perftune_ctx *ctx, const char *rel, char *out, size_t size)
{
	const char *root = perftune_ctx_get_root(ctx);
	char full[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	if (pt_snprintf(full, sizeof(full), "%s/%s", strcmp(root, "/") ? root : "", rel) < 0)
		return -ENAMETOOLONG;
	n = readlink(full, target, sizeof(target) - 1);
	if (n > 0 && target[0] == '/' && strcmp(root, "/")) {
		target[n] = '\0';
		return pt_snprintf(out, size, "%s%s", root, target);
	}
	return pt_snprintf(out, size, "%s", full);
}

int pt_conf_read(struct perftune_ctx *ctx, const char *rel, char **text)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	ssize_t n = 0;

	*text = NULL;
	if (pt_conf_path(ctx, rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (st.st_size > PT_CONF_MAX)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (len < (size_t)st.st_size && (n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		return -errno;
	buf[len] = '\0';
	*text = buf;
	buf = NULL;
	return 0;
}

/* empty, or a symlink to /dev/null: systemd's mask */
static bool masked(const char *full)
{
	char target[PATH_MAX];
	ssize_t n = readlink(full, target, sizeof(target) - 1);
	struct stat st;

	if (n > 0) {
		target[n] = '\0';
		if (!strcmp(target, "/dev/null"))
			return true;
	}
	return stat(full, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

static int name_cmp(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');

	return strcmp(x, y);
}

static bool seen(char **v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(strrchr(v[i], '/') + 1, name))
			return true;
	return false;
}

int pt_conf_files(struct perftune_ctx *ctx, const char *const *dirs, const char *suffix,
		  char ***paths)
{
	char **v = calloc(1, sizeof(*v)), **masks = calloc(1, sizeof(*masks));
	size_t n = 0, nm = 0, sl = strlen(suffix);

	if (!v || !masks)
		goto oom;
	for (size_t d = 0; dirs[d]; d++) {
		char dir[PATH_MAX], full[PATH_MAX + 256], rel[PATH_MAX];
		_cleanup_closedir_ DIR *dp = NULL;
		struct dirent *e;
		if (pt_conf_path(ctx, dirs[d], dir, sizeof(dir)) < 0 || !(dp = opendir(dir)))
			continue;
		while ((e = readdir(dp))) {
			size_t l = strlen(e->d_name);
			if (e->d_name[0] == '.' || l <= sl || strcmp(e->d_name + l - sl, suffix))
				continue;
			if (seen(v, n, e->d_name) || seen(masks, nm, e->d_name))
				continue; /* an earlier directory has it: masked by name */
			snprintf(full, sizeof(full), "%s/%s", dir, e->d_name);
			if (pt_snprintf(rel, sizeof(rel), "%s/%s", dirs[d], e->d_name) < 0)
				continue;
			if (!(masked(full) ? pt_strv_add(&masks, &nm, rel)
					   : pt_strv_add(&v, &n, rel)))
				goto oom;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), name_cmp);
	pt_strv_free(masks);
	*paths = v;
	return 0;
oom:
	pt_strv_free(v);
	pt_strv_free(masks);
	return -ENOMEM;
}
