# SPDX-License-Identifier: LGPL-2.1-or-later
"""The reports (Context.*_report, Profile.verify_report): what the perftune
program prints, byte for byte, on a fake tree; the program itself is run on
the same tree to compare."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Callable, List

import pytest

import perftune
from conftest import FakeTree


def cli(tree: FakeTree, journal_dir: Path, *args: str) -> str:
    """perftune's standard output for ARGS on the fake tree (the exit status is verify's)."""
    path = os.environ.get("PERFTUNE_CLI")
    if not path:
        pytest.skip("PERFTUNE_CLI not set (meson sets it to the built perftune)")
    run = subprocess.run(
        [path, "--root", str(tree.root), "--journal-dir", str(journal_dir), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    return run.stdout


Report = Callable[[perftune.Context], str]
CASES: List[tuple[str, Report, List[str]]] = [
    ("list", lambda c: c.list_report(), ["list"]),
    ("list-json", lambda c: c.list_report("sysctl", json=True), ["list", "--json", "sysctl"]),
    ("list-writable", lambda c: c.list_report(writable=True), ["list", "--writable"]),
    ("describe", lambda c: c.describe_report("block.fake0.scheduler"),
     ["describe", "block.fake0.scheduler"]),
    ("describe-json", lambda c: c.describe_report("sysctl.vm.swappiness", json=True),
     ["describe", "--json", "sysctl.vm.swappiness"]),
    ("profiles", lambda c: c.profiles_report(), ["list-profiles"]),
    ("profiles-json", lambda c: c.profiles_report(json=True), ["list-profiles", "--json"]),
    ("why", lambda c: c.why_report("sysctl.vm.swappiness"), ["why", "sysctl.vm.swappiness"]),
    ("why-json", lambda c: c.why_report("sysctl.vm.swappiness", json=True),
     ["why", "--json", "sysctl.vm.swappiness"]),
    ("verify-profile", lambda c: c.verify_report("mydb"), ["verify", "mydb"]),
    ("verify-vars-json", lambda c: c.verify_report("mydb", {"ra": "256"}, json=True),
     ["verify", "--json", "-v", "ra=256", "mydb"]),
    ("verify-settings",
     lambda c: c.verify_report({"sysctl.vm.swappiness": "10", "thp.enabled": "madvise"}),
     ["verify", "sysctl.vm.swappiness=10", "thp.enabled=madvise"]),
    ("verify-settings-json", lambda c: c.verify_report(["sysctl.vm.swappiness=60"], json=True),
     ["verify", "--json", "sysctl.vm.swappiness=60"]),
]


@pytest.mark.parametrize("name,report,args", CASES, ids=[c[0] for c in CASES])
def test_report_is_what_the_program_prints(
    ctx: perftune.Context,
    tree: FakeTree,
    journal_dir: Path,
    profile_dir: Path,
    sysctl_d: Path,
    name: str,
    report: Report,
    args: List[str],
) -> None:
    got = report(ctx)
    assert got  # every case prints something
    assert got == cli(tree, journal_dir, *args)


def test_reports_hold_the_values(
    ctx: perftune.Context, profile_dir: Path, sysctl_d: Path
) -> None:
    assert "sysctl.vm.swappiness = 60\n" in ctx.list_report()
    assert json.loads(ctx.list_report("sysctl.vm.", json=True)) == [
        {"key": "sysctl.vm.swappiness", "value": "60", "read_only": False}
    ]
    assert ctx.describe_report("block.fake0.scheduler").startswith(
        "key:      block.fake0.scheduler\nvalue:    none\n"
    )
    assert json.loads(ctx.describe_report("sysctl.vm.swappiness", json=True))["value"] == "60"
    why = ctx.why_report("sysctl.vm.swappiness")
    assert why.endswith("after a reboot: 10 (sysctl.d /etc/sysctl.d/90-app.conf:2)\n")
    (src,) = json.loads(ctx.why_report("sysctl.vm.swappiness", json=True))["sources"]
    assert (src["location"], src["value"], src["wins"]) == (
        "/etc/sysctl.d/90-app.conf:2",
        "10",
        True,
    )
    (entry,) = json.loads(ctx.profiles_report(json=True))
    assert (entry["name"], entry["summary"], entry["variables"]) == (
        "mydb",
        "A database server",
        ["ra"],
    )
    verified = json.loads(ctx.verify_report({"sysctl.vm.swappiness": "10"}, json=True))
    assert (verified["verified"], verified["in_force"], verified["counts"]["differs"]) == (
        "settings",
        False,
        1,
    )
    text = ctx.verify_report("mydb")
    assert "differs      sysctl.vm.swappiness = 10 (now 60, expected 10" in text
    with ctx.load_profile("mydb") as p:
        assert p.verify_report() == text
        assert json.loads(p.verify_report(json=True))["verified"] == "mydb"


def test_verify_report_takes_a_transaction_before_a_profile(
    ctx: perftune.Context, profile_dir: Path
) -> None:
    with ctx.transaction("mydb") as tx:
        tx.set("sysctl.vm.swappiness", 33)
    got = json.loads(ctx.verify_report("mydb", json=True))
    assert got["in_force"] is True
    assert [s["origin"] for s in got["settings"]] == ["transaction mydb"]


def test_report_errors_are_the_librarys(ctx: perftune.Context, profile_dir: Path) -> None:
    with pytest.raises(perftune.PerftuneValueError) as e:
        ctx.why_report("sysctl.vm.swapiness")
    assert "sysctl.vm.swappiness" in str(e.value)  # did you mean
    with pytest.raises(FileNotFoundError):
        ctx.verify_report("nosuch")
    with pytest.raises(perftune.PerftuneError):
        ctx.describe_report("sysctl.vm.nosuch")
    with pytest.raises(ValueError):
        ctx.verify_report("mydb", {"a=b": "1"})
