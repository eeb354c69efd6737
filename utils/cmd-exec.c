// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune exec: run a command placed on NUMA nodes (what numactl does). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

/* --membind, --preferred, --interleave: the policy in @e->bit, one of them */
static int exec_policy(const struct cmd *c, const struct cmd_opt *e, const char *arg)
{
	int *policy = e->dest;

	(void)arg;
	if (*policy != PERFTUNE_MEM_LOCAL)
		return usage_error(c, "give one memory policy");
	*policy = (int)e->bit;
	return 0;
}

static int run_exec(struct perftune_ctx *ctx, int argc, char **argv)
{
	const char *nodes = NULL;
	int policy = PERFTUNE_MEM_LOCAL, r;
	const struct cmd_opt opts[] = {
		OPT("nodes", 'N', OPT_STR, &nodes),
		{ "membind", 0, OPT_CALL0, &policy, PERFTUNE_MEM_BIND, exec_policy },
		{ "preferred", 0, OPT_CALL0, &policy, PERFTUNE_MEM_PREFERRED, exec_policy },
		{ "interleave", 0, OPT_CALL0, &policy, PERFTUNE_MEM_INTERLEAVE, exec_policy },
		{ 0 },
	};
	/* "+": CMD's own options are not ours, with or without "--" */
	int i = cmd_parse(&cmd_exec, argc, argv, opts, "+");

	if (i < 0)
		return EXIT_USAGE;
	if (!nodes || i >= argc)
		return usage_error(&cmd_exec, "exec needs --nodes LIST and a command after --");
	r = perftune_numa_place_self(ctx, nodes, policy);
	if (r < 0)
		return lib_error(ctx, r, "exec");
	execvp(argv[i], argv + i);
	fprintf(stderr, "%s: exec %s: %s\n", program, argv[i], strerror(errno));
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
