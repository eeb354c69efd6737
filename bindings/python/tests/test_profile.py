# SPDX-License-Identifier: LGPL-2.1-or-later
"""Profiles and export on a fake kernel tree: no privileges."""

from __future__ import annotations

import errno
import subprocess
from pathlib import Path

import pytest
from conftest import FakeTree

import perftune

SCHED = "sys/block/fake0/queue/scheduler"
RA = "sys/block/fake0/queue/read_ahead_kb"
SWAP = "proc/sys/vm/swappiness"
THP = "sys/kernel/mm/transparent_hugepage/enabled"


def test_profiles_on_the_search_path(ctx: perftune.Context, profile_dir: Path) -> None:
    (profile_dir / "broken").mkdir()  # no tuned.conf: not a profile
    (p,) = ctx.profiles()
    assert isinstance(p, perftune.ProfileInfo)
    assert (p.name, p.path, p.summary) == (
        "mydb",
        str(profile_dir / "mydb" / "tuned.conf"),
        "A database server",
    )
    assert (p.variables, p.unset_variables) == (("ra",), ())


def test_instance_variables_file(ctx: perftune.Context, profile_dir: Path) -> None:
    inst = profile_dir / "inst"
    inst.mkdir()
    (inst / "tuned.conf").write_text("[sysctl]\nvm.swappiness=${swap}\nvm.dirty_ratio=${ratio}\n")
    (inst / "variables.conf").write_text("# as -v takes them\nswap=7\n")
    (inst / "variables.conf").chmod(0o644)
    i = {p.name: p for p in ctx.profiles()}["inst"]
    assert (i.variables, i.unset_variables) == (("swap", "ratio"), ("ratio",))

    def swappiness(variables: dict[str, str] | None) -> str | None:
        with ctx.load_profile("inst", variables) as p:
            return {x.option: x.value for x in p.items()}["[sysctl] vm.swappiness"]

    assert swappiness(None) == "7"
    assert swappiness({"swap": "9"}) == "9"  # variables= wins over the file
    (inst / "variables.conf").chmod(0o646)
    with pytest.raises(PermissionError, match="writable by others"):
        ctx.load_profile("inst")


def test_load_and_map(ctx: perftune.Context, profile_dir: Path) -> None:
    with ctx.load_profile("mydb") as p:
        assert (p.name, p.path, p.summary) == (
            "mydb",
            str(profile_dir / "mydb" / "tuned.conf"),
            "A database server",
        )
        items = {i.option: i for i in p.items()}
    assert p.closed
    e = items["[disk] elevator"]
    assert (e.key, e.value, e.raw) == ("block.fake0.scheduler", "mq-deadline", "deadline")
    assert e.origin == f"{profile_dir / 'mydb' / 'tuned.conf'}:8"  # the elevator= line
    assert not e.skipped
    assert (items["[disk] readahead"].key, items["[disk] readahead"].value) == (
        "block.fake0.read_ahead_kb",
        "512",
    )
    assert (items["[vm] transparent_hugepages"].key, items["[sysctl] vm.swappiness"].value) == (
        "thp.enabled",
        "10",
    )
    s = items["[script] script"]
    assert s.skipped and perftune.ItemFlag.SKIPPED in s.flags
    assert s.note and "never executes" in s.note


def test_variables_override(ctx: perftune.Context, profile_dir: Path) -> None:
    p = ctx.load_profile("mydb", {"ra": "2048"})
    (ra,) = [i for i in p.items() if i.option == "[disk] readahead"]
    assert ra.value == "2048"


def test_load_by_path(ctx: perftune.Context, profile_dir: Path) -> None:
    assert ctx.load_profile(profile_dir / "mydb").name == "mydb"  # os.PathLike: a path
    assert ctx.load_profile(str(profile_dir / "mydb" / "tuned.conf")).name == "mydb"


def test_apply_commit_restore(ctx: perftune.Context, tree: FakeTree, profile_dir: Path) -> None:
    p = ctx.load_profile("mydb")
    with ctx.transaction("mydb") as tx:
        assert tx.apply_profile(p) == 4
        assert tree.read(SWAP) == "60"  # staged only
    assert (tree.read(SCHED), tree.read(RA), tree.read(THP), tree.read(SWAP)) == (
        "mq-deadline",
        "512",
        "never",
        "10",
    )
    assert {e.key for e in ctx.status()} == {
        "block.fake0.scheduler",
        "block.fake0.read_ahead_kb",
        "thp.enabled",
        "sysctl.vm.swappiness",
    }
    assert ctx.restore("mydb") == 4
    assert (tree.read(RA), tree.read(THP), tree.read(SWAP)) == ("128", "madvise", "60")


