# SPDX-License-Identifier: LGPL-2.1-or-later
"""Profiles (TuneD's tuned.conf format) and export formats."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, List, Protocol, Union

from . import _perftune as _lib
from ._errors import PerftuneValueError, error_from_errno
from ._types import Check, ExportFormat, ItemFlag, ProfileItem, check_from_c

__all__ = ["Profile", "export_format"]


class _ContextHandle(Protocol):
    """What a profile needs of its :class:`Context`: the C context."""

    _ptr: Any


def export_format(fmt: Union[ExportFormat, str]) -> int:
    """An :class:`ExportFormat` or its name (``"sysctl"``, ``"udev"``,
    ``"cmdline"``, ``"tuned"``) as the C enum value."""
    if isinstance(fmt, ExportFormat):
        return int(fmt)
    if isinstance(fmt, str):
        r, f = _lib.perftune_export_format_from_name(fmt) if "\0" not in fmt else (-22, 0)
        if r == 0:
            return int(f)
        names = ", ".join(f.name.lower() for f in ExportFormat)
        raise PerftuneValueError(22, f"unknown export format {fmt!r} (one of: {names})")
    raise TypeError(f"format must be ExportFormat or str, not {type(fmt).__name__}")


class Profile:
    """A profile read and mapped onto this machine's keys, from
    :meth:`Context.load_profile`.  Nothing in it is ever executed.

    Stage it into a transaction with :meth:`Transaction.apply_profile`;
    usable as a context manager (frees it on exit).
    """

    def __init__(self, ctx: _ContextHandle, ptr: Any) -> None:
        """Internal: use :meth:`Context.load_profile`."""
        self._ctx = ctx  # the C profile holds a reference on the C context
        self._ctx_ptr = ctx._ptr
        self._ptr = ptr
        self._finalizer = weakref.finalize(self, _lib.perftune_profile_free, ptr)
        self._lock = threading.RLock()  # this profile against close(), not the context

    def _handle(self) -> Any:
        if not self._finalizer.alive:
            raise ValueError("operation on a closed perftune Profile")
        return self._ptr

    def _check(self, r: Any) -> Any:
        rc = r[0] if isinstance(r, tuple) else r
        if rc < 0:
            raise error_from_errno(rc, _lib.perftune_ctx_last_error(self._ctx_ptr))
        return r

    @property
    def name(self) -> str:
        """The profile's name (its directory's name)."""
        return str(_lib.perftune_profile_name(self._handle()))

    @property
    def path(self) -> str:
        """The tuned.conf that was loaded."""
        return str(_lib.perftune_profile_path(self._handle()))

    @property
    def summary(self) -> str | None:
        """[main] summary=, or None."""
        s = _lib.perftune_profile_summary(self._handle())
        return None if s is None else str(s)

    def items(self) -> List[ProfileItem]:
        """What each option maps to, in TuneD's order, as of the load or the
        last :meth:`Transaction.apply_profile`."""
        with self._lock:
            _rc, it = self._check(_lib.perftune_profile_items(self._handle()))
        out = []
        try:
            while (i := _lib.perftune_profile_item_iter_next(it)) is not None:
                out.append(
                    ProfileItem(
                        option=_lib.perftune_profile_item_option(i) or "",
                        key=_lib.perftune_profile_item_key(i),
                        value=_lib.perftune_profile_item_value(i),
                        raw=_lib.perftune_profile_item_value_as_written(i),
                        origin=_lib.perftune_profile_item_location(i),
                        flags=ItemFlag(_lib.perftune_profile_item_flags(i)),
                        # the skip reason of a skipped item, else the remark
                        note=_lib.perftune_profile_item_skip_reason(i)
                        or _lib.perftune_profile_item_note(i)
                        or None,
                    )
                )
        finally:
            _lib.perftune_profile_item_iter_free(it)
        return out

    def verify(self) -> List[Check]:
        """Whether each option is in force on this machine now (its boot
        loader cmdline compared with /proc/cmdline): one :class:`Check` each."""
        with self._lock:
            _rc, it = self._check(_lib.perftune_verify_profile(self._handle()))
        out = []
        try:
            while (c := _lib.perftune_check_iter_next(it)) is not None:
                out.append(check_from_c(c))
        finally:
            _lib.perftune_check_iter_free(it)
        return out

    def _verify_text(self, render: Callable[[Any, str], Any]) -> str:
        """:meth:`verify`'s checks rendered by ``render(it, name) -> (rc, text)``."""
        name = self.name
        with self._lock:
            _rc, it = self._check(_lib.perftune_verify_profile(self._handle()))
            try:
                rc, text = render(it, name)
            finally:
                _lib.perftune_check_iter_free(it)
            self._check(rc)
        return str(text)

    def verify_metrics(self) -> str:
        """:meth:`verify` as Prometheus metrics labelled ``verified`` = the
        profile's name, as ``perftune verify --format prometheus PROFILE``."""
        return self._verify_text(_lib.perftune_verify_metrics)

    def verify_report(self, json: bool = False) -> str:
        """:meth:`verify` as ``perftune verify [--json] PROFILE`` prints it,
        byte for byte (JSON: ``verified`` is the profile's name)."""
        flags = _lib.PERFTUNE_REPORT_JSON if json else 0
        return self._verify_text(lambda it, name: _lib.perftune_verify_report(it, name, flags))

    def export(self, format: Union[ExportFormat, str]) -> str:
        """The keys this profile maps to (skipped options left out) as a
        sysctl.d file, udev rules, a kernel command line or a tuned.conf."""
        f = export_format(format)
        with self._lock:
            _rc, text = self._check(_lib.perftune_export_profile(self._handle(), f))
        return str(text)

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        """Free the profile."""
        self._finalizer()

    def __enter__(self) -> Profile:
        self._handle()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<perftune.Profile closed>"
        return f"<perftune.Profile {self.name!r} {self.path!r}>"
