#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A client that floods the server with text frames: after the setup it
sends N MSG_INFO / MSG_ERROR frames (alternating) of LEN bytes each, reads
until the server falls quiet for a second (at most 30 s) and hangs up.
Prints "SENT <frames> <bytes>".

  logflood.py PORT MODULE N LEN
"""
import socket
import struct
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from evilclient import Client  # noqa: E402


def main():
    port, module, n, ln = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    c = Client(port, module, ["--server", "--sender", "-e.LsfxCIvu", "--checksum-choice=md5",
                              ".", module + "/"])
    sent = 0
    for i in range(n):
        code = 2 if i % 2 == 0 else 3  # MSG_INFO, MSG_ERROR
        text = (b"flood %d " % i).ljust(ln - 1, b"x") + b"\n"
        c.s.sendall(struct.pack("<I", ((code + 7) << 24) | len(text)) + text)
        sent += len(text)
    c.s.settimeout(1)
    end = time.time() + 30
    while time.time() < end:
        try:
            if not c.s.recv(1 << 16):
                break
        except socket.timeout:
            break
        except ConnectionResetError:
            break
    print("SENT", n, sent)


if __name__ == "__main__":
    main()
