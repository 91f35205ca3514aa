#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The test client of the hostile stand-ins for the worker
(tests/tools/hostile_*.c): sends the mode line, prints every line the
stand-in reports, and acts on the ones that ask the test to do something
while the session monitor waits, answering each with "go":

  SELECTED ppid=N ...  remembers N, the session monitor
  HOLD NAME            prints "PROC NAME fds=.. rss_kb=.. state=.." of the
                       monitor (for "noread", first waits up to 5 s for it
                       to be asleep: a monitor that must end up waiting)
  HOLD                 prints "PROC KEY=VALUE" of the monitor's status
                       (name, seccomp, ids, capabilities) and its root
  SWAP                 MODDIR/d becomes a symlink to /etc
  SWAPMID1, SWAPMID2   once the monitor logs that it holds the link,
                       LNKDIR's prepared replacement is renamed over it

  lineclient.py PORT MODE [--timeout S] [--moddir D] [--lnkdir D] [--log F]

Every wait is bounded; the whole run by --timeout (default 120 s).
"""
import os, socket, sys, time

def status(pid):
    out = {}
    for l in open("/proc/%s/status" % pid):
        k, _, v = l.partition(":")
        out[k] = " ".join(v.split())
    return out

def main():
    a = sys.argv[1:]
    port, mode = int(a.pop(0)), a.pop(0)
    opt = {"--timeout": "120", "--moddir": "", "--lnkdir": "", "--log": ""}
    while a:
        k = a.pop(0)
        if k not in opt or not a:
            sys.exit("lineclient.py: bad argument " + k)
        opt[k] = a.pop(0)
    logf = opt["--log"]

    def holds():
        return open(logf, errors="replace").read().count("test hook: holding link") if logf else 0

    def await_hold(n):
        t = time.time() + 10
        while holds() < n and time.time() < t:
            time.sleep(0.05)

    held0 = holds()
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.sendall((mode + "\n").encode())
    s.settimeout(0.5)
    buf, ppid, end = b"", None, time.time() + float(opt["--timeout"])
    while time.time() < end:
        try:
            b = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not b:
            break
        buf += b
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            t = line.decode("latin-1")
            print(t, flush=True)
            w = t.split()
            if t.startswith("SELECTED "):
                ppid = dict(x.split("=", 1) for x in w[1:] if "=" in x).get("ppid")
                continue
            if t.startswith("HOLD "):
                name = w[1]
                try:
                    st = status(ppid)
                    for _ in range(50 if name == "noread" else 0):
                        if st.get("State", "?").startswith("S"):
                            break
                        time.sleep(0.1)
                        st = status(ppid)
                    fds = len(os.listdir("/proc/%s/fd" % ppid))
                    print("PROC %s fds=%d rss_kb=%s state=%s" % (name, fds, st.get("VmRSS", "0 kB").split()[0],
                          st.get("State", "?").split()[0]), flush=True)
                except (OSError, TypeError) as e:
                    print("PROC %s error %s" % (name, e), flush=True)
            elif t == "HOLD":
                st = status(ppid)
                for k in ("Name", "Seccomp", "NoNewPrivs", "Uid", "Gid", "Groups", "CapEff", "CapPrm"):
                    print("PROC %s=%s" % (k, st.get(k, "")), flush=True)
                print("PROC cwd-root=%s" % os.readlink("/proc/%s/root" % ppid), flush=True)
            elif t == "SWAP":
                d = os.path.join(opt["--moddir"], "d")
                os.rename(d, d + ".old")
                os.symlink("/etc", d)
            elif t == "SWAPMID1":
                await_hold(held0 + 1)  # the monitor holds the link: swap it now
                os.rename(os.path.join(opt["--lnkdir"], "hold.new1"), os.path.join(opt["--lnkdir"], "prsyncd-test-hold"))
            elif t == "SWAPMID2":
                await_hold(held0 + 3)
                os.rename(os.path.join(opt["--lnkdir"], "w/hold.new2"), os.path.join(opt["--lnkdir"], "w/prsyncd-test-hold"))
            else:
                continue
            s.sendall(b"go\n")
    if buf:
        print(buf.decode("latin-1"), flush=True)

main()
