#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Which system calls a unit's SystemCallFilter= admits, expanded with
systemd-analyze syscall-filter; then which names read from stdin (one per
line) it does not admit.

  sysfilter.py UNIT < names
"""
import re, subprocess, sys

def groups():
    out = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True).stdout
    g, cur = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            cur = line.split()[0]
            g[cur] = []
        elif cur and line.strip() and not line.strip().startswith("#"):
            g[cur].append(line.split()[0])
    return g

def expand(name, g, seen=None):
    seen = seen if seen is not None else set()
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    seen.add(name)
    r = set()
    for m in g.get(name, []):
        r |= expand(m, g, seen)
    return r

g = groups()
allow, deny = set(), set()
for line in open(sys.argv[1]):
    m = re.match(r"\s*SystemCallFilter=(.*)", line)
    if not m:
        continue
    v = m.group(1).strip()
    if v.startswith("~"):
        for n in v[1:].split():
            deny |= expand(n, g)
    else:
        for n in v.split():
            allow |= expand(n, g)
ok = allow - deny
missing = sorted({l.strip() for l in sys.stdin if l.strip()} - ok)
print(" ".join(missing))
