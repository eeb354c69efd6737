// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune apply | list-profiles */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

/* what apply was given: a SIGHUP to its hold applies it again */
struct apply {
	const char *path, *replace;
	struct cmd_vars vars;
	unsigned txflags, pflags;
	bool json;
	struct perftune_profile *p;
};

/*
 * @a's profile loaded and staged into a new transaction @name that replaces
 * transaction @a->replace, if given: 0 with *@txp, or EXIT_* with the reason
 * printed (nothing changed).
 */
static int stage_apply(struct perftune_ctx *ctx, struct apply *a, const char *name,
		       struct perftune_profile **pp, struct perftune_tx **txp)
{
	int r = perftune_profile_load(ctx, a->path, a->vars.v, pp);

	*txp = NULL;
	if (r < 0)
		goto fail;
	if (!name)
		name = or_str(a->replace, perftune_profile_name(*pp));
	r = perftune_tx_new(ctx, name, a->txflags, txp);
	if (r == -EINVAL)
		return usage_error(&cmd_apply, "%s (use --name)", perftune_ctx_last_error(ctx));
	if (r < 0)
		return lib_error(ctx, r, "transaction");
	if (a->replace && (r = perftune_tx_replace(*txp, a->replace)) < 0)
		goto fail;
	r = perftune_profile_stage(*pp, *txp, a->pflags);
	if (r >= 0)
		return 0;
fail:
	lib_error(ctx, r, a->path);
	fprintf(stderr, "%s: nothing was changed\n", program);
	return EXIT_FAIL;
}

/*
 * SIGHUP to `apply --hold`: the profile read again and applied in place of
 * what is held (perftune_tx_replace() of its own name), so that the keys both
 * versions set never pass through their originals; the old transaction is
 * dropped (its PM QoS fds close after the new ones are open).  A profile
 * that does not load or validate, or a write that fails, keeps what is in
 * force, and says why.
 */
static void reload(struct perftune_ctx *ctx, struct perftune_tx **txp, void *ud)
{
	struct apply *a = ud;
	struct perftune_profile *p = NULL;
	struct perftune_tx *tx = NULL;
	const char *keep = a->replace;
	sigset_t unused;
	int ret;

	a->replace = perftune_tx_name(*txp);
	ret = stage_apply(ctx, a, perftune_tx_name(*txp), &p, &tx);
	if (!ret)
		ret = commit_tx(ctx, tx, true, &unused);
	a->replace = keep;
	if (ret) {
		fprintf(stderr, "%s: reload of '%s' failed: still holding what was in force\n",
			program, perftune_tx_name(*txp));
		perftune_tx_unref(tx);
		perftune_profile_free(p);
		return;
	}
	printf("reloaded transaction '%s' from %s\n", perftune_tx_name(tx), a->path);
	print_tx_report(ctx, tx, p, a->json);
	fflush(stdout);
	perftune_tx_unref(*txp);
	perftune_profile_free(a->p);
	*txp = tx;
	a->p = p;
}

