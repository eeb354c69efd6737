// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Optional libraries opened on first use (dlopen.h).  Linked, libkmod alone
 * brings libcrypto, liblzma and libzstd: the loader mapped and relocated them
 * at every start of the CLI, for module keys only.  Each library is opened by
 * the SONAME the build read off a program linked with it (dl-soname.py), with
 * RTLD_NOW (a missing function fails here, not at its first call) and
 * RTLD_NODELETE (the tables stay valid: nothing closes it); a library
 * refused once stays refused.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include "perftune.h"
#include "macro.h"
#include "shared/dl-sonames.h"
#include "shared/dlopen.h"
#include "core/log.h"

struct pt_libudev pt_libudev;
struct pt_libkmod pt_libkmod;
struct pt_libpcre2 pt_libpcre2;
struct pt_libmnl pt_libmnl;
struct pt_libnuma pt_libnuma;
struct pt_libselinux pt_libselinux;
#if HAVE_CPUPOWER
struct pt_libcpupower pt_libcpupower;
#endif

/* a symbol's name, and where its address goes (POSIX's way to store a dlsym() result) */
struct sym {
	const char *name;
	void **addr;
};

static const struct sym udev_syms[] = {
	{ "udev_new", (void **)&pt_libudev.udev_new },
	{ "udev_unref", (void **)&pt_libudev.udev_unref },
	{ "udev_device_new_from_subsystem_sysname",
	  (void **)&pt_libudev.udev_device_new_from_subsystem_sysname },
	{ "udev_device_new_from_devnum", (void **)&pt_libudev.udev_device_new_from_devnum },
	{ "udev_device_unref", (void **)&pt_libudev.udev_device_unref },
	{ "udev_device_get_devtype", (void **)&pt_libudev.udev_device_get_devtype },
	{ "udev_device_get_parent_with_subsystem_devtype",
	  (void **)&pt_libudev.udev_device_get_parent_with_subsystem_devtype },
	{ "udev_device_get_sysname", (void **)&pt_libudev.udev_device_get_sysname },
	{ "udev_device_get_property_value", (void **)&pt_libudev.udev_device_get_property_value },
	{ "udev_device_get_properties_list_entry",
	  (void **)&pt_libudev.udev_device_get_properties_list_entry },
	{ "udev_list_entry_get_next", (void **)&pt_libudev.udev_list_entry_get_next },
	{ "udev_list_entry_get_name", (void **)&pt_libudev.udev_list_entry_get_name },
	{ "udev_list_entry_get_value", (void **)&pt_libudev.udev_list_entry_get_value },
	{ "udev_monitor_new_from_netlink", (void **)&pt_libudev.udev_monitor_new_from_netlink },
	{ "udev_monitor_filter_add_match_subsystem_devtype",
	  (void **)&pt_libudev.udev_monitor_filter_add_match_subsystem_devtype },
	{ "udev_monitor_enable_receiving", (void **)&pt_libudev.udev_monitor_enable_receiving },
	{ "udev_monitor_get_fd", (void **)&pt_libudev.udev_monitor_get_fd },
	{ "udev_monitor_receive_device", (void **)&pt_libudev.udev_monitor_receive_device },
	{ "udev_monitor_unref", (void **)&pt_libudev.udev_monitor_unref },
	{ "udev_device_get_action", (void **)&pt_libudev.udev_device_get_action },
	{ "udev_device_get_subsystem", (void **)&pt_libudev.udev_device_get_subsystem },
};

static const struct sym kmod_syms[] = {
	{ "kmod_new", (void **)&pt_libkmod.kmod_new },
	{ "kmod_unref", (void **)&pt_libkmod.kmod_unref },
	{ "kmod_set_log_fn", (void **)&pt_libkmod.kmod_set_log_fn },
	{ "kmod_load_resources", (void **)&pt_libkmod.kmod_load_resources },
	{ "kmod_list_last", (void **)&pt_libkmod.kmod_list_last },
	{ "kmod_list_prev", (void **)&pt_libkmod.kmod_list_prev },
	{ "kmod_module_new_from_name", (void **)&pt_libkmod.kmod_module_new_from_name },
	{ "kmod_module_unref", (void **)&pt_libkmod.kmod_module_unref },
	{ "kmod_module_unref_list", (void **)&pt_libkmod.kmod_module_unref_list },
	{ "kmod_module_get_module", (void **)&pt_libkmod.kmod_module_get_module },
	{ "kmod_module_get_dependencies", (void **)&pt_libkmod.kmod_module_get_dependencies },
	{ "kmod_module_get_name", (void **)&pt_libkmod.kmod_module_get_name },
	{ "kmod_module_get_path", (void **)&pt_libkmod.kmod_module_get_path },
	{ "kmod_module_get_initstate", (void **)&pt_libkmod.kmod_module_get_initstate },
	{ "kmod_module_get_install_commands",
	  (void **)&pt_libkmod.kmod_module_get_install_commands },
	{ "kmod_module_probe_insert_module", (void **)&pt_libkmod.kmod_module_probe_insert_module },
	{ "kmod_module_remove_module", (void **)&pt_libkmod.kmod_module_remove_module },
};

