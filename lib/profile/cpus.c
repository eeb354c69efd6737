// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CPU lists as TuneD writes them: "0-3,^2", "!5", hex masks "0xf0" (which may
 * span commas), and back to lists, packed lists and 8-digit hex groups.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "profile-internal.h"


void pt_cpus_set(unsigned char *m, long i, bool on)
{
	if (i < 0 || i >= PT_CPUS_MAX)
		return;
	if (on)
		m[i / 8] |= (unsigned char)(1u << (i % 8));
	else
		m[i / 8] &= (unsigned char)~(1u << (i % 8));
}

bool pt_cpus_has(const unsigned char *m, int i)
{
	return m[i / 8] & (1u << (i % 8));
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

static int range(const char *s, long *a, long *b)
{
	char *end;

	*a = strtol(s, &end, 10);
	if (end == s)
		return -EINVAL;
	*b = *a;
	if (*end == '-') {
		const char *t = end + 1;
		*b = strtol(t, &end, 10);
		if (end == t)
			return -EINVAL;
	}
	return *end || *a < 0 || *b < *a ? -EINVAL : 0;
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
			if (range(tok + 1, &a, &b) < 0)
				return -EINVAL;
			for (long i = a; i <= b && i < PT_CPUS_MAX; i++)
				pt_cpus_set(neg, i, true);
		} else if (*tok) {
			if (range(tok, &a, &b) < 0)
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

int pt_cpus_online(struct perftune_ctx *ctx, unsigned char *m)
{
	char buf[4096];
	int r = pt_attr_read_raw(ctx, "sys/devices/system/cpu/online", buf, sizeof(buf));

	if (r < 0)
		return r;
	pt_trim(buf);
	return pt_cpus_parse(buf, m);
}

char *pt_cpus_list(const unsigned char *m, const char *prefix, bool pack)
{
	struct pt_buf b = { 0 };

	for (int i = 0; i < PT_CPUS_MAX; i++) {
		int j = i;
		if (!pt_cpus_has(m, i))
			continue;
		while (pack && j + 1 < PT_CPUS_MAX && pt_cpus_has(m, j + 1))
			j++;
		pt_buf_printf(&b, "%s%s%d", b.len ? "," : "", prefix, i);
		if (j > i)
			pt_buf_printf(&b, "-%d", j);
		i = j;
	}
	return pt_buf_steal(&b);
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

/* calc_isolated_cores:N - every CPU but the first N of each package */
char *pt_cpus_isolated(struct perftune_ctx *ctx, int reserve)
{
	unsigned char m[PT_CPUS_BYTES] = { 0 }, online[PT_CPUS_BYTES];
	int seen[1024] = { 0 };

	if (pt_cpus_online(ctx, online) < 0)
		return strdup("");
	for (int i = 0; i < PT_CPUS_MAX; i++) {
		char p[96], pkg[32];
		long id;
		if (!pt_cpus_has(online, i))
			continue;
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
		id = pt_attr_read(ctx, p, pkg, sizeof(pkg)) < 0 ? 0 : strtol(pkg, NULL, 10);
		if (id < 0 || id >= 1024)
			id = 0;
		if (seen[id]++ >= reserve)
			pt_cpus_set(m, i, true);
	}
	return pt_cpus_list(m, "", false);
}
