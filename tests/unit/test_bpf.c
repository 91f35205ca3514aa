/* SPDX-License-Identifier: ISC */
/*
 * The seccomp programs generated at build time (build/gen/bpf_programs.c):
 * each is exactly what libseccomp builds from its policy now (so a stale
 * file or a generator bug cannot change what is enforced), every policy has
 * its program alone and merged with the sanitizer list, the syscall names
 * are libseccomp's, and a loaded program really confines: an allowed call
 * works, a forbidden one kills the process with SIGSYS.  The resolver
 * child's list (policy/resolver.policy) call by call, its argument
 * filters included, and the Landlock domain it runs in (src/priv/landlock.c:
 * read-only, a TCP connect to port 53 only).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock.h"
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

/* One call of the resolver's, made raw in a child under its filter
 * (merged with the sanitizer list, which this build needs): 0 if it
 * returned (its result does not matter), else it was killed. */
enum rcall {
	RC_GETADDRINFO, RC_SOCK_UDP4, RC_SOCK_TCP6, RC_SOCK_UNIX_STREAM, RC_SOCK_NETLINK_ROUTE, RC_OPEN_READ,
	RC_RECVERR, RC_FIONREAD,
	RC_FORBIDDEN, /* each of these must kill */
	RC_SOCK_UNIX_DGRAM = RC_FORBIDDEN, RC_SOCK_RAW4, RC_SOCK_PACKET, RC_SOCK_NETLINK_DIAG, RC_OPEN_WRITE,
	RC_TCP_ULP, RC_ATTACH_FILTER, RC_FIONBIO, RC_WRITE_STDOUT, RC_SENDMSG, RC_EXECVE, RC_CLONE, RC_KILL,
	RC_SETUID, RC_PRCTL_NAME, RC_N
};

static long rcall(enum rcall c)
{
	static char *const noargs[] = { NULL };
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res = NULL;
	struct sock_fprog prog = { 0, NULL };
	struct msghdr mh = { 0 };
	int one = 1, n = 0;

	switch (c) {
	case RC_GETADDRINFO: /* /etc/hosts: the files source */
		if (getaddrinfo("localhost", NULL, &hints, &res) != 0)
			_exit(3);
		freeaddrinfo(res);
		return 0;
	case RC_SOCK_UDP4: return syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	case RC_SOCK_TCP6: return syscall(SYS_socket, AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	case RC_SOCK_UNIX_STREAM: return syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	case RC_SOCK_NETLINK_ROUTE: return syscall(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);
	case RC_OPEN_READ: return syscall(SYS_openat, AT_FDCWD, "/etc/hosts", O_RDONLY | O_CLOEXEC);
	case RC_RECVERR:
		return syscall(SYS_setsockopt, socket(AF_INET, SOCK_DGRAM, 0), SOL_IP, IP_RECVERR, &one, sizeof(one));
	case RC_FIONREAD: return syscall(SYS_ioctl, socket(AF_INET, SOCK_DGRAM, 0), FIONREAD, &n);
	case RC_SOCK_UNIX_DGRAM: return syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	case RC_SOCK_RAW4: return syscall(SYS_socket, AF_INET, SOCK_RAW, IPPROTO_ICMP);
	case RC_SOCK_PACKET: return syscall(SYS_socket, AF_PACKET, SOCK_DGRAM, 0);
	case RC_SOCK_NETLINK_DIAG: return syscall(SYS_socket, AF_NETLINK, SOCK_RAW, 4 /* NETLINK_SOCK_DIAG */);
	case RC_OPEN_WRITE:
		return syscall(SYS_openat, AT_FDCWD, "/tmp/prsyncd-test-bpf-write", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	case RC_TCP_ULP:
		return syscall(SYS_setsockopt, socket(AF_INET, SOCK_STREAM, 0), SOL_TCP, TCP_ULP, "tls", 4);
	case RC_ATTACH_FILTER:
		return syscall(SYS_setsockopt, socket(AF_INET, SOCK_DGRAM, 0), SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			       sizeof(prog));
	case RC_FIONBIO: return syscall(SYS_ioctl, socket(AF_INET, SOCK_DGRAM, 0), FIONBIO, &one);
	case RC_WRITE_STDOUT: return syscall(SYS_write, 1, "", 0);
	case RC_SENDMSG: return syscall(SYS_sendmsg, socket(AF_INET, SOCK_DGRAM, 0), &mh, 0);
	case RC_EXECVE: return syscall(SYS_execve, "/nonexistent-prsyncd-test", noargs, noargs);
	case RC_CLONE: return syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	case RC_KILL: return syscall(SYS_kill, (long)getpid(), 0);
	case RC_SETUID: return syscall(SYS_setuid, -1L);
	case RC_PRCTL_NAME: return syscall(SYS_prctl, PR_SET_NAME, "x", 0, 0, 0);
	case RC_N: break;
	}
	return -1;
}

static void test_resolver_policy(void)
{
	for (int c = 0; c < RC_N; c++) {
		char err[256];
		int st = 0;
		pid_t pid = fork();

		if (pid == 0) {
			if (pr_policy_load_with(&pr_policy_resolver, &pr_policy_sanitizer, err, sizeof(err)) < 0)
				_exit(10);
			(void)rcall((enum rcall)c);
			_exit(0);
		}
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
		if (c < RC_FORBIDDEN)
			CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "resolver call %d: status %#x (want allowed)", c, st);
		else
			CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "resolver call %d: status %#x (want SIGSYS)", c, st);
	}
	CHECK(access("/tmp/prsyncd-test-bpf-write", F_OK) < 0);
}

/* A TCP connect to 127.0.0.1:port in the resolver's Landlock domain. */
static int connect_errno(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	rc = rc == 0 ? 0 : errno;
	close(fd);
	return rc;
}

static void test_landlock_port(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), st = 0;
	pid_t pid;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == 0 && listen(lfd, 4) == 0 &&
	      getsockname(lfd, (struct sockaddr *)&sin, &len) == 0);
	if (abi < 4) {
		printf("test_bpf: Landlock ABI %ld: no network rules here, the port check skipped\n", abi);
		close(lfd);
		return;
	}
	CHECK(connect_errno(ntohs(sin.sin_port)) == 0); /* unconfined: it listens */
	pid = fork();
	if (pid == 0) {
		char err[256];
		int on = 0;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || landlock_readonly_port(&on, 53, err, sizeof(err)) < 0 || !on)
			_exit(10);
		if (connect_errno(ntohs(sin.sin_port)) != EACCES)
			_exit(11); /* another port: refused by Landlock */
		if (connect_errno(53) == EACCES)
			_exit(12); /* port 53: let through (refused or answered by whatever listens) */
		if (open("/tmp/prsyncd-test-landlock-port", O_WRONLY | O_CREAT | O_CLOEXEC, 0600) >= 0 || errno != EACCES)
			_exit(13); /* no file written */
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "Landlock child status %#x", st);
	CHECK(access("/tmp/prsyncd-test-landlock-port", F_OK) < 0);
	close(lfd);
}

int main(void)
{
	test_programs_match();
	test_names();
	test_load();
	test_resolver_policy();
	test_landlock_port();
	return unit_done("test_bpf");
}
