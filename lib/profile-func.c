// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TuneD's built-in ${f:...} functions, evaluated by reading the machine
 * (below the context root) and never by running a program: exec is not
 * evaluated, virt_check reads the cpuinfo "hypervisor" flag instead of running
 * virt-what, check_net_queue_count counts online CPUs instead of running nproc.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "profile-internal.h"

#define MASK_BYTES (PT_CPUS_MAX / 8)

static void set_bit(unsigned char *m, long i, bool on)
{
	if (i < 0 || i >= PT_CPUS_MAX)
		return;
	if (on)
		m[i / 8] |= (unsigned char)(1u << (i % 8));
	else
		m[i / 8] &= (unsigned char)~(1u << (i % 8));
}

static bool bit(const unsigned char *m, int i)
{
	return m[i / 8] & (1u << (i % 8));
}

static int hex_to_mask(const char *s, unsigned char *m)
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
			set_bit(m, b, v & (1 << k));
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
	unsigned char neg[MASK_BYTES] = { 0 };
	char *s, *tok, *hex = NULL;
	long a, b;

	memset(m, 0, MASK_BYTES);
	if (!dup)
		return -ENOMEM;
	s = dup + strspn(dup, "'\"");
	s[strcspn(s, "'\"")] = '\0';
	while ((tok = strsep(&s, ","))) {
		if (hex && *tok) {
			*(tok - 1) = ','; /* glue the mask back together */
			continue;
		}
		if (hex && hex_to_mask(hex, m) < 0)
			return -EINVAL;
		hex = NULL;
		if (!strncasecmp(tok, "0x", 2)) {
			hex = tok;
		} else if (*tok == '^' || *tok == '!') {
			if (range(tok + 1, &a, &b) < 0)
				return -EINVAL;
			for (long i = a; i <= b && i < PT_CPUS_MAX; i++)
				set_bit(neg, i, true);
		} else if (*tok) {
			if (range(tok, &a, &b) < 0)
				return -EINVAL;
			for (long i = a; i <= b && i < PT_CPUS_MAX; i++)
				set_bit(m, i, true);
		}
	}
	if (hex && hex_to_mask(hex, m) < 0)
		return -EINVAL;
	for (int i = 0; i < MASK_BYTES; i++)
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

static char *mask_list(const unsigned char *m, const char *prefix, bool pack)
{
	struct pt_buf b = { 0 };

	for (int i = 0; i < PT_CPUS_MAX; i++) {
		int j = i;
		if (!bit(m, i))
			continue;
		while (pack && j + 1 < PT_CPUS_MAX && bit(m, j + 1))
			j++;
		pt_buf_printf(&b, "%s%s%d", b.len ? "," : "", prefix, i);
		if (j > i)
			pt_buf_printf(&b, "-%d", j);
		i = j;
	}
	return pt_buf_steal(&b);
}

/* TuneD's cpulist2hex: 8-digit groups separated by ',' */
static char *mask_hex(const unsigned char *m)
{
	struct pt_buf b = { 0 };
	int top = 0;

	for (int i = 0; i < PT_CPUS_MAX; i++)
		if (bit(m, i))
			top = i;
	for (int g = top / 32; g >= 0; g--) {
		unsigned v = 0;
		for (int k = 0; k < 32; k++)
			v |= bit(m, g * 32 + k) ? 1u << k : 0;
		pt_buf_printf(&b, "%s%08x", b.len ? "," : "", v);
	}
	return pt_buf_steal(&b);
}

static char *join(int argc, char **argv, const char *sep)
{
	struct pt_buf b = { 0 };

	for (int i = 0; i < argc; i++)
		pt_buf_printf(&b, "%s%s", i ? sep : "", argv[i]);
	return pt_buf_steal(&b);
}

static char *translate_re(const char *re)
{
	struct pt_buf b = { 0 };

	for (const char *c = re; *c; c++) {
		if (c[0] == '\\' && (c[1] == 'd' || c[1] == 'D')) {
			pt_buf_puts(&b, c[1] == 'd' ? "[0-9]" : "[^0-9]");
			c++;
		} else if (c[0] == '\\' && c[1]) {
			pt_buf_add(&b, c++, 2);
		} else {
			pt_buf_add(&b, c, 1);
		}
	}
	return pt_buf_steal(&b);
}

