#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The differential tier (issue 25): perftune's profile functions and loader
against TuneD's own Python classes (Functions, Variables, Loader, Merger).

Cases: TuneD's upstream unit-test inputs, hand-written edge cases from the
issue, seeded random and malformed values (thousands), and random profile
trees for every loader rule.  TuneD evaluates each in this process, pointed
at a fake machine (commands.read_file and SYSFS_CPUS_PATH redirected below
ROOT; commands.execute never runs a program); perftune evaluates each through
pt-eval (a test-only entry point to lib/profile/).

The rule (issue 25): TuneD's value, or a skip/error that says why.  A case
agrees when both give the same value, or both fail.  Every other difference
must match an entry of allow-list.json, whose every entry says why we differ.
Exit 1 on a difference no entry explains, or an entry nothing used.

Environment: PT_EVAL, MKROOT, ALLOW_LIST (set by meson); TUNED_DIFF_SEED,
TUNED_DIFF_SCALE (cases multiplier, default 1), TUNED_DIFF_SHOW (print N
allow-listed examples per entry).
"""
import collections
import configparser
import glob
import json
import logging
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time


def skip(msg):
    print("SKIP:", msg)
    sys.exit(77)


try:
    import tuned.consts
    import tuned.logs
    from tuned.profiles import factory, loader, locator, merger, variables
    from tuned.plugins import base as tplugin
    from tuned.profiles.functions import functions as tfunctions
    from tuned.utils import commands as tcommands
except ImportError as e:
    # TuneD is a package of the system's python3; a python3 first on PATH may not see it
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.access("/usr/bin/python3", os.X_OK):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    skip("TuneD's Python package is not installed (apt install tuned): %s" % e)

PT_EVAL = os.environ.get("PT_EVAL")
PERFTUNE = os.environ.get("PERFTUNE")
MKROOT = os.environ.get("MKROOT")
ALLOW = os.environ.get("ALLOW_LIST", os.path.join(os.path.dirname(__file__), "allow-list.json"))
if not PT_EVAL or not MKROOT or not PERFTUNE:
    print("tuned-diff: run through meson test (PT_EVAL, MKROOT unset)", file=sys.stderr)
    sys.exit(2)
SEED = int(os.environ.get("TUNED_DIFF_SEED", "25"))
SCALE = float(os.environ.get("TUNED_DIFF_SCALE", "1"))
SHOW = int(os.environ.get("TUNED_DIFF_SHOW", "0"))

# ---------------------------------------------------------------- the fake machine

TMP = tempfile.mkdtemp(prefix="tuned-diff-")
ROOT = os.path.join(TMP, "root")
subprocess.run(["bash", MKROOT, ROOT], check=True, stdout=subprocess.DEVNULL)


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


CPU = ROOT + "/sys/devices/system/cpu"
# 12 CPUs present, some offline, two packages (one CPU without topology): what
# calc_isolated_cores, cpulist_online/present/invert look at
put(CPU + "/online", "0-5,8\n")
put(CPU + "/present", "0-11\n")
for c in range(4, 12):
    if c != 6:
        put("%s/cpu%d/topology/physical_package_id" % (CPU, c), "1\n")
put(ROOT + "/proc/cpuinfo", "".join(
    "processor\t: %d\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6230 CPU\n"
    "flags\t\t: fpu vme sse2 avx avx2 avx512f constant_tsc\n\n" % c for c in range(4)))
ONLINE = 7

# ---------------------------------------------------------------- TuneD, pointed at it

logging.getLogger("tuned").setLevel(100)  # its log.error lines are not ours to print
_read_file = tcommands.commands.read_file


def read_file(self, f, err_ret="", no_error=False):
    f = str(f)
    if f.startswith("/") and not f.startswith(ROOT):
        f = ROOT + f
    return _read_file(self, f, err_ret, True)


RAN = []


def execute(self, args, *a, **kw):
    """a profile's functions run programs in TuneD; here none is run"""
    if list(args) == ["nproc"]:  # what nproc prints on the fake machine (no affinity mask)
        return (0, str(ONLINE))
    RAN.append(args)
    return (1, "")


tcommands.commands.read_file = read_file
tcommands.commands.execute = execute
tuned.consts.SYSFS_CPUS_PATH = CPU

UNEVAL = [False]
_process_func = tfunctions.Functions._process_func


def process_func(self, _from):
    """note when TuneD leaves a function's text in the value (not evaluated)"""
    before = self._str
    _process_func(self, _from)
    head = re.split(r"(?<!\\):", self._str[_from:self._cnt])[0]
    if self._str == before and head == "${f":
        UNEVAL[0] = True


tfunctions.Functions._process_func = process_func


def tuned_expand(v, value):
    UNEVAL[0] = False
    try:
        r = v.expand(value)
    except Exception as e:  # noqa: BLE001 -- any exception fails TuneD's profile load
        return ("err", "%s: %s" % (type(e).__name__, e))
    return ("uneval" if UNEVAL[0] else "ok", r)

# ---------------------------------------------------------------- perftune, through pt-eval


