/* SPDX-License-Identifier: ISC */
/*
 * Records of the name-service channel: between the session monitor
 * (nsquery.c) and its name-service child (nschild.c), over a
 * SOCK_SEQPACKET socketpair.  Every record is exactly sizeof(struct
 * nsrec) bytes, carries no descriptor, and is checked by nsrec_check()
 * on arrival, on both sides, before anything reads it.
 *
 *   monitor -> child
 *     NSREQ_GROUPS    a: user name               the user's groups, as
 *                                                rsyncd finds them
 *     NSREQ_NETGROUP  a: netgroup, b: host name  innetgr(a, b, NULL, NULL)
 *   child -> monitor (seq: the request's)
 *     NSANS_GROUP     a: a group's name, count: its place (0, 1, ...);
 *                     one record per group, the user's primary group first
 *     NSANS_END       status OK (count: groups sent) or FAIL (a: why)
 *     NSANS_NETGROUP  status IN, NOTIN or FAIL (a: why)
 *
 * A text field holds len bytes, no NUL among them, and zeros after; a
 * field a type does not use is empty.  Which answer may come when (and
 * that counts and sequence numbers agree) is the monitor's to check
 * (nsquery.c); this file checks each record alone.
 */
#ifndef PRSYNCD_NSREC_H
#define PRSYNCD_NSREC_H

#include <stddef.h>
#include <stdint.h>

#define NSREC_MAGIC 0x4e535131u  /* "NSQ1" */
/* A user name from the client's line (PR_TEXT_MAX), a host name
 * (NI_MAXHOST), a group's name: longer ones are not asked / answered
 * (a failure, never a cut). */
#define NSREC_TEXT_MAX 1024u
/* Groups of one user the child reports: Linux's NGROUPS_MAX.  A user with
 * more is a failure. */
#define NSREC_GROUPS_MAX 65536u

enum nsrec_type {
	NSREQ_GROUPS = 1,
	NSREQ_NETGROUP = 2,
	NSANS_GROUP = 64,
	NSANS_END = 65,
	NSANS_NETGROUP = 66,
};

enum nsrec_status { NS_OK = 1, NS_FAIL = 2, NS_IN = 3, NS_NOTIN = 4 };

enum nsrec_dir { NSREC_TO_CHILD, NSREC_TO_MONITOR };

struct nsrec {
	uint32_t magic;
	uint32_t type;
	uint32_t seq;
	uint32_t status;         /* answers; 0 in requests */
	uint32_t count;          /* NSANS_GROUP, NSANS_END OK; else 0 */
	uint32_t alen, blen;
	char a[NSREC_TEXT_MAX + 1];
	char b[NSREC_TEXT_MAX + 1];
	char pad[2];             /* zero */
};

/* A zeroed record of type and seq. */
void nsrec_init(struct nsrec *r, enum nsrec_type type, uint32_t seq);

/* Copy s into field a or b (which: 'a'/'b').  0, or -1 if it does not fit
 * (the field is then left empty). */
int nsrec_set(struct nsrec *r, int which, const char *s);

/* NULL if r (len bytes received) is a well-formed record going in
 * direction dir, else why not. */
const char *nsrec_check(const struct nsrec *r, size_t len, enum nsrec_dir dir);

#endif
