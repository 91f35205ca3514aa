#!/usr/bin/env python3
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
import socket, struct, sys, time

port, module, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
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


def ndx_abs(n):
    """The 4-byte absolute ndx form (protocol >= 30), as a first record."""
    if n < 0:
        return b"\xff\xfe" + bytes([((-n) >> 24) | 0x80, (-n) & 0xff, ((-n) >> 8) & 0xff, ((-n) >> 16) & 0xff])
    return b"\xfe" + bytes([(n >> 24) | 0x80, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff])


frame = lambda payload: struct.pack("<I", (7 << 24) | len(payload)) + payload
s.sendall(b"@RSYNCD: 32.0 md5\n" + module.encode() + b"\n")
while line() != "@RSYNCD: OK":
    pass
args = ["--server", "--sender", "-re.iLsfxCIvu", "--checksum-choice=xxh64", ".", module + "/"]
s.sendall(b"".join(a.encode() + b"\0" for a in args) + b"\0")
flags = need(1)[0]
if flags & 0x80:
    need(1)
need(4)  # seed
s.sendall(frame(b"\0\0\0\0"))  # empty filter list
texts = []
deadline = time.time() + 10
got = 0
while got < 2000 and time.time() < deadline:  # some list data first
    h = struct.unpack("<I", need(4))[0]
    code, ln = (h >> 24) - 7, h & 0xffffff
    payload = need(ln)
    if code == 0:
        got += ln
    else:
        texts.append(payload.decode("latin-1", "replace").replace("\0", "").strip())
if mode == "done-flood":
    req = b"\x00" * 5000
elif mode == "past-end":
    req = ndx_abs(50000000) + struct.pack("<H", 0x8000)
elif mode == "placeholder":
    req = ndx_abs(0) + struct.pack("<H", 0x8000) + struct.pack("<iiii", 0, 700, 2, 0)
else:
    req = ndx_abs(-150) + struct.pack("<H", 0x8000)
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
