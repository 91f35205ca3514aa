#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""What systemd does with prsyncd.socket and prsyncd.service, for tests on
machines where systemd is not PID 1 (systemd-socket-activate cannot
restart its command: it hands the socket over and is gone).

  sockunit.py PORT STATE [--stop-timeout S] -- CMD [ARG]...

Listens on 127.0.0.1:PORT (backlog 128) and keeps that socket open until
it exits, as the socket unit does.  Runs CMD with the socket as fd 3
(LISTEN_FDS=1, LISTEN_PID, LISTEN_FDNAMES=rsync), as the service.

  SIGHUP   restart, as 'systemctl restart' with KillMode=mixed: SIGTERM
           to CMD's process only; once it has exited (or at S seconds,
           default 75, SIGKILL), SIGKILL to whatever it left (this process
           is a child subreaper, standing in for the unit's cgroup); then
           CMD again on the same socket.
  SIGTERM  the same stop, then exit.

Appends "start PID", "exit PID STATUS" and "killed N" lines to STATE.
Every wait is bounded; the whole run is bounded to an hour.
"""
import ctypes, os, signal, socket, sys, time

PR_SET_CHILD_SUBREAPER = 36


def note(state, text):
    with open(state, "a") as f:
        f.write(text + "\n")


def start(sock, cmd, state):
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(sock.fileno(), 3)
            os.set_inheritable(3, True)
            for s in (signal.SIGHUP, signal.SIGTERM):
                signal.signal(s, signal.SIG_DFL)
            env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()),
                       LISTEN_FDNAMES="rsync")
            os.execvpe(cmd[0], cmd, env)
        finally:
            os._exit(127)
    note(state, "start %d" % pid)
    return pid


def children():
    """Our children, the orphans we adopted as subreaper included."""
    me, out = os.getpid(), []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        if int(st[st.rindex(")") + 2:].split()[1]) == me:
            out.append(int(d))
    return out


def reap(main, state):
    """Reaps every exited child; True if MAIN was among them."""
    gone = False
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return gone
        if pid == 0:
            return gone
        if pid == main:
            note(state, "exit %d %d" % (pid, os.waitstatus_to_exitcode(status)))
            gone = True


def stop(main, state, timeout):
    """MAIN: the running CMD, or None if it has already exited."""
    if main is not None:
        os.kill(main, signal.SIGTERM)
        end = time.monotonic() + timeout
        while not reap(main, state):
            if time.monotonic() >= end:
                os.kill(main, signal.SIGKILL)
                end = time.monotonic() + 5
            time.sleep(0.05)
    left = children()
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    note(state, "killed %d" % len(left))
    end = time.monotonic() + 5
    while children() and time.monotonic() < end:
        reap(None, state)
        time.sleep(0.05)


def main():
    a = sys.argv[1:]
    port, state = int(a.pop(0)), a.pop(0)
    timeout = 75.0
    while a and a[0] != "--":
        k = a.pop(0)
        if k == "--stop-timeout":
            timeout = float(a.pop(0))
        else:
            sys.exit("unknown argument " + k)
    cmd = a[1:]
    if not cmd:
        sys.exit(__doc__)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    sock.set_inheritable(True)
    asked = []
    signal.signal(signal.SIGHUP, lambda *_: asked.append("restart"))
    signal.signal(signal.SIGTERM, lambda *_: asked.append("stop"))
    pid = start(sock, cmd, state)
    end = time.monotonic() + 3600
    while time.monotonic() < end:
        if asked:
            what = asked.pop(0)
            stop(pid, state, timeout)
            if what == "stop":
                return 0
            pid = start(sock, cmd, state)
        elif reap(pid, state):
            pid = None  # an exit of its own is noted, not restarted
        time.sleep(0.05)
    stop(pid, state, timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
