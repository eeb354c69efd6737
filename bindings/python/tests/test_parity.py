# SPDX-License-Identifier: LGPL-2.1-or-later
"""bindings/go/parity.tsv: every CLI command has a Python (and Go) row, and every
Python call a row names exists (bindings/go/parity_test.go checks the Go side).
The commands come from the CLI's own ``perftune --help``, not from a copy."""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
import subprocess
from pathlib import Path

import pytest

import perftune

# in the Go module's directory, whose tests need it when the module is used alone
TABLE = Path(__file__).resolve().parents[2] / "go" / "parity.tsv"
CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?(?:\(([a-z_, ]*)\))?$")


def rows() -> list[list[str]]:
    out = []
    for line in TABLE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        cells = line.split("\t")
        assert len(cells) == 3 and all(c.strip() for c in cells), f"parity.tsv: bad row {line!r}"
        out.append(cells)
    return out


def cli_commands() -> list[str]:
    cli = os.environ.get("PERFTUNE_CLI")
    if not cli:
        pytest.fail("PERFTUNE_CLI is not set (meson sets it): cannot read the CLI's commands")
    text = subprocess.run([cli, "--help"], capture_output=True, text=True, check=True).stdout
    block = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    cmds = [ln.split()[0] for ln in block.splitlines() if re.match(r"^  [a-z]", ln)]
    assert len(cmds) >= 9, f"could not read the commands from perftune --help:\n{text}"
    return cmds


def test_every_cli_command_has_a_row() -> None:
    covered = {r[0].split()[0] for r in rows()}
    missing = [c for c in cli_commands() if c not in covered]
    assert not missing, f"CLI commands without a row in {TABLE}: {missing}"


def test_every_row_names_a_cli_command() -> None:
    cmds = set(cli_commands())
    stale = [r[0] for r in rows() if not r[0].startswith("-") and r[0].split()[0] not in cmds]
    assert not stale, f"rows for commands the CLI does not have: {stale}"


def calls(cell: str) -> list[str]:
    """The calls of a cell: split at the commas outside parentheses."""
    return [c.strip() for c in re.split(r",(?![^()]*\))", cell)]


def has_member(cls: object, name: str) -> bool:
    if hasattr(cls, name):
        return True
    return dataclasses.is_dataclass(cls) and name in {f.name for f in dataclasses.fields(cls)}


def check_call(spec: str) -> str | None:
    """None if ``spec`` names an existing Python call, else why not."""
    m = CALL.match(spec)
    if not m:
        return f"{spec!r} is not Name, Class.member or Class.method(param, ...)"
    top, member, params = m.groups()
    obj = getattr(perftune, top, None)
    if obj is None:
        return f"perftune.{top} does not exist"
    if member:
        if not has_member(obj, member):
            return f"perftune.{top}.{member} does not exist"
        obj = getattr(obj, member, None)
    if params:
        fn = obj.__init__ if inspect.isclass(obj) else obj
        try:
            names = set(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            return f"{spec}: not callable"
        unknown = [p.strip() for p in params.split(",") if p.strip() not in names]
        if unknown:
            return f"{spec}: no parameter {unknown}"
    return None


@pytest.mark.parametrize("row", rows(), ids=lambda r: r[0])
def test_python_calls_exist(row: list[str]) -> None:
    errors = [e for s in calls(row[1]) if (e := check_call(s))]
    assert not errors, f"parity.tsv row {row[0]!r}: {errors}"


def test_the_check_catches_a_missing_call() -> None:
    assert check_call("Context.apply(profile, name)") is None
    assert check_call("Context.no_such_method") is not None
    assert check_call("Context.apply(no_such_param)") is not None
    assert check_call("NoSuchThing") is not None
    assert check_call("Context.apply(") is not None
    assert calls("A.b(c, d), E") == ["A.b(c, d)", "E"]