def hx(s):
    return s.encode("utf-8", "surrogateescape").hex()


def pt_eval(mode, lines):
    p = subprocess.run([PT_EVAL, mode, ROOT], input="".join(l + "\n" for l in lines),
                       capture_output=True, text=True, errors="surrogateescape", timeout=600)
    if p.returncode != 0:
        print("pt-eval %s: exit %d: %s" % (mode, p.returncode, p.stderr[-2000:]), file=sys.stderr)
        sys.exit(1)
    out = p.stdout.splitlines()
    if len(out) != len(lines):
        print("pt-eval %s: %d answers to %d cases" % (mode, len(out), len(lines)), file=sys.stderr)
        sys.exit(1)
    return [json.loads(o) for o in out]

# ---------------------------------------------------------------- the allow-list


with open(ALLOW, encoding="utf-8") as f:
    ALLOWED = json.load(f)["entries"]
for e in ALLOWED:
    assert e.get("id") and e.get("why") and len(e["why"]) > 20, "allow-list entry without a reason: %r" % e


def tuned_kind(t):
    if t[0] == "ok" and t[1] == "":
        return "empty"
    return t[0] if t[0] != "ok" else "value"


def same_cpus(a, b):
    """two values that list the same CPUs (in another order)"""
    if a is None or b is None or a == b:
        return False
    return re.sub(r"\d+", "#", a) == re.sub(r"\d+", "#", b) and \
        sorted(re.findall(r"\d+", a)) == sorted(re.findall(r"\d+", b))


def allowed(scope, case, t, o):
    """the allow-list entry that explains TuneD's @t against our @o, or None"""
    ours = "skip" if "skip" in o else "err" if "err" in o else "value"
    reason = o.get("skip") or o.get("err") or ""
    for e in ALLOWED:
        if e["scope"] != scope and e["scope"] != "*":
            continue
        if e.get("functions") and case.get("func") not in e["functions"]:
            continue
        if e.get("tuned", "any") not in ("any", tuned_kind(t)):
            continue
        if e.get("ours", "any") not in ("any", ours):
            continue
        if e.get("reason") and not re.search(e["reason"], reason):
            continue
        if e.get("input") and not re.search(e["input"], case["value"]):
            continue
        if e.get("same_cpus") and not same_cpus(t[1], o.get("ok")):
            continue
        return e
    return None


def agrees(t, o):
    if "ok" in o:
        return t[0] in ("ok", "uneval") and t[1] == o["ok"]
    if "err" in o:
        return t[0] == "err"
    return False

# ---------------------------------------------------------------- function cases

# TuneD's own unit-test inputs (tests/unit/utils/test_commands.py, profiles/test_variables.py,
# profiles/test_cpuinfo_check.py upstream)
UPSTREAM = [
    "${f:hex2cpulist:0xf}", "${f:hex2cpulist:0x1,0000,0001}",
    "${f:cpulist_unpack:4-8,^6,0xf00,,!10-11}", "${f:cpulist_unpack:1,2,3-x}",
    "${f:cpulist_unpack:1,2,!3-x}", "${f:cpulist_pack:0,1,3,4,5,6,8,9,32}",
    "${f:cpulist2hex:1-3,5,32}", "This is ${f:strip: var1 }",
    "${f:cpuinfo_check:[:matched:fallback}",
]
# the list, and what TuneD's documentation shows
EDGES = [
    "${f:cpulist_unpack:0x3:0x4}", "${f:hex2cpulist:ff}", "${f:hex2cpulist:ff,ffffffff}",
    "${f:cpulist_unpack:1 ,2}", "${f:cpulist_unpack:1 - 3}", "${f:cpulist_unpack:0xf }",
    "${f:cpulist_unpack:3-1}", "${f:cpulist_unpack:1-2-3}", "${f:cpulist_unpack:0xzz}",
    "${f:cpulist_unpack:8192}", "${f:cpulist_unpack:0-9000}", "${f:cpulist_unpack:1_0}",
    "${f:cpulist_unpack:\u0663}", "${f:s2kb:1}", "${f:s2kb:3}", "${f:s2kb:5}", "${f:s2kb:-1}",
    "${f:kb2s:9223372036854775807}", "${f:s2kb:9007199254740993}", "${f:kb2s:1_0}",
    "${f:cpuinfo_check:(:1}", "${f:regex_search_ternary:a:\\d+:y:n}",
    "${f:regex_search_ternary:x1:\\A\\w\\d\\Z:y:n}", "${f:regex_search_ternary:X:(?i)x+?:y:n}",
    "${f:calc_isolated_cores:x}", "${f:calc_isolated_cores}", "${f:calc_isolated_cores:2}",
    "${f:exec:/bin/echo:hello}", "${f:virt_check:vm:metal}", "${f:check_net_queue_count:}",
    "${f:check_net_queue_count:8}", "${f:assertion:n:1:1}", "${f:assertion:n:1:2}",
    "${f:assertion_non_equal:n:1:1}", "${f:strip:}${f:strip: y}", "\\${f:a} \\${f:b}",
    "}${f:strip: x }", "${f:strip: x", "${f:nosuch:1}", "${f:a-b:1}", "${x}",
    "${f:cpulist_pack:${f:cpulist_unpack:1-3}}", "${f:strip:a\\:b}", "${f:cpulist2devs:1-2}",
    "${f:cpulist_online:0xff,1}", "${f:cpulist_present:0-20}", "${f:cpulist_invert:1}",
    "${f:cpulist2hex_invert:0}", "${f:strip:  x\u00a0\u2003}", "${f:strip:\x1cx\x1f}",
]
FUNCS = ["cpulist_unpack", "cpulist_pack", "cpulist_invert", "cpulist2hex", "cpulist2hex_invert",
         "cpulist_online", "cpulist_present", "cpulist2devs", "hex2cpulist", "kb2s", "s2kb",
         "strip", "regex_search_ternary", "cpuinfo_check", "virt_check", "calc_isolated_cores",
         "check_net_queue_count", "assertion", "assertion_non_equal", "exec"]


