/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The libraries that only some keys need, opened with dlopen() on first use
 * (as systemd opens libkmod and pcre2): `get` or `set` of a sysctl maps none
 * of them.  Each has a table of the functions the library calls, named as the
 * library names them: pt_libkmod.kmod_new(...) where the code once called
 * kmod_new(...), and typed by the library's own declaration (__typeof__:
 * the spelling that clang's -pedantic takes without a warning).  A table
 * may be used only after pt_dl_load() or pt_dl_need() of its library
 * returned 0.
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
/* the unit tier: @lib is loaded, its optional functions NULL from now on, as a version too
 * old to have them leaves them (not thread-safe: before any other use of its table) */
void pt_dl_hide_optional(enum pt_dl_lib lib);

struct pt_libudev {
	__typeof__(udev_new) *udev_new;
	__typeof__(udev_unref) *udev_unref;
	__typeof__(udev_device_new_from_subsystem_sysname) *udev_device_new_from_subsystem_sysname;
	__typeof__(udev_device_new_from_devnum) *udev_device_new_from_devnum;
	__typeof__(udev_device_unref) *udev_device_unref;
	__typeof__(udev_device_get_devtype) *udev_device_get_devtype;
	__typeof__(udev_device_get_parent_with_subsystem_devtype)
		*udev_device_get_parent_with_subsystem_devtype;
	__typeof__(udev_device_get_sysname) *udev_device_get_sysname;
	__typeof__(udev_device_get_property_value) *udev_device_get_property_value;
	__typeof__(udev_device_get_properties_list_entry) *udev_device_get_properties_list_entry;
	__typeof__(udev_list_entry_get_next) *udev_list_entry_get_next;
	__typeof__(udev_list_entry_get_name) *udev_list_entry_get_name;
	__typeof__(udev_list_entry_get_value) *udev_list_entry_get_value;
	/* the hotplug monitor of a held transaction (engine/uevent.c) */
	__typeof__(udev_monitor_new_from_netlink) *udev_monitor_new_from_netlink;
	__typeof__(udev_monitor_filter_add_match_subsystem_devtype)
		*udev_monitor_filter_add_match_subsystem_devtype;
	__typeof__(udev_monitor_enable_receiving) *udev_monitor_enable_receiving;
	__typeof__(udev_monitor_get_fd) *udev_monitor_get_fd;
	__typeof__(udev_monitor_receive_device) *udev_monitor_receive_device;
	__typeof__(udev_monitor_unref) *udev_monitor_unref;
	__typeof__(udev_device_get_action) *udev_device_get_action;
	__typeof__(udev_device_get_subsystem) *udev_device_get_subsystem;
};
extern struct pt_libudev pt_libudev;

struct pt_libkmod {
	__typeof__(kmod_new) *kmod_new;
	__typeof__(kmod_unref) *kmod_unref;
	__typeof__(kmod_set_log_fn) *kmod_set_log_fn;
	__typeof__(kmod_load_resources) *kmod_load_resources;
	__typeof__(kmod_list_last) *kmod_list_last;
	__typeof__(kmod_list_prev) *kmod_list_prev;
	__typeof__(kmod_module_new_from_name) *kmod_module_new_from_name;
	__typeof__(kmod_module_unref) *kmod_module_unref;
	__typeof__(kmod_module_unref_list) *kmod_module_unref_list;
	__typeof__(kmod_module_get_module) *kmod_module_get_module;
	__typeof__(kmod_module_get_dependencies) *kmod_module_get_dependencies;
	__typeof__(kmod_module_get_name) *kmod_module_get_name;
	__typeof__(kmod_module_get_path) *kmod_module_get_path;
	__typeof__(kmod_module_get_initstate) *kmod_module_get_initstate;
	__typeof__(kmod_module_get_install_commands) *kmod_module_get_install_commands;
	__typeof__(kmod_module_probe_insert_module) *kmod_module_probe_insert_module;
	__typeof__(kmod_module_remove_module) *kmod_module_remove_module;
};
extern struct pt_libkmod pt_libkmod;

/* the 8-bit library: pcre2.h names these pcre2_compile_8 and so on; the last two may be
 * NULL (before PCRE2 10.34) */
struct pt_libpcre2 {
	__typeof__(pcre2_compile) *pcre2_compile;
	__typeof__(pcre2_code_free) *pcre2_code_free;
	__typeof__(pcre2_get_error_message) *pcre2_get_error_message;
	__typeof__(pcre2_match_context_create) *pcre2_match_context_create;
	__typeof__(pcre2_match_context_free) *pcre2_match_context_free;
	__typeof__(pcre2_set_match_limit) *pcre2_set_match_limit;
	__typeof__(pcre2_match) *pcre2_match;
	__typeof__(pcre2_match_data_create_from_pattern) *pcre2_match_data_create_from_pattern;
	__typeof__(pcre2_match_data_free) *pcre2_match_data_free;
	__typeof__(pcre2_get_ovector_pointer) *pcre2_get_ovector_pointer;
	__typeof__(pcre2_general_context_create) *pcre2_general_context_create;
	__typeof__(pcre2_general_context_free) *pcre2_general_context_free;
	__typeof__(pcre2_compile_context_create) *pcre2_compile_context_create;
	__typeof__(pcre2_compile_context_free) *pcre2_compile_context_free;
	__typeof__(pcre2_set_max_pattern_length) *pcre2_set_max_pattern_length;
	__typeof__(pcre2_set_parens_nest_limit) *pcre2_set_parens_nest_limit;
	__typeof__(pcre2_set_heap_limit) *pcre2_set_heap_limit;
	__typeof__(pcre2_pattern_convert) *pcre2_pattern_convert;
	__typeof__(pcre2_converted_pattern_free) *pcre2_converted_pattern_free;
};
extern struct pt_libpcre2 pt_libpcre2;

