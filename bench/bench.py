#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Side-by-side benchmark: prsyncd against `rsync --daemon` (docs/performance.md).

  bench/bench.py [--full | --tiny] [--runs N] [--scenarios A,B,...]
                 [--data DIR] [--dest DIR] [--json FILE] [--servers LIST]
                 [--wrap CMD] [--poll-ms MS] [--list]

Both daemons serve the same data with one configuration file (read-only
modules, `use chroot = yes`, `uid = nobody`, `gid = nogroup`) on 127.0.0.1,
and the stock client pulls each scenario from each, alternating the order
run by run (A B, B A, A B, ...).  Per scenario it prints the medians of

  wall    first client start to last client exit, as the clients see it;
  CPU     server CPU: user+system time of the listening daemon and of every
          process it started: the growth of the daemon's own cgroup's CPU
          usage (exact), checked against the brief's definition, the
          listener's utime+stime+cutime+cstime in /proc/PID/stat read
          before the clients start and again once the listener has no
          child left, zombie or alive (rsyncd: listener -> session child;
          prsyncd: listener -> session monitor -> worker, each process
          reaping its child); without root, the /proc figure alone;
  memory  peak resident memory of one session: over the session's
          processes, the sum of each one's peak (the larger of its last
          sampled VmHWM and hiwater_rss in its taskstats exit record), the
          largest over the sessions of the measurement;

and the ratios prsyncd/rsyncd of each, then the CPU split by process
(taskstats exit records).  Sizes: the default fits a few
minutes on a 2-core machine; --full is the issue's table (20,000 files,
1 GiB, ...); --tiny is the test suite's smoke.  Test data is generated
deterministically (bench/mkdata.py) under --data (default
$PRSYNCD_BENCH_DATA or /var/tmp/prsyncd-bench-data) and reused by later
runs; destinations go under --dest (default a new directory in /dev/shm,
removed at the end).

--wrap CMD runs each daemon under CMD, with {server} replaced by its name
(e.g. --wrap 'perf record -e cpu-clock -g -o /tmp/perf.{server} --' or
'strace -f -qq -o /tmp/strace.{server}'); the listener is then found below
the wrapper.  For profiles (docs/performance.md, "Where the time goes"),
usually with --runs 1 --scenarios ID: a traced daemon's figures are not
comparable with an untraced one's.

Exit status 0 when every pull of every run succeeded, 1 otherwise.
"""
import argparse
import ctypes
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MKDATA = os.path.join(TOP, "bench", "mkdata.py")
HZ = os.sysconf("SC_CLK_TCK")
MiB = 1 << 20

# Data set sizes per level (c50's clients each pull one directory of the
# tree: 100 files, ~1.1 MB).
SIZES = {
    "tiny": dict(tree=60, big=2 * MiB, text=300_000, small=4096, seq=3,
                 t200k=300, t1m=500, c8=3, c50=4, bw=512 * 1024),
    "default": dict(tree=5000, big=256 * MiB, text=48_000_000, small=4096, seq=100,
                    t200k=50_000, t1m=99_000, c8=8, c50=50, bw=20_000_000),
    "full": dict(tree=20000, big=1024 * MiB, text=190_000_000, small=4096, seq=100,
                 t200k=200_000, t1m=990_000, c8=8, c50=50, bw=20_000_000),
}
BWLIMIT = 2000  # KiB/s: the bwlimit scenario's --bwlimit (issue 26's pull)

SERVERS = ("rsyncd", "prsyncd")


def log(*a):
    print("#", *a, file=sys.stderr, flush=True)


# ---- /proc ------------------------------------------------------------------

def proc_stat(pid):
    """(comm, ppid, utime+stime, cutime+cstime, starttime) in ticks, or None."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            s = f.read()
    except OSError:
        return None
    lp, rp = s.find(b"("), s.rfind(b")")
    comm = s[lp + 1:rp].decode(errors="replace")
    rest = s[rp + 2:].split()
    # rest[0] is field 3 (state): utime is field 14, starttime field 22
    return (comm, int(rest[1]), int(rest[11]) + int(rest[12]),
            int(rest[13]) + int(rest[14]), int(rest[19]))


def children(pid):
    out = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                out.extend(int(x) for x in f.read().split())
        except OSError:
            pass
    return out


def mem_status(pid):
    """(VmHWM, VmRSS) in KiB, or None (gone, or a zombie)."""
    hwm = rss = None
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                    break
    except OSError:
        return None
    if hwm is None or rss is None:
        return None
    return hwm, rss


