/* SPDX-License-Identifier: ISC */
/*
 * The session monitor before module selection.  It is root (in root mode)
 * and reads records from a worker that faces the network and may be
 * compromised, so from the first of those records on it holds only what
 * the rest of the session needs:
 *
 *  1. the time zone is loaded (log lines), while files can still be read
 *     by path;
 *  2. capabilities: the bounding, permitted and effective sets keep the
 *     five that selection uses (below; those of them the daemon has),
 *     nothing else; ambient and inheritable are empty;
 *  3. no_new_privs (Landlock and an unprivileged seccomp filter need it);
 *  4. Landlock, where the kernel has it: no file may be written, created,
 *     removed, linked, truncated or executed, and no TCP socket bound or
 *     connected.  Filters stack, so the monitor after selection must be
 *     allowed openat2, and seccomp cannot see openat2's flags: Landlock is
 *     what keeps a root monitor's openat2 read-only;
 *  5. policy/preselect.policy, default kill.
 *
 * Everything that needs more (NSS, DNS, OpenSSL, the worker's fork and
 * exec, log files) happens before this point: see preselect.policy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "landlock.h"
#include "preconf.h"

/* What selection does as root: open the module root, and a secrets file,
 * whatever their modes; SIGKILL the worker, which runs as the worker user;
 * setgroups/setresgid and setresuid to the module's ids; chroot. */
static const cap_value_t keep[] = {
	CAP_DAC_READ_SEARCH, CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SYS_CHROOT,
};
#define NKEEP ((int)(sizeof(keep) / sizeof(keep[0])))

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return -1;
}

static int kept(cap_value_t c)
{
	for (int i = 0; i < NKEEP; i++)
		if (keep[i] == c)
			return 1;
	return 0;
}

static int drop_caps(char *err, size_t errlen)
{
	int root = geteuid() == 0, same, n = 0;
	cap_t want = cap_init(), now = cap_get_proc();
	cap_value_t have[NKEEP];
	cap_flag_value_t v;

	if (want == NULL || now == NULL) {
		cap_free(want);
		cap_free(now);
		return fail(err, errlen, "cap_init");
	}
	/* Of the five, those the daemon was given (a unit's bounding set may
	 * hold fewer, e.g. no CAP_DAC_READ_SEARCH). */
	for (int i = 0; root && i < NKEEP; i++)
		if (cap_get_flag(now, keep[i], CAP_PERMITTED, &v) == 0 && v == CAP_SET)
			have[n++] = keep[i];
	cap_free(now);
	/* Dropping from the bounding set needs CAP_SETPCAP, which only root
	 * has here; an unprivileged monitor has no capability to lose. */
	for (cap_value_t c = 0; root && c <= CAP_LAST_CAP; c++) {
		if (!kept(c) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL) {
			cap_free(want);
			return fail(err, errlen, "PR_CAPBSET_DROP");
		}
	}
	if ((n > 0 && (cap_set_flag(want, CAP_PERMITTED, n, have, CAP_SET) < 0 ||
		       cap_set_flag(want, CAP_EFFECTIVE, n, have, CAP_SET) < 0)) ||
	    cap_set_proc(want) < 0) {
		cap_free(want);
		return fail(err, errlen, "cap_set_proc");
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		cap_free(want);
		return fail(err, errlen, "PR_CAP_AMBIENT_CLEAR_ALL");
	}
	now = cap_get_proc();
	same = now != NULL && cap_compare(now, want) == 0;
	cap_free(now);
	cap_free(want);
	if (!same) {
		errno = EPERM;
		return fail(err, errlen, "capabilities other than selection's remain");
	}
	return 0;
}

int preconfine(int *landlocked, char *err, size_t errlen)
{
	tzset();
	if (drop_caps(err, errlen) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "PR_SET_NO_NEW_PRIVS");
	if (landlock_readonly(landlocked, err, errlen) < 0)
		return -1;
	return pr_policy_load_with(&pr_policy_preselect, MONITOR_POLICY_EXTRA, err, errlen);
}
