#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Build bench/hashspeed.c (in a temporary directory) and run it: reference
# throughput of the weak and strong sums on this machine.
#   bench/hashspeed.sh [MiB]          default 256 MiB of data
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/prsyncd-hashspeed.XXXXXX)
trap 'rm -rf "$T"' EXIT
# shellcheck disable=SC2046
cc -std=gnu17 -O2 -Wall -Wextra -o "$T/hashspeed" "$TOP/bench/hashspeed.c" \
	$(pkg-config --cflags --libs libxxhash libcrypto)
"$T/hashspeed" "${1:-256}"