/* Python's re.search(re, text, re.MULTILINE), as far as POSIX ERE can say it */
bool pt_regex_search(const char *re, const char *text, bool *bad)
{
	_cleanup_free_ char *posix = translate_re(re);
	regex_t rx;
	bool m;

	*bad = !posix || regcomp(&rx, posix, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) != 0;
	if (*bad)
		return false;
	m = regexec(&rx, text, 0, NULL, 0) == 0;
	regfree(&rx);
	return m;
}

int pt_machine_uname(struct perftune_ctx *ctx, char *buf, size_t size)
{
	static const char *const f[] = { "ostype", "hostname", "osrelease", "version", "arch" };
	struct utsname u;

	if (pt_root_is_host(ctx) && uname(&u) == 0)
		return pt_snprintf(buf, size, "%s %s %s %s %s", u.sysname, u.nodename, u.release,
				   u.version, u.machine);
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		char p[64], v[256] = "";
		snprintf(p, sizeof(p), "proc/sys/kernel/%s", f[i]);
		if (pt_attr_read(ctx, p, v, sizeof(v)) >= 0)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? " " : "", v);
	}
	return 0;
}

static char *cpuinfo(struct perftune_ctx *ctx)
{
	char *buf = malloc(PT_READ_MAX);

	if (buf && pt_attr_read_raw(ctx, "proc/cpuinfo", buf, PT_READ_MAX) < 0)
		buf[0] = '\0';
	return buf;
}

/* calc_isolated_cores:N - every CPU but the first N of each package */
static char *isolated_cores(struct perftune_ctx *ctx, int reserve)
{
	unsigned char m[MASK_BYTES] = { 0 }, online[MASK_BYTES];
	int seen[1024] = { 0 };

	if (pt_cpus_online(ctx, online) < 0)
		return strdup("");
	for (int i = 0; i < PT_CPUS_MAX; i++) {
		char p[96], pkg[32];
		long id;
		if (!bit(online, i))
			continue;
		snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
		id = pt_attr_read(ctx, p, pkg, sizeof(pkg)) < 0 ? 0 : strtol(pkg, NULL, 10);
		if (id < 0 || id >= 1024)
			id = 0;
		if (seen[id]++ >= reserve)
			set_bit(m, i, true);
	}
	return mask_list(m, "", false);
}

typedef char *(*func_fn)(struct perftune_profile *p, int argc, char **argv, char **why);

static char *f_cpulist(struct perftune_profile *p, int argc, char **argv, int op)
{
	unsigned char m[MASK_BYTES], online[MASK_BYTES];
	_cleanup_free_ char *s = join(argc, argv, ",,");

	if (!s)
		return NULL;
	if (op == 'h') { /* hex2cpulist */
		memset(m, 0, sizeof(m));
		if (hex_to_mask(argc ? argv[0] : "0x0", m) < 0)
			return strdup("");
	} else if (pt_cpus_parse(s, m) < 0) {
		memset(m, 0, sizeof(m));
	}
	if (strchr("ioIH", op)) {
		if (pt_cpus_online(p->ctx, online) < 0)
			memset(online, 0, sizeof(online));
		for (int i = 0; i < MASK_BYTES; i++)
			m[i] = strchr("iIH", op) ? online[i] & (unsigned char)~m[i] : m[i] & online[i];
	}
	if (op == 'x' || op == 'H')
		return mask_hex(m);
	return mask_list(m, op == 'd' ? "cpu" : "", op == 'p');
}

