// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune set | restore | status */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

/*
 * perftune_tx_set(@key)'s error @r: a usage error where the key is refused
 * (-EINVAL of the key alone too: malformed, a mistake), not its value; else
 * EXIT_FAIL, nothing changed.
 */
static int set_error(struct perftune_ctx *ctx, int r, const char *key)
{
	struct perftune_tunable_iter *it = NULL;
	bool key_refused = false;
	char msg[2048];

	snprintf(msg, sizeof(msg), "%s", perftune_ctx_last_error(ctx));
	if (r == -EINVAL)
		key_refused = perftune_get_each(ctx, key, &it) == -EINVAL;
	perftune_tunable_iter_free(it);
	if (key_refused)
		return usage_error(&cmd_set, "%s", msg);
	fprintf(stderr, "%s: %s\n%s: nothing was changed\n", program, *msg ? msg : strerror(-r),
		program);
	return EXIT_FAIL;
}

static int run_set(struct perftune_ctx *ctx, int argc, char **argv)
{
	const char *name = NULL, *replace = NULL;
	unsigned flags = 0;
	bool json = false;
	const struct cmd_opt opts[] = {
		OPT("name", 'n', OPT_STR, &name),
		OPT("replace", 0, OPT_STR, &replace),
		OPT_BIT("hold", &flags, PERFTUNE_TX_HOLD),
		OPT_BIT("dry-run", &flags, PERFTUNE_TX_DRY_RUN),
		OPT_BIT("allow-partial", &flags, PERFTUNE_TX_ALLOW_PARTIAL),
		OPT("json", 0, OPT_BOOL, &json),
		{ 0 },
	};
	int i = cmd_parse(&cmd_set, argc, argv, opts, ""), r, ret = 0;
	bool dry = flags & PERFTUNE_TX_DRY_RUN;
	struct perftune_tx *tx;
	const char *value;
	char *key;
	sigset_t set;

	if (i < 0)
		return EXIT_USAGE;
	if (i >= argc)
		return usage_error(&cmd_set, "set needs at least one KEY=VALUE");
	for (int k = i; k < argc; k++) {
		if (perftune_setting_split(ctx, argv[k], &key, &value) < 0)
			return usage_error(&cmd_set, "%s", perftune_ctx_last_error(ctx));
		free(key);
	}
	r = perftune_tx_new(ctx, or_str(name, or_str(replace, "default")), flags, &tx);
	if (r == -EINVAL)
		return usage_error(&cmd_set, "%s", perftune_ctx_last_error(ctx));
	if (r < 0)
		return lib_error(ctx, r, "transaction");
	if (replace && (r = perftune_tx_replace(tx, replace)) < 0) {
		ret = set_error(ctx, r, replace);
		goto out;
	}
	for (int k = i; k < argc; k++) {
		r = perftune_setting_split(ctx, argv[k], &key, &value);
		if (r >= 0)
			r = perftune_tx_set(tx, key, value);
		if (r < 0)
			ret = set_error(ctx, r, or_str(key, argv[k]));
		free(key);
		if (r < 0)
			goto out;
	}
	ret = commit_tx(ctx, tx, flags & PERFTUNE_TX_HOLD, &set);
	if (ret)
		goto out;
	print_tx_report(ctx, tx, NULL, json);
	if (json)
		fflush(stdout);
	if (flags & PERFTUNE_TX_HOLD && !dry)
		ret = hold_until_signal(ctx, &tx, &set, NULL, NULL);
out:
	perftune_tx_unref(tx);
	return ret;
}

const struct cmd cmd_set = {
	"set",
	run_set,
	"set [-n|--name NAME] [--replace OLD] [--hold] [--dry-run] [--allow-partial]\n"
	"         [--json] KEY=VALUE...",
	"Change tunables as one transaction (default name 'default'): each original\n"
	"is journaled before the write, each write is read back, and any failure\n"
	"restores everything already written. Prints 'key: old -> new'.\n"
	"  -n, --name NAME  transaction name, for restore NAME; a name re-used extends it\n"
	"  --replace OLD    take the place of transaction OLD without a gap (see apply);\n"
	"                   named OLD unless --name\n"
	"  --hold           stay in the foreground holding the values (PM QoS needs it);\n"
	"                   SIGTERM, SIGINT or SIGHUP restores them\n"
	"  --dry-run        validate and print the changes, write nothing\n"
	"  --allow-partial  accept fewer huge pages than asked (reports what was allocated)\n"
	"  --json           one object: transaction, dry_run, changes (key, old, new,\n"
	"                   unchanged, note) and warnings (sources that put a key back)\n"
	"  -h, --help       this help",
};