def test_apply_then_exception_rolls_back(
    ctx: perftune.Context, tree: FakeTree, profile_dir: Path
) -> None:
    with pytest.raises(RuntimeError):
        with ctx.transaction("mydb") as tx:
            tx.apply_profile(ctx.load_profile("mydb"))
            tx.commit()
            assert tree.read(SWAP) == "10"
            raise RuntimeError("install failed")
    assert (tree.read(RA), tree.read(THP), tree.read(SWAP)) == ("128", "madvise", "60")
    assert ctx.status() == []


def test_strict_refuses_skipped_options(
    ctx: perftune.Context, tree: FakeTree, profile_dir: Path
) -> None:
    before = tree.snapshot()
    with ctx.transaction("strict") as tx:
        with pytest.raises(perftune.PerftuneError) as ei:
            tx.apply_profile(ctx.load_profile("mydb"), strict=True)
        assert ei.value.errno == errno.EOPNOTSUPP
        assert "[script] script" in str(ei.value)
        assert tx.changes() == []  # nothing of the profile was staged
    assert tree.snapshot() == before


def test_export(ctx: perftune.Context, profile_dir: Path) -> None:
    p = ctx.load_profile("mydb")
    text = p.export("sysctl")
    assert "vm.swappiness = 10" in text
    assert p.export(perftune.ExportFormat.SYSCTL) == text
    with ctx.transaction("exp") as tx:
        tx.apply_profile(p)
    assert "vm.swappiness = 10" in ctx.export("exp", "sysctl")
    assert "read_ahead_kb" in ctx.export("exp", perftune.ExportFormat.UDEV)
    assert "[vm]\ntransparent_hugepages=never\n" in ctx.export("exp", "tuned")
    assert "transparent_hugepage=never" in ctx.export("exp", perftune.ExportFormat.CMDLINE)
    with pytest.raises(perftune.PerftuneValueError, match="unknown export format 'ini'"):
        ctx.export("exp", "ini")
    with pytest.raises(TypeError):
        ctx.export("exp", b"sysctl")  # type: ignore[arg-type]
    with pytest.raises(perftune.PerftuneNotFound) as ei:
        ctx.export("no-such-tx", "sysctl")
    assert ei.value.errno == errno.ENOENT
    ctx.restore("exp")


def test_profile_errors(ctx: perftune.Context, profile_dir: Path) -> None:
    with pytest.raises(perftune.PerftuneNotFound) as ei:
        ctx.load_profile("no-such-profile")
    assert ei.value.errno == errno.ENOENT and "no-such-profile" in str(ei.value)
    bad = profile_dir / "bad"
    bad.mkdir()
    (bad / "tuned.conf").write_text("[main]\nthis is not an option line\n")
    with pytest.raises(perftune.PerftuneValueError) as bad_ei:
        ctx.load_profile("bad")
    assert bad_ei.value.errno == errno.EINVAL
    assert str(bad / "tuned.conf") in str(bad_ei.value)
    with pytest.raises(ValueError, match="bad variable name"):
        ctx.load_profile("mydb", {"a=b": "1"})
    with pytest.raises(TypeError):
        ctx.load_profile("mydb", {"ra": b"1"})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        ctx.load_profile(b"mydb")  # type: ignore[arg-type]
    p = ctx.load_profile("mydb")
    p.close()
    with pytest.raises(ValueError, match="closed"):
        p.items()
    with pytest.raises(TypeError, match="Profile"):
        ctx.transaction("x").apply_profile("mydb")  # type: ignore[arg-type]


# ---- parity with the CLI: apply, status --format prometheus, exec ---------


def test_apply_dry_run_then_commit(ctx: perftune.Context, tree: FakeTree, profile_dir: Path) -> None:
    dry = ctx.apply("mydb", {"ra": "1024"}, dry_run=True)
    dry.transaction.close()
    assert isinstance(dry, perftune.Applied)
    assert (dry.profile, dry.written) == ("mydb", 4)
    assert {c.key: (c.old, c.new) for c in dry.changes}["block.fake0.read_ahead_kb"] == (
        "128",
        "1024",
    )
    assert [s.option for s in dry.skipped] == ["[script] script"]
    assert tree.read(RA) == "128" and not ctx.status()
    a = ctx.apply("mydb", name="db")
    a.transaction.close()  # not held: stays in force
    assert (tree.read(RA), tree.read(SWAP)) == ("512", "10")
    assert ctx.restore("db") == 4 and tree.read(SWAP) == "60"