int pt_func_call(struct perftune_profile *p, const struct pt_popt *o, const char *name, int argc,
		 char **argv, char **out, char **why)
{
	static const struct {
		const char *name;
		int op;
	} lists[] = { { "cpulist_unpack", 'u' }, { "cpulist_pack", 'p' },
		      { "cpulist_invert", 'i' }, { "cpulist2hex", 'x' },
		      { "cpulist2hex_invert", 'H' }, { "hex2cpulist", 'h' },
		      { "cpulist_online", 'o' }, { "cpulist2devs", 'd' } };
	_cleanup_free_ char *ci = NULL;
	bool bad;

	*out = NULL;
	*why = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		if (!strcmp(name, lists[i].name))
			return (*out = f_cpulist(p, argc, argv, lists[i].op)) ? 1 : -ENOMEM;
	if (!strcmp(name, "cpulist_present")) {
		unsigned char m[MASK_BYTES], pr[MASK_BYTES];
		char buf[4096] = "";
		_cleanup_free_ char *s = join(argc, argv, ",,");
		pt_attr_read_raw(p->ctx, "sys/devices/system/cpu/present", buf, sizeof(buf));
		pt_trim(buf);
		if (!s || pt_cpus_parse(s, m) < 0 || pt_cpus_parse(buf, pr) < 0)
			memset(m, 0, sizeof(m));
		for (int i = 0; i < MASK_BYTES; i++)
			m[i] &= pr[i];
		return (*out = mask_list(m, "", false)) ? 1 : -ENOMEM;
	}
	if (!strcmp(name, "assertion") || !strcmp(name, "assertion_non_equal")) {
		bool eq = argc == 3 && !strcmp(argv[1], argv[2]);
		if (argc != 3)
			return asprintf(why, "function %s needs 3 arguments", name) < 0 ? -ENOMEM : 0;
		if (eq != !strcmp(name, "assertion"))
			return pt_err(p->ctx, -EINVAL, "%s:%d: %s: assertion '%s' failed: '%s' %s '%s'",
				      o->file, o->line, o->name, argv[0], argv[1], eq ? "==" : "!=",
				      argv[2]);
		return 0; /* TuneD's assertions evaluate to nothing */
	}
	if (!strcmp(name, "exec"))
		return asprintf(why, "function exec would run '%s': a profile never runs programs",
				argc ? argv[0] : "") < 0 ? -ENOMEM : 0;
	if (!strcmp(name, "strip")) {
		_cleanup_free_ char *s = join(argc, argv, "");
		*out = s ? strdup(s + strspn(s, " \t\n")) : NULL;
		if (*out)
			pt_trim(*out);
		return *out ? 1 : -ENOMEM;
	}
	if ((!strcmp(name, "kb2s") || !strcmp(name, "s2kb")) && argc == 1) {
		long long v;
		if (pt_parse_ll(argv[0], &v) < 0)
			return asprintf(why, "function %s: '%s' is not a number", name, argv[0]) < 0
				       ? -ENOMEM : 0;
		v = name[0] == 'k' ? v * 2 : (v + 1) / 2;
		return asprintf(out, "%lld", v) < 0 ? -ENOMEM : 1;
	}
	if (!strcmp(name, "regex_search_ternary") && argc == 4) {
		bool m = pt_regex_search(argv[1], argv[0], &bad);
		if (bad)
			return asprintf(why, "regex '%s' is not supported", argv[1]) < 0 ? -ENOMEM : 0;
		return (*out = strdup(m ? argv[2] : argv[3])) ? 1 : -ENOMEM;
	}
	if (!strcmp(name, "virt_check") && argc == 2) {
		ci = cpuinfo(p->ctx);
		if (!ci)
			return -ENOMEM;
		bool virt = pt_regex_search("^flags[[:space:]]*:.* hypervisor( |$)", ci, &bad);
		return (*out = strdup(virt ? argv[0] : argv[1])) ? 1 : -ENOMEM;
	}
	if (!strcmp(name, "cpuinfo_check")) {
		ci = cpuinfo(p->ctx);
		if (!ci)
			return -ENOMEM;
		for (int i = 0; i + 1 < argc; i += 2)
			if (pt_regex_search(argv[i], ci, &bad))
				return (*out = strdup(argv[i + 1])) ? 1 : -ENOMEM;
		return (*out = strdup(argc % 2 ? argv[argc - 1] : "")) ? 1 : -ENOMEM;
	}
	if (!strcmp(name, "calc_isolated_cores")) {
		long reserve = argc ? strtol(argv[0], NULL, 10) : 1;
		return (*out = isolated_cores(p->ctx, reserve < 0 ? 1 : (int)reserve)) ? 1 : -ENOMEM;
	}
	if (!strcmp(name, "check_net_queue_count") && argc == 1) {
		unsigned char m[MASK_BYTES];
		int n = 0;
		if (argv[0][0] && strspn(argv[0], "0123456789") == strlen(argv[0]))
			return (*out = strdup(argv[0])) ? 1 : -ENOMEM;
		if (pt_cpus_online(p->ctx, m) == 0)
			for (int i = 0; i < PT_CPUS_MAX; i++)
				n += bit(m, i);
		return asprintf(out, "%d", n ? n : 1) < 0 ? -ENOMEM : 1;
	}
	return asprintf(why, "function %s (with %d arguments) is not known", name, argc) < 0
		       ? -ENOMEM : 0;
}
