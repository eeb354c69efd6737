# SPDX-License-Identifier: LGPL-2.1-or-later
"""Unit tests on a fake kernel tree: no privileges, nothing outside tmp_path."""

from __future__ import annotations

import dataclasses
import errno
import gc
import os
import pickle
import re
import stat
import subprocess
import sys
import threading

import pytest
from conftest import FakeTree

import perftune
from perftune import _perftune as lib
from perftune._errors import error_from_errno

SCHED = "sys/block/fake0/queue/scheduler"
RA = "sys/block/fake0/queue/read_ahead_kb"
SWAP = "proc/sys/vm/swappiness"
THP = "sys/kernel/mm/transparent_hugepage/enabled"
ALL_KEYS = [
    "block.fake0.read_ahead_kb",
    "block.fake0.scheduler",
    "sysctl.vm.swappiness",
    "thp.enabled",
]


# ---- reading -----------------------------------------------------------------


def test_version_is_the_library_version() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", perftune.version())
    assert perftune.__version__ == perftune.version() == lib.perftune_version()


def test_profile_default_path_is_the_librarys() -> None:
    path = perftune.profile_default_path()
    assert path == lib.perftune_profile_default_path()
    assert path.startswith("/etc/perftune/profiles:")
    assert path.endswith(":/etc/tuned:/usr/lib/tuned")


def test_context_properties(ctx: perftune.Context, tree: FakeTree, journal_dir) -> None:
    assert ctx.root == str(tree.root)
    assert ctx.journal_dir == str(journal_dir)
    assert str(tree.root) in repr(ctx)


def test_resolver_says_which_confinement_is_used(tree: FakeTree, journal_dir, monkeypatch) -> None:
    with perftune.Context(root=tree.root, journal_dir=journal_dir) as c:
        assert re.match(r"(openat2 \(RESOLVE_BENEATH\)|user-space \(.+\))$", c.resolver)
    monkeypatch.setenv("PERFTUNE_NO_OPENAT2", "1")
    with perftune.Context(root=tree.root, journal_dir=journal_dir) as c:
        assert c.resolver.startswith("user-space (")
        assert "PERFTUNE_NO_OPENAT2" in c.resolver
        # the same keys resolve through the user-space walk
        assert c.get("sysctl.vm.swappiness") == tree.read("proc/sys/vm/swappiness")


def test_relative_root_is_made_absolute(tree: FakeTree, journal_dir, monkeypatch) -> None:
    monkeypatch.chdir(tree.root.parent)
    with perftune.Context(root=tree.root.name, journal_dir=journal_dir) as c:
        assert c.root == str(tree.root)
        assert c.get("thp.enabled") == "madvise"


def test_get_normalizes_values(ctx: perftune.Context) -> None:
    assert ctx.get("block.fake0.scheduler") == "none"
    assert ctx.get("block.fake0.read_ahead_kb") == "128"
    assert ctx.get("sysctl.vm.swappiness") == "60"
    assert ctx.get("thp.enabled") == "madvise"


def test_get_each_reads_what_a_glob_can(ctx: perftune.Context, tree: FakeTree) -> None:
    tree.path("sys/block/fake1/queue").mkdir(parents=True)
    tree.write("sys/block/fake1/queue/scheduler", "none [mq-deadline]\n")
    tree.path("sys/block/fake2/queue").mkdir(parents=True)  # no scheduler: zram
    got = ctx.get_each("block.fake*.scheduler")
    assert [(t.key, t.value, t.absent) for t in got] == [
        ("block.fake0.scheduler", "none", False),
        ("block.fake1.scheduler", "mq-deadline", False),
        ("block.fake2.scheduler", None, True),
    ]
    assert got[2].note is not None and got[2].note.startswith("block.fake2.scheduler: ")
    with pytest.raises(perftune.PerftuneNotFound):
        ctx.get_each("block.nosuch.scheduler")  # names nothing: as get()


def test_get_follows_the_file(ctx: perftune.Context, tree: FakeTree) -> None:
    tree.write(THP, "[always] madvise never\n")
    assert ctx.get("thp.enabled") == "always"


def test_list_everything(ctx: perftune.Context) -> None:
    items = list(ctx.list())
    assert [t.key for t in items] == ALL_KEYS
    assert all(isinstance(t, perftune.Tunable) for t in items)
    assert dict((t.key, t.value) for t in items) == {
        "block.fake0.read_ahead_kb": "128",
        "block.fake0.scheduler": "none",
        "sysctl.vm.swappiness": "60",
        "thp.enabled": "madvise",
    }


def test_list_prefix(ctx: perftune.Context) -> None:
    assert [t.key for t in ctx.list("block.")] == ALL_KEYS[:2]
    assert [t.key for t in ctx.list("thp")] == ["thp.enabled"]
    assert list(ctx.list("hugepages.")) == []  # no such files in the fake tree


def test_list_flags_read_only_sysctls(ctx: perftune.Context, tree: FakeTree) -> None:
    tree.path("proc/sys/kernel").mkdir()
    tree.write("proc/sys/kernel/ostype", "Linux\n")
    os.chmod(tree.path("proc/sys/kernel/ostype"), 0o444)
    items = {t.key: t for t in ctx.list("sysctl.")}
    assert items["sysctl.kernel.ostype"].value == "Linux"
    assert items["sysctl.kernel.ostype"].read_only
    assert not items["sysctl.vm.swappiness"].read_only