def r_cpu_item(r):
    k = r.random()
    def n():  # mostly CPUs a machine has; now and then the last one perftune takes, and past it
        k = r.random()
        return r.randint(0, 12) if k < 0.5 else r.randint(0, 70) if k < 0.92 else r.choice([8191, 8192, 8300])
    if k < 0.3:
        s = str(n())
    elif k < 0.5:
        s = "%d-%d" % (n(), n())
    elif k < 0.6:
        s = r.choice("^!") + r.choice([str(n()), "%d-%d" % (n(), n())])
    elif k < 0.75:
        s = "0" + r.choice("xX") + "".join(r.choice("0123456789abcdefABCDEF") for _ in range(r.randint(0, 10)))
    elif k < 0.8:
        s = ""
    elif k < 0.9:
        s = str(r.randint(0, 12))
    else:
        s = r.choice(["1-2-3", "+3", "1_0", "\u0663", " 4", "4 ", "x", "-1", "1-", "-", "^", "0x",
                      "'2'", "\"3\"", "1'2", "0x1_0", "\t5", "3\x1c", "0x-1", "+0x3", "00000001",
                      "7-5", "^9000", "0-8200", "2 3", "\u00a02"])
    if r.random() < 0.1:
        s = " " * r.randint(1, 2) + s
    if r.random() < 0.1:
        s = s + " "
    return s


def r_cpulist(r):
    parts = [r_cpu_item(r) for _ in range(r.randint(1, 6))]
    out = parts[0]
    for p in parts[1:]:
        out += r.choice([",", ",", ",,", ":"]) + p
    return out


def r_number(r):
    k = r.random()
    if k < 0.5:
        v = str(r.randint(-50, 5000))
    elif k < 0.7:
        v = str(r.choice([2**53 - 1, 2**53, 2**53 + 1, 2**62, 2**62 + 1, 2**63, 10**30]) * r.choice([1, -1]))
    else:
        v = r.choice(["", "x", "1.5", "1_0", " 7 ", "+8", "--1", "\u0663", "1e3", "0x10", "0b1", "-0",
                      "\t9\n".strip("\n"), "12a", "٣٤"])
    return v


RX_PIECES = ["a", "b", "x", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\A", "\\Z", "\\b", "^", "$", ".",
             "(?i)", "+?", "*?", "+", "*", "?", "[a-z]", "[^0-9]", "(a|b)", "(?:x)", "(?=a)", "(?!b)",
             "(?P<n>a)", "(?P=n)", "[", "(", ")", "\\", "\\1", "a{2}", "{", "|", "\\.", "\\Z$", "(?m)",
             "(?s)", "Intel", "avx2", "GenuineIntel", "flags\\s*:", "\\bavx512f\\b", "AMD", "^vendor_id",
             "model name.*Gold", "\\d{4}", "[[:alpha:]]", "\\z", "\\G", "\\Q", "\\K", "(?<=a)b", "(?#c)",
             "\\u0041", "\\x41", "\\N", "\\p{L}", "\\h"]


def r_regex(r):
    return "".join(r.choice(RX_PIECES) for _ in range(r.randint(1, 4)))


def r_text(r):
    return "".join(r.choice(["a", "b", "x", "1", "9", " ", "X", "A", "Intel", "\u0663", "é", "_", "-", "\t"])
                   for _ in range(r.randint(0, 6)))


def esc(s):
    return s.replace(":", "\\:")


