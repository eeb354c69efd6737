# SPDX-License-Identifier: LGPL-2.1-or-later
"""Context.compare on the fake tree: the perftune program's experiment, its
report as a CompareResult, the change validated before anything runs, and the
machine as found afterwards.  The measure is a number the workload prints
(deterministic), never the clock."""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FakeTree

import perftune

THP = "sys/kernel/mm/transparent_hugepage/enabled"
METRIC = r"result: ([0-9.]+)"
# prints 80 + k or 100 + k (k = 0..4 from a call counter): THP "always" is 20% faster
WORKLOAD = """
import sys
path, counter = sys.argv[1], sys.argv[2]
try:
    n = int(open(counter).read())
except FileNotFoundError:
    n = 0
open(counter, "w").write(str(n + 1))
v = open(path).read()
tuned = "[always]" in v or v.strip() == "always"
print("state", v.strip(), file=sys.stderr)
print(f"result: {(80 if tuned else 100) + n % 5}")
"""


def workload(tree: FakeTree, tmp_path: Path) -> list[str]:
    return [sys.executable, "-c", WORKLOAD, str(tree.path(THP)), str(tmp_path / "counter")]


def thp(tree: FakeTree) -> str:
    v = tree.read(THP)
    return v.split("[", 1)[1].split("]", 1)[0] if "[" in v else v


def test_compare_finds_a_known_effect(ctx: perftune.Context, tree: FakeTree, tmp_path) -> None:
    log = tmp_path / "compare.log"
    r = ctx.compare(workload(tree, tmp_path), {"thp.enabled": "always"}, rounds=5, metric=METRIC,
                    log=log)
    assert isinstance(r, perftune.CompareResult)
    assert r.verdict == "better"
    assert r.rounds == 5 and r.metric == METRIC and not r.higher_is_better
    assert (r.baseline.n, r.tuned.n) == (5, 5)
    assert max(r.tuned.samples) < 85 and min(r.baseline.samples) >= 100
    assert r.change_pct == pytest.approx(100 * (r.tuned.median / r.baseline.median - 1))
    lo, hi = r.ci95
    assert lo is not None and hi is not None and lo <= r.change_pct <= hi < 0
    assert 0 < r.p_value < 0.05 and r.p_method in ("exact", "asymptotic")
    assert len(r.baseline.wall_s) == len(r.baseline.user_s) == len(r.baseline.sys_s) == 5
    assert thp(tree) == "madvise" and ctx.status() == []  # the machine as found
    assert "state always" in log.read_text() and "state madvise" in log.read_text()
    fields = {f.name for f in dataclasses.fields(r)}
    assert {"baseline", "tuned", "change_pct", "ci95", "p_value", "verdict", "metric",
            "rounds"} <= fields


def test_compare_a_a_and_key_value_strings(ctx: perftune.Context, tree: FakeTree,
                                           tmp_path) -> None:
    r = ctx.compare(workload(tree, tmp_path), ["thp.enabled=madvise"], rounds=4, warmup=0,
                    metric=METRIC, higher_is_better=True, seed=3, order="random",
                    log=tmp_path / "l")
    assert r.verdict == "no difference" and r.higher_is_better and r.order == "random"
    assert r.seed == 3 and r.warmup == 0


def test_compare_profile_with_variables(ctx: perftune.Context, tree: FakeTree, tmp_path,
                                        monkeypatch) -> None:
    d = tmp_path / "profiles" / "thp-on"
    d.mkdir(parents=True)
    (d / "tuned.conf").write_text("[vm]\ntransparent_hugepages=${t}\n[variables]\nt=never\n")
    monkeypatch.setenv("PERFTUNE_PROFILE_PATH", str(tmp_path / "profiles"))
    r = ctx.compare(workload(tree, tmp_path), profile="thp-on", variables={"t": "always"},
                    rounds=3, metric=METRIC, log=tmp_path / "l")
    assert r.verdict in ("better", "no difference")  # n = 3: exact p >= 0.1
    assert r.tuned.median < r.baseline.median
    assert thp(tree) == "madvise" and ctx.status() == []