def become_subreaper():
    """Orphans of the daemons' sessions come to us, so we can see them:
    a session process that was not reaped by its parent would otherwise
    vanish from the listener's cutime without a trace."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0      # PR_SET_CHILD_SUBREAPER
    except OSError:
        return False


def sched_ns(pid):
    """The scheduler's on-CPU time of one live process, in ns (exact)."""
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class TaskStats:
    """Exit records of every process, from the kernel's taskstats interface
    (generic netlink, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK): for each exiting
    task its pid, parent, name, on-CPU time in ns (se.sum_exec_runtime, the
    figure /proc's adjusted utime+stime add up to) and peak RSS (hiwater_rss,
    the same number as VmHWM, taken at exit, so no sampling can miss it).
    Root only; without it the benchmark falls back to /proc alone.  Read
    without a thread: the measurement loop drains the socket as it samples."""

    GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_FAMILY_ID = 0x10, 3, 2, 1
    CMD_GET, ATTR_REGISTER_CPUMASK, TYPE_STATS, TYPE_AGGR_PID = 1, 3, 3, 4

    def __init__(self):
        self.records = []
        self.drops = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)  # NETLINK_GENERIC
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)            # SO_RCVBUFFORCE
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        self.sock.bind((0, 0))
        self.sock.settimeout(5)
        self.sock.send(self._msg(self.GENL_ID_CTRL, self.CTRL_CMD_GETFAMILY,
                                 self._attr(self.CTRL_ATTR_FAMILY_NAME, b"TASKSTATS\0"), 1))
        a = self._attrs(self.sock.recv(65536)[20:])
        if self.CTRL_ATTR_FAMILY_ID not in a:
            raise OSError("no TASKSTATS netlink family")
        self.family = struct.unpack("H", a[self.CTRL_ATTR_FAMILY_ID][:2])[0]
        mask = b"0-%d\0" % (os.cpu_count() - 1)
        self.sock.send(self._msg(self.family, self.CMD_GET,
                                 self._attr(self.ATTR_REGISTER_CPUMASK, mask), 2))
        self.sock.settimeout(None)

    @staticmethod
    def _attr(t, data):
        n = 4 + len(data)
        return struct.pack("HH", n, t) + data + b"\0" * ((4 - n % 4) % 4)

    @staticmethod
    def _msg(typ, cmd, attrs, seq):
        body = struct.pack("BBH", cmd, 1, 0) + attrs
        return struct.pack("IHHII", 16 + len(body), typ, 1, seq, 0) + body  # NLM_F_REQUEST

    @staticmethod
    def _attrs(b):
        out, i = {}, 0
        while i + 4 <= len(b):
            n, t = struct.unpack_from("HH", b, i)
            if n < 4:
                break
            out.setdefault(t & 0x3fff, b[i + 4:i + n])
            i += (n + 3) & ~3
        return out

    def drain(self):
        """Read every record the kernel has queued (non-blocking).  A task's
        record is queued in its exit path, before its parent can reap it,
        so once a session is reaped its records are all here."""
        while True:
            try:
                buf = self.sock.recv(1 << 20, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            except OSError as e:
                if e.errno == 105:          # ENOBUFS: the kernel dropped records
                    self.drops += 1
                    continue
                raise
            off = 0
            while off + 16 <= len(buf):
                n, typ = struct.unpack_from("IH", buf, off)
                if n < 16:
                    break
                if typ == self.family:
                    agg = self._attrs(buf[off + 20:off + n]).get(self.TYPE_AGGR_PID)
                    st = self._attrs(agg).get(self.TYPE_STATS) if agg else None
                    if st and len(st) >= 216:
                        # struct taskstats (linux/taskstats.h): ac_comm at 80,
                        # ac_pid/ac_ppid at 128/132, cpu_run_virtual_total
                        # (se.sum_exec_runtime, ns) at 72, hiwater_rss (KiB) at 200
                        comm = st[80:112].split(b"\0")[0].decode(errors="replace")
                        pid, ppid = struct.unpack_from("II", st, 128)
                        cpu_ns = struct.unpack_from("Q", st, 72)[0]
                        hwm = struct.unpack_from("Q", st, 200)[0]
                        self.records.append((pid, ppid, comm, cpu_ns, hwm))
                off += (n + 3) & ~3

    def drain_and_clear(self):
        self.drain()
        self.records, self.drops = [], 0

    def take(self):
        self.drain()
        recs, drops = self.records, self.drops
        self.records, self.drops = [], 0
        return recs, drops


class CgroupCPU:
    """The CPU time of a daemon and everything it starts, in a cgroup of its
    own: cgroup v2's cpu.stat usage_usec (present with or without the cpu
    controller), else v1's cpuacct.usage (ns).  Exact, and complete: unlike
    an exit record it also counts what a process spends after its record is
    taken (tearing down its address space and descriptors), and unlike
    /proc's clock ticks it is not rounded to 10 ms.  Only accounting: no
    controller limits anything.  Root only; None when unavailable."""

    def __init__(self, name):
        self.path = self.kind = None
        roots = []
        with open("/proc/mounts") as f:
            for line in f:
                dev, mnt, fstype, opts = line.split()[:4]
                if fstype == "cgroup2":
                    roots.append(("v2", mnt))
                elif fstype == "cgroup" and "cpuacct" in opts.split(","):
                    roots.append(("v1", mnt))
        roots.sort()                      # v2 first
        for kind, mnt in roots:
            path = os.path.join(mnt, "prsyncd-bench.%d.%s" % (os.getpid(), name))
            try:
                os.mkdir(path)
            except OSError:
                continue
            self.path, self.kind = path, kind
            if self.usage_ns() is not None:
                return
            self.remove()
        raise OSError("no writable cgroup hierarchy")

    def add(self, pid):
        with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
            f.write("%d\n" % pid)

    def usage_ns(self):
        try:
            if self.kind == "v2":
                with open(os.path.join(self.path, "cpu.stat")) as f:
                    for line in f:
                        if line.startswith("usage_usec "):
                            return int(line.split()[1]) * 1000
                return None
            with open(os.path.join(self.path, "cpuacct.usage")) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    def remove(self):
        if self.path is None:
            return
        for _ in range(50):
            try:
                os.rmdir(self.path)
                break
            except OSError:
                time.sleep(0.1)
        self.path = None


def session_trees(records, listener):
    """Group exit records into sessions: each child of the listener and all
    its descendants.  Returns [[record, ...], ...]."""
    kids = {}
    for r in records:
        kids.setdefault(r[1], []).append(r)
    out = []
    for root in kids.get(listener, []):
        procs, stack, depth = [], [root], 0
        while stack and depth < 10000:
            r = stack.pop()
            procs.append(r)
            stack.extend(x for x in kids.get(r[0], []) if x is not r)
            depth += 1
        out.append(procs)
    return out


# ---- daemons ------------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, limit=15.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


class Daemon:
    def __init__(self, name, argv, work, wrap=None):
        self.name, self.work = name, work
        self.port = free_port()
        self.argv = argv + ["--port=%d" % self.port]
        if wrap:
            self.argv = shlex.split(wrap) + self.argv
        self.proc = None
        self.pid = None           # the listener
        self.cg = None            # its CgroupCPU, if any

    def start(self):
        out = open(os.path.join(self.work, self.name + ".stderr"), "ab")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT)
        out.close()
        if not wait_port(self.port, self.proc):
            raise RuntimeError("%s did not start on port %d (see %s/%s.stderr)"
                               % (self.name, self.port, self.work, self.name))
        # The listener is the process we started, or (wrapped) the first
        # process below it running the daemon's own binary.
        want = "rsync" if self.name == "rsyncd" else "prsyncd"
        pid, end = self.proc.pid, time.monotonic() + 10
        while time.monotonic() < end:
            st = proc_stat(pid)
            if st and st[0] == want:
                self.pid = pid
                try:
                    self.cg = CgroupCPU(self.name)
                    self.cg.add(pid)
                except OSError as e:
                    if self.cg:
                        self.cg.remove()
                    self.cg = None
                    log("%s: no cgroup for CPU accounting (%s)" % (self.name, e))
                return
            kids = children(pid)
            pid = kids[0] if kids else self.proc.pid
            time.sleep(0.01)
        raise RuntimeError("%s: listener not found below pid %d" % (self.name, self.proc.pid))

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.kill(self.pid or self.proc.pid, signal.SIGTERM)
            except OSError:
                pass
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.cg:
            self.cg.remove()
            self.cg = None


