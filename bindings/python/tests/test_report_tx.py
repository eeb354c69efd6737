# SPDX-License-Identifier: LGPL-2.1-or-later
"""Transaction.report and Context.status_report: what perftune set, apply and
status print, from the library, the same bytes as the program on a fake tree."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

import perftune
from conftest import FakeTree

WARNING = (
    "warning: sysctl.vm.swappiness: sysctl.d /etc/sysctl.d/90-app.conf:2 puts back 10 "
    "(systemd-sysctl sets vm.swappiness at boot)\n"
)
KEPT = """[vm]
transparent_hugepages=never

[sysctl]
vm.swappiness=>50

[script]
script=tune.sh
"""


@pytest.fixture
def cli(tree: FakeTree, journal_dir: Path) -> List[str]:
    path = os.environ.get("PERFTUNE_CLI")
    if not path:
        pytest.skip("PERFTUNE_CLI not set (meson sets it to the built perftune)")
    return [path, "--root", str(tree.root), "--journal-dir", str(journal_dir)]


def run(cmd: List[str]) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def test_report_of_a_dry_run_and_its_warning(ctx: perftune.Context, sysctl_d: Path) -> None:
    with ctx.transaction("dry", dry_run=True) as tx:
        tx.set("sysctl.vm.swappiness", 5)
    assert tx.report() == ("sysctl.vm.swappiness: 60 -> 5\n", WARNING)
    text, warnings = tx.report(json=True)
    assert warnings is None  # a member of the object
    assert json.loads(text) == {
        "transaction": "dry",
        "dry_run": True,
        "changes": [{"key": "sysctl.vm.swappiness", "old": "60", "new": "5", "unchanged": False, "note": None}],
        "warnings": [
            {
                "key": "sysctl.vm.swappiness",
                "kind": "sysctl.d",
                "location": "/etc/sysctl.d/90-app.conf:2",
                "value": "10",
                "note": "systemd-sysctl sets vm.swappiness at boot",
            }
        ],
    }


def test_report_of_a_commit_shows_what_it_wrote(ctx: perftune.Context, tree: FakeTree) -> None:
    tx = ctx.transaction("real")
    tx.set("thp.enabled", "never")
    assert tx.report() == ("", None)  # nothing written yet
    tx.commit()
    assert tx.report() == ("thp.enabled: madvise -> never\n", None)
    tx.rollback()
    tx.close()
    with pytest.raises(ValueError):
        tx.report()


def test_report_is_what_set_and_apply_print(
    ctx: perftune.Context, tree: FakeTree, sysctl_d: Path, tmp_path: Path, cli: List[str]
) -> None:
    with ctx.transaction("default", dry_run=True) as tx:
        tx.set("sysctl.vm.swappiness", 5)
        tx.set("thp.enabled", "never")
    r = run(cli + ["set", "--dry-run", "sysctl.vm.swappiness=5", "thp.enabled=never"])
    text, warnings = tx.report()
    assert (r.stdout, r.stderr) == (text, "perftune: " + str(warnings))
    r = run(cli + ["set", "--dry-run", "--json", "sysctl.vm.swappiness=5", "thp.enabled=never"])
    assert r.stdout == tx.report(json=True)[0]

    conf = tmp_path / "kept" / "tuned.conf"
    conf.parent.mkdir()
    conf.write_text(KEPT)
    with ctx.load_profile(str(conf)) as profile:
        with ctx.transaction("kept", dry_run=True) as tx:
            tx.apply_profile(profile)
        text, warnings = tx.report(profile)
        assert text == (
            "thp.enabled: madvise -> never\n"
            "kept: sysctl.vm.swappiness = 60 ([sysctl] vm.swappiness: the current value 60 is already >= 50)\n"
            "skipped: [script] script: runs a program: a profile never executes anything\n"
        )
        assert warnings is None
        r = run(cli + ["apply", "--dry-run", str(conf)])
        assert r.stdout == text and r.stderr == ""
        r = run(cli + ["apply", "--dry-run", "--json", str(conf)])
        assert r.stdout == tx.report(profile, json=True)[0]
        assert json.loads(r.stdout)["kept"][0]["key"] == "sysctl.vm.swappiness"
    with pytest.raises(TypeError):
        tx.report("kept")  # type: ignore[arg-type]


def test_status_report_is_what_status_prints(ctx: perftune.Context, cli: List[str]) -> None:
    assert ctx.status_report() == "no transactions\n"
    assert ctx.status_report(json=True) == "[]\n"
    with ctx.transaction("t") as tx:
        tx.set("sysctl.vm.swappiness", 7)
    held = ctx.transaction("h", hold=True)
    held.set("thp.enabled", "never")
    held.commit()
    text = ctx.status_report()
    assert text == (
        f"h: held pid {os.getpid()}\n"
        "  thp.enabled: madvise -> never, now never\n"
        "t: applied\n"
        "  sysctl.vm.swappiness: 60 -> 7, now 7\n"
    )
    assert run(cli + ["status"]).stdout == text
    entries = json.loads(ctx.status_report(json=True))
    assert [(e["transaction"], e["key"], e["held"]) for e in entries] == [
        ("h", "thp.enabled", True),
        ("t", "sysctl.vm.swappiness", False),
    ]
    assert run(cli + ["status", "--json"]).stdout == ctx.status_report(json=True)
    held.close()
