#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A client that goes silent (or stays slow) at a chosen point of a daemon
session, for the tests of the `timeout` directive (t_timeout.sh).  Prints
one line:

  CLOSED <seconds since the client's last byte> <bytes received> [texts]
  OPEN <seconds> <bytes received>          (still open at the end)

and, for slowread, DONE when the whole file arrived.  Every wait is bounded
by --limit (default 20 s).

  timeoutclient.py PORT MODE MODULE [FILE [LOG|SIZE]] [--limit S] [--rate BYTES_PER_S]
                   [--ready PATH]   (created when the client goes silent)
  MODE: greet     read the greeting, send nothing
        args      greeting and module, then half of the arguments
        trickle   the greeting, the module and arguments one byte a second
        login     the greeting and a module that asks for a login: the
                  challenge read, then nothing
        afterlist a full setup and filter list, then nothing (the file list
                  arrives; the server waits for requests)
        midsums   request FILE with a sum head of 64 blocks, send half of them
        midfile   request FILE whole, then stop reading (small receive buffer);
                  FILE is followed by the server's LOG, watched for the
                  timeout: prints CUT or NOCUT and the seconds
        slowread  request FILE whole and read it at --rate (small receive
                  buffer), sending nothing; FILE is followed by its size
"""
import socket
import struct
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from evilclient import Client  # noqa: E402


def opts(argv):
    pos, kw = [], {"--limit": "20", "--rate": "0", "--ready": ""}
    while argv:
        a = argv.pop(0)
        if a in kw:
            kw[a] = argv.pop(0)
        else:
            pos.append(a)
    global READY
    READY = kw["--ready"]
    return pos, float(kw["--limit"]), float(kw["--rate"])


READY = ""


def ready():
    """Tell the test the client reached its silent point."""
    if READY:
        open(READY, "w").close()


def wait_close(s, limit, last, got=0, rate=0.0, want=0):
    """Read until the server closes or `limit` passes; with rate, read at
    most that many bytes a second.  Returns (closed, got)."""
    end = time.time() + limit
    s.settimeout(0.25)
    while time.time() < end:
        if want and got >= want:
            return False, got
        try:
            b = s.recv(int(rate / 4) if rate else 65536)
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True, got
        if not b:
            return True, got
        got += len(b)
        if rate:
            time.sleep(0.25)
    return False, got


def report(closed, last, got, texts=()):
    t = time.time() - last
    extra = (" " + " | ".join(texts)) if texts else ""
    print("%s %.1f %d%s" % ("CLOSED" if closed else "OPEN", t, got, extra))


def main():
    (port, mode, module, *rest), limit, rate = opts(sys.argv[1:])
    port = int(port)
    fname = rest[0] if rest else ""
    if mode in ("greet", "args", "trickle", "login"):
        s = socket.create_connection(("127.0.0.1", port), 5)
        s.settimeout(5)
        first = s.recv(4096)
        got = len(first)
        last = time.time()
        if mode == "greet":
            time.sleep(0.2)
            s.settimeout(0.1)
            try:
                first += s.recv(4096)
            except socket.timeout:
                pass
            if b"@ERROR" in first:
                print("REFUSED", first.decode("latin-1").strip().replace("\n", "|"))
                return
            ready()
        elif mode == "args":
            s.sendall(b"@RSYNCD: 32.0 md5\n" + module.encode() + b"\n")
            buf = b""
            while b"@RSYNCD: OK\n" not in buf and b"@ERROR" not in buf:
                b = s.recv(4096)
                if not b:
                    break
                buf += b
            if b"@RSYNCD: OK\n" not in buf:
                print("REFUSED", buf.decode("latin-1").strip().replace("\n", "|"))
                return
            s.sendall(b"--server\0--sender\0")
            last = time.time()
            ready()
        elif mode == "login":
            # a module that asks for a login: the challenge, then silence
            s.sendall(b"@RSYNCD: 32.0 md5\n" + module.encode() + b"\n")
            buf = b""
            while b"@RSYNCD: AUTHREQD " not in buf and b"@ERROR" not in buf:
                b = s.recv(4096)
                if not b:
                    break
                buf += b
            if b"@RSYNCD: AUTHREQD " not in buf:
                print("REFUSED", buf.decode("latin-1").strip().replace("\n", "|"))
                return
            last = time.time()
            ready()
        elif mode == "trickle":
            msg = b"@RSYNCD: 32.0 md5\n" + module.encode() + b"\n--server\0--sender\0-r\0" + b"x" * 100
            s.settimeout(1)
            start = time.time()
            for ch in msg:
                try:
                    s.sendall(bytes([ch]))
                except OSError:
                    break
                last = time.time()
                try:
                    b = s.recv(4096)
                    if not b:
                        break
                    got += len(b)
                except socket.timeout:
                    pass
                except ConnectionResetError:
                    break
                if time.time() - start > limit:
                    break
            closed, got = wait_close(s, 2, last, got)
            # how long after the connection started, not after the last byte
            print("%s %.1f %d since-start %.1f" % ("CLOSED" if closed else "OPEN", time.time() - last,
                                                   got, time.time() - start))
            return
        closed, got = wait_close(s, limit, last, got)
        report(closed, last, got)
        return

    small = mode in ("midfile", "slowread")
    logfile = rest[1] if mode == "midfile" else ""
    logpos = __import__("os").path.getsize(logfile) if logfile else 0
    # afterlist names the module root: -r, or the sender skips it (as
    # rsyncd does) and ends at the empty list
    c = Client(port, module, ["--server", "--sender", "-re.LsfxCIvu" if mode == "afterlist" else "-e.LsfxCIvu",
                              "--checksum-choice=md5", ".", module + "/" + fname],
               rcvbuf=65536 if small else None)
    last = time.time()  # the empty filter list was the last byte sent
    if mode == "afterlist":
        ready()
        closed, got = drain_frames(c, limit)
        report(closed, last, got, c.texts)
        return
    # the file list: wait for its first data
    end = time.time() + 10
    while time.time() < end:
        code, payload = c.frame()
        if code == 0 and payload:
            break
    head = b"\x01" + struct.pack("<H", 0x8000)
    if mode == "midsums":
        c.send(head + struct.pack("<iiii", 64, 700, 16, 0) + b"\x11" * (20 * 32))
    else:
        c.send(head + struct.pack("<iiii", 0, 0, 0, 0))
    last = time.time()
    ready()
    if mode == "midsums":
        closed, got = drain_frames(c, limit)
        report(closed, last, got, c.texts)
    elif mode == "midfile":
        # Read nothing: the end cannot be seen on the socket (its data
        # comes first), so watch the server's log for the timeout.
        seen = ""
        while time.time() - last < limit and "io timeout" not in seen:
            time.sleep(0.1)
            with open(logfile, errors="replace") as f:
                f.seek(logpos)
                seen = f.read()
        print("%s %.1f" % ("CUT" if "io timeout" in seen else "NOCUT", time.time() - last))
    else:  # slowread
        want = int(rest[1]) if len(rest) > 1 else 0
        c.s.settimeout(0.25)
        closed, got = wait_close(c.s, limit, last, len(c.buf), rate, want)
        print("%s %d" % ("DONE" if got >= want else ("CLOSED" if closed else "OPEN"), got))


def drain_frames(c, limit):
    """Read until the server closes (or limit), then split what came into
    frames and keep their texts in c.texts."""
    raw = c.buf
    c.s.settimeout(0.25)
    end = time.time() + limit
    closed = False
    while time.time() < end:
        try:
            b = c.s.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            closed = True
            break
        if not b:
            closed = True
            break
        raw += b
    while len(raw) >= 4:
        h = struct.unpack("<I", raw[:4])[0]
        code, ln = (h >> 24) - 7, h & 0xffffff
        if code != 0:
            c.texts.append(raw[4:4 + ln].decode("latin-1", "replace").strip())
        elif ln == 0:
            c.texts.append("keepalive")
        raw = raw[4 + ln:]
    return closed, len(raw)


if __name__ == "__main__":
    main()
