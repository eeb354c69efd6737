# SPDX-License-Identifier: LGPL-2.1-or-later
"""Metric: the number a command's output reports (perftune_metric_*), as
``perftune compare --metric REGEX`` reads it, for a measure of your own::

    with ctx.metric(r"time: ([0-9.]+)") as m:
        def measure() -> float:
            with open("bench.log", "ab") as log:
                proc = subprocess.Popen(["./bench"], stdout=subprocess.PIPE)
                m.feed_fd(proc.stdout, copy_to=log)
                proc.wait()
            return m.end()
        ctx.compare({"vm.swappiness": "10"}, measure)
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Protocol, Union

from . import _perftune as _lib
from ._errors import error_from_errno

__all__ = ["Metric"]


class _HasFileno(Protocol):
    def fileno(self) -> int: ...


FileLike = Union[int, _HasFileno]


def _fd(what: str, f: FileLike) -> int:
    if isinstance(f, int) and not isinstance(f, bool):
        return f
    if hasattr(f, "fileno"):
        return int(f.fileno())
    raise TypeError(f"{what} must be a file descriptor or have fileno(), not {type(f).__name__}")


class Metric:
    """A compiled ``--metric`` regex, from :meth:`Context.metric`: the
    number its one capture group finds in the last line of an output where
    it matches.  Feed an output in chunks of any size (:meth:`feed`) or
    from a file descriptor (:meth:`feed_fd`), then :meth:`end` gives its
    number and readies the metric for the next output.  Usable as a
    context manager (frees it on exit).
    """

    def __init__(self, ctx: Any, ptr: Any) -> None:
        """Internal: use :meth:`Context.metric`."""
        self._ctx = ctx  # the C metric holds a reference on the C context
        self._ptr = ptr
        self._finalizer = weakref.finalize(self, _lib.perftune_metric_free, ptr)
        self._lock = threading.Lock()

    def _handle(self) -> Any:
        if not self._finalizer.alive:
            raise ValueError("operation on a closed perftune Metric")
        return self._ptr

    def _raise(self, rc: int) -> None:
        raise error_from_errno(rc, _lib.perftune_ctx_last_error(self._ctx._ptr))

    def feed(self, data: bytes) -> None:
        """The next chunk of the output (any bytes-like object)."""
        with self._lock:
            _lib.perftune_metric_feed(self._handle(), data)

    def feed_fd(self, fd: FileLike, copy_to: FileLike | None = None) -> int:
        """Feed all that ``fd`` (a descriptor, or an object with
        ``fileno()``) gives up to its end, each chunk also written to
        ``copy_to`` (a log) if given.  Returns 0, or the errno of a write to
        ``copy_to`` that failed: the copy stopped there, the output was still
        read to its end.  PerftuneError if reading fails (this output is
        then forgotten)."""
        src = _fd("fd", fd)
        dst = -1 if copy_to is None else _fd("copy_to", copy_to)
        with self._lock:
            rc = _lib.perftune_metric_feed_fd(self._handle(), src, dst)
            if rc < 0:
                self._raise(rc)
        return int(rc)

    def end(self) -> float:
        """The output has ended: its number.  PerftuneError ENOENT (the
        regex matched nothing), ENODATA (its group captured nothing in the
        last line it matched), PerftuneValueError (not a finite number); the
        message names the regex.  The metric is ready for the next output
        either way."""
        with self._lock:
            rc, value = _lib.perftune_metric_end(self._handle())
            if rc < 0:
                self._raise(rc)
        return float(value)

    def close(self) -> None:
        """Free the metric (idempotent)."""
        with self._lock:
            self._finalizer()

    def __enter__(self) -> Metric:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
