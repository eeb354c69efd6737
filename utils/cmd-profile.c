// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune apply | list-profiles */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

static void item_text(const struct perftune_profile_item *e)
{
	unsigned fl = perftune_profile_item_flags(e);
	const char *key = perftune_profile_item_key(e), *note = perftune_profile_item_note(e);

	if (fl & PERFTUNE_PROFILE_ITEM_SKIPPED) {
		note = perftune_profile_item_skip_reason(e);
		printf("skipped: %s", perftune_profile_item_option(e));
		if (key && !(note && strstr(note, key))) /* unless the reason names it */
			printf(" (%s)", key);
		printf(": %s\n", or_str(note, ""));
	} else if (fl & PERFTUNE_PROFILE_ITEM_UNCHANGED) {
		printf("kept: %s = %s (%s: %s)\n", key, perftune_profile_item_value(e),
		       perftune_profile_item_option(e), or_str(note, ""));
	}
}

static void items_json(struct json *j, struct perftune_profile *p, unsigned want, const char *name)
{
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;

	json_break(j, 2);
	json_key(j, name);
	json_open(j, '[', 4);
	if (perftune_profile_items(p, &it) >= 0) {
		while ((e = perftune_profile_item_iter_next(it))) {
			if (!(perftune_profile_item_flags(e) & want))
				continue;
			json_open(j, '{', 0);
			json_kv(j, "option", perftune_profile_item_option(e));
			json_kv(j, "key", perftune_profile_item_key(e));
			json_kv(j, "value", perftune_profile_item_value(e));
			json_kv(j, "origin", perftune_profile_item_location(e));
			json_kv(j, "reason",
				or_str(perftune_profile_item_skip_reason(e),
				       perftune_profile_item_note(e)));
			json_close(j);
		}
		perftune_profile_item_iter_free(it);
	}
	json_close(j);
}

static void report(struct perftune_ctx *ctx, struct perftune_profile *p, struct perftune_tx *tx,
		   bool dry, bool json)
{
	struct perftune_profile_item_iter *it;
	const struct perftune_profile_item *e;
	struct json j = JSON_INIT(stdout);

	if (!json) {
		print_changes(tx, dry);
		if (perftune_profile_items(p, &it) >= 0) {
			while ((e = perftune_profile_item_iter_next(it)))
				item_text(e);
			perftune_profile_item_iter_free(it);
		}
		print_conflicts(ctx, tx, dry, NULL);
		return;
	}
	json_open(&j, '{', 0);
	json_kv(&j, "profile", perftune_profile_name(p));
	json_kv(&j, "path", perftune_profile_path(p));
	json_kv(&j, "transaction", perftune_tx_name(tx));
	json_kb(&j, "dry_run", dry);
	print_changes_json(&j, tx, dry);
	items_json(&j, p, PERFTUNE_PROFILE_ITEM_SKIPPED, "skipped");
	items_json(&j, p, PERFTUNE_PROFILE_ITEM_UNCHANGED, "kept");
	print_conflicts(ctx, tx, dry, &j);
	json_break(&j, 0);
	json_close(&j);
}

