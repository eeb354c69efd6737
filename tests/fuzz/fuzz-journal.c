// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Journals: the input becomes <jdir>/fuzz.journal (mode 0600 in a 0700 dir),
 * then pt_journal_load, perftune_status, perftune_export_transaction and
 * perftune_restore run on it.  "@BOOT@" in the input is replaced by this
 * boot's id, so that a corpus input can be of this boot or of another one.
 *
 * A first byte 0xF1..0xF8 makes the journal hostile instead (the rest is the
 * content): group/other-readable, a symlink, a hard link, a directory, a
 * group-readable or symlinked journal dir, another owner, a FIFO.  Hostile or not,
 * a journal that fails to load is refused with a one-line message, restore
 * writes nothing, and the file is left byte for byte as it was.
 *
 * Oracle (issue 27, hole B): a journal that loads never yields a key or a
 * value its text did not hold whole, ended by a newline: every original,
 * every written value and every identity (format 2's "ident" records: what
 * an original belongs to, issue 33) is the decoded tab-separated tail of a
 * complete line.
 * Each input also runs cut short at a point it chooses (its last byte), as
 * an append interrupted by a full /run or a kill leaves a journal.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz-common.h"

enum shape {
	REGULAR,
	LOOSE_MODE,  /* 0644 */
	SYMLINK,     /* fuzz.journal -> a private file elsewhere */
	HARD_LINK,   /* a second name for it */
	DIRECTORY,   /* fuzz.journal is a directory */
	LOOSE_DIR,   /* the journal dir is 0750 */
	SYMLINK_DIR, /* the journal dir is a symlink to a 0700 dir */
	OTHER_OWNER, /* owned by nobody (needs root, else REGULAR) */
	FIFO,	     /* fuzz.journal is a FIFO: nothing may wait on it (hole D) */
	N_SHAPES,
};

static char boot[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, boot, sizeof(boot) - 1) : -1;

	(void)argc, (void)argv;
	if (fd >= 0)
		close(fd);
	boot[n > 0 ? n : 0] = '\0';
	pt_trim(boot);
	fz_init();
	return 0;
}

/* the content with "@BOOT@" expanded; *len updated */
static char *expand(const uint8_t *data, size_t *len)
{
	size_t bl = strlen(boot), n = 0, cap = *len * (bl > 6 ? bl / 6 + 1 : 1) + 1;
	char *out = malloc(cap);

	if (!out)
		fz_fail("out of memory");
	for (size_t i = 0; i < *len;) {
		if (i + 6 <= *len && !memcmp(data + i, "@BOOT@", 6)) {
			memcpy(out + n, boot, bl);
			n += bl, i += 6;
		} else {
			out[n++] = (char)data[i++];
		}
	}
	*len = n;
	return out;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char *buf;
	ssize_t n;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size + 1) : -1;
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

/* Lay out the journal dir; returns the path of the file holding the content, or NULL. */
static const char *lay_out(enum shape shape, const char *top, const char *jdir, const char *text,
			   size_t len)
{
	static char file[PATH_MAX], other[PATH_MAX];
	char real[PATH_MAX];

	fz_rmtree(top);
	if (mkdir(top, 0700) < 0)
		fz_fail("mkdir %s: %s", top, strerror(errno));
	snprintf(real, sizeof(real), "%s/real", top);
	if (shape == SYMLINK_DIR) {
		if (mkdir(real, 0700) < 0 || symlink(real, jdir) < 0)
			fz_fail("symlinked journal dir: %s", strerror(errno));
	} else if (mkdir(jdir, shape == LOOSE_DIR ? 0750 : 0700) < 0 ||
		   chmod(jdir, shape == LOOSE_DIR ? 0750 : 0700) < 0) {
		fz_fail("mkdir %s: %s", jdir, strerror(errno));
	}
	snprintf(file, sizeof(file), "%s/fuzz.journal", jdir);
	snprintf(other, sizeof(other), "%s/elsewhere.journal", top);
	switch (shape) {
	case SYMLINK:
		fz_spill(other, text, len, 0600);
		if (symlink(other, file) < 0)
			fz_fail("symlink: %s", strerror(errno));
		return other;
	case HARD_LINK:
		fz_spill(file, text, len, 0600);
		if (link(file, other) < 0)
			fz_fail("link: %s", strerror(errno));
		return file;
	case DIRECTORY:
		if (mkdir(file, 0700) < 0)
			fz_fail("mkdir: %s", strerror(errno));
		return NULL;
	case FIFO:
		if (mkfifo(file, 0600) < 0)
			fz_fail("mkfifo: %s", strerror(errno));
		return NULL;
	default:
		fz_spill(file, text, len, shape == LOOSE_MODE ? 0644 : 0600);
		if (shape == OTHER_OWNER && chown(file, 65534, 65534) < 0)
			fz_fail("chown: %s", strerror(errno));
		return file;
	}
}

/* %XX decoded, as the journal escapes; 0 if malformed */
static bool decode(const char *in, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (o + 1 >= size)
			return false;
		if (in[i] != '%') {
			out[o++] = in[i];
			continue;
		}
		if (i + 2 >= n || sscanf(in + i + 1, "%2x", &v) != 1)
			return false;
		out[o++] = (char)v;
		i += 2;
	}
	out[o] = '\0';
	return true;
}