@pytest.mark.parametrize(
    "kwargs, exc, text",
    [
        (dict(settings={"no.such.key": "1"}), perftune.PerftuneError, "no.such"),
        (dict(settings={"thp.enabled": "bogus"}), perftune.PerftuneValueError, "thp.enabled"),
        (dict(settings={"thp.enabled": "always"}, rounds=2), perftune.PerftuneValueError,
         "--rounds"),
        (dict(settings={"thp.enabled": "always"}, metric="no group"),
         perftune.PerftuneValueError, "capture group"),
        (dict(settings=None), TypeError, "settings or profile"),
    ],
)
def test_compare_refuses_bad_input_before_any_change(ctx, tree, tmp_path, kwargs, exc,
                                                     text) -> None:
    settings = kwargs.pop("settings")
    with pytest.raises(exc, match=text):
        ctx.compare(workload(tree, tmp_path), settings, log=tmp_path / "l", **kwargs)
    assert not (tmp_path / "counter").exists()  # the workload never ran
    assert thp(tree) == "madvise" and ctx.status() == []


def test_compare_cmd_failing_is_canceled_and_restored(ctx, tree, tmp_path) -> None:
    with pytest.raises(perftune.PerftuneError, match="CMD failed in round 1") as e:
        # exits 1 in the first tuned run
        fail = "import sys; sys.exit(open(sys.argv[1]).read().strip() == 'always')"
        ctx.compare([sys.executable, "-c", fail, str(tree.path(THP))], {"thp.enabled": "always"},
                    warmup=0, rounds=3, log=tmp_path / "l")
    assert e.value.errno == 125  # ECANCELED
    assert thp(tree) == "madvise" and ctx.status() == []


def test_compare_cmd_is_an_argument_list(ctx) -> None:
    with pytest.raises(TypeError, match="no shell"):
        ctx.compare("true", {"thp.enabled": "always"})


# ---- compare(change, fn): a callable measured in-process by the library ----


class Reader:
    """A measure that reads the tunable through the context: 80 + k when the
    change is in force, 100 + k when not (k = 0..4 from a call counter), and
    keeps what it saw."""

    def __init__(self, ctx: perftune.Context) -> None:
        self.ctx, self.seen = ctx, []

    def __call__(self) -> float:
        v = self.ctx.get("thp.enabled")
        self.seen.append(v)
        return (80 if v == "always" else 100) + len(self.seen) % 5


def journals(journal_dir: Path) -> list[str]:
    return sorted(p.name for p in journal_dir.glob("*.journal")) if journal_dir.exists() else []


def test_compare_fn_change_in_force_exactly_in_tuned_runs(ctx, tree, journal_dir) -> None:
    fn = Reader(ctx)
    r = ctx.compare({"thp.enabled": "always"}, fn, rounds=6, warmup=1, name="py-fn")
    assert isinstance(r, perftune.CompareResult)
    # one call per run; ABBA after the warmup pair: B T | B T, T B, B T, T B, B T, T B
    assert fn.seen == ["madvise", "always"] + ["madvise", "always", "always", "madvise"] * 3
    # every tuned sample saw the change, no baseline sample did
    assert all(s < 85 for s in r.tuned.samples) and all(s >= 100 for s in r.baseline.samples)
    assert (r.baseline.n, r.tuned.n) == (6, 6) and r.verdict == "better"
    assert r.change_pct == pytest.approx(100 * (r.tuned.median / r.baseline.median - 1))
    lo, hi = r.ci95
    assert lo is not None and hi is not None and lo <= r.change_pct <= hi < 0
    assert 0 < r.p_value < 0.05 and r.p_method in ("exact", "asymptotic")
    assert (r.rounds, r.warmup, r.order, r.seed, r.transaction) == (6, 1, "abba", 1, "py-fn")
    assert r.metric == "Reader" and r.log == "" and r.plot is None
    assert len(r.tuned.wall_s) == len(r.tuned.user_s) == len(r.tuned.sys_s) == 6
    assert thp(tree) == "madvise" and ctx.status() == [] and journals(journal_dir) == []


