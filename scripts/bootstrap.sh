#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# One entry point for a fresh Debian 12 machine, run as root:
#
#   scripts/bootstrap.sh demo    install what is missing, build, and serve
#                                docs/ as module "demo" on 127.0.0.1:8730
#   scripts/bootstrap.sh check   install what is missing, build, run every test
#
# Installing is a no-op when every package is already present.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"

PACKAGES="build-essential pkg-config clang libclang-rt-14-dev libseccomp-dev libcap-dev \
zlib1g-dev libxxhash-dev libssl-dev libzstd-dev liblz4-dev rsync python3 procps \
strace logrotate systemd libcap2-bin universal-ctags acl attr \
dpkg-dev debhelper lintian man-db groff-base haproxy"

install_deps() {
	local missing=""
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "bootstrap: missing packages:$missing (run as root to install them)" >&2
		exit 1
	fi
	echo "bootstrap: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

jobs=$(nproc 2>/dev/null || echo 2)
case "${1:-}" in
demo)
	install_deps
	make -j"$jobs" all
	conf=$(mktemp /tmp/prsyncd-demo.XXXXXX.conf)
	cat > "$conf" <<CONF
# prsyncd demo configuration (rsyncd.conf syntax)
motd file = $TOP/docs/motd.txt
[demo]
	path = $TOP/docs
	comment = prsyncd documentation
CONF
	echo "prsyncd demo: serving $TOP/docs as module 'demo' on 127.0.0.1:8730"
	echo "try:   rsync rsync://127.0.0.1:8730/        (list modules)"
	echo "       rsync -av rsync://127.0.0.1:8730/demo/ /tmp/demo-copy/"
	echo "stop with Ctrl-C"
	exec build/prsyncd --no-detach --config="$conf" --address=127.0.0.1 --port=8730 --log-file=/dev/stdout
	;;
check)
	install_deps
	make -j"$jobs" test-build
	exec tests/run-all.sh
	;;
*)
	echo "usage: $0 demo|check" >&2
	exit 2
	;;
esac
