# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plain values returned by Context and Transaction."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, List, NamedTuple

from . import _perftune as _lib

__all__ = [
    "Applied",
    "Change",
    "Check",
    "CheckStatus",
    "Source",
    "SourceFlag",
    "Description",
    "ExportFormat",
    "ItemFlag",
    "LogPriority",
    "MemPolicy",
    "ProfileInfo",
    "ProfileItem",
    "StatusEntry",
    "Tunable",
]


class ItemFlag(enum.IntFlag):
    """Flags of a change (``PERFTUNE_CHANGE_*``), a status entry
    (``PERFTUNE_STATUS_*``) or a profile item (``PERFTUNE_PROFILE_ITEM_*``):
    one bit each, no two alike."""

    DRIFT = _lib.PERFTUNE_STATUS_DRIFT
    """the current value differs from what the transaction wrote"""
    ORPHANED = _lib.PERFTUNE_STATUS_ORPHANED
    """the transaction's holder process is gone"""
    HELD = _lib.PERFTUNE_STATUS_HELD
    """the transaction is held by a live process"""
    WRITTEN = _lib.PERFTUNE_CHANGE_WRITTEN
    """the key was written (not just journaled)"""
    UNCHANGED = _lib.PERFTUNE_CHANGE_UNCHANGED
    """staged but already at the value: no write"""
    GIVEN_BACK = _lib.PERFTUNE_CHANGE_GIVEN_BACK
    """a key only the replaced transaction had, given back to its original
    (:meth:`Transaction.replace`): old is that transaction's value"""
    COMMITTED = _lib.PERFTUNE_STATUS_COMMITTED
    """the transaction's commit completed"""
    SHADOWED = _lib.PERFTUNE_STATUS_SHADOWED
    """a later live transaction also changed the key"""
    GONE = _lib.PERFTUNE_STATUS_GONE
    """the key's object is gone for good (another process has its pid, another
    device its name: the note says which); restore drops it unwritten"""
    MOVED = _lib.PERFTUNE_STATUS_MOVED
    """the key's object goes by another key now (a renamed NIC: the note names
    it); restore writes the original there"""
    HOTPLUG = _lib.PERFTUNE_STATUS_HOTPLUG
    """written for a device added while the transaction was held
    (:meth:`Transaction.dispatch`)"""
    REFUSED = _lib.PERFTUNE_STATUS_REFUSED
    """not a key: a device added while the transaction was held that refused
    its settings (``key`` names the device, ``note`` says why)"""
    READONLY = _lib.PERFTUNE_TUNABLE_READONLY
    """a listed tunable whose kernel file is read-only (``sysctl.kernel.ostype``)"""
    SKIPPED = _lib.PERFTUNE_PROFILE_ITEM_SKIPPED
    """a profile option that is not applied (the note says why)"""


class ExportFormat(enum.IntEnum):
    """``PERFTUNE_EXPORT_*``: formats of :meth:`Context.export` and
    :meth:`Profile.export`."""

    SYSCTL = _lib.PERFTUNE_EXPORT_SYSCTL
    """a sysctl.d(5) file: sysctl.*, hugepages.nr, numa.balancing"""
    UDEV = _lib.PERFTUNE_EXPORT_UDEV
    """a udev rules file: block.*.<queue attribute>"""
    CMDLINE = _lib.PERFTUNE_EXPORT_CMDLINE
    """a kernel command line fragment: huge pages, THP, NUMA"""
    TUNED = _lib.PERFTUNE_EXPORT_TUNED
    """a TuneD profile (tuned.conf)"""


class MemPolicy(enum.IntEnum):
    """Memory policy of a process placed on NUMA nodes (:meth:`Context.popen`)."""

    LOCAL = _lib.PERFTUNE_MEM_LOCAL
    """allocate on the node the thread runs on (default)"""
    BIND = _lib.PERFTUNE_MEM_BIND
    """only from the given nodes (``--membind``)"""
    PREFERRED = _lib.PERFTUNE_MEM_PREFERRED
    """from the first given node first (``--preferred``)"""
    INTERLEAVE = _lib.PERFTUNE_MEM_INTERLEAVE
    """round-robin over the given nodes (``--interleave``)"""


class LogPriority(enum.IntEnum):
    """``PERFTUNE_LOG_*``: syslog(3) priorities of log messages."""

    ERR = _lib.PERFTUNE_LOG_ERR
    WARNING = _lib.PERFTUNE_LOG_WARNING
    NOTICE = _lib.PERFTUNE_LOG_NOTICE
    INFO = _lib.PERFTUNE_LOG_INFO
    DEBUG = _lib.PERFTUNE_LOG_DEBUG


class Tunable(NamedTuple):
    """One existing tunable, as listed by :meth:`Context.list`.

    ``value`` is None when the tunable exists but cannot be read (permission);
    ``read_only`` is True for a read-only sysctl (``sysctl.kernel.ostype``).
    """

    key: str
    value: str | None
    note: str | None = None
    read_only: bool = False


