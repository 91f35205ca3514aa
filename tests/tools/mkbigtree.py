#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Large trees for the incremental-recursion test and the memory benchmark.

  mkbigtree.py DIR [--files N] [--dirs N]
        the inc-recursion tree (default: ~51,000 files in 2,413 directories,
        ~53,700 entries in all; t_increc.sh uses --files 47000, ~50,700): depth up to 6, varied fan-out (a few wide
        directories, many small ones, chains), empty directories at every
        depth, relative/dangling/directory symlinks, hard-link groups within
        one directory and across directories (so across sub-lists), awkward
        names at several depths, a fifo, a few 100-300 KiB files (so that a
        delta pull has blocks to match); everything else is 0-200 bytes.
  mkbigtree.py --stale SRC SEED
        SEED: a destination seed for --delete pulls of SRC: stale files in
        existing directories at all depths, stale directory trees, and type
        conflicts (a directory where SRC has a file, a file where it has a
        directory or a symlink).  None of SRC's own files are copied.
  mkbigtree.py --edit DST
        edit a copy of an inc-recursion tree in place (DST = cp -a of SRC),
        so that a pull of SRC into it is a delta run: some tiny files get
        other content and an older mtime, the big files get a few changed
        bytes and an older mtime, some files and one directory are removed,
        some stale entries are added.
  mkbigtree.py DIR --bench N [--per-dir K]
        the benchmark tree: N tiny files (0-63 bytes) in directories of K
        (default 100) files, grouped 100 directories per top-level group.

