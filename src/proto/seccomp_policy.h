/* SPDX-License-Identifier: ISC */
/*
 * A seccomp allow-list as data.  policy/NAME.policy is turned into a
 * `const struct pr_policy pr_policy_NAME` by policy/policy2c.awk at build
 * time, so the list a reviewer reads is the list the kernel enforces.
 */
#ifndef PRSYNCD_SECCOMP_POLICY_H
#define PRSYNCD_SECCOMP_POLICY_H

#include <stddef.h>
#include <stdint.h>

enum pr_cmp {
	PR_CMP_EQ = 1,
	PR_CMP_NE,
	PR_CMP_LT,
	PR_CMP_LE,
	PR_CMP_GT,
	PR_CMP_GE,
	PR_CMP_MASKED_EQ, /* (arg & mask) == value */
};

#define PR_POLICY_MAX_ARGS 3

struct pr_policy_arg {
	unsigned arg;       /* argument index 0..5 */
	enum pr_cmp op;
	uint64_t mask;      /* PR_CMP_MASKED_EQ only */
	uint64_t value;
};

struct pr_policy_rule {
	const char *syscall;
	unsigned nargs;     /* all conditions must hold (AND) */
	struct pr_policy_arg args[PR_POLICY_MAX_ARGS];
	int line;           /* line in the .policy file, for error messages */
};

struct pr_policy {
	const char *name;
	const struct pr_policy_rule *rules;
	size_t nrules;
};

/*
 * Load a policy as a seccomp filter whose default action kills the process
 * (and sets no_new_privs).  The filter is the BPF program built for it at
 * build time (build/gen/bpf_programs.c, by policy/bpfgen.c with libseccomp):
 * a syscall name libseccomp does not know fails the build, not a session,
 * and a misspelt line can neither open a hole nor break at run time.
 * Returns 0, or -1 with a message in err.
 */
int pr_policy_load(const struct pr_policy *p, char *err, size_t errlen);

/* Same, with a second list merged in (sanitizer builds); extra may be NULL.
 * Programs exist for every policy alone and merged with "sanitizer". */
int pr_policy_load_with(const struct pr_policy *p, const struct pr_policy *extra,
			char *err, size_t errlen);

/* The programs generated at build time (build/gen/bpf_programs.c). */
struct sock_filter;
struct pr_bpf_program {
	const char *policy;           /* pr_policy name */
	const char *extra;            /* the merged second list, or NULL */
	const struct sock_filter *filter;
	size_t len;                   /* instructions */
};
extern const struct pr_bpf_program pr_bpf_programs[];
extern const size_t pr_bpf_nprograms;

/* The name of a native syscall number for log lines, NULL if unknown
 * (a table generated with libseccomp at build time). */
const char *pr_syscall_name(long nr);
extern const char *const pr_syscall_names[];
extern const size_t pr_syscall_nnames;

#endif
