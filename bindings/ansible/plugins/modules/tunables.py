#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: LGPL-2.1-or-later
# Part of libperftune: licensed LGPL-2.1-or-later like the rest of the project
# (most Ansible content is GPL-3.0-or-later; this collection is not).

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: tunables
short_description: Set Linux kernel tunables in a named, restorable libperftune transaction
version_added: 0.1.0
description:
  - Sets kernel tunables (block queue attributes and schedulers, huge pages,
    transparent huge pages, cpufreq, cpuidle, sysctl, any C(/sys) file) through
    libperftune's Python binding, in one named transaction.
  - A transaction is all-or-nothing. Every original value is journaled before
    it is written, every write is read back, and if any key fails, every key
    already written is given back, so a failed task leaves the host as it was.
    The error names the failing key.
  - With C(state=present), the keys of C(tunables) and of C(profile) are applied.
    Applying the same C(name) again writes only the keys whose value differs
    (C(changed) is false when none does). The keys of earlier runs stay part of
    the transaction, with their first journaled original.
  - With C(state=absent), every key of the transaction C(name) is returned to
    the value it had before the transaction first changed it, and the journal is
    removed. A transaction that does not exist is not an error (C(changed=false)).
  - A C(state=present) run that finds every key already at its value writes
    nothing (C(changed=false)) but records the transaction, empty, as the
    library does; C(state=absent) then removes it (C(changed=true), C(restored=0)).
  - Journals live in C(/run/perftune), which is cleared at boot exactly when the
    tunables reset, so the values this module sets do not persist across a reboot.
    Run it at every boot (or use C(perftune export)) for persistent settings.
  - Key names and values are described in the perftune(8) manual; C(perftune list) and
    M(perftune.perftune.profile_facts) show what a host offers.
author:
  - libperftune developers
requirements:
  - libperftune and its Python binding (C(perftune) module) on the managed host
  - root on the managed host to change kernel files (use C(become))
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: A dry-run transaction validates every value and lists what would change; nothing is written.
  diff_mode:
    support: full
    details: "Shows C(key: old -> new) per key that changes, and C(key: value) lines before and after."
  platform:
    platforms: posix
    details: Linux only.
options:
  name:
    description:
      - The transaction name, also the name of its journal
        (C([A-Za-z0-9_.@-]), at most 64 characters, not starting with C(.) or C(-)).
      - C(state=absent) restores this transaction.
    type: str
    default: ansible
  tunables:
    description:
      - "Keys and the values to set, for example C(block.sda.scheduler: mq-deadline)
        or C(sysctl.vm.swappiness: 10)."
      - Values are strings as the kernel shows them; numbers are turned into
        their decimal text, booleans are refused (quote them).
      - Applied after C(profile), so a key set in both takes the value given here.
    type: dict
  profile:
    description:
      - A profile in TuneD's C(tuned.conf) format, mapped onto this host's keys.
        Nothing in a profile is ever executed; options without a key (C(script=),
        bootloader) are skipped and listed in C(skipped).
      - A name is searched in C($PERFTUNE_PROFILE_PATH) or the default
        directories (C(/etc/tuned), C(/usr/lib/tuned), ...); a value containing
        C(/) is the path of a C(tuned.conf) or of its directory on the managed host.
    type: str
  variables:
    description:
      - Values for the profile's C([variables]), overriding its own.
    type: dict
  strict:
    description:
      - Fail if any option of C(profile) would be skipped.
    type: bool
    default: false
  state:
    description:
      - C(present) applies C(tunables) and C(profile) in transaction C(name).
      - C(absent) restores transaction C(name) and removes its journal.
    type: str
    choices: [present, absent]
    default: present
  allow_partial:
    description:
      - Accept fewer huge pages than asked when the kernel cannot allocate them
        all (the default is to fail and roll back).
    type: bool
    default: false
  force:
    description:
      - With C(state=absent), also restore a transaction that a live process
        holds (C(perftune set --hold)).
    type: bool
    default: false
  journal_dir:
    description:
      - Keep the journals in this directory instead of C($PERFTUNE_JOURNAL_DIR)
        or C(/run/perftune). It is created with mode 0700.
    type: path
