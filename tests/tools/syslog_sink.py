#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A stand-in for the syslog daemon, for tests: binds a datagram socket at
PATH (the test runs it as /dev/log inside a private mount namespace),
appends every record received to OUT, one per line, and exits on SIGTERM
or after --timeout seconds (default 120).

  syslog_sink.py PATH OUT [--timeout S]
"""
import os, signal, socket, sys, time

def main():
    a = sys.argv[1:]
    path, out = a[0], a[1]
    timeout = float(a[a.index("--timeout") + 1]) if "--timeout" in a else 120.0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    os.chmod(path, 0o666)
    s.settimeout(0.5)
    end = time.time() + timeout
    with open(out, "ab", buffering=0) as f:
        while time.time() < end:
            try:
                d = s.recv(65536)
            except socket.timeout:
                continue
            f.write(d.rstrip(b"\n").replace(b"\n", b"\\n") + b"\n")

if __name__ == "__main__":
    main()
