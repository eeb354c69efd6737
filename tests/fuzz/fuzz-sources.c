// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The parsers behind perftune_why() and the set/apply warnings, each fed
 * directly (no file I/O): the first byte chooses the parser, the rest is its
 * text, NUL bytes and all.  's': a sysctl.d file (lines as systemd's
 * read_line() ends them, names, globs); 'u': a udev rules file (continued
 * lines, tokens, escapes), matched against the fake machine's disks and a
 * NIC; anything else: /proc/cmdline (words, quotes).  Each index is then
 * asked for the sources of a few keys: every source has a location, no
 * value passes the value limit, a line number is within the text, the work
 * is linear in the text (a bound on the library's own count of steps), and
 * nothing is written.
 */
#include <errno.h>
#include <string.h>
#include "fuzz-common.h"
#include "why/why-internal.h"

#define KEYS 6

static struct perftune_ctx *ctx;
static struct pt_tunable tun[KEYS];
static struct pt_xnames xn[KEYS];
static size_t ntun;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const keys[KEYS] = {
		"sysctl.vm.swappiness", "sysctl.net.ipv4.conf.[eth0.100].rp_filter",
		"block.sda.scheduler",	"block.nvme0n1.read_ahead_kb",
		"thp.enabled",		"hugepages.nr",
	};
	char jdir[PATH_MAX];

	(void)argc, (void)argv;
	fz_init();
	snprintf(jdir, sizeof(jdir), "%s/journal", fz_scratch());
	ctx = fz_ctx(jdir);
	for (size_t i = 0; i < KEYS; i++) {
		if (pt_resolve_one(ctx, keys[i], &tun[ntun]) < 0)
			continue; /* not on this fake machine: fewer keys */
		if (tun[ntun].fam->export_names)
			tun[ntun].fam->export_names(ctx, &tun[ntun], "1", &xn[ntun]);
		ntun++;
	}
	if (ntun < 4)
		fz_fail("only %zu of the keys resolve on the fake machine", ntun);
	return 0;
}

static size_t lines_of(const uint8_t *data, size_t size)
{
	size_t n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n' || data[i] == '\r' || data[i] == '\0';
	return n;
}

static void check(const struct pt_srcs *v, size_t nlines, const char *what)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct pt_src *s = &v->s[i];
		const char *colon = strrchr(s->where, ':');
		if (!s->where[0] || !s->note || strlen(s->value) >= PT_VAL)
			fz_fail("%s: a source without a location or note, or a value too long",
				what);
		if (s->kind != PT_SRC_CMDLINE && colon && (size_t)atol(colon + 1) > nlines)
			fz_fail("%s: %s is past the text's %zu lines", what, s->where, nlines);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_why_work work = { 0 };
	struct pt_srcs v = { 0 };
	const char *what = "cmdline";
	char *text;
	size_t len, nlines;
	int r = 0;

	if (size < 1)
		return 0;
	len = size - 1;
	text = malloc(len + 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, len);
	text[len] = '\0';
	nlines = lines_of(data + 1, len);
	if (data[0] == 's') {
		struct pt_sysctld *s = NULL;
		what = "sysctl.d";
		r = pt_sysctld_parse(ctx, "etc/sysctl.d/50-fuzz.conf", text, len, &s, &work);
		for (size_t i = 0; i < ntun && r >= 0; i++)
			r = pt_sysctld_why(s, &tun[i], &xn[i], &v, &work);
		pt_sysctld_free(s);
	} else if (data[0] == 'u') {
		struct pt_udev_rules *u = NULL;
		what = "udev";
		r = pt_udev_rules_parse(ctx, "etc/udev/rules.d/50-fuzz.rules", text, len, &u, &work);
		for (size_t i = 0; i < ntun && r >= 0; i++)
			r = pt_udev_rules_why(u, &tun[i], &xn[i], &v, &work);
		pt_udev_rules_free(u);
	} else {
		struct pt_cmdline *c = NULL;
		r = pt_cmdline_parse(text, &c);
		for (size_t i = 0; i < ntun && r >= 0; i++)
			r = pt_cmdline_why(c, &tun[i], &xn[i], &v, &work);
		pt_cmdline_free(c);
		free(text);
	}
	if (r < 0 && r != -ENOMEM)
		fz_fail("a parser answered %d: only -ENOMEM is an error", r);
	check(&v, nlines, what);
	/* linear: a few steps per line and per source, for each key */
	if (work.steps > 8 * ntun * (nlines + v.n + 64))
		fz_fail("%zu steps for %zu lines and %zu sources", work.steps, nlines, v.n);
	pt_srcs_free(&v);
	if (fz_writes())
		fz_fail("the source parsers wrote %d kernel files", fz_writes());
	return 0;
}