/* does a complete line of @text end in "<key>\t<value>\n", both decoded? */
static bool held_whole(const char *text, size_t len, const char *key, const char *value)
{
	/* a line of the journal is at most a key and a value escaped, three bytes a byte */
	static char k[PERFTUNE_KEY_MAX * 3 + 3 * PT_VAL + 64], v[sizeof(k)];

	for (const char *line = text, *nl; (nl = memchr(line, '\n', len - (size_t)(line - text)));
	     line = nl + 1) {
		const char *tab = memchr(line, '\t', (size_t)(nl - line));
		const char *ks = memchr(line, ' ', (size_t)(nl - line)); /* after the tag */
		if (!tab || !ks || ks > tab)
			continue;
		ks++;
		if (!strncmp(line, "orig ", 5) && (ks = memchr(ks, ' ', (size_t)(tab - ks))))
			ks++; /* and after its sequence number */
		if (!ks)
			continue;
		if (decode(ks, (size_t)(tab - ks), k, sizeof(k)) &&
		    decode(tab + 1, (size_t)(nl - tab - 1), v, sizeof(v)) && !strcmp(k, key) &&
		    !strcmp(v, value))
			return true;
	}
	return false;
}

static void check_whole(const struct pt_jinfo *ji, const char *text, size_t len)
{
	for (size_t i = 0; i < ji->n; i++) {
		const struct pt_jentry *e = &ji->e[i];
		if (!e->key || !e->orig)
			fz_fail("entry %zu without key or original", i);
		if (!held_whole(text, len, e->key, e->orig))
			fz_fail("original '%s' of %s is not a whole record of the text", e->orig,
				e->key);
		if (e->written && !held_whole(text, len, e->key, e->written))
			fz_fail("written '%s' of %s is not a whole record of the text", e->written,
				e->key);
		if (e->ident && !held_whole(text, len, e->key, e->ident))
			fz_fail("identity '%s' of %s is not a whole record of the text", e->ident,
				e->key);
		if (e->ident && ji->version < 2)
			fz_fail("identity '%s' of %s in a journal of format %d", e->ident, e->key,
				ji->version);
	}
}

/* the same text cut short at @cut: it loads as what its complete lines say */
static void check_cut(const char *top, const char *jdir, const char *text, size_t cut)
{
	struct perftune_ctx *ctx;
	struct pt_jinfo ji;

	lay_out(REGULAR, top, jdir, text, cut);
	ctx = fz_ctx(jdir);
	if (pt_journal_load(ctx, "fuzz", &ji) == 0) {
		check_whole(&ji, text, cut);
		pt_jinfo_free(&ji);
	}
	perftune_ctx_unref(ctx);
}

static void read_side(struct perftune_ctx *ctx)
{
	struct perftune_status_iter *it;
	const struct perftune_status_entry *e;

	if (perftune_status(ctx, &it) == 0) {
		while ((e = perftune_status_iter_next(it)))
			if (!perftune_status_entry_tx_name(e) || !perftune_status_entry_key(e))
				fz_fail("status item without name or key");
		perftune_status_iter_free(it);
	}
	for (int f = PERFTUNE_EXPORT_SYSCTL; f <= PERFTUNE_EXPORT_TUNED; f++) {
		char *text = NULL;
		int r = perftune_export_transaction(ctx, "fuzz", f, &text);
		fz_check_err(ctx, r, "perftune_export_transaction");
		free(text);
	}
	if (fz_writes())
		fz_fail("status/export wrote %d times", fz_writes());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum shape shape = REGULAR;
	char top[PATH_MAX], jdir[PATH_MAX + 8], *text, *after;
	const char *file;
	struct perftune_ctx *ctx;
	struct pt_jinfo ji;
	size_t len, alen = 0;
	int r;

	if (size && data[0] >= 0xF1 && data[0] < 0xF0 + N_SHAPES) {
		shape = (enum shape)(data[0] - 0xF0);
		data++, size--;
	}
	if (shape == OTHER_OWNER && geteuid() != 0)
		shape = REGULAR;
	len = size;
	text = expand(data, &len);
	snprintf(top, sizeof(top), "%s/j", fz_scratch());
	snprintf(jdir, sizeof(jdir), "%s/journal", top);
	file = lay_out(shape, top, jdir, text, len);
	ctx = fz_ctx(jdir);

	r = pt_journal_load(ctx, "fuzz", &ji);
	fz_check_err(ctx, r, "pt_journal_load");
	if (r == 0) {
		if (shape != REGULAR)
			fz_fail("hostile journal (shape %d) loaded", shape);
		check_whole(&ji, text, len);
		pt_jinfo_free(&ji);
	}
	read_side(ctx);
	if (r < 0) {
		int rr = perftune_restore(ctx, "fuzz", 0);
		if (rr >= 0)
			fz_fail("restore of a journal that does not load returned %d", rr);
		fz_check_err(ctx, rr, "perftune_restore");
		if (fz_writes())
			fz_fail("restore of a refused journal wrote %d times", fz_writes());
		after = file ? slurp(file, &alen) : NULL;
		if (file && (!after || alen != len || memcmp(after, text, len)))
			fz_fail("a refused journal was changed (%zu -> %zu bytes)", len, alen);
		free(after);
	} else {
		/* every write fails (-EROFS): restore keeps the journal and says why */
		perftune_restore(ctx, "fuzz", PERFTUNE_RESTORE_FORCE);
	}
	perftune_ctx_unref(ctx);
	if (shape == REGULAR && len > 0) /* where an interrupted append would have stopped */
		check_cut(top, jdir, text, (size_t)data[size - 1] * 7919 % len);
	free(text);
	return 0;
}
