#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: LGPL-2.1-or-later
# Part of libperftune: licensed LGPL-2.1-or-later like the rest of the project
# (most Ansible content is GPL-3.0-or-later; this collection is not).

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: profile_facts
short_description: Read kernel tunables and libperftune's active transactions as facts
version_added: 0.1.0
description:
  - Reads the current value of the given keys, or of every tunable under the
    given prefixes, through libperftune's Python binding.
  - Lists the journaled transactions (what C(perftune status) shows), each key
    with its original value, the value the transaction wrote, the value now,
    and whether it drifted (was changed behind the transaction's back).
  - Sets the fact C(perftune); nothing on the host is changed.
author:
  - libperftune developers
requirements:
  - libperftune and its Python binding (C(perftune) module) on the managed host
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
    details: Linux only.
options:
  keys:
    description:
      - Keys to read, for example C(block.sda.scheduler) or C(thp.enabled).
        A glob key (C(block.sd*.scheduler)) reads the value all matches share
        and fails if they differ.
      - A key that does not exist on the host fails the task with the library's message.
    type: list
    elements: str
    default: []
  prefix:
    description:
      - Read every existing tunable whose key starts with one of these, for
        example C(block.sda.) or C(sysctl.vm.). An empty string lists every tunable.
    type: list
    elements: str
    default: []
  journal_dir:
    description:
      - Read the journals in this directory instead of C($PERFTUNE_JOURNAL_DIR)
        or C(/run/perftune).
    type: path
seealso:
  - module: perftune.perftune.tunables
"""

EXAMPLES = r"""
- name: Read the data disk's queue and THP, and what perftune has changed
  perftune.perftune.profile_facts:
    keys:
      - thp.enabled
    prefix:
      - block.sdb.

- name: Show them
  ansible.builtin.debug:
    msg: "sdb uses {{ perftune.tunables['block.sdb.scheduler'] }}"

- name: Fail when a tuned value was changed behind perftune's back
  ansible.builtin.assert:
    that: not perftune.transactions | dict2items | selectattr('value.drift') | list
"""

RETURN = r"""
ansible_facts:
  description: Facts to add to ansible_facts.
  returned: always
  type: complex
  contains:
    perftune:
      description: What libperftune reads on the host.
      returned: always
      type: complex
      contains:
        version:
          description: The libperftune version in use.
          type: str
          sample: 0.1.0
        binding:
          description: Where the Python binding was imported from.
          type: str
          sample: /usr/lib/python3/dist-packages/perftune/__init__.py
        journal_dir:
          description: The directory of the journals that were read.
          type: str
          sample: /run/perftune
        tunables:
          description:
            - The value of each key of C(keys) and of each tunable under C(prefix);
              null for a tunable that exists but cannot be read.
          type: dict
          sample:
            block.sdb.scheduler: mq-deadline
            thp.enabled: never
        transactions:
          description: The journaled transactions, by name.
          type: dict
          sample:
            mariadb:
              pid: 0
              committed: true
              held: false
              orphaned: false
              drift: false
              tunables:
                block.sdb.scheduler:
                  original: none
                  written: mq-deadline
                  current: mq-deadline
                  drift: false
                  note: null
          contains:
            pid:
              description: The process holding the transaction (held or orphaned), else 0.
              type: int
            committed:
              description: Whether its commit completed.
              type: bool
            held:
              description: Whether a live process holds it.
              type: bool
            orphaned:
              description: Whether its holder died (restore it).
              type: bool
            drift:
              description: Whether any of its keys drifted.
              type: bool
            tunables:
              description: Each key with C(original), C(written), C(current), C(drift) and C(note).
              type: dict
            errors:
              description: Why (part of) its journal cannot be read; only when it cannot.
              type: list
              elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perftune.perftune.plugins.module_utils.binding import (
    fail_from,
    open_context,
    perftune,
    require_binding,
)


def transactions(ctx):
    out = {}
    for e in ctx.status():
        t = out.setdefault(
            e.name,
            {"pid": e.pid, "committed": True, "held": False, "orphaned": False,
             "drift": False, "tunables": {}},
        )
        if not e.key:  # a journal the library cannot read
            t.setdefault("errors", []).append(e.note or "unreadable journal")
            t["committed"] = False
            continue
        t["pid"] = t["pid"] or e.pid
        t["committed"] = t["committed"] and e.committed
        t["held"] = t["held"] or e.held
        t["orphaned"] = t["orphaned"] or e.orphaned
        t["drift"] = t["drift"] or e.drift
        t["tunables"][e.key] = {
            "original": e.old,
            "written": e.written,
            "current": e.current,
            "drift": e.drift,
            "note": e.note,
        }
    return out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            keys=dict(type="list", elements="str", default=[], no_log=False),
            prefix=dict(type="list", elements="str", default=[]),
            journal_dir=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    require_binding(module)
    try:
        with open_context(module) as ctx:
            values = {}
            for prefix in module.params["prefix"]:
                for t in ctx.list(prefix or None):
                    values[t.key] = t.value
            for key in module.params["keys"]:
                values[key] = ctx.get(key)
            facts = {
                "version": perftune.version(),
                "binding": perftune.__file__,
                "journal_dir": ctx.journal_dir,
                "tunables": values,
                "transactions": transactions(ctx),
            }
    except (perftune.PerftuneError, EnvironmentError, TypeError, ValueError) as err:
        fail_from(module, err)
    module.exit_json(changed=False, ansible_facts={"perftune": facts})


if __name__ == "__main__":
    main()
