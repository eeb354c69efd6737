// SPDX-License-Identifier: LGPL-2.1-or-later
/* Helpers shared by the perftune subcommands: errors, usage, JSON output, files. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include "common.h"

const char *program = "perftune";

void print_cmd_help(const struct cmd *c, FILE *f)
{
	fprintf(f,
		"Usage: %s %s\n\n%s\n\n"
		"The global options --root DIR, --journal-dir DIR and -v, --verbose go\n"
		"before the command (%s --help); after it, -v is the command's --var.\n",
		program, c->usage, c->help, program);
}

int usage_error(const struct cmd *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fprintf(stderr, "Usage: %s %s\n", program, c->usage);
	return EXIT_USAGE;
}

int lib_error(struct perftune_ctx *ctx, int r, const char *what)
{
	const char *msg = perftune_ctx_last_error(ctx);

	if (msg && *msg)
		fprintf(stderr, "%s: %s\n", program, msg);
	else
		fprintf(stderr, "%s: %s: %s\n", program, what, strerror(-r));
	return EXIT_FAIL;
}

int key_error(const struct cmd *c, struct perftune_ctx *ctx, int r, const char *key)
{
	const char *msg = perftune_ctx_last_error(ctx);

	if (r != -EINVAL)
		return lib_error(ctx, r, key);
	if (msg && *msg)
		return usage_error(c, "%s", msg);
	return usage_error(c, "%s: %s", key, strerror(-r));
}

/* bytes of the valid UTF-8 sequence that starts at @p (Unicode's table 3-7: no
 * overlong form, no surrogate, nothing past U+10FFFF), 0 if none does */
static size_t utf8_seq(const unsigned char *p)
{
	static const struct {
		unsigned char first_lo, first_hi, second_lo, second_hi, len;
	} forms[] = {
		{ 0xc2, 0xdf, 0x80, 0xbf, 2 }, { 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 }, { 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 }, { 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 }, { 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};

	if (*p < 0x80)
		return 1;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (*p < forms[i].first_lo || *p > forms[i].first_hi)
			continue;
		if (p[1] < forms[i].second_lo || p[1] > forms[i].second_hi)
			return 0;
		for (size_t k = 2; k < forms[i].len; k++) /* the NUL that ends @p stops it */
			if ((p[k] & 0xc0) != 0x80)
				return 0;
		return forms[i].len;
	}
	return 0;
}

/*
 * JSON wants UTF-8 (RFC 8259), and a path, a kernel name or a value may hold
 * any byte: a byte of no valid sequence is the four characters \xHH, as
 * Python's "backslashreplace" (and the Prometheus output) writes it
 */
static void json_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_seq(p);
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else if (!n)
			fprintf(f, "\\\\x%02x", *p);
		else
			fwrite(p, 1, n, f);
		if (!n)
			n = 1;
		p += n;
	}
	fputc('"', f);
}

/* what comes before a member's key or an element: a comma, a line break */
static void json_sep(struct json *j)
{
	int d = j->depth;

	if (j->keyed) { /* the value of the key just written */
		j->keyed = false;
		return;
	}
	if (!d)
		return;
	if (!j->empty[d])
		fputc(',', j->f);
	if (j->pending >= 0)
		fprintf(j->f, "\n%*s", j->pending, "");
	else if (j->rows[d])
		fprintf(j->f, "\n%*s", j->rows[d], "");
	else if (!j->empty[d])
		fputc(' ', j->f);
	j->pending = -1;
	j->empty[d] = false;
}

void json_open(struct json *j, char bracket, int rows)
{
	json_sep(j);
	fputc(bracket, j->f);
	j->depth++;
	j->empty[j->depth] = true;
	j->rows[j->depth] = rows;
	j->close[j->depth] = bracket == '{' ? '}' : ']';
}

void json_close(struct json *j)
{
	int d = j->depth;

	if (j->pending >= 0)
		fprintf(j->f, "\n%*s", j->pending, "");
	else if (j->rows[d] && !j->empty[d])
		fprintf(j->f, "\n%*s", j->rows[d] - 2, "");
	fputc(j->close[d], j->f);
	j->pending = -1;
	if (--j->depth == 0)
		fputc('\n', j->f);
}