Deterministic (seeded); names are bytes.  Prints a one-line summary
("files=... dirs=... symlinks=... hardlinks=... entries=...") on stdout.
"""
import os
import random
import stat
import sys

SEED = 0x1ACE2026
BASE_T = 1_550_000_000


def b(s):
    return s if isinstance(s, bytes) else s.encode()


AWKWARD = [b"with space", b" leading space", b"trailing space ", b"new\nline",
           b"tab\tname", b"\xff\xfe not utf8", b"latin1-\xe9t\xe9",
           b"utf8-\xc3\xa9t\xc3\xa9", b"-leading-dash", b"--delete", b"-",
           b"#hash", b"star*q?[x]", b"back\\slash", b"col:on", b"quote\"s'",
           b"\x01ctl", b"a" * 255, b"\xe2\x82\xac" * 85, b".dotfile", b"..dotdot"]


class Gen:
    def __init__(self, root):
        self.root = b(os.path.abspath(root))
        self.rng = random.Random(SEED)
        self.n = 0
        self.dirs = []          # (relpath, mode, mtime_ns); applied at the end
        self.nfiles = self.nlinks = self.nhard = self.nother = 0

    def p(self, rel):
        return os.path.join(self.root, rel) if rel else self.root

    def mtime(self):
        self.n += 1
        return (BASE_T + self.n * 61) * 10**9 + (self.n * 7919 * 1000 + 7) % 10**9

    def mkdir(self, rel, mode=0o755):
        os.makedirs(self.p(rel), exist_ok=not rel)
        self.dirs.append((rel, mode, self.mtime()))

    def file(self, rel, data, mode=0o644):
        path = self.p(rel)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        if data:
            os.write(fd, data)
        os.close(fd)
        if mode & 0o7000:
            os.chmod(path, mode)
        m = self.mtime()
        os.utime(path, ns=(m, m))
        self.nfiles += 1

    def symlink(self, rel, target):
        os.symlink(target, self.p(rel))
        m = self.mtime()
        os.utime(self.p(rel), ns=(m, m), follow_symlinks=False)
        self.nlinks += 1

    def hardlink(self, existing, rel):
        os.link(self.p(existing), self.p(rel), follow_symlinks=False)
        self.nhard += 1

    def finish(self):
        for rel, mode, m in sorted(self.dirs, key=lambda d: -d[0].count(b"/")):
            path = self.p(rel)
            os.chmod(path, mode)
            os.utime(path, ns=(m, m))

    def tiny(self):
        r = self.rng.random()
        if r < 0.08:
            return b""
        n = self.rng.randrange(1, 200)
        return self.rng.randbytes(n) if r < 0.5 else (b"line %d\n" % self.n) * (n // 8 + 1)


def build_increc(g, nfiles, ndirs):
    rng = g.rng
    g.mkdir(b"")
    # --- the directory skeleton: breadth-first with varied fan-out -----
    # children[i] = list of child dir indexes; dirs[i] = relpath
    dirs = [b""]
    depth = [0]
    queue = [0]
    top_names = [b"a", b"b", b"c", b"dir1", b"emptydir", b"wide", b"chain", b"links",
                 b"hl", b"names", b"m", b"n", b"z"]
    for nm in top_names:
        dirs.append(nm); depth.append(1); g.mkdir(nm)
    queue = list(range(1, len(dirs)))
    # a chain of depth 6 with one file per level
    chain = b"chain"
    for i in range(2, 7):
        chain += b"/c%d" % i
        dirs.append(chain); depth.append(i); g.mkdir(chain)
    # parents are taken from the queue in random order, so depths vary
    # (bounded: every round takes one entry; ndirs caps the growth)
    rounds = 0
    while len(dirs) < ndirs and queue and rounds < 100 * ndirs:
        rounds += 1
        parent = queue.pop(rng.randrange(len(queue)))
        pd = dirs[parent]
        if pd in (b"emptydir", b"chain", b"links", b"hl", b"names", b"wide"):
            continue
        if depth[parent] >= 6:
            continue
        r = rng.random()
        fan = 0 if r < 0.15 else (rng.randrange(1, 4) if r < 0.7 else rng.randrange(4, 14))
        if pd in (b"a", b"b", b"c", b"m", b"n"):
            fan = 6
        for k in range(fan):
            if len(dirs) >= ndirs:
                break
            nm = pd + b"/" + (b"d%02d" % k if rng.random() < 0.8 else b"D%d_%x" % (k, rng.randrange(1 << 16)))
            dirs.append(nm); depth.append(depth[parent] + 1); g.mkdir(nm)
            queue.append(len(dirs) - 1)
        if not queue and len(dirs) < ndirs:
            queue.append(rng.randrange(1, len(dirs)))   # keep going (bounded above)
    # fixed paths the edge-case pulls name: a/b/c (-R with implied dirs),
    # dir1 (a one-entry first list), dir1/sub, a/b/c/d (empty)
    for rel in (b"a/b", b"a/b/c", b"a/b/c/d", b"dir1/sub", b"dir1/sub/deeper"):
        dirs.append(rel); g.mkdir(rel)
    # empty dirs inside emptydir, nested
    for rel in (b"emptydir/e1", b"emptydir/e2", b"emptydir/e2/e3", b"emptydir/e2/e3/e4",
                b"emptydir/e2/e3/e4/e5"):
        dirs.append(rel); g.mkdir(rel)
    g.mkdir(b"emptydir/private", 0o700); dirs.append(b"emptydir/private")

    # --- files: a skewed distribution over the directories -------------
    budget = nfiles
    wide_n = min(3000, budget // 10)
    for i in range(wide_n):
        g.file(b"wide/f%05d" % i, g.tiny())
    budget -= wide_n
    for i in range(2, 7):
        g.file(b"chain" + b"".join(b"/c%d" % j for j in range(2, i + 1)) + b"/leaf", b"level %d\n" % i)
        budget -= 1
    # a few larger files (delta material), spread over depths
    big = []
    cands = [d for d in dirs if d.count(b"/") >= 1 and not d.startswith((b"emptydir", b"wide", b"chain"))]
    for i in range(12):
        d = cands[rng.randrange(len(cands))]
        rel = d + b"/big%02d.bin" % i
        g.file(rel, rng.randbytes(rng.randrange(100_000, 300_000)))
        big.append(rel)
        budget -= 1
    # top-level files
    for i in range(40):
        g.file(b"top%02d" % i, g.tiny())
        budget -= 1
    g.file(b"file", b"the single file\n")
    for rel in (b"a/b/c/f1", b"a/b/c/f2", b"a/b/other", b"dir1/f", b"dir1/sub/g",
                b"dir1/sub/deeper/h"):
        g.file(rel, rel + b"\n")
    budget -= 7
    # the rest: weights so most dirs get a handful, some get hundreds,
    # ~15% of them none at all (empty directories at all depths)
    pool = [d for d in dirs if d and not d.startswith((b"emptydir", b"wide", b"chain", b"links", b"hl", b"names"))]
    weights = []
    for d in pool:
        r = rng.random()
        weights.append(0 if r < 0.15 else (rng.randrange(1, 20) if r < 0.95 else rng.randrange(80, 400)))
    tot = sum(weights) or 1
    counts = [w * budget // tot for w in weights]
    short = budget - sum(counts)
    for i in range(short):
        counts[i % len(counts)] += 1 if weights[i % len(counts)] else 0
    modes = [0o644] * 20 + [0o600, 0o755, 0o444, 0o640]
    for d, c in zip(pool, counts):
        for i in range(c):
            nm = (b"f%04d" % i) if rng.random() < 0.9 else (b"x_%d.txt" % i)
            g.file(d + b"/" + nm, g.tiny(), rng.choice(modes))
    # top up: rounding may leave the count a little short
    i = 0
    while g.nfiles < nfiles:
        g.file(b"m/fill%05d" % i, g.tiny()); i += 1

    # --- awkward names at several depths -------------------------------
    deep = [d for d in dirs if d.count(b"/") >= 4]
    places = [b"names", dirs[20], deep[0] if deep else b"a", deep[len(deep) // 2] if deep else b"b"]
    for pl in places:
        for nm in AWKWARD:
            g.file(pl + b"/" + nm, nm + b"\n")
    g.mkdir(b"names/dir with space"); g.file(b"names/dir with space/-f", b"x\n")
    g.mkdir(b"names/\xfe\xfd-dir"); g.file(b"names/\xfe\xfd-dir/\xff", b"y\n")
    g.mkdir(b"names/new\nline dir"); g.mkdir(b"names/new\nline dir/sub")
    g.file(b"names/new\nline dir/sub/z", b"z\n")
    os.mkfifo(g.p(b"names/fifo"), 0o644)
    m = g.mtime(); os.utime(g.p(b"names/fifo"), ns=(m, m)); g.nother += 1

    # --- symlinks -------------------------------------------------------
    g.symlink(b"links/rel", b"../file")
    g.symlink(b"links/reldir", b"../a/d00")
    g.symlink(b"links/dangling", b"does/not/exist")
    g.symlink(b"links/abs", b"/etc/passwd")
    g.symlink(b"links/loop", b"loop")
    g.symlink(b"toplink", b"a")
    for i, d in enumerate(rng.sample(pool, min(300, len(pool) // 2))):
        g.symlink(d + b"/sl%03d" % i, b"../" * d.count(b"/") + b"file" if i % 3 else b"nowhere/%d" % i)

    # --- hard links -----------------------------------------------------
    g.file(b"hl/h1", b"hard 1\n")
    g.hardlink(b"hl/h1", b"hl/h1b")               # within one directory
    g.hardlink(b"hl/h1", b"hl/h1c")
    g.file(b"hl/cross", b"cross-list group\n")
    g.hardlink(b"hl/cross", b"hltop")             # in the first list
    g.hardlink(b"hl/cross", deep[-1] + b"/hl_cross") if deep else None
    g.hardlink(b"hl/cross", b"a/d00/hl_cross2")
    g.file(b"hl/empty", b"")
    g.hardlink(b"hl/empty", b"z/hl_empty")
    g.hardlink(b"file", b"hl/file_too")           # first member in the first list
    g.hardlink(big[0], b"hl/big_too")
    g.symlink(b"hl/sym", b"h1")
    g.hardlink(b"hl/sym", b"hl/sym_hard")         # a hard-linked symlink
    # random pairs and trios: half in one directory, half across
    files_pool = [d for d in pool if d.count(b"/") >= 1]
    for i in range(min(400, nfiles // 100)):
        d1 = rng.choice(files_pool)
        src = d1 + b"/hsrc%03d" % i
        g.file(src, g.tiny())
        if i % 2:
            g.hardlink(src, d1 + b"/hdst%03d" % i)
        else:
            d2 = rng.choice(files_pool)
            g.hardlink(src, d2 + b"/hxdst%03d" % i)
            if i % 6 == 0:
                g.hardlink(src, rng.choice(files_pool) + b"/hxtrio%03d" % i)
    g.finish()
    return dirs


def build_stale(src, seed):
    rng = random.Random(SEED + 1)
    src = b(os.path.abspath(src)); seed = b(os.path.abspath(seed))
    os.makedirs(seed, exist_ok=True)
    dirs = []
    files = []
    for dp, dn, fn in os.walk(src):
        rel = os.path.relpath(dp, src)
        rel = b"" if rel == b"." else rel
        dirs.append(rel)
        for f in fn:
            files.append(os.path.join(rel, f) if rel else f)
    dirs.sort(); files.sort()
    n = 0

    def put(rel, data=b"stale\n"):
        nonlocal n
        path = os.path.join(seed, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.utime(path, (1_400_000_000, 1_400_000_000))
        n += 1
    for d in rng.sample(dirs, min(300, len(dirs))):
        put(os.path.join(d, b"stale_%d" % rng.randrange(1000)) if d else b"stale_top")
    for d in rng.sample(dirs, min(40, len(dirs))):
        base = os.path.join(d, b"stale_dir") if d else b"stale_dir"
        put(os.path.join(base, b"x/y/z"))
        put(os.path.join(base, b"f"))
        os.makedirs(os.path.join(seed, base, b"empty"), exist_ok=True)
    # type conflicts: a directory where the source has a regular file
    regs = [f for f in files if os.path.isfile(os.path.join(src, f)) and not os.path.islink(os.path.join(src, f))]
    for f in rng.sample(regs, min(30, len(regs))):
        put(os.path.join(f, b"was_a_dir"))
    # a file where the source has a directory (not the root)
    subs = [d for d in dirs if d.count(b"/") >= 1]
    for d in rng.sample(subs, min(20, len(subs))):
        p = os.path.join(seed, d)
        if os.path.isdir(p):
            continue
        put(d)
    put(b"links/rel")                            # a file where a symlink is
    os.makedirs(os.path.join(seed, b"links/reldir"), exist_ok=True)
    put(b"emptydir/e2/e3/stale")
    return n


def edit_copy(dst):
    rng = random.Random(SEED + 2)
    dst = b(os.path.abspath(dst))
    regs = []
    bigs = []
    dirs = []
    for dp, dn, fn in os.walk(dst):
        for f in fn:
            p = os.path.join(dp, f)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
                (bigs if st.st_size >= 100_000 else regs).append(p)
        for d in dn:
            dirs.append(os.path.join(dp, d))
    regs.sort(); bigs.sort(); dirs.sort()
    changed = removed = 0
    for p in rng.sample(regs, min(300, len(regs) // 4)):
        st = os.lstat(p)
        with open(p, "wb") as f:
            f.write(b"edited %d\n" % changed)
        t = st.st_mtime_ns - 86_400 * 10**9
        os.utime(p, ns=(t, t))
        changed += 1
    for p in bigs:
        st = os.lstat(p)
        with open(p, "r+b") as f:
            for off in (st.st_size // 5, st.st_size // 2, st.st_size - 100):
                f.seek(off); f.write(b"EDIT")
        t = st.st_mtime_ns - 86_400 * 10**9
        os.utime(p, ns=(t, t))
        changed += 1
    for p in rng.sample([r for r in regs if os.path.exists(r)], min(200, len(regs) // 4)):
        os.unlink(p); removed += 1
    for d in dirs:
        if d.endswith(b"/c/d01"):
            import shutil
            shutil.rmtree(d); removed += 1
            break
    for d in rng.sample(dirs, min(50, len(dirs))):
        if os.path.isdir(d):
            with open(os.path.join(d, b"stale_after_edit"), "wb") as f:
                f.write(b"stale\n")
    return changed, removed


def build_bench(g, n, per_dir):
    rng = g.rng
    os.makedirs(g.root, exist_ok=True)
    ndirs = (n + per_dir - 1) // per_dir
    made = 0
    for di in range(ndirs):
        grp = b"g%03d" % (di // 100)
        if di % 100 == 0:
            os.mkdir(g.p(grp))
        d = grp + b"/d%03d" % (di % 100)
        os.mkdir(g.p(d))
        base = g.p(d)
        for i in range(min(per_dir, n - made)):
            fd = os.open(os.path.join(base, b"f%03d" % i), os.O_WRONLY | os.O_CREAT, 0o644)
            k = rng.randrange(64)
            if k:
                os.write(fd, b"%d\n" % made + b"x" * k)
            os.close(fd)
            made += 1
    g.nfiles = made
    return ndirs + (ndirs + 99) // 100 + 1


def count(root):
    nf = nd = nl = no = 0
    for dp, dn, fn in os.walk(b(root)):
        nd += 1
        for f in fn:
            m = os.lstat(os.path.join(dp, f)).st_mode
            if stat.S_ISREG(m):
                nf += 1
            elif stat.S_ISLNK(m):
                nl += 1
            else:
                no += 1
        for d in dn:
            if os.path.islink(os.path.join(dp, d)):
                nl += 1; nd -= 1
    return nf, nd, nl, no


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    os.umask(0o022)
    if argv[0] == "--stale":
        n = build_stale(argv[1], argv[2])
        print("stale entries=%d" % n)
        return 0
    if argv[0] == "--edit":
        c, r = edit_copy(argv[1])
        print("edited=%d removed=%d" % (c, r))
        return 0
    root = argv[0]
    opts = argv[1:]

    def opt(name, default):
        return int(opts[opts.index(name) + 1]) if name in opts else default
    if os.path.lexists(root) and os.listdir(root):
        print("mkbigtree: %s exists and is not empty" % root, file=sys.stderr)
        return 2
    os.makedirs(os.path.dirname(os.path.abspath(root)), exist_ok=True)
    g = Gen(root)
    if "--bench" in opts:
        nd = build_bench(g, opt("--bench", 200_000), opt("--per-dir", 100))
        print("files=%d dirs=%d entries=%d" % (g.nfiles, nd, g.nfiles + nd))
        return 0
    build_increc(g, opt("--files", 50_000), opt("--dirs", 2_400))
    nf, nd, nl, no = count(root)
    print("files=%d dirs=%d symlinks=%d other=%d hardlinks=%d entries=%d"
          % (nf, nd, nl, no, g.nhard, nf + nd + nl + no))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
