#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A hostile rsync client for incremental recursion: handshakes at protocol
32 with the 'i' capability and -r, waits for the first lists, then sends
one of a few protocol violations.  Prints the server's text messages and
whether the connection ended.  Bounded by timeouts throughout.

  evilinc.py PORT MODULE MODE
  MODE: done-flood  (far more NDX_DONEs than lists)
        past-end    (a file index beyond every list sent)
        placeholder (a transfer request for a list's directory placeholder)
        negative    (an index below NDX_FLIST_OFFSET as a request)
"""
import struct, sys, time

from evilclient import Client

port, module, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def ndx_abs(n):
    """The 4-byte absolute ndx form (protocol >= 30), as a first record."""
    if n < 0:
        return b"\xff\xfe" + bytes([((-n) >> 24) | 0x80, (-n) & 0xff, ((-n) >> 8) & 0xff, ((-n) >> 16) & 0xff])
    return b"\xfe" + bytes([(n >> 24) | 0x80, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff])


c = Client(port, module, ["--server", "--sender", "-re.iLsfxCIvu", "--checksum-choice=xxh64",
                          ".", module + "/"])
deadline = time.time() + 10
got = 0
while got < 2000 and time.time() < deadline:  # some list data first
    code, payload = c.frame()
    if code == 0:
        got += len(payload)
if mode == "done-flood":
    req = b"\x00" * 5000
elif mode == "past-end":
    req = ndx_abs(50000000) + struct.pack("<H", 0x8000)
elif mode == "placeholder":
    req = ndx_abs(0) + struct.pack("<H", 0x8000) + struct.pack("<iiii", 0, 700, 2, 0)
else:
    req = ndx_abs(-150) + struct.pack("<H", 0x8000)
c.send(req)
c.finish(deadline)