def test_list_is_an_iterator(ctx: perftune.Context) -> None:
    it = ctx.list("sysctl.")
    assert iter(it) is it
    key, value, _note, _ro = next(it)
    assert (key, value) == ("sysctl.vm.swappiness", "60")
    with pytest.raises(StopIteration):
        next(it)


def test_describe_selection(ctx: perftune.Context) -> None:
    d = ctx.describe("block.fake0.scheduler")
    assert isinstance(d, perftune.Description)
    assert d.key == "block.fake0.scheduler"
    assert d.value == "none"
    assert d.path == "/sys/block/fake0/queue/scheduler"
    assert d.choices == ["none", "mq-deadline", "kyber", "bfq"]
    assert d.writable is True and d.reason is None
    assert d.min is None and d.max is None
    assert d.info and "mq-deadline" in d.info
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.value = "kyber"  # type: ignore[misc]


def test_describe_number(ctx: perftune.Context) -> None:
    d = ctx.describe("block.fake0.read_ahead_kb")
    assert (d.value, d.unit, d.choices, d.writable) == ("128", "kB", None, True)
    assert d.path == "/sys/block/fake0/queue/read_ahead_kb"


def test_describe_read_only_file(ctx: perftune.Context, tree: FakeTree) -> None:
    tree.path(SWAP).chmod(0o444)
    d = ctx.describe("sysctl.vm.swappiness")
    assert d.writable is False
    assert d.reason  # says why


def test_describe_unreadable_says_why(ctx: perftune.Context, tree: FakeTree) -> None:
    tree.write("proc/sys/vm/drop_caches", "0\n")
    tree.path("proc/sys/vm/drop_caches").chmod(0o200)  # a write-only trigger
    d = ctx.describe("sysctl.vm.drop_caches")
    assert (d.value, d.unreadable) == (None, "write-only trigger")
    assert ctx.describe("sysctl.vm.swappiness").unreadable is None


# ---- errors ------------------------------------------------------------------


def test_unknown_key_is_a_value_error(ctx: perftune.Context) -> None:
    with pytest.raises(perftune.PerftuneValueError) as ei:
        ctx.get("nosuchfamily.foo")
    e = ei.value
    assert isinstance(e, ValueError) and isinstance(e, perftune.PerftuneError)
    assert isinstance(e, OSError)
    assert e.errno == errno.EINVAL
    assert "nosuchfamily.foo" in str(e)
    assert e.strerror == str(e)  # the library's one line, no "[Errno 22]" prefix


@pytest.mark.parametrize(
    "key, meant",
    [
        ("sysctl.vm.swapiness", "sysctl.vm.swappiness"),  # a letter off a sysctl here
        ("vm.swappiness", "sysctl.vm.swappiness"),  # a sysctl without "sysctl."
    ],
)
def test_typo_is_a_value_error_naming_the_key_meant(ctx: perftune.Context, key: str, meant: str) -> None:
    with pytest.raises(perftune.PerftuneValueError) as ei:
        ctx.get(key)
    assert ei.value.errno == errno.EINVAL
    assert str(ei.value).startswith(key + ": ")
    assert str(ei.value).endswith(f"; did you mean {meant}?")
    with pytest.raises(perftune.PerftuneValueError) as ei:
        ctx.verify([f"{key}=1"])  # a usage error, never "not here"
    assert str(ei.value).endswith(f"; did you mean {meant}?")


def test_far_name_stays_not_found(ctx: perftune.Context) -> None:
    with pytest.raises(perftune.PerftuneNotFound) as ei:
        ctx.get("sysctl.vm.nosuch")  # perhaps another kernel's: no suggestion
    assert ei.value.errno == errno.ENOENT
    assert "did you mean" not in str(ei.value)


def test_missing_device_is_enodev(ctx: perftune.Context) -> None:
    with pytest.raises(perftune.PerftuneNotFound) as ei:
        ctx.get("block.nosuchdisk.scheduler")
    assert ei.value.errno == errno.ENODEV
    assert isinstance(ei.value, FileNotFoundError)
    assert str(ei.value).startswith("block.nosuchdisk.scheduler: ")


def test_missing_attribute_is_enoent(ctx: perftune.Context) -> None:
    with pytest.raises(FileNotFoundError) as ei:
        ctx.describe("block.fake0.nosuchattr")
    assert ei.value.errno == errno.ENOENT
    assert "nosuchattr" in str(ei.value)


def test_unsupported_tunable_is_eopnotsupp(ctx: perftune.Context) -> None:
    with pytest.raises(perftune.PerftuneError) as ei:
        ctx.get("pmqos.cpu_dma_latency_us")  # no /dev/cpu_dma_latency in the fake tree
    assert ei.value.errno == errno.EOPNOTSUPP
    assert type(ei.value) is perftune.PerftuneError


