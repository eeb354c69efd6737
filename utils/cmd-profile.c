// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune apply | list-profiles */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

#define MAX_VARS 64

static void items_text(struct perftune_profile *p)
{
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;

	if (perftune_profile_items(p, &it) < 0)
		return;
	while ((e = perftune_profile_item_iter_next(it))) {
		unsigned fl = perftune_profile_item_flags(e);
		const char *key = perftune_profile_item_key(e),
			   *note = fl & PERFTUNE_PROFILE_ITEM_SKIPPED
					   ? perftune_profile_item_skip_reason(e)
					   : perftune_profile_item_note(e);
		bool named = key && note && strstr(note, key);
		if (fl & PERFTUNE_PROFILE_ITEM_SKIPPED)
			printf("skipped: %s%s%s%s: %s\n", perftune_profile_item_option(e),
			       key && !named ? " (" : "", key && !named ? key : "",
			       key && !named ? ")" : "", note ? note : "");
		else if (fl & PERFTUNE_PROFILE_ITEM_UNCHANGED)
			printf("kept: %s = %s (%s: %s)\n", key, perftune_profile_item_value(e),
			       perftune_profile_item_option(e), note ? note : "");
	}
	perftune_profile_item_iter_free(it);
}

static void items_json(struct perftune_profile *p, unsigned want, const char *name)
{
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;
	bool first = true;

	printf(",\n  \"%s\": [", name);
	if (perftune_profile_items(p, &it) >= 0) {
		while ((e = perftune_profile_item_iter_next(it))) {
			bool f = true;
			if (!(perftune_profile_item_flags(e) & want))
				continue;
			printf("%s\n    {", first ? "" : ",");
			json_kv(stdout, &f, "option", perftune_profile_item_option(e));
			json_kv(stdout, &f, "key", perftune_profile_item_key(e));
			json_kv(stdout, &f, "value", perftune_profile_item_value(e));
			json_kv(stdout, &f, "origin", perftune_profile_item_location(e));
			json_kv(stdout, &f, "reason",
				perftune_profile_item_skip_reason(e)
					? perftune_profile_item_skip_reason(e)
					: perftune_profile_item_note(e));
			fputs("}", stdout);
			first = false;
		}
		perftune_profile_item_iter_free(it);
	}
	fputs(first ? "]" : "\n  ]", stdout);
}

static void report(struct perftune_ctx *ctx, struct perftune_profile *p, struct perftune_tx *tx,
		   bool dry, bool json)
{
	bool f = true;

	if (!json) {
		print_changes(tx, dry);
		items_text(p);
		print_conflicts(ctx, tx, dry, NULL);
		return;
	}
	fputs("{", stdout);
	json_kv(stdout, &f, "profile", perftune_profile_name(p));
	json_kv(stdout, &f, "path", perftune_profile_path(p));
	json_kv(stdout, &f, "transaction", perftune_tx_name(tx));
	json_kb(stdout, &f, "dry_run", dry);
	fputs(",\n  ", stdout);
	print_changes_json(tx, dry);
	items_json(p, PERFTUNE_PROFILE_ITEM_SKIPPED, "skipped");
	items_json(p, PERFTUNE_PROFILE_ITEM_UNCHANGED, "kept");
	fputs(",\n  ", stdout);
	print_conflicts(ctx, tx, dry, stdout);
	puts("\n}");
}

struct apply_opts {
	const char *name, *vars[MAX_VARS + 1];
	unsigned txflags, pflags;
	int nvars;
	bool json;
};