def write_config(path, paths):
    # As root both daemons chroot into the module and drop to nobody, as a
    # mirror would; otherwise neither can, and both run as the caller.
    if os.geteuid() == 0:
        extra = "\tuse chroot = yes\n\tuid = nobody\n\tgid = nogroup\n"
    else:
        extra = "\tuse chroot = no\n"
    with open(path, "w") as f:
        f.write("# generated by bench/bench.py: the same file for both daemons\n")
        for m in sorted(paths):
            f.write("[%s]\n\tpath = %s\n\tread only = yes\n%s" % (m, paths[m], extra))


# ---- one measurement ----------------------------------------------------------

class Measurement:
    """Runs client jobs against one daemon and watches its sessions."""

    def __init__(self, daemon, poll, ts):
        self.d, self.poll_s, self.ts = daemon, poll, ts
        self.sessions = {}        # (root pid, start) -> {pid: [comm, hwm, cpu]}, and rss max
        self.seen = {}            # (pid, start) -> session key
        self.total_rss = 0

    def sample(self):
        if self.ts:
            self.ts.drain()
        tot = 0
        for root in children(self.d.pid):
            st = proc_stat(root)
            if st is None:
                continue
            key = (root, st[4])
            sess = self.sessions.setdefault(key, {"procs": {}, "rss": 0})
            rss_sum, stack = 0, [(root, st)]
            while stack:
                pid, pst = stack.pop()
                if pst is None:
                    pst = proc_stat(pid)
                    if pst is None:
                        continue
                m = mem_status(pid)
                if m is not None:
                    e = sess["procs"].setdefault((pid, pst[4]), [pst[0], 0, 0, 0])
                    e[3] = max(e[3], m[1])
                    e[0] = pst[0]
                    e[1] = max(e[1], m[0])
                    e[2] = max(e[2], pst[2])
                    self.seen[(pid, pst[4])] = key
                    rss_sum += m[1]
                stack.extend((k, None) for k in children(pid))
            sess["rss"] = max(sess["rss"], rss_sum)
            tot += rss_sum
        self.total_rss = max(self.total_rss, tot)

    def orphans(self, clients, daemons=()):
        """Session processes re-parented to us (we are a subreaper): not
        reaped by their parent, so missing from the listener's cutime.
        Returns their pids; zombies among them are reaped here."""
        out = []
        for pid in children(os.getpid()):
            if pid in clients or pid in daemons:
                continue
            st = proc_stat(pid)
            if st is None:
                continue
            # seen below the listener, or a prsyncd binary (a client's own
            # orphan, also named rsync, is not the server's)
            if (pid, st[4]) in self.seen or st[0].startswith("prsyncd"):
                out.append(pid)
                try:
                    os.waitpid(pid, os.WNOHANG)
                except OSError:
                    pass
        return out

    def run(self, jobs, concurrency, daemon_pids, linger=60.0):
        L = self.d.pid
        end = time.monotonic() + linger
        while children(L) and time.monotonic() < end:
            time.sleep(0.02)
        if children(L):
            raise RuntimeError("%s: sessions of an earlier measurement are still running" % self.d.name)
        if self.ts:
            self.ts.drain_and_clear()
        c0, s0 = proc_stat(L), sched_ns(L)
        g0 = self.d.cg.usage_ns() if self.d.cg else None
        pending, results = list(enumerate(jobs)), [None] * len(jobs)
        client_pids, lock = set(), threading.Lock()

        def runner():
            # One thread per concurrent client slot: the next sequential
            # client starts the moment the previous one exits, and each
            # client's end is timed exactly, whatever the sampling interval.
            while True:
                with lock:
                    if not pending:
                        return
                    i, (argv, outpath) = pending.pop(0)
                with open(outpath, "wb") as out:
                    t = time.monotonic()
                    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT)
                with lock:
                    client_pids.add(p.pid)
                rc = p.wait()
                results[i] = (rc, t, time.monotonic(), outpath)
        threads = [threading.Thread(target=runner, daemon=True)
                   for _ in range(min(concurrency, len(jobs)))]
        for th in threads:
            th.start()
        while any(th.is_alive() for th in threads):
            self.sample()
            time.sleep(self.poll_s)
        for th in threads:
            th.join()
        t_first = min(r[1] for r in results)
        t_last = max(r[2] for r in results)
        # The clients are done; the sessions may still be finishing.
        end = time.monotonic() + linger
        while children(L) and time.monotonic() < end:
            self.sample()
            time.sleep(self.poll_s / 2)
        reaped = not children(L)
        c1, s1 = proc_stat(L), sched_ns(L)
        g1 = self.d.cg.usage_ns() if self.d.cg else None
        orphans = self.orphans(client_pids, daemon_pids)
        res = {
            "rc": [r[0] for r in results],
            "client_wall": [round(r[2] - r[1], 4) for r in results],
            "wall": round(t_last - t_first, 4),
            # the /proc figure: the listener's utime+stime+cutime+cstime
            "cpu_proc": ((c1[2] + c1[3]) - (c0[2] + c0[3])) / HZ,
            "reaped": reaped,
            "orphans": len(orphans),
            "mem_sampled_kb": max((sum(v[1] for v in x["procs"].values())
                                   for x in self.sessions.values()), default=0),
            "mem_rss_kb": max((x["rss"] for x in self.sessions.values()), default=0),
            "mem_all_kb": self.total_rss,
            "sampled_procs": [[v[0], v[1], v[3]] for x in self.sessions.values() for v in x["procs"].values()][:8],
            "transferred": [files_transferred(r[3]) for r in results],
        }
        res["cpu"], res["cpu_source"] = res["cpu_proc"], "proc"
        res["mem_kb"], res["mem_source"] = res["mem_sampled_kb"], "sampled"
        if g0 is not None and g1 is not None:
            res["cpu_cgroup"] = (g1 - g0) / 1e9
        listener_s = (s1 - s0) / 1e9 if s0 is not None and s1 is not None else (c1[2] - c0[2]) / HZ
        split = {"listener": listener_s}
        if self.ts:
            recs, drops = self.ts.take()
            trees = session_trees(recs, L)
            lost = [r for r in recs if r[0] in orphans]
            for tree in trees:
                for r in tree:
                    split[r[2]] = split.get(r[2], 0.0) + r[3] / 1e9
            res.update(
                ts_drops=drops, sessions=len(trees),
                procs_per_session=max((len(t) for t in trees), default=0),
                orphan_cpu=sum(r[3] for r in lost) / 1e9)
            # A process's peak: the larger of its last sampled VmHWM (exact
            # while it lived) and hiwater_rss at exit (covers what came after
            # the last sample, and processes too short to be sampled; the
            # kernel computes it from per-CPU counters, so it can be a little
            # low).
            sampled = {}
            for x in self.sessions.values():
                for (pid, _start), v in x["procs"].items():
                    sampled[pid] = max(sampled.get(pid, 0), v[1])

            def peak(t):
                return sum(max(r[4], sampled.get(r[0], 0)) for r in t)
            if trees:
                big = max(trees, key=peak)
                res["peak_session"] = [[r[2], round(r[3] / 1e9, 4), r[4], sampled.get(r[0], 0)]
                                       for r in big]
            if drops == 0 and trees:
                # the listener's own time plus every session process's,
                # up to its exit record
                res["cpu_exit_records"] = listener_s + sum(r[3] for t in trees for r in t) / 1e9
                res["mem_kb"] = max(peak(t) for t in trees)
                res["mem_source"] = "taskstats"
        if "cpu_cgroup" in res:
            res["cpu"], res["cpu_source"] = res["cpu_cgroup"], "cgroup"
        else:
            res.update(sessions=len(self.sessions),
                       procs_per_session=max((len(x["procs"]) for x in self.sessions.values()), default=0))
        if "cpu_exit_records" in res:
            split["rest"] = res["cpu"] - sum(split.values())
        res["split"] = {k: round(v, 4) for k, v in split.items()}
        return res