void json_break(struct json *j, int indent)
{
	j->pending = indent;
}

void json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_quote(j->f, key);
	fputs(": ", j->f);
	j->keyed = true;
}

void json_str(struct json *j, const char *s)
{
	json_sep(j);
	if (s)
		json_quote(j->f, s);
	else
		fputs("null", j->f);
}

static void json_bool(struct json *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->f);
}

static void json_int(struct json *j, long long v)
{
	json_sep(j);
	fprintf(j->f, "%lld", v);
}

void json_num(struct json *j, double v)
{
	json_sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void json_kv(struct json *j, const char *key, const char *value)
{
	json_key(j, key);
	json_str(j, value);
}

void json_kb(struct json *j, const char *key, bool value)
{
	json_key(j, key);
	json_bool(j, value);
}

void json_ki(struct json *j, const char *key, long long value)
{
	json_key(j, key);
	json_int(j, value);
}

void json_kn(struct json *j, const char *key, double value)
{
	json_key(j, key);
	json_num(j, value);
}

/* The usage error for getopt_long()'s '?' (an unknown option, or one without
 * its argument) with @optstring, with a hint where the global -v (--verbose)
 * was meant: after COMMAND, -v is --var VAR=VALUE or no option at all. */
static int bad_option(const struct cmd *c, char **argv, const char *optstring)
{
	bool verbose = optopt == 'v' || (optind > 0 && !strcmp(argv[optind - 1], "--verbose"));

	if (verbose && strstr(optstring, "v:"))
		return usage_error(c,
				   "-v after '%s' is --var VAR=VALUE; -v before it is --verbose "
				   "(%s -v %s ...)",
				   c->name, program, c->name);
	if (verbose)
		return usage_error(c, "-v, --verbose goes before the command: %s -v %s ...",
				   program, c->name);
	return usage_error(c, "bad option (see %s %s --help)", program, c->name);
}

/* what option @e sets: 0, or a usage error's status */
static int set_option(const struct cmd *c, const struct cmd_opt *e)
{
	struct cmd_vars *vars = e->dest;

	switch (e->kind) {
	case OPT_BOOL:
		*(bool *)e->dest = true;
		return 0;
	case OPT_FLAG:
		*(unsigned *)e->dest |= e->bit;
		return 0;
	case OPT_STR:
		*(const char **)e->dest = optarg;
		return 0;
	case OPT_VAR:
		if (vars->n == MAX_VARS || !strchr(optarg, '='))
			return usage_error(c, "-v takes VAR=VALUE (at most %d)", MAX_VARS);
		vars->v[vars->n++] = optarg;
		return 0;
	default:
		return e->call(c, e, optarg);
	}
}

#define CMD_OPTS_MAX 24

int cmd_parse(const struct cmd *c, int argc, char **argv, const struct cmd_opt *opts,
	      const char *order)
{
	struct option lo[CMD_OPTS_MAX + 2] = { { "help", no_argument, NULL, 'h' } };
	char optstr[2 * CMD_OPTS_MAX + 4];
	size_t n = 1, len = (size_t)snprintf(optstr, sizeof(optstr), "%s", order);
	int o;

	for (const struct cmd_opt *e = opts; e->name || e->letter; e++) {
		int arg = e->kind != OPT_BOOL && e->kind != OPT_FLAG && e->kind != OPT_CALL0;
		if (!e->name) /* the operands' entry (letter 1) */
			continue;
		lo[n] = (struct option){ e->name, arg, NULL, e->letter };
		if (!e->letter) /* a long option only: its index as getopt's value */
			lo[n].val = 256 + (int)(e - opts);
		if (e->letter > 1)
			optstr[len++] = (char)e->letter;
		if (e->letter > 1 && arg)
			optstr[len++] = ':';
		n++;
	}
	strcpy(optstr + len, "h");
	lo[n] = (struct option){ 0 };
	/*
	 * Not optind = 1: glibc reads the ordering ('+', '-', $POSIXLY_CORRECT)
	 * when optind is 0 only, so with 1 a command kept that of main()'s "+"
	 * parse of the global options, and stopped at its first operand
	 * ("apply PROFILE --dry-run": "apply takes one PROFILE").
	 */
	optind = 0;
	while ((o = getopt_long(argc, argv, optstr, lo, NULL)) != -1) {
		const struct cmd_opt *e = opts;
		if (o == 'h') {
			print_cmd_help(c, stdout);
			exit(0);
		}
		while ((e->name || e->letter) && e->letter != o && 256 + (e - opts) != o)
			e++;
		if (!e->name && e->letter != 1) {
			if (*order == '-') /* compare's message, as it always was */
				usage_error(c, "bad option");
			else
				bad_option(c, argv, optstr);
			return -1;
		}
		if (set_option(c, e))
			return -1;
	}
	return optind;
}

int opt_format(const struct cmd *c, const struct cmd_opt *e, const char *arg)
{
	static const char *const names[] = { "text", "json", "prometheus" };
	int *format = e->dest;

	if (e->kind == OPT_CALL0) { /* --json */
		*format = FORMAT_JSON;
		return 0;
	}
	for (int i = FORMAT_TEXT; i <= FORMAT_PROMETHEUS; i++)
		if (!strcmp(arg, names[i]))
			*format = i;
	if (strcmp(arg, names[*format]))
		return usage_error(c, "--format must be text, json or prometheus");
	return 0;
}

int parse_simple(const struct cmd *c, int argc, char **argv, bool *json)
{
	const struct cmd_opt opts[] = { OPT("json", 'j', OPT_BOOL, json), { 0 } };

	return cmd_parse(c, argc, argv, opts, "");
}

const char *or_str(const char *s, const char *fallback)
{
	if (s)
		return s;
	return fallback;
}

void print_if(const char *before, const char *s, const char *after)
{
	if (s)
		printf("%s%s%s", before, s, after);
}

void print_changes(struct perftune_tx *tx, bool dry)
{
	struct perftune_change_iter *it;
	const struct perftune_change *e;

	if (perftune_tx_changes(tx, &it) < 0)
		return;
	while ((e = perftune_change_iter_next(it))) {
		unsigned fl = perftune_change_flags(e);
		const char *note = perftune_change_note(e), *old = perftune_change_old_value(e);
		if (!dry && !(fl & (PERFTUNE_CHANGE_WRITTEN | PERFTUNE_CHANGE_UNCHANGED |
				    PERFTUNE_CHANGE_GIVEN_BACK)))
			continue;
		if (!old || !*old)
			old = "?";
		printf("%s: %s -> %s", perftune_change_key(e), old, perftune_change_new_value(e));
		if (fl & PERFTUNE_CHANGE_UNCHANGED)
			fputs(" (unchanged)", stdout);
		if (fl & PERFTUNE_CHANGE_GIVEN_BACK)
			fputs(" (given back: only the replaced transaction had it)", stdout);
		print_if(" (", note, ")");
		putchar('\n');
	}
	perftune_change_iter_free(it);
}

void print_changes_json(struct json *j, struct perftune_tx *tx, bool dry)
{
	struct perftune_change_iter *it;
	const struct perftune_change *e;

	json_break(j, 2);
	json_key(j, "changes");
	json_open(j, '[', 4);
	if (perftune_tx_changes(tx, &it) >= 0) {
		while ((e = perftune_change_iter_next(it))) {
			unsigned fl = perftune_change_flags(e);
			if (!dry && !(fl & (PERFTUNE_CHANGE_WRITTEN | PERFTUNE_CHANGE_UNCHANGED |
					    PERFTUNE_CHANGE_GIVEN_BACK)))
				continue;
			json_open(j, '{', 0);
			json_kv(j, "key", perftune_change_key(e));
			json_kv(j, "old", perftune_change_old_value(e));
			json_kv(j, "new", perftune_change_new_value(e));
			json_kb(j, "unchanged", fl & PERFTUNE_CHANGE_UNCHANGED);
			if (fl &
			    PERFTUNE_CHANGE_GIVEN_BACK) /* only after a replace: old output unchanged */
				json_kb(j, "given_back", true);
			json_kv(j, "note", perftune_change_note(e));
			json_close(j);
		}
		perftune_change_iter_free(it);
	}
	json_close(j);
}

int commit_tx(struct perftune_ctx *ctx, struct perftune_tx *tx, bool hold, sigset_t *set)
{
	int r;

	/* a signal during the commit is taken after it, and rolls it back */
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	if (hold)
		sigprocmask(SIG_BLOCK, set, NULL);
	r = perftune_tx_commit(tx);
	return r < 0 ? lib_error(ctx, r, "commit") : 0;
}

/* the live process that holds transaction @name (status shows its keys), or 0 */
static pid_t holder_of(struct perftune_ctx *ctx, const char *name)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;
	pid_t pid = 0;

	if (perftune_status(ctx, &it) < 0)
		return 0;
	while ((e = perftune_status_iter_next(it)))
		if (!strcmp(perftune_status_entry_tx_name(e), name) &&
		    (perftune_status_entry_flags(e) & PERFTUNE_STATUS_HELD))
			pid = perftune_status_entry_pid(e);
	perftune_status_iter_free(it);
	return pid;
}