static int parse_apply(int argc, char **argv, struct apply_opts *a)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "hold", no_argument, NULL, 'H' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "strict", no_argument, NULL, 's' },
		{ "var", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "allow-partial", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char optstr[] = "n:v:h";
	int o;

	cmd_getopt_reset();
	while ((o = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			a->name = optarg;
			break;
		case 'H':
			a->txflags |= PERFTUNE_TX_HOLD;
			a->pflags |= PERFTUNE_PROFILE_HOLD;
			break;
		case 'd':
			a->txflags |= PERFTUNE_TX_DRY_RUN;
			break;
		case 's':
			a->pflags |= PERFTUNE_PROFILE_STRICT;
			break;
		case 'p':
			a->txflags |= PERFTUNE_TX_ALLOW_PARTIAL;
			break;
		case 'j':
			a->json = true;
			break;
		case 'v':
			if (a->nvars == MAX_VARS || !strchr(optarg, '='))
				return usage_error(&cmd_apply, "-v takes VAR=VALUE (at most %d)",
						   MAX_VARS);
			a->vars[a->nvars++] = optarg;
			break;
		case 'h':
			print_cmd_help(&cmd_apply, stdout);
			exit(0);
		default:
			return bad_option(&cmd_apply, argv, optstr);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_apply, "apply takes one PROFILE");
	return 0;
}

static int run_apply(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct apply_opts a = { 0 };
	struct perftune_profile *p = NULL;
	struct perftune_tx *tx = NULL;
	bool dry;
	sigset_t set;
	int r, ret = 0;

	if ((r = parse_apply(argc, argv, &a)) != 0)
		return r;
	dry = a.txflags & PERFTUNE_TX_DRY_RUN;
	r = perftune_profile_load(ctx, argv[optind], a.vars, &p);
	if (r < 0) {
		ret = lib_error(ctx, r, argv[optind]);
		fprintf(stderr, "%s: nothing was changed\n", program);
		return ret;
	}
	r = perftune_tx_new(ctx, a.name ? a.name : perftune_profile_name(p), a.txflags, &tx);
	if (r < 0) {
		ret = r == -EINVAL ? usage_error(&cmd_apply, "%s (use --name)",
						 perftune_ctx_last_error(ctx))
				   : lib_error(ctx, r, "transaction");
		goto out;
	}
	r = perftune_profile_stage(p, tx, a.pflags);
	if (r < 0) {
		ret = lib_error(ctx, r, argv[optind]);
		fprintf(stderr, "%s: nothing was changed\n", program);
		goto out;
	}
	ret = commit_tx(ctx, tx, a.txflags & PERFTUNE_TX_HOLD, &set);
	if (ret)
		goto out;
	report(ctx, p, tx, dry, a.json);
	if ((a.txflags & PERFTUNE_TX_HOLD) && !dry)
		ret = hold_until_signal(ctx, tx, &set);
out:
	perftune_tx_unref(tx);
	perftune_profile_free(p);
	return ret;
}

const struct cmd cmd_apply = {
	"apply",
	run_apply,
	"apply [-n|--name NAME] [--hold] [--dry-run] [--strict] [--allow-partial] [--json]\n"
	"         [-v|--var VAR=VALUE]... PROFILE",
	"Apply a TuneD-format profile (a name on the profile path, or a path) as one\n"
	"transaction, named after the profile unless --name. Prints 'key: old -> new'\n"
	"for each change and 'skipped: [section] option: reason' for each option that\n"
	"has no key here or would run something (nothing in a profile is executed).\n"
	"  -n, --name NAME      transaction name, for restore NAME\n"
	"  --hold               stay in the foreground holding the values; force_latency\n"
	"                       then holds PM QoS (pmqos.cpu_dma_latency_us)\n"
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
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;
	bool json = false, first = true;
	int i = parse_simple(&cmd_list_profiles, argc, argv, &json), r;

	if (i < 0)
		return EXIT_USAGE;
	if (i != argc)
		return usage_error(&cmd_list_profiles, "list-profiles takes no operands");
	r = perftune_profile_list(ctx, &it);
	if (r < 0)
		return lib_error(ctx, r, "list-profiles");
	if (json)
		fputs("[", stdout);
	while ((e = perftune_profile_entry_iter_next(it))) {
		const char *sum = perftune_profile_entry_summary(e),
			   *err = perftune_profile_entry_error(e);
		if (json) {
			bool f = true;
			printf("%s\n  {", first ? "" : ",");
			json_kv(stdout, &f, "name", perftune_profile_entry_name(e));
			json_kv(stdout, &f, "summary", sum);
			json_kv(stdout, &f, "path", perftune_profile_entry_path(e));
			json_kv(stdout, &f, "error", err);
			fputs("}", stdout);
		} else {
			printf("%-28s %s\n", perftune_profile_entry_name(e),
			       sum   ? sum
			       : err ? err
				     : "");
		}
		first = false;
	}
	if (json)
		puts(first ? "]" : "\n]");
	perftune_profile_entry_iter_free(it);
	return 0;
}

const struct cmd cmd_list_profiles = {
	"list-profiles",
	run_list_profiles,
	"list-profiles [--json]",
	"List the profiles on the profile path ($PERFTUNE_PROFILE_PATH, or\n"
	"/etc/perftune/profiles, perftune's own, /etc/tuned, /usr/lib/tuned) with\n"
	"their summaries.\n"
	"  -j, --json  an array of {name, summary, path, error}\n"
	"  -h, --help  this help",
};
