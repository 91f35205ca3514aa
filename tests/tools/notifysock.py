#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Stands in for systemd's notification socket: binds an AF_UNIX datagram
socket at PATH and appends every datagram it receives to OUT, one per
line with newlines shown as '|', until STOPPING=1 arrives or 60 s pass.
"""
import os, socket, sys, time

path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.5)
end = time.time() + 60
with open(out, "a") as f:
    while time.time() < end:
        try:
            d = s.recv(4096).decode("latin-1")
        except socket.timeout:
            continue
        f.write(d.replace("\n", "|") + "\n")
        f.flush()
        if "STOPPING=1" in d.split("\n"):
            break
os.unlink(path)
