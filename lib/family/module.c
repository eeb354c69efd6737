// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * module.<name>.loaded: a kernel module loaded (1) or not (0), through libkmod
 * (shared/kmod.c: modprobe's dependencies and modprobe.d options, never a
 * command).  "1 opt=v ..." loads it with those options.  The original of a
 * load is "0 <the modules it brought in>": a restore unloads the module and
 * then those, each only if nothing uses it (refcnt 0, no holders); a module
 * in use is an error that keeps the journal.  Module parameters stay sysfs
 * keys (sysfs[/sys/module/<name>/parameters/<p>]).  State is read from
 * /sys/module through attr.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "perftune.h"
#include "macro.h"
#include "internal.h"
#include "shared/buf.h"
#include "shared/kmod.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/key.h"
#include "core/log.h"
#include "object/desc.h"
#include "family/family.h"

#define NAME_MAX_MOD 56 /* MODULE_NAME_LEN */

enum { MOD_ABSENT, MOD_LOADED, MOD_BUILTIN };

static int mod_state(struct perftune_ctx *ctx, const char *name)
{
	char p[96], st[32];

	snprintf(p, sizeof(p), "sys/module/%s/initstate", name);
	if (pt_attr_read(ctx, p, st, sizeof(st)) >= 0)
		return MOD_LOADED; /* live, coming or going: there */
	snprintf(p, sizeof(p), "sys/module/%s", name);
	if (pt_attr_is_dir(ctx, p))
		return MOD_BUILTIN;
	return MOD_ABSENT;
}

/* 0 unused; -EBUSY with its users in @why (refcnt, holders) */
static int in_use(struct perftune_ctx *ctx, const char *name, char *why, size_t size)
{
	char p[128], rc[32] = "0";
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ char *s = NULL;
	struct pt_buf b = { 0 };
	struct dirent *de;
	int holders = 0;

	snprintf(p, sizeof(p), "sys/module/%s/refcnt", name);
	pt_attr_read(ctx, p, rc, sizeof(rc));
	pt_buf_printf(&b, "refcnt %s", rc);
	snprintf(p, sizeof(p), "sys/module/%s/holders", name);
	d = pt_attr_opendir(ctx, p);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (holders++)
			pt_buf_printf(&b, " %s", de->d_name);
		else
			pt_buf_printf(&b, ", used by %s", de->d_name);
	}
	s = pt_buf_steal(&b);
	snprintf(why, size, "%s", s ? s : "");
	if (strcmp(rc, "0") || holders)
		return -EBUSY;
	return 0;
}

/*
 * false when this process may not load modules: no CAP_SYS_MODULE.  A unit's
 * ProtectKernelModules=yes drops it and hides /lib/modules too, which made a
 * missing module look like one this kernel does not have (a silent skip).
 */
static bool may_load_modules(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &h, d) < 0)
		return true; /* cannot tell: a load says why it fails */
	return d[CAP_TO_INDEX(CAP_SYS_MODULE)].effective & CAP_TO_MASK(CAP_SYS_MODULE);
}

static int mod_resolve(struct perftune_ctx *ctx, const struct pt_keyparts *kp, pt_emit_fn emit,
		       void *ud)
{
	struct pt_tunable t;
	char name[NAME_MAX_MOD], out[256];
	const char *n = kp->n == 3 ? kp->c[1].s : "";
	size_t len = strlen(n);
	int r;

	if (kp->n != 3 || strcmp(kp->c[2].s, "loaded"))
		return pt_err(ctx, -EINVAL, "%s: expected module.<name>.loaded", kp->text);
	if (!len || len >= sizeof(name) ||
	    strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != len)
		return pt_err(ctx, -EINVAL, "%s: '%s' is not a module name", kp->text, n);
	for (size_t i = 0; i <= len; i++) /* the kernel's name: '-' is '_' */
		name[i] = n[i] == '-' ? '_' : n[i];
	if (mod_state(ctx, name) == MOD_ABSENT) {
		if (pt_attr_kmod_need(ctx, kp->text) < 0)
			return -EOPNOTSUPP;
		r = pt_attr_kmod(ctx, PT_KMOD_FIND, name, NULL, out, sizeof(out));
		if (r < 0 && pt_root_is_host(ctx) && !may_load_modules())
			return pt_err(ctx, -EPERM,
				      "%s: no module %s found, and this process may not load modules "
				      "(no CAP_SYS_MODULE; systemd's ProtectKernelModules=yes also "
				      "hides /lib/modules: perftune@.service sets it to no, see "
				      "perftune(8))",
				      kp->text, name);
		if (r < 0)
			return pt_err(ctx, -ENOENT,
				      "%s: no module %s for this kernel (not loaded, not in "
				      "/lib/modules/<release>/modules.dep)",
				      kp->text, name);
	}
	pt_tunable_init(&t, &pt_module_family, NULL, "module.%s.loaded", name);
	snprintf(t.path, sizeof(t.path), "sys/module/%s", name);
	snprintf(t.aux, sizeof(t.aux), "%s", name);
	return emit(ctx, &t, ud);
}

