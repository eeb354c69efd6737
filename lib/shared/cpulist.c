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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "macro.h"
#include "shared/buf.h"
#include "shared/cpulist.h"

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
 * A mask has PT_CPUS_MAX (8192) bits and a machine a few of them: a walk bit
 * by bit was most of the time of a profile's mapping (every IRQ's affinity
 * read, validated and formatted).  Empty 64-bit words and bytes are skipped.
 */
int pt_cpus_next(const unsigned char *m, int nbits, int from)
{
	int i = from < 0 ? 0 : from;

	while (i < nbits) {
		uint64_t w = 1;
		if (i % 64 == 0 && i + 64 <= nbits)
			memcpy(&w, m + i / 8, sizeof(w));
		if (!w)
			i += 64;
		else if (i % 8 == 0 && !m[i / 8])
			i += 8;
		else if (m[i / 8] & (1u << (i % 8)))
			return i;
		else
			i++;
	}
	return nbits;
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

/* the ASCII blanks Python's int() skips (str.strip() also takes 0x1c-0x1f: int() does not) */
static bool py_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int refuse(char *why, size_t size, const char *fmt, ...) _printf_(3, 4);
static int refuse(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (size) {
		va_start(ap, fmt);
		vsnprintf(why, size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * @s[0..@n) without Python's blanks around it and a '+' sign, checked for
 * what int() takes by accident: '_' between digits, non-ASCII digits and
 * blanks, a '-' sign.  0, or -EINVAL with the reason in @why.
 */
static int py_number(const char **s, size_t *n, const char *what, bool *neg, char *why, size_t size)
{
	const char *a = *s, *e = *s + *n;

	while (a < e && py_space(*a))
		a++;
	while (e > a && py_space(e[-1]))
		e--;
	for (const char *c = a; c < e; c++) {
		if ((unsigned char)*c >= 0x80)
			return refuse(why, size, "'%.*s': a non-ASCII character in a %s", (int)*n,
				      *s, what);
		if (*c == '_')
			return refuse(why, size,
				      "'%.*s': '_' in a %s (Python's int() skips it, perftune does "
				      "not guess)",
				      (int)*n, *s, what);
	}
	if (a < e && *a == '-' && !neg)
		return refuse(why, size, "'%.*s': a negative %s", (int)*n, *s, what);
	if (neg)
		*neg = a < e && *a == '-';
	if (a < e && (*a == '+' || *a == '-'))
		a++;
	*s = a;
	*n = (size_t)(e - a);
	return 0;
}

/* Python's int(@s[0..@n)) as a CPU number below PT_CPUS_MAX */
static int py_cpu(const char *s, size_t n, long *v, char *why, size_t size)
{
	const char *t = s;
	size_t k = n;
	int r = py_number(&t, &k, "CPU number", NULL, why, size);

	if (r < 0)
		return r;
	if (!k || strspn(t, "0123456789") < k)
		return refuse(why, size, "'%.*s' is not a CPU number", (int)n, s);
	*v = 0;
	for (size_t i = 0; i < k; i++) {
		*v = *v * 10 + (t[i] - '0');
		if (*v >= PT_CPUS_MAX)
			return refuse(why, size,
				      "'%.*s': CPU %.*s is past %d, the most perftune handles",
				      (int)n, s, (int)k, t, PT_CPUS_MAX - 1);
	}
	return 0;
}

int pt_py_int(const char *s, long long max, long long *v, char *why, size_t size)
{
	const char *t = s;
	size_t k = strlen(s);
	bool neg;
	int r = py_number(&t, &k, "number", &neg, why, size);

	if (r < 0)
		return r;
	if (!k || strspn(t, "0123456789") < k)
		return refuse(why, size, "'%s' is not a number", s);
	*v = 0;
	for (size_t i = 0; i < k; i++) {
		if (*v > (max - (t[i] - '0')) / 10)
			return refuse(why, size,
				      "'%s': past %s%lld, the most perftune computes with", s,
				      neg ? "-" : "", max);
		*v = *v * 10 + (t[i] - '0');
	}
	if (neg)
		*v = -*v;
	return 0;
}

/*
 * One item of TuneD's list, as its v.split("-"): "N", or "N-M" (a reversed
 * range is empty, a third part is ignored), into @m.
 */
static int py_range(const char *s, size_t n, unsigned char *m, char *why, size_t size)
{
	const char *d = memchr(s, '-', n), *d2;
	long a, b;
	int r;

	if (!d) {
		r = py_cpu(s, n, &a, why, size);
		if (r == 0)
			pt_cpus_set(m, a, true);
		return r;
	}
	d2 = memchr(d + 1, '-', (size_t)(s + n - d - 1));
	if ((r = py_cpu(s, (size_t)(d - s), &a, why, size)) < 0 ||
	    (r = py_cpu(d + 1, (size_t)((d2 ? d2 : s + n) - d - 1), &b, why, size)) < 0)
		return r;
	for (long i = a; i <= b; i++)
		pt_cpus_set(m, i, true);
	return 0;
}

/* Python's int(@s[0..@n), 16) of a mask whose commas are gone, ORed into @m */
static int py_hex(const char *s, size_t n, unsigned char *m, char *why, size_t size)
{
	const char *t = s;
	size_t k = n;
	long bit = 0;
	int r = py_number(&t, &k, "hexadecimal mask", NULL, why, size);

	if (r < 0)
		return r;
	if (k >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		t += 2;
		k -= 2;
	}
	if (!k || strspn(t, "0123456789abcdefABCDEF") < k)
		return refuse(why, size, "'%.*s' is not a hexadecimal CPU mask", (int)n, s);
	for (size_t i = k; i-- > 0; bit += 4) {
		int v = isdigit((unsigned char)t[i]) ? t[i] - '0' : tolower(t[i]) - 'a' + 10;
		for (int j = 0; j < 4; j++) {
			if (!(v & (1 << j)))
				continue;
			if (bit + j >= PT_CPUS_MAX)
				return refuse(why, size,
					      "'%.*s': the mask has CPU %ld, past %d, the most "
					      "perftune handles",
					      (int)n, s, bit + j, PT_CPUS_MAX - 1);
			pt_cpus_set(m, bit + j, true);
		}
	}
	return 0;
}

int pt_cpus_hex(const char *s, unsigned char *m, char *why, size_t size)
{
	struct pt_buf b = { 0 };
	int r;

	for (const char *c = s; *c; c++) /* TuneD: mask.replace(",", "") */
		if (*c != ',')
			pt_buf_add(&b, c, 1);
	if (b.oom) {
		free(b.s);
		return -ENOMEM;
	}
	r = py_hex(b.s ? b.s : "", b.len, m, why, size);
	free(b.s);
	return r;
}

/*
 * TuneD's cpulist_unpack: quotes stripped off both ends, items split on ',';
 * "0x..." starts a mask that takes the following items (their commas dropped)
 * up to an empty one; "^N"/"!N-M" negate, applied after everything else.
 * TuneD's int() errors make its list empty without a word: here they, and
 * Python's accidents, are -EINVAL with the reason in @why.
 */
int pt_cpus_parse(const char *in, unsigned char *m, char *why, size_t size)
{
	unsigned char neg[PT_CPUS_BYTES] = { 0 };
	struct pt_buf hex = { 0 };
	const char *s = in, *e;
	bool inhex = false;
	int r = 0;

	memset(m, 0, PT_CPUS_BYTES);
	while (*s == '\'' || *s == '"')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == '\'' || e[-1] == '"'))
		e--;
	while (r == 0 && !hex.oom) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		size_t n = (size_t)((c ? c : e) - s);
		if (inhex && n) {
			pt_buf_add(&hex, s, n);
		} else if (inhex) {
			inhex = false;
			r = py_hex(hex.s, hex.len, m, why, size);
			hex.len = 0;
		} else if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			inhex = true;
			pt_buf_add(&hex, s, n);
		} else if (n && (*s == '^' || *s == '!')) {
			r = py_range(s + 1, n - 1, neg, why, size);
		} else if (n) {
			r = py_range(s, n, m, why, size);
		}
		if (!c)
			break;
		s = c + 1;
	}
	if (r == 0 && inhex && !hex.oom)
		r = py_hex(hex.s, hex.len, m, why, size);
	if (hex.oom)
		r = -ENOMEM;
	free(hex.s);
	for (int i = 0; i < PT_CPUS_BYTES; i++)
		m[i] &= (unsigned char)~neg[i];
	return r;
}

/* the list of the first @nbits bits into @b: "0,1,2", or packed "0-2"; each item after @prefix */
static void put_list(struct pt_buf *b, const unsigned char *m, int nbits, const char *prefix,
		     bool pack)
{
	for (int i = pt_cpus_next(m, nbits, 0), j; i < nbits; i = pt_cpus_next(m, nbits, j + 1)) {
		j = i;
		while (pack && j + 1 < nbits && (m[(j + 1) / 8] & (1u << ((j + 1) % 8))))
			j++;
		pt_buf_printf(b, "%s%s%d", b->len ? "," : "", prefix, i);
		if (j > i)
			pt_buf_printf(b, "-%d", j);
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

	for (int i = pt_cpus_next(m, PT_CPUS_MAX, 0); i < PT_CPUS_MAX;
	     i = pt_cpus_next(m, PT_CPUS_MAX, i + 1))
		top = i;
	for (int g = top / 32; g >= 0; g--) {
		unsigned v = 0;
		for (int k = 0; k < 32; k++)
			v |= pt_cpus_has(m, g * 32 + k) ? 1u << k : 0;
		pt_buf_printf(&b, "%s%08x", b.len ? "," : "", v);
	}
	return pt_buf_steal(&b);
}
