// SPDX-License-Identifier: LGPL-2.1-or-later
/* perftune set | restore | status */
#include <errno.h>
#include <getopt.h>
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
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "hold", no_argument, NULL, 'H' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "allow-partial", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char optstr[] = "n:h";
	const char *name = "default";
	unsigned flags = 0;
	bool json = false;
	struct perftune_tx *tx;
	sigset_t set;
	int o, r, ret = 0;

	cmd_getopt_reset();
	while ((o = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			name = optarg;
			break;
		case 'H':
			flags |= PERFTUNE_TX_HOLD;
			break;
		case 'd':
			flags |= PERFTUNE_TX_DRY_RUN;
			break;
		case 'p':
			flags |= PERFTUNE_TX_ALLOW_PARTIAL;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			print_cmd_help(&cmd_set, stdout);
			return 0;
		default:
			return bad_option(&cmd_set, argv, optstr);
		}
	}
	if (optind >= argc)
		return usage_error(&cmd_set, "set needs at least one KEY=VALUE");
	for (int i = optind; i < argc; i++)
		if (!setting_eq(argv[i]) || argv[i][0] == '=')
			return usage_error(&cmd_set, "'%s' is not KEY=VALUE", argv[i]);
	r = perftune_tx_new(ctx, name, flags, &tx);
	if (r < 0)
		return r == -EINVAL ? usage_error(&cmd_set, "%s", perftune_ctx_last_error(ctx))
				    : lib_error(ctx, r, "transaction");
	for (int i = optind; i < argc; i++) {
		char *key = strdup(argv[i]), *eq = setting_eq(key);
		*eq = '\0';
		r = perftune_tx_set(tx, key, eq + 1);
		if (r < 0)
			ret = set_error(ctx, r, key);
		free(key);
		if (r < 0)
			goto out;
	}
	ret = commit_tx(ctx, tx, flags & PERFTUNE_TX_HOLD, &set);
	if (ret)
		goto out;
	if (json) {
		bool f = true;
		fputs("{", stdout);
		json_kv(stdout, &f, "transaction", perftune_tx_name(tx));
		json_kb(stdout, &f, "dry_run", flags & PERFTUNE_TX_DRY_RUN);
		fputs(",\n  ", stdout);
		print_changes_json(tx, flags & PERFTUNE_TX_DRY_RUN);
		fputs(",\n  ", stdout);
		print_conflicts(ctx, tx, flags & PERFTUNE_TX_DRY_RUN, stdout);
		puts("\n}");
		fflush(stdout);
	} else {
		print_changes(tx, flags & PERFTUNE_TX_DRY_RUN);
		print_conflicts(ctx, tx, flags & PERFTUNE_TX_DRY_RUN, NULL);
	}
	if (flags & PERFTUNE_TX_HOLD && !(flags & PERFTUNE_TX_DRY_RUN))
		ret = hold_until_signal(ctx, tx, &set);
out:
	perftune_tx_unref(tx);
	return ret;
}

