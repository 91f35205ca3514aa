#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# The source tree itself: the licence (LICENSE, an SPDX line at the top of
# every source file, debian/copyright in the machine-readable format), and
# docs that name only what exists (paths, tests, fuzz targets).
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1

# What counts as source: everything tracked but documentation, the
# packaging metadata that has no comment syntax, and test data (fuzz
# corpora, the published configurations of tests/conf-corpus).
sources() {
	git ls-files | grep -vE '\.md$|^docs/|^tests/fuzz/corpus/|^tests/conf-corpus/|^\.gitignore$|^LICENSE$' |
		grep -vE '^debian/(changelog|control|copyright|source/|[^/]*\.dirs$)'
}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	missing=$(sources | while read -r f; do head -n 2 "$f" | grep -q 'SPDX-License-Identifier: ISC' || echo "$f"; done)
	[ -z "$missing" ] && pass "every source file starts with its SPDX line ($(sources | wc -l) files)" ||
		fail "no SPDX line in the first two lines of: $(echo $missing)"
else
	echo "SKIP: not a git checkout: the SPDX check needs the list of tracked files"
fi
grep -q '^ISC License' LICENSE && grep -q 'Permission to use, copy, modify, and distribute' LICENSE &&
	pass "LICENSE is the ISC licence" || fail "LICENSE missing or not ISC"
head -n 1 debian/copyright | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' &&
	grep -q '^License: ISC$' debian/copyright && grep -q '^Files: \*' debian/copyright &&
	pass "debian/copyright: machine-readable, ISC" || fail "debian/copyright is not DEP-5 with License: ISC"

# Paths named in backquotes in the docs and README exist (a build product
# counts if its source does; NAME is a placeholder).
bad=""
for p in $(grep -ohE '`(src|tests|scripts|policy|bench|debian|man|docs)/[A-Za-z0-9_./-]+`' docs/*.md README.md | tr -d '`' | sort -u); do
	case $p in *NAME*) continue ;; esac
	[ -e "$p" ] || [ -e "$p.c" ] || [ -e "$p.sh" ] || [ -e "$p.py" ] || bad="$bad $p"
done
[ -z "$bad" ] && pass "every path the docs name exists" || fail "docs name missing paths:$bad"
# Tests and fuzz targets named anywhere in the docs and README exist.
bad=""
for t in $(grep -ohE '\bt_[a-z0-9_]+\.sh\b' docs/*.md README.md | sort -u); do
	[ -f "tests/integration/$t" ] || bad="$bad $t"
done
# (a unit test, or a case in one, is named alone in backquotes)
for t in $(grep -ohE '`test_[a-z0-9_]+`' docs/*.md README.md | tr -d '`' | sort -u); do
	[ -f "tests/unit/$t.c" ] || grep -q "^static void $t(" tests/unit/*.c || bad="$bad $t"
done
for t in $(grep -ohE '\bfuzz_[a-z0-9_]+\b' docs/*.md README.md | sort -u); do
	[ -f "tests/fuzz/$t.c" ] || [ "$t" = fuzz_sock ] || bad="$bad $t"
done
[ -z "$bad" ] && pass "every test and fuzz target the docs name exists" || fail "docs name missing tests:$bad"
finish
