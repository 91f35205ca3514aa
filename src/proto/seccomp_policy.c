/* SPDX-License-Identifier: ISC */
/*
 * Loading an allow-list: the BPF program for it was generated at build time
 * from policy/NAME.policy (policy/bpfgen.c, with libseccomp: the same
 * program libseccomp would build at run time, which a unit test checks),
 * so a session's start costs one system call instead of building the
 * filter, and the per-connection binaries do not link libseccomp.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp_policy.h"

static const struct pr_bpf_program *find(const struct pr_policy *p, const struct pr_policy *extra)
{
	for (size_t i = 0; i < pr_bpf_nprograms; i++) {
		const struct pr_bpf_program *b = &pr_bpf_programs[i];

		if (strcmp(b->policy, p->name) == 0 &&
		    (extra ? b->extra != NULL && strcmp(b->extra, extra->name) == 0 : b->extra == NULL))
			return b;
	}
	return NULL;
}

int pr_policy_load_with(const struct pr_policy *p, const struct pr_policy *extra,
			char *err, size_t errlen)
{
	const struct pr_bpf_program *b = find(p, extra);
	struct sock_fprog prog;

	if (b == NULL) {
		snprintf(err, errlen, "no program was built for policy %s%s%s", p->name, extra ? "+" : "",
			 extra ? extra->name : "");
		return -1;
	}
	prog.len = (unsigned short)b->len;
	prog.filter = (struct sock_filter *)b->filter;
	/* As libseccomp does by default: a filter needs no_new_privs unless
	 * the caller has CAP_SYS_ADMIN, and it is wanted anyway. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(err, errlen, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return -1;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		snprintf(err, errlen, "seccomp: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int pr_policy_load(const struct pr_policy *p, char *err, size_t errlen)
{
	return pr_policy_load_with(p, NULL, err, errlen);
}

const char *pr_syscall_name(long nr)
{
	return nr >= 0 && (size_t)nr < pr_syscall_nnames ? pr_syscall_names[nr] : NULL;
}
