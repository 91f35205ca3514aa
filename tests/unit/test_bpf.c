/* SPDX-License-Identifier: ISC */
/*
 * The seccomp programs generated at build time (build/gen/bpf_programs.c):
 * each is exactly what libseccomp builds from its policy now (so a stale
 * file or a generator bug cannot change what is enforced), every policy has
 * its program alone and merged with the sanitizer list, the syscall names
 * are libseccomp's, and a loaded program really confines: an allowed call
 * works, a forbidden one kills the process with SIGSYS.
 */
#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policies.h"
#include "seccomp_build.h"
#include "unit.h"

static const struct pr_policy *const all[] = {
#define X(name) &pr_policy_##name,
	PR_POLICY_LIST
#undef X
};
#define NALL (sizeof(all) / sizeof(all[0]))

static const struct pr_policy *by_name(const char *name)
{
	for (size_t i = 0; i < NALL; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

static void test_programs_match(void)
{
	size_t alone = 0, merged = 0;

	for (size_t i = 0; i < pr_bpf_nprograms; i++) {
		const struct pr_bpf_program *b = &pr_bpf_programs[i];
		const struct pr_policy *p = by_name(b->policy), *x = b->extra ? by_name(b->extra) : NULL;
		struct sock_filter *prog = NULL;
		size_t len = 0;
		char err[256];

		CHECK_MSG(p != NULL && (b->extra == NULL || x != NULL), "program %zu names unknown policies", i);
		if (p == NULL || (b->extra && x == NULL))
			continue;
		CHECK_MSG(pr_policy_build(p, x, &prog, &len, err, sizeof(err)) == 0, "%s: %s", b->policy, err);
		CHECK_MSG(len == b->len && prog != NULL && memcmp(prog, b->filter, len * sizeof(*prog)) == 0,
			  "%s%s%s: the generated program differs from libseccomp's (%zu vs %zu instructions)",
			  b->policy, b->extra ? "+" : "", b->extra ? b->extra : "", b->len, len);
		free(prog);
		alone += b->extra == NULL;
		merged += b->extra != NULL;
	}
	CHECK_MSG(alone == NALL, "%zu of %zu policies have a program", alone, NALL);
	CHECK_MSG(merged == NALL - 1, "%zu policies have a program merged with the sanitizer list", merged);
}

static void test_names(void)
{
	CHECK(pr_syscall_name(-1) == NULL && pr_syscall_name(100000) == NULL);
	CHECK(pr_syscall_name(0) != NULL && strcmp(pr_syscall_name(0), "read") == 0);
	for (long nr = 0; nr < 600; nr++) {
		char *want = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)nr);
		const char *got = pr_syscall_name(nr);

		CHECK_MSG((want == NULL) == (got == NULL) && (want == NULL || strcmp(want, got) == 0),
			  "syscall %ld: %s vs %s", nr, got ? got : "-", want ? want : "-");
		free(want);
	}
}

/* In a child: load the worker's program (merged with the sanitizer list,
 * which this build needs), make an allowed call, then a forbidden one. */
static void test_load(void)
{
	char err[256];
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		if (pr_policy_load_with(&pr_policy_worker, &pr_policy_sanitizer, err, sizeof(err)) < 0)
			_exit(10);
		if (getpid() <= 0)
			_exit(11);
		(void)socket(AF_INET, SOCK_STREAM, 0);
		_exit(12);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "child status %#x (want killed by SIGSYS)", st);

	/* a policy without a program is refused, nothing loaded */
	{
		static const struct pr_policy none = { "no-such-policy", NULL, 0 };

		CHECK(pr_policy_load(&none, err, sizeof(err)) < 0 && strstr(err, "no-such-policy") != NULL);
	}
}

int main(void)
{
	test_programs_match();
	test_names();
	test_load();
	return unit_done("test_bpf");
}