class Reading(NamedTuple):
    """One tunable a key names, read on its own by :meth:`Context.get_each`.

    ``value`` is None when it cannot be read, ``note`` then says why (the
    library's message, naming ``key``) and ``absent`` is True if it is not
    here (a disk without the attribute) rather than unreadable (permission).
    """

    key: str
    value: str | None
    note: str | None = None
    absent: bool = False


@dataclass(frozen=True)
class Description:
    """What :meth:`Context.describe` knows about one tunable."""

    key: str
    """the concrete key (a selector resolved to one tunable)"""
    value: str | None
    """the current value, None if it cannot be read"""
    path: str | None
    """the kernel file behind it"""
    choices: list[str] | None
    """allowed values of a selection, None if not a selection"""
    min: int | None
    """lowest allowed number, None if the value is not a number in a range"""
    max: int | None
    """highest allowed number, None if the value is not a number in a range"""
    unit: str | None
    """``kB``, ``us``, ``pages``, ... or None"""
    writable: bool
    """whether a transaction can set it"""
    reason: str | None
    """why it is not writable, or None"""
    info: str | None
    """extra facts (aliases, side effects), or None"""
    unreadable: str | None = None
    """why the value cannot be read (``"Input/output error"``), or None"""


@dataclass(frozen=True)
class Change:
    """One staged tunable of a transaction (:meth:`Transaction.changes`)."""

    key: str
    old: str | None
    """the value before the commit (known after commit or a dry run)"""
    new: str | None
    """the exact value written (aliases already mapped)"""
    flags: ItemFlag
    """UNCHANGED (already at the value), WRITTEN"""
    note: str | None
    """alias mapping, resolution, skip reason"""

    @property
    def unchanged(self) -> bool:
        """True if the key already had the value: nothing is written."""
        return bool(self.flags & ItemFlag.UNCHANGED)

    @property
    def written(self) -> bool:
        """True if the commit wrote the key."""
        return bool(self.flags & ItemFlag.WRITTEN)


@dataclass(frozen=True)
class StatusEntry:
    """One key of one journaled transaction (:meth:`Context.status`).

    A journal the library cannot read shows up as one entry with an empty
    ``key`` and the cause in ``note``.
    """

    name: str
    """the transaction name"""
    key: str
    old: str | None
    """the original value, written back by restore"""
    written: str | None
    """the value the transaction wrote"""
    current: str | None
    """the value on the machine now, None if it cannot be read"""
    pid: int
    """the holder process (held or orphaned transactions), else 0"""
    flags: ItemFlag
    note: str | None

    @property
    def drift(self) -> bool:
        """True if the value was changed behind perftune's back."""
        return bool(self.flags & ItemFlag.DRIFT)

    @property
    def orphaned(self) -> bool:
        """True if the transaction's holder process is gone."""
        return bool(self.flags & ItemFlag.ORPHANED)

    @property
    def held(self) -> bool:
        """True if a live process holds the transaction."""
        return bool(self.flags & ItemFlag.HELD)

    @property
    def committed(self) -> bool:
        """True if the transaction's commit completed."""
        return bool(self.flags & ItemFlag.COMMITTED)

    @property
    def gone(self) -> bool:
        """True if the key's object is gone for good (another process has its
        pid, another device its name: ``note`` says which): restore drops it
        without writing it."""
        return bool(self.flags & ItemFlag.GONE)

    @property
    def moved(self) -> bool:
        """True if the key's object goes by another key now (a renamed NIC:
        ``note`` names it): restore writes the original there."""
        return bool(self.flags & ItemFlag.MOVED)

    @property
    def hotplug(self) -> bool:
        """True if the key was written for a device added while the
        transaction was held."""
        return bool(self.flags & ItemFlag.HOTPLUG)

    @property
    def refused(self) -> bool:
        """True if this entry is a device added while the transaction was
        held that refused its settings: ``key`` names the device
        (``block.sdd``), ``note`` says why, ``original`` is None."""
        return bool(self.flags & ItemFlag.REFUSED)


@dataclass(frozen=True)
class ProfileItem:
    """One option of a profile and what it maps to (:meth:`Profile.items`)."""

    option: str
    """the option, e.g. ``[disk] readahead``"""
    key: str | None
    """the key it maps to; None for some skipped options"""
    value: str | None
    """the value as validated (``deadline`` reads ``mq-deadline``)"""
    raw: str | None
    """the value as written in the profile"""
    origin: str | None
    """where: ``/usr/lib/tuned/x/tuned.conf:12``"""
    flags: ItemFlag
    """SKIPPED (not applied), UNCHANGED (a >N/<N value already satisfied)"""
    note: str | None
    """why it is skipped, or a remark"""

    @property
    def skipped(self) -> bool:
        """True if the option is not applied (the note says why)."""
        return bool(self.flags & ItemFlag.SKIPPED)

    @property
    def unchanged(self) -> bool:
        """True if a conditional value is already satisfied."""
        return bool(self.flags & ItemFlag.UNCHANGED)