/* the names the library exports: pcre2.h's macros add the code unit width */
static const struct sym pcre2_syms[] = {
	{ "pcre2_compile_8", (void **)&pt_libpcre2.pcre2_compile },
	{ "pcre2_code_free_8", (void **)&pt_libpcre2.pcre2_code_free },
	{ "pcre2_get_error_message_8", (void **)&pt_libpcre2.pcre2_get_error_message },
	{ "pcre2_match_context_create_8", (void **)&pt_libpcre2.pcre2_match_context_create },
	{ "pcre2_match_context_free_8", (void **)&pt_libpcre2.pcre2_match_context_free },
	{ "pcre2_set_match_limit_8", (void **)&pt_libpcre2.pcre2_set_match_limit },
	{ "pcre2_match_8", (void **)&pt_libpcre2.pcre2_match },
	{ "pcre2_match_data_create_from_pattern_8",
	  (void **)&pt_libpcre2.pcre2_match_data_create_from_pattern },
	{ "pcre2_match_data_free_8", (void **)&pt_libpcre2.pcre2_match_data_free },
	{ "pcre2_get_ovector_pointer_8", (void **)&pt_libpcre2.pcre2_get_ovector_pointer },
	{ "pcre2_general_context_create_8", (void **)&pt_libpcre2.pcre2_general_context_create },
	{ "pcre2_general_context_free_8", (void **)&pt_libpcre2.pcre2_general_context_free },
	{ "pcre2_compile_context_create_8", (void **)&pt_libpcre2.pcre2_compile_context_create },
	{ "pcre2_compile_context_free_8", (void **)&pt_libpcre2.pcre2_compile_context_free },
	{ "pcre2_set_max_pattern_length_8", (void **)&pt_libpcre2.pcre2_set_max_pattern_length },
	{ "pcre2_set_parens_nest_limit_8", (void **)&pt_libpcre2.pcre2_set_parens_nest_limit },
	{ "pcre2_set_heap_limit_8", (void **)&pt_libpcre2.pcre2_set_heap_limit },
};

/*
 * PCRE2 10.34 (RHEL 9, Debian 11): proc[<regex>] selectors' POSIX syntax; RHEL 8's
 * 10.32 has them not (NULL then), and shared/ere.c converts as they do
 */
static const struct sym pcre2_optional[] = {
	{ "pcre2_pattern_convert_8", (void **)&pt_libpcre2.pcre2_pattern_convert },
	{ "pcre2_converted_pattern_free_8", (void **)&pt_libpcre2.pcre2_converted_pattern_free },
};

static const struct sym mnl_syms[] = {
	{ "mnl_socket_open2", (void **)&pt_libmnl.mnl_socket_open2 },
	{ "mnl_socket_close", (void **)&pt_libmnl.mnl_socket_close },
	{ "mnl_socket_setsockopt", (void **)&pt_libmnl.mnl_socket_setsockopt },
	{ "mnl_socket_bind", (void **)&pt_libmnl.mnl_socket_bind },
	{ "mnl_socket_sendto", (void **)&pt_libmnl.mnl_socket_sendto },
	{ "mnl_socket_recvfrom", (void **)&pt_libmnl.mnl_socket_recvfrom },
	{ "mnl_socket_get_portid", (void **)&pt_libmnl.mnl_socket_get_portid },
	{ "mnl_cb_run2", (void **)&pt_libmnl.mnl_cb_run2 },
	{ "mnl_nlmsg_put_header", (void **)&pt_libmnl.mnl_nlmsg_put_header },
	{ "mnl_nlmsg_put_extra_header", (void **)&pt_libmnl.mnl_nlmsg_put_extra_header },
	{ "mnl_nlmsg_get_payload", (void **)&pt_libmnl.mnl_nlmsg_get_payload },
	{ "mnl_nlmsg_get_payload_len", (void **)&pt_libmnl.mnl_nlmsg_get_payload_len },
	{ "mnl_nlmsg_size", (void **)&pt_libmnl.mnl_nlmsg_size },
	{ "mnl_attr_ok", (void **)&pt_libmnl.mnl_attr_ok },
	{ "mnl_attr_next", (void **)&pt_libmnl.mnl_attr_next },
	{ "mnl_attr_get_type", (void **)&pt_libmnl.mnl_attr_get_type },
	{ "mnl_attr_validate", (void **)&pt_libmnl.mnl_attr_validate },
	{ "mnl_attr_parse", (void **)&pt_libmnl.mnl_attr_parse },
	{ "mnl_attr_parse_nested", (void **)&pt_libmnl.mnl_attr_parse_nested },
	{ "mnl_attr_get_u8", (void **)&pt_libmnl.mnl_attr_get_u8 },
	{ "mnl_attr_get_u16", (void **)&pt_libmnl.mnl_attr_get_u16 },
	{ "mnl_attr_get_u32", (void **)&pt_libmnl.mnl_attr_get_u32 },
	{ "mnl_attr_get_str", (void **)&pt_libmnl.mnl_attr_get_str },
	{ "mnl_attr_put", (void **)&pt_libmnl.mnl_attr_put },
	{ "mnl_attr_put_u8", (void **)&pt_libmnl.mnl_attr_put_u8 },
	{ "mnl_attr_put_u32", (void **)&pt_libmnl.mnl_attr_put_u32 },
	{ "mnl_attr_put_strz", (void **)&pt_libmnl.mnl_attr_put_strz },
	{ "mnl_attr_nest_start", (void **)&pt_libmnl.mnl_attr_nest_start },
	{ "mnl_attr_nest_end", (void **)&pt_libmnl.mnl_attr_nest_end },
};

