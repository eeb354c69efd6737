#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# host.sh SECCOMP_RUN ENOSYS|EPERM SCRIPT: a host-tier script under the filter,
# holding the real-kernel lock (the host tier writes /sys and /proc/sys).
set -euo pipefail
run=$1 err=$2 script=$3
exec "$(dirname "$0")/../real-kernel" "$run" --errno "$err" -- "$script"
