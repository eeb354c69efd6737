// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vm-helper: the small workloads of the VM tier's guest scripts, in C.  Under
 * TCG, starting python3 for them took a test most of its time (the exec
 * --nodes test: 184 s at load 10), and walking every thread with a few awk
 * and sed processes each took the isolation test minutes.
 *
 *   vm-helper touch MIB          touch MIB MiB (a byte a page), print "ready";
 *                                on SIGUSR1 touch MIB more and print "more";
 *                                run until killed
 *   vm-helper touch MIB --maps   touch MIB MiB, print /proc/self/numa_maps, exit
 *   vm-helper pmd                a thread named like OVS's poll-mode thread
 *                                (pmd-c03/id:8) pinned to CPU 3: print its
 *                                thread id, run until killed
 *   vm-helper threads            every thread of the system, a line each:
 *                                "PID/TID CPUS FLAGS COMM" (CPUS as
 *                                Cpus_allowed_list, FLAGS the stat field in
 *                                decimal); a thread that exits while it is
 *                                read is left out
 *   vm-helper nics DEV...        each NIC's ring, coalescing, pause, channel
 *                                and feature settings as the kernel's
 *                                ethtool ioctls give them, a line each (the
 *                                snapshots of the NIC tests: what five
 *                                ethtool runs per NIC printed, in one
 *                                process; ethtool's own output is still what
 *                                the tests check each value against)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void touch(size_t mib)
{
	size_t len = mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	/* small pages: the tests count pages per node, and a huge page's
	 * allocation under a node binding makes the guest compact that node's
	 * memory (minutes of TCG after the huge page tests) */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	/* kept mapped: the pages are what the caller looks at */
}

static int cat(const char *path)
{
	char buf[65536];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		die(path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

static int cmd_touch(int argc, char **argv)
{
	size_t mib = strtoul(argv[2], NULL, 10);
	sigset_t set;
	int sig;

	if (mib == 0)
		return fprintf(stderr, "vm-helper touch: MIB must be a number > 0\n"), 2;
	touch(mib);
	if (argc > 3 && strcmp(argv[3], "--maps") == 0)
		return cat("/proc/self/numa_maps");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			die("sigwait");
		touch(mib);
		printf("more\n");
		fflush(stdout);
	}
}

static void *pmd(void *arg)
{
	cpu_set_t cpus;

	(void)arg;
	prctl(PR_SET_NAME, "pmd-c03/id:8", 0, 0, 0);
	CPU_ZERO(&cpus);
	CPU_SET(3, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) != 0)
		die("sched_setaffinity");
	printf("%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (;;)
		pause();
	return NULL;
}

static void cmd_pmd(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, pmd, NULL) != 0)
		die("pthread_create");
	for (;;)
		pause();
}

/* one thread's line; 0, or -1 when it is gone */
static int thread_line(const char *pid, const char *tid)
{
	char path[600], buf[4096], cpus[1024] = "", comm[64] = "";
	unsigned long flags = 0;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/status", pid, tid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "Cpus_allowed_list: %1023s", cpus) == 1)
			break;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, tid);
	if (!(f = fopen(path, "re")))
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* pid (comm) state ppid pgrp session tty tpgid flags: comm may hold anything */
	if (!p || !(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1 || !cpus[0])
		return -1;
	snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", pid, tid);
	if (!(f = fopen(path, "re")))
		return -1;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	printf("%s/%s %s %lu %s\n", pid, tid, cpus, flags, comm);
	return 0;
}

static int cmd_threads(void)
{
	DIR *proc = opendir("/proc"), *task;
	struct dirent *p, *t;
	char path[sizeof(p->d_name) + 16];

	if (!proc)
		die("/proc");
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		if (!(task = opendir(path)))
			continue; /* exited */
		while ((t = readdir(task)))
			if (t->d_name[0] >= '1' && t->d_name[0] <= '9')
				thread_line(p->d_name, t->d_name);
		closedir(task);
	}
	closedir(proc);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* one ethtool ioctl on DEV: 0, or -errno (a driver without the operation) */
static int eth_ioctl(int fd, const char *dev, void *data)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* print NAME then the N 32-bit words at P, or the error */
static void words(const char *name, int r, const __u32 *p, size_t n)
{
	printf("%s:", name);
	if (r < 0)
		printf(" %s", strerror(-r));
	for (size_t i = 0; r == 0 && i < n; i++)
		printf(" %u", p[i]);
	printf("\n");
}

static void nic(int fd, const char *dev)
{
	struct ethtool_ringparam ring = { .cmd = ETHTOOL_GRINGPARAM };
	struct ethtool_coalesce co = { .cmd = ETHTOOL_GCOALESCE };
	struct ethtool_pauseparam pa = { .cmd = ETHTOOL_GPAUSEPARAM };
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	/* 8 blocks of 32 features: more than any kernel has */
	struct ethtool_gfeatures *fe =
		calloc(1, sizeof(*fe) + 8 * sizeof(struct ethtool_get_features_block));
	int r;

	if (!fe)
		die("calloc");
	fe->cmd = ETHTOOL_GFEATURES;
	fe->size = 8;

	printf("== %s\n", dev);
	r = eth_ioctl(fd, dev, &ring);
	words("ring", r, &ring.rx_max_pending, sizeof(ring) / 4 - 1);
	r = eth_ioctl(fd, dev, &co);
	words("coalesce", r, &co.rx_coalesce_usecs, sizeof(co) / 4 - 1);
	r = eth_ioctl(fd, dev, &pa);
	words("pause", r, &pa.autoneg, sizeof(pa) / 4 - 1);
	r = eth_ioctl(fd, dev, &ch);
	words("channels", r, &ch.max_rx, sizeof(ch) / 4 - 1);
	r = eth_ioctl(fd, dev, fe);
	/* requested and active features: what a write changes */
	printf("features:");
	if (r < 0)
		printf(" %s", strerror(-r));
	for (__u32 i = 0; r == 0 && i < fe->size && i < 8; i++)
		printf(" %08x/%08x", fe->features[i].requested, fe->features[i].active);
	printf("\n");
	free(fe);
}

static int cmd_nics(int argc, char **argv)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	for (int i = 2; i < argc; i++)
		nic(fd, argv[i]);
	close(fd);
	return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "touch") == 0)
		return cmd_touch(argc, argv);
	if (argc == 2 && strcmp(argv[1], "pmd") == 0) {
		cmd_pmd(); /* until killed */
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "threads") == 0)
		return cmd_threads();
	if (argc >= 3 && strcmp(argv[1], "nics") == 0)
		return cmd_nics(argc, argv);
	fprintf(stderr, "usage: vm-helper touch MIB [--maps] | pmd | threads | nics DEV...\n");
	return 2;
}