static int run_apply(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct apply a = { 0 };
	const char *name = NULL;
	bool dry;
	const struct cmd_opt opts[] = {
		OPT("name", 'n', OPT_STR, &name),
		OPT("replace", 0, OPT_STR, &a.replace),
		OPT_BIT("hold", &a.txflags, PERFTUNE_TX_HOLD),
		OPT_BIT("dry-run", &a.txflags, PERFTUNE_TX_DRY_RUN),
		OPT_BIT("strict", &a.pflags, PERFTUNE_PROFILE_STRICT),
		OPT("var", 'v', OPT_VAR, &a.vars),
		OPT("json", 0, OPT_BOOL, &a.json),
		OPT_BIT("allow-partial", &a.txflags, PERFTUNE_TX_ALLOW_PARTIAL),
		{ 0 },
	};
	struct perftune_tx *tx = NULL;
	int i = cmd_parse(&cmd_apply, argc, argv, opts, ""), ret = 0;
	sigset_t set;

	if (i < 0)
		return EXIT_USAGE;
	if (i != argc - 1)
		return usage_error(&cmd_apply, "apply takes one PROFILE");
	if (a.txflags & PERFTUNE_TX_HOLD) /* a held transaction holds the profile's PM QoS */
		a.pflags |= PERFTUNE_PROFILE_HOLD;
	dry = a.txflags & PERFTUNE_TX_DRY_RUN;
	a.path = argv[i];
	/* a name another process holds (the unit's `apply --hold`): applied in its place */
	if (!a.replace && name && held_elsewhere(ctx, name))
		a.replace = name;
	ret = stage_apply(ctx, &a, name, &a.p, &tx);
	if (!ret && !a.replace && !name && held_elsewhere(ctx, perftune_tx_name(tx))) {
		int r = perftune_tx_replace(tx, perftune_tx_name(tx)); /* named after the profile */
		if (r < 0)
			ret = lib_error(ctx, r, perftune_tx_name(tx));
	}
	if (ret)
		goto out;
	ret = commit_tx(ctx, tx, a.txflags & PERFTUNE_TX_HOLD, &set);
	if (ret)
		goto out;
	print_tx_report(ctx, tx, a.p, a.json);
	a.replace = NULL; /* a reload replaces what is held now */
	if ((a.txflags & PERFTUNE_TX_HOLD) && !dry)
		ret = hold_until_signal(ctx, &tx, &set, reload, &a);
out:
	perftune_tx_unref(tx);
	perftune_profile_free(a.p);
	return ret;
}

const struct cmd cmd_apply = {
	"apply",
	run_apply,
	"apply [-n|--name NAME] [--replace OLD] [--hold] [--dry-run] [--strict]\n"
	"         [--allow-partial] [--json] [-v|--var VAR=VALUE]... PROFILE",
	"Apply a TuneD-format profile (a name on the profile path, or a path) as one\n"
	"transaction, named after the profile unless --name. Prints 'key: old -> new'\n"
	"for each change and 'skipped: [section] option: reason' for each option that\n"
	"has no key here or would run something (nothing in a profile is executed).\n"
	"  -n, --name NAME      transaction name, for restore NAME (with --replace: OLD)\n"
	"  --replace OLD        take the place of transaction OLD without a gap: keys\n"
	"                       both set go straight to the new value, keys only OLD\n"
	"                       set go back to their originals; a live holder of OLD\n"
	"                       ends without writing. A name another process holds is\n"
	"                       replaced the same way\n"
	"  --hold               stay in the foreground holding the values; force_latency\n"
	"                       then holds PM QoS (pmqos.cpu_dma_latency_us); SIGHUP\n"
	"                       reads PROFILE again and applies it in place, no gap\n"
	"  --dry-run            validate and print the changes, write nothing\n"
	"  --strict             a skipped option is an error (exit 1, nothing changed)\n"
	"  --allow-partial      accept fewer huge pages than asked (reports what was\n"
	"                       allocated)\n"
	"  --json               print the result as JSON (see perftune(8))\n"
	"  -v, --var VAR=VALUE  set the profile's variable VAR (its [variables] value,\n"
	"                       ${VAR}) to VALUE; repeatable. Not --verbose, which goes\n"
	"                       before the command: perftune -v apply ...\n"
	"  -h, --help           this help",
};

static int run_list_profiles(struct perftune_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	int i = parse_simple(&cmd_list_profiles, argc, argv, &json), r;
	char *text = NULL;

	if (i < 0)
		return EXIT_USAGE;
	if (i != argc)
		return usage_error(&cmd_list_profiles, "list-profiles takes no operands");
	r = perftune_profile_list_report(ctx, report_flags(json), &text);
	if (r < 0)
		return lib_error(ctx, r, "list-profiles");
	return print_report(text);
}

const struct cmd cmd_list_profiles = {
	"list-profiles",
	run_list_profiles,
	"list-profiles [--json]",
	"List the profiles on the profile path ($PERFTUNE_PROFILE_PATH, or\n"
	"/etc/perftune/profiles, perftune's own, /etc/tuned, /usr/lib/tuned) with\n"
	"their summaries, the variables each uses and those neither the profile\n"
	"nor its variables file (DIR/NAME/variables.conf) sets.\n"
	"  -j, --json  an array of {name, summary, path, error, variables, unset}\n"
	"  -h, --help  this help",
};
