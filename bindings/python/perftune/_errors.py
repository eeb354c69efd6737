# SPDX-License-Identifier: LGPL-2.1-or-later
"""Exceptions: the library's negative errno plus its one-line message.

This module is the one place where an errno becomes an exception class.
"""

from __future__ import annotations

import errno as _errno
import os

__all__ = [
    "PerftuneError",
    "PerftuneNotFound",
    "PerftunePermissionError",
    "PerftuneValueError",
    "error_from_errno",
]


class PerftuneError(OSError):
    """A libperftune call failed.

    ``errno`` is the positive errno the library returned (negated) and
    ``strerror`` (also ``str(exc)``) the library's one-line message naming
    the key and the cause, e.g. ``block.sdx.scheduler: no such block device``.
    """

    def __init__(self, errno: int, message: str) -> None:
        super().__init__(errno, message)

    def __str__(self) -> str:
        return str(self.strerror)


class PerftuneNotFound(PerftuneError, FileNotFoundError):
    """The tunable or device does not exist here (ENOENT, ENODEV)."""


class PerftunePermissionError(PerftuneError, PermissionError):
    """Not allowed: not root, a read-only attribute, read-only by design
    (EACCES, EPERM, EROFS)."""


class PerftuneValueError(PerftuneError, ValueError):
    """A malformed key or value, or a value the tunable does not accept
    (EINVAL, ENOTUNIQ, ENAMETOOLONG; the library maps a value out of range to EINVAL).
    A key mistyped for one this machine has says which: its message ends
    "; did you mean KEY?"."""


_CLASSES: dict[int, type[PerftuneError]] = {
    _errno.ENOENT: PerftuneNotFound,
    _errno.ENODEV: PerftuneNotFound,
    _errno.EACCES: PerftunePermissionError,
    _errno.EPERM: PerftunePermissionError,
    _errno.EROFS: PerftunePermissionError,
    _errno.EINVAL: PerftuneValueError,
    _errno.ERANGE: PerftuneValueError,
    _errno.ENOTUNIQ: PerftuneValueError,
    _errno.ENAMETOOLONG: PerftuneValueError,
}


def error_from_errno(err: int, message: str | None = None) -> PerftuneError:
    """Build the exception for a positive or negative errno ``err``.

    An empty ``message`` (the library set none) falls back to ``os.strerror``.
    """
    err = abs(err)
    cls = _CLASSES.get(err, PerftuneError)
    return cls(err, message or os.strerror(err))