notes:
  - Keys that need a holding process (C(pmqos.*)) cannot be set by this module,
    since a module does not outlive its task; use C(perftune set --hold) under systemd.
seealso:
  - module: perftune.perftune.profile_facts
"""

EXAMPLES = r"""
- name: Database disks on mq-deadline with a larger read-ahead, THP off
  perftune.perftune.tunables:
    name: mariadb
    tunables:
      block.sdb.scheduler: mq-deadline
      "block[/var/lib/mysql].read_ahead_kb": 4096
      thp.enabled: never
      sysctl.vm.swappiness: 10
  become: true

- name: Apply a TuneD-format profile with a variable, fail on anything skipped
  perftune.perftune.tunables:
    name: db-profile
    profile: /etc/tuned/mydb
    variables:
      data_disks: sdb,sdc
    strict: true
  become: true

- name: Reserve huge pages, accepting fewer than asked
  perftune.perftune.tunables:
    name: hugepages
    tunables:
      hugepages.2M.nr: 2048
    allow_partial: true
  become: true

- name: Give everything back on uninstall
  perftune.perftune.tunables:
    name: mariadb
    state: absent
  become: true
"""

RETURN = r"""
name:
  description: The transaction name.
  returned: always
  type: str
  sample: mariadb
written:
  description:
    - The number of tunables written (in check mode, that would be written).
  returned: when state=present
  type: int
  sample: 2
restored:
  description:
    - The number of tunables written back by the restore (0 in check mode).
      Keys that a later transaction also changed are handed over to it instead
      of being written.
  returned: when state=absent
  type: int
  sample: 2
changes:
  description:
    - The keys that changed (or would change in check mode), each with its
      value before and after.
  returned: always
  type: list
  elements: dict
  contains:
    key:
      description: The key.
      type: str
      sample: block.sdb.scheduler
    old:
      description: The value before.
      type: str
      sample: none
    new:
      description: The value after.
      type: str
      sample: mq-deadline
    note:
      description: What the library adds (alias mapping, resolution, hand-over), or null.
      type: str
      sample: deadline = mq-deadline on blk-mq
  sample:
    - key: block.sdb.scheduler
      old: none
      new: mq-deadline
      note: null
unchanged:
  description: The keys given that already had their value (nothing written).
  returned: when state=present
  type: list
  elements: str
  sample: [thp.enabled]
skipped:
  description: The options of C(profile) that are not applied, and why.
  returned: when C(profile) is given
  type: list
  elements: dict
  contains:
    option:
      description: The profile option.
      type: str
      sample: "[script] script"
    note:
      description: Why it is skipped.
      type: str
      sample: "a profile never executes anything"
msg:
  description: "One line per change, C(key: old -> new), or what was done."
  returned: always
  type: str
  sample: "block.sdb.scheduler: none -> mq-deadline"
errno:
  description: The errno of the library's error.
  returned: failed
  type: int
  sample: 22
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perftune.perftune.plugins.module_utils.binding import (
    fail_from,
    open_context,
    perftune,
    require_binding,
    value_text,
)


def _diff(name, changes):
    """``key: old -> new`` lines, and before/after texts with one ``key: value`` line per changed key."""
    return {
        "prepared": "".join("%s: %s -> %s\n" % (c["key"], c["old"], c["new"]) for c in changes),
        "before_header": "%s (before)" % name,
        "after_header": "%s (after)" % name,
        "before": "".join("%s: %s\n" % (c["key"], c["old"]) for c in changes),
        "after": "".join("%s: %s\n" % (c["key"], c["new"]) for c in changes),
    }


def _msg(changes, nothing):
    if not changes:
        return nothing
    return "\n".join("%s: %s -> %s" % (c["key"], c["old"], c["new"]) for c in changes)


