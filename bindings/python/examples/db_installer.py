#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A database installer that tunes the machine for its data disks, then fails
in a later step: the transaction gives every value back.

    db_installer.py [--name NAME] [--hugepages N] DISK...

DISK is a kernel name (sdb, nvme1n1) or a path (/dev/sdb, /dev/mapper/data,
/var/lib/db).  As root.  For each disk: scheduler mq-deadline and four times
its read-ahead; then at least N 2 MiB huge pages and transparent huge pages
off.  The "initialize the database" step always fails here, to show the
rollback: the script prints the values before, while tuned, and after, and
exits 1 (0 never: this installer cannot succeed).  Exit 2: the values after
the rollback differ from those before (never expected).
"""

from __future__ import annotations

import argparse
import sys

import perftune


def disk_key(disk: str, attr: str) -> str:
    """block.sdb.scheduler, or block[/dev/sdb].scheduler for a path."""
    return f"block[{disk}].{attr}" if "/" in disk else f"block.{disk}.{attr}"


def snapshot(ctx: perftune.Context, keys: list[str]) -> dict[str, str]:
    return {k: ctx.get(k) for k in keys}


def show(title: str, values: dict[str, str]) -> None:
    print(f"{title}:")
    for key, value in values.items():
        print(f"  {key:<40} {value}", flush=True)


def initialize_database(disks: list[str]) -> None:
    """The installer's real work.  Here: a step that fails."""
    raise RuntimeError(f"initdb on {', '.join(disks)} failed: out of disk space (simulated)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("disks", metavar="DISK", nargs="+")
    ap.add_argument("--name", default="db-installer", help="transaction name")
    ap.add_argument("--hugepages", type=int, default=16, help="2 MiB huge pages to reserve")
    args = ap.parse_args()

    ctx = perftune.Context()
    keys = [disk_key(d, a) for d in args.disks for a in ("scheduler", "read_ahead_kb")]
    keys += ["hugepages.2M.nr", "thp.enabled"]
    before = snapshot(ctx, keys)
    show("before", before)

    try:
        with ctx.transaction(args.name) as tx:
            for d in args.disks:
                tx.set(disk_key(d, "scheduler"), "mq-deadline")
                ra = int(before[disk_key(d, "read_ahead_kb")])
                tx.set(disk_key(d, "read_ahead_kb"), str(ra * 4))
            pages = max(int(before["hugepages.2M.nr"]), args.hugepages)
            tx.set("hugepages.2M.nr", str(pages))
            tx.set("thp.enabled", "never")
            print(f"tuned: {tx.commit()} values written (transaction '{tx.name}')")
            show("tuned", snapshot(ctx, keys))

            initialize_database(args.disks)  # raises: the with-block rolls back
    except perftune.PerftuneError as e:
        # validation or commit failed: the library already restored what it wrote
        print(f"tuning failed, nothing changed: {e}", file=sys.stderr)
        return 1
    except RuntimeError as e:
        print(f"installation failed: {e}", file=sys.stderr)
        print(f"tuning rolled back (journal of '{args.name}' removed)")
    after = snapshot(ctx, keys)
    show("after", after)
    if after != before or any(s.name == args.name for s in ctx.status()):
        print("ERROR: the machine is not as it was", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
