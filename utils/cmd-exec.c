// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune exec: run a command placed on NUMA nodes (what numactl does). */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

static int run_exec(struct perftune_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'N' }, { "membind", no_argument, NULL, 'm' },
		{ "preferred", no_argument, NULL, 'p' },   { "interleave", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },	   { 0 },
	};
	static const char optstr[] = "+N:h";
	const char *nodes = NULL;
	int o, policy = PERFTUNE_MEM_LOCAL, r;

	cmd_getopt_reset(); /* "+": CMD's own options are not ours, with or without "--" */
	while ((o = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		switch (o) {
		case 'N':
			nodes = optarg;
			break;
		case 'm':
		case 'p':
		case 'i':
			if (policy != PERFTUNE_MEM_LOCAL)
				return usage_error(&cmd_exec, "give one memory policy");
			policy = o == 'm'   ? PERFTUNE_MEM_BIND
				 : o == 'p' ? PERFTUNE_MEM_PREFERRED
					    : PERFTUNE_MEM_INTERLEAVE;
			break;
		case 'h':
			print_cmd_help(&cmd_exec, stdout);
			return 0;
		default:
			return bad_option(&cmd_exec, argv, optstr);
		}
	}
	if (!nodes || optind >= argc)
		return usage_error(&cmd_exec, "exec needs --nodes LIST and a command after --");
	r = perftune_numa_place_self(ctx, nodes, policy);
	if (r < 0)
		return lib_error(ctx, r, "exec");
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "%s: exec %s: %s\n", program, argv[optind], strerror(errno));
	return EXIT_FAIL;
}

const struct cmd cmd_exec = {
	"exec",
	run_exec,
	"exec -N|--nodes LIST [--membind|--preferred|--interleave]\n"
	"         [--] CMD...",
	"Run CMD on the CPUs of NUMA nodes LIST (0, 0-1). Memory comes from the node\n"
	"the thread runs on unless a policy is given. exec's options end at CMD,\n"
	"with or without '--': the options after it are CMD's. To move a running\n"
	"process instead: perftune set proc.PID.numa_nodes=LIST.\n"
	"  -N, --nodes LIST  the NUMA nodes (required)\n"
	"  --membind         memory from LIST only\n"
	"  --preferred       memory from the first node of LIST first\n"
	"  --interleave      memory round-robin over LIST\n"
	"  -h, --help        this help",
};
