# SPDX-License-Identifier: ISC
"""What the hostile test clients (evilsums.py, evilinc.py) share: a
daemon connection at protocol 32 up to the multiplexed stream, frame
reading, and the ending that reports the server's messages.  Every wait
is bounded by the socket timeout and the caller's deadline."""
import socket
import struct
import time


class Client:
    def __init__(self, port, module, args, rcvbuf=None):
        """Connect, select `module`, send the server arguments `args`, read
        the compat flags and seed, send an empty filter list.  rcvbuf: a
        receive buffer size set before connecting (a client that stops
        reading then blocks the server sooner)."""
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.settimeout(5)
        self.s.connect(("127.0.0.1", port))
        self.s.settimeout(10)
        self.buf = b""
        self.texts = []
        self.s.sendall(b"@RSYNCD: 32.0 md5\n" + module.encode() + b"\n")
        while self.line() != "@RSYNCD: OK":
            pass
        self.s.sendall(b"".join(a.encode() + b"\0" for a in args) + b"\0")
        if self.need(1)[0] & 0x80:
            self.need(1)
        self.need(4)  # seed
        self.send(b"\0\0\0\0")  # empty filter list

    def need(self, n):
        while len(self.buf) < n:
            b = self.s.recv(65536)
            if not b:
                raise EOFError
            self.buf += b
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def line(self):
        while b"\n" not in self.buf:
            b = self.s.recv(65536)
            if not b:
                raise EOFError
            self.buf += b
        i = self.buf.index(b"\n")
        out, self.buf = self.buf[:i], self.buf[i + 1:]
        return out.decode("latin-1")

    def send(self, payload):
        """One MSG_DATA frame."""
        self.s.sendall(struct.pack("<I", (7 << 24) | len(payload)) + payload)

    def frame(self):
        """The next frame as (code, payload); text messages are kept."""
        h = struct.unpack("<I", self.need(4))[0]
        code, ln = (h >> 24) - 7, h & 0xffffff
        payload = self.need(ln)
        if code != 0:
            self.texts.append(payload.decode("latin-1", "replace").replace("\0", "").strip())
        if code == 86:  # MSG_ERROR_EXIT: acknowledge
            self.s.sendall(struct.pack("<I", (93 << 24)))
        return code, payload

    def finish(self, deadline):
        """Read until the server closes (or the deadline); print its
        messages and CLOSED/OPEN."""
        closed = False
        try:
            while time.time() < deadline:
                self.frame()
        except (EOFError, ConnectionResetError, socket.timeout):
            closed = True
        for t in self.texts:
            print("MSG", t)
        print("CLOSED" if closed else "OPEN")
