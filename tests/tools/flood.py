#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Many idle connections for the limits load test.

  flood.py PORT N SRC READY GO [--send TEXT]

Opens N connections to 127.0.0.1:PORT from the local address SRC, one
after another (each waits, at most 5 s, for the server's first line),
sending TEXT (Python escapes) on each if given, and then nothing more.
When no connection has changed state for 2 s (at most 60 s), writes
"held=H host=R module=M other=O busy=B" to READY: held connections are open with
no @ERROR; host and module count the per-host and per-module refusals,
busy the listener's refusals when it has no room for another session
(each connection then closed); other is anything else (a connection
dropped without a word among them).  Then it waits for the file GO (at
most 120 s) and closes everything.
"""
import codecs, os, resource, selectors, socket, sys, time

def main():
    a = sys.argv[1:]
    port, n, src, ready, go = int(a[0]), int(a[1]), a[2], a[3], a[4]
    send = codecs.decode(a[6], "unicode_escape").encode("latin-1") if len(a) > 6 and a[5] == "--send" else None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 256), hard))
    sel = selectors.DefaultSelector()
    conns = []
    for _ in range(n):
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            if send:
                s.sendall(send)
            first = s.recv(4096)
        except OSError:
            first = b"CONNECT-FAILED"
        s.setblocking(False)
        st = {"sock": s, "data": first, "closed": first == b""}
        conns.append(st)
        if not st["closed"]:
            sel.register(s, selectors.EVENT_READ, st)
    last_change, end = time.time(), time.time() + 60
    while time.time() < end and time.time() - last_change < 2:
        for key, _ in sel.select(0.2):
            st = key.data
            try:
                b = st["sock"].recv(4096)
            except OSError:
                b = b""
            if b:
                st["data"] += b
            else:
                st["closed"] = True
                sel.unregister(st["sock"])
            last_change = time.time()
    held = host = module = other = busy = 0
    for st in conns:
        d = st["data"]
        if b"@ERROR: max connections per host" in d and st["closed"]:
            host += 1
        elif b"@ERROR: max connections (" in d and st["closed"]:
            module += 1
        elif b"@ERROR: too many connections to this server" in d and st["closed"]:
            busy += 1
        elif not st["closed"] and b"@ERROR" not in d and d.startswith(b"@RSYNCD:"):
            held += 1
        else:
            other += 1
    with open(ready + ".tmp", "w") as f:
        f.write("held=%d host=%d module=%d other=%d busy=%d\n" % (held, host, module, other, busy))
    os.rename(ready + ".tmp", ready)
    end = time.time() + 120
    while not os.path.exists(go) and time.time() < end:
        time.sleep(0.1)
    for st in conns:
        st["sock"].close()

main()
