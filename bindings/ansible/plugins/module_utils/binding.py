# -*- coding: utf-8 -*-
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the perftune.perftune modules share: importing libperftune's Python
binding, opening a Context, turning option values into the strings the
library takes, and reporting the library's errors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback

from ansible.module_utils.basic import missing_required_lib
from ansible.module_utils.common.text.converters import to_native
from ansible.module_utils.six import binary_type, integer_types, string_types

PERFTUNE_IMPORT_ERROR = None
try:
    import perftune
except ImportError:
    perftune = None
    PERFTUNE_IMPORT_ERROR = traceback.format_exc()

HAS_PERFTUNE = perftune is not None


def require_binding(module):
    """Fail the task unless the binding can be imported on the target."""
    if not HAS_PERFTUNE:
        module.fail_json(
            msg=missing_required_lib(
                "perftune (libperftune's Python binding; Debian: python3-perftune, "
                "RPM: python3-perftune)"
            ),
            exception=PERFTUNE_IMPORT_ERROR,
        )


def open_context(module):
    """A perftune.Context on the real machine, journals in the journal_dir
    option, else $PERFTUNE_JOURNAL_DIR, else /run/perftune."""
    return perftune.Context(journal_dir=module.params.get("journal_dir") or None)


def value_text(what, value):
    """A tunable or variable value as the library takes it: a string.

    Numbers become their decimal text.  Booleans are refused: YAML turns
    ``yes``/``on``/``true`` into True, and the kernel wants ``1``, ``on`` or
    ``always`` depending on the file, so the playbook has to say which."""
    if isinstance(value, bool):
        raise TypeError(
            "%s: %r is a boolean; quote the value the kernel file takes "
            "(for example '1', 'on' or 'never')" % (what, value)
        )
    if isinstance(value, binary_type):
        value = to_native(value)
    if isinstance(value, string_types):
        return value
    if isinstance(value, integer_types) or isinstance(value, float):
        return str(value)
    raise TypeError(
        "%s: a value must be a string or a number, not %s" % (what, type(value).__name__)
    )


def fail_from(module, err, **result):
    """Fail the task with the library's one-line message (it names the key
    and the cause) and its errno."""
    if HAS_PERFTUNE and isinstance(err, perftune.PerftuneError):
        module.fail_json(msg=str(err), errno=err.errno, **result)
    if isinstance(err, EnvironmentError) and err.errno:
        module.fail_json(msg=to_native(err), errno=err.errno, **result)
    module.fail_json(msg=to_native(err), **result)