def files_transferred(path):
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("Number of regular files transferred:"):
                    return int(line.split(":")[1].replace(",", ""))
    except OSError:
        pass
    return None


# ---- scenarios --------------------------------------------------------------

class Scenario:
    def __init__(self, sid, label, module, dest_kind, opts=(), src="", nclients=1,
                 concurrency=1, nbytes=0):
        self.sid, self.label, self.module = sid, label, module
        self.dest_kind, self.opts, self.src = dest_kind, list(opts), src
        self.nclients, self.concurrency = nclients, concurrency
        self.nbytes = nbytes     # what one pull carries, for a rate (0: not reported)


def scenarios(sz, stamps):
    def desc(name):
        return stamps.get(name, "")
    mb = lambda n: "%d MB" % round(n / 1e6) if n >= 1e6 else "%d kB" % round(n / 1e3)
    tree_bytes = int(dict(kv.split("=") for kv in desc("tree").split()).get("bytes", 0) or 0)
    tree_bytes = tree_bytes or sz["tree"] * 11326      # before the data exist: the mean size
    tl = "%s files (%s)" % (format(sz["tree"], ","), mb(tree_bytes))
    big = sz["big"]
    bl = "one %s file" % ("%d GiB" % (big >> 30) if big >= 1 << 30 else "%d MiB" % (big >> 20))
    t1m_entries = sz["t1m"] + -(-sz["t1m"] // 100) + -(-sz["t1m"] // 10000) + 1
    return [
        Scenario("tree-cold", tl + " into an empty destination", "tree", "empty"),
        Scenario("tree-uptodate", tl + ", destination up to date", "tree", "seeded"),
        Scenario("tree-c", tl + ", up to date, with `-c`", "tree", "seeded", ["-c"]),
        Scenario("big-cold", bl + ", cold", "big", "empty"),
        Scenario("big-delta", bl + ", destination holding an edited copy (default checksum)",
                 "big", "basis"),
        Scenario("big-md5", bl + ", edited copy, `--checksum-choice=md5`", "big", "basis",
                 ["--checksum-choice=md5"]),
        Scenario("text-z", "%s of text with `-z`" % mb(sz["text"]), "text", "empty", ["-z"]),
        Scenario("c8", "%d clients pulling the %s files at once" % (sz["c8"], format(sz["tree"], ",")),
                 "tree", "multi", nclients=sz["c8"], concurrency=sz["c8"]),
        Scenario("seq", "%d sequential pulls of one small file (%d bytes)" % (sz["seq"], sz["small"]),
                 "small", "multi", src="one.txt", nclients=sz["seq"], concurrency=1),
        Scenario("t200k", "%s files, destination up to date" % format(sz["t200k"], ","),
                 "t200k", "seeded"),
        Scenario("t1m-inc", "%s-entry tree, up to date (inc-recursion)" % format(t1m_entries, ","),
                 "t1m", "seeded"),
        Scenario("t1m-noinc", "%s-entry tree, up to date, `--no-inc-recursive`" % format(t1m_entries, ","),
                 "t1m", "seeded", ["--no-inc-recursive"]),
        Scenario("c50", "%d concurrent clients, each pulling 100 files (one directory)" % sz["c50"],
                 "tree", "multi", src="g00/d00/", nclients=sz["c50"], concurrency=sz["c50"]),
        Scenario("bwlimit", "one %s file with `--bwlimit=%d` (a rate: see the notes)" % (mb(sz["bw"]), BWLIMIT),
                 "bw", "empty", ["--bwlimit=%d" % BWLIMIT], nbytes=sz["bw"]),
    ]


DATASETS = {    # module -> (mkdata kind, size key)
    "tree": ("tree", "tree"), "big": ("big", "big"), "text": ("text", "text"),
    "small": ("small", "small"), "t200k": ("tiny", "t200k"), "t1m": ("tiny", "t1m"),
    "bw": ("big", "bw"),
}


def data_name(module, sz):
    """Each size of a data set has its own directory, so the default, --full
    and --tiny sizes are all cached side by side."""
    return "%s-%d" % (module, sz[DATASETS[module][1]])


def make_data(data_dir, modules, sz):
    stamps = {}
    for m in modules:
        kind, key = DATASETS[m]
        name = data_name(m, sz)
        t = time.monotonic()
        r = subprocess.run([sys.executable, MKDATA, data_dir, kind, name, str(sz[key])],
                           stdout=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("mkdata.py %s failed" % name)
        log("%s (%.1f s)" % (r.stdout.strip(), time.monotonic() - t))
        with open(os.path.join(data_dir, name + ".stamp")) as f:
            stamps[m] = f.read().split("\n")[1]
    return stamps


def rmtree(path):
    if os.path.lexists(path):
        subprocess.run(["rm", "-rf", "--one-file-system", path], check=False)


def warm(path):
    """Read a data set once, so the first measured pull finds it in the page cache."""
    buf = bytearray(1 << 20)
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            try:
                with open(os.path.join(dirpath, name), "rb", buffering=0) as f:
                    while f.readinto(buf):
                        pass
            except OSError:
                pass


class Bench:
    def __init__(self, args):
        self.a = args
        self.sz = SIZES[args.level]
        self.runs = args.runs
        self.results = []         # dicts: scenario, server, run, ...
        self.seeded = set()

    def client_argv(self, daemon, sc, dest, extra=()):
        url = "rsync://127.0.0.1:%d/%s/%s" % (daemon.port, sc.module, sc.src)
        return ["timeout", str(self.a.client_timeout), "rsync", "--contimeout=10", "-a", "--stats"] \
            + sc.opts + list(extra) + [url, dest]

    def prepare_run(self, sc, dest):
        """Untimed: put the destination in the state the scenario starts from."""
        if sc.dest_kind in ("empty", "multi"):
            rmtree(dest)
            os.makedirs(dest)
        elif sc.dest_kind == "basis":
            os.makedirs(dest, exist_ok=True)
            target = os.path.join(dest, "big.bin")
            for n in os.listdir(dest):
                if n != "big.bin":
                    rmtree(os.path.join(dest, n))
            src = os.path.join(self.a.data, data_name("big", self.sz) + ".edit")
            shutil.copyfile(src, target)
            st = os.stat(src)
            os.chmod(target, 0o644)
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))

    def jobs(self, daemon, sc, dest, tag):
        if sc.dest_kind == "multi":
            return [(self.client_argv(daemon, sc, os.path.join(dest, "c%03d/" % i)),
                     os.path.join(self.work, "%s.%d.out" % (tag, i))) for i in range(sc.nclients)]
        return [(self.client_argv(daemon, sc, dest + "/"), os.path.join(self.work, tag + ".out"))]

    def seed(self, sc, dest):
        src = os.path.join(self.a.data, data_name(sc.module, self.sz)) + "/"
        t = time.monotonic()
        r = subprocess.run(["rsync", "-a", "--delete", src, dest + "/"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("seeding %s failed: %s" % (dest, r.stderr[-500:]))
        log("%s: destination seeded (%.1f s)" % (sc.sid, time.monotonic() - t))

    def run_scenario(self, sc, daemons, next_sc):
        if sc.dest_kind == "seeded":
            # One seeded copy serves consecutive scenarios of the same data.
            dest = os.path.join(self.dest_root, "seeded-" + sc.module)
            if dest not in self.seeded:
                self.seed(sc, dest)
                self.seeded.add(dest)
        else:
            dest = os.path.join(self.dest_root, sc.sid)
            warm(os.path.join(self.a.data, data_name(sc.module, self.sz)))
        for r in range(self.runs):
            order = list(daemons) if r % 2 == 0 else list(reversed(daemons))
            for d in order:
                self.prepare_run(sc, dest)
                tag = "%s.%s.%d" % (sc.sid, d.name, r)
                m = Measurement(d, self.a.poll_ms / 1000, self.ts)
                res = m.run(self.jobs(d, sc, dest, tag), sc.concurrency,
                            {x.proc.pid for x in daemons})
                res.update(scenario=sc.sid, server=d.name, run=r)
                self.results.append(res)
                ok = all(rc == 0 for rc in res["rc"])
                log("%-13s %-7s run %d: wall %.2fs cpu %.3fs (proc %.2fs) mem %.1f MiB%s%s%s" % (
                    sc.sid, d.name, r + 1, res["wall"], res["cpu"], res["cpu_proc"], res["mem_kb"] / 1024,
                    "" if ok else "  FAILED rc=%s (see %s)" % (sorted(set(res["rc"])), self.work),
                    "" if res["reaped"] else "  NOT REAPED",
                    "  %d ORPHANS" % res["orphans"] if res["orphans"] else ""))
                if not ok:
                    for _argv, out in self.jobs(d, sc, dest, tag)[:1]:
                        try:
                            with open(out, errors="replace") as f:
                                log("  " + "  ".join(f.readlines()[-5:]))
                        except OSError:
                            pass
        if not (next_sc and next_sc.dest_kind == "seeded" and sc.dest_kind == "seeded"
                and next_sc.module == sc.module):
            rmtree(dest)
            self.seeded.discard(dest)

    def main(self):
        a = self.a
        t_start = time.monotonic()
        os.makedirs(a.data, exist_ok=True)
        subreaper = become_subreaper()
        self.ts = None
        if not a.no_taskstats:
            try:
                self.ts = TaskStats()
            except OSError as e:
                log("taskstats unavailable (%s): CPU and memory from /proc only" % e)
        scs = scenarios(self.sz, {})
        wanted = [s.sid for s in scs] if not a.scenarios else a.scenarios.split(",")
        unknown = set(wanted) - {s.sid for s in scs}
        if unknown:
            raise SystemExit("unknown scenario(s): %s" % ", ".join(sorted(unknown)))
        modules = sorted({s.module for s in scs if s.sid in wanted})
        stamps = make_data(a.data, modules, self.sz)
        scs = [s for s in scenarios(self.sz, stamps) if s.sid in wanted]
        if a.dest:
            os.makedirs(a.dest, exist_ok=True)
            self.dest_root = tempfile.mkdtemp(prefix="prsyncd-bench.", dir=a.dest)
        else:
            self.dest_root = tempfile.mkdtemp(prefix="prsyncd-bench.", dir="/dev/shm")
        self.work = os.path.join(self.dest_root, "work")
        os.makedirs(self.work)
        conf = os.path.join(self.work, "daemons.conf")
        write_config(conf, {m: os.path.join(a.data, data_name(m, self.sz)) for m in modules})
        daemons = []
        try:
            for name in SERVERS:
                if name not in a.servers.split(","):
                    continue
                common = ["--no-detach", "--config=" + conf, "--address=127.0.0.1",
                          "--log-file=" + os.path.join(self.work, name + ".log")]
                wrap = a.wrap.replace("{server}", name)
                if name == "rsyncd":
                    d = Daemon(name, ["rsync", "--daemon"] + common, self.work, wrap)
                else:
                    d = Daemon(name, [a.prsyncd] + common, self.work, wrap)
                d.start()
                daemons.append(d)
            log("work directory %s (%s); data %s; runs %d; subreaper %s; taskstats %s" % (
                self.dest_root, fstype(self.dest_root), a.data, self.runs,
                "yes" if subreaper else "no", "yes" if self.ts else "no"))
            for i, sc in enumerate(scs):
                self.run_scenario(sc, daemons, scs[i + 1] if i + 1 < len(scs) else None)
        finally:
            for d in daemons:
                d.stop()
            if a.json:
                with open(a.json, "w") as f:
                    json.dump({"level": a.level,
                               "runs": self.runs, "results": self.results}, f, indent=1)
            if not a.keep:
                rmtree(self.dest_root)
        self.table(scs)
        elapsed = time.monotonic() - t_start
        print("\n(total time %.0f s; %d run(s) per server and scenario, medians; "
              "CPU = the daemon's user+system time including every reaped session process)"
              % (elapsed, self.runs))
        bad = [r for r in self.results if any(rc != 0 for rc in r["rc"]) or not r["reaped"]
               or r["orphans"]]
        return 1 if bad else 0

    def table(self, scs):
        def ok(r):
            return all(rc == 0 for rc in r["rc"])

        def runs_of(sid, server):
            return [r for r in self.results if r["scenario"] == sid and r["server"] == server and ok(r)]

        def med(sid, server, key, sub=None):
            v = [r[key] if sub is None else r[key].get(sub, 0.0) for r in runs_of(sid, server)]
            return statistics.median(v) if v else None

        def ratio(p, r):
            return "-" if p is None or r is None or r <= 0 else "%.2f" % (p / r)

        def fmt(v, unit):
            if v is None:
                return "-"
            if unit == "s":
                return "%.3f s" % v if v < 10 else "%.2f s" % v
            return "%.1f MiB" % (v / 1024)
        print()
        print("| scenario | rsyncd CPU | prsyncd CPU | CPU P/R | rsyncd wall | prsyncd wall"
              " | wall P/R | rsyncd mem | prsyncd mem | mem P/R |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for sc in scs:
            row = ["%s `%s`" % (sc.label, sc.sid)]
            for key, unit in (("cpu", "s"), ("wall", "s"), ("mem_kb", "m")):
                rv, pv = med(sc.sid, "rsyncd", key), med(sc.sid, "prsyncd", key)
                row += [fmt(rv, unit), fmt(pv, unit), ratio(pv, rv)]
            print("| " + " | ".join(row) + " |")
        # Where each server's CPU went, by process (medians of each part).
        print()
        print("| scenario | rsyncd listener | rsyncd session | rsyncd rest | prsyncd listener"
              " | prsyncd monitor | prsyncd worker | prsyncd rest | monitor/worker |")
        print("|---|---|---|---|---|---|---|---|---|")
        for sc in scs:
            rl, rs = med(sc.sid, "rsyncd", "split", "listener"), med(sc.sid, "rsyncd", "split", "rsync")
            pl = med(sc.sid, "prsyncd", "split", "listener")
            pm = med(sc.sid, "prsyncd", "split", "prsyncd-monitor")
            pw = med(sc.sid, "prsyncd", "split", "prsyncd-worker")
            rr, pr = med(sc.sid, "rsyncd", "split", "rest"), med(sc.sid, "prsyncd", "split", "rest")
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                sc.sid, fmt(rl, "s"), fmt(rs, "s"), fmt(rr, "s"), fmt(pl, "s"), fmt(pm, "s"),
                fmt(pw, "s"), fmt(pr, "s"), ratio(pm, pw)))
        notes = []
        for sc in scs:
            if sc.nbytes:
                # A paced pull: what counts is the average rate, bytes over wall.
                rv, pv = med(sc.sid, "rsyncd", "wall"), med(sc.sid, "prsyncd", "wall")
                rate = lambda w: None if not w else sc.nbytes / w / 1024
                rr, pr = rate(rv), rate(pv)
                notes.append("%s: average rate over the pull (%s bytes, %s): rsyncd %s, prsyncd %s, "
                             "rate ratio P/R %s" % (
                                 sc.sid, format(sc.nbytes, ","), " ".join(sc.opts),
                                 "-" if rr is None else "%.0f KiB/s" % rr,
                                 "-" if pr is None else "%.0f KiB/s" % pr, ratio(pr, rr)))
            if sc.concurrency > 1:
                rv = med(sc.sid, "rsyncd", "mem_all_kb")
                pv = med(sc.sid, "prsyncd", "mem_all_kb")
                notes.append("%s: all sessions at once (largest sampled RSS sum): rsyncd %s, "
                             "prsyncd %s, ratio %s" % (sc.sid, fmt(rv, "m"), fmt(pv, "m"), ratio(pv, rv)))
            for server in SERVERS:
                xs = {t for r in self.results if r["scenario"] == sc.sid and r["server"] == server
                      for t in r["transferred"]}
                if sc.dest_kind == "seeded" and xs and xs != {0}:
                    notes.append("%s %s: files transferred %s (expected 0)" % (
                        sc.sid, server, sorted(map(str, xs))))
        for r in self.results:
            where = "%s %s run %d" % (r["scenario"], r["server"], r["run"] + 1)
            if not ok(r):
                notes.append("%s: client exit codes %s" % (where, sorted(set(r["rc"]))))
            if not r["reaped"] or r["orphans"]:
                notes.append("%s: sessions not reaped (%d orphans, %.2f s CPU not in the listener's)"
                             % (where, r["orphans"], r.get("orphan_cpu", 0.0)))
            if r.get("ts_drops"):
                notes.append("%s: taskstats dropped records; /proc figures used" % where)
            # The cgroup and /proc figures count the same processes; /proc's
            # is in 10 ms ticks (four fields, each rounded down).
            if r["cpu_source"] == "cgroup" and abs(r["cpu"] - r["cpu_proc"]) > 0.045 + 0.03 * r["cpu"]:
                notes.append("%s: CPU from the cgroup %.3f s but from the listener's /proc/PID/stat %.2f s"
                             % (where, r["cpu"], r["cpu_proc"]))
        cpu_src = sorted({r["cpu_source"] for r in self.results})
        mem_src = sorted({r["mem_source"] for r in self.results})
        notes.append("CPU from: " + "; ".join({
            "cgroup": "the daemon's own cgroup (cpu.stat usage_usec / cpuacct.usage: the listener and "
                      "everything it started, exact), checked against the listener's "
                      "utime+stime+cutime+cstime in /proc (10 ms ticks) once every session is reaped",
            "proc": "the listener's utime+stime+cutime+cstime in /proc (10 ms ticks), once every "
                    "session is reaped"}[x] for x in cpu_src))
        notes.append("split by process from: the listener's schedstat and taskstats exit records "
                     "(on-CPU ns up to each exit record; `rest` is what comes after the records, "
                     "mostly address-space teardown at exit)" if "taskstats" in mem_src else
                     "split by process: not available (no taskstats)")
        notes.append("memory from: " + "; ".join({
            "taskstats": "per process the larger of its last sampled VmHWM and hiwater_rss in its "
                         "exit record, summed over the session's processes; the largest session",
            "sampled": "per process its last sampled VmHWM (every %g ms), summed over the session's "
                       "processes; the largest session" % self.a.poll_ms}[x] for x in mem_src))
        print()
        for n in notes:
            print("- " + n)


def fstype(path):
    best, fs = "", "?"
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            mnt = parts[1]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                best, fs = mnt, parts[2]
    return fs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--full", action="store_true", help="the issue's full sizes")
    p.add_argument("--tiny", action="store_true", help="tiny sizes (the test suite's smoke)")
    p.add_argument("--runs", type=int, default=3, help="runs per server and scenario (median)")
    p.add_argument("--scenarios", default="", help="comma-separated ids (default: all; see --list)")
    p.add_argument("--data", default=os.environ.get("PRSYNCD_BENCH_DATA", "/var/tmp/prsyncd-bench-data"))
    p.add_argument("--dest", default="", help="parent of the work directory (default /dev/shm)")
    p.add_argument("--json", default="", help="write every measurement to FILE")
    p.add_argument("--servers", default="rsyncd,prsyncd")
    p.add_argument("--prsyncd", default=os.path.join(TOP, "build", "prsyncd"))
    p.add_argument("--wrap", default="", help="run each daemon under this command ({server}: its name)")
    p.add_argument("--poll-ms", type=float, default=20.0)
    p.add_argument("--client-timeout", type=int, default=1800)
    p.add_argument("--keep", action="store_true", help="keep the work directory (logs, outputs)")
    p.add_argument("--no-taskstats", action="store_true",
                   help="measure from /proc alone (as without root)")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    a = p.parse_args()
    if a.full and a.tiny:
        p.error("--full and --tiny exclude each other")
    a.level = "full" if a.full else "tiny" if a.tiny else "default"
    a.data = os.path.abspath(a.data)
    a.prsyncd = os.path.abspath(a.prsyncd)
    if a.runs < 1 or a.runs > 99:
        p.error("--runs must be 1..99")
    if a.list:
        for s in scenarios(SIZES[a.level], {}):
            print("%-14s %s" % (s.sid, s.label))
        return 0
    if "prsyncd" in a.servers and not os.access(a.prsyncd, os.X_OK):
        p.error("no %s: run make first" % a.prsyncd)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    try:
        return Bench(a).main()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