@dataclass(frozen=True)
class ProfileInfo:
    """A profile on the search path (:meth:`Context.profiles`)."""

    name: str
    path: str
    """its tuned.conf"""
    summary: str | None
    note: str | None
    """why it cannot be read, or None"""
    variables: tuple[str, ...] = ()
    """the ``${name}`` variables it uses (its includes' too)"""
    unset_variables: tuple[str, ...] = ()
    """those neither the profile nor its variables file defines: the
    options that use them are skipped unless ``variables=`` sets them"""


class SourceFlag(enum.IntFlag):
    """``PERFTUNE_SOURCE_*``: flags of a :class:`Source`."""

    WINS = _lib.PERFTUNE_SOURCE_WINS
    """the last of its kind: the one in effect"""
    OVERRIDDEN = _lib.PERFTUNE_SOURCE_OVERRIDDEN
    """a later line or file of its kind sets the key again"""
    PERSISTENT = _lib.PERFTUNE_SOURCE_PERSISTENT
    """puts its value back at boot or when a daemon re-applies"""
    DIFFERS = _lib.PERFTUNE_SOURCE_DIFFERS
    """its value is not the value compared with (the value now by default)"""
    ERROR = _lib.PERFTUNE_SOURCE_ERROR
    """a file that cannot be read: the note says why"""


@dataclass(frozen=True)
class Source:
    """Something on the machine that sets a key (:meth:`Context.why`)."""

    kind: str
    """``cmdline``, ``sysctl.d``, ``udev``, ``tuned``, ``daemon`` or ``transaction``"""
    key: str
    location: str
    """``file:line``, ``/proc/cmdline``, ``tuned (pid 812)``, a transaction's name"""
    value: str | None
    """the value it sets, None for a daemon or a file that cannot be read"""
    note: str | None
    flags: SourceFlag
    pid: int
    """a running daemon's or a transaction holder's pid, else 0"""

    @property
    def wins(self) -> bool:
        """True for the last source of its kind (the one in effect)."""
        return bool(self.flags & SourceFlag.WINS)

    @property
    def persistent(self) -> bool:
        """True if it puts its value back at boot or when re-applied."""
        return bool(self.flags & SourceFlag.PERSISTENT)

    @property
    def differs(self) -> bool:
        """True if its value is not the value compared with."""
        return bool(self.flags & SourceFlag.DIFFERS)


class CheckStatus(enum.IntEnum):
    """``PERFTUNE_CHECK_*``: what verify found for one setting."""

    IN_FORCE = _lib.PERFTUNE_CHECK_IN_FORCE
    DIFFERS = _lib.PERFTUNE_CHECK_DIFFERS
    CLAMPED = _lib.PERFTUNE_CHECK_CLAMPED
    NOT_HERE = _lib.PERFTUNE_CHECK_NOT_HERE
    NEEDS_REBOOT = _lib.PERFTUNE_CHECK_NEEDS_REBOOT
    SKIPPED = _lib.PERFTUNE_CHECK_SKIPPED

    def __str__(self) -> str:
        return str(_lib.perftune_check_status_name(int(self)))


@dataclass(frozen=True)
class Check:
    """One setting checked by :meth:`Context.verify` and friends."""

    key: str
    """the concrete key, or the profile's option when it maps to none"""
    status: CheckStatus
    expected: str | None
    current: str | None
    reason: str | None
    """why not in force, not here or skipped"""
    origin: str | None
    """the profile's ``file:line`` or ``transaction NAME``"""

    @property
    def in_force(self) -> bool:
        """True if the setting reads back its expected value."""
        return self.status == CheckStatus.IN_FORCE


def source_from_c(s: Any) -> Source:
    """A Source from the C object (perftune_source_iter_next())."""
    return Source(
        kind=_lib.perftune_source_kind(s) or "",
        key=_lib.perftune_source_key(s) or "",
        location=_lib.perftune_source_location(s) or "",
        value=_lib.perftune_source_value(s),
        note=_lib.perftune_source_note(s) or None,
        flags=SourceFlag(_lib.perftune_source_flags(s)),
        pid=_lib.perftune_source_pid(s),
    )


def check_from_c(c: Any) -> Check:
    """A Check from the C object (perftune_check_iter_next())."""
    return Check(
        key=_lib.perftune_check_key(c) or "",
        status=CheckStatus(_lib.perftune_check_status(c)),
        expected=_lib.perftune_check_expected(c),
        current=_lib.perftune_check_current(c),
        reason=_lib.perftune_check_reason(c),
        origin=_lib.perftune_check_origin(c),
    )


@dataclass(frozen=True)
class Applied:
    """The result of :meth:`Context.apply` (``perftune apply``)."""

    transaction: Any
    """the committed :class:`Transaction`; close() it when done (a HOLD one
    is then rolled back, any other stays in force until restore)"""
    profile: str
    """the profile's name"""
    path: str
    """the tuned.conf that was loaded"""
    written: int
    """tunables written (for a dry run: that would be)"""
    changes: List[Change]
    """every staged key, old -> new"""
    skipped: List[ProfileItem]
    """the options not applied on this machine, with the reason in ``note``"""
