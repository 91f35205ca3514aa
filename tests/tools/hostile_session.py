#!/usr/bin/python3
# SPDX-License-Identifier: ISC
"""A hostile stand-in for prsyncd-monitor, for t_hostile_session.sh: the
listener executes it (as it would the real session monitor) with the
listener channel on fd 6.  It sends the records named in the file MODE
next to it, one attack per line, and appends what came back to OUT next
to it: "ANSWER request status limit", "CLOSED", or "SILENT".

Attacks: short, long, magic, pad, type, dir, seq, host-spoof, host-proxy,
host-family, host-v4junk, slot-first, slot-range, fd, twice, ok-host, hold (ok-host, then
stays 4 s).
"""
import os, socket, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = 0x50524c31

def rec(typ, body=b"", seq=1, magic=MAGIC, pad=0):
    return struct.pack("<IHHI", magic, typ, pad, seq) + body.ljust(20, b"\0")[:20]

def host(family=4, proxied=0, addr=b"\x7f\0\0\x01", seq=1):
    return rec(1, struct.pack("<BBxx", family, proxied) + addr.ljust(16, b"\0"), seq)

def main():
    ch = socket.socket(fileno=6)
    ch.settimeout(2)
    attack = open(os.path.join(HERE, "MODE")).read().strip()
    sends = {
        "short": [rec(1)[:31]],
        "long": [rec(1) + b"x"],
        "magic": [rec(1, magic=0x12345678)],
        "pad": [rec(1, pad=1)],
        "type": [rec(9)],
        "dir": [rec(64, struct.pack("<HHi", 1, 1, 0))],
        "seq": [host(seq=7)],
        "host-spoof": [host(addr=b"\x0a\0\0\x09")],
        "host-proxy": [host(proxied=1)],
        "host-family": [host(family=10)],
        "host-v4junk": [host(addr=b"\x7f\0\0\x01\x01")],
        "slot-first": [rec(2, struct.pack("<I", 0))],
        "slot-range": [host(), rec(2, struct.pack("<I", 5000), seq=2)],
        "twice": [host(), host(seq=2)],
        "ok-host": [host()],
        "hold": [host()],
    }
    out = []
    if attack == "fd":
        ch.sendmsg([host()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", 0))])
        msgs = 1
    else:
        msgs = len(sends[attack])
        for m in sends[attack]:
            try:
                ch.send(m)
            except OSError:
                pass
    for _ in range(msgs):
        try:
            r = ch.recv(64)
        except socket.timeout:
            out.append("SILENT")
            break
        except OSError:
            out.append("CLOSED")
            break
        if not r:
            out.append("CLOSED")
            break
        _, typ, _, _, req, status, limit = struct.unpack("<IHHIHHi", r[:20])
        out.append("ANSWER %d %d %d" % (req, status, limit))
    with open(os.path.join(HERE, "OUT"), "a") as f:
        f.write(attack + ": " + " ".join(out) + "\n")
    if attack == "hold":
        import time
        time.sleep(4)

main()
