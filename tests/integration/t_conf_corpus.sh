#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The configuration corpus (tests/conf-corpus/*.conf: files in the styles
# of mirrors, container images and configuration-management templates),
# each served by rsync --daemon and by prsyncd: the same module list, and
# for every module the same exit code, messages and tree of a pull.
#
# A file that uses a directive this prsyncd does not serve yet (it says
# "is not implemented yet; refusing to start without it") is reported as
# SKIP naming the directive, not as a pass, so it counts once served.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../transfer_lib.sh"

CORPUS_SRC=$TOP/tests/conf-corpus
corpus=$TMP/corpus
root=$TMP/root
mkdir -p "$root" "$TMP/cfg"
chmod 755 "$root"
cp -r "$CORPUS_SRC" "$corpus"
# placeholders shared by every daemon: @ROOT@, @CORPUS@ (@PIDFILE@ per daemon)
find "$corpus" -type f -exec sed -i -e "s|@ROOT@|$root|g" -e "s|@CORPUS@|$corpus|g" {} +
cp "$corpus/aux/motd.txt" "$root/motd.txt"
printf 'backup:s3cret\n' > "$root/rsyncd.secrets"; chmod 600 "$root/rsyncd.secrets"
# the client authenticates as "backup" where a module asks
export USER=backup RSYNC_PASSWORD=s3cret

# One small tree per name: files, a subdirectory, a symlink, an empty dir.
make_tree() {
	local d=$root/$1
	[ -e "$d" ] && return
	mkdir -p "$d/dists/stable" "$d/pool/main" "$d/empty"
	printf 'README for %s\n' "$1" > "$d/README"
	printf 'Origin: test\nSuite: stable\n' > "$d/dists/stable/Release"
	head -c 20000 /dev/urandom > "$d/pool/main/pkg_1.0.deb"
	echo part > "$d/pool/main/x.part"; echo bak > "$d/old.bak"; echo t > "$d/a.tmp"
	ln -s dists/stable "$d/current"
	chmod -R a+rX "$d"
	touch -d @1500000000 "$d" "$d/dists" "$d/dists/stable" "$d/pool" "$d/pool/main" "$d/empty"
}

# Module names of a file and of what it includes, in order; "[ a  b ]" is "a b".
modules_of() {
	local f=$1 inc
	{
		tr -d '\r' < "$f"
		for inc in $(tr -d '\r' < "$f" | sed -nE 's/^[[:space:]]*&(include|merge)[[:space:]]+//p'); do
			if [ -d "$inc" ]; then cat "$inc"/*.conf "$inc"/*.inc 2>/dev/null; else cat "$inc"; fi
		done
	} | sed -nE 's/^[[:space:]]*\[([^]]*)\].*/\1/p' | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//; s/[[:space:]]+/ /g' |
		grep -vix global | awk '!seen[$0]++'
}

corpus_start() { # corpus_start NAME: both daemons on their copy of the file
	local name=$1
	R_PORT=$(free_port); P_PORT=$(free_port)
	R_LOG=$TMP/$name.r.log; P_LOG=$TMP/$name.p.log
	: > "$P_LOG.stderr"
	tl_start_rsyncd "$TMP/cfg/$name.r.conf" "$R_PORT" "$R_LOG" || { fail "$name: rsyncd did not start"; return 1; }
	R_PID=$TL_PID
	start_prsyncd "$TMP/cfg/$name.p.conf" "$P_PORT" "$P_LOG" || { fail "$name: prsyncd did not start"; return 1; }
	P_PID=$PRSYNCD_PID
}

nfiles=0
for conf in "$corpus"/*.conf; do
	name=$(basename "$conf" .conf)
	nfiles=$((nfiles + 1))
	for side in r p; do
		sed "s|@PIDFILE@|$TMP/$name.$side.pid|g" "$conf" > "$TMP/cfg/$name.$side.conf"
	done
	mapfile -t mods < <(modules_of "$conf")
	for m in "${mods[@]}"; do make_tree "$m"; done
	for p in $(cat "$conf" "$corpus"/10-includes.d/*.conf "$corpus"/*.inc | tr -d '\r' |
		   sed -nE "s|^[[:space:]]*[Pp]ath[[:space:]]*=[[:space:]]*$root/([^%[:space:]]+)[[:space:]]*$|\\1|p"); do
		make_tree "$p"
	done
	# Fixed times for every directory and symlink, the trees made just
	# now and those nested in them (CPAN/authors makes CPAN's "now"): a
	# client leaves an entry's time alone when it is in the same second
	# as its own new copy, so times of "now" made the comparison depend
	# on when the second turned (both daemons alike).
	find "$root" -mindepth 1 \( -type d -o -type l \) -exec touch -h -d @1500000000 {} +

	out=$("$PRSYNCD" --config="$TMP/cfg/$name.p.conf" --check-config 2>&1); rc=$?
	if [ "$rc" != 0 ]; then
		needs=$(sed -nE "s/.*'([^']+)' is not implemented yet; refusing to start without it.*/\\1/p" <<<"$out" | sort -u | paste -sd, -)
		if [ -n "$needs" ]; then
			echo "SKIP: $name: uses $needs, which this prsyncd does not serve yet (being implemented)"
		else
			fail "$name: prsyncd refuses the file"; sed 's/^/    /' <<<"$out" | head -5
		fi
		continue
	fi
	corpus_start "$name" || { stop_both; continue; }
	ro=$(rsync_client "rsync://127.0.0.1:$R_PORT/" 2>&1); po=$(rsync_client "rsync://127.0.0.1:$P_PORT/" 2>&1)
	if [ "$ro" = "$po" ]; then pass "$name: same module list and MOTD ($(wc -l <<<"$po") lines)"
	else fail "$name: module lists differ"; diff <(echo "$ro") <(echo "$po") | head -6 | sed 's/^/    /'; fi
	for m in "${mods[@]}"; do
		EXPECT_RC=any pull_both "$name-${m// /_}" "-a" "$m/"
	done
	stop_both
done
[ "$nfiles" -ge 12 ] && pass "corpus: $nfiles files" || fail "corpus: only $nfiles files"
finish
