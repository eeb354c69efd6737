# SPDX-License-Identifier: LGPL-2.1-or-later
"""Context.compare on the fake tree: the perftune program's experiment, its
report as a CompareResult, the change validated before anything runs, and the
machine as found afterwards.  The measure is a number the workload prints
(deterministic), never the clock."""

from __future__ import annotations

import dataclasses
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