@pytest.mark.parametrize(
    "err, cls, base",
    [
        (errno.ENOENT, perftune.PerftuneNotFound, FileNotFoundError),
        (errno.ENODEV, perftune.PerftuneNotFound, FileNotFoundError),
        (errno.EACCES, perftune.PerftunePermissionError, PermissionError),
        (errno.EPERM, perftune.PerftunePermissionError, PermissionError),
        (errno.EROFS, perftune.PerftunePermissionError, PermissionError),
        (errno.EINVAL, perftune.PerftuneValueError, ValueError),
        (errno.ERANGE, perftune.PerftuneValueError, ValueError),
        (errno.ENOTUNIQ, perftune.PerftuneValueError, ValueError),
        (errno.ENAMETOOLONG, perftune.PerftuneValueError, ValueError),
        (errno.EIO, perftune.PerftuneError, OSError),
        (errno.EBUSY, perftune.PerftuneError, OSError),
    ],
)
def test_errno_mapping(err: int, cls: type, base: type) -> None:
    e = error_from_errno(-err, "k: why")
    assert type(e) is cls and isinstance(e, base) and isinstance(e, perftune.PerftuneError)
    assert (e.errno, e.strerror, str(e)) == (err, "k: why", "k: why")
    e2 = pickle.loads(pickle.dumps(e))
    assert (type(e2), e2.errno, str(e2)) == (cls, err, "k: why")


def test_empty_message_falls_back_to_strerror() -> None:
    assert str(error_from_errno(-errno.ENOMEM, "")) == os.strerror(errno.ENOMEM)


def test_bytes_are_rejected(ctx: perftune.Context, tree: FakeTree) -> None:
    with pytest.raises(TypeError, match="key must be str, not bytes"):
        ctx.get(b"thp.enabled")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="key must be str"):
        ctx.describe(b"thp.enabled")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="prefix must be str"):
        ctx.list(b"thp")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name must be str"):
        ctx.transaction(b"t")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="root must be str, not bytes"):
        perftune.Context(root=b"/")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="root must be str or os.PathLike"):
        perftune.Context(root=3)  # type: ignore[arg-type]
    with ctx.transaction("bytes") as tx:
        with pytest.raises(TypeError, match="key must be str, not bytes"):
            tx.set(b"thp.enabled", "never")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="value must be str, not bytearray"):
            tx.set("thp.enabled", bytearray(b"never"))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="value must be str, int or bool, not float"):
            tx.set("sysctl.vm.swappiness", 10.5)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="value must be str, int or bool, not NoneType"):
            tx.set("sysctl.vm.swappiness", None)  # type: ignore[arg-type]
        assert tx.changes() == []
    assert tree.read(THP) == "always [madvise] never"


def test_int_values_are_decimal(ctx: perftune.Context, tree: FakeTree) -> None:
    with ctx.transaction("ints") as tx:
        assert tx.set("sysctl.vm.swappiness", 10) == 1
        assert tx.set("block.fake0.read_ahead_kb", 4096) == 1
    assert tree.read(SWAP) == "10"
    assert tree.read(RA) == "4096"
    ctx.restore("ints")
    assert tree.read(SWAP) == "60"


@pytest.mark.parametrize("value,want", [(True, "1"), (False, "0")])
def test_bool_values_are_1_and_0(
    ctx: perftune.Context, tree: FakeTree, value: bool, want: str
) -> None:
    with ctx.transaction("bools") as tx:
        tx.set("sysctl.vm.swappiness", value)
        assert [(c.key, c.new) for c in tx.changes()] == [("sysctl.vm.swappiness", want)]
    assert tree.read(SWAP) == want
    ctx.restore("bools")
    assert tree.read(SWAP) == "60"


def test_bool_for_a_key_of_words_names_its_choices(ctx: perftune.Context, tree: FakeTree) -> None:
    """True is "1", never a guessed word: thp.enabled refuses it with its choices."""
    with pytest.raises(perftune.PerftuneError, match="thp.enabled.*'1'.*always") as ei:
        with ctx.transaction("words") as tx:
            tx.set("thp.enabled", True)
    assert ei.value.errno == errno.EINVAL
    assert tree.read(THP) == "always [madvise] never"


def test_nul_is_rejected(ctx: perftune.Context) -> None:
    with pytest.raises(ValueError, match="NUL"):
        ctx.get("thp.enabled\0x")


def test_closed_context_refuses(tree: FakeTree, journal_dir) -> None:
    c = perftune.Context(root=tree.root, journal_dir=journal_dir)
    c.close()
    c.close()  # idempotent
    assert c.closed
    with pytest.raises(ValueError, match="closed"):
        c.get("thp.enabled")


def test_bad_root(tmp_path) -> None:
    with pytest.raises(perftune.PerftuneNotFound) as ei:
        perftune.Context(root=tmp_path / "nonexistent")
    assert "nonexistent" in str(ei.value)


# ---- transactions ------------------------------------------------------------


