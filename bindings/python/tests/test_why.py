# SPDX-License-Identifier: LGPL-2.1-or-later
"""Context.why, Context.verify*, Profile.verify: typed results on a fake tree."""

from __future__ import annotations

from pathlib import Path

import pytest

import perftune
from conftest import FakeTree


def test_why_names_the_sysctl_d_line(ctx: perftune.Context, sysctl_d: Path) -> None:
    (src,) = ctx.why("sysctl.vm.swappiness")
    assert isinstance(src, perftune.Source)
    assert (src.kind, src.location, src.value) == ("sysctl.d", "/etc/sysctl.d/90-app.conf:2", "10")
    assert src.wins and src.persistent and src.differs
    assert src.flags & perftune.SourceFlag.WINS
    (same,) = ctx.why("sysctl.vm.swappiness", compare_to="10")
    assert not same.differs


def test_why_keys_of_many_keys(ctx: perftune.Context, tree: FakeTree, sysctl_d: Path) -> None:
    rules = tree.root / "etc" / "udev" / "rules.d"
    rules.mkdir(parents=True)
    (rules / "60-x.rules").write_text('KERNEL=="fake0", ATTR{queue/scheduler}="kyber"\n')
    got = ctx.why_keys({"sysctl.vm.swappiness": "10", "block.fake0.scheduler": None})
    assert [(s.key, s.location, s.value, s.differs) for s in got] == [
        ("sysctl.vm.swappiness", "/etc/sysctl.d/90-app.conf:2", "10", False),
        ("block.fake0.scheduler", "/etc/udev/rules.d/60-x.rules:1", "kyber", True),
    ]
    assert [s.key for s in ctx.why_keys(["block.fake0.scheduler"])] == ["block.fake0.scheduler"]
    assert ctx.why_keys([]) == []
    with pytest.raises(perftune.PerftuneError) as e:
        ctx.why_keys(["sysctl.vm.swappiness", "sysctl.vm.nosuch"])
    assert "sysctl.vm.nosuch" in str(e.value)
    with pytest.raises(TypeError):
        ctx.why_keys({"sysctl.vm.swappiness": 10})  # type: ignore[dict-item]


def test_transaction_conflicts(ctx: perftune.Context, sysctl_d: Path) -> None:
    with ctx.transaction("dry", dry_run=True) as tx:
        tx.set("sysctl.vm.swappiness", 5)
        tx.set("block.fake0.scheduler", "noop")
    (src,) = tx.conflicts()
    assert isinstance(src, perftune.Source)
    assert (src.key, src.kind, src.location, src.value) == (
        "sysctl.vm.swappiness",
        "sysctl.d",
        "/etc/sysctl.d/90-app.conf:2",
        "10",
    )
    with ctx.transaction("same", dry_run=True) as same:
        same.set("sysctl.vm.swappiness", 10)
    assert same.conflicts() == []
    real = ctx.transaction("real")
    real.set("sysctl.vm.swappiness", 5)
    assert real.conflicts() == []  # nothing written yet
    real.commit()
    assert [s.location for s in real.conflicts()] == ["/etc/sysctl.d/90-app.conf:2"]
    real.rollback()
    real.close()
    with pytest.raises(ValueError):
        real.conflicts()


def test_why_nothing_and_bad_key(ctx: perftune.Context) -> None:
    assert ctx.why("sysctl.vm.swappiness") == []
    with pytest.raises(perftune.PerftuneValueError):
        ctx.why("nosuch.key")


def test_verify_settings(ctx: perftune.Context, sysctl_d: Path) -> None:
    checks = ctx.verify({"block.fake0.scheduler": "noop", "sysctl.vm.swappiness": "5"})
    assert [(c.key, c.status) for c in checks] == [
        ("block.fake0.scheduler", perftune.CheckStatus.IN_FORCE),
        ("sysctl.vm.swappiness", perftune.CheckStatus.DIFFERS),
    ]
    assert checks[0].in_force and checks[0].expected == "none"
    assert checks[1].current == "60"
    assert checks[1].reason == "now 60, expected 5"
    assert str(checks[1].status) == "differs"
    (missing,) = ctx.verify(["sysctl.vm.nosuch=1"])
    assert missing.status == perftune.CheckStatus.NOT_HERE and "no such sysctl" in (missing.reason or "")
    with pytest.raises(perftune.PerftuneValueError):
        ctx.verify(["block.fake0.scheduler=cfq2"])


def test_verify_transaction_after_a_change_behind_our_back(
    ctx: perftune.Context, tree: FakeTree, sysctl_d: Path
) -> None:
    with ctx.transaction("db") as tx:
        tx.set("sysctl.vm.swappiness", "5")
    assert [c.status for c in ctx.verify_transaction("db")] == [perftune.CheckStatus.IN_FORCE]
    tree.write("proc/sys/vm/swappiness", "10\n")
    (c,) = ctx.verify_transaction("db")
    assert c.status == perftune.CheckStatus.DIFFERS
    assert c.reason == "now 10, expected 5; set by sysctl.d /etc/sysctl.d/90-app.conf:2"
    assert c.origin == "transaction db"
    with pytest.raises(perftune.PerftuneNotFound):
        ctx.verify_transaction("nosuch")


def test_profile_verify(ctx: perftune.Context, profile_dir: Path) -> None:
    checks = ctx.load_profile("mydb").verify()
    by_key = {c.key: c for c in checks}
    assert by_key["sysctl.vm.swappiness"].status == perftune.CheckStatus.DIFFERS
    assert by_key["[script] script"].status == perftune.CheckStatus.SKIPPED
    assert all(isinstance(c, perftune.Check) for c in checks)
