#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Deterministic data sets for the side-by-side benchmark (bench/bench.py).

  mkdata.py DATA_DIR KIND NAME [PARAMS...]      (normally called by bench.py)

Kinds (each one directory DATA_DIR/NAME, built in DATA_DIR/NAME.tmp and
renamed when complete, with DATA_DIR/NAME.stamp recording what was asked;
a data set whose stamp matches is reused untouched):

  tree FILES            FILES files of mixed sizes (70% 0-4 KiB, 25%
                        4-40 KiB, 5% 40-128 KiB; mean ~11.4 KB, so 20,000
                        files are ~229 MB) of random (incompressible)
                        bytes, 100 files per directory, 20 directories per
                        top-level group: gNN/dNN/fNNN.bin
  big BYTES             one file big.bin of BYTES random bytes, and
                        NAME.edit (outside the module, next to it): an
                        edited copy with an older mtime (32 overwritten
                        4 KiB regions, 1,000 bytes inserted at 1/3, 1,000
                        removed at 2/3), the basis of the delta pulls
  text BYTES            text files of ~1 MB (the last one shorter): words
                        of a 6,000-word vocabulary drawn with Zipf weights,
                        lines of 8-14 words; compresses about 2.5-3x
  small BYTES           one file one.txt of BYTES bytes of text
  tiny FILES            FILES files of 0-63 bytes, 100 per directory, 100
                        directories per group: gNNN/dNNN/fNNN (the
                        mirror-scale trees; entries = files + dirs + groups
                        + 1)