static const struct sym numa_syms[] = {
	{ "numa_all_nodes_ptr", (void **)&pt_libnuma.numa_all_nodes_ptr },
	{ "numa_available", (void **)&pt_libnuma.numa_available },
	{ "numa_max_node", (void **)&pt_libnuma.numa_max_node },
	{ "numa_node_size64", (void **)&pt_libnuma.numa_node_size64 },
	{ "numa_node_to_cpus", (void **)&pt_libnuma.numa_node_to_cpus },
	{ "numa_allocate_cpumask", (void **)&pt_libnuma.numa_allocate_cpumask },
	{ "numa_allocate_nodemask", (void **)&pt_libnuma.numa_allocate_nodemask },
	{ "numa_bitmask_free", (void **)&pt_libnuma.numa_bitmask_free },
	{ "numa_bitmask_isbitset", (void **)&pt_libnuma.numa_bitmask_isbitset },
	{ "numa_bitmask_setbit", (void **)&pt_libnuma.numa_bitmask_setbit },
	{ "numa_bitmask_clearall", (void **)&pt_libnuma.numa_bitmask_clearall },
	{ "numa_bitmask_weight", (void **)&pt_libnuma.numa_bitmask_weight },
	{ "numa_parse_nodestring", (void **)&pt_libnuma.numa_parse_nodestring },
	{ "numa_parse_cpustring_all", (void **)&pt_libnuma.numa_parse_cpustring_all },
	{ "numa_sched_getaffinity", (void **)&pt_libnuma.numa_sched_getaffinity },
	{ "numa_sched_setaffinity", (void **)&pt_libnuma.numa_sched_setaffinity },
	{ "numa_migrate_pages", (void **)&pt_libnuma.numa_migrate_pages },
	{ "numa_run_on_node_mask", (void **)&pt_libnuma.numa_run_on_node_mask },
	{ "numa_set_membind", (void **)&pt_libnuma.numa_set_membind },
	{ "numa_set_preferred", (void **)&pt_libnuma.numa_set_preferred },
	{ "numa_set_interleave_mask", (void **)&pt_libnuma.numa_set_interleave_mask },
	{ "numa_set_localalloc", (void **)&pt_libnuma.numa_set_localalloc },
};

static const struct sym selinux_syms[] = {
	{ "selinux_mnt", (void **)&pt_libselinux.selinux_mnt },
	{ "is_selinux_enabled", (void **)&pt_libselinux.is_selinux_enabled },
};

#if HAVE_CPUPOWER
static const struct sym cpupower_syms[] = {
	{ "cpufreq_get_policy", (void **)&pt_libcpupower.cpufreq_get_policy },
	{ "cpufreq_put_policy", (void **)&pt_libcpupower.cpufreq_put_policy },
	{ "cpufreq_get_hardware_limits", (void **)&pt_libcpupower.cpufreq_get_hardware_limits },
	{ "cpuidle_state_name", (void **)&pt_libcpupower.cpuidle_state_name },
};
#endif

struct lib {
	const char *soname, *needed_for;
	const struct sym *syms;
	size_t n;
	const struct sym *opt; /* NULL where the library is too old to have them */
	size_t nopt;
	int state;   /* 0 not tried yet, 1 loaded, -EOPNOTSUPP refused (read atomically) */
	bool hidden; /* pt_dl_hide() */
	char why[128], dlerror[256];
};

