// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CPU (and node) lists and masks, the one module for them: bit masks of
 * PT_CPUS_MAX bits or fewer (bit i in byte i / 8), read from the kernel's list
 * syntax ("0-3,8", strict: what keys take) or from TuneD's (cpulist_unpack:
 * "0-3,^2", "!5", quotes, empty items, hex masks "0xf0" that may span
 * commas), written back as lists ("0,1,2", packed "0-2", with a prefix
 * "cpu0") and as TuneD's 8-digit hex groups ("0000000f").
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

void pt_cpus_set(unsigned char *m, long i, bool on)
{
	if (i < 0 || i >= PT_CPUS_MAX)
		return;
	if (on)
		m[i / 8] |= (unsigned char)(1u << (i % 8));
	else
		m[i / 8] &= (unsigned char)~(1u << (i % 8));
}

bool pt_cpus_has(const unsigned char *m, long i)
{
	return i >= 0 && i < PT_CPUS_MAX && (m[i / 8] & (1u << (i % 8)));
}

/*
 * "N" or "N-M" at *@s into @a, @b; *@s moves past it.  @strict: digits only
 * (the kernel's syntax); else strtol's (TuneD's int()).  -EINVAL if none.
 */
static int range(const char **s, long *a, long *b, bool strict)
{
	char *end;

	if (strict && !isdigit((unsigned char)**s))
		return -EINVAL;
	*a = strtol(*s, &end, 10);
	if (end == *s)
		return -EINVAL;
	*b = *a;
	*s = end;
	if (**s == '-') {
		const char *t = *s + 1;
		if (strict && !isdigit((unsigned char)*t))
			return -EINVAL;
		*b = strtol(t, &end, 10);
		if (end == t)
			return -EINVAL;
		*s = end;
	}
	return 0;
}

/* "0-3,8" -> bits; -EINVAL (syntax), -ERANGE (a > b, or past @nbits) */
int pt_parse_cpulist(const char *s, unsigned char *mask, int nbits)
{
	long a, b;

	memset(mask, 0, (size_t)(nbits + 7) / 8);
	if (!*s)
		return -EINVAL;
	while (*s) {
		if (range(&s, &a, &b, true) < 0)
			return -EINVAL;
		if (a > b || a < 0 || b >= nbits)
			return -ERANGE;
		for (long i = a; i <= b; i++)
			mask[i / 8] |= (unsigned char)(1u << (i % 8));
		if (*s == ',') {
			if (!*++s)
				return -EINVAL;
		} else if (*s) {
			return -EINVAL;
		}
	}
	return 0;
}

int pt_cpus_hex(const char *s, unsigned char *m)
{
	size_t n = strlen(s);
	long b = 0;

	for (size_t i = n; i-- > 2;) { /* skip "0x" */
		if (s[i] == ',')
			continue;
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
		int v = isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower(s[i]) - 'a' + 10;
		for (int k = 0; k < 4; k++, b++)
			pt_cpus_set(m, b, v & (1 << k));
	}
	return 0;
}

/* one item of TuneD's list ("3", "0-3"): the whole of @tok */
static int tuned_range(const char *tok, long *a, long *b)
{
	if (range(&tok, a, b, false) < 0)
		return -EINVAL;
	return *tok || *a < 0 || *b < *a ? -EINVAL : 0;
}

/* "0-3,^2,0xf0" as TuneD's cpulist_unpack (hex masks may span ",", ",," ends one) */
int pt_cpus_parse(const char *in, unsigned char *m)
{
	_cleanup_free_ char *dup = strdup(in);
	unsigned char neg[PT_CPUS_BYTES] = { 0 };
	char *s, *tok, *hex = NULL;
	long a, b;

	memset(m, 0, PT_CPUS_BYTES);
	if (!dup)
		return -ENOMEM;
	s = dup + strspn(dup, "'\"");
	s[strcspn(s, "'\"")] = '\0';
	while ((tok = strsep(&s, ","))) {
		if (hex && *tok) {
			*(tok - 1) = ','; /* glue the mask back together */
			continue;
		}
		if (hex && pt_cpus_hex(hex, m) < 0)
			return -EINVAL;
		hex = NULL;
		if (!strncasecmp(tok, "0x", 2)) {
			hex = tok;
		} else if (*tok == '^' || *tok == '!') {
			if (tuned_range(tok + 1, &a, &b) < 0)
				return -EINVAL;
			for (long i = a; i <= b && i < PT_CPUS_MAX; i++)
				pt_cpus_set(neg, i, true);
		} else if (*tok) {
			if (tuned_range(tok, &a, &b) < 0)
				return -EINVAL;
			for (long i = a; i <= b && i < PT_CPUS_MAX; i++)
				pt_cpus_set(m, i, true);
		}
	}
	if (hex && pt_cpus_hex(hex, m) < 0)
		return -EINVAL;
	for (int i = 0; i < PT_CPUS_BYTES; i++)
		m[i] &= (unsigned char)~neg[i];
	return 0;
}

/* the list of the first @nbits bits into @b: "0,1,2", or packed "0-2"; each item after @prefix */
static void put_list(struct pt_buf *b, const unsigned char *m, int nbits, const char *prefix,
		     bool pack)
{
	for (int i = 0; i < nbits; i++) {
		int j = i;
		if (!(m[i / 8] & (1u << (i % 8))))
			continue;
		while (pack && j + 1 < nbits && (m[(j + 1) / 8] & (1u << ((j + 1) % 8))))
			j++;
		pt_buf_printf(b, "%s%s%d", b->len ? "," : "", prefix, i);
		if (j > i)
			pt_buf_printf(b, "-%d", j);
		i = j;
	}
}

char *pt_cpus_list(const unsigned char *m, const char *prefix, bool pack)
{
	struct pt_buf b = { 0 };

	put_list(&b, m, PT_CPUS_MAX, prefix, pack);
	return pt_buf_steal(&b);
}

/* packed list into @out; what does not fit is left out, whole items only */
void pt_format_cpulist(const unsigned char *mask, int nbits, char *out, size_t size)
{
	struct pt_buf b = { 0 };
	size_t n;

	put_list(&b, mask, nbits, "", true);
	n = b.s && !b.oom ? b.len : 0;
	if (n >= size) {
		n = size - 1;
		while (n && b.s[n] != ',')
			n--;
	}
	if (size) {
		memcpy(out, b.s ? b.s : "", n);
		out[n] = '\0';
	}
	free(b.s);
}

/* TuneD's cpulist2hex: 8-digit groups separated by ',' */
char *pt_cpus_hexstr(const unsigned char *m)
{
	struct pt_buf b = { 0 };
	int top = 0;

	for (int i = 0; i < PT_CPUS_MAX; i++)
		if (pt_cpus_has(m, i))
			top = i;
	for (int g = top / 32; g >= 0; g--) {
		unsigned v = 0;
		for (int k = 0; k < 32; k++)
			v |= pt_cpus_has(m, g * 32 + k) ? 1u << k : 0;
		pt_buf_printf(&b, "%s%08x", b.len ? "," : "", v);
	}
	return pt_buf_steal(&b);
}