def r_func_case(r):
    f = r.choice(FUNCS)
    if f in ("cpulist_unpack", "cpulist_pack", "cpulist_invert", "cpulist2hex", "cpulist2hex_invert",
             "cpulist_online", "cpulist_present", "cpulist2devs"):
        args = r_cpulist(r)
    elif f == "hex2cpulist":
        args = r.choice(["", "0x", "0X", " ", "+", "-"]) + "".join(
            r.choice("0123456789abcdefABCDEF,,_ g") for _ in range(r.randint(0, 14)))
        if r.random() < 0.1:
            args += ":" + args
    elif f in ("kb2s", "s2kb"):
        args = r_number(r) if r.random() < 0.95 else r_number(r) + ":" + r_number(r)
    elif f == "strip":
        args = ":".join("".join(r.choice([" ", "\t", "x", "y", "\u00a0", "\u2003", "\x1c", "\u3000", "z"])
                                for _ in range(r.randint(0, 5))) for _ in range(r.randint(0, 3)))
    elif f == "regex_search_ternary":
        n = r.choice([4, 4, 4, 4, 3, 5])
        args = ":".join(esc(x) for x in [r_text(r), r_regex(r), "yes", "no", "more"][:n])
    elif f == "cpuinfo_check":
        a = []
        for _ in range(r.randint(1, 3)):
            a += [esc(r_regex(r)), "v%d" % len(a)]
        if r.random() < 0.5:
            a.append("fallback")
        args = ":".join(a)
    elif f == "virt_check":
        args = ":".join(["vm", "metal", "x"][:r.choice([2, 2, 1, 3])])
    elif f == "calc_isolated_cores":
        args = r.choice(["", "0", "1", "2", "3", "4", "5", "9", "x", "-1", " 1", "1 ", "\u0661", "+1",
                         "99999999999999999999", "1:2"])
    elif f == "check_net_queue_count":
        args = r.choice(["", "4", "16", "x", "\u0664", "\u00b2", " 4", "4:5", "-1", "0"])
    elif f in ("assertion", "assertion_non_equal"):
        a, b = r.choice([("1", "1"), ("1", "2"), ("", ""), ("a b", "a b")])
        args = ":".join(["msg", a, b][:r.choice([3, 3, 3, 2, 4])] + ([] if r.random() < 0.9 else ["x"]))
    else:  # exec
        args = r.choice(["/bin/true", "/bin/echo:x", "nproc", ""])
    v = "${f:%s%s}" % (f, (":" + args) if args != "" or r.random() < 0.5 else "")
    if r.random() < 0.15:  # nested, or in text
        v = r.choice(["x%sy", "${f:strip:%s}", "${f:cpulist_pack:%s}", "%s,${f:strip: 1 }", "\\%s"]) % v
    return f, v


MAL_ALPHABET = ["$", "{", "}", "${", "${f:", "\\", ":", "f", "strip", "cpulist_pack", "kb2s", " ", "1",
                "0x", ",", "-", "^", "x", "\\${f:", "}", "\\:", "${x}", "${f:strip:"]


def r_malformed(r):
    return "".join(r.choice(MAL_ALPHABET) for _ in range(r.randint(1, 12)))


def function_cases():
    r = random.Random(SEED)
    cases = [{"func": "upstream", "value": v} for v in UPSTREAM]
    cases += [{"func": "edge", "value": v} for v in EDGES]
    for _ in range(int(12000 * SCALE)):
        f, v = r_func_case(r)
        cases.append({"func": f, "value": v})
    for _ in range(int(4000 * SCALE)):
        cases.append({"func": "malformed", "value": r_malformed(r)})
    for c in cases:  # the function the case is about, for the tallies
        if c["func"] in ("upstream", "edge"):
            m = re.match(r"(?:This is )?\\?\$\{f:(\w+)", c["value"])
            c["func"] = m.group(1) if m and m.group(1) in FUNCS else "expansion"
        elif c["func"] == "malformed":
            c["func"] = "expansion"
    return cases

# ---------------------------------------------------------------- loader cases


OPTION_NAMES = ["vm.swappiness", "vm.dirty_ratio", "kernel.printk", "/sys/kernel/mm/x", "governor",
                "readahead", "opt${v1}", "a", "b", "drop_me", "net.core.somaxconn"]


def r_value(r, depth=0):
    k = r.random()
    if k < 0.35:
        return str(r.randint(0, 100))
    choices = ["${v1}", "${v2}", "${undefined}", "\\${v1}", "${f:cpulist_pack:${v2}}", "${i:PROFILE_DIR}/x",
               "\\${i:PROFILE_DIR}", "${f:strip: ${v1} }", "a b", "\"quoted\"", "x#y", "1 # comment",
               "${f:kb2s:${v1}}", "${f:assertion:a:1:2}", "${f:exec:/bin/true}", "${i:OTHER}", "0-3",
               "${f:cpulist_unpack:1-2-3}", "${f:s2kb:${v1}}", "", "$${v1}"]
    v = r.choice(choices)
    if depth < 1 and r.random() < 0.2:
        v += " " + r_value(r, depth + 1)
    return v


