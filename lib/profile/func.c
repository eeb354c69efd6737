// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TuneD's built-in ${f:...} functions, evaluated by reading the machine
 * (below the context root) and never by running a program: exec is not
 * evaluated, virt_check reads the cpuinfo "hypervisor" flag instead of running
 * virt-what, check_net_queue_count counts online CPUs instead of running nproc.
 * Where TuneD would compute a value by a Python accident (int() taking "1_0",
 * a float's rounding, a list emptied by one bad item) the function is not
 * evaluated and says why; tests/tuned-diff compares every one with TuneD's.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "perftune.h"
#include "macro.h"
#include "shared/buf.h"
#include "shared/cpulist.h"
#include "shared/util.h"
#include "io/attr.h"
#include "core/ctx.h"
#include "core/log.h"
#include "profile-internal.h"

static char *join(int argc, char **argv, const char *sep)
{
	struct pt_buf b = { 0 };

	pt_buf_puts(&b, "");
	for (int i = 0; i < argc; i++)
		pt_buf_printf(&b, "%s%s", i ? sep : "", argv[i]);
	return pt_buf_steal(&b);
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

/* a CPU list file of the root ("online", "present"); empty where TuneD reads "" */
static void cpus_file(struct perftune_ctx *ctx, const char *name, unsigned char *m)
{
	char p[64], buf[4096] = "";

	snprintf(p, sizeof(p), "sys/devices/system/cpu/%s", name);
	if (pt_attr_read_raw(ctx, p, buf, sizeof(buf)) < 0 || pt_cpus_parse(buf, m, NULL, 0) < 0)
		memset(m, 0, PT_CPUS_BYTES);
}

struct call {
	struct perftune_profile *p;
	const struct pt_popt *o;
	const char *name;
	int argc;
	char **argv;
	char **out, **why;
};

static int not_evaluated(struct call *c, const char *fmt, ...) _printf_(2, 3);
static int not_evaluated(struct call *c, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0 || asprintf(c->why, "function %s: %s", c->name, msg) < 0) {
		*c->why = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int result(struct call *c, char *s)
{
	*c->out = s;
	if (s)
		return 1;
	return -ENOMEM;
}

/* the CPU list TuneD's cpulist_unpack makes of the arguments joined by @sep */
static int args_cpus(struct call *c, const char *sep, unsigned char *m)
{
	_cleanup_free_ char *s = join(c->argc, c->argv, sep);
	char why[256];

	if (!s)
		return -ENOMEM;
	if (pt_cpus_parse(s, m, why, sizeof(why)) < 0)
		return not_evaluated(c, "%s", why);
	return 1;
}

/* every cpulist function: @sep joins the arguments, @op says what to make of the list */
static int f_cpulist(struct call *c, const char *sep, int op)
{
	unsigned char m[PT_CPUS_BYTES], other[PT_CPUS_BYTES];
	char why[256];
	int r;

	if (op == 'h') { /* hex2cpulist */
		memset(m, 0, sizeof(m));
		if ((r = pt_cpus_hex(c->argv[0], m, why, sizeof(why))) < 0) {
			if (r == -ENOMEM)
				return r;
			return not_evaluated(c, "%s", why);
		}
	} else if ((r = args_cpus(c, sep, m)) <= 0) {
		return r;
	}
	if (op == 'i' || op == 'H' || op == 'o' || op == 'P')
		cpus_file(c->p->ctx, op == 'P' ? "present" : "online", other);
	for (int i = 0; i < PT_CPUS_BYTES && strchr("iHoP", op); i++) {
		if (op == 'i' || op == 'H')
			m[i] = other[i] & (unsigned char)~m[i];
		else
			m[i] &= other[i];
	}
	if (op == 'x' || op == 'H')
		return result(c, pt_cpus_hexstr(m));
	return result(c, pt_cpus_list(m, op == 'd' ? "cpu" : "", op == 'p'));
}

static int f_unpack(struct call *c)
{
	return f_cpulist(c, ",,", 'u');
}
static int f_pack(struct call *c)
{
	return f_cpulist(c, ",,", 'p');
}
static int f_invert(struct call *c)
{
	return f_cpulist(c, ",,", 'i');
}
static int f_tohex(struct call *c)
{
	return f_cpulist(c, ",,", 'x');
}
static int f_tohex_invert(struct call *c)
{
	return f_cpulist(c, ",,", 'H');
}
static int f_hex2cpulist(struct call *c)
{
	return f_cpulist(c, NULL, 'h');
}
static int f_online(struct call *c)
{
	return f_cpulist(c, ",", 'o'); /* TuneD joins these two with one comma */
}
static int f_todevs(struct call *c)
{
	return f_cpulist(c, ",", 'd');
}
static int f_present(struct call *c)
{
	return f_cpulist(c, ",,", 'P');
}

static int f_assertion(struct call *c)
{
	bool eq = !strcmp(c->argv[1], c->argv[2]), want = !strcmp(c->name, "assertion");

	if (eq != want)
		return pt_err(c->p->ctx, -EINVAL, "%s:%d: %s: assertion '%s' failed: '%s' %s '%s'",
			      c->o->file, c->o->line, c->o->name, c->argv[0], c->argv[1],
			      eq ? "==" : "!=", c->argv[2]);
	return 0; /* TuneD's assertions evaluate to nothing: their text stays */
}

static int f_exec(struct call *c)
{
	return not_evaluated(c, "it would run '%s': a profile never runs programs", c->argv[0]);
}

/* "".join(args).strip(): Python's whitespace, Unicode's included */
static int f_strip(struct call *c)
{
	_cleanup_free_ char *s = join(c->argc, c->argv, "");
	const char *a, *e;

	if (!s)
		return -ENOMEM;
	a = s;
	e = s + strlen(s);
	for (size_t n; a < e && (n = pt_py_space(a)); a += n)
		;
	for (bool more = true; more && e > a;) {
		more = false;
		for (size_t n = 1; n <= 3 && !more && e - a >= (ptrdiff_t)n; n++)
			if (pt_py_space(e - n) == n) {
				e -= n;
				more = true;
			}
	}
	return result(c, strndup(a, (size_t)(e - a)));
}

/*
 * kb2s: int(x) * 2; s2kb: int(round(int(x) / 2)), Python's round half to even.
 * TuneD's s2kb divides in a float: past 2^53 its result is not the number.
 */
static int f_sectors(struct call *c)
{
	bool k = c->name[0] == 'k';
	long long v, max = k ? LLONG_MAX / 2 : (1LL << 53);
	char why[256];
	int r = pt_py_int(c->argv[0], max, &v, why, sizeof(why));

	if (r < 0)
		return not_evaluated(c, "%s", why);
	if (k)
		v *= 2;
	else if (v % 2 == 0)
		v /= 2;
	else /* v / 2 is n + 0.5: the even one of n, n + 1 */
		v = ((v - 1) / 2) % 2 == 0 ? (v - 1) / 2 : (v + 1) / 2;
	if (asprintf(c->out, "%lld", v) < 0)
		return -ENOMEM;
	return 1;
}

static int regex_err(struct call *c, int r, char *err)
{
	if (r == -EINVAL)
		r = pt_err(c->p->ctx, -EINVAL, "%s:%d: %s: function %s: %s", c->o->file, c->o->line,
			   c->o->name, c->name, err);
	free(err);
	return r;
}

/* the result: argument @yes if @re finds a match in @subject, else argument @no */
static int regex_pick(struct call *c, const char *re, const char *subject, bool multiline, int yes,
		      int no)
{
	char *err = NULL;
	int r = pt_regex_search(re, subject, multiline, &err);

	if (r < 0)
		return regex_err(c, r, err);
	return result(c, strdup(c->argv[r ? yes : no]));
}

static int f_ternary(struct call *c)
{
	return regex_pick(c, c->argv[1], c->argv[0], false, 2, 3);
}

static int f_virt(struct call *c)
{
	_cleanup_free_ char *ci = cpuinfo(c->p->ctx);

	if (!ci)
		return -ENOMEM;
	return regex_pick(c, "^flags\\s*:.*\\bhypervisor\\b", ci, true, 0, 1);
}

/* REGEX1:STR1:REGEX2:STR2...[:FALLBACK]; the regexes are tried in order, lazily as TuneD does */
static int f_cpuinfo(struct call *c)
{
	_cleanup_free_ char *ci = cpuinfo(c->p->ctx);
	char *err = NULL;

	if (!ci)
		return -ENOMEM;
	for (int i = 0; i + 1 < c->argc; i += 2) {
		int r = pt_regex_search(c->argv[i], ci, true, &err);
		if (r < 0)
			return regex_err(c, r, err);
		if (r)
			return result(c, strdup(c->argv[i + 1]));
	}
	return result(c, strdup(c->argc % 2 ? c->argv[c->argc - 1] : ""));
}

static bool ascii_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static bool ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static int f_isolated(struct call *c)
{
	long long reserve = 1;

	if (c->argc && !ascii(c->argv[0]))
		return not_evaluated(c,
				     "'%s': a non-ASCII character in the number of CPUs to "
				     "reserve",
				     c->argv[0]);
	if (c->argc && !ascii_digits(c->argv[0]))
		return not_evaluated(c, "'%s' is not a number of CPUs to reserve (digits only)",
				     c->argv[0]);
	if (c->argc && pt_parse_ll(c->argv[0], &reserve) < 0)
		reserve = LLONG_MAX; /* more than any package has */
	if (reserve > LONG_MAX)
		reserve = LONG_MAX;
	return result(c, pt_cpus_isolated(c->p->ctx, (long)reserve));
}

static int f_queues(struct call *c)
{
	unsigned char m[PT_CPUS_BYTES];
	int n = 0;

	if (!ascii(c->argv[0]))
		return not_evaluated(c, "'%s': a non-ASCII character in a queue count", c->argv[0]);
	if (ascii_digits(c->argv[0]))
		return result(c, strdup(c->argv[0]));
	cpus_file(c->p->ctx, "online", m);
	for (int i = 0; i < PT_CPUS_MAX; i++)
		n += pt_cpus_has(m, i);
	if (!n)
		n = 1;
	if (asprintf(c->out, "%d", n) < 0)
		return -ENOMEM;
	return 1;
}

/* TuneD's functions and their argument counts (max 0: any number) */
static const struct {
	const char *name;
	int min, max;
	int (*fn)(struct call *c);
} funcs[] = {
	{ "cpulist_unpack", 0, 0, f_unpack },
	{ "cpulist_pack", 0, 0, f_pack },
	{ "cpulist_invert", 0, 0, f_invert },
	{ "cpulist2hex", 0, 0, f_tohex },
	{ "cpulist2hex_invert", 0, 0, f_tohex_invert },
	{ "hex2cpulist", 1, 1, f_hex2cpulist },
	{ "cpulist_online", 0, 0, f_online },
	{ "cpulist_present", 0, 0, f_present },
	{ "cpulist2devs", 0, 0, f_todevs },
	{ "assertion", 3, 3, f_assertion },
	{ "assertion_non_equal", 3, 3, f_assertion },
	{ "exec", 1, 0, f_exec },
	{ "strip", 1, 0, f_strip },
	{ "kb2s", 1, 1, f_sectors },
	{ "s2kb", 1, 1, f_sectors },
	{ "regex_search_ternary", 4, 4, f_ternary },
	{ "virt_check", 2, 2, f_virt },
	{ "cpuinfo_check", 2, 0, f_cpuinfo },
	{ "calc_isolated_cores", 0, 1, f_isolated },
	{ "check_net_queue_count", 1, 1, f_queues },
};

int pt_func_call(struct perftune_profile *p, const struct pt_popt *o, const char *name, int argc,
		 char **argv, char **out, char **why)
{
	struct call c = { p, o, name, argc, argv, out, why };

	*out = NULL;
	*why = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++) {
		if (strcmp(name, funcs[i].name))
			continue;
		if (argc >= funcs[i].min && (!funcs[i].max || argc <= funcs[i].max))
			return funcs[i].fn(&c);
		if (!funcs[i].max)
			return not_evaluated(&c, "%d arguments, it takes %d or more", argc,
					     funcs[i].min);
		return not_evaluated(&c, "%d arguments, it takes %d to %d", argc, funcs[i].min,
				     funcs[i].max);
	}
	return not_evaluated(&c, "TuneD has no such function (with %d arguments)", argc);
}
