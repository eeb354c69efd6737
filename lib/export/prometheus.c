// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perftune_status() and perftune_verify*() as Prometheus metrics, in the text
 * exposition format that node_exporter's textfile collector reads: per key
 * whether the value its transaction wrote is in force and whether it
 * drifted, per transaction whether it is held or orphaned, per verified
 * setting whether it is in force, and counts per state.  Every family is
 * written with its HELP and TYPE lines and all its samples together (the
 * parser refuses a family split in two), label values escaped as the
 * exposition format says (backslash, double quote, newline) and always valid
 * UTF-8: a byte that is not part of a valid UTF-8 sequence (a path or a
 * kernel name may hold any byte) is written as the four characters \xHH, as
 * Python's "backslashreplace" does.  No two samples of a family have the
 * same labels: a verification that checks one key twice from one origin
 * (verify K=60 K=10) gives one sample, 1 only if every check of it is in force.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"
#include "macro.h"
#include "shared/array.h"
#include "shared/buf.h"
#include "shared/utf8.h"
#include "core/ctx.h"

enum key_state { K_IN_FORCE, K_DRIFT, K_SHADOWED, K_NOT_WRITTEN, K_UNREADABLE, K_NSTATES };
static const char *const key_states[] = { "in_force", "drift", "shadowed", "not_written",
					  "unreadable" };

enum tx_state { T_APPLIED, T_HELD, T_ORPHANED, T_INCOMPLETE, T_UNREADABLE, T_NSTATES };
static const char *const tx_states[] = { "applied", "held", "orphaned", "incomplete", "unreadable" };

struct metrics {
	const struct perftune_status_entry **e; /* valid while the status iterator lives */
	size_t n, cap;
};

static enum key_state key_state(const struct perftune_status_entry *e)
{
	unsigned fl = perftune_status_entry_flags(e);

	if (!perftune_status_entry_written(e))
		return K_NOT_WRITTEN;
	if (fl & PERFTUNE_STATUS_SHADOWED)
		return K_SHADOWED; /* a later transaction's value is the one in force */
	if (!perftune_status_entry_current(e))
		return K_UNREADABLE;
	if (fl & PERFTUNE_STATUS_DRIFT)
		return K_DRIFT;
	return K_IN_FORCE;
}

static enum tx_state tx_state(const struct perftune_status_entry *e)
{
	unsigned fl = perftune_status_entry_flags(e);

	if (!*perftune_status_entry_key(e))
		return T_UNREADABLE; /* the journal's one entry says why */
	if (fl & PERFTUNE_STATUS_ORPHANED)
		return T_ORPHANED;
	if (fl & PERFTUNE_STATUS_HELD)
		return T_HELD;
	if (fl & PERFTUNE_STATUS_COMMITTED)
		return T_APPLIED;
	return T_INCOMPLETE;
}

/* a label value: \ " and newline escaped, as the exposition format wants, a
 * byte of no valid UTF-8 sequence as \xHH (its backslash escaped too) */
static void label(struct pt_buf *b, const char *name, const char *v)
{
	pt_buf_printf(b, "%s=\"", name);
	for (const unsigned char *s = (const unsigned char *)(v ? v : ""); *s;) {
		size_t n = pt_utf8_len(s);
		if (*s == '\\' || *s == '"')
			pt_buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			pt_buf_puts(b, "\\n");
		else if (!n)
			pt_buf_printf(b, "\\\\x%02x", *s);
		else
			pt_buf_add(b, (const char *)s, n);
		s += n ? n : 1;
	}
	pt_buf_puts(b, "\"");
}