pid_t held_elsewhere(struct perftune_ctx *ctx, const char *name)
{
	pid_t pid = holder_of(ctx, name);

	return pid == getpid() ? 0 : pid;
}

int hold_until_signal(struct perftune_ctx *ctx, struct perftune_tx **txp, sigset_t *set,
		      hold_reload_fn reload, void *ud)
{
	char name[128]; /* a reload frees the transaction it replaces, and its name */
	int sig = 0, r;
	bool ours;

	snprintf(name, sizeof(name), "%s", perftune_tx_name(*txp));
	printf("holding transaction '%s' (pid %d); SIGTERM or Ctrl-C restores it%s\n", name,
	       getpid(), reload ? ", SIGHUP reloads it" : "");
	fflush(stdout);
	while (sigwait(set, &sig) == 0 && sig == SIGHUP && reload)
		reload(ctx, txp, ud);		 /* a failure keeps what is in force: it says why */
	ours = holder_of(ctx, name) == getpid(); /* else perftune_tx_replace() took it over */
	r = perftune_tx_rollback(*txp);
	if (r < 0)
		return lib_error(ctx, r, "rollback");
	if (!ours && r == 0)
		printf("transaction '%s' is not held here any more (replaced): nothing restored "
		       "(signal %d)\n",
		       name, sig);
	else
		printf("restored transaction '%s' (signal %d)\n", name, sig);
	return 0;
}

