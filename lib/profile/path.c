// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where profiles come from: the search path, a profile found by name on it
 * (TuneD's Loader.safe_name: a name is never a path), the directories a
 * variables file may come from, and whom a file is trusted from.  As sudo
 * treats its configuration, a profile found by name is refused, with a
 * warning naming it, when its file, its directory or the search directory can
 * be written by anyone but root (or the caller): owned by another user,
 * group-writable (a group other than root's) or other-writable; a directory
 * above the search directory may be other-writable only with the sticky bit
 * (/tmp).  A profile given by path is read, with a warning.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/trust.h"
#include "shared/util.h"
#include "core/ctx.h"
#include "core/log.h"
#include "profile-internal.h"

/*
 * The one copy of the default search path (the CLI asks for it,
 * perftune_profile_default_path(), to put its build tree's profiles first).
 * The admin's first, then the profiles other packages ship (a database's own,
 * perftune-packaging(7)) before ours: a package that ships a profile of a name
 * we ship means its own; TuneD's last, as TuneD itself puts /usr/lib/tuned
 * under /etc/tuned.
 */
#define DEFAULT_PATH                                                                               \
	"/etc/perftune/profiles:/usr/lib/perftune/profiles:" PERFTUNE_PROFILES_DIR                 \
	":/etc/tuned:/usr/lib/tuned"

PERFTUNE_EXPORT const char *perftune_profile_default_path(void)
{
	return DEFAULT_PATH;
}

char **pt_profile_path(void)
{
	const char *env = getenv("PERFTUNE_PROFILE_PATH");
	char **v = calloc(1, sizeof(*v)), *dup, *save = NULL;
	size_t n = 0;

	if (!v)
		return NULL;
	if (!env || !*env)
		env = DEFAULT_PATH;
	if (!(dup = strdup(env)))
		goto oom;
	for (char *d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (!pt_strv_add(&v, &n, d)) {
			free(dup);
			goto oom;
		}
	free(dup);
	return v;
oom:
	pt_strv_free(v);
	return NULL;
}

/* ---- whom a file is trusted from (shared/trust.c) ---- */

/* A profile given by path: read, with a warning when others can write it. */
void pt_profile_warn_unsafe(struct perftune_ctx *ctx, const char *file)
{
	char why[PATH_MAX + 128];

	if (pt_trust_check(file, NULL, why, sizeof(why)) < 0)
		pt_log(ctx, PERFTUNE_LOG_WARNING,
		       "profile %s can be changed by others than root: %s", file, why);
}

/* A profile found by name in @dir: false (and a warning naming it) if it cannot be trusted. */
bool pt_profile_trusted(struct perftune_ctx *ctx, const char *file, const char *dir)
{
	char why[PATH_MAX + 128];

	if (pt_trust_check(file, dir, why, sizeof(why)) == 0)
		return true;
	pt_log(ctx, PERFTUNE_LOG_WARNING, "profile %s refused: %s", file, why);
	return false;
}

/* ---- finding a profile by name ---- */

static bool name_ok(const char *name)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strlen(name) > 128)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
			return false;
	return true;
}

static bool in_list(char **const list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool tuned_dir(const char *dir)
{
	return !strcmp(dir, "/etc/tuned") || !strcmp(dir, "/usr/lib/tuned");
}

/* below another root (--root), TuneD's directories are those of that tree */
static const char *tuned_root(struct perftune_ctx *ctx)
{
	if (pt_root_is_host(ctx))
		return "";
	return perftune_ctx_get_root(ctx);
}

bool pt_profile_in_tuned_dir(struct perftune_ctx *ctx, const char *file)
{
	const char *root = tuned_root(ctx);
	char dir[PATH_MAX];
	const char *slash;

	if (strncmp(file, root, strlen(root)))
		return false;
	snprintf(dir, sizeof(dir), "%s", file + strlen(root));
	for (int up = 0; up < 2 && (slash = strrchr(dir, '/')); up++)
		dir[slash - dir] = '\0'; /* <dir>/<name>/tuned.conf -> <dir> */
	return tuned_dir(dir);
}

int pt_profile_locate(struct perftune_ctx *ctx, const char *name, char **const skip,
		      bool tuned_only, char **path)
{
	_cleanup_(pt_strv_freep) char **dirs = pt_profile_path();
	bool skipped = false;

	*path = NULL;
	if (!dirs)
		return -ENOMEM;
	if (!name_ok(name))
		return pt_err(ctx, -EINVAL, "'%s' is not a profile name ([A-Za-z0-9_.-])", name);
	for (size_t i = 0; dirs[i]; i++) {
		char p[PATH_MAX], dir[PATH_MAX];
		if (tuned_only && !tuned_dir(dirs[i]))
			continue;
		if (pt_snprintf(dir, sizeof(dir), "%s%s", tuned_only ? tuned_root(ctx) : "",
				dirs[i]) < 0 ||
		    pt_snprintf(p, sizeof(p), "%s/%s/tuned.conf", dir, name) < 0)
			continue;
		if (in_list(skip, p)) {
			skipped = true;
			continue;
		}
		if (is_file(p) && pt_profile_trusted(ctx, p, dir)) {
			*path = strdup(p);
			if (!*path)
				return -ENOMEM;
			return 0;
		}
	}
	if (skipped)
		return 0;
	return -ENOENT;
}

int pt_profile_not_found(struct perftune_ctx *ctx, const char *name, const char *from, int line)
{
	_cleanup_(pt_strv_freep) char **dirs = pt_profile_path();
	char list[1024] = "";

	for (size_t i = 0; dirs && dirs[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ":" : "",
			 dirs[i]);
	if (from)
		return pt_err(ctx, -ENOENT, "%s:%d: included profile '%s' not found in %s", from,
			      line, name, list);
	return pt_err(ctx, -ENOENT, "profile '%s' not found in %s", name, list);
}

/* Variables files live with the profiles (or in TuneD's /etc/tuned); nothing else is read. */
bool pt_profile_dir_holds(const char *real)
{
	_cleanup_(pt_strv_freep) char **dirs = pt_profile_path();
	static const char *const fixed[] = { "/etc/tuned", "/etc/perftune", "/usr/lib/tuned",
					     PERFTUNE_PROFILES_DIR };
	size_t nfixed = ARRAY_SIZE(fixed);
	char dir[PATH_MAX];

	for (size_t i = 0; i < nfixed || (dirs && dirs[i - nfixed]); i++) {
		const char *d = i < nfixed ? fixed[i] : dirs[i - nfixed];
		size_t n;
		if (!realpath(d, dir))
			continue;
		n = strlen(dir);
		if (!strncmp(real, dir, n) && real[n] == '/')
			return true;
	}
	return false;
}

/*
 * The instance's variables file of profile @name: the first
 * <dir>/<name>/variables.conf on the search path, so the admin's
 * /etc/perftune/profiles/<name>/variables.conf wins over one a package ships
 * beside its profile.  Trusted as a profile is, and more: neither the file
 * nor <dir>/<name> may be a symbolic link, so that a link planted where
 * the checks above look at its target cannot bring in another file.
 * 0 and *@path (NULL: there is none), or -EPERM naming the file and why.
 */
int pt_profile_vars_path(struct perftune_ctx *ctx, const char *name, char **path)
{
	_cleanup_(pt_strv_freep) char **dirs = pt_profile_path();
	char why[PATH_MAX + 128];

	*path = NULL;
	if (!dirs)
		return -ENOMEM;
	for (size_t i = 0; dirs[i] && name_ok(name); i++) {
		char d[PATH_MAX], f[PATH_MAX];
		struct stat sd, sf;
		if (pt_snprintf(d, sizeof(d), "%s/%s", dirs[i], name) < 0 ||
		    pt_snprintf(f, sizeof(f), "%s/" PT_PROFILE_VARS_FILE, d) < 0 ||
		    lstat(d, &sd) < 0 || lstat(f, &sf) < 0)
			continue;
		if (S_ISLNK(sd.st_mode))
			return pt_err(ctx, -EPERM,
				      "variables file %s refused: %s is a symbolic link", f, d);
		if (S_ISLNK(sf.st_mode) || !S_ISREG(sf.st_mode))
			return pt_err(
				ctx, -EPERM,
				"variables file %s refused: a symbolic link or not a regular file",
				f);
		if (pt_trust_check(f, dirs[i], why, sizeof(why)) < 0)
			return pt_err(ctx, -EPERM, "variables file %s refused: %s", f, why);
		*path = strdup(f);
		if (!*path)
			return -ENOMEM;
		return 0;
	}
	return 0;
}

/* ---- a name given to verify or export: a transaction's, else a profile's ---- */

bool pt_named_flags_ok(unsigned flags)
{
	const unsigned both = PERFTUNE_NAMED_PROFILE | PERFTUNE_NAMED_TRANSACTION;

	return !(flags & ~both) && flags != both;
}

bool pt_named_tx_first(const char *name, unsigned flags)
{
	return !(flags & PERFTUNE_NAMED_PROFILE) && !strchr(name, '/');
}
