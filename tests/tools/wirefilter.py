#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A daemon client that sends filter rules no stock client sends: a stock
client reads a "merge" rule's file itself and sends the rules in it, a
hostile one can send the rule and make the server read a file it names.

  wirefilter.py PORT MODULE RULE...

Protocol 32, "--server --sender -r . MODULE/", the rules as the filter
list; then prints every message the server sends ("MSG text", the
"rsync error:" line without where it was raised) and CLOSED or OPEN
(still open after 3 s: the transfer went on).  Bounded by evilclient's
socket timeout and that deadline."""
import os
import re
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evilclient  # noqa: E402


class RuleClient(evilclient.Client):
    def __init__(self, port, module, rules):
        self.rules = rules
        super().__init__(port, module, ["--server", "--sender", "-r", ".", module + "/"])

    def send(self, payload):
        # the base class's setup sends the empty filter list: ours instead
        if payload == b"\0\0\0\0" and self.rules is not None:
            rules, self.rules = self.rules, None
            payload = b"".join(struct.pack("<i", len(r)) + r for r in rules) + b"\0\0\0\0"
        super().send(payload)


def main():
    port, module = int(sys.argv[1]), sys.argv[2]
    c = RuleClient(port, module, [r.encode() for r in sys.argv[3:]])
    closed = False
    deadline = time.time() + 3
    c.s.settimeout(3)
    try:
        while time.time() < deadline:
            c.frame()
    except socket.timeout:
        pass
    except (EOFError, OSError):
        closed = True
    for t in c.texts:
        if t:
            print("MSG", re.sub(r" at \S+ \[sender=[^]]*\]$", "", t))
    print("CLOSED" if closed else "OPEN")


if __name__ == "__main__":
    main()