/* ---- files written on a path the caller gave ---- */

static const char *file_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISBLK(m))
		return "a block device";
	return "not a regular file";
}

/* the directory of @path (O_PATH) in o->dfd, its last component in o->name */
static int out_dir(struct out_file *o, const char *path, char *why, size_t size)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int r;

	*o = (struct out_file){ .fd = -1, .dfd = -1, .name = slash ? slash + 1 : path };
	if (!*o->name) {
		snprintf(why, size, "it names a directory, not a file");
		return -EISDIR;
	}
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	o->dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = o->dfd < 0 ? -errno : 0;
	if (r < 0)
		snprintf(why, size, "directory %s: %s", dir, strerror(-r));
	free(dir);
	return r;
}

/* what is at o->name now (st_mode 0: nothing) may be replaced, or written in
 * place (a character device) */
static int out_target(struct out_file *o, struct stat *st, char *why, size_t size)
{
	struct stat d;

	if (fstatat(o->dfd, o->name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		int r = -errno;
		st->st_mode = 0;
		if (r == -ENOENT)
			return 0;
		snprintf(why, size, "%s", strerror(-r));
		return r;
	}
	if (S_ISCHR(st->st_mode))
		return 0;
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, size, "it is %s: perftune writes regular files only%s",
			 file_kind(st->st_mode),
			 S_ISLNK(st->st_mode) ? ", never through a link (give the file's own path)"
					      : "");
		return -EPERM;
	}
	/* protected_regular: another user's file in a sticky directory others write */
	if (st->st_uid != geteuid() && fstat(o->dfd, &d) == 0 && (d.st_mode & S_ISVTX) &&
	    (d.st_mode & (S_IWGRP | S_IWOTH)) && st->st_uid != d.st_uid) {
		snprintf(why, size,
			 "it belongs to uid %u, in a sticky directory that others may write: "
			 "perftune does not replace another user's file there",
			 (unsigned)st->st_uid);
		return -EPERM;
	}
	return 0;
}

