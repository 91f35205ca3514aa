#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The trusted code, counted: `make tcb`.

For each privileged binary, prints the non-blank, non-comment lines of every
project file compiled into it (its sources and the project headers they
include), and then the lines *reachable* from untrusted input: the
functions a worker message or network byte can get executed, found from
gcc's call graph (-fdump-ipa-cgraph) starting at the entry points listed
below, following direct calls, the tables a function reads and the
functions those tables point to (dispatch tables, validator tables).

Usage: tcb.py [--cc CC] [--cflags "..."] --bin NAME SRC... [--bin NAME SRC...]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# Where untrusted bytes enter each privileged process.  A name not defined
# in the binary is reported and skipped (a feature not built yet).
ENTRIES = {
    "prsyncd-monitor": {
        # every worker message: the receive loop, the validators (called
        # through the pointer pr_ipc_init is given, which a call graph
        # does not follow), the dispatch table and everything its
        # handlers call
        "worker": ["serve", "report_exit", "pr_msg_validate_w2m"],
        # bytes from the network the session monitor acts on: a PROXY
        # header; the client's login response (relayed by the worker, so
        # also counted above); the name service's answers about the
        # client (its reverse lookup, which the client's own DNS can
        # shape; the name-service child's answers about its name and its
        # user, nsquery.c) and the address the access lists are matched on
        "network": ["proxy_read_header", "auth_check_response", "peer_names", "access_decide"],
    },
    "prsyncd": {
        # a session monitor is untrusted once it has faced a worker
        "session": ["sessions_serve"],
        "network": [],
    },
}

# Functions a worker message makes run, but on trusted data only: the
# count of what is reachable from untrusted input does not enter them, and
# reports their own lines apart, each with the reason it is trusted.  A
# function listed here must take nothing from the message that led to it
# (an index into the configuration at most); adding one is a claim an
# auditor checks (docs/audit-guide.md section 1).
TRUSTED_DATA = {
    "prsyncd-monitor": {
        "modfilter_add": "compiles the selected module's filter directives: configuration text, where a client-derived %VAR% (host, address, user) expands only to a plain name (modvars.c refuses the module otherwise)",
        "mfw_init": "sizes a filter walk from the compiled rules",
        "fs_configure": "copies the selected module's settings, its name tables (looked up before the "
                        "worker existed) and PR_MOD_* flags into the session, and compiles its filters "
                        "(modfilter_add, mfw_init): configuration only, the module an index",
        "safe_open": "opens, without following planted links, a path the configuration names: the module "
                     "root (fs_prepare, where a client-derived %VAR% expands only to a plain name, so no "
                     "'/' of the client's, and a '..' is refused: modvars.c), the secrets file "
                     "(secrets_load), the MOTD (before the worker exists)",
        "authusers_compile": "compiles the module's auth users rules, text from the configuration snapshot (auth_begin, the module only), freeing those of the module compiled before",
        "hosts_parse": "parses the selected module's hosts allow/deny (access_decide, the module only): "
                       "configuration text from the snapshot, a scope's interface asked of the names "
                       "table; the client's address and name are compared with the result by "
                       "hosts_decide, counted",
        "nametab_find": "a binary search of the names table (sealed by the listener, checked whole by "
                        "nametab_parse before the worker existed) for a name of the configuration",
        "lchan_ask": "asks the listener for the selected module's slot (an index) and checks the listener's answer",
        "claim_slot": "claims a slot in the selected module through lchan_ask (the module's index is all it "
                      "takes from the request) and turns the listener's answer into rsyncd's @ERROR text",
        "send_modlist": "sends the listed modules' names and comments: configuration only (h_modlist's "
                        "request, PR_W_MODLIST, has no field)",
        "pr_policy_load_with": "loads the allow-list compiled from policy/monitor.policy",
        "pr_policy_monitor": "that allow-list: a constant table generated from policy/monitor.policy",
        "sigsys_lookup": "reads the kernel's seccomp audit records from /dev/kmsg",
        "modlog_select": "picks the selected module's log file among those opened before the worker "
                         "existed, or syslog with the module's facility (a name looked up in a fixed "
                         "table; the socket was connected before the worker existed, retried only "
                         "if that failed), from its log "
                         "settings and the global ones (configuration only; the syslog tag naming "
                         "the session is modlog_syslog's, counted)",
        "expected_response": "the digest of a secrets-file password and the monitor's own challenge, "
                             "base64 (the response is compared with it by answers(), counted); the "
                             "client chose only which digest, an index into a fixed table",
        "secrets_load": "reads the selected module's secrets file, named by its configuration (auth_begin "
                        "calls it with the module alone, before the challenge is sent): the client's "
                        "response only looks names up in the lines it cut",
        "fs_module_flags": "the PR_MOD_* flags fs_configure worked out from the configuration, and "
                           "whether the module root holds the constant name rsyncd-munged (through "
                           "resolve, counted): nothing of the request's but which module",
    },
}