const struct cmd cmd_set = {
	"set",
	run_set,
	"set [-n|--name NAME] [--hold] [--dry-run] [--allow-partial] [--json]\n"
	"         KEY=VALUE...",
	"Change tunables as one transaction (default name 'default'): each original\n"
	"is journaled before the write, each write is read back, and any failure\n"
	"restores everything already written. Prints 'key: old -> new'.\n"
	"  -n, --name NAME  transaction name, for restore NAME; a name re-used extends it\n"
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
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "orphans", no_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char optstr[] = "h";
	unsigned flags = 0;
	int o, r;
	const char *name = NULL;

	cmd_getopt_reset();
	while ((o = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		switch (o) {
		case 'a':
			flags |= PERFTUNE_RESTORE_ALL;
			break;
		case 'o':
			flags |= PERFTUNE_RESTORE_ORPHANS;
			break;
		case 'f':
			flags |= PERFTUNE_RESTORE_FORCE;
			break;
		case 'h':
			print_cmd_help(&cmd_restore, stdout);
			return 0;
		default:
			return bad_option(&cmd_restore, argv, optstr);
		}
	}
	if (optind < argc)
		name = argv[optind++];
	if (optind < argc ||
	    (!name) == !(flags & (PERFTUNE_RESTORE_ALL | PERFTUNE_RESTORE_ORPHANS)) ||
	    ((flags & PERFTUNE_RESTORE_ALL) && (flags & PERFTUNE_RESTORE_ORPHANS)))
		return usage_error(&cmd_restore, "give one NAME, --all or --orphans");
	r = perftune_restore(ctx, name, flags);
	if (r < 0)
		return lib_error(ctx, r, "restore");
	printf("restored %s: %d value%s written back\n",
	       name			      ? name
	       : flags & PERFTUNE_RESTORE_ALL ? "all transactions"
					      : "orphaned transactions",
	       r, r == 1 ? "" : "s");
	return 0;
}

const struct cmd cmd_restore = {
	"restore",
	run_restore,
	"restore [--force] NAME|--all|--orphans",
	"Return every key of a transaction to its original and remove its journal.\n"
	"Keys changed behind perftune's back (drift) are restored too, with a warning.\n"
	"An original goes only to the object it was taken from: a key whose process or\n"
	"device is gone for good (its pid or name another's now) is reported and dropped,\n"
	"a renamed NIC is restored under its new name.\n"
	"  --all       every journaled transaction instead of NAME\n"
	"  --orphans   the transactions whose holder died (kill -9, OOM)\n"
	"  --force     also a transaction held by a live process (refused without)\n"
	"  -h, --help  this help",
};

static void status_json(struct perftune_status_iter *it)
{
	const struct perftune_status_entry *e;
	bool firstitem = true;

	fputs("[", stdout);
	while ((e = perftune_status_iter_next(it))) {
		bool f = true;
		unsigned fl = perftune_status_entry_flags(e);
		printf("%s\n  {", firstitem ? "" : ",");
		json_kv(stdout, &f, "transaction", perftune_status_entry_tx_name(e));
		json_kv(stdout, &f, "key", perftune_status_entry_key(e));
		json_kv(stdout, &f, "original", perftune_status_entry_original(e));
		json_kv(stdout, &f, "written", perftune_status_entry_written(e));
		json_kv(stdout, &f, "current", perftune_status_entry_current(e));
		json_ki(stdout, &f, "pid", perftune_status_entry_pid(e));
		json_kb(stdout, &f, "held", fl & PERFTUNE_STATUS_HELD);
		json_kb(stdout, &f, "orphaned", fl & PERFTUNE_STATUS_ORPHANED);
		json_kb(stdout, &f, "committed", fl & PERFTUNE_STATUS_COMMITTED);
		json_kb(stdout, &f, "drift", fl & PERFTUNE_STATUS_DRIFT);
		json_kb(stdout, &f, "shadowed", fl & PERFTUNE_STATUS_SHADOWED);
		json_kb(stdout, &f, "gone", fl & PERFTUNE_STATUS_GONE);
		json_kb(stdout, &f, "moved", fl & PERFTUNE_STATUS_MOVED);
		json_kv(stdout, &f, "note", perftune_status_entry_note(e));
		fputs("}", stdout);
		firstitem = false;
	}
	puts(firstitem ? "]" : "\n]");
}

/* status --format prometheus: the library's metrics, on stdout or to @output atomically */
static int status_prometheus(struct perftune_ctx *ctx, const char *output)
{
	char *text = NULL;
	int r = perftune_status_metrics(ctx, 0, &text);

	if (r < 0)
		return lib_error(ctx, r, "status");
	r = write_output(output, text);
	free(text);
	return r;
}

enum { STATUS_TEXT, STATUS_JSON, STATUS_PROMETHEUS };

static int parse_status(int argc, char **argv, int *format, const char **output)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char optstr[] = "o:h";
	static const char *const names[] = { "text", "json", "prometheus" };
	int o;

	cmd_getopt_reset();
	while ((o = getopt_long(argc, argv, optstr, opts, NULL)) != -1) {
		if (o == 'j') {
			*format = STATUS_JSON;
		} else if (o == 'f') {
			*format = -1;
			for (int i = 0; i < 3; i++)
				if (!strcmp(optarg, names[i]))
					*format = i;
			if (*format < 0)
				return usage_error(&cmd_status,
						   "--format must be text, json or prometheus");
		} else if (o == 'o') {
			*output = optarg;
		} else if (o == 'h') {
			print_cmd_help(&cmd_status, stdout);
			exit(0);
		} else {
			return bad_option(&cmd_status, argv, optstr);
		}
	}
	if (optind < argc)
		return usage_error(&cmd_status, "status takes no operands");
	if (*output && *format != STATUS_PROMETHEUS)
		return usage_error(&cmd_status, "-o FILE needs --format prometheus");
	return 0;
}

static int run_status(struct perftune_ctx *ctx, int argc, char **argv)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	const char *last = NULL, *output = NULL;
	char lastbuf[128] = "";
	int format = STATUS_TEXT, r = parse_status(argc, argv, &format, &output);

	if (r)
		return r;
	if (format == STATUS_PROMETHEUS)
		return status_prometheus(ctx, output);
	r = perftune_status(ctx, &it);
	if (r < 0)
		return lib_error(ctx, r, "status");
	if (format == STATUS_JSON) {
		status_json(it);
		perftune_status_iter_free(it);
		return 0;
	}
	while ((e = perftune_status_iter_next(it))) {
		unsigned fl = perftune_status_entry_flags(e);
		const char *note = perftune_status_entry_note(e),
			   *cur = perftune_status_entry_current(e);
		if (!last || strcmp(lastbuf, perftune_status_entry_tx_name(e))) {
			snprintf(lastbuf, sizeof(lastbuf), "%s", perftune_status_entry_tx_name(e));
			last = lastbuf;
			printf("%s: %s", last,
			       fl & PERFTUNE_STATUS_ORPHANED ? "ORPHANED (holder gone: restore it)"
			       : fl & PERFTUNE_STATUS_HELD   ? "held"
			       : fl & PERFTUNE_STATUS_COMMITTED ? "applied"
								: "incomplete");
			if (perftune_status_entry_pid(e))
				printf(" pid %d", perftune_status_entry_pid(e));
			putchar('\n');
		}
		if (!*perftune_status_entry_key(e)) {
			printf("  error: %s\n", note ? note : "unreadable journal");
			continue;
		}
		printf("  %s: %s -> %s, now %s%s%s%s%s%s\n", perftune_status_entry_key(e),
		       perftune_status_entry_original(e),
		       perftune_status_entry_written(e) ? perftune_status_entry_written(e)
							: "(not written)",
		       cur ? cur : "?", fl & PERFTUNE_STATUS_DRIFT ? " DRIFT" : "",
		       fl & PERFTUNE_STATUS_GONE ? " GONE" : "",
		       fl & PERFTUNE_STATUS_MOVED ? " MOVED" : "", note ? " - " : "",
		       note ? note : "");
	}
	if (!last)
		puts("no transactions");
	perftune_status_iter_free(it);
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
