# SPDX-License-Identifier: LGPL-2.1-or-later
"""write_status_metrics refuses what ``perftune ... -o`` refuses (issue 33 H1):
nothing is written through a symbolic link or into a FIFO; no privileges."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import perftune


def test_write_status_metrics_refuses_links_and_fifos(ctx: perftune.Context,
                                                      tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("victim\n")
    link = tmp_path / "link.prom"
    link.symlink_to(victim)
    fifo = tmp_path / "fifo.prom"
    os.mkfifo(fifo)
    for path, kind in ((link, "a symbolic link"), (fifo, "a FIFO")):
        with pytest.raises(perftune.PerftuneError) as e:
            ctx.write_status_metrics(path)
        assert e.value.errno == errno.EPERM
        assert f"it is {kind}" in str(e.value)
    assert link.is_symlink() and victim.read_text() == "victim\n"
    assert fifo.is_fifo()
    # a regular file of ours is replaced, nothing left beside it
    out = tmp_path / "m.prom"
    out.write_text("old\n")
    ctx.write_status_metrics(out)
    assert out.read_text() == ctx.status_metrics()
    assert not list(tmp_path.glob("*perftune-*"))
