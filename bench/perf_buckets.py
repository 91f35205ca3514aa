#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Where a daemon's CPU goes, by process and kind of work, from a perf profile.

  perf script -i perf.data -F comm,pid,ip,sym | perf_buckets.py [--freq HZ] [--leaves]

Each sample (with its call chain, `perf record --call-graph dwarf`) is put
in the bucket of the first frame, walking from the leaf towards main, whose
function is named in BUCKETS (a syscall's kernel entry point names the
syscall, a user function names the work); samples with no such frame go to
"other <dso kind>".  Prints per process name (comm) its samples, the
estimated CPU seconds (samples / HZ) and each bucket's share; with
--leaves, under each bucket its most frequent leaf functions (where in the
kernel or library the time is actually spent: copies, wakeups, switches).
"""
import collections
import re
import sys

# function name (exact, or a prefix ending in '*') -> bucket
RULES = [
    # the monitor<->worker channel
    ("pr_msg_init", "channel: build records (memset 8 KiB)"),
    ("pr_msg_validate", "channel: validate records"),
    ("pr_ipc_send", "channel: sendmsg (incl. wakeup, switch)"),
    ("pr_ipc_recv", "channel: recvmsg (incl. wait, switch)"),
    ("__libc_sendmsg", "channel: sendmsg (incl. wakeup, switch)"),
    ("__libc_recvmsg", "channel: recvmsg (incl. wait, switch)"),
    ("__recvmsg_syscall", "channel: recvmsg (incl. wait, switch)"),
    ("__x64_sys_sendmsg", "channel: sendmsg (incl. wakeup, switch)"),
    ("__x64_sys_recvmsg", "channel: recvmsg (incl. wait, switch)"),
    ("__x64_sys_poll", "poll"),
    ("__x64_sys_ppoll", "poll"),
    ("__x64_sys_select", "poll"),
    ("__x64_sys_pselect6", "poll"),
    ("do_sys_poll", "poll"),
    ("do_select", "poll"),
    ("__GI___poll", "poll"),
    ("__poll", "poll"),
    ("__sys_sendmsg", "channel: sendmsg (incl. wakeup, switch)"),
    ("__sys_recvmsg", "channel: recvmsg (incl. wait, switch)"),
    # filesystem
    ("__x64_sys_openat2", "open"),
    ("__x64_sys_openat", "open"),
    ("do_sys_openat2", "open"),
    ("__x64_sys_newfstatat", "stat"),
    ("__x64_sys_newfstat", "stat"),
    ("__x64_sys_newlstat", "stat"),
    ("__x64_sys_statx", "stat"),
    ("__do_sys_newfstatat", "stat"),
    ("__do_sys_newfstat", "stat"),
    ("vfs_fstatat", "stat"),
    ("vfs_statx", "stat"),
    ("vfs_fstat", "stat"),
    ("__x64_sys_getdents64", "getdents"),
    ("iterate_dir", "getdents"),
    ("__x64_sys_readlinkat", "readlink"),
    ("do_readlinkat", "readlink"),
    ("__x64_sys_close", "close"),
    ("__fput", "close"),
    ("__x64_sys_pread64", "file read (pread/read)"),
    ("ksys_pread64", "file read (pread/read)"),
    ("__x64_sys_read", "file read (pread/read)"),
    ("ksys_read", "file read (pread/read)"),
    ("__libc_pread64", "file read (pread/read)"),
    ("__x64_sys_write", "write (client socket, log)"),
    ("ksys_write", "write (client socket, log)"),
    ("__x64_sys_writev", "write (client socket, log)"),
    ("do_writev", "write (client socket, log)"),
    ("__x64_sys_sendto", "write (client socket, log)"),
    ("__sys_sendto", "write (client socket, log)"),
    ("__libc_write", "write (client socket, log)"),
    ("__x64_sys_fcntl", "fcntl"),
    ("do_fcntl", "fcntl"),
    # process life
    ("__x64_sys_execve", "exec, start-up"),
    ("do_execveat_common", "exec, start-up"),
    ("bprm_execve", "exec, start-up"),
    ("_dl_*", "exec, start-up"),
    ("_start", "exec, start-up"),
    ("__x64_sys_exit_group", "exit"),
    ("do_group_exit", "exit"),
    ("do_exit", "exit"),
    ("__x64_sys_clone", "fork"),
    ("kernel_clone", "fork"),
    ("__x64_sys_clone3", "fork"),
    ("__x64_sys_wait4", "wait"),
    ("kernel_wait4", "wait"),
    ("__x64_sys_seccomp", "sandbox set-up"),
    ("__x64_sys_prctl", "sandbox set-up"),
    ("sandbox_apply", "sandbox set-up"),
    ("pr_policy_load", "sandbox set-up"),
    ("asm_exc_page_fault", "page faults"),
    ("__x64_sys_mmap", "memory (mmap/munmap/brk)"),
    ("ksys_mmap_pgoff", "memory (mmap/munmap/brk)"),
    ("__vm_munmap", "memory (mmap/munmap/brk)"),
    ("__x64_sys_munmap", "memory (mmap/munmap/brk)"),
    ("__x64_sys_brk", "memory (mmap/munmap/brk)"),
    # the work itself
    ("XXH*", "checksums (xxhash)"),
    ("MD5_*", "checksums (md5)"),
    ("md5_*", "checksums (md5)"),
    ("ossl_md5*", "checksums (md5)"),
    ("EVP_Digest*", "checksums (md5)"),
    ("md4_*", "checksums (md4)"),
    ("deflate*", "compression"),
    ("ZSTD_*", "compression"),
    ("LZ4_*", "compression"),
    ("ctok_*", "compression"),
    ("search_full", "match loop"),
    ("find_full", "match loop"),
    ("match_file", "match loop"),
    ("build_index", "match: sum index"),
    ("read_sums", "match: reading sums"),
    ("fmap_ptr", "file window (fmap)"),
    ("io_write*", "protocol output"),
    ("io_flush", "protocol output"),
    ("io_read*", "protocol input"),
    ("fl_*", "file list"),
    ("flist_*", "file list"),
    ("flenc_*", "file list"),
    ("flset_*", "file list"),
    ("fsc_list", "file list"),
    ("list_entry", "list: per entry (stat, pack)"),
    ("fs_list", "list: per entry (stat, pack)"),
    ("modfilter_*", "module filter"),
    ("malloc", "malloc/free"),
    ("free", "malloc/free"),
    ("calloc", "malloc/free"),
    ("realloc", "malloc/free"),
    ("_int_*", "malloc/free"),
]
EXACT = {k: v for k, v in RULES if not k.endswith("*")}
PREFIX = [(k[:-1], v) for k, v in RULES if k.endswith("*")]
HEAD = re.compile(r"^(\S.*?)\s+(\d+)\s*$")
FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)(?:\+0x[0-9a-f]+)?\s*$")


def bucket(frames):
    for sym in frames:
        name = sym.split(" (")[0]
        if name in EXACT:
            return EXACT[name]
        for p, v in PREFIX:
            if name.startswith(p):
                return v
    leaf = frames[0] if frames else "?"
    if leaf.startswith("[") or leaf == "[unknown]":
        return "other (unknown)"
    return "other (%s)" % leaf.split(" (")[0]


def main(argv):
    freq, leaves = 999.0, "--leaves" in argv
    if "--freq" in argv:
        freq = float(argv[argv.index("--freq") + 1])
    per = collections.defaultdict(collections.Counter)
    leaf = collections.defaultdict(collections.Counter)
    comm, frames = None, []

    def flush():
        if comm is not None:
            b = bucket(frames)
            per[comm][b] += 1
            leaf[(comm, b)][frames[0].split(" (")[0] if frames else "?"] += 1
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            comm, frames = None, []
            continue
        if not line[0].isspace():
            flush()
            m = HEAD.match(line)
            comm = m.group(1).strip() if m else line.split()[0]
            frames = []
            continue
        m = FRAME.match(line)
        if m:
            frames.append(m.group(2).replace(" (inlined)", ""))
    flush()
    for c in sorted(per, key=lambda x: -sum(per[x].values())):
        n = sum(per[c].values())
        print("== %s: %d samples, ~%.3f s" % (c, n, n / freq))
        for b, k in per[c].most_common(14):
            print("  %5.1f%%  ~%.3f s  %s" % (100.0 * k / n, k / freq, b))
            if leaves and k * 50 >= n:
                for f, j in leaf[(c, b)].most_common(6):
                    print("           %5.1f%%  %s" % (100.0 * j / n, f))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
