#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: LGPL-2.1-or-later
# Part of libperftune: licensed LGPL-2.1-or-later like the rest of the project
# (most Ansible content is GPL-3.0-or-later; this collection is not).

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: verify
short_description: Whether kernel tunables are in force, and what else on the host sets them
version_added: 0.2.0
description:
  - Checks settings against the host through libperftune's Python binding, as
    C(perftune verify) does. Each setting gets a status, C(in force),
    C(differs), C(clamped), C(not here), C(needs reboot) or C(skipped).
  - For every checked key, lists the sources on the host that set it, as
    C(perftune why) does. These are the kernel command line, sysctl.d files
    (file:line, which one wins), udev rules, TuneD's active profile, daemons,
    and perftune's transactions.
  - A key is C(conflicting) when a persistent source (sysctl.d, udev, TuneD, the
    command line) puts another value than the expected one back at boot or when
    a daemon re-applies.
  - Nothing on the host is changed. C(changed) is always false. C(would_change)
    tells whether applying the same settings (M(perftune.perftune.tunables))
    would change the host, in check mode too.
author:
  - libperftune developers
requirements:
  - libperftune and its Python binding (C(perftune) module) on the managed host
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: The module only reads; the result is the same in check mode.
  diff_mode:
    support: none
  platform:
    platforms: posix
    details: Linux only.
options:
  tunables:
    description:
      - Keys and the values expected, for example C(sysctl.vm.swappiness) C(10).
        Numbers are taken as their decimal text.
    type: dict
    default: {}
  profile:
    description:
      - A TuneD-format profile (a name on the profile path, or a path) whose
        options are checked, its boot loader C(cmdline) against C(/proc/cmdline).
    type: str
  variables:
    description:
      - Override the profile's C([variables]).
    type: dict
    default: {}
  transaction:
    description:
      - Check the values the journaled transaction of this name wrote.
    type: str
  root:
    description:
      - Read kernel and configuration files below this directory instead of
        C(/) (a fake machine tree, for tests).
    type: path
  journal_dir:
    description:
      - Read the journals in this directory instead of C($PERFTUNE_JOURNAL_DIR)
        or C(/run/perftune).
    type: path
seealso:
  - module: perftune.perftune.tunables
  - module: perftune.perftune.profile_facts
"""

EXAMPLES = r"""
- name: Is the database tuning in force?
  perftune.perftune.verify:
    tunables:
      sysctl.vm.swappiness: 10
      thp.enabled: never
    profile: throughput-performance
  register: tuning

- name: Fail when a key differs or something on the host puts it back
  ansible.builtin.assert:
    that:
      - tuning.in_force
      - not tuning.conflicting
"""

RETURN = r"""
in_force:
  description: Whether every applicable setting is in force (C(not here) and C(skipped) do not count).
  returned: always
  type: bool
would_change:
  description: Whether applying the settings would change the host (a setting differs or is clamped).
  returned: always
  type: bool
counts:
  description: The number of settings of each status.
  returned: always
  type: dict
  sample: {"in force": 3, "differs": 1, "clamped": 0, "not here": 0, "needs reboot": 0, "skipped": 1}
differs:
  description: The keys that are not in force (differs, clamped, needs reboot).
  returned: always
  type: list
  elements: str
conflicting:
  description: The keys a persistent source will set to another value than expected.
  returned: always
  type: list
  elements: str
settings:
  description: One entry per setting checked.
  returned: always
  type: list
  elements: dict
  contains:
    key:
      description: The concrete key, or the profile's option when it maps to none.
      type: str
    status:
      description: C(in force), C(differs), C(clamped), C(not here), C(needs reboot) or C(skipped).
      type: str
    expected:
      description: The value expected.
      type: str
    current:
      description: The value now, null when not here or skipped.
      type: str
    reason:
      description: Why it is not in force, not here or skipped.
      type: str
    origin:
      description: The profile's file:line, or the transaction.
      type: str
    sources:
      description:
        - What sets the key on the host, in the order they take effect, each with
          C(kind), C(location), C(value), C(note), C(wins), C(persistent) and C(differs)
          (from the expected value).
      type: list
      elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.perftune.perftune.plugins.module_utils.binding import (
    fail_from,
    perftune,
    require_binding,
    value_text,
)

NOT_IN_FORCE = ("differs", "clamped", "needs reboot")
STATUSES = ("in force", "differs", "clamped", "not here", "needs reboot", "skipped")


def sources(ctx, check):
    """The sources of a checked key, compared with its expected value."""
    if check.status not in (perftune.CheckStatus.IN_FORCE, perftune.CheckStatus.DIFFERS,
                            perftune.CheckStatus.CLAMPED):
        return []
    return [
        {
            "kind": s.kind,
            "location": s.location,
            "value": s.value,
            "note": s.note,
            "wins": s.wins,
            "persistent": s.persistent,
            "differs": s.differs,
        }
        for s in ctx.why(check.key, compare_to=check.expected)
    ]


def conflicting(entry):
    """A persistent source in effect (not overridden) that sets another value."""
    return any(s["persistent"] and s["differs"] and s["wins"] for s in entry["sources"])


def checks(module, ctx):
    p = module.params
    out = []
    settings = dict((k, value_text(k, v)) for k, v in p["tunables"].items())
    if settings:
        out += ctx.verify(settings)
    if p["profile"]:
        variables = dict((k, value_text(k, v)) for k, v in p["variables"].items())
        with ctx.load_profile(p["profile"], variables) as prof:
            out += prof.verify()
    if p["transaction"]:
        out += ctx.verify_transaction(p["transaction"])
    return out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            tunables=dict(type="dict", default={}),
            profile=dict(type="str"),
            variables=dict(type="dict", default={}),
            transaction=dict(type="str"),
            root=dict(type="path"),
            journal_dir=dict(type="path"),
        ),
        required_one_of=[("tunables", "profile", "transaction")],
        supports_check_mode=True,
    )
    require_binding(module)
    p = module.params
    result = {}
    try:
        with perftune.Context(root=p["root"] or None, journal_dir=p["journal_dir"] or None) as ctx:
            entries = []
            for c in checks(module, ctx):
                entry = {
                    "key": c.key,
                    "status": str(c.status),
                    "expected": c.expected,
                    "current": c.current,
                    "reason": c.reason,
                    "origin": c.origin,
                }
                entry["sources"] = sources(ctx, c)
                entries.append(entry)
    except (perftune.PerftuneError, EnvironmentError, TypeError, ValueError) as err:
        fail_from(module, err)
    counts = dict((s, sum(1 for e in entries if e["status"] == s)) for s in STATUSES)
    differs = [e["key"] for e in entries if e["status"] in NOT_IN_FORCE]
    result = dict(
        changed=False,
        in_force=not differs,
        would_change=any(e["status"] in ("differs", "clamped") for e in entries),
        counts=counts,
        differs=differs,
        conflicting=sorted(set(e["key"] for e in entries if conflicting(e))),
        settings=entries,
    )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