def test_compare_fn_options_and_higher_is_better(ctx, tree) -> None:
    fn = Reader(ctx)
    r = ctx.compare(["thp.enabled=always"], fn, rounds=5, warmup=0, order="random", seed=7,
                    higher_is_better=True)
    assert len(fn.seen) == 10 and fn.seen[0] == "madvise"  # the first run is a baseline run
    assert (r.order, r.seed, r.warmup, r.higher_is_better) == ("random", 7, 0, True)
    assert r.verdict == "worse"  # lower numbers with the change, and higher is better
    # the same seed gives the same order
    again = Reader(ctx)
    ctx.compare(["thp.enabled=always"], again, rounds=5, warmup=0, order="random", seed=7)
    assert again.seen == fn.seen


def test_compare_fn_profile(ctx, tree, tmp_path, monkeypatch) -> None:
    d = tmp_path / "profiles" / "thp-on"
    d.mkdir(parents=True)
    (d / "tuned.conf").write_text("[vm]\ntransparent_hugepages=${t}\n[variables]\nt=never\n")
    monkeypatch.setenv("PERFTUNE_PROFILE_PATH", str(tmp_path / "profiles"))
    fn = Reader(ctx)
    r = ctx.compare(None, fn, profile="thp-on", variables={"t": "always"}, rounds=3)
    assert r.tuned.median < r.baseline.median and "always" in fn.seen
    with ctx.load_profile("thp-on") as p:  # t=never: a loaded Profile as the change
        fn = Reader(ctx)
        ctx.compare(p, fn, rounds=3, warmup=0)
        assert fn.seen == ["madvise", "never", "never", "madvise", "madvise", "never"]
    assert thp(tree) == "madvise" and ctx.status() == []


class Boom(Exception):
    pass


@pytest.mark.parametrize("fail_at", [1, 2, 5])  # warmup tuned run, a baseline run, round 2
def test_compare_fn_exception_gives_the_change_back(ctx, tree, journal_dir, fail_at) -> None:
    seen = []

    def fn() -> float:
        seen.append(ctx.get("thp.enabled"))
        if len(seen) == fail_at + 1:
            raise Boom(f"call {len(seen)}")
        return 1.0

    with pytest.raises(Boom, match=f"call {fail_at + 1}") as e:
        ctx.compare({"thp.enabled": "always"}, fn, rounds=4)
    assert e.traceback[-1].name == "fn"  # fn's own traceback, re-raised
    assert len(seen) == fail_at + 1  # stopped at once
    assert thp(tree) == "madvise" and ctx.status() == [] and journals(journal_dir) == []


@pytest.mark.parametrize("ret, exc, text", [
    ("80", TypeError, r"fn returned str in warmup 1 \(baseline run\)"),
    (None, TypeError, "fn returned NoneType"),
    (True, TypeError, "fn returned bool"),
    (float("nan"), ValueError, "must be finite"),
])
def test_compare_fn_bad_measure_stops(ctx, tree, journal_dir, ret, exc, text) -> None:
    with pytest.raises(exc, match=text):
        ctx.compare({"thp.enabled": "always"}, lambda: ret, rounds=3)
    assert thp(tree) == "madvise" and ctx.status() == [] and journals(journal_dir) == []


@pytest.mark.parametrize(
    "change, kwargs, exc, text",
    [
        ({"no.such.key": "1"}, {}, perftune.PerftuneError, "no.such"),
        ({"thp.enabled": "bogus"}, {}, perftune.PerftuneValueError, "thp.enabled"),
        (["thp.enabled"], {}, perftune.PerftuneValueError, "'thp.enabled' is not KEY=VALUE"),
        ({}, {}, perftune.PerftuneValueError, "no change given"),
        ({"thp.enabled": "always"}, dict(rounds=2), perftune.PerftuneValueError, "rounds 2"),
        ({"thp.enabled": "always"}, dict(warmup=-1), perftune.PerftuneValueError, "warmup -1"),
        ({"thp.enabled": "always"}, dict(order="abab"), perftune.PerftuneValueError, "order"),
        ({"thp.enabled": "always"}, dict(name=""), perftune.PerftuneValueError, "empty name"),
        ({"thp.enabled": "always"}, dict(metric="x: (\\d+)"), TypeError, "for a command"),
        ("thp.enabled=always", {}, TypeError, "not a str"),
        (None, {}, TypeError, "a change or profile="),
    ],
)
def test_compare_fn_refuses_bad_input_before_any_call(ctx, tree, journal_dir, change, kwargs,
                                                      exc, text) -> None:
    calls = []
    with pytest.raises(exc, match=text):
        ctx.compare(change, lambda: calls.append(1) or 1.0, **kwargs)
    assert calls == []  # fn never ran
    assert thp(tree) == "madvise" and ctx.status() == [] and journals(journal_dir) == []