static int run_restore(struct perftune_ctx *ctx, int argc, char **argv)
{
	unsigned flags = 0, if_exists = 0;
	const struct cmd_opt opts[] = {
		OPT_BIT("all", &flags, PERFTUNE_RESTORE_ALL),
		OPT_BIT("orphans", &flags, PERFTUNE_RESTORE_ORPHANS),
		OPT_BIT("force", &flags, PERFTUNE_RESTORE_FORCE),
		OPT_BIT("if-exists", &if_exists, 1),
		{ 0 },
	};
	int i = cmd_parse(&cmd_restore, argc, argv, opts, ""), r;
	const char *name = NULL, *what = "orphaned transactions";

	if (i < 0)
		return EXIT_USAGE;
	if (i < argc)
		name = argv[i++];
	if (i < argc || (!name) == !(flags & (PERFTUNE_RESTORE_ALL | PERFTUNE_RESTORE_ORPHANS)) ||
	    ((flags & PERFTUNE_RESTORE_ALL) && (flags & PERFTUNE_RESTORE_ORPHANS)))
		return usage_error(&cmd_restore, "give one NAME, --all or --orphans");
	r = perftune_restore(ctx, name, flags);
	/* a package's removal script runs after a reboot emptied /run too */
	if (r == -ENOENT && name && if_exists) {
		printf("no transaction named '%s': nothing to restore\n", name);
		return 0;
	}
	if (r < 0)
		return lib_error(ctx, r, "restore");
	if (flags & PERFTUNE_RESTORE_ALL)
		what = "all transactions";
	printf("restored %s: %d value%s written back\n", or_str(name, what), r, r == 1 ? "" : "s");
	return 0;
}

const struct cmd cmd_restore = {
	"restore",
	run_restore,
	"restore [--force] [--if-exists] NAME|--all|--orphans",
	"Return every key of a transaction to its original and remove its journal.\n"
	"Keys changed behind perftune's back (drift) are restored too, with a warning.\n"
	"An original goes only to the object it was taken from: a key whose process or\n"
	"device is gone for good (its pid or name another's now) is reported and dropped,\n"
	"a renamed NIC is restored under its new name.\n"
	"  --all       every journaled transaction instead of NAME\n"
	"  --orphans   the transactions whose holder died (kill -9, OOM)\n"
	"  --force     also a transaction held by a live process (refused without)\n"
	"  --if-exists exit 0 when no transaction has that NAME (package scripts)\n"
	"  -h, --help  this help",
};

/* status --format prometheus: the library's metrics, on stdout or to @output atomically */
static int status_prometheus(struct perftune_ctx *ctx, const char *output)
{
	char *text = NULL;
	int r = perftune_status_metrics(ctx, 0, &text);

	if (r < 0)
		return lib_error(ctx, r, "status");
	r = write_output(ctx, output, text);
	free(text);
	return r;
}

static int parse_status(int argc, char **argv, int *format, const char **output)
{
	const struct cmd_opt opts[] = {
		{ "json", 0, OPT_CALL0, format, 0, opt_format },
		{ "format", 0, OPT_CALL, format, 0, opt_format },
		OPT("output", 'o', OPT_STR, output),
		{ 0 },
	};
	int i = cmd_parse(&cmd_status, argc, argv, opts, "");

	if (i < 0)
		return EXIT_USAGE;
	if (i < argc)
		return usage_error(&cmd_status, "status takes no operands");
	if (*output && *format != FORMAT_PROMETHEUS)
		return usage_error(&cmd_status, "-o FILE needs --format prometheus");
	return 0;
}

static int run_status(struct perftune_ctx *ctx, int argc, char **argv)
{
	const char *output = NULL;
	int format = FORMAT_TEXT, r = parse_status(argc, argv, &format, &output);
	unsigned flags = 0;
	char *text;

	if (r)
		return r;
	if (format == FORMAT_PROMETHEUS)
		return status_prometheus(ctx, output);
	if (format == FORMAT_JSON)
		flags = PERFTUNE_REPORT_JSON;
	r = perftune_status_report(ctx, flags, &text);
	if (r < 0)
		return lib_error(ctx, r, "status");
	fputs(text, stdout);
	free(text);
	return 0;
}

const struct cmd cmd_status = {
	"status",
	run_status,
	"status [--json|--format text|json|prometheus] [-o FILE]",
	"List journaled transactions: each key's original, written and current value,\n"
	"drift (changed behind perftune's back), orphans (holder process gone), GONE\n"
	"(the key's process or device is another now) and MOVED (renamed: where to).\n"
	"  --json               the same as --format json: an array (see perftune(8))\n"
	"  --format prometheus  metrics for node_exporter's textfile collector: per key\n"
	"                       in force and drift, holds, orphaned journals, counts per state\n"
	"  -o, --output FILE    write FILE (replaced atomically: a temporary file in its\n"
	"                       directory, renamed) instead of stdout; prometheus only\n"
	"  -h, --help           this help",
};
