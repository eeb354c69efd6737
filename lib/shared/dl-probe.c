// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Never run: built once per library that dlopen.c opens, linked with that
 * dependency (-DPROBE_<LIB>), so that dl-soname.py reads the SONAME the
 * linker recorded for it (DT_NEEDED).  The call keeps the library needed
 * under --as-needed; argc is never that large.
 */
#if defined(PROBE_UDEV)
#include <libudev.h>
#define CALL udev_new()
#elif defined(PROBE_KMOD)
#include <libkmod.h>
#define CALL kmod_new(0, 0)
#elif defined(PROBE_PCRE2)
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#define CALL pcre2_match_context_create(0)
#elif defined(PROBE_MNL)
#include <libmnl/libmnl.h>
#define CALL mnl_socket_open(0)
#elif defined(PROBE_NUMA)
#include <numa.h>
#define CALL numa_available()
#elif defined(PROBE_SELINUX)
#include <selinux/selinux.h>
#define CALL is_selinux_enabled()
#elif defined(PROBE_CPUPOWER)
#include <cpufreq.h>
#define CALL cpufreq_get_policy(0)
#else
#error "dl-probe.c: which library? (-DPROBE_<LIB>)"
#endif

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1000)
		(void)CALL;
	return 0;
}