def test_compare_fn_low_level_run_gives_the_exception_back(ctx) -> None:
    """perftune_experiment_run(exp, callable) -> (rc, exception): the
    trampoline's contract, under the Context."""
    lib = perftune._perftune
    rc, exp = lib.perftune_experiment_new(ctx._ptr, "low")
    try:
        assert rc == 0 and lib.perftune_experiment_set(exp, "thp.enabled", "always") == 0
        args = []

        def measure(*a):
            args.append(a)
            if len(args) == 3:
                raise Boom("third")
            return 1.5

        rc, exc = lib.perftune_experiment_run(exp, measure)
        assert rc == -125 and isinstance(exc, Boom)  # -ECANCELED
        assert args == [(0, 0, 1, 0, 22, "warmup 1 (baseline run)"),
                        (1, 0, 1, 1, 22, "warmup 1 (tuned run)"),
                        (0, 1, 0, 2, 22, "round 1 (baseline run)")]
        assert lib.perftune_experiment_samples(exp, 0) == []  # no half results
    finally:
        lib.perftune_experiment_free(exp)
    assert lib.perftune_median([3.0, 1.0, 2.0, 10.0]) == (0, 2.5)
    assert lib.perftune_median([])[0] == -22


def test_split_setting_is_the_clis(ctx) -> None:
    """Context.split_setting: perftune_setting_split, '=' outside the key's brackets."""
    assert ctx.split_setting("thp.enabled=always") == ("thp.enabled", "always")
    assert ctx.split_setting("net[driver=ixgbe].txqueuelen=7=8") == (
        "net[driver=ixgbe].txqueuelen", "7=8")
    for bad in ("thp.enabled", "=1", "net[v=1.txqueuelen"):
        with pytest.raises(perftune.PerftuneValueError, match=re.escape(f"'{bad}' is not KEY=VALUE")):
            ctx.split_setting(bad)
    with pytest.raises(TypeError):
        ctx.split_setting(None)  # type: ignore[arg-type]


def test_metric_of_a_command_output_read_and_copied(ctx, tmp_path) -> None:
    """Context.metric: a command's stdout read from its pipe for the number
    and copied to a log, output after output, with the library's errors."""
    log = tmp_path / "out.log"
    with ctx.metric(r"t=([0-9.]+)") as m, open(log, "wb") as copy:
        proc = subprocess.Popen(["printf", "a\\nt=1.5 t=2.5\\nb\\n"], stdout=subprocess.PIPE)
        assert m.feed_fd(proc.stdout, copy_to=copy) == 0
        assert proc.wait() == 0
        proc.stdout.close()
        assert m.end() == 2.5
        m.feed(b"t=7")
        assert m.end() == 7.0  # the last output's, alone
        m.feed(b"nothing\n")
        with pytest.raises(perftune.PerftuneNotFound, match="'t=\\(\\[0-9.\\]\\+\\)' matched nothing"):
            m.end()
        # a copy that fails: its errno, the output still read
        r, w = os.pipe()
        os.write(w, b"t=3\n")
        os.close(w)
        ro = os.open(os.devnull, os.O_RDONLY)
        try:
            assert m.feed_fd(r, copy_to=ro) == errno.EBADF
        finally:
            os.close(r)
            os.close(ro)
        assert m.end() == 3.0
    assert log.read_bytes() == b"a\nt=1.5 t=2.5\nb\n"
    with pytest.raises(ValueError, match="closed"):
        m.end()
    with pytest.raises(perftune.PerftuneValueError, match="capture groups"):
        ctx.metric("(a)(b)")