def test_commit_on_exit(ctx: perftune.Context, tree: FakeTree) -> None:
    with ctx.transaction("t1") as tx:
        assert tx.set("block.fake0.scheduler", "deadline") == 1
        assert tx.set("sysctl.vm.swappiness", "10") == 1
        assert tree.read(SCHED) == "[none] mq-deadline kyber bfq"  # staged only
        assert tree.read(SWAP) == "60"
    assert tx.committed and not tx.closed
    assert tree.read(SCHED) == "mq-deadline"  # a plain file: no bracket semantics
    assert tree.read(SWAP) == "10"
    changes = {c.key: c for c in tx.changes()}
    assert set(changes) == {"block.fake0.scheduler", "sysctl.vm.swappiness"}
    s = changes["block.fake0.scheduler"]
    assert (s.old, s.new) == ("none", "mq-deadline")
    assert s.note and "deadline" in s.note  # the alias it was mapped from
    assert s.written and not s.unchanged
    assert (changes["sysctl.vm.swappiness"].old, changes["sysctl.vm.swappiness"].new) == (
        "60",
        "10",
    )


def test_bracketed_name_is_literal_and_value_written_as_given(
    ctx: perftune.Context, tree: FakeTree
) -> None:
    """issue 33: a name in brackets is that one name, never a glob (H5); a value keeps
    the blanks and tabs inside it (H14); a transaction name reads as no option (H12)"""
    for d in ("x*", "xa"):
        tree.path(f"proc/sys/net/ipv4/conf/{d}").mkdir(parents=True)
        tree.write(f"proc/sys/net/ipv4/conf/{d}/rp_filter", "1\n")
    tree.path("proc/sys/kernel").mkdir(parents=True)
    tree.write("proc/sys/kernel/core_pattern", "core\n")
    key = "sysctl.net.ipv4.conf.[x*].rp_filter"
    assert [t.key for t in ctx.list("sysctl.net.ipv4.conf.")] == [
        key,
        "sysctl.net.ipv4.conf.xa.rp_filter",
    ]
    with ctx.transaction("names") as tx:
        tx.set(key, "2")
        tx.set("sysctl.kernel.core_pattern", "a  b\tc")
    assert tree.read("proc/sys/net/ipv4/conf/x*/rp_filter") == "2"
    assert tree.read("proc/sys/net/ipv4/conf/xa/rp_filter") == "1"
    assert tree.read("proc/sys/kernel/core_pattern") == "a  b\tc"
    assert ctx.restore("names") == 2
    assert tree.read("proc/sys/net/ipv4/conf/x*/rp_filter") == "1"
    with pytest.raises(ValueError, match="not starting with '.' or '-'"):
        ctx.transaction("-x")


def test_status_entries(ctx: perftune.Context) -> None:
    assert ctx.status() == []
    with ctx.transaction("st") as tx:
        tx.set("sysctl.vm.swappiness", "11")
        tx.set("thp.enabled", "never")
    entries = {e.key: e for e in ctx.status()}
    assert set(entries) == {"sysctl.vm.swappiness", "thp.enabled"}
    e = entries["sysctl.vm.swappiness"]
    assert isinstance(e, perftune.StatusEntry)
    assert (e.name, e.old, e.written, e.current) == ("st", "60", "11", "11")
    assert e.committed and not e.drift and not e.orphaned and not e.held
    assert perftune.ItemFlag.WRITTEN in e.flags
    assert e.pid == 0
    assert (entries["thp.enabled"].old, entries["thp.enabled"].written) == ("madvise", "never")


def test_status_reports_drift(ctx: perftune.Context, tree: FakeTree) -> None:
    with ctx.transaction("drift") as tx:
        tx.set("sysctl.vm.swappiness", "12")
    tree.write(SWAP, "99\n")  # behind perftune's back
    (e,) = ctx.status()
    assert e.drift and e.current == "99" and e.written == "12"
    assert e.note and "drift" in e.note


def test_status_and_restore_of_a_disk_that_is_another_now(
    ctx: perftune.Context, tree: FakeTree, journal_dir
) -> None:
    tree.write("sys/block/fake0/dev", "8:0\n")
    tree.write("sys/block/fake0/diskseq", "5\n")
    with ctx.transaction("disk") as tx:
        tx.set("block.fake0.read_ahead_kb", "512")
    assert "ident block.fake0.read_ahead_kb\tdev=8:0 diskseq=5\n" in (
        journal_dir / "disk.journal"
    ).read_text()
    tree.write("sys/block/fake0/diskseq", "9\n")  # another disk has the name and dev_t now
    tree.write(RA, "256\n")
    (e,) = ctx.status()
    assert e.gone and not e.moved and perftune.ItemFlag.GONE in e.flags
    assert e.note and "another object now (dev=8:0 diskseq=9; journaled dev=8:0 diskseq=5)" in e.note
    assert ctx.restore("disk") == 0  # nothing written: the disk it belonged to is gone
    assert tree.read(RA) == "256"
    assert ctx.status() == []


def test_exception_after_commit_rolls_back(ctx: perftune.Context, tree: FakeTree) -> None:
    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        with ctx.transaction("rb") as tx:
            tx.set("block.fake0.scheduler", "mq-deadline")
            tx.set("block.fake0.read_ahead_kb", "512")
            tx.set("thp.enabled", "never")
            assert tx.commit() == 3
            assert tree.read(SCHED) == "mq-deadline"
            assert tree.read(RA) == "512"
            assert tree.read(THP) == "never"
            raise Boom("install step failed")
    assert not tx.committed
    assert tree.read(SCHED) == "none"
    assert tree.read(RA) == "128"
    assert tree.read(THP) == "madvise"
    assert ctx.status() == []  # the journal is gone


