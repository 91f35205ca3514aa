#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A tiny inetd for tests: listens on 127.0.0.1:PORT, and for each of at
most N connections runs CMD with the connection on standard input and
standard output (stderr goes to ERRFILE), as inetd's "nowait" services
are started.  Prints the port, then exits after N connections have been
served and their commands have ended (bounded by 60 s).

  inetd.py N ERRFILE CMD...
"""
import socket, subprocess, sys, time

def main():
    n, errfile, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    print(srv.getsockname()[1], flush=True)
    srv.settimeout(60)
    procs = []
    with open(errfile, "ab") as err:
        for _ in range(n):
            try:
                c, _ = srv.accept()
            except socket.timeout:
                break
            procs.append(subprocess.Popen(cmd, stdin=c.fileno(), stdout=c.fileno(), stderr=err))
            c.close()
        end = time.time() + 60
        for p in procs:
            try:
                p.wait(max(0.1, end - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()

main()
