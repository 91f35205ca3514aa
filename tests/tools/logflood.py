#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A client that floods the server with message frames: after the setup it
sends N frames of LEN bytes each (MSG_INFO / MSG_ERROR alternating unless
--tags says otherwise), reading whatever the server sends meanwhile, then
reads until the server closes or falls quiet for a second (at most 30 s)
and hangs up.

  logflood.py PORT MODULE N LEN [--tags T,T,...] [-r [--inc]]

--tags: the message codes to cycle through (2 MSG_INFO, 3 MSG_ERROR, 6
MSG_LOG, 42 MSG_NOOP, ...; a frame of a code with no text, such as NOOP,
is sent empty).  -r: ask for a recursive pull (a file list that is not
empty: the server then waits for the client's requests, reading frames);
without it the module root alone is asked for, which rsyncd skips.
--inc: with incremental recursion (the client's 'i' capability).
Prints "SENT <frames> <bytes>", then "CLOSED" (the server hung up) or
"OPEN", then the server's messages other than echoes of ours, one
"MSG <code> <text>" each.
"""
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from evilclient import Client  # noqa: E402

EMPTY = {42}  # codes whose frames carry nothing


class Reader(threading.Thread):
    """Collects the server's frames until it closes (or the socket is shut)."""

    def __init__(self, c):
        super().__init__(daemon=True)
        self.c, self.closed, self.texts, self.last = c, False, [], time.time()

    def run(self):
        c = self.c
        try:
            while True:
                while len(c.buf) < 4:
                    b = c.s.recv(1 << 16)
                    if not b:
                        raise EOFError
                    c.buf += b
                    self.last = time.time()
                h = struct.unpack("<I", c.buf[:4])[0]
                code, ln = (h >> 24) - 7, h & 0xffffff
                while len(c.buf) < 4 + ln:
                    b = c.s.recv(1 << 16)
                    if not b:
                        raise EOFError
                    c.buf += b
                    self.last = time.time()
                payload, c.buf = c.buf[4:4 + ln], c.buf[4 + ln:]
                if code != 0 and not payload.startswith(b"flood "):
                    self.texts.append((code, payload.decode("latin-1", "replace").strip()))
                if code == 86:  # MSG_ERROR_EXIT: acknowledge
                    c.s.sendall(struct.pack("<I", 93 << 24))
        except (EOFError, ConnectionResetError, OSError):
            self.closed = True


def main():
    a = sys.argv[1:]
    port, module, n, ln = int(a[0]), a[1], int(a[2]), int(a[3])
    tags, rec, caps = [2, 3], False, "LsfxCIvu"
    rest = a[4:]
    while rest:
        o = rest.pop(0)
        if o == "--tags":
            tags = [int(t) for t in rest.pop(0).split(",")]
        elif o == "-r":
            rec = True
        elif o == "--inc":
            caps = "i" + caps
        else:
            raise SystemExit("logflood.py: unknown option %s" % o)
    c = Client(port, module, ["--server", "--sender", ("-re." if rec else "-e.") + caps,
                              "--checksum-choice=md5", ".", module + "/"])
    c.s.settimeout(None)
    r = Reader(c)
    r.start()
    sent = nbytes = 0
    try:
        for i in range(n):
            code = tags[i % len(tags)]
            text = b"" if code in EMPTY else (b"flood %d " % i).ljust(ln - 1, b"x")[:max(ln - 1, 0)] + b"\n"
            c.s.sendall(struct.pack("<I", ((code + 7) << 24) | len(text)) + text)
            sent += 1
            nbytes += len(text)
    except OSError:
        pass
    end = time.time() + 30
    while time.time() < end and not r.closed and time.time() - r.last < 1.0:
        time.sleep(0.05)
    closed = r.closed
    try:
        c.s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    r.join(2)
    print("SENT", sent, nbytes)
    print("CLOSED" if closed else "OPEN")
    for code, t in r.texts:
        print("MSG", code, t)


if __name__ == "__main__":
    main()
