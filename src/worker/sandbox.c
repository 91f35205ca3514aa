/* SPDX-License-Identifier: ISC */
/*
 * The worker's confinement, in the order that makes each step possible and
 * the next one meaningful:
 *
 *  1. (unprivileged start) a user namespace, so that chroot is permitted
 *     without real root;
 *  2. chroot to an empty directory and chdir("/"): no path the worker could
 *     name leads anywhere;
 *  3. empty the capability bounding set while CAP_SETPCAP is still held;
 *  4. drop supplementary groups, then gid, then uid (all three ids), and
 *     prove that uid 0 cannot be regained;
 *  5. clear the permitted/effective/inheritable/ambient capability sets;
 *     and arm the parent-death signal;
 *  6. no_new_privs (required for an unprivileged seccomp filter, and makes
 *     any exec a dead end), not dumpable;
 *  7. rlimits: no new processes, no file growth, no core, few descriptors;
 *  8. the seccomp allow-list from policy/worker.policy, default kill.
 *
 * Each step is checked; a failure aborts the session before the first
 * client byte is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


#include "policies.h"
#include "sandbox.h"

#define WORKER_NOFILE 64
#define WORKER_DATA_MAX ((rlim_t)4 << 30)

/* The unprivileged id the worker takes inside its own user namespace.
 * Id 0 is deliberately left unmapped so it can never be assumed. */
#define USERNS_ID 1

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return -1;
}

int sandbox_preload(char *err, size_t errlen)
{
	/* The time zone, for the transfer log's %t and %M (xferfmt.c): the
	 * chroot has no /etc/localtime, and localtime_r reads it only once.
	 * MD4 is our own (md4.c), MD5 and SHA1 are OpenSSL's plain digest
	 * functions linked in (csum.c): nothing else to load. */
	tzset();
	(void)err;
	(void)errlen;
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int enter_userns(char *err, size_t errlen)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER) < 0)
		return fail(err, errlen, "unshare(CLONE_NEWUSER)");
	if (write_file("/proc/self/setgroups", "deny") < 0)
		return fail(err, errlen, "write /proc/self/setgroups");
	snprintf(map, sizeof(map), "%d %u 1\n", USERNS_ID, (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		return fail(err, errlen, "write uid_map");
	snprintf(map, sizeof(map), "%d %u 1\n", USERNS_ID, (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		return fail(err, errlen, "write gid_map");
	return 0;
}

static int drop_bounding_set(char *err, size_t errlen)
{
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return fail(err, errlen, "PR_CAPBSET_DROP");
	}
	return 0;
}

static int drop_identity(uid_t uid, gid_t gid, int userns, char *err, size_t errlen)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	/* In a user namespace with setgroups denied there is nothing to drop. */
	if (!userns && setgroups(0, NULL) < 0)
		return fail(err, errlen, "setgroups");
	if (setresgid(gid, gid, gid) < 0)
		return fail(err, errlen, "setresgid");
	if (setresuid(uid, uid, uid) < 0)
		return fail(err, errlen, "setresuid");
	if (getresuid(&ru, &eu, &su) < 0 || ru != uid || eu != uid || su != uid)
		return fail(err, errlen, "uid drop did not take");
	if (getresgid(&rg, &eg, &sg) < 0 || rg != gid || eg != gid || sg != gid)
		return fail(err, errlen, "gid drop did not take");
	if (setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0) {
		errno = EPERM;
		return fail(err, errlen, "root could be regained");
	}
	return 0;
}

static int clear_caps(char *err, size_t errlen)
{
	cap_t none = cap_init();
	cap_t now;
	int ok;

	if (none == NULL)
		return fail(err, errlen, "cap_init");
	if (cap_set_proc(none) < 0) {
		cap_free(none);
		return fail(err, errlen, "cap_set_proc");
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		cap_free(none);
		return fail(err, errlen, "PR_CAP_AMBIENT_CLEAR_ALL");
	}
	now = cap_get_proc();
	ok = now != NULL && cap_compare(now, none) == 0;
	cap_free(now);
	cap_free(none);
	if (!ok) {
		errno = EPERM;
		return fail(err, errlen, "capabilities remain after clearing");
	}
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1) {
			errno = EPERM;
			return fail(err, errlen, "bounding set not empty");
		}
	}
	return 0;
}

/* A ceiling, never raised: a hard limit already lower (the daemon started
 * under a low one) stays, where raising it would fail without privilege. */
static int set_limit(int res, rlim_t v, char *err, size_t errlen, const char *name)
{
	struct rlimit rl;

	if (getrlimit(res, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max < v)
		v = rl.rlim_max;
	rl = (struct rlimit){ v, v };
	if (setrlimit(res, &rl) < 0)
		return fail(err, errlen, name);
	return 0;
}

int sandbox_enter(const struct pr_m_init *init, char *err, size_t errlen)
{
	int userns = init->sandbox_mode == PR_SANDBOX_USERNS;
	uid_t uid = userns ? USERNS_ID : init->worker_uid;
	gid_t gid = userns ? USERNS_ID : init->worker_gid;

	if (userns && enter_userns(err, errlen) < 0)
		return -1;
	if (chroot(init->chroot_dir.s) < 0)
		return fail(err, errlen, "chroot");
	if (chdir("/") < 0)
		return fail(err, errlen, "chdir /");
	if (drop_bounding_set(err, errlen) < 0)
		return -1;
	if (drop_identity(uid, gid, userns, err, errlen) < 0)
		return -1;
	if (clear_caps(err, errlen) < 0)
		return -1;
	/* The identity change cleared any parent-death signal; set it now so
	 * that a session monitor which ends (it may no longer be allowed to
	 * kill us after its own uid drop) takes the worker with it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return fail(err, errlen, "PR_SET_PDEATHSIG");
	if (getppid() == 1) {
		errno = ESRCH;
		return fail(err, errlen, "session monitor already gone");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "PR_SET_NO_NEW_PRIVS");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return fail(err, errlen, "PR_SET_DUMPABLE");
	if (set_limit(RLIMIT_NPROC, 0, err, errlen, "RLIMIT_NPROC") < 0 ||
	    set_limit(RLIMIT_FSIZE, 0, err, errlen, "RLIMIT_FSIZE") < 0 ||
	    set_limit(RLIMIT_CORE, 0, err, errlen, "RLIMIT_CORE") < 0 ||
	    set_limit(RLIMIT_NOFILE, WORKER_NOFILE, err, errlen, "RLIMIT_NOFILE") < 0)
		return -1;
#ifndef PRSYNCD_TEST_HOOKS
	/* A memory ceiling (sanitizer builds reserve terabytes of shadow). */
	if (set_limit(RLIMIT_DATA, WORKER_DATA_MAX, err, errlen, "RLIMIT_DATA") < 0)
		return -1;
#endif
#ifdef PRSYNCD_TEST_HOOKS
	return pr_policy_load_with(&pr_policy_worker, &pr_policy_sanitizer, err, errlen);
#else
	return pr_policy_load(&pr_policy_worker, err, errlen);
#endif
}
