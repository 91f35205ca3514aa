#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Build deterministic source trees for the differential transfer tests.

  mktree.py DIR [--small]        the awkward tree (full: ~12 MiB; --small: ~1 MiB)
  mktree.py DIR --errors         a small tree with an unreadable file and dir
  mktree.py DIR --delta OLD      a delta source tree in DIR and an edited,
                                 older copy of it in OLD (see make_delta)
  mktree.py --truncate-copy SRC DST FRACTION
                                 copy SRC's regular files (only) into DST, each
                                 cut to FRACTION of its length (a seed for
                                 --append); empty/1-byte files are skipped

Everything is seeded: two runs produce byte-identical trees with identical
metadata (the tests compare two pulls of the same tree, so the tree itself
only needs to be stable within a run, but determinism keeps failures
reproducible).  All names are handled as bytes.  Devices and foreign owners
are only created when running as root; the tree prints what it skipped.
"""
import os
import random
import shutil
import stat
import sys

SEED = 0x5EED2026
BASE_T = 1_500_000_000          # 2017-07-14: default file mtime base
NS = 123_456_789                # a nanosecond part that survives no rounding


def b(s):
    return s if isinstance(s, bytes) else s.encode()


class Tree:
    def __init__(self, root, small):
        self.root = b(os.path.abspath(root))
        self.small = small
        self.rng = random.Random(SEED)
        self.n = 0              # counter for deterministic mtimes
        self.dirs = []          # (path, mode, mtime_ns), applied at the end
        self.skipped = []
        self.is_root = os.geteuid() == 0

    def p(self, rel):
        return os.path.join(self.root, b(rel))

    def next_mtime(self):
        self.n += 1
        return (BASE_T + self.n * 3607) * 10**9 + (self.n * 7919 * 1000 + 1) % 10**9

    def mkdir(self, rel, mode=0o755, mtime_ns=None):
        path = self.p(rel)
        os.makedirs(path, exist_ok=True)
        if mtime_ns is None:
            mtime_ns = self.next_mtime()
        self.dirs.append((path, mode, mtime_ns))
        return path

    def file(self, rel, data=b"", mode=0o644, mtime_ns=None):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b(data))
        os.chmod(path, mode)
        if mtime_ns is None:
            mtime_ns = self.next_mtime()
        os.utime(path, ns=(mtime_ns, mtime_ns))
        return path

    def symlink(self, rel, target, mtime_ns=None):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(b(target), path)
        if mtime_ns is None:
            mtime_ns = self.next_mtime()
        try:
            os.utime(path, ns=(mtime_ns, mtime_ns), follow_symlinks=False)
        except (NotImplementedError, OSError):
            pass
        return path

    def hardlink(self, existing, rel):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.link(self.p(existing), path)

    def rand(self, n):
        return self.rng.randbytes(n)

    def text(self, n, seed_words=None):
        words = seed_words or [b"alpha", b"beta", b"gamma", b"delta", b"rsync",
                               b"block", b"checksum", b"rolling", b"daemon",
                               b"module", b"\n", b"0123456789", b"    "]
        out = bytearray()
        while len(out) < n:
            out += self.rng.choice(words) + b" "
        return bytes(out[:n])

    def finish_dirs(self):
        # Deepest first: setting a child's attributes does not touch the
        # parent's mtime, but creating entries does, so this runs last.
        for path, mode, mtime_ns in sorted(self.dirs, key=lambda d: -d[0].count(b"/")):
            os.chmod(path, mode)
            os.utime(path, ns=(mtime_ns, mtime_ns))


def build_main(t):
    small = t.small
    t.mkdir(b"", 0o755, 1_600_000_000 * 10**9 + 5)

    # Top-level names used by specific tests: mod/file, mod/*.txt,
    # mod/a/b/file (-R), mod/sub/dir/ (sub-path).
    t.file("file", b"the single file\n")
    for name in ("a.txt", "b.txt", "c d.txt"):
        t.file(name, t.text(300 + len(name)))
    t.file("notes.md", t.text(500))
    t.file("txt.not", b"not matched by *.txt\n")
    t.mkdir("a"); t.mkdir("a/b"); t.mkdir("a/c")
    t.file("a/b/file", t.text(2000))
    t.file("a/b/other", t.rand(1500))
    t.file("a/c/x", b"x\n")
    t.file("a/top", b"top of a\n")
    t.mkdir("sub"); t.mkdir("sub/dir"); t.mkdir("sub/dir/inner"); t.mkdir("sub/other")
    t.file("sub/dir/one", t.text(1234))
    t.file("sub/dir/two", t.rand(4321))
    t.file("sub/dir/inner/three", t.text(99))
    t.file("sub/other/nope", b"outside sub/dir\n")
    t.file("sub/f", b"f in sub\n")

    # Sizes around the 700-byte default block, 32 KiB and 64 KiB edges,
    # an empty file and a 1-byte file.
    t.mkdir("sizes")
    t.file("sizes/empty", b"")
    t.file("sizes/one", b"1")
    for n in (699, 700, 701, 1023, 1024, 1025, 32767, 32768, 32769,
              65535, 65536, 65537, 131071, 131072, 131073):
        t.file("sizes/r%d" % n, t.rand(n))
    for n in (700, 32768, 65536):
        t.file("sizes/t%d" % n, t.text(n))

    # Bulk data: random (incompressible), compressible, zero runs / holes.
    mib = 1 << 20
    t.mkdir("big")
    nrand = 256 * 1024 if small else 3 * mib
    ntext = 256 * 1024 if small else 3 * mib
    t.file("big/random.bin", t.rand(nrand))
    t.file("big/compressible.txt", t.text(ntext))
    # sparse-ish: data, a long zero run, data, a real hole, data
    zlen = 64 * 1024 if small else 1 * mib
    path = t.file("big/zeros.bin", t.rand(1000) + bytes(zlen) + t.rand(777))
    with open(path, "r+b") as f:           # append a hole then a tail
        f.seek(0, os.SEEK_END)
        f.seek(zlen, os.SEEK_CUR)
        f.write(t.rand(333))
    m = t.next_mtime(); os.utime(path, ns=(m, m))
    t.file("big/allzero", bytes(200 * 1024 if small else 2 * mib))
    if not small:
        t.file("big/random2.bin", t.rand(2 * mib + 12345))

    # Deep and wide directories, empty directories.
    d = "deep"
    t.mkdir(d)
    for i in range(1, 31):
        d += "/d%02d" % i
        t.mkdir(d)
    t.file(d + "/leaf", b"30 levels down\n")
    t.file("deep/d01/d02/mid", b"mid\n")
    t.mkdir("wide")
    for i in range(100 if small else 500):
        t.file("wide/f%04d" % i, t.text(i % 97))
    t.mkdir("empty"); t.mkdir("empty/nested"); t.mkdir("empty/nested/deeper")
    t.mkdir("empty2", 0o700)

    # Awkward names (bytes): spaces, newline, tab, non-UTF-8, leading dashes,
    # 255-byte names, glob and escape characters.
    t.mkdir("names")
    for nm in (b"with space", b" leading space", b"trailing space ", b"new\nline",
               b"tab\tname", b"\xff\xfe not utf8", b"latin1-\xe9t\xe9", b"utf8-\xc3\xa9t\xc3\xa9",
               b"-leading-dash", b"--delete", b"-", b"#hash", b"star*q?[x]",
               b"back\\slash", b"col:on", b"quote\"s'", b"cr\rname", b"\x01ctl",
               b"a" * 255, b"\xe2\x82\xac" * 85):
        t.file(b"names/" + nm, nm + b"\n")
    t.mkdir(b"names/dir with space")
    t.file(b"names/dir with space/-file", b"dash in spaced dir\n")
    t.mkdir(b"names/\xfe\xfd-dir")
    t.file(b"names/\xfe\xfd-dir/\xff", b"non-utf8 in non-utf8\n")
    # a path over 1 KiB: 5 levels of 240-byte names
    lp = "longpath"
    t.mkdir(lp)
    for i in range(5):
        lp += "/" + chr(ord("a") + i) * 240
        t.mkdir(lp)
    t.file(lp + "/" + "z" * 200, b"over 1 KiB of path\n")

    # Symlinks: relative, dangling, absolute, out of the module, to a dir,
    # a loop, a long target.
    t.mkdir("links")
    t.symlink("links/rel", "../file")
    t.symlink("links/reldir", "../sub/dir")
    t.symlink("links/dangling", "does/not/exist")
    t.symlink("links/abs", "/etc/passwd")
    t.symlink("links/absdir", "/etc")
    t.symlink("links/escape", "../../etc")
    t.symlink("links/escape2", "../../../../../../../etc/shadow")
    t.symlink("links/loop", "loop")
    t.symlink("links/longtarget", "t/" * 400 + "end")
    t.symlink(b"links/\xff-nonutf8", b"\xfe-target with space")
    t.symlink("a/b/link-to-file", "file")

    # Hard links: a group of 2 and a group of 3, across directories, plus
    # a hard-linked empty file.
    t.mkdir("hl"); t.mkdir("hl/x"); t.mkdir("hl2")
    t.file("hl/pair1", t.text(5000))
    t.hardlink("hl/pair1", "hl2/pair2")
    t.file("hl/trio1", t.rand(70000))
    t.hardlink("hl/trio1", "hl/x/trio2")
    t.hardlink("hl/trio1", "sub/trio3")
    t.file("hl/empty1", b"")
    t.hardlink("hl/empty1", "hl2/empty2")

    # Specials and devices.
    t.mkdir("special")
    os.mkfifo(t.p("special/fifo"), 0o644)
    m = t.next_mtime(); os.utime(t.p("special/fifo"), ns=(m, m))
    if t.is_root:
        try:
            os.mknod(t.p("special/null"), stat.S_IFCHR | 0o644, os.makedev(1, 3))
            m = t.next_mtime(); os.utime(t.p("special/null"), ns=(m, m))
        except OSError as e:
            t.skipped.append("char device: %s" % e)
    else:
        t.skipped.append("char device: not root")

    # Permissions (everything stays readable by root, the module user).
    t.mkdir("perms")
    t.file("perms/f0600", b"0600\n", 0o600)
    t.file("perms/f0700", b"#!/bin/sh\n", 0o700)
    t.file("perms/f0444", b"0444\n", 0o444)
    t.file("perms/f0755", b"0755\n", 0o755)
    t.file("perms/f4755", b"setuid\n", 0o4755)
    t.file("perms/f0640", b"0640\n", 0o640)
    t.mkdir("perms/d0755", 0o755)
    t.file("perms/d0755/in", b"in\n")
    t.mkdir("perms/d0700", 0o700)
    t.file("perms/d0700/in", b"in\n", 0o600)
    t.mkdir("perms/setgid", 0o2755)
    t.file("perms/setgid/in", b"in\n")
    t.mkdir("perms/sticky", 0o1777)
    t.file("perms/sticky/in", b"in\n", 0o666)
    t.mkdir("perms/d0555", 0o555)
    t.file("perms/d0555/in", b"in\n")

    # Foreign owners (ids without names, and nobody).
    t.mkdir("owners")
    for nm, uid, gid in (("u1001", 1001, 1002), ("nobody", 65534, 65534), ("rootuser", 0, 4242)):
        path = t.file("owners/" + nm, nm.encode() + b"\n")
        if t.is_root:
            os.chown(path, uid, gid)
    if not t.is_root:
        t.skipped.append("foreign owners: not root")

    # Modification times: nanoseconds, the epoch, before 2001, 2^31 edges,
    # far future, before 1970.
    t.mkdir("times")
    for nm, ns in (("ns", 1_234_567_890 * 10**9 + 987_654_321),
                   ("ns1", 1_234_567_890 * 10**9 + 1),
                   ("ns999", 1_234_567_890 * 10**9 + 999_999_999),
                   ("epoch", 0),
                   ("epoch1", 10**9 + 500_000_000),
                   ("y1970", 86_400 * 100 * 10**9),
                   ("y2000", 978_307_199 * 10**9),
                   ("billion", 1_000_000_000 * 10**9),
                   ("y2038m", (2**31 - 1) * 10**9),
                   ("y2038p", (2**31 + 1) * 10**9 + 5),
                   ("y2100", 4_102_444_800 * 10**9),
                   ("pre1970", -86_400 * 10**9)):
        t.file("times/" + nm, nm.encode() + b"\n", mtime_ns=ns)

    t.finish_dirs()


def build_errors(t):
    """The module root and ok files are world-readable (the module user is
    nobody); badfile and baddir are mode 000."""
    t.mkdir(b"", 0o755)
    t.file("ok.txt", b"readable\n")
    t.file("a_first", t.text(900))
    t.file("badfile", b"you cannot read me\n", 0o000)
    t.file("z_last", t.rand(3000))
    t.mkdir("baddir", 0o000)
    t.file("baddir/hidden", b"hidden\n")
    t.mkdir("okdir")
    t.file("okdir/f", b"fine\n")
    t.mkdir("okdir/deeper")
    t.file("okdir/deeper/badfile2", b"also unreadable\n", 0o000)
    t.file("okdir/deeper/g", b"fine too\n")
    t.finish_dirs()


def edit(data, kind, rng):
    n = len(data)
    mid = n // 2
    if kind == "change":        # a few bytes changed in the middle
        return data[:mid] + bytes(x ^ 0x5A for x in data[mid:mid + 37]) + data[mid + 37:]
    if kind == "insert":        # bytes inserted in the middle
        return data[:mid] + rng.randbytes(1000) + data[mid:]
    if kind == "delete":        # bytes removed from the middle
        return data[:mid] + data[mid + 3000:]
    if kind == "truncate":      # the old copy is the first 60%
        return data[:n * 6 // 10]
    if kind == "append":        # the old copy is missing the tail
        return data[:n - 5000]
    if kind == "prepend":       # the source gained a head; old lacks it
        return data[777:]
    if kind == "multi":         # several edits across a big file
        out = bytearray(data)
        for off in range(100_000, n - 10_000, n // 7):
            out[off:off + 50] = rng.randbytes(50)
        del out[n // 3:n // 3 + 4096]
        out[2 * n // 3:2 * n // 3] = rng.randbytes(2048)
        return bytes(out)
    raise ValueError(kind)


def build_delta(t, oldroot):
    """Source files and their edited older copies: the old copy is what
    the destination holds before the pull; its mtime is older, so the
    quick check always selects it."""
    mib = 1 << 20
    t.mkdir(b"", 0o755, 1_600_000_000 * 10**9)
    t.mkdir("d")
    specs = [
        ("change.bin", t.rand(200_000), "change"),
        ("insert.txt", t.text(150_000), "insert"),
        ("delete.bin", t.rand(180_000), "delete"),
        ("truncated.txt", t.text(120_000), "truncate"),
        ("appended.bin", t.rand(100_000), "append"),
        ("prepended.txt", t.text(90_000), "prepend"),
        ("d/small700", t.rand(2100), "change"),
        ("d/big.bin", t.rand(4 * mib + 4321), "multi"),
    ]
    oldroot = b(os.path.abspath(oldroot))
    for rel, data, kind in specs:
        path = t.file(rel, data)
        old = os.path.join(oldroot, b(rel))
        os.makedirs(os.path.dirname(old), exist_ok=True)
        with open(old, "wb") as f:
            f.write(edit(data, kind, t.rng))
        os.chmod(old, 0o644)
        st = os.stat(path)
        o = st.st_mtime_ns - 86_400 * 10**9
        os.utime(old, ns=(o, o))
    t.file("unchanged.txt", t.text(5000))   # the destination lacks it
    t.finish_dirs()


def truncate_copy(src, dst, fraction):
    src = b(os.path.abspath(src)); dst = b(os.path.abspath(dst))
    for dirpath, dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        for fn in filenames:
            sp = os.path.join(dirpath, fn)
            st = os.lstat(sp)
            if not stat.S_ISREG(st.st_mode) or st.st_size < 2 or not st.st_mode & 0o444:
                continue
            dp = os.path.normpath(os.path.join(dst, rel, fn))
            os.makedirs(os.path.dirname(dp), exist_ok=True)
            with open(sp, "rb") as f:
                data = f.read(int(st.st_size * fraction))
            with open(dp, "wb") as f:
                f.write(data)
            os.chmod(dp, 0o644)


def main(argv):
    if len(argv) >= 1 and argv[0] == "--truncate-copy":
        truncate_copy(argv[1], argv[2], float(argv[3]))
        return 0
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[0]
    opts = argv[1:]
    if os.path.lexists(root) and os.listdir(root):
        print("mktree: %s exists and is not empty" % root, file=sys.stderr)
        return 2
    os.umask(0o022)
    t = Tree(root, "--small" in opts)
    if "--errors" in opts:
        build_errors(t)
    elif "--delta" in opts:
        build_delta(t, opts[opts.index("--delta") + 1])
    else:
        build_main(t)
    for s in t.skipped:
        print("mktree: skipped %s" % s, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