def test_exception_before_commit_discards(ctx: perftune.Context, tree: FakeTree) -> None:
    before = tree.snapshot()
    with pytest.raises(KeyError):
        with ctx.transaction("discard") as tx:
            tx.set("sysctl.vm.swappiness", "1")
            raise KeyError("x")
    assert tx.closed
    assert tree.snapshot() == before  # byte for byte: nothing was written
    assert ctx.status() == []
    with pytest.raises(ValueError, match="closed"):
        tx.set("sysctl.vm.swappiness", "1")


def test_failed_commit_restores_what_it_wrote(ctx: perftune.Context, tree: FakeTree) -> None:
    with pytest.raises(perftune.PerftuneError) as ei:
        with ctx.transaction("fail") as tx:
            tx.set("block.fake0.scheduler", "kyber")  # schedulers are written first
            tx.set("block.fake0.read_ahead_kb", "256")
            tree.path(RA).unlink()  # the attribute vanishes between set and commit
    assert "block.fake0.read_ahead_kb" in str(ei.value)
    assert tree.read(SCHED) == "none"  # given back
    assert tx.closed
    assert ctx.status() == []


def test_explicit_commit_and_rollback(ctx: perftune.Context, tree: FakeTree) -> None:
    tx = ctx.transaction("explicit")
    tx.set("sysctl.vm.swappiness", "5")
    tx.set("thp.enabled", "always")
    assert tx.commit() == 2
    assert (tree.read(SWAP), tree.read(THP)) == ("5", "always")
    assert tx.rollback() == 2
    assert (tree.read(SWAP), tree.read(THP)) == ("60", "madvise")
    assert ctx.status() == []
    assert tx.rollback() == 0  # nothing left to give back


def test_explicit_commit_inside_with_is_not_repeated(ctx: perftune.Context, tree: FakeTree) -> None:
    with ctx.transaction("once") as tx:
        tx.set("sysctl.vm.swappiness", "7")
        assert tx.commit() == 1
    assert tree.read(SWAP) == "7"
    assert [e.key for e in ctx.status()] == ["sysctl.vm.swappiness"]


def test_set_after_commit_is_ealready(ctx: perftune.Context) -> None:
    with ctx.transaction("done") as tx:
        tx.set("sysctl.vm.swappiness", "8")
    with pytest.raises(perftune.PerftuneError) as ei:
        tx.set("thp.enabled", "never")
    assert ei.value.errno == errno.EALREADY


def test_invalid_values(ctx: perftune.Context, tree: FakeTree) -> None:
    before = tree.snapshot()
    with ctx.transaction("bad") as tx:
        with pytest.raises(perftune.PerftuneValueError) as ei:
            tx.set("block.fake0.scheduler", "no-such-scheduler")
        assert ei.value.errno == errno.EINVAL
        assert "block.fake0.scheduler" in str(ei.value)
        assert "no-such-scheduler" in str(ei.value)
        with pytest.raises(ValueError, match="thp.enabled"):
            tx.set("thp.enabled", "sometimes")
        with pytest.raises(ValueError, match="not a number"):
            tx.set("sysctl.vm.swappiness", "lots")
        assert tx.changes() == []
    assert tree.snapshot() == before


def test_bad_transaction_name(ctx: perftune.Context) -> None:
    with pytest.raises(perftune.PerftuneValueError, match="transaction name"):
        ctx.transaction("no spaces")


def test_dry_run_writes_nothing(ctx: perftune.Context, tree: FakeTree) -> None:
    before = tree.snapshot()
    with ctx.transaction("dry", dry_run=True) as tx:
        tx.set("block.fake0.scheduler", "bfq")
        tx.set("sysctl.vm.swappiness", "60")  # already there
    assert tree.snapshot() == before
    assert ctx.status() == []
    assert not tx.committed and tx.dry_run
    changes = {c.key: c for c in tx.changes()}
    assert (changes["block.fake0.scheduler"].old, changes["block.fake0.scheduler"].new) == (
        "none",
        "bfq",
    )
    assert not changes["block.fake0.scheduler"].unchanged
    assert changes["sysctl.vm.swappiness"].unchanged
    tx2 = ctx.transaction("dry2", dry_run=True)
    tx2.set("thp.enabled", "never")
    tx2.set("sysctl.vm.swappiness", "60")
    assert tx2.commit() == 1  # would write one
    assert tree.snapshot() == before


def test_unchanged_value_is_not_written(ctx: perftune.Context, tree: FakeTree) -> None:
    with ctx.transaction("same") as tx:
        tx.set("sysctl.vm.swappiness", "60")
    (c,) = tx.changes()
    assert c.unchanged and not c.written


def test_noop_set_then_restore_both_succeed(ctx: perftune.Context, tree: FakeTree) -> None:
    """An installer run twice on a machine already tuned, then its uninstall."""
    for _ in range(2):
        with ctx.transaction("myapp") as tx:
            tx.set("sysctl.vm.swappiness", 60)  # already there
        assert tx.committed and tx.changes()[0].unchanged
    assert ctx.restore("myapp") == 0  # recorded, empty: nothing to give back
    assert tree.read(SWAP) == "60"
    with pytest.raises(perftune.PerftuneNotFound, match="no transaction named 'myapp'"):
        ctx.restore("myapp")