def r_section(r, names, name):
    lines = ["[%s]" % name]
    if name == "main":
        if r.random() < 0.7:
            inc = r.choice([
                lambda: r.choice(names),
                lambda: "%s,%s" % (r.choice(names), r.choice(names)),
                lambda: "%s ; %s" % (r.choice(names), r.choice(names)),
                lambda: "sub/" + r.choice(names),
                lambda: "-missing",
                lambda: "-missing, " + r.choice(names),
                lambda: "%s %s" % (r.choice(names), r.choice(names)),
                lambda: r.choice(names) + ",",
                lambda: "missing",
                lambda: "${f:strip: %s }" % r.choice(names),
            ])()
            lines.append("include=" + inc)
        lines.append("summary = profile %s" % r.randint(0, 9))
        return lines
    if name == "variables":
        for v in ["v1", "v2", "v3"][:r.randint(1, 3)]:
            lines.append("%s = %s" % (v, r.choice(["4", "1-3", "${v1}", "2,5", " 7 ", "${f:cpulist_pack:1,2,3}",
                                                   "\\${v1}", "${i:PROFILE_DIR}", "x y"])))
        if r.random() < 0.3:
            lines.append("include = ${i:PROFILE_DIR}/vars.conf")
        if r.random() < 0.1:
            lines.append("bad-name = 1")
        return lines
    if r.random() < 0.2:
        lines.append("type = %s" % r.choice(["sysctl", "sysfs", "vm", "nosuch"]))
    if r.random() < 0.2:
        lines.append("enabled = %s" % r.choice(["false", "False", "0", "true", "yes", "no"]))
    if r.random() < 0.2:
        lines.append("replace = %s" % r.choice(["true", "True", "1", "yes", "false"]))
    if r.random() < 0.25:
        lines.append("drop = %s" % r.choice(["a", "a,b", "a b", "a;b", "vm.swappiness, kernel.printk", "a ,b",
                                              "drop_me", "a-,b"]))
    if r.random() < 0.2:
        lines.append("priority = %s" % r.choice(["1", "-1", "10", "x", " 5 "]))
    if r.random() < 0.2:
        lines.append("devices = %s" % r.choice(["sd*", "${v1}", "!sda, sd*", "cpulist:${v2}", "*"]))
    if r.random() < 0.1:
        lines.append("cpuinfo_regex = %s" % r.choice(["GenuineIntel", "${v1}", "\\d+"]))
    if r.random() < 0.1:
        lines.append("uname_regex = %s" % r.choice(["Linux", "x86_64"]))
    for _ in range(r.randint(0, 5)):
        name = r.choice(OPTION_NAMES)
        sep = r.choice(["=", " = ", "=  ", "\t=\t"])
        lines.append(name + sep + r_value(r))
        k = r.random()
        if k < 0.1:
            lines.append("    continued " + r_value(r))
        elif k < 0.15:
            lines += ["", "  after blank " + r_value(r)]
        elif k < 0.2:
            lines += ["  # a comment line", "  after comment"]
        elif k < 0.23:
            lines.append("  ")
    return lines


def r_profile(r, names):
    secs = ["main"] + r.sample(["sysctl", "sysfs", "vm", "cpu", "disk", "variables", "DEFAULT", "my_unit",
                                " sysctl ", "net", "sysctl"], r.randint(1, 5))
    out = []
    for s in secs:
        out += r_section(r, names, s)
        if r.random() < 0.2:
            out.append(r.choice(["# comment", "; comment", "", "  "]))
    nl = "\r\n" if r.random() < 0.05 else "\n"
    return nl.join(out) + nl


def loader_cases(tmp):
    r = random.Random(SEED + 1)
    cases = []
    # one tree per rule the issue names, then random trees
    fixed = [
        {"p0": "[main]\ninclude=p1 p2\n", "p1": "[sysctl]\na=1\n", "p2": "[sysctl]\nb=2\n"},
        {"p0": "[main]\ninclude=p1,\n", "p1": "[sysctl]\na=1\n"},
        {"p0": "[main]\ninclude=sub/p1\n", "p1": "[sysctl]\na=1\n"},
        {"p0": "[sysctl]\na=1\n\n  2\nb=3\n"},
        {"p0": "[sysctl]\na=1\n  2\n"},
        {"p0": "[main]\ninclude=p1\n[sysctl]\ndrop=a b\n", "p1": "[sysctl]\na=1\nb=2\n"},
        {"p0": "[main]\ninclude=p1\n[sysctl]\ndrop=a,b\n", "p1": "[sysctl]\na=1\nb=2\nc=3\n"},
        {"p0": "[DEFAULT]\nd=1\n[main]\n[sysctl]\na=2\n[vm]\nd=3\n"},
        {"p0": "[ sysctl ]\na=1\n"},
        {"p0": "[variables]\nx=1\n[sysfs]\n/sys/${x}=2\n"},
        {"p0": "[variables]\ninclude=${i:PROFILE_DIR}/vars.conf\n[sysctl]\na=${v}\n", "vars": "v=7\n"},
        {"p0": "[sysctl]\na=${i:PROFILE_DIR}\nb=\\${i:PROFILE_DIR}\n"},
        {"p0": "[main]\ninclude=p1\n[sysctl]\nreplace=true\nb=2\n", "p1": "[sysctl]\na=1\n"},
        {"p0": "[main]\ninclude=p1\n[s]\ntype=sysctl\npriority=5\n", "p1": "[s]\ntype=vm\na=1\n"},
        {"p0": "[main]\ninclude=-nothing\n[sysctl]\na=1\n"},
        {"p0": "[main]\ninclude=p1\n", "p1": "[main]\ninclude=p0\n[sysctl]\na=1\n"},
        {"p0": "[sysctl]\na=1\r\nb=2\rc=3\n"},
    ]
    trees = fixed + [None] * int(1000 * SCALE)
    for i, t in enumerate(trees):
        d = os.path.join(tmp, "tree%d" % i)
        if t is None:
            names = ["p%d" % k for k in range(r.randint(1, 4))]
            t = {n: r_profile(r, names) for n in names}
            if r.random() < 0.5:
                t["vars"] = "".join(r.choice(["v1=9\n", "v2 = 3-4\n", "no value line\n", "v3=${v1}\n",
                                              "[other]\nv2=5\n", "# c\n"]) for _ in range(3))
        for n, text in t.items():
            if n == "vars":
                for p in t:
                    if p != "vars":
                        put(os.path.join(d, p, "vars.conf"), text)
                continue
            put(os.path.join(d, n, "tuned.conf"), text)
        cases.append({"dir": d, "name": "p0", "tree": t})
    return cases