struct pt_libmnl {
	__typeof__(mnl_socket_open2) *mnl_socket_open2;
	__typeof__(mnl_socket_close) *mnl_socket_close;
	__typeof__(mnl_socket_setsockopt) *mnl_socket_setsockopt;
	__typeof__(mnl_socket_bind) *mnl_socket_bind;
	__typeof__(mnl_socket_sendto) *mnl_socket_sendto;
	__typeof__(mnl_socket_recvfrom) *mnl_socket_recvfrom;
	__typeof__(mnl_socket_get_portid) *mnl_socket_get_portid;
	__typeof__(mnl_cb_run2) *mnl_cb_run2;
	__typeof__(mnl_nlmsg_put_header) *mnl_nlmsg_put_header;
	__typeof__(mnl_nlmsg_put_extra_header) *mnl_nlmsg_put_extra_header;
	__typeof__(mnl_nlmsg_get_payload) *mnl_nlmsg_get_payload;
	__typeof__(mnl_nlmsg_get_payload_len) *mnl_nlmsg_get_payload_len;
	__typeof__(mnl_nlmsg_size) *mnl_nlmsg_size;
	__typeof__(mnl_attr_ok) *mnl_attr_ok;
	__typeof__(mnl_attr_next) *mnl_attr_next;
	__typeof__(mnl_attr_get_type) *mnl_attr_get_type;
	__typeof__(mnl_attr_validate) *mnl_attr_validate;
	__typeof__(mnl_attr_parse) *mnl_attr_parse;
	__typeof__(mnl_attr_parse_nested) *mnl_attr_parse_nested;
	__typeof__(mnl_attr_get_u8) *mnl_attr_get_u8;
	__typeof__(mnl_attr_get_u16) *mnl_attr_get_u16;
	__typeof__(mnl_attr_get_u32) *mnl_attr_get_u32;
	__typeof__(mnl_attr_get_str) *mnl_attr_get_str;
	__typeof__(mnl_attr_put) *mnl_attr_put;
	__typeof__(mnl_attr_put_u8) *mnl_attr_put_u8;
	__typeof__(mnl_attr_put_u32) *mnl_attr_put_u32;
	__typeof__(mnl_attr_put_strz) *mnl_attr_put_strz;
	__typeof__(mnl_attr_nest_start) *mnl_attr_nest_start;
	__typeof__(mnl_attr_nest_end) *mnl_attr_nest_end;
};
extern struct pt_libmnl pt_libmnl;

struct pt_libnuma {
	struct bitmask **numa_all_nodes_ptr; /* a variable: the address of libnuma's */
	__typeof__(numa_available) *numa_available;
	__typeof__(numa_max_node) *numa_max_node;
	__typeof__(numa_node_size64) *numa_node_size64;
	__typeof__(numa_node_to_cpus) *numa_node_to_cpus;
	__typeof__(numa_allocate_cpumask) *numa_allocate_cpumask;
	__typeof__(numa_allocate_nodemask) *numa_allocate_nodemask;
	__typeof__(numa_bitmask_free) *numa_bitmask_free; /* numa_free_cpumask() inlines it */
	__typeof__(numa_bitmask_isbitset) *numa_bitmask_isbitset;
	__typeof__(numa_bitmask_setbit) *numa_bitmask_setbit;
	__typeof__(numa_bitmask_clearall) *numa_bitmask_clearall;
	__typeof__(numa_bitmask_weight) *numa_bitmask_weight;
	__typeof__(numa_parse_nodestring) *numa_parse_nodestring;
	__typeof__(numa_parse_cpustring_all) *numa_parse_cpustring_all;
	__typeof__(numa_sched_getaffinity) *numa_sched_getaffinity;
	__typeof__(numa_sched_setaffinity) *numa_sched_setaffinity;
	__typeof__(numa_migrate_pages) *numa_migrate_pages;
	__typeof__(numa_run_on_node_mask) *numa_run_on_node_mask;
	__typeof__(numa_set_membind) *numa_set_membind;
	__typeof__(numa_set_preferred) *numa_set_preferred;
	__typeof__(numa_set_interleave_mask) *numa_set_interleave_mask;
	__typeof__(numa_set_localalloc) *numa_set_localalloc;
};
extern struct pt_libnuma pt_libnuma;

struct pt_libselinux {
	char **selinux_mnt; /* a variable, set when selinuxfs is mounted (not in selinux.h) */
	__typeof__(is_selinux_enabled) *is_selinux_enabled;
};
extern struct pt_libselinux pt_libselinux;

#if HAVE_CPUPOWER
struct pt_libcpupower {
	__typeof__(cpufreq_get_policy) *cpufreq_get_policy;
	__typeof__(cpufreq_put_policy) *cpufreq_put_policy;
	__typeof__(cpufreq_get_hardware_limits) *cpufreq_get_hardware_limits;
	__typeof__(cpuidle_state_name) *cpuidle_state_name;
};
extern struct pt_libcpupower pt_libcpupower;
#endif

#endif
