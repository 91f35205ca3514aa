/* SPDX-License-Identifier: ISC */
/*
 * Test builds only (PRSYNCD_TEST_HOOKS): make one forbidden syscall by
 * name, to prove that a confined process is killed for it
 * (tests/integration/t_seccomp_calls.sh).  The worker's hook is in
 * src/worker/daemon.c, the session monitor's in src/monitor/session.c,
 * the listener's resolver child's in tests/hooks/resolver_hook.c;
 * release builds contain none of them, nor this table.
 *
 * Every call is made with raw syscall() (no libc wrapper or sanitizer
 * interceptor in between) and with arguments that do no harm should a
 * filter ever let it through: the hook then logs the return value and
 * ends the session, and the test fails on that line.
 */
#ifndef PRSYNCD_TESTCALL_H
#define PRSYNCD_TESTCALL_H

#ifdef PRSYNCD_TEST_HOOKS
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PR_TEST_NO_SUCH_CALL (-1000L)

/* Returns the call's result if it returned at all; a fork or clone child
 * that comes back leaves at once.  Only getpid/mmap/close, which both
 * filters admit, are made besides the call under test. */
static long pr_test_syscall(const char *name)
{
	static char *const noargs[] = { NULL };
	long rc = PR_TEST_NO_SUCH_CALL;

	if (strcmp(name, "open") == 0) {
#ifdef SYS_open
		rc = syscall(SYS_open, "/etc/passwd", O_RDONLY | O_CLOEXEC);
#endif
	} else if (strcmp(name, "openat") == 0) {
		rc = syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY | O_CLOEXEC);
	} else if (strcmp(name, "openat-write") == 0) {
		/* for a filter that admits read-only opens (the resolver's) */
		rc = syscall(SYS_openat, AT_FDCWD, "/tmp/prsyncd-test-openat-write", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			     0600);
	} else if (strcmp(name, "execve") == 0) {
		rc = syscall(SYS_execve, "/nonexistent-prsyncd-test", noargs, noargs);
	} else if (strcmp(name, "socket") == 0) {
		rc = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	} else if (strcmp(name, "connect") == 0) {
		rc = syscall(SYS_connect, -1, NULL, 0);
	} else if (strcmp(name, "ptrace") == 0) {
		rc = syscall(SYS_ptrace, PTRACE_PEEKDATA, 1, NULL, NULL);
	} else if (strcmp(name, "clone") == 0) {
		rc = syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	} else if (strcmp(name, "fork") == 0) {
#ifdef SYS_fork
		rc = syscall(SYS_fork);
#endif
	} else if (strcmp(name, "kill") == 0) {
		rc = syscall(SYS_kill, (long)getpid(), 0);
	} else if (strcmp(name, "setuid") == 0) {
		rc = syscall(SYS_setuid, -1L); /* EINVAL, should it get through */
	} else if (strcmp(name, "mount") == 0) {
		rc = syscall(SYS_mount, "none", "/nonexistent-prsyncd-test", "tmpfs", 0UL, NULL);
	} else if (strcmp(name, "openat2-write") == 0) {
		/* Not for a filter to stop (the monitor needs openat2): Landlock
		 * refuses it before selection (EACCES), so nothing is created. */
		struct open_how how = { .flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, .mode = 0600 };

		rc = syscall(SYS_openat2, AT_FDCWD, "/tmp/prsyncd-test-landlock", &how, sizeof(how));
	} else if (strcmp(name, "mprotect") == 0) {
		void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (page != MAP_FAILED)
			rc = syscall(SYS_mprotect, page, 4096UL, (long)(PROT_READ | PROT_EXEC));
	}
	if (rc == 0 && (strcmp(name, "fork") == 0 || strcmp(name, "clone") == 0))
		_exit(0);
	if (rc >= 0 && (strncmp(name, "open", 4) == 0 || strcmp(name, "socket") == 0))
		close((int)rc);
	return rc;
}
#endif

#endif