# Code in these conditionals is not compiled into a release binary.
NOT_RELEASED = ("PRSYNCD_FUZZ", "PRSYNCD_TEST_HOOKS")

COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def released(lines):
    """Which lines a release build compiles: drops the lines of #ifdef (and
    the #else of #ifndef) blocks on NOT_RELEASED macros, with their
    directives."""
    keep, stack = [], []  # stack: (dropping this branch, block is on a test macro)
    for l in lines:
        d = l.strip()
        m = re.match(r"#\s*(ifdef|ifndef|if|else|elif|endif)\b\s*(\S*)", d)
        if m:
            kw, arg = m.group(1), m.group(2)
            if kw in ("ifdef", "ifndef", "if"):
                test = kw != "if" and arg in NOT_RELEASED
                stack.append(((kw == "ifdef") if test else False, test))
                keep.append(not test and not any(x[0] for x in stack[:-1]))
                continue
            if kw in ("else", "elif") and stack:
                drop, test = stack.pop()
                stack.append((not drop if test else drop, test))
                keep.append(not test and not any(x[0] for x in stack))
                continue
            if kw == "endif" and stack:
                _, test = stack.pop()
                keep.append(not test and not any(x[0] for x in stack))
                continue
        keep.append(not any(x[0] for x in stack))
    return keep


def code_lines(text):
    """1-based line numbers that hold released code (not blank, not only
    comment, not in a test-only conditional)."""
    # Blank out comments but keep newlines so line numbers stay.
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    stripped = COMMENT_RE.sub(blank, text).split("\n")
    rel = released(stripped)
    return {i + 1 for i, l in enumerate(stripped) if l.strip() and rel[i]}


def project_headers(cc, cflags, src):
    out = subprocess.run([cc] + cflags + ["-MM", src], capture_output=True, text=True, check=True).stdout
    deps = out.replace("\\\n", " ").split(":", 1)[1].split()
    return [d for d in deps if d.endswith(".h") and d.startswith(("src/", "build/"))]


def parse_cgraph(path, src):
    """Nodes of one translation unit: key -> dict(kind, edges)."""
    nodes = {}
    text = open(path, encoding="utf-8", errors="replace").read()
    start = text.find("Initial Symbol table:")
    end = text.find("\nRemoving unused symbols", start)
    body = text[start:end if end > 0 else None]
    cur = None
    for line in body.split("\n"):
        m = re.match(r"^(\S+)/(\d+) \((\S+)\) @", line)
        if m:
            cur = {"name": m.group(1), "id": m.group(1) + "/" + m.group(2), "asm": m.group(3),
                   "def": False, "var": False, "public": False, "edges": []}
            nodes[cur["id"]] = cur
            continue
        if cur is None:
            continue
        s = line.strip()
        if s.startswith("Type:"):
            cur["def"] = "definition" in s
            cur["var"] = "variable" in s
        elif s.startswith("Visibility:"):
            cur["public"] = " public" in s or "external" in s
        elif s.startswith("Calls:") or s.startswith("References:"):
            for tok in s.split()[1:]:
                if "/" in tok and not tok.startswith("("):
                    cur["edges"].append(tok)
    for n in nodes.values():
        n["src"] = src
    return nodes


def ctags_ranges(files):
    out = subprocess.run(["ctags", "--c-kinds=fv", "--fields=+ne", "--output-format=json", "-o", "-"] + files,
                         capture_output=True, text=True, check=True).stdout
    r = {}
    for l in out.splitlines():
        t = json.loads(l)
        if t.get("_type") != "tag":
            continue
        key = (t["path"], t["name"]) if t.get("file") else (None, t["name"])
        r[key] = (t["path"], t["line"], t.get("end", t["line"]))
    return r


