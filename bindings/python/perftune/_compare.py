# SPDX-License-Identifier: LGPL-2.1-or-later
"""Context.compare: ``perftune compare`` from Python.

The experiment (running the command in both states, applying and restoring
the change around each tuned run, signals, the statistics and the plot) is
the CLI's engine: compare() runs the ``perftune`` program with an argument
list (never a shell) and ``--json``, and returns its report as a
:class:`CompareResult`.  The change is validated here first, through the
library, so that a bad key, value or profile raises the same PerftuneError
as :meth:`Context.transaction` or :meth:`Context.apply` would.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from ._errors import error_from_errno

__all__ = ["CompareResult", "CompareState", "perftune_program"]

# where the perftune program is looked for after $PERFTUNE_CLI and $PATH
_SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")


@dataclass(frozen=True)
class CompareState:
    """One state of an experiment (``baseline`` or ``tuned``): its samples
    of the metric and their summary, and the wall, user and system CPU
    seconds of each measured run."""

    n: int
    median: float
    q1: float
    q3: float
    iqr: float
    mean: float
    cv: float
    """coefficient of variation: standard deviation / mean"""
    samples: List[float]
    wall_s: List[float]
    user_s: List[float]
    sys_s: List[float]

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CompareState:
        return cls(**{f: d[f] for f in cls.__dataclass_fields__})


@dataclass(frozen=True)
class CompareResult:
    """The report of ``perftune compare --json``: the fields it prints."""

    baseline: CompareState
    tuned: CompareState
    change_pct: Optional[float]
    """relative change of the median, tuned against baseline, in percent"""
    ci95: Tuple[Optional[float], Optional[float]]
    """seeded bootstrap 95% interval of change_pct"""
    p_value: float
    """two-sided Mann-Whitney U p-value"""
    u: float
    p_method: str
    """"exact" or "asymptotic" """
    alpha: float
    verdict: str
    """"better", "worse" or "no difference" """
    metric: str
    """the --metric regex, or "wall_time" """
    higher_is_better: bool
    rounds: int
    warmup: int
    order: str
    seed: int
    transaction: str
    log: str
    plot: Optional[str]

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CompareResult:
        v = {f: d.get(f) for f in cls.__dataclass_fields__}
        v["baseline"] = CompareState.from_json(d["baseline"])
        v["tuned"] = CompareState.from_json(d["tuned"])
        v["ci95"] = tuple(d["ci95"])
        return cls(**v)


def perftune_program() -> str:
    """The perftune program compare() runs: ``$PERFTUNE_CLI``, else
    ``perftune`` in ``$PATH`` or an sbin directory.  PerftuneNotFound
    (ENOENT) if there is none."""
    cli = os.environ.get("PERFTUNE_CLI")
    if cli:
        if not os.access(cli, os.X_OK):
            raise error_from_errno(errno.ENOENT, f"PERFTUNE_CLI={cli}: not an executable file")
        return cli
    path = os.environ.get("PATH", "") + os.pathsep + os.pathsep.join(_SBIN)
    found = shutil.which("perftune", path=path)
    if not found:
        raise error_from_errno(
            errno.ENOENT,
            "compare runs the perftune program, which is not installed (or set PERFTUNE_CLI)",
        )
    return found


def compare_argv(
    cli: str,
    root: str,
    journal_dir: str,
    cmd: Sequence[str],
    settings: Sequence[str],
    opts: Mapping[str, Any],
) -> List[str]:
    """The perftune command line of an experiment."""
    argv = [cli, "--root", root, "--journal-dir", journal_dir, "compare", "--json"]
    for opt in ("rounds", "warmup", "metric", "plot", "log", "seed", "order", "name", "profile"):
        if opts.get(opt) is not None:
            argv += [f"--{opt}", str(opts[opt])]
    if opts.get("higher_is_better"):
        argv.append("--higher-is-better")
    for var, value in (opts.get("variables") or {}).items():
        argv += ["-v", f"{var}={value}"]
    return argv + list(settings) + ["--"] + list(cmd)


def run_compare(argv: List[str]) -> CompareResult:
    """Run the experiment; its result, or PerftuneError with the CLI's message:
    EINVAL (PerftuneValueError) for what it refused before changing anything
    (exit 2), ECANCELED when it stopped (CMD failed, a signal; the machine
    is restored: exit 1)."""
    proc = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False
    )
    ours = [ln for ln in proc.stderr.splitlines() if ln.startswith("perftune: ")]
    msg = "; ".join(ln.removeprefix("perftune: ") for ln in ours)  # not the usage text
    if proc.returncode == 2:
        raise error_from_errno(errno.EINVAL, msg or "perftune compare: bad arguments")
    if proc.returncode != 0:
        raise error_from_errno(
            errno.ECANCELED, msg or f"perftune compare: exit status {proc.returncode}"
        )
    return CompareResult.from_json(json.loads(proc.stdout))
