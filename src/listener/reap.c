/* SPDX-License-Identifier: ISC */
/*
 * The listener's report on a session monitor or resolver child it reaped.
 * A monitor that ends normally has logged its session itself; one killed
 * by a signal cannot, so the listener says so, and for a seccomp kill
 * (SIGSYS) names the syscall from the kernel's audit record, as the
 * monitor does for its worker (src/priv/sigsys.c).
 */
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "log.h"
#include "reap.h"
#include "sigsys.h"

static int kmsg_fd = -1;

void reap_watch_start(void)
{
	kmsg_fd = sigsys_watch_open();
}

void reap_report(pid_t pid, int status)
{
	reap_report_as("session monitor", pid, status);
}

void reap_report_as(const char *who, pid_t pid, int status)
{
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	long nr;
	char *name;

	if (sig == 0)
		return;
	if (sig != SIGSYS) {
		log_msg(PR_LOG_ERR, "%s %d killed by signal %d (%s)", who, (int)pid, sig, strsignal(sig));
		return;
	}
	nr = sigsys_lookup(kmsg_fd, pid);
	name = nr >= 0 ? seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)nr) : NULL;
	if (nr >= 0)
		log_msg(PR_LOG_ERR, "%s %d killed by signal %d (SIGSYS): seccomp violation, syscall %ld (%s)",
			who, (int)pid, sig, nr, name ? name : "?");
	else
		log_msg(PR_LOG_ERR, "%s %d killed by signal %d (SIGSYS): seccomp violation, syscall not reported by the kernel",
			who, (int)pid, sig);
	free(name);
}
