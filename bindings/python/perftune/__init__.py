# SPDX-License-Identifier: LGPL-2.1-or-later
"""libperftune: get, set and restore Linux kernel tunables safely.

One string names one tunable (``block.sda.scheduler``, ``thp.enabled``,
``hugepages.2M.nr``, ``sysctl.vm.dirty_ratio``; see perftune(8)).  Changes go
through named all-or-nothing transactions whose originals are journaled
before every write, so they can be restored even after a crash::

    import perftune

    ctx = perftune.Context()
    with ctx.transaction("mydb") as tx:
        tx.set("block.sda.scheduler", "mq-deadline")
    ...
    ctx.restore("mydb")

Errors are :class:`PerftuneError` (an OSError) with ``errno`` and the
library's one-line message; ENOENT/ENODEV also are FileNotFoundError,
EACCES/EPERM/EROFS PermissionError, EINVAL/ENOTUNIQ/ENAMETOOLONG
ValueError.  The C API itself is in :mod:`perftune._perftune`.
"""

from ._compare import CompareResult, CompareState, perftune_program
from ._context import Context, Transaction, profile_default_path, version
from ._errors import (
    PerftuneError,
    PerftuneNotFound,
    PerftunePermissionError,
    PerftuneValueError,
)
from ._metric import Metric
from ._profile import Profile
from ._types import (
    Applied,
    Change,
    Check,
    CheckStatus,
    Description,
    ExportFormat,
    ItemFlag,
    LogPriority,
    MemPolicy,
    ProfileInfo,
    ProfileItem,
    Reading,
    Source,
    SourceFlag,
    StatusEntry,
    Tunable,
)

__all__ = [
    "Applied",
    "Change",
    "Check",
    "CheckStatus",
    "CompareResult",
    "CompareState",
    "Context",
    "Description",
    "ExportFormat",
    "ItemFlag",
    "LogPriority",
    "MemPolicy",
    "Metric",
    "PerftuneError",
    "PerftuneNotFound",
    "PerftunePermissionError",
    "PerftuneValueError",
    "Profile",
    "ProfileInfo",
    "ProfileItem",
    "Reading",
    "Source",
    "SourceFlag",
    "StatusEntry",
    "Transaction",
    "Tunable",
    "perftune_program",
    "version",
    "profile_default_path",
]

__version__: str = version()
