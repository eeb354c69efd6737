# SPDX-License-Identifier: LGPL-2.1-or-later
"""Context and Transaction: the C objects, with Python lifetimes and errors.

Every C handle is released by a weakref.finalize, so it is freed when its
Python object goes away, on close(), or at interpreter exit (where a held
transaction ends its hold, as in C).  A Transaction keeps its Context (and
so the C context and the log callback) alive.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import threading
import weakref
from types import TracebackType
from typing import Any, Callable, Iterable, Iterator, List, Mapping, Sequence, Tuple, Union

from . import _perftune as _lib
from ._compare import (
    CompareResult,
    Measure,
    compare_argv,
    perftune_program,
    run_compare,
    run_experiment,
)
from ._errors import PerftuneError, error_from_errno
from ._metric import Metric
from ._profile import Profile, export_format
from ._types import (
    Applied,
    Change,
    Check,
    Description,
    ExportFormat,
    ItemFlag,
    LogPriority,
    MemPolicy,
    ProfileInfo,
    Reading,
    Source,
    StatusEntry,
    Tunable,
    check_from_c,
    source_from_c,
)

__all__ = ["Context", "Transaction", "version"]

StrPath = Union[str, "os.PathLike[str]"]
LogCallback = Callable[[int, str], Any]
_HOLDS = itertools.count(1)  # hold()'s default names, hold-PID-N


def version() -> str:
    """The libperftune version in use, e.g. ``"0.1.0"``."""
    return str(_lib.perftune_version())


def profile_default_path() -> str:
    """The profile search path used when $PERFTUNE_PROFILE_PATH is unset or
    empty, written as that variable is: directories separated by ':'."""
    return str(_lib.perftune_profile_default_path())


def _text(what: str, s: object) -> str:
    """Accept only str: bytes are rejected here, not guessed at."""
    if isinstance(s, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be str, not {type(s).__name__} (decode it first)")
    if not isinstance(s, str):
        raise TypeError(f"{what} must be str, not {type(s).__name__}")
    if "\0" in s:
        raise ValueError(f"{what} must not contain a NUL character: {s!r}")
    return s


def _value(value: object) -> str:
    """A tunable's value: str as given; bool as "1"/"0" (the kernel's
    booleans, checked after bool because bool is an int); int in decimal.
    A key whose values are words (``thp.enabled``) refuses "1" with its
    choices, rather than having a word guessed for True."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return _text("value", value)  # bytes: "decode it first"
    raise TypeError(f"value must be str, int or bool, not {type(value).__name__}")


def _path(what: str, p: object) -> str:
    """A str or os.PathLike[str], made absolute."""
    try:
        fs = os.fspath(p)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{what} must be str or os.PathLike[str], not {type(p).__name__}") from None
    return os.path.abspath(_text(what, fs))


def _settings(settings: Mapping[str, str] | Iterable[str]) -> List[str]:
    """``{key: value}`` or ``"KEY=VALUE"`` strings as the C API's KEY=VALUE list."""
    if isinstance(settings, Mapping):
        return [f"{_text('key', k)}={_text(f'value for {k}', v)}" for k, v in settings.items()]
    return [_text("setting", s) for s in settings]


def _variables(variables: Mapping[str, str] | None) -> List[str] | None:
    """A profile's ``{VAR: VALUE}`` as the C API's VAR=VALUE list (None: none)."""
    if variables is None:
        return None
    out = []
    for name, value in variables.items():
        _text("variable name", name)
        if not name or "=" in name:
            raise ValueError(f"bad variable name {name!r}")
        out.append(f"{name}={_text(f'variable {name}', value)}")
    return out


def _report_flags(json: bool) -> int:
    """The flags of a perftune_*_report() call: JSON (the CLI's --json), else text."""
    return _lib.PERFTUNE_REPORT_JSON if json else 0


def _str(s: str | None) -> str:
    """A string the C API never returns NULL for (keys, names); typed Optional."""
    return "" if s is None else s


def _release_ctx(ptr: Any) -> None:
    _lib.perftune_ctx_set_log_fn(ptr, None, 0)  # the callback may go away with us
    _lib.perftune_ctx_unref(ptr)


def _drain(kind: str, it: Any, item: Callable[[Any], Any]) -> list[Any]:
    """Read a typed C iterator (perftune_<kind>_iter) to the end into a list
    of item(object), then free it."""
    step = getattr(_lib, f"perftune_{kind}_iter_next")
    try:
        out = []
        while (obj := step(it)) is not None:
            out.append(item(obj))
        return out
    finally:
        getattr(_lib, f"perftune_{kind}_iter_free")(it)


def _tunable(t: Any) -> Tunable:
    """A struct perftune_tunable of perftune_list."""
    return Tunable(
        _str(_lib.perftune_tunable_key(t)),
        _lib.perftune_tunable_value(t),
        _lib.perftune_tunable_note(t) or None,
        bool(_lib.perftune_tunable_flags(t) & _lib.PERFTUNE_TUNABLE_READONLY),
    )


def _reading(t: Any) -> Reading:
    """A struct perftune_tunable of perftune_get_each."""
    return Reading(
        _str(_lib.perftune_tunable_key(t)),
        _lib.perftune_tunable_value(t),
        _lib.perftune_tunable_note(t) or None,
        bool(_lib.perftune_tunable_flags(t) & _lib.PERFTUNE_TUNABLE_ABSENT),
    )


