// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel modules through libkmod: find, load (modprobe's dependency and
 * modprobe.d handling, never its install commands: nothing is executed),
 * unload one module, and the modules a load would bring in.  attr.c calls
 * these on the host; the unit tier swaps them for a table.
 */
#include <errno.h>
#include <libkmod.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

static void quiet(void *data, int priority, const char *file, int line, const char *fn,
		  const char *format, va_list args)
{
	(void)data, (void)priority, (void)file, (void)line, (void)fn, (void)format, (void)args;
}

/* the modules @mod needs that are not loaded now, space-separated, in load order */
static int deps(struct kmod_module *mod, char *out, size_t size)
{
	struct kmod_list *l = kmod_module_get_dependencies(mod), *i;
	size_t o = 0;
	int r = 0;

	out[0] = '\0';
	kmod_list_foreach_reverse(i, l)
	{
		struct kmod_module *d = kmod_module_get_module(i);
		int st = kmod_module_get_initstate(d);
		if (st < 0 && r >= 0) { /* not loaded, not built in */
			int n = snprintf(out + o, size - o, "%s%s", o ? " " : "",
					 kmod_module_get_name(d));
			r = n < 0 || (size_t)n >= size - o ? -E2BIG : 0;
			o += r < 0 ? 0 : (size_t)n;
		}
		kmod_module_unref(d);
	}
	kmod_module_unref_list(l);
	return r;
}

static int run(struct kmod_ctx *k, int op, const char *name, const char *options, char *out,
	       size_t size)
{
	struct kmod_module *mod = NULL;
	const char *cmd;
	int r = kmod_module_new_from_name(k, name, &mod);

	if (r < 0)
		return r;
	switch (op) {
	case PT_KMOD_FIND: /* in modules.dep, or built in */
		r = kmod_module_get_path(mod)				    ? 0
		    : kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN ? 1
									    : -ENOENT;
		break;
	case PT_KMOD_DEPS:
		r = deps(mod, out, size);
		break;
	case PT_KMOD_LOAD:
		cmd = kmod_module_get_install_commands(mod);
		if (cmd) {
			snprintf(out, size, "%s", cmd);
			r = -EPERM;
			break;
		}
		r = kmod_module_probe_insert_module(mod, KMOD_PROBE_IGNORE_COMMAND, options, NULL,
						    NULL, NULL);
		r = r > 0 ? -EPERM : r; /* a blacklist */
		break;
	default:
		r = kmod_module_remove_module(mod, 0);
	}
	kmod_module_unref(mod);
	return r;
}

int pt_kmod_real(int op, const char *name, const char *options, char *out, size_t size)
{
	struct kmod_ctx *k = kmod_new(NULL, NULL);
	int r;

	if (!k)
		return -ENOMEM;
	kmod_set_log_fn(k, quiet, NULL); /* the library never prints */
	if (kmod_load_resources(k) < 0 && op != PT_KMOD_UNLOAD)
		r = -ENOENT; /* no modules.dep for this kernel (a container's /lib/modules) */
	else
		r = run(k, op, name, options, out, size);
	kmod_unref(k);
	return r;
}