def test_restore_by_name(ctx: perftune.Context, tree: FakeTree) -> None:
    with ctx.transaction("r1") as tx:
        tx.set("sysctl.vm.swappiness", "20")
        tx.set("block.fake0.read_ahead_kb", "1024")
    del tx
    gc.collect()  # a committed non-HOLD transaction outlives its object
    assert (tree.read(SWAP), tree.read(RA)) == ("20", "1024")
    assert ctx.restore("r1") == 2
    assert (tree.read(SWAP), tree.read(RA)) == ("60", "128")
    with pytest.raises(perftune.PerftuneNotFound) as ei:
        ctx.restore("r1")
    assert ei.value.errno == errno.ENOENT and "r1" in str(ei.value)


def test_restore_all_and_orphans(ctx: perftune.Context, tree: FakeTree) -> None:
    for name, key, value in (
        ("a1", "sysctl.vm.swappiness", "30"),
        ("a2", "thp.enabled", "never"),
        ("a3", "block.fake0.read_ahead_kb", "64"),
    ):
        with ctx.transaction(name) as tx:
            tx.set(key, value)
    assert ctx.restore(orphans=True) == 0  # none of them was held by a dead process
    assert len(ctx.status()) == 3
    assert ctx.restore(all=True) == 3
    assert (tree.read(SWAP), tree.read(THP), tree.read(RA)) == ("60", "madvise", "128")
    assert ctx.status() == []


@pytest.mark.parametrize("order", [("o1", "o2"), ("o2", "o1")])
def test_overlapping_transactions_restore_in_any_order(
    ctx: perftune.Context, tree: FakeTree, order: tuple[str, str]
) -> None:
    for name, value in (("o1", "30"), ("o2", "40")):
        with ctx.transaction(name) as tx:
            tx.set("sysctl.vm.swappiness", value)
    assert tree.read(SWAP) == "40"
    for name in order:
        ctx.restore(name)
    assert tree.read(SWAP) == "60"
    assert ctx.status() == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"name": "x", "all": True},
        {"all": True, "orphans": True},
        {"name": "x", "orphans": True},
    ],
)
def test_restore_needs_exactly_one_target(ctx: perftune.Context, kwargs) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        ctx.restore(**kwargs)


def test_same_name_extends_and_keeps_the_original(ctx: perftune.Context, tree: FakeTree) -> None:
    with ctx.transaction("ext") as tx:
        tx.set("sysctl.vm.swappiness", "1")
    with ctx.transaction("ext") as tx:
        tx.set("sysctl.vm.swappiness", "2")
    (e,) = ctx.status()
    assert (e.old, e.written) == ("60", "2")
    ctx.restore("ext")
    assert tree.read(SWAP) == "60"


def test_hold_ends_with_the_transaction(ctx: perftune.Context, tree: FakeTree) -> None:
    tx = ctx.transaction("held", hold=True)
    tx.set("sysctl.vm.swappiness", "3")
    tx.commit()
    assert tree.read(SWAP) == "3"
    (e,) = ctx.status()
    assert e.held and e.pid == os.getpid()
    assert ctx.holder("held") == os.getpid()
    assert ctx.holder("nosuch") == 0
    with pytest.raises(ValueError):
        ctx.holder("../x")
    tx.close()
    assert tree.read(SWAP) == "60"
    assert ctx.status() == []
    assert ctx.holder("held") == 0


def test_hold_ends_when_the_object_is_collected(ctx: perftune.Context, tree: FakeTree) -> None:
    tx = ctx.transaction("held-gc", hold=True)
    tx.set("thp.enabled", "never")
    tx.commit()
    assert tree.read(THP) == "never"
    del tx
    gc.collect()
    assert tree.read(THP) == "madvise"


def test_forked_child_does_not_end_the_parents_hold(ctx: perftune.Context, tree: FakeTree) -> None:
    tx = ctx.transaction("held-fork", hold=True)
    tx.set("sysctl.vm.swappiness", "4")
    tx.commit()
    pid = os.fork()
    if pid == 0:  # the child drops its copy of the transaction
        code = 1
        try:
            del tx
            gc.collect()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert tree.read(SWAP) == "4"  # still held by us
    tx.close()
    assert tree.read(SWAP) == "60"


def test_transaction_outlives_closed_context(tree: FakeTree, journal_dir) -> None:
    c = perftune.Context(root=tree.root, journal_dir=journal_dir)
    tx = c.transaction("orphan-ctx")
    c.close()
    tx.set("sysctl.vm.swappiness", "9")
    with pytest.raises(FileNotFoundError):
        tx.set("block.nope.scheduler", "none")  # the error message still reaches us
    assert tx.commit() == 1
    assert tree.read(SWAP) == "9"
    assert tx.rollback() == 1
    assert tree.read(SWAP) == "60"


def test_journal_dir_is_private(ctx: perftune.Context, journal_dir) -> None:
    with ctx.transaction("priv") as tx:
        tx.set("sysctl.vm.swappiness", "13")
    assert stat.S_IMODE(os.stat(journal_dir).st_mode) == 0o700
    assert (journal_dir / "priv.journal").exists()
    ctx.restore("priv")
    assert not (journal_dir / "priv.journal").exists()


