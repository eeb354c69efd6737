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

static char *join(int argc, char **argv, const char *sep)
{
	struct pt_buf b = { 0 };

	for (int i = 0; i < argc; i++)
		pt_buf_printf(&b, "%s%s", i ? sep : "", argv[i]);
	return pt_buf_steal(&b);
}

/*
 * Python's \d and \D in POSIX; NULL for a back-reference (\1 to \9): glibc
 * matches those by backtracking, exponential in the text (a profile could
 * hang perftune@.service at boot), and no TuneD profile uses one.
 */
static char *translate_re(const char *re)
{
	struct pt_buf b = { 0 };

	for (const char *c = re; *c; c++) {
		if (c[0] == '\\' && c[1] >= '1' && c[1] <= '9') {
			free(b.s);
			return NULL;
		}
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

/* Python's re.search(re, text, re.MULTILINE), as far as POSIX ERE can say it; *bad: not said */
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

typedef char *(*func_fn)(struct perftune_profile *p, int argc, char **argv, char **why);

static char *f_cpulist(struct perftune_profile *p, int argc, char **argv, int op)
{
	unsigned char m[PT_CPUS_BYTES], online[PT_CPUS_BYTES];
	_cleanup_free_ char *s = join(argc, argv, ",,");

	if (!s)
		return NULL;
	if (op == 'h') { /* hex2cpulist */
		memset(m, 0, sizeof(m));
		if (pt_cpus_hex(argc ? argv[0] : "0x0", m) < 0)
			return strdup("");
	} else if (pt_cpus_parse(s, m) < 0) {
		memset(m, 0, sizeof(m));
	}
	if (strchr("ioIH", op)) {
		if (pt_cpus_online(p->ctx, online) < 0)
			memset(online, 0, sizeof(online));
		for (int i = 0; i < PT_CPUS_BYTES; i++)
			m[i] = strchr("iIH", op) ? online[i] & (unsigned char)~m[i]
						 : m[i] & online[i];
	}
	if (op == 'x' || op == 'H')
		return pt_cpus_hexstr(m);
	return pt_cpus_list(m, op == 'd' ? "cpu" : "", op == 'p');
}

int pt_func_call(struct perftune_profile *p, const struct pt_popt *o, const char *name, int argc,
		 char **argv, char **out, char **why)
{
	static const struct {
		const char *name;
		int op;
	} lists[] = { { "cpulist_unpack", 'u' },     { "cpulist_pack", 'p' },
		      { "cpulist_invert", 'i' },     { "cpulist2hex", 'x' },
		      { "cpulist2hex_invert", 'H' }, { "hex2cpulist", 'h' },
		      { "cpulist_online", 'o' },     { "cpulist2devs", 'd' } };
	_cleanup_free_ char *ci = NULL;
	bool bad;

	*out = NULL;
	*why = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		if (!strcmp(name, lists[i].name))
			return (*out = f_cpulist(p, argc, argv, lists[i].op)) ? 1 : -ENOMEM;
	if (!strcmp(name, "cpulist_present")) {
		unsigned char m[PT_CPUS_BYTES], pr[PT_CPUS_BYTES];
		char buf[4096] = "";
		_cleanup_free_ char *s = join(argc, argv, ",,");
		pt_attr_read_raw(p->ctx, "sys/devices/system/cpu/present", buf, sizeof(buf));
		pt_trim(buf);
		if (!s || pt_cpus_parse(s, m) < 0 || pt_cpus_parse(buf, pr) < 0)
			memset(m, 0, sizeof(m));
		for (int i = 0; i < PT_CPUS_BYTES; i++)
			m[i] &= pr[i];
		return (*out = pt_cpus_list(m, "", false)) ? 1 : -ENOMEM;
	}
	if (!strcmp(name, "assertion") || !strcmp(name, "assertion_non_equal")) {
		bool eq = argc == 3 && !strcmp(argv[1], argv[2]);
		if (argc != 3)
			return asprintf(why, "function %s needs 3 arguments", name) < 0 ? -ENOMEM
											: 0;
		if (eq != !strcmp(name, "assertion"))
			return pt_err(p->ctx, -EINVAL,
				      "%s:%d: %s: assertion '%s' failed: '%s' %s '%s'", o->file,
				      o->line, o->name, argv[0], argv[1],
				      eq ? "==" : "!=", argv[2]);
		return 0; /* TuneD's assertions evaluate to nothing */
	}
	if (!strcmp(name, "exec"))
		return asprintf(why, "function exec would run '%s': a profile never runs programs",
				argc ? argv[0] : "") < 0
			       ? -ENOMEM
			       : 0;
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
				       ? -ENOMEM
				       : 0;
		v = name[0] == 'k' ? v * 2 : (v + 1) / 2;
		return asprintf(out, "%lld", v) < 0 ? -ENOMEM : 1;
	}
	if (!strcmp(name, "regex_search_ternary") && argc == 4) {
		bool m = pt_regex_search(argv[1], argv[0], &bad);
		if (bad)
			return asprintf(why, "regex '%s' is not supported", argv[1]) < 0 ? -ENOMEM
											 : 0;
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
		return (*out = pt_cpus_isolated(p->ctx, reserve < 0 ? 1 : (int)reserve)) ? 1
											 : -ENOMEM;
	}
	if (!strcmp(name, "check_net_queue_count") && argc == 1) {
		unsigned char m[PT_CPUS_BYTES];
		int n = 0;
		if (argv[0][0] && strspn(argv[0], "0123456789") == strlen(argv[0]))
			return (*out = strdup(argv[0])) ? 1 : -ENOMEM;
		if (pt_cpus_online(p->ctx, m) == 0)
			for (int i = 0; i < PT_CPUS_MAX; i++)
				n += pt_cpus_has(m, i);
		return asprintf(out, "%d", n ? n : 1) < 0 ? -ENOMEM : 1;
	}
	return asprintf(why, "function %s (with %d arguments) is not known", name, argc) < 0
		       ? -ENOMEM
		       : 0;
}
