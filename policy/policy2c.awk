# SPDX-License-Identifier: ISC
# Turn a human-readable seccomp allow-list into a C table.
#
# Input: one rule per line, "syscall [cond [and cond]...]" where a cond is
#   argN OP VALUE          OP one of == != < <= > >=
#   argN & MASK == VALUE   masked comparison
# VALUE and MASK are C constant expressions without spaces (PROT_EXEC,
# O_RDONLY|O_CLOEXEC, 0).  '#' starts a comment.  A syscall may appear on
# several lines: any matching line allows the call (OR).
function fail(msg) { printf("%s:%d: %s\n", FILENAME, NR, msg) > "/dev/stderr"; err = 1; exit 1 }
BEGIN {
	print "/* generated from policy/" name ".policy by policy/policy2c.awk: do not edit */"
	print "#include <fcntl.h>"
	print "#include <netinet/in.h>"
	print "#include <sys/ioctl.h>"
	print "#include <sys/mman.h>"
	print "#include <sys/socket.h>"
	print "#include <sys/prctl.h>"
	print "#include <linux/sched.h>"
	print "#include <linux/seccomp.h>"
	print "#include <signal.h>"
	print "#include \"seccomp_policy.h\""
	print "static const struct pr_policy_rule rules[] = {"
	n = 0
}
{
	sub(/#.*/, "")
	if (NF == 0) next
	if ($1 !~ /^[a-z_][a-z0-9_]*$/) fail("bad syscall name '" $1 "'")
	line = "\t{ \"" $1 "\", "
	conds = ""; nc = 0; i = 2
	while (i <= NF) {
		if ($i == "and") { i++; continue }
		if ($i !~ /^arg[0-5]$/) fail("expected argN, got '" $i "'")
		a = substr($i, 4)
		if ($(i+1) == "&") {
			if ($(i+3) != "==") fail("masked condition needs ==")
			c = sprintf("{ %s, PR_CMP_MASKED_EQ, (uint64_t)(%s), (uint64_t)(%s) }", a, $(i+2), $(i+4))
			i += 5
		} else {
			op = $(i+1)
			if (op == "==") o = "PR_CMP_EQ"; else if (op == "!=") o = "PR_CMP_NE"
			else if (op == "<") o = "PR_CMP_LT"; else if (op == "<=") o = "PR_CMP_LE"
			else if (op == ">") o = "PR_CMP_GT"; else if (op == ">=") o = "PR_CMP_GE"
			else fail("bad operator '" op "'")
			if ($(i+2) == "") fail("missing value")
			c = sprintf("{ %s, %s, 0, (uint64_t)(%s) }", a, o, $(i+2))
			i += 3
		}
		conds = conds (nc ? ", " : "") c
		nc++
		if (nc > 3) fail("at most 3 conditions per rule")
	}
	printf("%s%d, { %s }, %d },\n", line, nc, (nc ? conds : "{ 0 }"), NR)
	n++
}
END {
	if (err) exit 1
	print "};"
	print "const struct pr_policy pr_policy_" name " = { \"" name "\", rules, sizeof(rules) / sizeof(rules[0]) };"
}