def analyse(cc, cflags, name, srcs):
    tmp = tempfile.mkdtemp(prefix="tcb.")
    cfiles = [s for s in srcs if s.endswith(".c")]
    files = set(cfiles)
    for s in cfiles:
        files.update(project_headers(cc, cflags, s))
    per_file = {}
    for f in sorted(files):
        per_file[f] = len(code_lines(open(f, encoding="utf-8", errors="replace").read()))

    # Call graph of every translation unit.
    units = {}
    for i, s in enumerate(cfiles):
        dump = os.path.join(tmp, "%d.cgraph" % i)
        subprocess.run([cc] + cflags + ["-O0", "-fdump-ipa-cgraph=" + dump, "-c", s, "-o", os.devnull],
                       check=True, capture_output=True)
        units[s] = parse_cgraph(dump, s)
    # Global definitions by name; statics stay per unit.
    glob = {}
    for s, nodes in units.items():
        for n in nodes.values():
            if n["def"] and n["public"]:
                glob[n["name"]] = n

    def resolve(unit, ref):
        n = units[unit].get(ref)
        if n is None:
            return None
        if n["def"]:
            return n
        return glob.get(n["name"])

    ranges = ctags_ranges(sorted(f for f in files if f.endswith(".c")))
    lines_of = {}

    def node_lines(n):
        key = (n["src"], n["name"])
        rng = ranges.get(key) or ranges.get((None, n["name"]))
        if rng is None:
            return set()
        path, a, b = rng
        if path not in lines_of:
            lines_of[path] = code_lines(open(path, encoding="utf-8", errors="replace").read())
        return {(path, x) for x in lines_of[path] if a <= x <= b}

    def find(e):
        return glob.get(e) or next((m for u in units.values() for m in u.values()
                                    if m["name"] == e and m["def"]), None)

    def walk(starts, stop):
        """Nodes reachable from starts, not entering the names in stop."""
        seen, stack = set(), list(starts)
        while stack:
            n = stack.pop()
            k = (n["src"], n["id"])
            if k in seen or n["name"] in stop:
                continue
            seen.add(k)
            for ref in n["edges"]:
                t = resolve(n["src"], ref)
                if t is not None:
                    stack.append(t)
        return seen

    def lines_of_nodes(seen):
        reach_lines, funcs = set(), []
        for (src, nid) in seen:
            n = units[src][nid]
            ls = node_lines(n)
            reach_lines |= ls
            funcs.append((n["src"], n["name"], len(ls)))
        by_file = {}
        for (path, _) in reach_lines:
            by_file[path] = by_file.get(path, 0) + 1
        return reach_lines, by_file, sorted(funcs)

    trusted = TRUSTED_DATA.get(name, {})
    report = {}
    for kind, entries in ENTRIES.get(name, {}).items():
        starts = [find(e) for e in entries]
        missing = [e for e, n in zip(entries, starts) if n is None]
        seen = walk([n for n in starts if n is not None], set(trusted))
        reach_lines, by_file, funcs = lines_of_nodes(seen)
        # The trusted-data functions this input reaches, and what only they reach.
        called = {t["id"]: t for (src, nid) in seen for ref in units[src][nid]["edges"]
                  for t in [resolve(src, ref)] if t is not None and t["name"] in trusted}
        behind = {k for k in walk(list(called.values()), set()) if k not in seen}
        t_lines, _, t_funcs = lines_of_nodes(behind)
        t_lines -= reach_lines
        report[kind] = (reach_lines, by_file, funcs, missing,
                        (t_lines, sorted({t["name"] for t in called.values()}), t_funcs))
    return per_file, report


def main(argv):
    cc, cflags, bins = "cc", [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--cc":
            cc = argv[i + 1]; i += 2
        elif a == "--cflags":
            # the version strings do not change a call graph
            cflags = argv[i + 1].split() + ['-DPRSYNCD_VERSION="tcb"', '-DPRSYNCD_LIBEXEC="/"']
            i += 2
        elif a == "--bin":
            bins.append((argv[i + 1], [])); i += 2
        elif a == "--verbose":
            os.environ["TCB_VERBOSE"] = "1"; i += 1
        else:
            bins[-1][1].append(a); i += 1
    verbose = os.environ.get("TCB_VERBOSE") == "1"
    for name, srcs in bins:
        per_file, report = analyse(cc, cflags, name, srcs)
        total = sum(per_file.values())
        print("== %s: %d lines compiled in (non-blank, non-comment; sources and project headers)" % (name, total))
        for f in sorted(per_file):
            print("  %6d  %s" % (per_file[f], f))
        for kind, (lines, by_file, funcs, missing, (t_lines, t_names, t_funcs)) in report.items():
            print("-- %s: %d lines reachable from %s input" % (name, len(lines), kind))
            for f in sorted(by_file):
                print("  %6d  %s" % (by_file[f], f))
            if missing:
                print("  (entry points not built yet: %s)" % ", ".join(missing))
            if verbose:
                for src, fn, n in funcs:
                    print("      %4d  %s:%s" % (n, src, fn))
            if t_names:
                print("   + %d more lines run at %s input's request on trusted data only:" % (len(t_lines), kind))
                for t in t_names:
                    print("          %s: %s" % (t, TRUSTED_DATA[name][t]))
                if verbose:
                    for src, fn, n in t_funcs:
                        print("      %4d  %s:%s" % (n, src, fn))
        if len(report) > 1:
            union, by_file = set(), {}
            for r in report.values():
                union |= r[0]
            for (path, _) in union:
                by_file[path] = by_file.get(path, 0) + 1
            print("-- %s: %d lines reachable from %s input (the union)" % (name, len(union), " or ".join(report)))
            for f in sorted(by_file):
                print("  %6d  %s" % (by_file[f], f))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
