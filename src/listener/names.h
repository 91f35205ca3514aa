/* SPDX-License-Identifier: ISC */
/*
 * The names of a configuration generation and the listener's answers for
 * them (names.c), resolved by an unprivileged child (resolver.c), and the
 * sealed table every session of the generation gets (src/priv/nametab.h).
 *
 * What is resolved, when:
 *   - every distinct plain host name of every module's "hosts allow" /
 *     "hosts deny" whose module has "forward lookup" on (IPv4, as rsyncd's
 *     gethostbyname), by the resolver child: before the listener serves
 *     at start (and in inetd mode before the one session), for a reloaded
 *     configuration before it is put in force (the previous one serves
 *     meanwhile), and every NAMES_REFRESH_MS for the configuration in
 *     force; each run bounded by NAMES_RUN_MS;
 *   - every interface named in the scope of a link-local address, by the
 *     listener itself (if_nametoindex: no DNS), at the same times.
 * A name the run did not reach keeps its previous answer while that is
 * younger than NAMES_MAX_AGE_MS, then counts as not known (a deny list
 * refuses on it, an allow list does not admit through it).  A session
 * judges on the table of the moment it started.
 */
#ifndef PRSYNCD_NAMES_H
#define PRSYNCD_NAMES_H

#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "nametab.h"

#define NAMES_REFRESH_MS 60000    /* between two runs for the configuration in force */
#define NAMES_RUN_MS 30000        /* one run of the resolver, at most */
#define NAMES_MAX_AGE_MS 300000   /* an answer older than this is not used */

struct name_ans {
	char *name;
	uint32_t kind, status;      /* NT_HOST or NT_IFACE; NT_RESOLVED ... NT_UNKNOWN */
	uint32_t *addrs, naddr;     /* NT_HOST resolved */
	uint32_t ifindex;           /* NT_IFACE resolved */
	int64_t at;                 /* monotonic ms of the answer; 0: never answered */
};

struct names {
	size_t n, nhosts;           /* entries; of them NT_HOST */
	struct name_ans *v;         /* sorted by kind, then name */
	uint32_t flags;             /* nametab.h NT_FLAG_* */
};

/* The names cfg's lists ask about, every answer not known; flags say
 * whether sessions need their name-service child.  0, or -1 with err. */
int names_collect(const struct cfg *cfg, struct names *out, char *err, size_t errlen);
void names_free(struct names *n);

/* Answers of old for the same names, as they were (with their age). */
void names_carry(struct names *n, const struct names *old);

/* Look the interfaces up (in this process: no DNS). */
void names_ifaces(struct names *n, int64_t now);

/* A sealed table of n's answers now (answers older than NAMES_MAX_AGE_MS
 * count as not known); its descriptor, or -1 with err. */
int names_table(const struct names *n, int64_t now, char *err, size_t errlen);

/* --- one run of the resolver child (names.c, resolver.c) ------------------- */

/* Child -> listener, one SOCK_SEQPACKET record per host name, in the
 * order of the names' NT_HOST entries: 12 + 4 * naddr bytes. */
struct resolver_rec {
	uint32_t index;             /* 0, 1, ... among the NT_HOST entries */
	uint32_t status;            /* NT_RESOLVED, NT_NOTFOUND or NT_FAILED */
	uint32_t naddr;             /* 1..NAMETAB_ADDRS_MAX with NT_RESOLVED, else 0 */
	uint32_t addr[NAMETAB_ADDRS_MAX];
};
#define RESOLVER_REC_HDR 12u

struct names_job {
	pid_t pid;                  /* 0: no run */
	int pidfd, fd;
	struct names *target;       /* whose answers the run fills */
	size_t next;                /* the NT_HOST index expected next */
	int64_t started, deadline;
	int refresh;                /* a scheduled refresh (its routine summary is logged at debug level) */
	int done;                   /* the run ended (all answered, or failed, or late) */
};

/* Start a run for n's host names in a child with uid/gid (drop: the
 * listener is root).  0, or -1 (logged; n unchanged). */
int names_job_start(struct names_job *j, struct names *n, int drop, uid_t uid, gid_t gid, int64_t now);
/* Take what the child sent (call when j->fd is readable or the deadline
 * passed); sets j->done when the run is over. */
void names_job_step(struct names_job *j, int64_t now);
/* The listener reaped pid: 1 if it was the run's child (the run is over). */
int names_job_reaped(struct names_job *j, pid_t pid, int status);
/* End the run (its child killed); the answers taken so far stay. */
void names_job_end(struct names_job *j);

/* In the child: give up privilege, confine itself (Landlock, then
 * policy/resolver.policy), resolve and report; never returns
 * (resolver.c).  Exit statuses other than 0, which the listener logs: */
#define RESOLVER_EXIT_BEGIN 120     /* its first steps (unpriv_begin) */
#define RESOLVER_EXIT_DROP 121      /* giving up privilege */
#define RESOLVER_EXIT_CONFINE 122   /* Landlock or the seccomp filter */
#define RESOLVER_EXIT_CHANNEL 123   /* a record not sent */
__attribute__((noreturn)) void resolver_run(int fd, const struct names *n, int drop, uid_t uid, gid_t gid);

#ifdef PRSYNCD_TEST_HOOKS
/* Test builds only, before each name is looked up, under the filter
 * (tests/hooks/resolver_hook.c): a name "prsyncd-test-syscall-CALL"
 * makes the forbidden call CALL (t_seccomp_calls.sh, t_names.sh). */
void resolver_test_hook(const char *name);
#endif

#endif
