# SPDX-License-Identifier: LGPL-2.1-or-later
"""Context.hold(): a change held for a block, as ``perftune run`` holds it for a
command; on a fake kernel tree, no privileges."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from conftest import FakeTree

import perftune

SWAP = "proc/sys/vm/swappiness"
RA = "sys/block/fake0/queue/read_ahead_kb"
QOS = "dev/cpu_dma_latency"


@pytest.fixture
def qos(tree: FakeTree) -> FakeTree:
    """The tree with a PM QoS file at "no constraint"."""
    tree.path(QOS).write_bytes(struct.pack("<i", 2000000000))
    return tree


def request(tree: FakeTree) -> int:
    """The request last written to the fake PM QoS file."""
    return int(struct.unpack("<i", tree.path(QOS).read_bytes())[0])


def test_hold_nests_and_gives_back(ctx: perftune.Context, qos: FakeTree) -> None:
    with ctx.hold({"sysctl.vm.swappiness": 20}) as outer:
        with ctx.hold(["sysctl.vm.swappiness=30", "pmqos.cpu_dma_latency_us=5"]) as inner:
            assert (qos.read(SWAP), request(qos)) == ("30", 5)
            assert outer.name.startswith("hold-") and inner.name != outer.name
            st = ctx.status()
            assert len(st) == 3 and all(e.held and e.pid == os.getpid() for e in st)
        assert qos.read(SWAP) == "20"  # the inner hold's original: the outer's value
        assert inner.closed
    assert qos.read(SWAP) == "60"
    assert ctx.status() == []


def test_hold_rolls_back_on_an_exception(ctx: perftune.Context, qos: FakeTree) -> None:
    with pytest.raises(KeyError):
        with ctx.hold({"sysctl.vm.swappiness": 7, "pmqos.cpu_dma_latency_us": 3}, name="bench"):
            assert qos.read(SWAP) == "7"
            (e, _) = ctx.status()
            assert e.name == "bench"
            raise KeyError("the workload failed")
    assert qos.read(SWAP) == "60"
    assert ctx.status() == []


def test_hold_a_profile_with_variables(
    ctx: perftune.Context, tree: FakeTree, profile_dir: Path
) -> None:
    tree.write("sys/block/fake0/removable", "0\n")
    with ctx.hold("mydb", variables={"ra": "256"}) as tx:
        assert tx.hold and tx.committed
        assert (tree.read(RA), tree.read(SWAP)) == ("256", "10")
    assert (tree.read(RA), tree.read(SWAP)) == ("128", "60")
    with ctx.load_profile("mydb") as p, ctx.hold(p):
        assert tree.read(RA) == "512"
    assert tree.read(RA) == "128"
    assert ctx.status() == []


@pytest.mark.parametrize(
    "change, kw, exc",
    [
        ({"sysctl.vm.swappiness": 10, "thp.enabled": "sometimes"}, {}, perftune.PerftuneValueError),
        (["sysctl.vm.swappiness=10", "no-equals"], {}, perftune.PerftuneValueError),
        ("nosuch", {}, perftune.PerftuneNotFound),
        ({"sysctl.vm.swappiness": 10}, {"variables": {"ra": "1"}}, TypeError),
        (b"mydb", {}, TypeError),
    ],
)
def test_hold_refuses_bad_input_before_anything_changes(
    ctx: perftune.Context, qos: FakeTree, profile_dir: Path, change, kw, exc
) -> None:
    ran = False
    with pytest.raises(exc):
        with ctx.hold(change, **kw):
            ran = True
    assert not ran
    assert qos.read(SWAP) == "60"
    assert ctx.status() == []