static int run_apply(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct cmd_vars vars = { 0 };
	const char *name = NULL;
	unsigned txflags = 0, pflags = 0;
	bool json = false, dry;
	const struct cmd_opt opts[] = {
		OPT("name", 'n', OPT_STR, &name),
		OPT_BIT("hold", &txflags, PERFTUNE_TX_HOLD),
		OPT_BIT("dry-run", &txflags, PERFTUNE_TX_DRY_RUN),
		OPT_BIT("strict", &pflags, PERFTUNE_PROFILE_STRICT),
		OPT("var", 'v', OPT_VAR, &vars),
		OPT("json", 0, OPT_BOOL, &json),
		OPT_BIT("allow-partial", &txflags, PERFTUNE_TX_ALLOW_PARTIAL),
		{ 0 },
	};
	struct perftune_profile *p = NULL;
	struct perftune_tx *tx = NULL;
	int i = cmd_parse(&cmd_apply, argc, argv, opts, ""), r, ret = 0;
	sigset_t set;

	if (i < 0)
		return EXIT_USAGE;
	if (i != argc - 1)
		return usage_error(&cmd_apply, "apply takes one PROFILE");
	if (txflags & PERFTUNE_TX_HOLD) /* a held transaction holds the profile's PM QoS */
		pflags |= PERFTUNE_PROFILE_HOLD;
	dry = txflags & PERFTUNE_TX_DRY_RUN;
	r = perftune_profile_load(ctx, argv[i], vars.v, &p);
	if (r < 0) {
		ret = lib_error(ctx, r, argv[i]);
		fprintf(stderr, "%s: nothing was changed\n", program);
		return ret;
	}
	r = perftune_tx_new(ctx, or_str(name, perftune_profile_name(p)), txflags, &tx);
	if (r == -EINVAL)
		ret = usage_error(&cmd_apply, "%s (use --name)", perftune_ctx_last_error(ctx));
	else if (r < 0)
		ret = lib_error(ctx, r, "transaction");
	if (r < 0)
		goto out;
	r = perftune_profile_stage(p, tx, pflags);
	if (r < 0) {
		ret = lib_error(ctx, r, argv[i]);
		fprintf(stderr, "%s: nothing was changed\n", program);
		goto out;
	}
	ret = commit_tx(ctx, tx, txflags & PERFTUNE_TX_HOLD, &set);
	if (ret)
		goto out;
	report(ctx, p, tx, dry, json);
	if ((txflags & PERFTUNE_TX_HOLD) && !dry)
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

/* "a b" (the library's space-separated names) as ["a", "b"]; [] for NULL */
static void names_json(struct json *j, const char *key, const char *names)
{
	char *dup = strdup(or_str(names, "")), *save = NULL;

	json_key(j, key);
	json_open(j, '[', 0);
	for (char *n = strtok_r(dup, " ", &save); dup && n; n = strtok_r(NULL, " ", &save))
		json_str(j, n);
	json_close(j);
	free(dup);
}

static int run_list_profiles(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct perftune_profile_entry_iter *it;
	const struct perftune_profile_entry *e;
	struct json j = JSON_INIT(stdout);
	bool json = false;
	int i = parse_simple(&cmd_list_profiles, argc, argv, &json), r;

	if (i < 0)
		return EXIT_USAGE;
	if (i != argc)
		return usage_error(&cmd_list_profiles, "list-profiles takes no operands");
	r = perftune_profile_list(ctx, &it);
	if (r < 0)
		return lib_error(ctx, r, "list-profiles");
	if (json)
		json_open(&j, '[', 2);
	while ((e = perftune_profile_entry_iter_next(it))) {
		const char *sum = perftune_profile_entry_summary(e),
			   *err = perftune_profile_entry_error(e);
		const char *vars = perftune_profile_entry_variables(e),
			   *unset = perftune_profile_entry_unset_variables(e);
		if (!json) {
			printf("%-28s %s", perftune_profile_entry_name(e),
			       or_str(sum, or_str(err, "")));
			if (vars)
				printf(" (variables: %s", vars);
			if (unset)
				printf("; unset: %s", unset);
			printf("%s\n", vars ? ")" : "");
			continue;
		}
		json_open(&j, '{', 0);
		json_kv(&j, "name", perftune_profile_entry_name(e));
		json_kv(&j, "summary", sum);
		json_kv(&j, "path", perftune_profile_entry_path(e));
		json_kv(&j, "error", err);
		names_json(&j, "variables", vars);
		names_json(&j, "unset", unset);
		json_close(&j);
	}
	if (json)
		json_close(&j);
	perftune_profile_entry_iter_free(it);
	return 0;
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
