# SPDX-License-Identifier: LGPL-2.1-or-later
"""Context.compare: does a change help a workload?

Two forms, one report (:class:`CompareResult`):

- ``compare(cmd, settings)`` is ``perftune compare``: it runs the
  ``perftune`` program with an argument list (never a shell) and ``--json``
  (:func:`run_compare`); the CLI forks the command per run, handles signals
  and draws the plot.  The change is validated here first, through the
  library, so that a bad key, value or profile raises the same PerftuneError
  as :meth:`Context.transaction` or :meth:`Context.apply` would.
- ``compare(change, fn)`` measures a Python callable in this process through
  the library's experiment engine (perftune_experiment_*,
  :func:`run_experiment`): the library holds the change around each tuned
  call of ``fn`` only and gives it back after it, whatever happens; an
  exception in ``fn`` stops the experiment, the change is given back, and
  the exception is raised again.
"""

from __future__ import annotations

import errno
import json
import math
import numbers
import os
import resource
import shutil
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _perftune as _lib
from ._errors import error_from_errno

__all__ = ["CompareResult", "CompareState", "perftune_program"]

Measure = Callable[[], float]

# where the perftune program is looked for after $PERFTUNE_CLI and $PATH
_SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")


@dataclass(frozen=True)
class CompareState:
    """One state of an experiment (``baseline`` or ``tuned``): its samples
    of the metric and their summary, and the wall, user and system CPU
    seconds of each measured run (of the command; with ``compare(change,
    fn)``, of each call of fn, CPU seconds of the calling thread)."""

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
    """The report of ``perftune compare --json``: the fields it prints.
    ``compare(change, fn)`` fills the same fields: ``metric`` is fn's
    qualified name, ``log`` is ``""`` and ``plot`` None."""

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


# ---- in-process: a callable measured through the library's experiment ----


def _measure_value(v: object, label: str) -> float:
    """What fn returned, as the sample of one run: a finite real number."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"compare: fn returned {type(v).__name__} in {label}: "
                        "a measure must be a real number")
    value = float(v)
    if not math.isfinite(value):
        raise ValueError(f"compare: fn returned {value} in {label}: a measure must be finite")
    return value


class _Timed:
    """The measure the library calls once per run: fn(), its value checked,
    and for a measured run (round > 0) its wall seconds and the calling
    thread's user and system CPU seconds, per state."""

    def __init__(self, fn: Measure) -> None:
        self.fn = fn
        self.times: Dict[int, Tuple[List[float], List[float], List[float]]] = {
            _lib.PERFTUNE_BASELINE: ([], [], []),
            _lib.PERFTUNE_TUNED: ([], [], []),
        }

    def __call__(self, state: int, round_: int, warmup: int, index: int, total: int,
                 label: str) -> float:
        r0 = resource.getrusage(resource.RUSAGE_THREAD)
        t0 = time.perf_counter()
        v = self.fn()
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_THREAD)
        value = _measure_value(v, label)
        if round_:
            w, u, s = self.times[state]
            w.append(wall)
            u.append(r1.ru_utime - r0.ru_utime)
            s.append(r1.ru_stime - r0.ru_stime)
        return value


def _number(x: float) -> Optional[float]:
    return None if math.isnan(x) else x


def _count(what: str, n: object) -> int:
    """An option that C takes as an unsigned number."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{what} must be int, not {type(n).__name__}")
    if n < 0 or (what == "seed" and n >= 1 << 64):
        raise error_from_errno(errno.EINVAL, f"{what} {n}: out of range")
    return n


def _state(exp: Any, state: int, timed: _Timed) -> CompareState:
    def get(stat: str) -> float:
        return float(getattr(_lib, f"perftune_experiment_{stat}")(exp, state))

    samples = _lib.perftune_experiment_samples(exp, state)
    wall, user, sys_ = timed.times[state]
    return CompareState(n=len(samples), median=get("median"), q1=get("q1"), q3=get("q3"),
                        iqr=get("iqr"), mean=get("mean"), cv=get("cv"), samples=samples,
                        wall_s=wall, user_s=user, sys_s=sys_)


def _result(exp: Any, fn: Measure, timed: _Timed, higher_is_better: bool) -> CompareResult:
    order = _lib.perftune_experiment_order(exp)
    return CompareResult(
        baseline=_state(exp, _lib.PERFTUNE_BASELINE, timed),
        tuned=_state(exp, _lib.PERFTUNE_TUNED, timed),
        change_pct=_number(_lib.perftune_experiment_change_pct(exp)),
        ci95=(_number(_lib.perftune_experiment_ci95_low(exp)),
              _number(_lib.perftune_experiment_ci95_high(exp))),
        p_value=_lib.perftune_experiment_p_value(exp),
        u=_lib.perftune_experiment_u(exp),
        p_method="exact" if _lib.perftune_experiment_p_exact(exp) else "asymptotic",
        alpha=_lib.PERFTUNE_EXPERIMENT_ALPHA,
        verdict=str(_lib.perftune_verdict_name(_lib.perftune_experiment_verdict(exp))),
        metric=getattr(fn, "__qualname__", None) or type(fn).__name__,
        higher_is_better=higher_is_better,
        rounds=_lib.perftune_experiment_rounds(exp),
        warmup=_lib.perftune_experiment_warmup(exp),
        order="random" if order == _lib.PERFTUNE_ORDER_RANDOM else "abba",
        seed=_lib.perftune_experiment_seed(exp),
        transaction=str(_lib.perftune_experiment_name(exp)),
        log="",
        plot=None,
    )


def run_experiment(
    exp: Any,
    ctx: Any,
    fn: Measure,
    *,
    rounds: int,
    warmup: int,
    order: str,
    seed: int,
    higher_is_better: bool,
) -> CompareResult:
    """Run experiment ``exp`` (its change set) of C context ``ctx`` with
    ``fn`` as the measure.  The options and the change are checked before fn
    is called once (PerftuneError, nothing changed).  An exception in fn
    stops the run: the library gives the change back and it is raised again
    here (as the cause of a PerftuneError if giving the change back failed:
    its message says what to restore)."""

    def check(r: Any) -> Any:
        rc = r[0] if isinstance(r, tuple) else r
        if rc < 0:
            raise error_from_errno(rc, _lib.perftune_ctx_last_error(ctx))
        return r

    if order not in ("abba", "random"):
        raise error_from_errno(errno.EINVAL, f"order {order!r}: abba or random")
    check(_lib.perftune_experiment_set_rounds(exp, _count("rounds", rounds)))
    check(_lib.perftune_experiment_set_warmup(exp, _count("warmup", warmup)))
    check(_lib.perftune_experiment_set_order(
        exp, _lib.PERFTUNE_ORDER_RANDOM if order == "random" else _lib.PERFTUNE_ORDER_ABBA))
    check(_lib.perftune_experiment_set_seed(exp, _count("seed", seed)))
    check(_lib.perftune_experiment_set_higher_is_better(exp, bool(higher_is_better)))
    _rc, tx = check(_lib.perftune_experiment_check(exp))  # a dry run: nothing changes
    _lib.perftune_tx_unref(tx)
    timed = _Timed(fn)
    rc, exc = _lib.perftune_experiment_run(exp, timed)
    if exc is not None and rc == -errno.ECANCELED:
        raise exc
    if rc < 0:
        raise error_from_errno(rc, _lib.perftune_ctx_last_error(ctx)) from exc
    return _result(exp, fn, timed, bool(higher_is_better))
