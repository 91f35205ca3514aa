#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Build bench/ipcspeed.c (in a temporary directory) and run it: the CPU
# cost per file of monitor<->worker exchanges in several designs.
#   bench/ipcspeed.sh [ROUNDS]        default 100000
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/prsyncd-ipcspeed.XXXXXX)
trap 'rm -rf "$T"' EXIT
cc -std=gnu17 -O2 -Wall -Wextra -o "$T/ipcspeed" "$TOP/bench/ipcspeed.c"
"$T/ipcspeed" "${1:-100000}"
