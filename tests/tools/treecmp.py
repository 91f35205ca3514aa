#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Compare two trees (destinations of two pulls, or a source and a pull).

  treecmp.py A B [options]

Compared, per path (names are bytes; the roots are compared as "."):
  the set of paths, file types, regular file sizes and contents (sha256),
  symlink targets, device numbers, permission bits (not for symlinks),
  modification times, owner and group, and the hard-link structure: the
  partition of the paths into inode groups must be the same in A and B.

Options:
  --times=ns|us|s|none  mtime precision for files (default ns; use s when
                        the protocol carries no nanoseconds, i.e. < 31)
  --no-times            same as --times=none (also for dirs and links)
  --no-times-dirs       ignore directory mtimes
  --no-times-links      ignore symlink mtimes
  --no-perms            ignore permission bits
  --no-owner            ignore owner and group
  --numeric             compare uid/gid numbers (default: names, where the
                        local system has them, else numbers)
  --no-hardlinks        ignore the hard-link structure
  --no-root-attrs       ignore the attributes (mode, times, owner) of "."
  --ignore=REL          ignore REL and everything below it (repeatable)
  --only-in-a-ok        paths only in B are differences, paths only in A
                        are not (A is a superset, e.g. a source tree)
  --max=N               print at most N differences (default 20)
  --xattrs              compare extended attributes too (names and values,
                        system.posix_acl_* included, so ACLs too; symlinks'
                        own, not followed); --xattrs=NAMEPREFIX,... limits
                        the comparison to names with those prefixes