def tuned_load(d, name):
    v = variables.Variables()
    ld = loader.Loader(locator.Locator([d]), factory.Factory(), merger.Merger(), None, v)
    UNEVAL[0] = False
    try:
        prof = ld.load([name])
    except Exception as e:  # noqa: BLE001
        return {"err": "%s: %s" % (type(e).__name__, e)}
    units = []
    for u in prof.units.values():
        def attr(x):
            if x is None:
                return None
            kind = "uneval" if "${f:" in x else "ok"  # the loader expanded them already
            return (kind, x)
        units.append({"name": u.name, "type": u.type, "enabled": u.enabled, "replace": u.replace,
                      "devices": attr(u.devices), "cpuinfo_regex": attr(u.cpuinfo_regex),
                      "uname_regex": attr(u.uname_regex),
                      "options": [(k, tuned_expand(v, str(val))) for k, val in u.options.items()]})
    return {"main": sorted((k, str(val)) for k, val in prof.options.items()), "units": units}


def compare_loader(case, t, o, report):
    """the differences of one tree: (what, tuned, ours) triples"""
    if "err" in t or "err" in o:
        if "err" in t and "err" in o:
            return
        report(case, "load", ("err", t["err"]) if "err" in t else ("ok", "loads"),
               o if "err" in o else {"ok": "loads"})
        return
    if t["main"] != sorted((k, v["ok"]) for k, v in o["main"]):
        report(case, "[main]", ("ok", repr(t["main"])), {"ok": repr(sorted((k, v["ok"]) for k, v in o["main"]))})
    tu = [(u["name"], u["type"]) for u in t["units"]]
    ou = [(u["name"], u["type"]) for u in o["units"]]
    if tu != ou:
        report(case, "units", ("ok", repr(tu)), {"ok": repr(ou)})
        return
    for a, b in zip(t["units"], o["units"]):
        where = "[%s]" % a["name"]
        for k in ("enabled", "replace"):
            if a[k] != b[k]:
                report(case, "%s %s" % (where, k), ("ok", str(a[k])), {"ok": str(b[k])})
        for k in ("devices", "cpuinfo_regex", "uname_regex"):
            if (a[k] is None) != (b[k] is None):
                report(case, "%s %s" % (where, k), ("ok", str(a[k])), {"ok": str(b[k])})
            elif a[k] is not None:
                report(case, "%s %s" % (where, k), tuple(a[k]), b[k], check=True)
        if [k for k, _ in a["options"]] != [k for k, _ in b["options"]]:
            report(case, "%s options" % where, ("ok", repr([k for k, _ in a["options"]])),
                   {"ok": repr([k for k, _ in b["options"]])})
            continue
        for (k, tv), (_, ov) in zip(a["options"], b["options"]):
            report(case, "%s %s" % (where, k), tuple(tv), ov, check=True)

# ---------------------------------------------------------------- shipped profiles, applied

UNIT_ATTRS = {"type", "enabled", "replace", "drop", "devices", "devices_udev_regex", "cpuinfo_regex",
              "uname_regex", "script_pre", "script_post", "priority"}
SHIPPED = sorted(glob.glob("/usr/lib/tuned/*/tuned.conf"))


def shipped_machine():
    """TuneD's profiles in the fake machine's /usr/lib/tuned (with --root, perftune includes
    from the root's TuneD directories), every sysctl they set there too (holding 0)"""
    shutil.copytree("/usr/lib/tuned", ROOT + "/usr/lib/tuned", symlinks=True, dirs_exist_ok=True)
    for f in SHIPPED:
        cp = configparser.ConfigParser(delimiters=("=",), inline_comment_prefixes=("#",), strict=False,
                                       interpolation=None)
        cp.optionxform = str
        try:
            cp.read(f)
        except configparser.Error:
            continue
        for sec in cp.sections():
            if cp.get(sec, "type", fallback=sec) != "sysctl":
                continue
            for o in cp.options(sec):
                p = os.path.join(ROOT, "proc/sys", o.replace(".", "/"))
                fields = len(cp.get(sec, o).strip('"').split()) or 1  # "4096 87380 16777216": three
                if o not in UNIT_ATTRS and "${" not in o and not os.path.exists(p):
                    put(p, " ".join(["0"] * fields) + "\n")


