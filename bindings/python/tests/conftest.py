# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared fixtures: a fake kernel tree and a Context on it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

import perftune

FAKE_FILES = {
    "sys/block/fake0/queue/scheduler": "[none] mq-deadline kyber bfq\n",
    "sys/block/fake0/queue/read_ahead_kb": "128\n",
    "sys/block/fake0/removable": "0\n",  # profiles' [disk] takes fixed disks only
    "proc/sys/vm/swappiness": "60\n",
    "sys/kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
}


class FakeTree:
    """A temp root with a few kernel files; read() returns one stripped."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "dev").mkdir(parents=True)
        for rel, content in FAKE_FILES.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)

    def path(self, rel: str) -> Path:
        return self.root / rel

    def read(self, rel: str) -> str:
        return self.path(rel).read_text().strip()

    def write(self, rel: str, content: str) -> None:
        self.path(rel).write_text(content)

    def snapshot(self) -> dict[str, str]:
        return {rel: self.path(rel).read_text() for rel in FAKE_FILES if self.path(rel).exists()}


PROFILE = """\
[main]
summary=A database server

[variables]
ra=512

[disk]
elevator=deadline
readahead=${ra}

[vm]
transparent_hugepages=never

[sysctl]
vm.swappiness=10

[script]
script=tune.sh
"""


@pytest.fixture
def profile_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$PERFTUNE_PROFILE_PATH with one profile, "mydb"."""
    d = tmp_path / "profiles"
    (d / "mydb").mkdir(parents=True)
    (d / "mydb" / "tuned.conf").write_text(PROFILE)
    monkeypatch.setenv("PERFTUNE_PROFILE_PATH", str(d))
    return d


@pytest.fixture
def tree(tmp_path: Path) -> FakeTree:
    return FakeTree(tmp_path / "root")


@pytest.fixture
def sysctl_d(tree: FakeTree) -> Path:
    """etc/sysctl.d of the tree, with vm.swappiness = 10 on line 2 of 90-app.conf."""
    d = tree.root / "etc" / "sysctl.d"
    d.mkdir(parents=True)
    (d / "90-app.conf").write_text("# app\nvm.swappiness = 10\n")
    return d


@pytest.fixture
def journal_dir(tmp_path: Path) -> Path:
    return tmp_path / "j"  # created 0700 by the library when first needed


@pytest.fixture
def ctx(tree: FakeTree, journal_dir: Path) -> Iterator[perftune.Context]:
    c = perftune.Context(root=tree.root, journal_dir=journal_dir)
    yield c
    c.close()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Everything skipped (e.g. host tests when not root): under meson
    (PERFTUNE_SKIP_EXIT_CODE=77) exit 77, reported as SKIP, not a silent pass."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or exitstatus != 0:
        return
    stats = reporter.stats
    ran = sum(len(stats.get(k, [])) for k in ("passed", "failed", "error", "xfailed", "xpassed"))
    code = os.environ.get("PERFTUNE_SKIP_EXIT_CODE")
    if ran == 0 and stats.get("skipped") and code:
        session.exitstatus = int(code)
