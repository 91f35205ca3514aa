#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Syscall counts per process role from an `strace -f` log of a daemon.

  strace_summary.py LOG [--per N] [--top K]

LOG is what `strace -f -qq -o LOG DAEMON...` wrote (bench.py --wrap
'strace -f -qq -o LOG' runs a daemon so).  Each process gets a role: the
name of the program it last executed, or for a process that never
executed one, its parent's role with "(fork)" (rsyncd's session children).
Prints, per role, the number of processes and each syscall's count (and
per N, e.g. per file transferred, with --per), and the bytes moved by
sendmsg/recvmsg (prsyncd's monitor<->worker channel uses only those) and
by read/write/readv/writev/pread64.
"""
import collections
import os
import re
import sys

LINE = re.compile(r"^(\d+) +(.*)$")
RET = re.compile(r"\) += (-?\d+)")
IO = ("sendmsg", "recvmsg", "read", "write", "readv", "writev", "pread64", "sendto", "recvfrom")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    per, top = None, 25
    i = 2
    while i < len(argv):
        if argv[i] == "--per":
            per = float(argv[i + 1]); i += 2
        elif argv[i] == "--top":
            top = int(argv[i + 1]); i += 2
        else:
            print(__doc__, file=sys.stderr)
            return 2
    counts = collections.defaultdict(collections.Counter)
    nbytes = collections.defaultdict(collections.Counter)
    prog, parent = {}, {}
    pending = {}                       # pid -> name of an unfinished call
    with open(argv[1], errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            pid, rest = int(m.group(1)), m.group(2)
            if rest.startswith("+++") or rest.startswith("---"):
                continue
            if rest.startswith("<... "):
                name = rest[5:].split(" ", 1)[0]
                resumed = True
            else:
                name = rest.split("(", 1)[0]
                resumed = False
                counts[pid][name] += 1
            if rest.endswith("<unfinished ...>"):
                pending[pid] = (name, rest)
                continue
            full = rest
            if resumed and pid in pending:
                full = pending.pop(pid)[1] + rest
            r = RET.search(rest)
            ret = int(r.group(1)) if r else None
            if name == "execve" and ret == 0:
                path = full.split('"', 2)[1] if '"' in full else "?"
                prog[pid] = os.path.basename(path)
            elif name in ("clone", "clone3", "fork", "vfork") and ret and ret > 0:
                parent[ret] = pid
            elif name in IO and ret and ret > 0:
                nbytes[pid][name] += ret

    def role(pid, depth=0):
        if pid in prog:
            return prog[pid]
        if pid in parent and depth < 50:
            r = role(parent[pid], depth + 1)
            return r if r.endswith("(fork)") else r + " (fork)"
        return "?"
    by_role = collections.defaultdict(collections.Counter)
    bytes_role = collections.defaultdict(collections.Counter)
    nproc = collections.Counter()
    for pid in counts:
        r = role(pid)
        by_role[r].update(counts[pid])
        bytes_role[r].update(nbytes[pid])
        nproc[r] += 1
    for r in sorted(by_role, key=lambda x: -sum(by_role[x].values())):
        c = by_role[r]
        total = sum(c.values())
        print("== %s: %d process(es), %d syscalls%s" % (
            r, nproc[r], total, " (%.2f per unit)" % (total / per) if per else ""))
        for name, n in c.most_common(top):
            extra = ""
            if bytes_role[r][name]:
                b = bytes_role[r][name]
                extra = "  %d bytes (%.0f per call%s)" % (
                    b, b / n, ", %.0f per unit" % (b / per) if per else "")
            print("  %-18s %10d%s%s" % (name, n, "  %8.2f per unit" % (n / per) if per else "", extra))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