def present(module, ctx):
    p = module.params
    name = p["name"]
    tunables = [
        (k, value_text("tunables.%s" % k, v)) for k, v in (p["tunables"] or {}).items()
    ]
    variables = None
    if p["variables"]:
        variables = dict(
            (k, value_text("variables.%s" % k, v)) for k, v in p["variables"].items()
        )

    profile = None
    if p["profile"]:
        profile = ctx.load_profile(p["profile"], variables)

    # The transaction's context manager rolls back on an exception raised
    # after the commit: only staging and the commit happen inside it (a
    # failed commit has already given back what it wrote).
    tx = ctx.transaction(name, dry_run=module.check_mode, allow_partial=p["allow_partial"])
    with tx:
        if profile is not None:
            tx.apply_profile(profile, strict=p["strict"])
        for key, value in tunables:
            tx.set(key, value)
        written = tx.commit()
    try:
        staged = tx.changes()
    finally:
        tx.close()

    changes = [
        {"key": c.key, "old": c.old, "new": c.new, "note": c.note}
        for c in staged
        if not c.unchanged
    ]
    result = {
        "name": name,
        "changed": written > 0,
        "written": written,
        "changes": changes,
        "unchanged": [c.key for c in staged if c.unchanged],
        "msg": _msg(changes, "nothing to change"),
    }
    if profile is not None:
        result["skipped"] = [
            {"option": i.option, "note": i.note} for i in profile.items() if i.skipped
        ]
        profile.close()
    if module._diff:
        result["diff"] = _diff(name, changes)
    return result


def absent(module, ctx):
    p = module.params
    name = p["name"]
    if p["tunables"] or p["profile"]:
        module.warn("state=absent restores the whole transaction '%s': tunables and profile are not used" % name)
    entries = [e for e in ctx.status() if e.name == name]
    for e in entries:
        if not e.key:  # a journal the library cannot read
            module.warn("transaction '%s': %s" % (name, e.note))
    changes = []
    for e in entries:
        if not e.key:
            continue
        if e.flags & perftune.ItemFlag.SHADOWED:
            # a later live transaction also set it: the original is handed
            # over to that one, the value stays
            note = "original handed over to a later transaction; the value stays"
            new = e.current
        else:
            note = "drifted: was changed after the transaction wrote it" if e.drift else None
            new = e.old
        if e.current != new:
            changes.append({"key": e.key, "old": e.current, "new": new, "note": note})
    result = {"name": name, "changed": bool(entries), "restored": 0, "changes": changes}
    if not entries:
        # no key to give back; a transaction that changed nothing (the
        # machine was already in that state) is still recorded: remove it
        result["msg"] = "no transaction named '%s'" % name
        if module.check_mode:
            if os.path.exists(os.path.join(ctx.journal_dir, name + ".journal")):
                result.update(changed=True, msg="transaction '%s' would be removed, it changed nothing" % name)
        else:
            try:
                ctx.restore(name, force=p["force"])
                result.update(changed=True, msg="transaction '%s' removed, it changed nothing" % name)
            except perftune.PerftuneNotFound:
                pass
    elif module.check_mode:
        result["msg"] = _msg(changes, "transaction '%s' would be removed, no value changes" % name)
    else:
        try:
            result["restored"] = ctx.restore(name, force=p["force"])
        except perftune.PerftuneNotFound:
            # restored by someone else since status(): nothing left to do
            result.update(changed=False, changes=[], msg="no transaction named '%s'" % name)
            return result
        result["msg"] = _msg(changes, "transaction '%s' removed, no value changes" % name)
    if module._diff:
        result["diff"] = _diff(name, result["changes"])
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            name=dict(type="str", default="ansible"),
            tunables=dict(type="dict"),
            profile=dict(type="str"),
            variables=dict(type="dict"),
            strict=dict(type="bool", default=False),
            state=dict(type="str", default="present", choices=["present", "absent"]),
            allow_partial=dict(type="bool", default=False),
            force=dict(type="bool", default=False),
            journal_dir=dict(type="path"),
        ),
        required_if=[("state", "present", ("tunables", "profile"), True)],
        required_by={"variables": "profile"},
        supports_check_mode=True,
    )
    require_binding(module)
    try:
        with open_context(module) as ctx:
            if module.params["state"] == "present":
                result = present(module, ctx)
            else:
                result = absent(module, ctx)
    except (perftune.PerftuneError, EnvironmentError, TypeError, ValueError) as err:
        fail_from(module, err, name=module.params["name"], changed=False)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
