#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A raw rsync-daemon client for tests: sends scripted bytes, prints what
the server sent (repr or hex), and exits when the server closes or the
bounded timeout passes.

  rawclient.py PORT [--send TEXT]... [--delay S] [--trickle] [--hold S]
               [--timeout S] [--hex | --how]

TEXT uses Python escapes (\\n, \\x00).  --send items are sent in order,
--delay seconds apart (with --trickle, one byte at a time, each byte
--delay apart: a client that stalls the handshake); --hold keeps the
connection open that long after the last send (for tests that inspect the
worker meanwhile).  --how prints one line: how the connection ended (EOF,
RESET, or TIMEOUT when still open after --timeout, default 15 s) and what
the server sent, newlines shown as "|".
"""
import socket, sys, time, codecs

def main():
    args = sys.argv[1:]
    port = int(args.pop(0))
    sends, delay, hold, hexout, timeout, trickle, how = [], 0.0, 0.0, False, 15.0, False, False
    while args:
        a = args.pop(0)
        if a == "--send": sends.append(codecs.decode(args.pop(0), "unicode_escape").encode("latin-1"))
        elif a == "--delay": delay = float(args.pop(0))
        elif a == "--hold": hold = float(args.pop(0))
        elif a == "--timeout": timeout = float(args.pop(0))
        elif a == "--hex": hexout = True
        elif a == "--trickle": trickle = True
        elif a == "--how": how = True
        else: sys.exit("unknown argument " + a)
    s = socket.create_connection(("127.0.0.1", port), 5)
    ended = "TIMEOUT"
    pieces = [d[i:i + 1] for d in sends for i in range(len(d))] if trickle else sends
    try:
        for i, d in enumerate(pieces):
            if i and delay: time.sleep(delay)
            s.sendall(d)
    except OSError:
        ended = "RESET"
    if hold: time.sleep(hold)
    s.settimeout(0.5)
    out = b""
    end = time.time() + timeout
    while ended == "TIMEOUT" and time.time() < end:
        try:
            b = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            ended = "RESET"
            break
        if not b:
            ended = "EOF"
            break
        out += b
    s.close()
    if how: print(ended, out.decode("latin-1").replace("\n", "|"))
    elif hexout: sys.stdout.write(out.hex() + "\n")
    else: sys.stdout.buffer.write(out)

main()