def test_apply_strict_and_hold(ctx: perftune.Context, tree: FakeTree, profile_dir: Path) -> None:
    with pytest.raises(perftune.PerftuneError) as e:
        ctx.apply("mydb", strict=True)
    assert e.value.errno == errno.EOPNOTSUPP and not ctx.status()
    a = ctx.apply("mydb", hold=True)
    assert all(s.held for s in ctx.status())
    a.transaction.close()  # the hold ends: every value back
    assert (tree.read(SWAP), tree.read(SCHED)) == ("60", "none") and not ctx.status()


def test_status_metrics(ctx: perftune.Context, tree: FakeTree, tmp_path: Path) -> None:
    empty = ctx.status_metrics()
    assert "# TYPE perftune_tunable_in_force gauge\n" in empty
    assert "perftune_holds 0\n" in empty
    with ctx.transaction("m") as tx:
        tx.set("sysctl.vm.swappiness", "10")
        tx.set("block.fake0.read_ahead_kb", "256")
    tree.write(SWAP, "33\n")
    out = tmp_path / "m" / "perftune.prom"
    out.parent.mkdir()
    ctx.write_status_metrics(out)
    text = out.read_text()
    assert text == ctx.status_metrics()
    assert 'perftune_tunable_drift{key="sysctl.vm.swappiness",transaction="m"} 1\n' in text
    assert 'perftune_tunable_in_force{key="block.fake0.read_ahead_kb",transaction="m"} 1\n' in text
    assert 'perftune_keys{state="drift"} 1\n' in text
    assert [p.name for p in out.parent.iterdir()] == ["perftune.prom"]  # no temp file left
    with pytest.raises(FileNotFoundError):
        ctx.write_status_metrics(tmp_path / "nodir" / "x.prom")
    ctx.restore("m")


def test_popen_on_numa_node(ctx: perftune.Context) -> None:
    cpus = Path("/sys/devices/system/node/node0/cpulist")
    if not cpus.exists():
        pytest.skip("no NUMA node 0 on this machine")
    p = ctx.popen(
        "0",
        ["sh", "-c", "grep Cpus_allowed_list /proc/self/status; exit 3"],
        perftune.MemPolicy.BIND,
        stdout=subprocess.PIPE,
        text=True,
    )
    out, _ = p.communicate()
    assert p.returncode == 3
    assert out.split() == ["Cpus_allowed_list:", cpus.read_text().strip()]


def test_popen_errors(ctx: perftune.Context) -> None:
    with pytest.raises(perftune.PerftuneValueError):
        ctx.popen("x", ["true"])
    with pytest.raises(perftune.PerftuneError) as e:
        ctx.popen("0", ["true"], policy=9)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(perftune.PerftuneError) as e:
        ctx.popen("999", ["true"])
    assert e.value.errno in (errno.ENODEV, errno.EINVAL)
    with pytest.raises(TypeError):
        ctx.popen("0", ["true"], preexec_fn=lambda: None)


def test_verify_metrics(ctx: perftune.Context, tree: FakeTree, profile_dir: Path) -> None:
    ctx.apply("mydb", name="vm").transaction.close()
    tree.write(SWAP, "33\n")
    text = ctx.verify_metrics("vm")
    assert "# TYPE perftune_verify_in_force gauge\n" in text
    assert (
        'perftune_verify_in_force{verified="vm",key="sysctl.vm.swappiness",'
        'origin="transaction vm"} 0\n'
    ) in text
    assert 'perftune_verify_not_in_force{verified="vm"} 1\n' in text
    mine = ctx.verify_metrics("mine", {"sysctl.vm.swappiness": "33"})
    assert 'perftune_verify_checks{verified="mine",state="in_force"} 1\n' in mine
    with ctx.load_profile("mydb") as p:
        assert 'perftune_verify_checks{verified="mydb",state="skipped"} 1\n' in p.verify_metrics()
    with pytest.raises(FileNotFoundError):
        ctx.verify_metrics("nosuch")
    ctx.restore("vm")
