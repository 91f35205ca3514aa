#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A client that connects, waits, then talks: for tests of what happens
to a running session while the daemon reloads or stops.

  holdclient.py PORT READY GO [--early TEXT] [--send TEXT]... [--timeout S] [--src ADDR]

Connects (from ADDR if given), reads the server's greeting, with --early
sends TEXT and reads until "@RSYNCD: OK" or "@ERROR" arrives, creates the
file READY, then waits until the file GO exists (at most --timeout s,
default 30), sends each TEXT (Python escapes) and prints everything the
server sends until it closes (bounded by --timeout too).  Exit status 0;
"CLOSED-EARLY" is printed if the server hung up before GO appeared.
"""
import os, socket, sys, time, codecs

def main():
    a = sys.argv[1:]
    port, ready, go = int(a.pop(0)), a.pop(0), a.pop(0)
    sends, timeout, src, early = [], 30.0, None, None
    while a:
        k = a.pop(0)
        if k == "--send": sends.append(codecs.decode(a.pop(0), "unicode_escape").encode("latin-1"))
        elif k == "--timeout": timeout = float(a.pop(0))
        elif k == "--src": src = a.pop(0)
        elif k == "--early": early = codecs.decode(a.pop(0), "unicode_escape").encode("latin-1")
        else: sys.exit("unknown argument " + k)
    s = socket.create_connection(("127.0.0.1", port), 5, source_address=(src, 0) if src else None)
    s.settimeout(0.2)
    out = b""
    end = time.time() + timeout
    while b"\n" not in out and time.time() < end:
        try:
            b = s.recv(4096)
        except socket.timeout:
            continue
        if not b:
            break
        out += b
    if early is not None:
        s.sendall(early)
        while b"@RSYNCD: OK" not in out and b"@ERROR" not in out and time.time() < end:
            try:
                b = s.recv(4096)
            except socket.timeout:
                continue
            if not b:
                break
            out += b
    open(ready, "w").close()
    while not os.path.exists(go) and time.time() < end:
        try:
            b = s.recv(4096)
            if not b:
                out += b"CLOSED-EARLY"
                break
            out += b
        except socket.timeout:
            pass
        except OSError:
            out += b"CLOSED-EARLY"
            break
    try:
        for d in sends:
            s.sendall(d)
    except OSError:
        pass
    end = time.time() + timeout
    while time.time() < end:
        try:
            b = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not b:
            break
        out += b
    sys.stdout.write(out.decode("latin-1"))

main()