/* the loaded modules (built-in ones cannot be unloaded: no key) */
static int mod_list(struct perftune_ctx *ctx, pt_emit_fn emit, void *ud)
{
	_cleanup_closedir_ DIR *d = pt_attr_opendir(ctx, "sys/module");
	struct dirent *de;
	int r = 0;

	while (d && (de = readdir(d)) && r >= 0) {
		struct pt_tunable t;
		if (de->d_name[0] == '.' || strlen(de->d_name) >= NAME_MAX_MOD ||
		    mod_state(ctx, de->d_name) != MOD_LOADED)
			continue;
		pt_tunable_init(&t, &pt_module_family, NULL, "module.%s.loaded", de->d_name);
		snprintf(t.path, sizeof(t.path), "sys/module/%s", de->d_name);
		snprintf(t.aux, sizeof(t.aux), "%s", de->d_name);
		r = emit(ctx, &t, ud);
	}
	return r;
}

static int mod_read(struct perftune_ctx *ctx, const struct pt_tunable *t, char *buf, size_t size)
{
	snprintf(buf, size, "%d", mod_state(ctx, t->aux) != MOD_ABSENT);
	return 0;
}

/* "1", "0", or "1 opt=v ...": options of the kernel's syntax, one blank apart, in @out */
static int mod_validate(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *in,
			char *out, size_t size)
{
	_cleanup_free_ char *dup = strdup(in);
	char *save = NULL, *tok, why[256];
	int st = mod_state(ctx, t->aux);
	size_t o;

	if (!dup)
		return -ENOMEM;
	tok = strtok_r(dup, " \t", &save);
	if (!tok || (strcmp(tok, "1") && strcmp(tok, "0")))
		return pt_err(ctx, -EINVAL,
			      "%s: '%s' is not 1 (load), 0 (unload) or 1 OPTION=VALUE...", t->key,
			      in);
	snprintf(out, size, "%s", tok);
	o = strlen(out);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		if (out[0] == '0' || tok[0] == '=' ||
		    tok[strspn(
			    tok,
			    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-=,:/+")])
			return pt_err(ctx, -EINVAL, "%s: '%s' is not a module option (name=value)",
				      t->key, tok);
		if (pt_snprintf(out + o, size - o, " %s", tok) < 0)
			return pt_err(ctx, -EINVAL, "%s: options too long", t->key);
		o = strlen(out);
	}
	if (out[0] == '0' && st == MOD_BUILTIN)
		return pt_err(ctx, -EINVAL,
			      "%s: %s is built into the kernel: it cannot be unloaded", t->key,
			      t->aux);
	if (out[0] == '0' && st == MOD_LOADED && in_use(ctx, t->aux, why, sizeof(why)) < 0)
		return pt_err(ctx, -EBUSY, "%s: %s is in use (%s): not unloaded", t->key, t->aux,
			      why);
	if (out[0] == '0' && st == MOD_LOADED && pt_attr_kmod_need(ctx, t->key) < 0)
		return -EOPNOTSUPP;
	if (out[0] == '1' && st != MOD_ABSENT && o > 1) {
		pt_log(ctx, PERFTUNE_LOG_NOTICE,
		       "%s: loaded already: options '%s' not applied (its parameters are "
		       "sysfs[/sys/module/%s/parameters/<name>] keys)",
		       t->key, out + 2, t->aux);
		out[1] = '\0';
	}
	return 0;
}

/* unload @name if nothing uses it: 1 unloaded, 0 not there, -EBUSY in use */
static int unload(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *name)
{
	char why[256], out[64];
	int r;

	if (mod_state(ctx, name) != MOD_LOADED)
		return 0;
	if (in_use(ctx, name, why, sizeof(why)) < 0)
		return pt_err(ctx, -EBUSY, "%s: %s is in use (%s): not unloaded", t->key, name, why);
	if (pt_attr_kmod_need(ctx, t->key) < 0)
		return -EOPNOTSUPP;
	r = pt_attr_kmod(ctx, PT_KMOD_UNLOAD, name, NULL, out, sizeof(out));
	if (r < 0)
		return pt_err(ctx, r, "%s: unloading %s: %s", t->key, name, strerror(-r));
	return 1;
}

/* "0 dep ...": the module, then what its load brought in, newest first, each if unused */
static int unload_all(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value)
{
	_cleanup_free_ char *dup = strdup(value);
	char *v[64];
	int n = 0, r;

	if (!dup)
		return -ENOMEM;
	for (char *save = NULL, *tok = strtok_r(dup + 1, " ", &save); tok && n < 64;
	     tok = strtok_r(NULL, " ", &save))
		v[n++] = tok;
	r = unload(ctx, t, t->aux);
	while (r >= 0 && n-- > 0)
		if (unload(ctx, t, v[n]) == -EBUSY) {
			pt_log(ctx, PERFTUNE_LOG_INFO, "%s (left loaded: not ours alone)",
			       pt_errmsg(ctx));
			pt_err_clear(ctx);
		}
	if (r < 0)
		return r;
	return 0;
}

static int mod_write(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
		     int *hold_fd)
{
	char out[512];
	int r;

	(void)hold_fd;
	if (value[0] == '0')
		return unload_all(ctx, t, value);
	if (mod_state(ctx, t->aux) != MOD_ABSENT)
		return 0;
	r = pt_attr_kmod(ctx, PT_KMOD_LOAD, t->aux, value[1] ? value + 2 : NULL, out, sizeof(out));
	if (r == -EPERM && out[0])
		return pt_err(ctx, r,
			      "%s: modprobe.d has an install command for %s ('%s'): perftune never "
			      "runs commands; not loaded",
			      t->key, t->aux, out);
	if (r == -EPERM && !may_load_modules()) /* the module tree is visible, the load is not */
		return pt_err(ctx, r,
			      "%s: loading %s: this process may not load modules (no "
			      "CAP_SYS_MODULE: perftune@.service keeps it, see perftune(8))",
			      t->key, t->aux);
	if (r < 0)
		return pt_err(ctx, r, "%s: loading %s: %s", t->key, t->aux, strerror(-r));
	return 0;
}

/* before a load: "0 <the modules it brings in>"; before an unload: "1" */
static int mod_snapshot(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *value,
			char *buf, size_t size)
{
	char deps[PT_VAL];
	int r;

	if (value[0] == '0')
		return pt_snprintf(buf, size, "1");
	r = pt_attr_kmod(ctx, PT_KMOD_DEPS, t->aux, NULL, deps, sizeof(deps));
	if (r < 0)
		deps[0] = '\0'; /* then the module alone is ours to unload */
	return pt_snprintf(buf, size, "0%s%s", deps[0] ? " " : "", deps);
}

/* loaded or not as asked; the options and the modules brought in are not read back */
static int mod_verify(struct perftune_ctx *ctx, const struct pt_tunable *t, const char *want,
		      const char *got)
{
	if (want[0] != got[0])
		return pt_err(ctx, -EIO, "%s: %s is %s", t->key, t->aux,
			      got[0] == '1' ? "still loaded" : "not loaded");
	if (strcmp(want, got))
		return 1;
	return 0;
}

static int mod_describe(struct perftune_ctx *ctx, const struct pt_tunable *t,
			struct perftune_desc *d)
{
	char why[256];
	int st = mod_state(ctx, t->aux);

	pt_desc_set_value(d, st == MOD_ABSENT ? "0" : "1");
	pt_desc_set_choices(d, "0 1");
	pt_desc_set_writable(d, st != MOD_BUILTIN,
			     st == MOD_BUILTIN ? "built into the kernel" : NULL);
	if (st == MOD_LOADED) {
		in_use(ctx, t->aux, why, sizeof(why));
		pt_desc_add_info(d, "%s", why);
	}
	pt_desc_add_info(d,
			 "1 loads it through libkmod (its dependencies and modprobe.d options; "
			 "'1 name=value ...' adds options); restore unloads what was loaded, if "
			 "nothing uses it; parameters: sysfs[/sys/module/%s/parameters/<name>]",
			 t->aux);
	return 0;
}

const struct pt_family pt_module_family = {
	.name = "module",
	.resolve = mod_resolve,
	.list = mod_list,
	.read = mod_read,
	.validate = mod_validate,
	.write = mod_write,
	.describe = mod_describe,
	.flags = PT_FAM_SNAPSHOT,
	.snapshot = mod_snapshot,
	.verify = mod_verify,
};