Everything is seeded: names, sizes, contents and mtimes are the same on
every machine and every run.  Prints one summary line.
"""
import itertools
import os
import random
import shutil
import sys

VERSION = 1                     # bump when any generator changes
BASE_T = 1_600_000_000          # mtimes: BASE_T + n seconds (+ fixed ns)
CHUNK = 1 << 20


def stamp_of(kind, params):
    return "v%d %s %s" % (VERSION, kind, " ".join(str(p) for p in params))


def set_mtime(path, n):
    t = (BASE_T + n) * 10**9 + 123_456_789
    os.utime(path, ns=(t, t))


def write_file(path, data, n):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            w = os.write(fd, view)
            view = view[w:]
    finally:
        os.close(fd)
    set_mtime(path, n)


def finish_dirs(dirs):
    # Deepest first, so setting a parent's mtime is the last change to it.
    for n, d in sorted(dirs, key=lambda x: -x[1].count(b"/")):
        os.chmod(d, 0o755)
        set_mtime(d, n)


def gen_tree(root, nfiles):
    rng = random.Random(0x7EE20000 + nfiles)
    dirs, total = [], 0
    for i in range(nfiles):
        g, d, f = i // 2000, (i // 100) % 20, i % 100
        dpath = b"%s/g%02d/d%02d" % (root, g, d)
        if f == 0:
            os.makedirs(dpath, exist_ok=True)
            dirs.append((i, dpath))
            if d == 0:
                dirs.append((i, os.path.dirname(dpath)))
        r = rng.random()
        if r < 0.70:
            size = rng.randrange(0, 4096)
        elif r < 0.95:
            size = rng.randrange(4096, 40960)
        else:
            size = rng.randrange(40960, 131072)
        write_file(b"%s/f%03d.bin" % (dpath, f), rng.randbytes(size), i)
        total += size
    dirs.append((nfiles, root))
    finish_dirs(dirs)
    return "files=%d dirs=%d bytes=%d" % (nfiles, len(dirs), total)


def random_stream(rng, nbytes):
    left = nbytes
    while left > 0:
        n = min(CHUNK, left)
        yield rng.randbytes(n)
        left -= n


def gen_big(root, nbytes, edit_path):
    rng = random.Random(0xB16F11E0 + nbytes)
    path = root + b"/big.bin"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for chunk in random_stream(rng, nbytes):
        os.write(fd, chunk)
    os.close(fd)
    set_mtime(path, 1000)
    # The edited copy: overwrite, insert, delete; same size, older mtime.
    # Streamed, so a 1 GiB source never sits in memory.
    region = min(4096, max(1, nbytes // 256))
    shift = min(1000, max(1, nbytes // 1024))
    edits = [((nbytes * (2 * k + 1)) // 64, region, rng.randbytes(region)) for k in range(32)]
    edits.append((nbytes // 3, 0, rng.randbytes(shift)))        # insert
    edits.append(((2 * nbytes) // 3, shift, b""))               # delete
    edits.sort(key=lambda e: e[0])
    with open(path, "rb") as src, open(edit_path, "wb") as dst:
        pos = 0

        def copy_to(end):
            nonlocal pos
            src.seek(pos)
            while pos < end:
                chunk = src.read(min(CHUNK, end - pos))
                if not chunk:
                    break
                dst.write(chunk)
                pos += len(chunk)
        for off, skip, data in edits:
            if off < pos or off + skip > nbytes:
                continue
            copy_to(off)
            dst.write(data)
            pos = off + skip
        copy_to(nbytes)
    os.chmod(edit_path, 0o644)
    set_mtime(edit_path, 10)
    set_mtime(root, 1001)
    return "bytes=%d edited_copy=%s" % (nbytes, edit_path.decode())


def text_block(rng, vocab, cum, nbytes):
    out, size = [], 0
    while size < nbytes:
        words = rng.choices(vocab, cum_weights=cum, k=rng.randrange(8, 15))
        line = " ".join(words) + "\n"
        out.append(line)
        size += len(line)
    return "".join(out).encode()[:nbytes]


def make_vocab(rng):
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    lw = [12.7, 9.1, 8.2, 7.5, 7.0, 6.7, 6.3, 6.1, 6.0, 4.3, 4.0, 2.8, 2.8, 2.4,
          2.4, 2.2, 2.0, 2.0, 1.9, 1.5, 1.0, 0.8, 0.15, 0.15, 0.1, 0.07]
    vocab = set()
    while len(vocab) < 6000:
        n = min(12, max(1, int(rng.expovariate(1 / 5.0)) + 1))
        vocab.add("".join(rng.choices(letters, weights=lw, k=n)))
    vocab = sorted(vocab)
    rng.shuffle(vocab)
    cum = list(itertools.accumulate(1.0 / (r + 1) ** 1.07 for r in range(len(vocab))))
    return vocab, cum


def gen_text(root, nbytes):
    rng = random.Random(0x7E47 + nbytes)
    vocab, cum = make_vocab(rng)
    i, left = 0, nbytes
    while left > 0:
        n = min(1_000_000, left)
        write_file(b"%s/t%04d.txt" % (root, i), text_block(rng, vocab, cum, n), i)
        i += 1
        left -= n
    set_mtime(root, i)
    return "files=%d bytes=%d" % (i, nbytes)


def gen_small(root, nbytes):
    rng = random.Random(0x5A11 + nbytes)
    vocab, cum = make_vocab(rng)
    write_file(root + b"/one.txt", text_block(rng, vocab, cum, nbytes), 1)
    set_mtime(root, 2)
    return "files=1 bytes=%d" % nbytes


def gen_tiny(root, nfiles):
    rng = random.Random(0x71A1 + nfiles)
    dirs = []
    for i in range(nfiles):
        g, d, f = i // 10000, (i // 100) % 100, i % 100
        dpath = b"%s/g%03d/d%03d" % (root, g, d)
        if f == 0:
            os.makedirs(dpath, exist_ok=True)
            dirs.append((i, dpath))
            if d == 0:
                dirs.append((i, os.path.dirname(dpath)))
        write_file(b"%s/f%03d" % (dpath, f), rng.randbytes(rng.randrange(64)), i)
    dirs.append((nfiles, root))
    finish_dirs(dirs)
    return "files=%d dirs=%d entries=%d" % (nfiles, len(dirs), nfiles + len(dirs))


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    data_dir, kind, name = (os.fsencode(a) for a in argv[1:4])
    kind = kind.decode()
    params = [int(p) for p in argv[4:]]
    final = os.path.join(data_dir, name)
    stamp_file = final + b".stamp"
    want = stamp_of(kind, params)
    try:
        with open(stamp_file) as f:
            have = f.read().split("\n")
        if have[0] == want and os.path.isdir(final) and \
                (kind != "big" or os.path.isfile(final + b".edit")):
            print("reused %s: %s" % (name.decode(), have[1] if len(have) > 1 else ""))
            return 0
    except OSError:
        pass
    os.makedirs(data_dir, exist_ok=True)
    os.chmod(data_dir, 0o755)
    tmp = final + b".tmp"
    for p in (stamp_file, final + b".edit"):
        if os.path.lexists(p):
            os.unlink(p)
    for p in (final, tmp):
        if os.path.lexists(p):
            shutil.rmtree(p)
    os.makedirs(tmp)
    os.chmod(tmp, 0o755)
    if kind == "tree":
        summary = gen_tree(tmp, *params)
    elif kind == "big":
        summary = gen_big(tmp, params[0], final + b".edit")
    elif kind == "text":
        summary = gen_text(tmp, *params)
    elif kind == "small":
        summary = gen_small(tmp, *params)
    elif kind == "tiny":
        summary = gen_tiny(tmp, *params)
    else:
        print("mkdata.py: unknown kind %s" % kind, file=sys.stderr)
        return 2
    st = os.stat(tmp)
    os.rename(tmp, final)
    os.utime(final, ns=(st.st_atime_ns, st.st_mtime_ns))
    with open(stamp_file, "w") as f:
        f.write(want + "\n" + summary + "\n")
    print("made %s: %s" % (name.decode(), summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