static struct lib libs[PT_DL_COUNT] = {
	[PT_DL_UDEV] = { .soname = PT_SONAME_UDEV,
			 .needed_for = "device paths, partitions and udev properties",
			 .syms = udev_syms,
			 .n = ARRAY_SIZE(udev_syms) },
	[PT_DL_KMOD] = { .soname = PT_SONAME_KMOD,
			 .needed_for = "module keys",
			 .syms = kmod_syms,
			 .n = ARRAY_SIZE(kmod_syms) },
	[PT_DL_PCRE2] = { .soname = PT_SONAME_PCRE2,
			  .needed_for = "profile regexes",
			  .syms = pcre2_syms,
			  .n = ARRAY_SIZE(pcre2_syms),
			  .opt = pcre2_optional,
			  .nopt = ARRAY_SIZE(pcre2_optional) },
	[PT_DL_MNL] = { .soname = PT_SONAME_MNL,
			.needed_for = "ethtool keys over netlink",
			.syms = mnl_syms,
			.n = ARRAY_SIZE(mnl_syms) },
	[PT_DL_NUMA] = { .soname = PT_SONAME_NUMA,
			 .needed_for = "NUMA placement",
			 .syms = numa_syms,
			 .n = ARRAY_SIZE(numa_syms) },
	[PT_DL_SELINUX] = { .soname = PT_SONAME_SELINUX,
			    .needed_for = "selinux keys",
			    .syms = selinux_syms,
			    .n = ARRAY_SIZE(selinux_syms) },
#if HAVE_CPUPOWER
	[PT_DL_CPUPOWER] = { .soname = PT_SONAME_CPUPOWER,
			     .needed_for = "cpufreq facts",
			     .syms = cpupower_syms,
			     .n = ARRAY_SIZE(cpupower_syms) },
#else /* built without it: never there */
	[PT_DL_CPUPOWER] = { .soname = "libcpupower",
			     .needed_for = "cpufreq facts",
			     .state = -EOPNOTSUPP },
#endif
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1, or -EOPNOTSUPP with the reason in l->why */
static int open_lib(struct lib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_NODELETE);

	if (!h) {
		snprintf(l->why, sizeof(l->why), "is not installed");
		snprintf(l->dlerror, sizeof(l->dlerror), "%s", dlerror());
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < l->n; i++) {
		*l->syms[i].addr = dlsym(h, l->syms[i].name);
		if (!*l->syms[i].addr) {
			snprintf(l->why, sizeof(l->why), "has no %s (too old)", l->syms[i].name);
			dlclose(h); /* NODELETE: stays mapped, harmless */
			return -EOPNOTSUPP;
		}
	}
	for (size_t i = 0; i < l->nopt; i++)
		*l->opt[i].addr = dlsym(h, l->opt[i].name);
	return 1;
}

int pt_dl_load(enum pt_dl_lib lib)
{
	struct lib *l = &libs[lib];
	int st;

	if (__atomic_load_n(&l->hidden, __ATOMIC_RELAXED))
		return -EOPNOTSUPP;
	st = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
	if (st == 0) { /* first use: one thread opens it, the others wait for its result */
		pthread_mutex_lock(&load_lock);
		st = l->state;
		if (st == 0) {
			st = open_lib(l);
			__atomic_store_n(&l->state, st, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&load_lock);
	}
	if (st > 0)
		return 0;
	return st;
}

int pt_dl_need(struct perftune_ctx *ctx, enum pt_dl_lib lib, const char *key)
{
	const struct lib *l = &libs[lib];

	if (pt_dl_load(lib) == 0)
		return 0;
	if (l->dlerror[0]) /* not found, or a file that is not a library: said at -vv */
		pt_log(ctx, PERFTUNE_LOG_DEBUG, "dlopen %s: %s", l->soname, l->dlerror);
	return pt_err(ctx, -EOPNOTSUPP, "%s: %s %s (needed for %s)", key, l->soname,
		      l->why[0] && !l->hidden ? l->why : "is not installed", l->needed_for);
}

const char *pt_dl_soname(enum pt_dl_lib lib)
{
	return libs[lib].soname;
}

void pt_dl_hide(enum pt_dl_lib lib)
{
	__atomic_store_n(&libs[lib].hidden, true, __ATOMIC_RELAXED);
}

void pt_dl_hide_optional(enum pt_dl_lib lib)
{
	const struct lib *l = &libs[lib];

	if (pt_dl_load(lib) < 0)
		return;
	for (size_t i = 0; i < l->nopt; i++)
		*l->opt[i].addr = NULL;
}
