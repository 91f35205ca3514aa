#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A man in the middle for daemon-auth tests, run by the stock client as
RSYNC_CONNECT_PROG: it connects to 127.0.0.1:PORT, rewrites the digest list
of the first "@RSYNCD:" line in each direction, and relays everything else
unchanged.  A stock client always offers every digest; this is how a test
makes both sides agree on md5, md4, or no list at all (an rsync older than
3.2 or openrsync), the same way for rsyncd and prsyncd.

  greetproxy.py PORT [--server LIST] [--client LIST] [--version N]

LIST replaces the digest names ("md5", "sha1 md4", ...); "-" drops the list
(and the space before it).  --version replaces the protocol number both
sides announce (e.g. 29 or 30: an old daemon or client sends no digest list,
which only protocols below 32 may omit).  Bounded: gives up after 60 s.
"""
import os, select, socket, sys, time


def rewrite(line, names, version=None):
    head, _, rest = line.rstrip(b"\n").partition(b" ")    # "@RSYNCD:", "32.0 sha512 ..."
    ver, _, _ = rest.partition(b" ")
    if version is not None:
        ver = version.encode() + b"." + (ver.split(b".")[1] if b"." in ver else b"0")
    out = head + b" " + ver
    if names != "-":
        out += b" " + names.encode()
    return out + b"\n"


def main():
    args = sys.argv[1:]
    port = int(args.pop(0))
    server = client = version = None
    while args:
        a = args.pop(0)
        if a == "--server": server = args.pop(0)
        elif a == "--client": client = args.pop(0)
        elif a == "--version": version = args.pop(0)
        else: sys.exit("unknown argument " + a)
    s = socket.create_connection(("127.0.0.1", port), 10)
    fin, fout = 0, 1
    first = {"s": server is not None or version is not None, "c": client is not None or version is not None}
    pend = {"s": b"", "c": b""}
    end = time.time() + 60
    while time.time() < end:
        r, _, _ = select.select([s, fin], [], [], 1.0)
        for src in r:
            data = s.recv(65536) if src is s else os.read(fin, 65536)
            if not data:
                return
            key = "s" if src is s else "c"
            if first[key]:
                pend[key] += data
                if b"\n" not in pend[key]:
                    continue
                line, _, more = pend[key].partition(b"\n")
                names = server if key == "s" else (client if client is not None else None)
                if names is None:
                    names = line.partition(b" ")[2].partition(b" ")[2].decode() or "-"
                data = rewrite(line + b"\n", names, version) + more
                first[key] = False
            if key == "s":
                while data:
                    data = data[os.write(fout, data):]
            else:
                s.sendall(data)


main()
