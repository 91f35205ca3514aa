#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A minimal DNS server for the name-service tests (t_names.sh): UDP and
TCP on ADDRESS:53 (for each ADDRESS of a comma-separated list, IPv4 or
IPv6), A records from a zone file re-read at every query, every
question logged, so a test can change an answer while daemons run and
count the lookups each one makes.

  fakedns.py ADDRESS[,ADDRESS...] ZONE-FILE QUERY-LOG

Zone lines (names compared lower-cased; # starts a comment):
  NAME A.B.C.D [A.B.C.D ...]   the name's IPv4 addresses
  NAME NXDOMAIN                no such name
  NAME SERVFAIL                the server fails (a lookup error, not "no such name")
  NAME DROP                    no answer at all (the client times out)
  NAME DELAY SECONDS A.B.C.D   the addresses, SECONDS late
  NAME TCP A.B.C.D             over UDP a truncated answer (TC set, no
                               record), so the client asks again over
                               TCP, where it gets the addresses
Any other name gets NXDOMAIN; a question of another type than A gets an
empty answer (no such record).  Each question is logged as "NAME TYPE",
or "NAME TYPE tcp" when it came over TCP.
Bounded: one thread per question or connection, a delay of at most 30 s,
a TCP connection closed after one question or 10 s of silence.
"""
import socket, struct, sys, threading, time

addrs, zone_path, log_path = sys.argv[1:4]


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


def answer(pkt, name, qtype, end, rcode, addrs, tc=0):
    tid, flags = struct.unpack("!HH", pkt[:4])
    question = pkt[12:end + 4]
    recs = b""
    if qtype == 1 and rcode == 0:
        for a in addrs:
            recs += b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 1, 4) + socket.inet_aton(a)
    n = len(recs) // 16 if recs else 0
    hdr = struct.pack("!HHHHHH", tid, 0x8180 | tc | (flags & 0x0100) | rcode, 1, n, 0, 0)
    return hdr + question + recs


# The answer to one question (None: none at all); tcp: it came over TCP.
def respond(pkt, tcp):
    if len(pkt) < 17:
        return None
    name, end = qname(pkt, 12)
    qtype = struct.unpack("!H", pkt[end:end + 2])[0] if end + 2 <= len(pkt) else 0
    with open(log_path, "a") as log:
        log.write("%s %d%s\n" % (name, qtype, " tcp" if tcp else ""))
    w = zone().get(name, ["NXDOMAIN"])
    if w[0] == "DROP":
        return None
    if w[0] == "DELAY":
        time.sleep(min(float(w[1]), 30))
        w = w[2:]
    if w[0] == "NXDOMAIN":
        return answer(pkt, name, qtype, end, 3, [])
    if w[0] == "SERVFAIL":
        return answer(pkt, name, qtype, end, 2, [])
    if w[0] == "TCP":
        return answer(pkt, name, qtype, end, 0, w[1:]) if tcp else answer(pkt, name, qtype, end, 0, [], 0x0200)
    return answer(pkt, name, qtype, end, 0, w)


def serve(sock, pkt, peer):
    out = respond(pkt, False)
    if out is not None:
        sock.sendto(out, peer)


def recv_all(conn, n):
    data = b""
    while len(data) < n:
        more = conn.recv(n - len(data))
        if not more:
            return None
        data += more
    return data


def serve_tcp(conn):
    with conn:
        conn.settimeout(10)
        try:
            head = recv_all(conn, 2)
            pkt = recv_all(conn, struct.unpack("!H", head)[0]) if head else None
            out = respond(pkt, True) if pkt else None
            if out is not None:
                conn.sendall(struct.pack("!H", len(out)) + out)
        except OSError:
            pass


def udp_loop(sock):
    while True:
        pkt, peer = sock.recvfrom(4096)
        threading.Thread(target=serve, args=(sock, pkt, peer), daemon=True).start()


def tcp_loop(sock):
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve_tcp, args=(conn,), daemon=True).start()


def main():
    loops = []
    for addr in addrs.split(","):
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        udp = socket.socket(fam, socket.SOCK_DGRAM)
        udp.bind((addr, 53))
        tcp = socket.socket(fam, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        tcp.bind((addr, 53))
        tcp.listen(16)
        loops += [(udp_loop, udp), (tcp_loop, tcp)]
    for fn, sock in loops:
        threading.Thread(target=fn, args=(sock,), daemon=True).start()
    print("ready", flush=True)
    while True:
        time.sleep(3600)


main()
