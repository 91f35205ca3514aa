/* SPDX-License-Identifier: ISC */
/*
 * An allow-list turned into BPF with libseccomp (see seccomp_build.h).
 * Anything not listed kills the whole process (SCMP_ACT_KILL_PROCESS).
 * Calls made through a foreign ABI (x32, i386) hit libseccomp's "bad arch"
 * action, which is set to kill the process too rather than left at its
 * default (kill the thread).
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "seccomp_build.h"

static enum scmp_compare to_scmp(enum pr_cmp op)
{
	switch (op) {
	case PR_CMP_EQ: return SCMP_CMP_EQ;
	case PR_CMP_NE: return SCMP_CMP_NE;
	case PR_CMP_LT: return SCMP_CMP_LT;
	case PR_CMP_LE: return SCMP_CMP_LE;
	case PR_CMP_GT: return SCMP_CMP_GT;
	case PR_CMP_GE: return SCMP_CMP_GE;
	case PR_CMP_MASKED_EQ: return SCMP_CMP_MASKED_EQ;
	}
	return _SCMP_CMP_MIN;
}

static int add_rules(scmp_filter_ctx ctx, const struct pr_policy *p, char *err, size_t errlen)
{
	int rc;

	for (size_t i = 0; i < p->nrules; i++) {
		const struct pr_policy_rule *r = &p->rules[i];
		struct scmp_arg_cmp cmp[PR_POLICY_MAX_ARGS];
		int nr = seccomp_syscall_resolve_name(r->syscall);

		if (nr == __NR_SCMP_ERROR) {
			snprintf(err, errlen, "policy %s line %d: unknown syscall %s",
				 p->name, r->line, r->syscall);
			return -1;
		}
		if (r->nargs > PR_POLICY_MAX_ARGS) {
			snprintf(err, errlen, "policy %s line %d: too many conditions", p->name, r->line);
			return -1;
		}
		for (unsigned a = 0; a < r->nargs; a++) {
			const struct pr_policy_arg *pa = &r->args[a];

			cmp[a].arg = pa->arg;
			cmp[a].op = to_scmp(pa->op);
			cmp[a].datum_a = pa->op == PR_CMP_MASKED_EQ ? pa->mask : pa->value;
			cmp[a].datum_b = pa->op == PR_CMP_MASKED_EQ ? pa->value : 0;
		}
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, r->nargs, cmp);
		if (rc < 0) {
			snprintf(err, errlen, "policy %s line %d: cannot add rule for %s: %s",
				 p->name, r->line, r->syscall, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* The program libseccomp generated, read back from a memory file. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **prog, size_t *len, char *err, size_t errlen)
{
	int fd = memfd_create("bpf", MFD_CLOEXEC);
	off_t size;
	int rc;

	if (fd < 0) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		return -1;
	}
	rc = seccomp_export_bpf(ctx, fd);
	size = lseek(fd, 0, SEEK_END);
	if (rc < 0 || size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    (*prog = malloc((size_t)size)) == NULL) {
		snprintf(err, errlen, "seccomp_export_bpf: %s", rc < 0 ? strerror(-rc) : "bad size");
		close(fd);
		return -1;
	}
	if (pread(fd, *prog, (size_t)size, 0) != size) {
		snprintf(err, errlen, "reading the program back: %s", strerror(errno));
		free(*prog);
		close(fd);
		return -1;
	}
	close(fd);
	*len = (size_t)size / sizeof(struct sock_filter);
	return 0;
}

int pr_policy_build(const struct pr_policy *p, const struct pr_policy *extra, struct sock_filter **prog,
		    size_t *len, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (ctx == NULL) {
		snprintf(err, errlen, "seccomp_init failed");
		return -1;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		snprintf(err, errlen, "seccomp bad-arch action: %s", strerror(-rc));
		goto fail;
	}
	/* A binary tree of syscall numbers instead of a linear chain: the
	 * same verdicts, but the per-entry newfstatat of a listing (checked
	 * last of ~40 in the chain, under two stacked filters) takes a few
	 * comparisons (docs/performance.md, 2.0b). */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0) {
		snprintf(err, errlen, "seccomp tree layout: %s", strerror(-rc));
		goto fail;
	}
	if (add_rules(ctx, p, err, errlen) < 0 || (extra && add_rules(ctx, extra, err, errlen) < 0))
		goto fail;
	if (export_bpf(ctx, prog, len, err, errlen) < 0)
		goto fail;
	seccomp_release(ctx);
	return 0;
fail:
	seccomp_release(ctx);
	return -1;
}
