#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Log in to a prsyncd module with sha512 daemon auth, hold the session at
"@RSYNCD: OK", and scan the memory of the session's processes (through
/proc/PID/mem, as root) for secret strings: the worker must never hold one
(it only relays the response line), and the monitor must have wiped them
after the check.  Positive controls: the user name and the challenge, which
the worker did see, must be found in its memory, so a scan that reads
nothing cannot pass.

  authscan.py PORT MODULE USER PASSWORD LISTENER-PID SECRET...

Prints one line per process kind: "KIND pids=N bytes=N secret_hits=N
user_hits=N challenge_hits=N", then "login=ok" or "login=FAILED ...".
Bounded: socket timeouts of 10 s.
"""
import base64, hashlib, os, re, socket, sys


def readline(s):
    out = b""
    while not out.endswith(b"\n") and len(out) < 4096:
        b = s.recv(1)
        if not b:
            break
        out += b
    return out.decode("latin-1").rstrip("\n")


def children(pid):
    """All descendants of pid, with their command names."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = open("/proc/%s/stat" % d).read()
            comm = open("/proc/%s/comm" % d).read().strip()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append((int(d), comm))
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c[0])
    return out


def scan(pid, needles):
    hits, total = {n: 0 for n in needles}, 0
    try:
        maps = open("/proc/%d/maps" % pid).read().splitlines()
        mem = open("/proc/%d/mem" % pid, "rb", 0)
    except OSError:
        return 0, hits
    for line in maps:
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (r)", line)
        if not m or "[vvar]" in line or "[vsyscall]" in line:
            continue
        lo, hi = int(m.group(1), 16), int(m.group(2), 16)
        if hi - lo > (1 << 31):
            continue  # sanitizer shadow reservations
        try:
            mem.seek(lo)
            data = mem.read(hi - lo)
        except (OSError, OverflowError, ValueError):
            continue
        total += len(data)
        for n in needles:
            hits[n] += data.count(n)
    mem.close()
    return total, hits


def main():
    port, module, user, pw, lpid = sys.argv[1:6]
    secrets = [x.encode() for x in sys.argv[6:]]
    s = socket.create_connection(("127.0.0.1", int(port)), 10)
    s.settimeout(10)
    greeting = readline(s)
    s.sendall(b"@RSYNCD: 32.0 sha512\n" + module.encode() + b"\n")
    line = readline(s)
    while line and not line.startswith("@RSYNCD: AUTHREQD ") and not line.startswith("@ERROR"):
        line = readline(s)  # MOTD lines
    if not line.startswith("@RSYNCD: AUTHREQD "):
        print("login=FAILED greeting=%r answer=%r" % (greeting, line))
        return 1
    chal = line.split(" ", 2)[2]
    resp = base64.b64encode(hashlib.sha512(pw.encode() + chal.encode()).digest()).decode().rstrip("=")
    s.sendall(("%s %s\n" % (user, resp)).encode())
    ok = readline(s)
    if ok != "@RSYNCD: OK":
        print("login=FAILED answer=%r" % ok)
        return 1
    for kind in ("prsyncd-worker", "prsyncd-monitor"):
        procs = [p for p, c in children(int(lpid)) if c.startswith(kind[:15])]
        total, secret_hits, user_hits, chal_hits = 0, 0, 0, 0
        for p in procs:
            n, hits = scan(p, secrets + [user.encode(), chal.encode()])
            total += n
            secret_hits += sum(hits[x] for x in secrets)
            user_hits += hits[user.encode()]
            chal_hits += hits[chal.encode()]
        print("%s pids=%d bytes=%d secret_hits=%d user_hits=%d challenge_hits=%d"
              % (kind, len(procs), total, secret_hits, user_hits, chal_hits))
    print("login=ok")
    s.close()
    return 0


sys.exit(main())
