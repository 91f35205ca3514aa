# SPDX-License-Identifier: ISC
# Regenerate tests/unit/filter_cases.inc: python3 tests/tools/filter_cases.py > tests/unit/filter_cases.inc
# (run in a scratch directory; needs a stock rsync).  "-/ /abs" rules are
# not in the table: locally they see the whole filesystem path.
import subprocess, os, shutil, sys
tree = ["a.txt","b.bin","c.log","logs/c.log","logs/2024/a.log","logs/2024/b.txt","sub/x.o","sub/deep/y.c","sub/deep/z.bin",
 "foo","dir1/foo","dir1/bar/foo","dir2/q","x[1]","star*name","q?x","back\\slash","abc","abd","a-b","A.TXT","sub/core","sub/deep/.git/cfg",
 "wide/a/b/c/d.txt","dots.and.more","Zq","9n","sp ace"]
dirs = set()
for p in tree:
    parts = p.split('/')
    for i in range(1,len(parts)): dirs.add('/'.join(parts[:i]))
cases = [
 ["- *.bin"], ["- /logs/*.log"], ["- logs/**/*.log"], ["- **/*.log"], ["- logs/***"], ["+ */","+ *.log","- *"],
 ["-! *.c"], ["- sub/"], ["- sub"], ["- /foo"], ["- foo"], ["- bar/foo"], ["- dir1/*/foo"], ["- *"], ["+ /dir1/","- /*"],
 ["- x\\[1\\]"], ["- x[[]1]"], ["- [ab]*"], ["- [!ab]*"], ["- [^a]*"], ["- [a-c]b?"], ["- [[:upper:]]*"], ["- [[:digit:]]*"],
 ["- [[:punct:]]*"], ["- *[[:space:]]*"], ["- star\\*name"], ["- q\\?x"], ["- back\\slash"], ["- back\\\\slash"], ["- **"], ["- *.*"],
 ["- deep/"], ["- /sub/deep/"], ["- sub/deep/z.bin"], ["- deep/*.bin"], ["- **/deep/**"], ["- wide/**/d.txt"], ["- wide/**d.txt"],
 ["- ***"], ["- *2024*"], ["- **2024"], ["- 2024/"], ["-! */"], ["+ *.txt","- *.*"], ["- [a"], ["- [[:nope:]]*"], ["- a*"],
 ["exclude *.o"], ["hide *.o"], ["-s *.log"], ["-r *.log"], ["P *.log"], ["-/ sub/x.o"], ["- ?"], ["- ??"],
 ["- []]*"], ["- [!]]*"], ["- [a-]*"], ["- **/"], ["- */"], ["- /*/"], ["- *.*/"], ["+ sub/deep/","- deep"], ["- .git/"],
 ["- sub/*"], ["- sub/**"], ["- /sub/**/"], ["- **/b*"], ["- logs/*"], ["- *og*/*"], ["- sp ace"], ["- d*/b*/"],
]
def mk(root):
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for d in dirs: os.makedirs(os.path.join(root,d), exist_ok=True)
    for p in tree:
        open(os.path.join(root,p),'w').write('x')
mk("src")
def cstr(s): return '"' + s.replace('\\','\\\\').replace('"','\\"') + '"'
rows=[]
for rules in cases:
    args = ['rsync','-r','--list-only']
    for r in rules: args.append('--filter='+r)
    args.append('src/')
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        print("ERR", rules, out.stderr, file=sys.stderr); continue
    listed=set()
    for line in out.stdout.splitlines():
        name = line.split(None,4)[4]
        listed.add(name)
    for p in sorted(dirs)+tree:
        isdir = p in dirs
        rows.append("\t{ %s, %s, %d, %d }," % (cstr("\\n".join(rules)).replace("\\\\n","\\n"), cstr(p), int(isdir), int(p in listed)))
print("\n".join(rows))
