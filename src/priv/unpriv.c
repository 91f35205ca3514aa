/* SPDX-License-Identifier: ISC */
/* Giving up privilege in a helper child (unpriv.h). */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "unpriv.h"

#define CHILD_FD 3

int unpriv_begin(int fd, const char *name)
{
	pid_t parent = getppid();
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		return -1;
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0 || dup2(fd, CHILD_FD) < 0)
		return -1;
	close_range(CHILD_FD + 1, ~0U, 0);
	(void)prctl(PR_SET_NAME, name, 0, 0, 0);
	return CHILD_FD;
}

static int drop_ids(uid_t uid, gid_t gid)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0 ||
	    getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0)
		return -1;
	if (ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid ||
	    (uid != 0 && (setresuid(0, 0, 0) == 0 || setresuid(-1, 0, -1) == 0)) ||
	    (gid != 0 && setresgid(0, 0, 0) == 0))
		return -1;
	return 0;
}

/* Emptied while root may (CAP_SETPCAP), before the uid change. */
static int empty_bounding_set(void)
{
	for (cap_value_t c = 0; geteuid() == 0 && c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return -1;
	return 0;
}

/* The uid change cleared them for a root process; checked, and cleared
 * for one that had some without root. */
static int no_caps(void)
{
	cap_t none = cap_init(), now;
	int same;

	now = cap_get_proc();
	same = none != NULL && now != NULL && cap_compare(now, none) == 0;
	if (!same && none != NULL && cap_set_proc(none) == 0) {
		cap_free(now);
		now = cap_get_proc();
		same = now != NULL && cap_compare(now, none) == 0;
	}
	cap_free(now);
	cap_free(none);
	return same && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == 0 ? 0 : -1;
}

int unpriv_drop(int drop, uid_t uid, gid_t gid, const char **why)
{
	if (empty_bounding_set() < 0)
		*why = "the capability bounding set";
	else if (drop && drop_ids(uid, gid) < 0)
		*why = "uid/gid";
	else if (no_caps() < 0)
		*why = "capabilities";
	else if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		*why = "PR_SET_DUMPABLE";
	else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		*why = "PR_SET_NO_NEW_PRIVS";
	else
		return 0;
	return -1;
}
