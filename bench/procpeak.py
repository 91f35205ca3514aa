#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Peak memory of a daemon's session processes while one client runs.

  procpeak.py --root PID [--interval 0.02] [--linger 5] [--json FILE] -- CMD [ARGS...]

Runs CMD (the client) and, every INTERVAL seconds until it exits, finds
all descendants of PID (the listening daemon; PID itself is not counted)
and reads VmHWM and VmRSS from /proc/<pid>/status.  After CMD exits, keeps
polling while descendants remain (at most LINGER seconds), so that a
session that is still finishing is seen to its end.

Prints one JSON object (on stdout, or into FILE with --json; CMD's own
stdout and stderr are procpeak's):
  rc          CMD's exit status
  wall        CMD's wall time, seconds
  sum_hwm_kb  the sum over all session processes of each one's peak RSS
              (VmHWM, the kernel's own high-water mark, last value read)
  max_rss_kb  the largest sum of VmRSS of the session processes seen at
              one poll (simultaneous peak, sampled)
  pids        [[pid, comm, hwm_kb], ...] for every process seen
  polls       number of polls
"""
import json
import os
import subprocess
import sys
import time


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d, "rb") as f:
                s = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...; comm may hold spaces and parens
        rest = s[s.rfind(b")") + 2:].split()
        kids.setdefault(int(rest[1]), []).append(int(d))
    return kids


def descendants(root):
    kids = children_map()
    out, stack = [], list(kids.get(root, []))
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(kids.get(p, []))
    return out


def status(pid):
    hwm = rss = None
    comm = "?"
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("Name:"):
                    comm = line.split(None, 1)[1].strip()
    except OSError:
        return None
    if hwm is None:          # a zombie has no memory lines
        return None
    return comm, hwm, rss


def main(argv):
    root = None
    interval, linger = 0.02, 5.0
    jsonfile = None
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--root":
            root = int(argv[i + 1]); i += 2
        elif argv[i] == "--interval":
            interval = float(argv[i + 1]); i += 2
        elif argv[i] == "--json":
            jsonfile = argv[i + 1]; i += 2
        elif argv[i] == "--linger":
            linger = float(argv[i + 1]); i += 2
        else:
            print(__doc__, file=sys.stderr)
            return 2
    cmd = argv[i + 1:]
    if root is None or not cmd:
        print(__doc__, file=sys.stderr)
        return 2
    seen = {}                # pid -> [comm, hwm]
    max_rss = 0
    polls = 0

    def poll():
        nonlocal max_rss, polls
        polls += 1
        tot = 0
        for p in descendants(root):
            st = status(p)
            if st is None:
                continue
            comm, hwm, rss = st
            e = seen.setdefault(p, [comm, 0])
            e[0] = comm
            e[1] = max(e[1], hwm)
            tot += rss
        max_rss = max(max_rss, tot)

    t0 = time.monotonic()
    proc = subprocess.Popen(cmd)
    while proc.poll() is None:
        poll()
        time.sleep(interval)
    wall = time.monotonic() - t0
    poll()
    end = time.monotonic() + linger
    while descendants(root) and time.monotonic() < end:
        poll()
        time.sleep(interval)
    text = json.dumps({
        "rc": proc.returncode, "wall": round(wall, 3),
        "sum_hwm_kb": sum(v[1] for v in seen.values()),
        "max_rss_kb": max_rss,
        "pids": [[p, v[0], v[1]] for p, v in sorted(seen.items())],
        "polls": polls,
    })
    if jsonfile:
        with open(jsonfile, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