Prints the differences and "treecmp: N differences"; exit 0 if none, 1 if
any, 2 on usage errors.
"""
import grp
import hashlib
import os
import pwd
import stat
import sys


def esc(name):
    return repr(name)[2:-1] if isinstance(name, bytes) else name


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            h.update(chunk)
    return h.hexdigest()


def ftype(mode):
    for test, name in ((stat.S_ISREG, "file"), (stat.S_ISDIR, "dir"),
                       (stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "fifo"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "chardev"),
                       (stat.S_ISBLK, "blockdev")):
        if test(mode):
            return name
    return "unknown"


def scan(root, ignore):
    """rel (bytes) -> (lstat result, extra); extra: digest / link target."""
    root = os.fsencode(root)
    out = {}
    st = os.lstat(root)
    out[b"."] = (st, None)
    stack = [b""]
    while stack:
        rel = stack.pop()
        full = os.path.join(root, rel) if rel else root
        try:
            names = os.listdir(full)
        except OSError as e:
            out[rel or b"."] = (out[rel or b"."][0], "unreadable dir: %s" % e.strerror)
            continue
        for nm in names:
            r = os.path.join(rel, nm) if rel else nm
            if any(r == ig or r.startswith(ig + b"/") for ig in ignore):
                continue
            p = os.path.join(root, r)
            st = os.lstat(p)
            extra = None
            if stat.S_ISREG(st.st_mode):
                try:
                    extra = digest(p)
                except OSError as e:
                    extra = "unreadable: %s" % e.strerror
            elif stat.S_ISLNK(st.st_mode):
                extra = os.readlink(p)
            elif stat.S_ISDIR(st.st_mode):
                stack.append(r)
            out[r] = (st, extra)
    return out


def xattrs(root, rel, prefixes):
    """name -> value of a path's own attributes (a symlink's, not followed)."""
    p = os.path.join(os.fsencode(root), rel) if rel != b"." else os.fsencode(root)
    try:
        names = os.listxattr(p, follow_symlinks=False)
    except OSError:
        return {}
    out = {}
    for nm in names:
        if prefixes and not any(nm.startswith(x) for x in prefixes):
            continue
        try:
            out[nm] = os.getxattr(p, nm, follow_symlinks=False)
        except OSError as e:
            out[nm] = "unreadable: %s" % e.strerror
    return out


def owner_names(st, numeric):
    if numeric:
        return (st.st_uid, st.st_gid)
    try:
        u = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        u = st.st_uid
    try:
        g = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        g = st.st_gid
    return (u, g)


def trunc_time(ns, prec):
    return {"ns": ns, "us": ns // 1000, "s": ns // 10**9}[prec]


def main(argv):
    opts = {"times": "ns", "times_dirs": True, "times_links": True,
            "perms": True, "owner": True, "numeric": False, "hardlinks": True,
            "root_attrs": True, "max": 20, "a_superset": False, "xattrs": None}
    ignore = []
    paths = []
    for a in argv:
        if a.startswith("--times="):
            opts["times"] = a.split("=", 1)[1]
            if opts["times"] not in ("ns", "us", "s", "none"):
                print("treecmp: bad --times", file=sys.stderr)
                return 2
        elif a == "--no-times":
            opts["times"] = "none"
        elif a == "--no-times-dirs":
            opts["times_dirs"] = False
        elif a == "--no-times-links":
            opts["times_links"] = False
        elif a == "--no-perms":
            opts["perms"] = False
        elif a == "--no-owner":
            opts["owner"] = False
        elif a == "--numeric":
            opts["numeric"] = True
        elif a == "--no-hardlinks":
            opts["hardlinks"] = False
        elif a == "--no-root-attrs":
            opts["root_attrs"] = False
        elif a == "--xattrs":
            opts["xattrs"] = []
        elif a.startswith("--xattrs="):
            opts["xattrs"] = [x for x in a.split("=", 1)[1].split(",") if x]
        elif a == "--only-in-a-ok":
            opts["a_superset"] = True
        elif a.startswith("--ignore="):
            ignore.append(os.fsencode(a.split("=", 1)[1]).rstrip(b"/"))
        elif a.startswith("--max="):
            opts["max"] = int(a.split("=", 1)[1])
        elif a.startswith("--"):
            print("treecmp: unknown option %s" % a, file=sys.stderr)
            return 2
        else:
            paths.append(a)
    if len(paths) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for p in paths:
        if not os.path.isdir(p):
            print("treecmp: %s: not a directory" % p, file=sys.stderr)
            return 2

    A = scan(paths[0], ignore)
    B = scan(paths[1], ignore)
    diffs = []

    for rel in sorted(set(A) - set(B)):
        if not opts["a_superset"]:
            diffs.append("only in A: %s (%s)" % (esc(rel), ftype(A[rel][0].st_mode)))
    for rel in sorted(set(B) - set(A)):
        diffs.append("only in B: %s (%s)" % (esc(rel), ftype(B[rel][0].st_mode)))

    for rel in sorted(set(A) & set(B)):
        sa, xa = A[rel]
        sb, xb = B[rel]
        n = esc(rel)
        ta, tb = ftype(sa.st_mode), ftype(sb.st_mode)
        if ta != tb:
            diffs.append("%s: type %s vs %s" % (n, ta, tb))
            continue
        is_root = rel == b"."
        if ta == "file":
            if sa.st_size != sb.st_size:
                diffs.append("%s: size %d vs %d" % (n, sa.st_size, sb.st_size))
            elif xa != xb:
                diffs.append("%s: content differs" % n)
        elif ta == "symlink":
            if xa != xb:
                diffs.append("%s: link target %s vs %s" % (n, esc(xa), esc(xb)))
        elif ta in ("chardev", "blockdev"):
            if sa.st_rdev != sb.st_rdev:
                diffs.append("%s: rdev %d,%d vs %d,%d" % (
                    n, os.major(sa.st_rdev), os.minor(sa.st_rdev),
                    os.major(sb.st_rdev), os.minor(sb.st_rdev)))
        elif ta == "dir" and xa != xb:
            diffs.append("%s: %s vs %s" % (n, xa, xb))
        if is_root and not opts["root_attrs"]:
            continue
        if opts["xattrs"] is not None:
            ea, eb = xattrs(paths[0], rel, opts["xattrs"]), xattrs(paths[1], rel, opts["xattrs"])
            for nm in sorted(set(ea) | set(eb)):
                if ea.get(nm) != eb.get(nm):
                    diffs.append("%s: xattr %s: %s vs %s" % (n, nm, esc(ea.get(nm, b"(none)"))[:60],
                                                            esc(eb.get(nm, b"(none)"))[:60]))
        if opts["perms"] and ta != "symlink" and stat.S_IMODE(sa.st_mode) != stat.S_IMODE(sb.st_mode):
            diffs.append("%s: mode %04o vs %04o" % (n, stat.S_IMODE(sa.st_mode), stat.S_IMODE(sb.st_mode)))
        if opts["owner"]:
            oa, ob = owner_names(sa, opts["numeric"]), owner_names(sb, opts["numeric"])
            if oa != ob:
                diffs.append("%s: owner %s:%s vs %s:%s" % (n, oa[0], oa[1], ob[0], ob[1]))
        prec = opts["times"]
        if prec != "none" and not (ta == "dir" and not opts["times_dirs"]) \
                and not (ta == "symlink" and not opts["times_links"]):
            ma, mb = trunc_time(sa.st_mtime_ns, prec), trunc_time(sb.st_mtime_ns, prec)
            if ma != mb:
                diffs.append("%s: mtime %d.%09d vs %d.%09d" % (
                    n, sa.st_mtime_ns // 10**9, sa.st_mtime_ns % 10**9,
                    sb.st_mtime_ns // 10**9, sb.st_mtime_ns % 10**9))

    if opts["hardlinks"]:
        def groups(T, keep):
            g = {}
            for rel, (st, _) in T.items():
                if rel in keep and not stat.S_ISDIR(st.st_mode):
                    g.setdefault((st.st_dev, st.st_ino), set()).add(rel)
            return {frozenset(v) for v in g.values() if len(v) > 1}
        common = set(A) & set(B)
        ga, gb = groups(A, common), groups(B, common)
        for grp_ in sorted(ga - gb, key=sorted):
            diffs.append("hard-link group only in A: %s" % " = ".join(esc(x) for x in sorted(grp_)))
        for grp_ in sorted(gb - ga, key=sorted):
            diffs.append("hard-link group only in B: %s" % " = ".join(esc(x) for x in sorted(grp_)))

    for d in diffs[:opts["max"]]:
        print("  " + d)
    if len(diffs) > opts["max"]:
        print("  ... and %d more" % (len(diffs) - opts["max"]))
    if diffs:
        print("treecmp: %d differences" % len(diffs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
