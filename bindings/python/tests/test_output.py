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


def test_write_file_is_the_librarys(ctx: perftune.Context, tmp_path: Path) -> None:
    """Context.write_file: perftune_output_write_file, path as given, 0644."""
    with pytest.raises(perftune.PerftuneError) as e:
        ctx.write_file(tmp_path, "x\n")
    assert e.value.errno == errno.EPERM
    assert str(e.value).startswith(f"{tmp_path}: it is a directory")
    out = tmp_path / "new.txt"
    ctx.write_file(out, "new\n")
    assert out.read_text() == "new\n"
    assert out.stat().st_mode & 0o777 == 0o644


def test_open_log_is_a_new_file_appended(ctx: perftune.Context, tmp_path: Path) -> None:
    """Context.open_log: perftune_output_open_log, as compare --log."""
    log = tmp_path / "run.log"
    log.write_text("old run\n")
    ino = log.stat().st_ino
    fd = ctx.open_log(log)
    try:
        assert log.stat().st_ino != ino and log.read_text() == ""
        assert os.get_inheritable(fd) is False
        os.write(fd, b"one\n")
        with open(log, "ab") as other:
            other.write(b"two\n")
        os.write(fd, b"three\n")
    finally:
        os.close(fd)
    assert log.read_text() == "one\ntwo\nthree\n"
    assert log.stat().st_mode & 0o777 == 0o644
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(perftune.PerftuneError) as e:
        ctx.open_log(fifo)
    assert e.value.errno == errno.EPERM and "it is a FIFO" in str(e.value)