static void family(struct pt_buf *b, const char *name, const char *help)
{
	pt_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* the first entry of each transaction: entries of one journal come together */
static bool first_of_tx(const struct metrics *m, size_t i)
{
	return i == 0 || strcmp(perftune_status_entry_tx_name(m->e[i - 1]),
				perftune_status_entry_tx_name(m->e[i]));
}

static void per_key(struct pt_buf *b, const struct metrics *m, const char *name, const char *help,
		    bool drift)
{
	family(b, name, help);
	for (size_t i = 0; i < m->n; i++) {
		enum key_state s = key_state(m->e[i]);
		if (!*perftune_status_entry_key(m->e[i]))
			continue; /* an unreadable journal: perftune_journal_unreadable */
		pt_buf_printf(b, "%s{", name);
		label(b, "key", perftune_status_entry_key(m->e[i]));
		pt_buf_puts(b, ",");
		label(b, "transaction", perftune_status_entry_tx_name(m->e[i]));
		pt_buf_printf(b, "} %d\n", drift ? s == K_DRIFT : s == K_IN_FORCE);
	}
}

static void per_tx(struct pt_buf *b, const struct metrics *m, const char *name, const char *help,
		   unsigned flag)
{
	family(b, name, help);
	for (size_t i = 0; i < m->n; i++) {
		unsigned fl = perftune_status_entry_flags(m->e[i]);
		if (!first_of_tx(m, i))
			continue;
		pt_buf_printf(b, "%s{", name);
		label(b, "transaction", perftune_status_entry_tx_name(m->e[i]));
		if (flag)
			pt_buf_printf(b, "} %d\n", !!(fl & flag));
		else
			pt_buf_printf(b, "} %d\n", !*perftune_status_entry_key(m->e[i]));
	}
}

static void counts(struct pt_buf *b, const struct metrics *m)
{
	size_t nk[K_NSTATES] = { 0 }, nt[T_NSTATES] = { 0 };

	for (size_t i = 0; i < m->n; i++) {
		if (*perftune_status_entry_key(m->e[i]))
			nk[key_state(m->e[i])]++;
		if (first_of_tx(m, i))
			nt[tx_state(m->e[i])]++;
	}
	family(b, "perftune_keys", "Keys of journaled transactions, per state.");
	for (size_t s = 0; s < K_NSTATES; s++)
		pt_buf_printf(b, "perftune_keys{state=\"%s\"} %zu\n", key_states[s], nk[s]);
	family(b, "perftune_transactions", "Journaled transactions, per state.");
	for (size_t s = 0; s < T_NSTATES; s++)
		pt_buf_printf(b, "perftune_transactions{state=\"%s\"} %zu\n", tx_states[s], nt[s]);
	family(b, "perftune_orphaned_journals",
	       "Journals whose holder process is gone: perftune restore --orphans gives them back.");
	pt_buf_printf(b, "perftune_orphaned_journals %zu\n", nt[T_ORPHANED]);
	family(b, "perftune_holds", "Transactions held by a live process (perftune set --hold).");
	pt_buf_printf(b, "perftune_holds %zu\n", nt[T_HELD]);
}

static void render(struct pt_buf *b, const struct metrics *m)
{
	per_key(b, m, "perftune_tunable_in_force",
		"1 if the value the transaction wrote is the key's value now, else 0 "
		"(drift, shadowed, not written, unreadable).",
		false);
	per_key(b, m, "perftune_tunable_drift",
		"1 if the key was changed behind its transaction's back.", true);
	per_tx(b, m, "perftune_transaction_held", "1 if a live process holds the transaction.",
	       PERFTUNE_STATUS_HELD);
	per_tx(b, m, "perftune_transaction_orphaned",
	       "1 if the transaction's holder process is gone.", PERFTUNE_STATUS_ORPHANED);
	per_tx(b, m, "perftune_transaction_committed", "1 if the transaction's commit completed.",
	       PERFTUNE_STATUS_COMMITTED);
	per_tx(b, m, "perftune_journal_unreadable",
	       "1 if the transaction's journal cannot be read (perftune status says why).", 0);
	counts(b, m);
}

static int status_metrics_impl(struct perftune_ctx *ctx, unsigned flags, char **text)
{
	struct perftune_status_iter *it = NULL;
	const struct perftune_status_entry *e;
	struct metrics m = { 0 };
	struct pt_buf b = { 0 };
	int r;

	if (!ctx || !text || flags)
		return -EINVAL;
	pt_lock(ctx); /* the journals stay as they are read till the text is made */
	r = perftune_status(ctx, &it); /* clears the message; leaves @it NULL on failure */
	while (r >= 0 && (e = perftune_status_iter_next(it))) {
		r = pt_grow(&m.e, &m.cap, m.n + 1, 16);
		if (r >= 0)
			m.e[m.n++] = e;
	}
	if (r >= 0) {
		render(&b, &m);
		*text = pt_buf_steal(&b);
		r = -ENOMEM;
		if (*text)
			r = (int)m.n;
	} else {
		free(pt_buf_steal(&b));
	}
	free(m.e);
	perftune_status_iter_free(it);
	pt_unlock(ctx);
	return r;
}

PERFTUNE_EXPORT int perftune_status_metrics(struct perftune_ctx *ctx, unsigned flags, char **text)
{
	return pt_api_ret(status_metrics_impl(ctx, flags, text));
}

/* ---- perftune verify: the checks of one verification ---- */

#define CHECK_NSTATES (PERFTUNE_CHECK_SKIPPED + 1)

/* "in force" -> "in_force": label values alike across the two outputs */
static void state_label(struct pt_buf *b, const char *name)
{
	pt_buf_puts(b, "state=\"");
	for (const char *s = name; *s; s++)
		pt_buf_add(b, *s == ' ' ? "_" : s, 1);
	pt_buf_puts(b, "\"");
}

/* a check's sample labels, and its place in the verification */
struct sample {
	const char *key, *origin;
	size_t i;
};

static int by_labels(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (!c)
		c = strcmp(x->origin, y->origin);
	if (!c)
		c = (x->i > y->i) - (x->i < y->i);
	return c;
}

/* @lead[i]: the first check with the labels of check @i, whose sample stands
 * for all of them (sorted, not compared pairwise: a verification of many
 * keys stays n log n); 0 or -ENOMEM */
static int same_labels(const struct perftune_check **v, size_t n, size_t *lead)
{
	struct sample *s = calloc(n + 1, sizeof(*s)); /* + 1: never calloc(0), maybe NULL */

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *o = perftune_check_origin(v[i]);
		const char *k = perftune_check_key(v[i]);
		s[i] = (struct sample){ k ? k : "", o ? o : "", i };
	}
	qsort(s, n, sizeof(*s), by_labels);
	for (size_t g = 0, e; g < n; g = e) {
		for (e = g + 1;
		     e < n && !strcmp(s[e].key, s[g].key) && !strcmp(s[e].origin, s[g].origin); e++)
			;
		for (size_t k = g; k < e; k++)
			lead[s[k].i] = s[g].i; /* the smallest index: sorted by it last */
	}
	free(s);
	return 0;
}