int out_file_check(const char *path, char *why, size_t size)
{
	struct out_file o;
	struct stat st;
	int r = out_dir(&o, path, why, size);

	if (r >= 0)
		r = out_target(&o, &st, why, size);
	out_file_close(&o);
	return r;
}

/* a character device: opened as it is, no O_CREAT, no truncation, no wait */
static int out_in_place(struct out_file *o, char *why, size_t size)
{
	struct stat st;

	o->fd = openat(o->dfd, o->name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0 || fstat(o->fd, &st) < 0) {
		int r = -errno;
		snprintf(why, size, "%s", strerror(-r));
		return r;
	}
	if (!S_ISCHR(st.st_mode)) { /* replaced since it was looked at */
		snprintf(why, size, "it is %s now: perftune writes regular files only",
			 file_kind(st.st_mode));
		return -EPERM;
	}
	return 0;
}

int out_file_open(struct out_file *o, const char *path, mode_t mode, char *why, size_t size)
{
	struct stat st;
	uint64_t rnd;
	int r = out_dir(o, path, why, size);

	if (r >= 0)
		r = out_target(o, &st, why, size);
	if (r >= 0 && S_ISCHR(st.st_mode))
		r = out_in_place(o, why, size);
	if (r < 0 || S_ISCHR(st.st_mode))
		return r;
	/* "<name>.perftune-<random>", or without <name> where that is too long */
	for (int i = 0; o->fd < 0 && i < 100; i++) {
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			      ((uint64_t)i << 40);
		free(o->tmp);
		if (asprintf(&o->tmp, "%s.perftune-%012llx",
			     strlen(o->name) < NAME_MAX - 22 ? o->name : "",
			     (unsigned long long)(rnd & 0xffffffffffffULL)) < 0) {
			o->tmp = NULL;
			snprintf(why, size, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		o->fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		if (o->fd < 0 && errno != EEXIST)
			break;
	}
	if (o->fd < 0 || fchmod(o->fd, mode) < 0) {
		r = -errno;
		snprintf(why, size, "cannot create a file beside it: %s", strerror(errno));
		return r;
	}
	return 0;
}

int out_file_commit(struct out_file *o, char *why, size_t size)
{
	if (!o->tmp)
		return 0;
	if (renameat(o->dfd, o->tmp, o->dfd, o->name) < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return -errno;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void out_file_close(struct out_file *o)
{
	if (o->tmp && o->fd >= 0)
		unlinkat(o->dfd, o->tmp, 0);
	free(o->tmp);
	o->tmp = NULL;
	if (o->fd >= 0)
		close(o->fd);
	if (o->dfd >= 0)
		close(o->dfd);
	o->fd = o->dfd = -1;
}

mode_t out_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0644 & ~mask;
}

/* @text to @path as an out_file, 0644; 0 or -errno with the reason in @why */
static int write_file(const char *path, const char *text, char *why, size_t size)
{
	struct out_file o;
	size_t len = strlen(text), done = 0;
	int r = out_file_open(&o, path, 0644, why, size);

	while (r >= 0 && done < len) {
		ssize_t n = write(o.fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			snprintf(why, size, "%s", strerror(-r));
		}
		done += n > 0 ? (size_t)n : 0;
	}
	if (r >= 0)
		r = out_file_commit(&o, why, size);
	out_file_close(&o);
	return r;
}

int write_output(const char *output, const char *text)
{
	char why[256] = "";
	int r;

	if (!output || !strcmp(output, "-"))
		return fputs(text, stdout) < 0 ? EXIT_FAIL : 0;
	r = write_file(output, text, why, sizeof(why));
	if (r < 0)
		fprintf(stderr, "%s: %s: %s\n", program, output, *why ? why : strerror(-r));
	return r < 0 ? EXIT_FAIL : 0;
}

char *setting_eq(const char *kv)
{
	for (const char *p = kv; *p; p++) {
		if (*p == '=')
			return (char *)p;
		if (*p != '[')
			continue;
		while (*++p && *p != ']') /* a key's bracket: '\' takes the next character */
			if (*p == '\\' && p[1])
				p++;
		if (!*p)
			return NULL;
	}
	return NULL;
}