def machine_uname():
    """uname as perftune reads it below a root: proc/sys/kernel/{ostype,hostname,...}"""
    parts = []
    for f in ("ostype", "hostname", "osrelease", "version", "arch"):
        try:
            parts.append(open(os.path.join(ROOT, "proc/sys/kernel", f)).read().strip())
        except OSError:
            pass
    return " ".join(parts)


def tuned_sysctls(name):
    """what TuneD's sysctl plugin would write: {proc path: (kind, value)}, in instance order"""
    v = variables.Variables()
    ld = loader.Loader(locator.Locator([ROOT + "/usr/lib/tuned"]), factory.Factory(), merger.Merger(),
                       None, v)
    try:
        prof = ld.load([name])
    except Exception as e:  # noqa: BLE001
        return {"err": str(e)}
    cpuinfo, uname, insts = open(ROOT + "/proc/cpuinfo").read(), machine_uname(), []
    for u in prof.units.values():  # tuned.units.manager.create
        if not u.enabled:
            continue
        if u.cpuinfo_regex is not None and not re.search(u.cpuinfo_regex, cpuinfo, re.MULTILINE):
            continue
        if u.uname_regex is not None and not re.search(u.uname_regex, uname, re.MULTILINE):
            continue
        insts.append((int(u.options.get("priority", 0)), u))
    insts.sort(key=lambda x: x[0])
    out = {}
    for _, u in insts:
        if u.type != "sysctl":
            continue
        for k, val in u.options.items():
            if k == "priority":
                continue
            path = k.replace(".", "/")
            kind, new = tuned_expand(v, tcommands.commands().unquote(str(val)))
            try:
                cur = open(os.path.join(ROOT, "proc/sys", path)).read().strip()
            except OSError:
                cur = None
            if kind != "err":  # ">N" / "<N": TuneD's Plugin._process_assignment_modifiers
                new = tplugin.Plugin._process_assignment_modifiers(None, new, cur)
            if new is not None:
                out[path] = (kind, new)
    return out