/* perftune_verify_in_force: one sample per key and origin, 1 if every check
 * of it is in force */
static int verify_in_force(struct pt_buf *b, const struct perftune_check **v, size_t n,
			   const char *what)
{
	size_t *lead = calloc(n + 1, sizeof(*lead)); /* + 1: never calloc(0), maybe NULL */
	bool *all = calloc(n + 1, sizeof(*all));
	int r = -ENOMEM;

	if (lead && all)
		r = same_labels(v, n, lead);
	for (size_t i = 0; r >= 0 && i < n; i++)
		all[i] = true;
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (perftune_check_status(v[i]) != PERFTUNE_CHECK_IN_FORCE)
			all[lead[i]] = false;
	family(b, "perftune_verify_in_force",
	       "1 if the setting reads back the value expected, else 0 (perftune verify).");
	for (size_t i = 0; r >= 0 && i < n; i++) {
		if (lead[i] != i)
			continue;
		pt_buf_puts(b, "perftune_verify_in_force{");
		label(b, "verified", what);
		pt_buf_puts(b, ",");
		label(b, "key", perftune_check_key(v[i]));
		pt_buf_puts(b, ",");
		label(b, "origin", perftune_check_origin(v[i]));
		pt_buf_printf(b, "} %d\n", all[i]);
	}
	free(lead);
	free(all);
	return r;
}

static int verify_metrics_impl(struct perftune_check_iter *it, const char *what, char **text)
{
	const struct perftune_check *c;
	const struct perftune_check **v = NULL;
	size_t n = 0, cap = 0, count[CHECK_NSTATES] = { 0 }, bad = 0;
	struct pt_buf b = { 0 };
	int r = 0;

	if (!it || !what || !text)
		return -EINVAL;
	while (r >= 0 && (c = perftune_check_iter_next(it))) {
		r = pt_grow(&v, &cap, n + 1, 16);
		if (r >= 0)
			v[n++] = c;
	}
	if (r >= 0)
		r = verify_in_force(&b, v, n, what);
	if (r < 0) {
		free(pt_buf_steal(&b));
		free(v);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		int st = perftune_check_status(v[i]);
		if (st >= 0 && st < CHECK_NSTATES)
			count[st]++;
		bad += st == PERFTUNE_CHECK_DIFFERS || st == PERFTUNE_CHECK_CLAMPED ||
		       st == PERFTUNE_CHECK_NEEDS_REBOOT;
	}
	family(&b, "perftune_verify_checks", "Settings verified, per state.");
	for (int s = 0; s < CHECK_NSTATES; s++) {
		pt_buf_puts(&b, "perftune_verify_checks{");
		label(&b, "verified", what);
		pt_buf_puts(&b, ",");
		state_label(&b, perftune_check_status_name(s));
		pt_buf_printf(&b, "} %zu\n", count[s]);
	}
	family(&b, "perftune_verify_not_in_force",
	       "Settings that differ, are clamped or need a reboot.");
	pt_buf_puts(&b, "perftune_verify_not_in_force{");
	label(&b, "verified", what);
	pt_buf_printf(&b, "} %zu\n", bad);
	free(v);
	*text = pt_buf_steal(&b);
	if (*text)
		return (int)bad;
	return -ENOMEM;
}

PERFTUNE_EXPORT int perftune_verify_metrics(struct perftune_check_iter *it, const char *what,
					    char **text)
{
	return pt_api_ret(verify_metrics_impl(it, what, text));
}
