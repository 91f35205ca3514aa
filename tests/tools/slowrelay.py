#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A slow reader for the stock client, run as its RSYNC_CONNECT_PROG: a
pull that takes as long as a test needs, whatever the machine's speed.

  RSYNC_CONNECT_PROG='python3 slowrelay.py PORT RATE [RELEASE]' rsync rsync://x/mod/...

Connects to 127.0.0.1:PORT and relays standard input to the server as it
comes, and the server's bytes to standard output at RATE bytes a second
at most, or at full speed once the file RELEASE exists.  Bounded: gives
up after 600 s.
"""
import os, select, socket, sys, time


def main():
    port, rate = int(sys.argv[1]), int(sys.argv[2])
    release = sys.argv[3] if len(sys.argv) > 3 else None
    s = socket.create_connection(("127.0.0.1", port), 10)
    s.setblocking(True)
    inp, out = sys.stdin.fileno(), sys.stdout.fileno()
    t0, sent, end = time.monotonic(), 0, time.monotonic() + 600
    open_in = True
    while time.monotonic() < end:
        r, _, _ = select.select([s] + ([inp] if open_in else []), [], [], 1.0)
        if inp in r:
            b = os.read(inp, 65536)
            if b:
                s.sendall(b)
            else:
                open_in = False
                s.shutdown(socket.SHUT_WR)
        if s in r:
            b = s.recv(min(16384, rate))
            if not b:
                return 0
            view = memoryview(b)
            while view:
                view = view[os.write(out, view):]
            sent += len(b)
            ahead = sent / rate - (time.monotonic() - t0)
            if release and os.path.exists(release):
                rate = 1 << 30
            elif ahead > 0:
                time.sleep(ahead)
    return 1


if __name__ == "__main__":
    sys.exit(main())