def perftune_sysctls(path):
    p = subprocess.run([PERFTUNE, "--root", ROOT, "apply", "--dry-run", "--json", path],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return {"err": p.stderr.strip()}
    d = json.loads(p.stdout)
    out = {}
    own = {"numa.balancing": "kernel/numa_balancing", "hugepages.nr": "vm/nr_hugepages"}

    def path(k):  # sysctls with a family of their own have keys of their own
        if k in own:
            return own[k]
        return k[7:].replace(".", "/") if k.startswith("sysctl.") and "[" not in k else None
    for c in d["changes"]:
        if path(c["key"]):
            out[path(c["key"])] = {"ok": c["new"]}
    for sk in d["skipped"]:
        if path(sk.get("key") or ""):
            out.setdefault(path(sk["key"]), {"skip": sk["reason"]})
    return out


def applied_cases(cases, ours):
    """the strip cases as a profile's [sysctl] values (issue 33 H14: TuneD writes the blanks
    and tabs inside a value as they are, and so must perftune): those whose expansion
    agrees (the rest are judged above), of one line, whose result has no control character
    but a tab (set refuses those, naming the reason)"""
    out = []
    for c, o in zip(cases, ours):
        t = tuned_expand(variables.Variables(), c["value"])
        if c["func"] == "strip" and t[0] == "ok" and o.get("ok") == t[1] and \
                not re.search(r"[\x00-\x08\x0a-\x1f\x7f]", t[1] + c["value"]):
            out.append(c)
    return out

# ---------------------------------------------------------------- the run


def main():
    t0 = time.monotonic()
    if os.environ.get("TUNED_DIFF_EVAL"):  # one value, by hand: TuneD's answer and ours
        x = os.environ["TUNED_DIFF_EVAL"]
        print("TuneD:", tuned_expand(variables.Variables(), x), "perftune:", pt_eval("expand", [hx(x)])[0])
        return 0
    stats = collections.defaultdict(lambda: collections.Counter())
    used = collections.Counter()
    shown = collections.Counter()
    failures = []

    def judge(scope, group, case, t, o, label=None, count=True):
        st = stats[group]
        st["cases"] += count
        if agrees(t, o):
            st["agree"] += 1
            return
        e = allowed(scope, case, t, o)
        if e:
            st["allowed " + e["id"]] += 1
            used[e["id"]] += 1
            if shown[e["id"]] < SHOW:
                shown[e["id"]] += 1
                print("  allowed %s: %s%s: TuneD %r, perftune %r" % (e["id"], case.get("value", case.get("dir")),
                                                                    " " + label if label else "", t, o))
            return
        st["differ"] += 1
        failures.append("%s%s: TuneD %r, perftune %r" % (case.get("value", case.get("dir")),
                                                          " " + label if label else "", t, o))

    # functions
    import warnings
    warnings.simplefilter("ignore")  # re's FutureWarnings about the generated regexes
    cases = function_cases()
    ours = fours = pt_eval("expand", [hx(c["value"]) for c in cases])
    for c, o in zip(cases, ours):  # a Variables of its own per case, as per profile load
        judge("function", c["func"], c, tuned_expand(variables.Variables(), c["value"]), o)
    print("functions: %.1f s" % (time.monotonic() - t0))
    # the loader
    lcases = loader_cases(os.path.join(TMP, "trees"))
    ours = pt_eval("load", ["%s %s" % (hx(c["dir"]), hx(c["name"])) for c in lcases])
    for c, o in zip(lcases, ours):
        t = tuned_load(c["dir"], c["name"])
        c["value"] = c["dir"]
        found = []

        def report(case, what, tv, ov, check=False):
            if check and agrees(tv, ov):
                return
            found.append((what, tv, ov))
        compare_loader(c, t, o, report)
        st = stats["loader"]
        st["cases"] += 1  # a tree agrees only if everything in it does
        st["both fail"] += "err" in t and "err" in o
        if not found:
            st["agree"] += 1
        for what, tv, ov in found:
            judge("loader", "loader", c, tv, ov, label=what, count=False)
    # every shipped TuneD profile, applied: the sysctl writes TuneD's plugin would make against
    # perftune apply --dry-run --json's changes
    shipped_machine()
    for f in SHIPPED:
        name = os.path.basename(os.path.dirname(f))
        t, o = tuned_sysctls(name), perftune_sysctls(ROOT + f)
        case = {"value": name}
        st = stats["shipped profiles"]
        st["cases"] += 1
        if "err" in t or "err" in o:
            found = [] if "err" in t and "err" in o else [("load", ("err", t["err"]) if "err" in t else
                                                           ("ok", "loads"), o if "err" in o else {"ok": "loads"})]
        else:
            found = []
            for k in sorted(set(t) | set(o)):
                tv, ov = t.get(k, ("ok", "(not written)")), o.get(k, {"ok": "(not written)"})
                found.append(("sysctl " + k, tv, ov))
            st["sysctl writes"] += len(t)
        if not found:
            st["agree"] += 1
        for what, tv, ov in found:
            judge("shipped", "shipped profiles", case, tv, ov, label=what, count=False)
    print("shipped profiles: %d sysctl writes compared" % stats["shipped profiles"]["sysctl writes"])
    # the strip cases applied: TuneD's sysctl plugin's writes against apply --dry-run's "new",
    # byte for byte (a value is written as given; only comparisons normalize blanks)
    applied = applied_cases(cases, fours)
    d = ROOT + "/usr/lib/tuned/pt-applied"
    for i, c in enumerate(applied):
        put(ROOT + "/proc/sys/kernel/pt_applied_%d" % i, "core\n")  # a string, as core_pattern
    put(d + "/tuned.conf", "[sysctl]\n" + "".join("kernel.pt_applied_%d=%s\n" % (i, c["value"])
                                                  for i, c in enumerate(applied)))
    t, o = tuned_sysctls("pt-applied"), perftune_sysctls(d + "/tuned.conf")
    for i, c in enumerate(applied):
        k = "kernel/pt_applied_%d" % i
        tv = ("err", t["err"]) if "err" in t else t.get(k, ("ok", "(not written)"))
        ov = o if "err" in o else o.get(k, {"ok": "(not written)"})
        judge("applied", "strip, applied", c, tv, ov)
    print("strip, applied: %d values compared byte for byte" % len(applied))
    if RAN:  # exec, virt_check: TuneD would have run these; the replaced execute ran none
        print("TuneD's functions asked to run %d programs (none was run), e.g. %r" % (len(RAN), RAN[:3]))

    # the note for the integrator: cases, agreements, allow-list entries per function and for the loader
    print("%-22s %6s %6s %6s  %s" % ("function", "cases", "agree", "differ", "allow-listed (entry: cases)"))
    for g in sorted(stats, key=lambda g: (g == "loader", g)):
        st = stats[g]
        al = ", ".join("%s: %d" % (k[8:], n) for k, n in sorted(st.items()) if k.startswith("allowed "))
        print("%-22s %6d %6d %6d  %s" % (g, st["cases"], st["agree"], st["differ"], al or "-"))
    print("loader: %d of %d trees fail to load in both (a missing include, a bad name, a parse error)"
          % (stats["loader"]["both fail"], stats["loader"]["cases"]))
    total = sum(st["cases"] for st in stats.values())
    agree = sum(st["agree"] for st in stats.values())
    print("total: %d cases, %d agree, %d allow-listed, %d differ; %d allow-list entries, %.1f s"
          % (total, agree, sum(used.values()), len(failures), len(ALLOWED), time.monotonic() - t0))
    unused = [e["id"] for e in ALLOWED if not used[e["id"]]]
    if unused:
        print("allow-list entries no case used (remove them): %s" % ", ".join(unused))
    for f in failures[:int(os.environ.get("TUNED_DIFF_MAX", "40"))]:
        print("DIFFERENCE:", f if len(f) < 400 else f[:400] + "...")
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failures or unused else 0


if __name__ == "__main__":
    sys.exit(main())
