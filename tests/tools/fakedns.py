#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A minimal DNS server for the name-service tests (t_names.sh): UDP on
ADDRESS:53, A records from a zone file re-read at every query, every
question logged, so a test can change an answer while daemons run and
count the lookups each one makes.

  fakedns.py ADDRESS ZONE-FILE QUERY-LOG

Zone lines (names compared lower-cased; # starts a comment):
  NAME A.B.C.D [A.B.C.D ...]   the name's IPv4 addresses
  NAME NXDOMAIN                no such name
  NAME SERVFAIL                the server fails (a lookup error, not "no such name")
  NAME DROP                    no answer at all (the client times out)
  NAME DELAY SECONDS A.B.C.D   the addresses, SECONDS late
Any other name gets NXDOMAIN; a question of another type than A gets an
empty answer (no such record).  Each question is logged as "NAME TYPE".
Bounded: one thread per delayed answer, a delay of at most 30 s.
"""
import socket, struct, sys, threading, time

addr, zone_path, log_path = sys.argv[1:4]


def zone():
    z = {}
    try:
        for line in open(zone_path):
            w = line.split("#")[0].split()
            if len(w) >= 2:
                z[w[0].lower().rstrip(".")] = w[1:]
    except OSError:
        pass
    return z


def qname(pkt, at):
    labels = []
    while at < len(pkt) and pkt[at] != 0 and len(labels) < 64:
        n = pkt[at]
        labels.append(pkt[at + 1:at + 1 + n].decode("latin-1"))
        at += 1 + n
    return ".".join(labels).lower(), at + 1


def answer(pkt, name, qtype, end, rcode, addrs):
    tid, flags = struct.unpack("!HH", pkt[:4])
    question = pkt[12:end + 4]
    recs = b""
    if qtype == 1 and rcode == 0:
        for a in addrs:
            recs += b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 1, 4) + socket.inet_aton(a)
    n = len(recs) // 16 if recs else 0
    hdr = struct.pack("!HHHHHH", tid, 0x8180 | (flags & 0x0100) | rcode, 1, n, 0, 0)
    return hdr + question + recs


def serve(sock, pkt, peer):
    if len(pkt) < 17:
        return
    name, end = qname(pkt, 12)
    qtype = struct.unpack("!H", pkt[end:end + 2])[0] if end + 2 <= len(pkt) else 0
    with open(log_path, "a") as log:
        log.write("%s %d\n" % (name, qtype))
    w = zone().get(name, ["NXDOMAIN"])
    if w[0] == "DROP":
        return
    if w[0] == "DELAY":
        time.sleep(min(float(w[1]), 30))
        w = w[2:]
    if w[0] == "NXDOMAIN":
        out = answer(pkt, name, qtype, end, 3, [])
    elif w[0] == "SERVFAIL":
        out = answer(pkt, name, qtype, end, 2, [])
    else:
        out = answer(pkt, name, qtype, end, 0, w)
    sock.sendto(out, peer)


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((addr, 53))
    print("ready", flush=True)
    while True:
        pkt, peer = sock.recvfrom(4096)
        threading.Thread(target=serve, args=(sock, pkt, peer), daemon=True).start()


main()
