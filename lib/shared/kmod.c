// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel modules through libkmod: find, load (modprobe's dependency and
 * modprobe.d handling, never its install commands: nothing is executed),
 * unload one module, and the modules a load would bring in.  attr.c calls
 * these on the host; the unit tier swaps them for a table.  libkmod (and the
 * libcrypto, liblzma and libzstd it links) is opened on the first call.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "perftune.h"
#include "shared/dlopen.h"
#include "shared/kmod.h"

static void quiet(void *data, int priority, const char *file, int line, const char *fn,
		  const char *format, va_list args)
{
	(void)data, (void)priority, (void)file, (void)line, (void)fn, (void)format, (void)args;
}

/* the modules @mod needs that are not loaded now, space-separated, in load order */
static int deps(struct kmod_module *mod, char *out, size_t size)
{
	struct kmod_list *l = pt_libkmod.kmod_module_get_dependencies(mod), *i;
	size_t o = 0;
	int r = 0;

	out[0] = '\0';
	/* kmod_list_foreach_reverse(), through the table */
	for (i = pt_libkmod.kmod_list_last(l); i; i = pt_libkmod.kmod_list_prev(l, i)) {
		struct kmod_module *d = pt_libkmod.kmod_module_get_module(i);
		int st = pt_libkmod.kmod_module_get_initstate(d);
		if (st < 0 && r >= 0) { /* not loaded, not built in */
			int n = snprintf(out + o, size - o, "%s%s", o ? " " : "",
					 pt_libkmod.kmod_module_get_name(d));
			if (n < 0 || (size_t)n >= size - o)
				r = -E2BIG;
			else
				o += (size_t)n;
		}
		pt_libkmod.kmod_module_unref(d);
	}
	pt_libkmod.kmod_module_unref_list(l);
	return r;
}

static int run(struct kmod_ctx *k, int op, const char *name, const char *options, char *out,
	       size_t size)
{
	struct kmod_module *mod = NULL;
	const char *cmd;
	int r = pt_libkmod.kmod_module_new_from_name(k, name, &mod);

	if (r < 0)
		return r;
	switch (op) {
	case PT_KMOD_FIND: /* in modules.dep, or built in */
		if (pt_libkmod.kmod_module_get_path(mod))
			r = 0;
		else if (pt_libkmod.kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN)
			r = 1;
		else
			r = -ENOENT;
		break;
	case PT_KMOD_DEPS:
		r = deps(mod, out, size);
		break;
	case PT_KMOD_LOAD:
		cmd = pt_libkmod.kmod_module_get_install_commands(mod);
		if (cmd) {
			snprintf(out, size, "%s", cmd);
			r = -EPERM;
			break;
		}
		r = pt_libkmod.kmod_module_probe_insert_module(mod, KMOD_PROBE_IGNORE_COMMAND,
							       options, NULL, NULL, NULL);
		if (r > 0)
			r = -EPERM; /* a blacklist */
		break;
	default:
		r = pt_libkmod.kmod_module_remove_module(mod, 0);
	}
	pt_libkmod.kmod_module_unref(mod);
	return r;
}

int pt_kmod_need(struct perftune_ctx *ctx, const char *key)
{
	return pt_dl_need(ctx, PT_DL_KMOD, key);
}

int pt_kmod_real(int op, const char *name, const char *options, char *out, size_t size)
{
	struct kmod_ctx *k;
	int r = pt_dl_load(PT_DL_KMOD); /* module.c named the key with pt_attr_kmod_need() */

	if (r < 0)
		return r;
	k = pt_libkmod.kmod_new(NULL, NULL);
	if (!k)
		return -ENOMEM;
	pt_libkmod.kmod_set_log_fn(k, quiet, NULL); /* the library never prints */
	if (pt_libkmod.kmod_load_resources(k) < 0 && op != PT_KMOD_UNLOAD)
		r = -ENOENT; /* no modules.dep for this kernel (a container's /lib/modules) */
	else
		r = run(k, op, name, options, out, size);
	pt_libkmod.kmod_unref(k);
	return r;
}
