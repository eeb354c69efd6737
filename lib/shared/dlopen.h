/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The libraries that only some keys need, opened with dlopen() on first use
 * (as systemd opens libkmod and pcre2): `get` or `set` of a sysctl maps none
 * of them.  Each has a table of the functions the library calls, named as the
 * library names them: pt_libkmod.kmod_new(...) where the code once called
 * kmod_new(...).  A table may be used only after pt_dl_load() or
 * pt_dl_need() of its library returned 0.
 */
#ifndef PERFTUNE_DLOPEN_H
#define PERFTUNE_DLOPEN_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <libkmod.h>
#include <libmnl/libmnl.h>
#include <libudev.h>
#include <numa.h>
#include <pcre2.h>
#include <selinux/selinux.h>
#if HAVE_CPUPOWER
#include <cpufreq.h>
#include <cpuidle.h>
#endif

struct perftune_ctx;

enum pt_dl_lib {
	PT_DL_UDEV,	/* block devices by node or number, profile and why matching */
	PT_DL_KMOD,	/* module keys */
	PT_DL_PCRE2,	/* profile regexes */
	PT_DL_MNL,	/* net keys over ethtool netlink */
	PT_DL_NUMA,	/* proc.<pid>.numa_nodes, perftune_numa_place_self(), node facts */
	PT_DL_SELINUX,	/* selinux keys: where selinuxfs is */
	PT_DL_CPUPOWER, /* cpufreq and cpuidle facts (sysfs without it) */
	PT_DL_COUNT,
};

/*
 * Open @lib by its SONAME (found at build time, shared/dl-soname.py) and
 * resolve its table, once per process and thread-safe: 0, or -EOPNOTSUPP
 * when it is not installed or lacks a function (then every later call says
 * the same, and the table is not to be used).
 */
int pt_dl_load(enum pt_dl_lib lib);
/*
 * pt_dl_load(), and when it fails the context's error
 * "<key>: libkmod.so.2 is not installed (needed for module keys)": -EOPNOTSUPP.
 */
int pt_dl_need(struct perftune_ctx *ctx, enum pt_dl_lib lib, const char *key);
const char *pt_dl_soname(enum pt_dl_lib lib); /* "libkmod.so.2" */
/* the unit tier: @lib answers from now on as if it were not installed */
void pt_dl_hide(enum pt_dl_lib lib);

struct pt_libudev {
	typeof(udev_new) *udev_new;
	typeof(udev_unref) *udev_unref;
	typeof(udev_device_new_from_subsystem_sysname) *udev_device_new_from_subsystem_sysname;
	typeof(udev_device_new_from_devnum) *udev_device_new_from_devnum;
	typeof(udev_device_unref) *udev_device_unref;
	typeof(udev_device_get_devtype) *udev_device_get_devtype;
	typeof(udev_device_get_parent_with_subsystem_devtype)
		*udev_device_get_parent_with_subsystem_devtype;
	typeof(udev_device_get_sysname) *udev_device_get_sysname;
	typeof(udev_device_get_property_value) *udev_device_get_property_value;
	typeof(udev_device_get_properties_list_entry) *udev_device_get_properties_list_entry;
	typeof(udev_list_entry_get_next) *udev_list_entry_get_next;
	typeof(udev_list_entry_get_name) *udev_list_entry_get_name;
	typeof(udev_list_entry_get_value) *udev_list_entry_get_value;
};
extern struct pt_libudev pt_libudev;

struct pt_libkmod {
	typeof(kmod_new) *kmod_new;
	typeof(kmod_unref) *kmod_unref;
	typeof(kmod_set_log_fn) *kmod_set_log_fn;
	typeof(kmod_load_resources) *kmod_load_resources;
	typeof(kmod_list_last) *kmod_list_last;
	typeof(kmod_list_prev) *kmod_list_prev;
	typeof(kmod_module_new_from_name) *kmod_module_new_from_name;
	typeof(kmod_module_unref) *kmod_module_unref;
	typeof(kmod_module_unref_list) *kmod_module_unref_list;
	typeof(kmod_module_get_module) *kmod_module_get_module;
	typeof(kmod_module_get_dependencies) *kmod_module_get_dependencies;
	typeof(kmod_module_get_name) *kmod_module_get_name;
	typeof(kmod_module_get_path) *kmod_module_get_path;
	typeof(kmod_module_get_initstate) *kmod_module_get_initstate;
	typeof(kmod_module_get_install_commands) *kmod_module_get_install_commands;
	typeof(kmod_module_probe_insert_module) *kmod_module_probe_insert_module;
	typeof(kmod_module_remove_module) *kmod_module_remove_module;
};
extern struct pt_libkmod pt_libkmod;

/* the 8-bit library: pcre2.h names these pcre2_compile_8 and so on */
struct pt_libpcre2 {
	typeof(pcre2_compile) *pcre2_compile;
	typeof(pcre2_code_free) *pcre2_code_free;
	typeof(pcre2_get_error_message) *pcre2_get_error_message;
	typeof(pcre2_match_context_create) *pcre2_match_context_create;
	typeof(pcre2_match_context_free) *pcre2_match_context_free;
	typeof(pcre2_set_match_limit) *pcre2_set_match_limit;
	typeof(pcre2_match) *pcre2_match;
	typeof(pcre2_match_data_create_from_pattern) *pcre2_match_data_create_from_pattern;
	typeof(pcre2_match_data_free) *pcre2_match_data_free;
	typeof(pcre2_get_ovector_pointer) *pcre2_get_ovector_pointer;
};
extern struct pt_libpcre2 pt_libpcre2;