class Context:
    """A libperftune context: where kernel files and journals are.

    :param root: read and write kernel files below this directory instead of
        ``/`` (tests use a fake tree with ``sys/``, ``proc/sys/``, ``dev/``).
    :param journal_dir: keep transaction journals here instead of
        ``$PERFTUNE_JOURNAL_DIR`` or ``/run/perftune`` (created mode 0700;
        an existing one must be owned by us with mode 0700).

    Usable as a context manager (closes on exit).  Calls from several threads
    run concurrently: the library keeps the last error per thread, and the C
    context serializes what must be.
    """

    def __init__(self, root: StrPath | None = None, journal_dir: StrPath | None = None) -> None:
        self._lock = threading.RLock()  # the handle's lifetime only: close() against calls
        self._log_callback: LogCallback | None = None
        root = None if root is None else _path("root", root)
        journal_dir = None if journal_dir is None else _path("journal_dir", journal_dir)
        rc, ptr = _lib.perftune_ctx_new()
        if rc < 0:
            raise error_from_errno(rc, f"cannot create a libperftune context: {os.strerror(-rc)}")
        self._ptr: Any = ptr
        self._finalizer = weakref.finalize(self, _release_ctx, ptr)
        if root is not None:
            self._call(_lib.perftune_ctx_set_root, root)
        if journal_dir is not None:
            self._call(_lib.perftune_ctx_set_journal_dir, journal_dir)

    # ---- plumbing ----------------------------------------------------------

    def _handle(self) -> Any:
        if not self._finalizer.alive:
            raise ValueError("operation on a closed perftune Context")
        return self._ptr

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Call fn(ctx, *args) -> rc or (rc, out...); raise on rc < 0."""
        with self._lock:  # a reference of the call's own: close() may come meanwhile
            ptr = _lib.perftune_ctx_ref(self._handle())
        try:
            r = fn(ptr, *args)
            rc = r[0] if isinstance(r, tuple) else r
            if rc < 0:  # the message of this thread's last call
                raise error_from_errno(rc, _lib.perftune_ctx_last_error(ptr))
        finally:
            _lib.perftune_ctx_unref(ptr)
        return r

    # ---- properties and lifetime -------------------------------------------

    @property
    def root(self) -> str:
        """The directory kernel files are read below (``/`` on the machine)."""
        return str(_lib.perftune_ctx_get_root(self._handle()))

    @property
    def journal_dir(self) -> str:
        """The directory that holds the transaction journals."""
        return str(_lib.perftune_ctx_get_journal_dir(self._handle()))

    @property
    def resolver(self) -> str:
        """How kernel paths are confined below sys/, proc/ and dev/ of the root:
        ``"openat2 (RESOLVE_BENEATH)"``, or ``"user-space (...)"`` with the reason
        (a kernel older than 5.6, a seccomp filter, or ``PERFTUNE_NO_OPENAT2``)."""
        return str(_lib.perftune_ctx_get_resolver(self._handle()))

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        """Drop this context.  Transactions made from it keep working
        (they hold their own reference), but without the log callback."""
        with self._lock:
            self._finalizer()
            self._log_callback = None

    def __enter__(self) -> Context:
        self._handle()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<perftune.Context closed>"
        return f"<perftune.Context root={self.root!r} journal_dir={self.journal_dir!r}>"

    def set_log(self, callback: LogCallback | None, max_priority: int = LogPriority.INFO) -> None:
        """Send the library's log messages up to ``max_priority`` (a
        :class:`LogPriority`) to ``callback(priority, message)``; None stops.

        The callback runs in the thread that made the call; its exceptions
        are reported with sys.unraisablehook (they cannot cross the C code).
        """
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable or None, not {type(callback).__name__}")
        with self._lock:
            self._call(_lib.perftune_ctx_set_log_fn, callback, int(max_priority))
            self._log_callback = callback  # the C side borrows it

    # ---- reading -----------------------------------------------------------

    def get(self, key: str) -> str:
        """The current value of ``key``, normalized (the bracketed choice of
        a selection, a trimmed number).  A glob yields the value all matches
        share; if they differ, :class:`PerftuneValueError` (ENOTUNIQ)."""
        _rc, value = self._call(_lib.perftune_get, _text("key", key))
        return str(value)

    def get_each(self, key: str) -> List[Reading]:
        """Each tunable ``key`` names, read on its own, in key order: a glob
        reads what it can, and a :class:`Reading` whose ``value`` is None says
        why in ``note`` (``absent`` if it is not here: a disk without the
        attribute).  Raises for a key that names nothing here, as :meth:`get`."""
        _rc, it = self._call(_lib.perftune_get_each, _text("key", key))
        return _drain("tunable", it, _reading)

    def list(self, prefix: str | None = None) -> Iterator[Tunable]:
        """Iterate over the existing tunables whose key starts with
        ``prefix`` (all if None), in a stable order, as :class:`Tunable`
        ``(key, value, note, read_only)``."""
        if prefix is not None:
            _text("prefix", prefix)
        _rc, it = self._call(_lib.perftune_list, prefix)
        return iter(_drain("tunable", it, _tunable))

    def describe(self, key: str) -> Description:
        """Current value, choices or range, unit, writability of one tunable."""
        _rc, d = self._call(_lib.perftune_describe, _text("key", key))
        try:
            ranged, lo, hi = _lib.perftune_desc_range(d)
            choices = _lib.perftune_desc_choices(d)
            return Description(
                key=_str(_lib.perftune_desc_key(d)),
                value=_lib.perftune_desc_value(d),
                path=_lib.perftune_desc_path(d),
                choices=choices.split() if choices is not None else None,
                min=lo if ranged else None,
                max=hi if ranged else None,
                unit=_lib.perftune_desc_unit(d),
                writable=bool(_lib.perftune_desc_writable(d)),
                reason=_lib.perftune_desc_reason(d),
                info=_lib.perftune_desc_info(d),
                unreadable=_lib.perftune_desc_unreadable(d),
            )
        finally:
            _lib.perftune_desc_free(d)

    # ---- changing ----------------------------------------------------------

    def transaction(
        self,
        name: str = "default",
        hold: bool = False,
        dry_run: bool = False,
        allow_partial: bool = False,
    ) -> Transaction:
        """Start a named all-or-nothing :class:`Transaction`.

        :param name: ``[A-Za-z0-9_.@-]{1,64}``, not starting with ``.`` or
            ``-``; re-using the name of a
            committed transaction extends it (originals already journaled stay).
        :param hold: keep held values (PM QoS) while the Transaction lives;
            required for ``pmqos.*``.  Closing it ends the hold and restores.
        :param dry_run: validate and report; commit writes nothing.
        :param allow_partial: accept fewer huge pages than asked.
        """
        return Transaction(self, name, hold=hold, dry_run=dry_run, allow_partial=allow_partial)

    def restore(
        self,
        name: str | None = None,
        *,
        all: bool = False,
        orphans: bool = False,
        force: bool = False,
    ) -> int:
        """Return every key of transaction ``name`` (or of ``all`` of them,
        or of the ``orphans`` whose holder died) to its original and remove
        the journal.  ``force`` also restores a transaction a live process
        holds.  Returns the number of keys written back."""
        if (name is not None) + bool(all) + bool(orphans) != 1:
            raise ValueError("restore() needs exactly one of: a name, all=True, orphans=True")
        flags = (
            (_lib.PERFTUNE_RESTORE_ALL if all else 0)
            | (_lib.PERFTUNE_RESTORE_ORPHANS if orphans else 0)
            | (_lib.PERFTUNE_RESTORE_FORCE if force else 0)
        )
        return int(
            self._call(_lib.perftune_restore, None if name is None else _text("name", name), flags)
        )

    def holder(self, name: str) -> int:
        """The pid of the live process that holds transaction ``name``
        (this one's own included), or 0 when none does: no such
        transaction, committed without a hold, or orphaned.  Tells whether
        another process holds a name, or whether a hold of one's own was
        taken over by a replace.  Raises ValueError for a bad name."""
        return int(self._call(_lib.perftune_tx_holder, _text("name", name)))

    def status(self) -> List[StatusEntry]:
        """Every key of every journaled transaction: original, written and
        current value, holder, flags (drift, orphaned, held, ...)."""
        _rc, it = self._call(_lib.perftune_status)
        return _drain(
            "status",
            it,
            lambda e: StatusEntry(
                name=_str(_lib.perftune_status_entry_tx_name(e)),
                key=_str(_lib.perftune_status_entry_key(e)),
                old=_lib.perftune_status_entry_original(e),
                written=_lib.perftune_status_entry_written(e),
                current=_lib.perftune_status_entry_current(e),
                pid=_lib.perftune_status_entry_pid(e),
                flags=ItemFlag(_lib.perftune_status_entry_flags(e)),
                note=_lib.perftune_status_entry_note(e) or None,
            ),
        )

    def status_report(self, json: bool = False) -> str:
        """:meth:`status` as ``perftune status`` prints it: a line per
        transaction (applied, held, ORPHANED, incomplete; its holder's pid),
        under it a line per key ``key: original -> written, now current``
        with DRIFT, GONE, MOVED, HOTPLUG or REFUSED; ``"no transactions"``
        if none.  ``json``: ``perftune status --json``'s array."""
        flags = _lib.PERFTUNE_REPORT_JSON if json else 0
        _rc, text = self._call(_lib.perftune_status_report, flags)
        return str(text)

    # ---- why and verify --------------------------------------------------------

    def why(self, key: str, compare_to: str | None = None) -> List[Source]:
        """Every source on the machine that sets ``key``, in the order they
        take effect (kernel command line, sysctl.d, udev rules, TuneD's
        active profile, daemons, perftune's transactions); a source whose
        value is not ``compare_to`` (default: the value now) has DIFFERS."""
        cmp = None if compare_to is None else _text("compare_to", compare_to)
        _rc, it = self._call(_lib.perftune_why, _text("key", key), cmp)
        return _drain("source", it, source_from_c)

    def why_keys(self, keys: Mapping[str, str | None] | Iterable[str]) -> List[Source]:
        """:meth:`why` of many keys in one call: ``{key: compare_to}``
        (``None``: the value now) or the keys alone; the sources of each
        key in turn (:attr:`Source.key` tells whose). Every configuration
        file is read once for all of them, and only the kinds of source
        that can name one of the keys."""
        if isinstance(keys, Mapping):
            names = [_text("key", k) for k in keys]
            cmp: List[str | None] | None = [
                None if v is None else _text(f"compare_to for {k}", v) for k, v in keys.items()
            ]
        else:
            names = [_text("key", k) for k in keys]
            cmp = None
        _rc, it = self._call(_lib.perftune_why_keys, names, cmp)
        return _drain("source", it, source_from_c)

    def verify(self, settings: Mapping[str, str] | Iterable[str]) -> List[Check]:
        """Check ``{key: value}`` (or ``"KEY=VALUE"`` strings) against the
        machine: one :class:`Check` per concrete key."""
        _rc, it = self._call(_lib.perftune_verify, _settings(settings))
        return _drain("check", it, check_from_c)

    def verify_transaction(self, name: str) -> List[Check]:
        """Check the values journaled transaction ``name`` wrote."""
        _rc, it = self._call(_lib.perftune_verify_transaction, _text("name", name))
        return _drain("check", it, check_from_c)

    def verify_metrics(
        self, name: str, settings: Mapping[str, str] | Iterable[str] | None = None
    ) -> str:
        """:meth:`verify_transaction` of ``name`` (or with ``settings``,
        :meth:`verify` of them) as Prometheus metrics labelled
        ``verified=name``, as ``perftune verify --format prometheus``:
        ``perftune_verify_in_force{key, origin}``,
        ``perftune_verify_checks{state}``, ``perftune_verify_not_in_force``."""
        what = _text("name", name)
        if settings is None:
            _rc, it = self._call(_lib.perftune_verify_transaction, what)
        else:
            _rc, it = self._call(_lib.perftune_verify, _settings(settings))
        return self._render_checks(it, lambda: _lib.perftune_verify_metrics(it, what))

    def _render_checks(self, it: Any, render: Callable[[], Any]) -> str:
        """``render() -> (rc, text)`` of the checks of ``it``, which is freed."""
        try:
            rc, text = render()
        finally:
            _lib.perftune_check_iter_free(it)
        if rc < 0:
            raise error_from_errno(rc, _lib.perftune_ctx_last_error(self._handle()))
        return str(text)

    # ---- profiles and export -------------------------------------------------

    def load_profile(
        self, name_or_path: StrPath, variables: Mapping[str, str] | None = None
    ) -> Profile:
        """Read a profile (TuneD's tuned.conf format) and map it onto this
        machine's keys.

        :param name_or_path: a profile name, searched in
            ``$PERFTUNE_PROFILE_PATH`` or the default directories; or a path
            (containing ``/``, or any os.PathLike) to a tuned.conf or its
            directory.
        :param variables: override the profile's ``[variables]``.
        """
        if isinstance(name_or_path, str):
            spec = _text("name_or_path", name_or_path)
        else:
            spec = _path("name_or_path", name_or_path)
        _rc, ptr = self._call(_lib.perftune_profile_load, spec, _variables(variables))
        return Profile(self, ptr)

    def profiles(self) -> List[ProfileInfo]:
        """The profiles on the search path, sorted by name."""
        _rc, it = self._call(_lib.perftune_profile_list)
        return _drain(
            "profile_entry",
            it,
            lambda e: ProfileInfo(
                name=_str(_lib.perftune_profile_entry_name(e)),
                path=_str(_lib.perftune_profile_entry_path(e)),
                summary=_lib.perftune_profile_entry_summary(e),
                note=_lib.perftune_profile_entry_error(e) or None,
                variables=tuple((_lib.perftune_profile_entry_variables(e) or "").split()),
                unset_variables=tuple(
                    (_lib.perftune_profile_entry_unset_variables(e) or "").split()
                ),
            ),
        )

    def export(self, name: str, format: ExportFormat | str) -> str:
        """The values journaled transaction ``name`` wrote, as a sysctl.d
        file, udev rules, a kernel command line or a tuned.conf (keys the
        format cannot express are listed in comments)."""
        f = export_format(format)
        _rc, text = self._call(_lib.perftune_export_transaction, _text("name", name), f)
        return str(text)

    # ---- reports: what the perftune program prints ---------------------------

    def list_report(
        self, prefix: str | None = None, json: bool = False, writable: bool = False
    ) -> str:
        """What ``perftune list [--json] [--writable] [PREFIX]`` prints, byte
        for byte: ``KEY = VALUE`` lines (read-only ones marked), or with
        ``json`` an array of ``{key, value, read_only, note}``; ``writable``
        leaves the read-only tunables out."""
        flags = _report_flags(json)
        if writable:
            flags |= _lib.PERFTUNE_REPORT_WRITABLE
        if prefix is not None:
            _text("prefix", prefix)
        _rc, text = self._call(_lib.perftune_list_report, prefix, flags)
        return str(text)

    def describe_report(self, key: str, json: bool = False) -> str:
        """What ``perftune describe [--json] KEY`` prints, byte for byte (the
        fields of :meth:`describe`)."""
        _rc, d = self._call(_lib.perftune_describe, _text("key", key))
        try:
            rc, text = _lib.perftune_desc_report(d, _report_flags(json))
        finally:
            _lib.perftune_desc_free(d)
        if rc < 0:
            raise error_from_errno(rc, os.strerror(-rc))
        return str(text)

    def profiles_report(self, json: bool = False) -> str:
        """What ``perftune list-profiles [--json]`` prints, byte for byte (the
        fields of :meth:`profiles`)."""
        _rc, text = self._call(_lib.perftune_profile_list_report, _report_flags(json))
        return str(text)

    def why_report(self, key: str, json: bool = False) -> str:
        """What ``perftune why [--json] KEY`` prints, byte for byte: the value
        now, each source of :meth:`why` with its marks, and what a reboot
        brings back."""
        _rc, text = self._call(_lib.perftune_why_report, _text("key", key), _report_flags(json))
        return str(text)

    def verify_report(
        self,
        target: str | Mapping[str, str] | Iterable[str],
        variables: Mapping[str, str] | None = None,
        json: bool = False,
    ) -> str:
        """What ``perftune verify [--json] TARGET`` prints, byte for byte.

        :param target: a journaled transaction's name, else a profile (a
            name or a path), looked up as the command does; or settings,
            ``{key: value}`` or ``"KEY=VALUE"`` strings (verified
            ``"settings"``).
        :param variables: the profile's variables, as :meth:`load_profile`.
        """
        if isinstance(target, str):
            what = _text("target", target)
            _rc, it = self._call(_lib.perftune_verify_named, what, _variables(variables), 0)
        else:
            what = "settings"
            _rc, it = self._call(_lib.perftune_verify, _settings(target))
        flags = _report_flags(json)
        return self._render_checks(it, lambda: _lib.perftune_verify_report(it, what, flags))

    def apply(
        self,
        profile: StrPath,
        variables: Mapping[str, str] | None = None,
        *,
        name: str | None = None,
        replace: str | None = None,
        hold: bool = False,
        dry_run: bool = False,
        strict: bool = False,
        allow_partial: bool = False,
    ) -> Applied:
        """What ``perftune apply`` does: load ``profile`` (a name or a path,
        ``variables`` overriding its [variables]), stage it into a transaction
        called ``name`` (default: the profile's name) and commit it
        all-or-nothing.  With ``dry_run`` nothing is written and ``changes``
        says what would be (old -> new); ``skipped`` lists the options not
        applied here with the reason.  Close the returned transaction when
        done: a ``hold`` one is then rolled back.  On error nothing stays
        changed.  ``replace``: take the place of transaction ``replace``
        without a gap (:meth:`Transaction.replace`), under its name unless
        ``name``."""
        with self.load_profile(profile, variables) as p:
            pname, ppath = p.name, p.path
            tx = self.transaction(
                name or replace or pname, hold=hold, dry_run=dry_run, allow_partial=allow_partial
            )
            try:
                if replace is not None:
                    tx.replace(replace)
                tx.apply_profile(p, strict=strict)
                written = tx.commit()
                changes = tx.changes()
                skipped = [i for i in p.items() if i.skipped]
            except BaseException:
                if tx.committed:
                    tx.rollback()
                tx.close()
                raise
        return Applied(tx, pname, ppath, written, changes, skipped)

    @contextlib.contextmanager
    def hold(
        self,
        change: StrPath | Profile | Mapping[str, Any] | Iterable[str],
        *,
        name: str | None = None,
        variables: Mapping[str, str] | None = None,
    ) -> Iterator[Transaction]:
        """What ``perftune run`` does around its command, for a block of code::

            with ctx.hold("latency-performance") as tx:
                run_benchmark()

        ``change`` is a profile (a name or a path, ``variables`` overriding
        its [variables], or a loaded :class:`Profile`) or settings
        (``{key: value}`` or ``"KEY=VALUE"`` strings).  It is committed as a
        holding transaction named ``name`` (default ``hold-PID-N``, new for
        each hold), PM QoS requests (a profile's force_latency too) in force
        while the block runs, and rolled back when the block ends, by an
        exception too.  The change is validated before anything is written
        (PerftuneError, nothing changed).  Holds nest: an inner one journals
        the outer one's values as its originals.  A failed rollback raises
        PerftuneError and keeps the journal (:meth:`restore` of its name)."""
        tx = self.transaction(name or f"hold-{os.getpid()}-{next(_HOLDS)}", hold=True)
        try:
            if isinstance(change, (str, os.PathLike)):
                with self.load_profile(change, variables) as p:
                    tx.apply_profile(p)
            elif isinstance(change, Profile) and variables is None:
                tx.apply_profile(change)
            elif isinstance(change, (Profile, bytes)) or variables is not None:
                raise TypeError("hold(): variables are for a profile name or path; change is "
                                "a profile, {key: value} or KEY=VALUE strings")
            else:
                pairs = change.items() if isinstance(change, Mapping) else map(self.split_setting, change)
                for k, v in pairs:
                    tx.set(_text("key", k), _value(v))
            tx.commit()
        except BaseException:
            tx.close()  # a failed commit already gave back what it wrote
            raise
        try:
            yield tx
        finally:
            tx.close()  # the end of a hold: rolled back (raises if that fails)

    # ---- experiments ---------------------------------------------------------

    def compare(
        self,
        cmd: Sequence[str] | Mapping[str, Any] | Iterable[str] | Profile | None,
        settings: Mapping[str, Any] | Iterable[str] | Measure | None = None,
        *,
        profile: str | None = None,
        variables: Mapping[str, str] | None = None,
        rounds: int = 10,
        warmup: int = 1,
        metric: str | None = None,
        higher_is_better: bool = False,
        plot: StrPath | None = None,
        log: StrPath | None = None,
        seed: int = 1,
        order: str = "abba",
        name: str | None = None,
    ) -> CompareResult:
        """What ``perftune compare`` does: run ``cmd`` (an argument list,
        never a shell) ``rounds`` times in the machine's state and as many
        times with the change, ``settings`` (``{key: value}`` or
        ``"KEY=VALUE"`` strings) or ``profile`` (with ``variables``), which
        is applied around each tuned run only and always restored.  The
        measure is cmd's wall time, or the last number ``metric`` (a regex
        with one group) finds in its output.  Returns the report
        (:class:`CompareResult`: per state n, median, samples; change_pct,
        ci95, p_value, verdict).  The change is validated first, as
        :meth:`transaction` and :meth:`apply` do (PerftuneError, nothing
        changed); the experiment itself is the perftune program's
        (:func:`perftune_program`): PerftuneValueError (EINVAL) for what it
        refuses before changing anything, PerftuneError ECANCELED when it
        stopped (cmd failed; the machine is restored).

        ``compare(change, fn)``, with a callable as the second argument,
        measures ``fn`` in this process instead, through the library's
        experiment engine: ``fn()`` is called once per run and returns the
        measure (a finite real number), with the change in force exactly
        during the tuned runs (the library commits it as a held transaction
        just before the call and rolls it back right after).  ``change`` is
        ``{key: value}``, ``"KEY=VALUE"`` strings, a :class:`Profile`
        (:meth:`load_profile`), or None with ``profile=`` (and
        ``variables``).  ``metric``, ``plot`` and ``log`` are for a command
        only.  The change and the options are checked before fn is called
        (PerftuneError, nothing changed).  An exception in fn (KeyboardInterrupt
        too) stops the experiment: the change is given back, no journal is
        left, and the exception is raised again.  The report has fn's
        qualified name as ``metric`` and the wall and CPU seconds (of the
        calling thread) of each call."""
        self._handle()
        if callable(settings):
            if metric is not None or plot is not None or log is not None:
                raise TypeError("compare(change, fn): metric, plot and log are for a command; "
                                "fn returns the measure")
            return self._compare_fn(cmd, settings, profile, variables, name, dict(
                rounds=rounds, warmup=warmup, order=order, seed=seed,
                higher_is_better=higher_is_better))
        if (profile is None) == (settings is None):
            raise TypeError("compare() takes either settings or profile=, not both or neither")
        if isinstance(cmd, str):
            raise TypeError("cmd must be a list of arguments, not a str (no shell is used)")
        args = [_text("cmd", a) for a in cmd]
        if settings is None:
            items: list[str] = []
            self.apply(_text("profile", profile), variables, name="perftune-py-compare-check",
                       dry_run=True, hold=True).transaction.close()
        else:
            if isinstance(settings, Mapping):
                pairs = [(_text("key", k), _value(v)) for k, v in settings.items()]
            else:
                pairs = [tuple(_text("setting", s).partition("=")[::2]) for s in settings]
            items = [f"{k}={v}" for k, v in pairs]
            with self.transaction("perftune-py-compare-check", hold=True, dry_run=True) as tx:
                try:
                    for k, v in pairs:
                        tx.set(k, v)
                    tx.commit()
                finally:
                    tx.close()
        opts = dict(rounds=rounds, warmup=warmup, metric=metric, seed=seed, order=order,
                    name=name, profile=profile, variables=variables,
                    higher_is_better=higher_is_better,
                    plot=None if plot is None else _path("plot", plot),
                    log=None if log is None else _path("log", log))
        return run_compare(compare_argv(perftune_program(), self.root, self.journal_dir, args,
                                        items, opts))

    def _compare_fn(self, change: Any, fn: Measure, profile: str | None,
                    variables: Mapping[str, str] | None, name: str | None,
                    opts: dict[str, Any]) -> CompareResult:
        """compare(change, fn): the change into a library experiment, run."""
        if (profile is None) == (change is None):
            raise TypeError("compare(change, fn) takes either a change or profile=, not both or neither")
        if isinstance(change, (str, bytes)):
            raise TypeError("change must be {key: value}, KEY=VALUE strings or a Profile, not a "
                            f"{type(change).__name__}")
        loaded = self.load_profile(_text("profile", profile), variables) if profile else None
        _rc, exp = self._call(_lib.perftune_experiment_new,
                              None if name is None else _text("name", name))
        try:
            p = loaded or change
            if isinstance(p, Profile):
                self._call(lambda _c: _lib.perftune_experiment_set_profile(exp, p._handle()))
            else:
                if isinstance(change, Mapping):
                    pairs = [(_text("key", k), _value(v)) for k, v in change.items()]
                else:
                    pairs = [self.split_setting(s) for s in change]
                for k, v in pairs:
                    self._call(lambda _c, k=k, v=v: _lib.perftune_experiment_set(exp, k, v))
            # p (the Profile the experiment borrows) is alive until the run ends
            return run_experiment(exp, self._ptr, fn, **opts)
        finally:
            _lib.perftune_experiment_free(exp)
            if loaded is not None:
                loaded.close()

    # ---- Prometheus ----------------------------------------------------------

    def status_metrics(self) -> str:
        """:meth:`status` as Prometheus metrics in node_exporter's textfile
        format, as ``perftune status --format prometheus``: per key
        ``perftune_tunable_in_force`` and ``perftune_tunable_drift``, per
        transaction held/orphaned/committed, ``perftune_holds``,
        ``perftune_orphaned_journals``, counts per state."""
        _rc, text = self._call(_lib.perftune_status_metrics, 0)
        return str(text)

    def write_status_metrics(self, path: StrPath) -> None:
        """Write :meth:`status_metrics` to ``path`` with :meth:`write_file`,
        as ``perftune status --format prometheus -o PATH``."""
        self.write_file(path, self.status_metrics())

    def write_file(self, path: StrPath, text: str) -> None:
        """Write ``text`` to ``path`` as a whole new file of mode 0644
        (``perftune_output_write_file``), as ``perftune ... -o PATH``: a file
        made beside ``path`` and renamed over it, so a reader never sees half
        of it and nothing at ``path`` is written through.  As that command
        (perftune(8), OUTPUT FILES), PerftuneError EPERM for a symbolic link,
        a directory, a FIFO, a socket or a block device at ``path``, and for
        a file of another user in a sticky directory that others may write; a
        character device (``/dev/null``) is written in place.  The path is
        taken as given, not below the context's root."""
        self._call(_lib.perftune_output_write_file, _path("path", path), text, 0o644)

    # ---- from the perftune program ------------------------------------------

    def split_setting(self, setting: str) -> tuple[str, str]:
        """A ``"KEY=VALUE"`` setting as (key, value), split where ``perftune
        set`` splits it: at the first ``=`` outside the key's brackets
        (``"net[driver=ixgbe].txqueuelen=1000"``).  PerftuneValueError
        ("'SETTING' is not KEY=VALUE") if there is none or the key is empty."""
        _rc, key, value = self._call(_lib.perftune_setting_split, _text("setting", setting))
        return str(key), str(value)

    def metric(self, regex: str) -> Metric:
        """A :class:`Metric`: the number ``regex`` (POSIX extended, exactly
        one capture group) finds in a command's output, as ``perftune compare
        --metric REGEX``.  PerftuneValueError naming the regex if it does
        not compile or has not one group."""
        _rc, ptr = self._call(_lib.perftune_metric_new, _text("regex", regex))
        return Metric(self, ptr)

    def open_log(self, path: StrPath, mode: int = 0o644) -> int:
        """A log at ``path`` as ``perftune compare --log`` makes it: a new
        empty file made beside the path and renamed over it (the refusals of
        :meth:`write_file`), or a character device opened in place.  Returns
        a file descriptor in append mode, close-on-exec, yours to close: a
        command's stdout and stderr and your own lines may share it."""
        return int(self._call(_lib.perftune_output_open_log, _path("path", path), mode))

    # ---- NUMA placement ------------------------------------------------------

    def popen(
        self,
        nodes: str,
        args: Sequence[str],
        policy: MemPolicy | int = MemPolicy.LOCAL,
        **kwargs: Any,
    ) -> subprocess.Popen[Any]:
        """Start ``args`` on the CPUs of NUMA ``nodes`` (``"0"``, ``"0-1"``)
        with memory ``policy``, as ``perftune exec --nodes NODES -- ARGS``:
        a :class:`subprocess.Popen` (``kwargs`` go to it) the caller waits
        on.  The node list is checked first (PerftuneError: EINVAL bad list
        or policy, ENODEV no such node, EOPNOTSUPP no NUMA); the placement
        happens in the child before it executes ``args``, and is inherited
        by everything it starts.  The placement is of a real process, so it
        is checked on this machine whatever the context's root."""
        if "preexec_fn" in kwargs:
            raise TypeError("popen() places the child in its own preexec_fn")
        self._handle()
        try:
            pol = MemPolicy(policy)
        except ValueError:
            raise error_from_errno(
                -22, f"memory policy {policy} is not one of local, bind, preferred, interleave"
            ) from None
        nodes = _text("nodes", nodes)
        real = Context()  # libnuma reads the real /sys: check and place on "/"
        with real.transaction("perftune-py-exec-check", dry_run=True) as tx:
            try:
                tx.set(f"proc.{os.getpid()}.numa_nodes", nodes)
            finally:
                tx.close()
        ptr = real._ptr

        def place() -> None:  # in the child, between fork and exec
            rc = _lib.perftune_numa_place_self(ptr, nodes, int(pol))
            if rc < 0:
                raise error_from_errno(rc, _lib.perftune_ctx_last_error(ptr))

        try:
            return subprocess.Popen(args, preexec_fn=place, **kwargs)
        finally:
            real.close()


def _release_tx(ptr: Any, pid: int) -> None:
    # a committed HOLD transaction rolls back here (the C unref only frees);
    # not in a forked child, which would give back what its parent still holds
    if os.getpid() == pid:
        _lib.perftune_tx_release(ptr)
        _lib.perftune_tx_unref(ptr)


class Transaction:
    """A named, all-or-nothing set of changes (from :meth:`Context.transaction`).

    As a context manager::

        with ctx.transaction("mydb") as tx:
            tx.set("block.sda.scheduler", "mq-deadline")
            tx.set("thp.enabled", "never")
        # committed here; an exception in the block rolls back instead

    On normal exit of the block, the staged values are committed (unless
    commit() or rollback() was already called).  On an exception, a
    committed transaction is rolled back and an uncommitted one discarded,
    and the exception propagates.  If that rollback itself fails, its
    PerftuneError is raised, chained to the original exception.

    A committed transaction stays in force after the block, until
    :meth:`Context.restore` of its name or :meth:`rollback`; a HOLD
    transaction only as long as this object lives (or until close()).
    """

    def __init__(
        self,
        ctx: Context,
        name: str = "default",
        *,
        hold: bool = False,
        dry_run: bool = False,
        allow_partial: bool = False,
    ) -> None:
        flags = (
            (_lib.PERFTUNE_TX_HOLD if hold else 0)
            | (_lib.PERFTUNE_TX_DRY_RUN if dry_run else 0)
            | (_lib.PERFTUNE_TX_ALLOW_PARTIAL if allow_partial else 0)
        )
        _rc, ptr = ctx._call(_lib.perftune_tx_new, _text("name", name), flags)
        self._name = name
        self._ctx = ctx  # keeps the log callback (and so the C context) alive
        self._ctx_ptr = ctx._ptr  # valid while the C tx lives: it holds a reference
        self._ptr: Any = ptr
        self._finalizer = weakref.finalize(self, _release_tx, ptr, os.getpid())
        self._hold = hold
        self._dry_run = dry_run
        self._committed = False  # a real commit succeeded and was not rolled back
        self._finished = False  # commit, rollback or close happened: nothing left to do
        self._lock = threading.RLock()  # this transaction's state, not the context's

    # ---- plumbing ----------------------------------------------------------

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        with self._lock:
            if not self._finalizer.alive:
                raise ValueError(f"operation on a closed perftune Transaction '{self.name}'")
            r = fn(self._ptr, *args)
            rc = r[0] if isinstance(r, tuple) else r
            if rc < 0:
                raise error_from_errno(rc, _lib.perftune_ctx_last_error(self._ctx_ptr))
        return r

    # ---- properties --------------------------------------------------------

    @property
    def name(self) -> str:
        """The transaction (and journal) name."""
        return self._name

    @property
    def committed(self) -> bool:
        """True after a successful commit, until rollback (never for dry runs)."""
        return self._committed

    @property
    def dry_run(self) -> bool:
        return self._dry_run

    @property
    def hold(self) -> bool:
        return self._hold

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __repr__(self) -> str:
        state = "closed" if self.closed else "committed" if self._committed else "open"
        return f"<perftune.Transaction {self.name!r} {state}>"

    # ---- operations --------------------------------------------------------

    def set(self, key: str, value: str | int | bool) -> int:
        """Validate ``value`` for ``key`` and stage it; nothing is written yet.
        ``value`` is a str as the kernel shows it, an int (``10`` is ``"10"``)
        or a bool (``True`` is ``"1"``, ``False`` is ``"0"``; a key whose
        values are words, such as ``thp.enabled``, refuses those with its
        choices).  Aliases are mapped (scheduler ``deadline`` ->
        ``mq-deadline``); a glob stages every tunable it matches.  Returns the
        number staged."""
        return int(self._call(_lib.perftune_tx_set, _text("key", key), _value(value)))

    def replace(self, old: str) -> None:
        """Make this transaction, when committed, take the place of the
        committed or held transaction ``old`` without a gap: keys both set go
        straight from ``old``'s value to the new one, keys only this one sets
        are journaled and written, keys only ``old`` set go back to their
        originals (:meth:`changes` lists them with ``ItemFlag.GIVEN_BACK``),
        and ``old``'s originals move to this transaction's journal in one
        step, so a restore after a kill at any point gives back the machine's
        originals.  A live holder of ``old`` in another process is sent
        SIGTERM and ends without writing; a :class:`Transaction` of ``old``
        in this process gives back nothing afterwards (close it: its PM QoS
        requests end then).  Raises (nothing changed) if ``old`` is not in
        force (PerftuneError ENOENT, EBUSY: its commit did not complete) or
        another transaction has this one's name (EBUSY)."""
        self._call(_lib.perftune_tx_replace, _text("old", old))

    def apply_profile(self, profile: Profile, strict: bool = False) -> int:
        """Map ``profile`` again against the machine as it is now and stage
        every mapped option (nothing is written before commit).  All options
        are validated before any is staged.  ``strict``: a skipped option is
        an error (EOPNOTSUPP).  In a HOLD transaction, force_latency maps to
        the PM QoS request.  Returns the number of tunables staged."""
        if not isinstance(profile, Profile):
            raise TypeError(f"profile must be a Profile, not {type(profile).__name__}")
        flags = (_lib.PERFTUNE_PROFILE_STRICT if strict else 0) | (
            _lib.PERFTUNE_PROFILE_HOLD if self._hold else 0
        )
        with self._lock:
            if not self._finalizer.alive:
                raise ValueError(f"operation on a closed perftune Transaction '{self.name}'")
            rc = _lib.perftune_profile_stage(profile._handle(), self._ptr, flags)
            if rc < 0:  # the message is in the profile's context
                raise error_from_errno(rc, _lib.perftune_ctx_last_error(profile._ctx_ptr))
        return int(rc)

    def commit(self) -> int:
        """Journal the originals, write every staged value, read each back.
        On failure the library restores every key it wrote, and this raises
        naming the failing key.  Returns the number of tunables written (for
        a dry run: that would be written)."""
        n = int(self._call(_lib.perftune_tx_commit))
        self._finished = True
        self._committed = not self._dry_run
        return n

    def rollback(self) -> int:
        """Restore every key of the committed transaction and remove its
        journal.  On a transaction that was never committed, discard what
        was staged (and close it).  Returns the number of keys written back."""
        if not self._committed:
            self.close()
            return 0
        n = int(self._call(_lib.perftune_tx_rollback))
        self._committed = False
        self._finished = True
        return n

    def watch(self) -> int:
        """Follow devices added while this HOLD transaction is held: a file
        descriptor that becomes readable when block or network devices come
        or go (poll it, ``selectors``, ``asyncio``'s ``add_reader``), then
        call :meth:`dispatch`.  The rules are those of the commit: keys
        given with a glob, a staged profile's ``devices=`` and the rest.
        The descriptor is the transaction's: do not close it.  Below another
        root, events are lines ``ACTION SUBSYSTEM NAME`` written to that
        root's FIFO ``run/perftune-uevents``.  Raises ValueError (not a
        held transaction), OSError (EALREADY: not committed)."""
        return int(self._call(_lib.perftune_tx_watch))

    def fileno(self) -> int:
        """:meth:`watch`'s descriptor, so that the transaction itself can be
        given to ``select`` and ``selectors``."""
        return self.watch()

    def dispatch(self) -> int:
        """Handle every pending event of :meth:`watch` without waiting: a
        device added that the rules select gets its settings (journaled,
        read back, restored with the rest; :attr:`StatusEntry.hotplug`); one
        that refuses is given back alone and listed by :meth:`Context.status`
        (:attr:`StatusEntry.refused`).  Returns the number of devices tuned."""
        return int(self._call(_lib.perftune_tx_dispatch))

    def changes(self) -> List[Change]:
        """The staged tunables: key, old and new value, flags, note.
        ``old`` is known after commit (or a dry run)."""
        _rc, it = self._call(_lib.perftune_tx_changes)
        return _drain(
            "change",
            it,
            lambda c: Change(
                key=_str(_lib.perftune_change_key(c)),
                old=_lib.perftune_change_old_value(c),
                new=_lib.perftune_change_new_value(c),
                flags=ItemFlag(_lib.perftune_change_flags(c)),
                note=_lib.perftune_change_note(c) or None,
            ),
        )

    def conflicts(self) -> List[Source]:
        """What will undo this transaction: for each key it wrote (a dry
        run: each key it would write), the last persistent source in effect
        that sets another value -- a sysctl.d line, a udev rule, TuneD's
        profile -- in the order of :meth:`changes`; :attr:`Source.key` is
        the change's key.  ``perftune set`` and ``apply`` warn with them."""
        flags = _lib.PERFTUNE_CONFLICTS_STAGED if self._dry_run else 0
        with self._lock:
            if not self._finalizer.alive:
                raise ValueError(f"operation on a closed perftune Transaction '{self.name}'")
            rc, it = _lib.perftune_tx_conflicts(self._ctx_ptr, self._ptr, flags)
            if rc < 0:
                raise error_from_errno(rc, _lib.perftune_ctx_last_error(self._ctx_ptr))
        return _drain("source", it, source_from_c)

    def report(
        self, profile: Profile | None = None, json: bool = False
    ) -> Tuple[str, str | None]:
        """What ``perftune set`` prints of this transaction after its commit
        (with the ``profile`` staged into it: ``perftune apply``), as
        ``(text, warnings)``.  ``text``: a line ``key: old -> new`` per key
        written (a dry run: per key staged), with a profile a line per
        option skipped or kept; ``warnings``: a line ``warning: key: kind
        location puts back value (note)`` per key that a persistent source
        will put back (:meth:`conflicts`; ``perftune`` prints them on
        stderr), or None.  ``json``: the object of ``perftune set --json``
        (``apply --json``), the warnings a member of it and ``warnings``
        None."""
        if profile is not None and not isinstance(profile, Profile):
            raise TypeError(f"profile must be a Profile, not {type(profile).__name__}")
        flags = _lib.PERFTUNE_REPORT_JSON if json else 0
        p = None if profile is None else profile._handle()
        _rc, text, warnings = self._call(_lib.perftune_tx_report, p, flags)
        return str(text), warnings

    def close(self) -> None:
        """Release the transaction.  Staged values are dropped; committed
        values stay in force, except those of a HOLD transaction, which are
        restored (a hold ends with its transaction)."""
        with self._lock:
            if self._finalizer.alive:
                # the end of a hold has a result: a failed rollback raises, the
                # journal is kept and the transaction stays open (close again)
                rc = _lib.perftune_tx_release(self._ptr)
                if rc < 0:
                    raise error_from_errno(rc, _lib.perftune_ctx_last_error(self._ctx_ptr))
                self._finalizer()
                self._finished = True
                if self._hold:
                    self._committed = False

    # ---- context manager ---------------------------------------------------

    def __enter__(self) -> Transaction:
        if self.closed:
            raise ValueError(f"perftune Transaction '{self.name}' is closed")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            if not self._finished:
                try:
                    self.commit()
                except BaseException:
                    self.close()  # the library already gave back what it wrote
                    raise
            return
        try:
            if self._committed:
                self.rollback()
            else:
                self.close()
        except PerftuneError as err:
            raise err from exc
