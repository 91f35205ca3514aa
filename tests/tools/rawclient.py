#!/usr/bin/env python3
"""A raw rsync-daemon client for tests: sends scripted bytes, prints what
the server sent (repr or hex), and exits when the server closes or the
bounded timeout passes.

  rawclient.py PORT [--send TEXT]... [--delay S] [--hold S] [--hex]

TEXT uses Python escapes (\\n, \\x00).  --send items are sent in order,
--delay seconds apart; --hold keeps the connection open that long after
the last send (for tests that inspect the worker meanwhile).
"""
import socket, sys, time, codecs

def main():
    args = sys.argv[1:]
    port = int(args.pop(0))
    sends, delay, hold, hexout, timeout = [], 0.0, 0.0, False, 15.0
    while args:
        a = args.pop(0)
        if a == "--send": sends.append(codecs.decode(args.pop(0), "unicode_escape").encode("latin-1"))
        elif a == "--delay": delay = float(args.pop(0))
        elif a == "--hold": hold = float(args.pop(0))
        elif a == "--timeout": timeout = float(args.pop(0))
        elif a == "--hex": hexout = True
        else: sys.exit("unknown argument " + a)
    s = socket.create_connection(("127.0.0.1", port), 5)
    for i, d in enumerate(sends):
        if i and delay: time.sleep(delay)
        s.sendall(d)
    if hold: time.sleep(hold)
    s.settimeout(0.5)
    out = b""
    end = time.time() + timeout
    while time.time() < end:
        try:
            b = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not b: break
        out += b
    s.close()
    if hexout: sys.stdout.write(out.hex() + "\n")
    else: sys.stdout.buffer.write(out)

main()