# ---- logging, threads, low level ---------------------------------------------


def test_log_callback(ctx: perftune.Context) -> None:
    got: list[tuple[int, str]] = []
    ctx.set_log(lambda prio, msg: got.append((prio, msg)), perftune.LogPriority.DEBUG)
    with ctx.transaction("log") as tx:
        tx.set("sysctl.vm.swappiness", "14")
    assert any("proc/sys/vm/swappiness" in m and "14" in m for _p, m in got), got
    assert all(isinstance(p, int) and p <= perftune.LogPriority.DEBUG for p, _m in got)
    n = len(got)
    ctx.set_log(None)
    ctx.restore("log")
    assert len(got) == n


def test_log_callback_exception_does_not_break_the_call(
    ctx: perftune.Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[BaseException | None] = []

    def bad(prio: int, msg: str) -> None:
        raise RuntimeError("callback bug")

    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))
    ctx.set_log(bad, perftune.LogPriority.DEBUG)
    with pytest.raises(perftune.PerftuneNotFound):
        ctx.get("block.nope.scheduler")  # logs the error at DEBUG
    assert ctx.get("thp.enabled") == "madvise"
    assert seen and isinstance(seen[0], RuntimeError)
    with pytest.raises(TypeError):
        ctx.set_log(42)  # type: ignore[arg-type]


def test_threads_share_a_context(ctx: perftune.Context) -> None:
    """Calls run concurrently (no lock of the binding around them); the last
    error is per thread, so each failure carries its own call's message."""
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for _ in range(200):
                assert ctx.get("thp.enabled") == "madvise"
                try:
                    ctx.get(f"block.nope{n}.scheduler")
                except perftune.PerftuneNotFound as e:
                    assert str(e).startswith(f"block.nope{n}.scheduler")  # not another thread's
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_low_level_module(tree: FakeTree) -> None:
    rc, c = lib.perftune_ctx_new()
    assert rc == 0 and c is not None
    try:
        assert lib.perftune_ctx_set_root(c, str(tree.root)) == 0
        assert lib.perftune_get(c, "thp.enabled") == (0, "madvise")
        rc, v = lib.perftune_get(c, "block.nope.scheduler")
        assert (rc, v) == (-errno.ENODEV, None)
        assert "no such block device" in lib.perftune_ctx_last_error(c)
        with pytest.raises(TypeError):
            lib.perftune_get(c, None)  # type: ignore[arg-type]  # NULL key: refused, not a crash
        rc, d = lib.perftune_describe(c, "block.fake0.read_ahead_kb")
        assert rc == 0
        ok, lo, hi = lib.perftune_desc_range(d)
        assert isinstance(ok, bool) and isinstance(lo, int) and isinstance(hi, int)
        lib.perftune_desc_free(d)
        assert lib.perftune_get(None, "thp.enabled") == (-errno.EINVAL, None)
        assert lib.PERFTUNE_TX_HOLD == 2 and lib.PERFTUNE_STATUS_DRIFT == 1
    finally:
        lib.perftune_ctx_unref(c)


def test_low_level_module_refuses_nul(tree: FakeTree, journal_dir) -> None:
    """C would cut "44\0; 0" at the NUL and write 44: the raw module refuses it."""
    rc, c = lib.perftune_ctx_new()
    assert rc == 0
    try:
        assert lib.perftune_ctx_set_root(c, str(tree.root)) == 0
        assert lib.perftune_ctx_set_journal_dir(c, str(journal_dir)) == 0
        with pytest.raises(ValueError, match="key must not contain a NUL"):
            lib.perftune_get(c, "thp.enabled\0x")
        with pytest.raises(ValueError, match="key must not contain a NUL"):
            lib.perftune_describe(c, "thp.enabled\0x")
        with pytest.raises(ValueError, match="prefix must not contain a NUL"):
            lib.perftune_list(c, "thp\0")
        with pytest.raises(ValueError, match="root must not contain a NUL"):
            lib.perftune_ctx_set_root(c, str(tree.root) + "\0/etc")
        with pytest.raises(ValueError, match="NUL"):
            lib.perftune_profile_load(c, "x", ["a=b\0c"])
        rc, tx = lib.perftune_tx_new(c, "nul", 0)
        assert rc == 0
        try:
            with pytest.raises(ValueError, match=r"value for thp.enabled must not contain a NUL"):
                lib.perftune_tx_set(tx, "thp.enabled", "never\0; always")
            with pytest.raises(ValueError, match="key must not contain a NUL"):
                lib.perftune_tx_set(tx, "thp.enabled\0x", "never")
            with pytest.raises(TypeError, match="value for thp.enabled must be str"):
                lib.perftune_tx_set(tx, "thp.enabled", None)  # type: ignore[arg-type]
            rc, it = lib.perftune_tx_changes(tx)
            assert rc == 0
            assert lib.perftune_change_iter_next(it) is None  # nothing was staged
            lib.perftune_change_iter_free(it)
            assert lib.perftune_tx_set(tx, "thp.enabled", "never") >= 0
            assert lib.perftune_tx_commit(tx) >= 0
            assert tree.read(THP) == "never"  # the fake file keeps what was written
        finally:
            lib.perftune_restore(c, "nul", 0)
            lib.perftune_tx_unref(tx)
        assert tree.read(THP) == "madvise"
    finally:
        lib.perftune_ctx_unref(c)


