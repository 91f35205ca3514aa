#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A --files-from=- client at protocol 32: the first path argument BASE,
then N names cycling through NAMES but its last (comma-separated), the
last one of NAMES ending the list (so that the list is not empty), NUL-separated in
MSG_DATA frames, then the empty name.  With --ignore-missing the server is
asked to skip missing names silently (--ignore-missing-args).  Once the
server has sent the end of the file list, the file READY is created and
the client waits (at most 60 s) for the file GO, so that the test can
look at the server's processes; then it prints "LISTED <bytes of names
sent> <bytes received>" and closes.

  filesfrom.py PORT MODULE BASE N NAMES READY GO [--ignore-missing]
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from evilclient import Client  # noqa: E402


def main():
    a = sys.argv[1:]
    ignore = "--ignore-missing" in a
    a = [x for x in a if x != "--ignore-missing"]
    port, module, base, n, names, ready, go = int(a[0]), a[1], a[2], int(a[3]), a[4].split(","), a[5], a[6]
    args = ["--server", "--sender", "-e.LsfxCIvu", "--checksum-choice=md5", "--files-from=-", "--from0"]
    if ignore:
        args.append("--ignore-missing-args")
    c = Client(port, module, args + [".", base])
    sent = 0
    batch = []
    for i in range(n):
        cyc = names[:-1] if len(names) > 1 else names
        batch.append(cyc[i % len(cyc)].encode() + b"\0")
        if i == n - 1 and len(names) > 1:
            batch[-1] = names[-1].encode() + b"\0"  # end on the last name, so the list is not empty
        if len(batch) == 8192 or i == n - 1:
            blob = b"".join(batch)
            c.send(blob)
            sent += len(blob)
            batch = []
    c.send(b"\0")
    # The file list comes once every name is processed; the server then
    # waits for requests (quiet for 2 s after sending data).
    got = 0
    c.s.settimeout(1)
    quiet = 0
    end = time.time() + 300
    while time.time() < end:
        try:
            b = c.s.recv(1 << 20)
        except socket.timeout:
            quiet += 1
            if got and quiet >= 2:  # the list came and the server waits
                break
            continue
        if not b:
            break
        quiet = 0
        got += len(b)
    open(ready, "w").close()
    end = time.time() + 60
    while not os.path.exists(go) and time.time() < end:
        time.sleep(0.1)
    print("LISTED", sent, got)


if __name__ == "__main__":
    main()