struct pt_libmnl {
	typeof(mnl_socket_open2) *mnl_socket_open2;
	typeof(mnl_socket_close) *mnl_socket_close;
	typeof(mnl_socket_setsockopt) *mnl_socket_setsockopt;
	typeof(mnl_socket_bind) *mnl_socket_bind;
	typeof(mnl_socket_sendto) *mnl_socket_sendto;
	typeof(mnl_socket_recvfrom) *mnl_socket_recvfrom;
	typeof(mnl_socket_get_portid) *mnl_socket_get_portid;
	typeof(mnl_cb_run2) *mnl_cb_run2;
	typeof(mnl_nlmsg_put_header) *mnl_nlmsg_put_header;
	typeof(mnl_nlmsg_put_extra_header) *mnl_nlmsg_put_extra_header;
	typeof(mnl_nlmsg_get_payload) *mnl_nlmsg_get_payload;
	typeof(mnl_nlmsg_get_payload_len) *mnl_nlmsg_get_payload_len;
	typeof(mnl_nlmsg_size) *mnl_nlmsg_size;
	typeof(mnl_attr_ok) *mnl_attr_ok;
	typeof(mnl_attr_next) *mnl_attr_next;
	typeof(mnl_attr_get_type) *mnl_attr_get_type;
	typeof(mnl_attr_validate) *mnl_attr_validate;
	typeof(mnl_attr_parse) *mnl_attr_parse;
	typeof(mnl_attr_parse_nested) *mnl_attr_parse_nested;
	typeof(mnl_attr_get_u8) *mnl_attr_get_u8;
	typeof(mnl_attr_get_u16) *mnl_attr_get_u16;
	typeof(mnl_attr_get_u32) *mnl_attr_get_u32;
	typeof(mnl_attr_get_str) *mnl_attr_get_str;
	typeof(mnl_attr_put) *mnl_attr_put;
	typeof(mnl_attr_put_u8) *mnl_attr_put_u8;
	typeof(mnl_attr_put_u32) *mnl_attr_put_u32;
	typeof(mnl_attr_put_strz) *mnl_attr_put_strz;
	typeof(mnl_attr_nest_start) *mnl_attr_nest_start;
	typeof(mnl_attr_nest_end) *mnl_attr_nest_end;
};
extern struct pt_libmnl pt_libmnl;

struct pt_libnuma {
	struct bitmask **numa_all_nodes_ptr; /* a variable: the address of libnuma's */
	typeof(numa_available) *numa_available;
	typeof(numa_max_node) *numa_max_node;
	typeof(numa_node_size64) *numa_node_size64;
	typeof(numa_node_to_cpus) *numa_node_to_cpus;
	typeof(numa_allocate_cpumask) *numa_allocate_cpumask;
	typeof(numa_allocate_nodemask) *numa_allocate_nodemask;
	typeof(numa_bitmask_free) *numa_bitmask_free; /* numa_free_cpumask() inlines it */
	typeof(numa_bitmask_isbitset) *numa_bitmask_isbitset;
	typeof(numa_bitmask_setbit) *numa_bitmask_setbit;
	typeof(numa_bitmask_clearall) *numa_bitmask_clearall;
	typeof(numa_bitmask_weight) *numa_bitmask_weight;
	typeof(numa_parse_nodestring) *numa_parse_nodestring;
	typeof(numa_parse_cpustring_all) *numa_parse_cpustring_all;
	typeof(numa_sched_getaffinity) *numa_sched_getaffinity;
	typeof(numa_sched_setaffinity) *numa_sched_setaffinity;
	typeof(numa_migrate_pages) *numa_migrate_pages;
	typeof(numa_run_on_node_mask) *numa_run_on_node_mask;
	typeof(numa_set_membind) *numa_set_membind;
	typeof(numa_set_preferred) *numa_set_preferred;
	typeof(numa_set_interleave_mask) *numa_set_interleave_mask;
	typeof(numa_set_localalloc) *numa_set_localalloc;
};
extern struct pt_libnuma pt_libnuma;

struct pt_libselinux {
	char **selinux_mnt; /* a variable, set when selinuxfs is mounted (not in selinux.h) */
	typeof(is_selinux_enabled) *is_selinux_enabled;
};
extern struct pt_libselinux pt_libselinux;

#if HAVE_CPUPOWER
struct pt_libcpupower {
	typeof(cpufreq_get_policy) *cpufreq_get_policy;
	typeof(cpufreq_put_policy) *cpufreq_put_policy;
	typeof(cpufreq_get_hardware_limits) *cpufreq_get_hardware_limits;
	typeof(cpuidle_state_name) *cpuidle_state_name;
};
extern struct pt_libcpupower pt_libcpupower;
#endif

#endif