# ---- the CLI shares the journal ----------------------------------------------


@pytest.fixture
def cli() -> str:
    path = os.environ.get("PERFTUNE_CLI")
    if not path:
        pytest.skip("PERFTUNE_CLI not set (meson sets it to the built perftune)")
    return path


def test_cli_sees_and_restores_python_transactions(
    ctx: perftune.Context, tree: FakeTree, journal_dir, cli: str
) -> None:
    with ctx.transaction("fromPython") as tx:
        tx.set("sysctl.vm.swappiness", "33")
    base = [cli, "--root", str(tree.root), "--journal-dir", str(journal_dir)]
    r = subprocess.run(base + ["status"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "fromPython" in r.stdout and "sysctl.vm.swappiness" in r.stdout
    r = subprocess.run(base + ["restore", "fromPython"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert tree.read(SWAP) == "60"
    assert ctx.status() == []


def test_held_transaction_follows_disks_added(ctx: perftune.Context, tree: FakeTree) -> None:
    """watch() and dispatch(): a disk the glob matches, added while held, is
    tuned and given back with the rest; one that refuses is listed."""
    import selectors

    tx = ctx.transaction("hotplug", hold=True)
    tx.set("block.fake*.scheduler", "kyber")
    tx.commit()
    fd = tx.watch()
    assert tx.fileno() == fd
    for name, sched in (("fake1", "[none] mq-deadline kyber bfq\n"), ("fake2", "[none] mq-deadline\n")):
        tree.path(f"sys/block/{name}/queue").mkdir(parents=True, exist_ok=True)
        tree.write(f"sys/block/{name}/queue/scheduler", sched)
        tree.write(f"sys/block/{name}/removable", "0\n")
    with open(tree.path("run/perftune-uevents"), "w") as fifo:
        fifo.write("add block fake1\nadd block fake2\n")
    with selectors.DefaultSelector() as sel:
        sel.register(tx, selectors.EVENT_READ)
        assert sel.select(timeout=10)
    assert tx.dispatch() == 1
    assert tree.read("sys/block/fake1/queue/scheduler") == "kyber"  # a plain file: no brackets
    assert tree.read("sys/block/fake2/queue/scheduler") == "[none] mq-deadline"
    st = {e.key: e for e in ctx.status()}
    assert st["block.fake1.scheduler"].hotplug and not st["block.fake0.scheduler"].hotplug
    assert st["block.fake2"].refused and "not offered" in (st["block.fake2"].note or "")
    tx.close()
    assert tree.read("sys/block/fake0/queue/scheduler") == "none"
    assert tree.read("sys/block/fake1/queue/scheduler") == "none"
    assert ctx.status() == []


def test_watch_needs_a_held_transaction(ctx: perftune.Context) -> None:
    tx = ctx.transaction("nohold")
    tx.set("sysctl.vm.swappiness", "5")
    tx.commit()
    with pytest.raises(ValueError):
        tx.watch()
    ctx.restore("nohold")


def test_replace_switches_without_a_gap_and_restores_the_originals(
    ctx: perftune.Context, tree: FakeTree
) -> None:
    with ctx.transaction("old") as tx:
        tx.set("sysctl.vm.swappiness", "10")
        tx.set("thp.enabled", "never")  # only in "old"
    with ctx.transaction("new") as tx:
        tx.replace("old")
        tx.set("sysctl.vm.swappiness", "20")  # shared
        tx.set("block.fake0.read_ahead_kb", "512")  # only in "new"
    assert (tree.read(SWAP), tree.read(THP), tree.read(RA)) == ("20", "madvise", "512")
    (given,) = [c for c in tx.changes() if c.flags & perftune.ItemFlag.GIVEN_BACK]
    assert (given.key, given.old, given.new) == ("thp.enabled", "never", "madvise")
    assert {e.name for e in ctx.status()} == {"new"}
    (swap,) = [e for e in ctx.status() if e.key == "sysctl.vm.swappiness"]
    assert swap.old == "60"  # the original came along, not "old"'s 10
    ctx.restore("new")
    assert (tree.read(SWAP), tree.read(THP), tree.read(RA)) == ("60", "madvise", "128")


def test_replace_in_place_leaves_the_old_handle_nothing_to_give_back(
    ctx: perftune.Context, tree: FakeTree
) -> None:
    old = ctx.transaction("web", hold=True)
    old.set("sysctl.vm.swappiness", "10")
    old.commit()
    new = ctx.transaction("web", hold=True)
    new.replace("web")
    new.set("sysctl.vm.swappiness", "20")
    new.commit()
    old.close()  # replaced: writes nothing
    assert tree.read(SWAP) == "20"
    new.close()
    assert tree.read(SWAP) == "60"
    assert ctx.status() == []


def test_replace_of_nothing_is_refused_before_anything_changes(
    ctx: perftune.Context, tree: FakeTree
) -> None:
    with ctx.transaction("x") as tx:
        with pytest.raises(FileNotFoundError, match="no transaction named 'nope' to replace"):
            tx.replace("nope")
        tx.rollback()
    assert tree.read(SWAP) == "60"
    assert ctx.status() == []
