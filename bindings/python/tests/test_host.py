# SPDX-License-Identifier: LGPL-2.1-or-later
"""Host tests: the real kernel, on two loop devices created here.

Root only (skipped with the reason otherwise).  Nothing but the loop devices
these tests attach is touched, except by the example test, which also sets
hugepages.2M.nr and thp.enabled and checks they come back, and the compare
test (thp.enabled, around each tuned run of its experiment).  Every value is
checked against its original and the loop devices are detached (finally).
Journals live in tmp_path.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

import perftune

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="host tests need root (loop devices, real sysfs)"
)

GLOBAL = {
    "hugepages.2M.nr": "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
    "thp.enabled": "/sys/kernel/mm/transparent_hugepage/enabled",
}


def queue(disk: str, attr: str) -> Path:
    return Path("/sys/block") / disk / "queue" / attr


def raw_state(disks: list[str], with_global: bool = True) -> dict[str, str]:
    """The kernel files themselves, not read through the library."""
    state = {}
    for d in disks:
        for attr in ("scheduler", "read_ahead_kb", "max_sectors_kb", "io_poll"):
            state[str(queue(d, attr))] = queue(d, attr).read_text().strip()
    for path in GLOBAL.values() if with_global else ():
        if os.path.exists(path):
            state[path] = Path(path).read_text().strip()
    return state


def selected(raw: str) -> str:
    """'[none] mq-deadline' -> 'none'; a plain value unchanged."""
    for word in raw.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return raw


def put_back(before: dict[str, str], after: dict[str, str]) -> None:
    """Safety net for a failing test: write the originals directly."""
    for path, value in before.items():
        if after.get(path) != value:
            with open(path, "w") as f:
                f.write(selected(value))


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[list[str]]:
    """Two loop devices on files in tmp_path.  Afterwards their queue values
    and the global ones must be as they were (put back directly and failed if
    not), and the devices are detached."""
    devs: list[str] = []
    pristine: dict[str, str] = {}  # attaching a file changes read_ahead_kb
    try:
        for i in range(2):
            img = tmp_path / f"disk{i}.img"
            with open(img, "wb") as f:
                f.truncate(32 << 20)
            dev = subprocess.run(
                ["losetup", "-f"], check=True, capture_output=True, text=True
            ).stdout.strip()
            pristine.update(raw_state([os.path.basename(dev)], with_global=False))
            subprocess.run(["losetup", dev, str(img)], check=True)
            devs.append(dev)
        disks = [os.path.basename(d) for d in devs]
        before = raw_state(disks)
        try:
            yield disks
        finally:
            after = raw_state(disks)
            put_back(before, after)
        assert after == before, "a value was not restored"
    finally:
        for d in devs:
            subprocess.run(["losetup", "-d", d], check=False)
        put_back(pristine, raw_state([os.path.basename(d) for d in devs], with_global=False))


@pytest.fixture
def hctx(tmp_path: Path) -> Iterator[perftune.Context]:
    c = perftune.Context(journal_dir=tmp_path / "journal")
    yield c
    try:
        assert c.status() == [], "a transaction was left behind"
    finally:
        if c.status():
            c.restore(all=True, force=True)
        c.close()


def other_scheduler(ctx: perftune.Context, disk: str) -> str:
    """A scheduler the disk offers and does not use now."""
    d = ctx.describe(f"block.{disk}.scheduler")
    assert d.choices, f"{disk} offers no scheduler choices"
    wanted = [s for s in ("mq-deadline", "none", "kyber", "bfq") if s in d.choices and s != d.value]
    assert wanted, f"{disk} offers only {d.choices}"
    return wanted[0]


def test_transaction_on_loop_devices(hctx: perftune.Context, loops: list[str]) -> None:
    orig = {
        d: (hctx.get(f"block.{d}.scheduler"), int(hctx.get(f"block.{d}.read_ahead_kb")))
        for d in loops
    }
    target = {d: other_scheduler(hctx, d) for d in loops}
    with hctx.transaction("py-host") as tx:
        for d in loops:
            assert tx.set(f"block.{d}.scheduler", target[d]) == 1
            assert tx.set(f"block.{d}.read_ahead_kb", str(orig[d][1] * 4)) == 1
    try:
        for d in loops:
            assert f"[{target[d]}]" in queue(d, "scheduler").read_text()
            assert int(queue(d, "read_ahead_kb").read_text()) == orig[d][1] * 4
            assert hctx.get(f"block.{d}.scheduler") == target[d]
        entries = hctx.status()
        assert sorted(e.key for e in entries) == sorted(
            f"block.{d}.{a}" for d in loops for a in ("read_ahead_kb", "scheduler")
        )
        assert all(e.name == "py-host" and e.committed and not e.drift for e in entries)
    finally:
        assert hctx.restore("py-host") == 4
    for d in loops:
        assert hctx.get(f"block.{d}.scheduler") == orig[d][0]
        assert int(hctx.get(f"block.{d}.read_ahead_kb")) == orig[d][1]


def test_noop_set_and_restore_on_loop_devices(hctx: perftune.Context, loops: list[str]) -> None:
    """An installer run twice on a machine already in that state, then its
    uninstall, with ints as Python users pass them."""
    before = raw_state(loops)
    for _ in range(2):
        with hctx.transaction("py-noop") as tx:
            for d in loops:
                tx.set(f"block.{d}.scheduler", hctx.get(f"block.{d}.scheduler"))
                tx.set(f"block.{d}.read_ahead_kb", int(hctx.get(f"block.{d}.read_ahead_kb")))
        assert tx.committed and all(c.unchanged for c in tx.changes())
    assert raw_state(loops) == before
    assert hctx.restore("py-noop") == 0
    assert raw_state(loops) == before
    with pytest.raises(perftune.PerftuneNotFound, match="no transaction named 'py-noop'"):
        hctx.restore("py-noop")


def test_exception_rolls_back_on_loop_devices(hctx: perftune.Context, loops: list[str]) -> None:
    before = raw_state(loops)
    with pytest.raises(OSError, match="simulated"):
        with hctx.transaction("py-host-rb") as tx:
            for d in loops:
                tx.set(f"block[/dev/{d}].scheduler", other_scheduler(hctx, d))
                tx.set(f"block[/dev/{d}].read_ahead_kb", "4096")
            assert tx.commit() >= 2
            assert raw_state(loops) != before
            raise OSError("simulated failure after commit")
    assert raw_state(loops) == before
    assert hctx.status() == []


def test_bad_scheduler_is_einval(hctx: perftune.Context, loops: list[str]) -> None:
    before = raw_state(loops)
    d = loops[0]
    with hctx.transaction("py-host-bad") as tx:
        tx.set(f"block.{loops[1]}.read_ahead_kb", "1024")
        with pytest.raises(perftune.PerftuneValueError) as ei:
            tx.set(f"block.{d}.scheduler", "no-such-scheduler")
        assert ei.value.errno == errno.EINVAL
        assert isinstance(ei.value, ValueError)
        assert f"block.{d}.scheduler" in str(ei.value)
        assert [c.key for c in tx.changes()] == [f"block.{loops[1]}.read_ahead_kb"]
        tx.rollback()  # discard: nothing was committed
    assert tx.closed
    assert raw_state(loops) == before


def test_kernel_refusal_rolls_back(hctx: perftune.Context, loops: list[str]) -> None:
    """The kernel itself rejects a write: everything before it is given back."""
    before = raw_state(loops)
    with pytest.raises(perftune.PerftuneError) as ei:
        with hctx.transaction("py-host-kernel") as tx:
            tx.set(f"block.{loops[0]}.scheduler", other_scheduler(hctx, loops[0]))
            tx.set(f"block.{loops[0]}.read_ahead_kb", "8192")
            # loop devices cannot poll: only the kernel knows, it says EINVAL
            tx.set(f"block.{loops[1]}.io_poll", "1")
    assert f"block.{loops[1]}.io_poll" in str(ei.value)
    assert ei.value.errno == errno.EINVAL
    assert raw_state(loops) == before
    assert hctx.status() == []


def test_failed_reapply_leaves_the_transaction_applied(
    hctx: perftune.Context, loops: list[str]
) -> None:
    """Issue 27 A: a re-apply under the same name that the kernel refuses
    leaves the committed transaction as it was: its value, applied (no
    holder), not an orphan for restore(orphans=True)."""
    before = raw_state(loops)
    ra = f"block.{loops[0]}.read_ahead_kb"
    with hctx.transaction("py-keep") as tx:
        tx.set(ra, "256")
    applied = raw_state(loops)
    with pytest.raises(perftune.PerftuneError) as ei:
        with hctx.transaction("py-keep") as tx:
            tx.set(ra, "512")
            tx.set(f"block.{loops[1]}.io_poll", "1")  # the kernel says EINVAL
    assert ei.value.errno == errno.EINVAL
    assert raw_state(loops) == applied
    entries = [e for e in hctx.status() if e.name == "py-keep"]
    assert [e.key for e in entries] == [ra]
    assert all(e.committed and not e.orphaned and not e.held and e.pid == 0 for e in entries)
    assert hctx.restore(orphans=True) == 0
    assert raw_state(loops) == applied
    hctx.restore("py-keep")
    assert raw_state(loops) == before


def test_kernel_clamp_is_caught_by_read_back(hctx: perftune.Context, loops: list[str]) -> None:
    """The kernel takes a value but keeps another: the read-back fails the commit."""
    before = raw_state(loops)
    hw = Path(f"/sys/block/{loops[1]}/queue/max_hw_sectors_kb").read_text().strip()
    with pytest.raises(perftune.PerftuneError) as ei:
        with hctx.transaction("py-host-clamp") as tx:
            tx.set(f"block.{loops[0]}.scheduler", other_scheduler(hctx, loops[0]))
            # above the device's limit: the kernel silently keeps max_hw_sectors_kb
            tx.set(f"block.{loops[1]}.max_sectors_kb", str(int(hw) * 2))
    assert f"block.{loops[1]}.max_sectors_kb" in str(ei.value)
    assert f"holds at most max_hw_sectors_kb = {hw}" in str(ei.value)
    assert ei.value.errno == errno.EIO
    assert raw_state(loops) == before
    assert hctx.status() == []


def test_missing_device_is_enodev(hctx: perftune.Context) -> None:
    with pytest.raises(perftune.PerftuneNotFound) as ei:
        hctx.get("block.perftune-no-such-disk.scheduler")
    assert ei.value.errno == errno.ENODEV


def test_db_installer_example(tmp_path: Path, loops: list[str]) -> None:
    """Run examples/db_installer.py: it tunes, fails, and everything comes back."""
    example = (
        Path(
            os.environ.get(
                "PERFTUNE_PY_EXAMPLES", Path(__file__).resolve().parent.parent / "examples"
            )
        )
        / "db_installer.py"
    )
    before = raw_state(loops)
    journal = tmp_path / "journal"
    env = dict(os.environ, PERFTUNE_JOURNAL_DIR=str(journal))
    try:
        r = subprocess.run(
            [
                sys.executable,
                str(example),
                "--name",
                "py-host-example",
                f"/dev/{loops[0]}",
                loops[1],
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        print(r.stdout, r.stderr)
        assert r.returncode == 1, r.stderr  # the installer fails by design; 2 = not restored
        assert "installation failed" in r.stderr
        assert "tuning rolled back" in r.stdout
        tuned = r.stdout.split("tuned:\n", 1)[1].split("tuning rolled back", 1)[0]
        assert "mq-deadline" in tuned and "never" in tuned
        assert raw_state(loops) == before
        with perftune.Context(journal_dir=journal) as c:
            assert c.status() == []
    finally:
        with perftune.Context(journal_dir=journal) as c:
            if c.status():  # the example left its transaction: give it back
                c.restore(all=True, force=True)


# faults in 64 MB of anonymous memory without madvise() and prints its page faults
FAULT_64MB = """
import mmap, resource
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
m = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for off in range(0, 64 << 20, 4096):
    m[off] = 1
print("faults:", resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_compare_thp_on_the_real_kernel(hctx: perftune.Context, tmp_path: Path) -> None:
    """Context.compare on the real kernel: THP on for every mapping (or off,
    if it is on already) against the machine's value, measured in page faults
    (16384 without huge pages, a few dozen with them); THP as found after."""
    path = GLOBAL["thp.enabled"]
    if not os.access(path, os.W_OK):
        pytest.fail(f"{path} is not writable here")
    before = selected(Path(path).read_text())
    tuned, want = ("never", "worse") if before == "always" else ("always", "better")
    try:
        r = hctx.compare([sys.executable, "-c", FAULT_64MB], {"thp.enabled": tuned}, rounds=5,
                         metric=r"faults: ([0-9]+)", log=tmp_path / "compare.log")
        assert r.verdict == want, r
        few, many = sorted([r.tuned.median, r.baseline.median])
        assert few * 10 < many, r
        assert r.ci95[0] is not None and r.ci95[1] is not None
        assert (r.ci95[1] < 0) if want == "better" else (r.ci95[0] > 0)
        assert selected(Path(path).read_text()) == before
    finally:
        if selected(Path(path).read_text()) != before:
            put_back({path: before}, {})
