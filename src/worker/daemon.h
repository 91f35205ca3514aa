/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_DAEMON_H
#define PRSYNCD_DAEMON_H

#include "conn.h"
#include "msg.h"

/* What the text phase of the daemon protocol settled. */
struct handshake {
	int protocol;            /* negotiated, 27..32 */
	int remote_protocol;     /* as the client announced it */
	int remote_sub;
	char auth_digests[256];  /* the client's digest list, "" if none */
	char module[PR_NAME_MAX];/* selected module (canonical name) */
	int read_only;
	int numeric_ids;         /* the module maps no names (rsyncd: chrooted modules) */
	char dont_compress[1024];/* the module's "dont compress" patterns, "" = default list, " " = none */
	char auth_user[PR_NAME_MAX]; /* the user a login was accepted for, "" = anonymous */
	/* what the module says about sending (PR_M_SELECT) */
	int write_only, ignore_errors, max_verbosity;
	unsigned chmod_umask;
	char refuse[1024];       /* "refuse options", "" = none */
	char outgoing_chmod[1024];
	char charset[256];       /* "" = none; its converters are selected (charset.h) */
	uint32_t module_flags;   /* PR_MOD_* */
	unsigned timeout;        /* the module's `timeout`, 0 = none */
	unsigned args_timeout;   /* bound on the argument phase, from the selection */
	unsigned bwlimit_cap;    /* the daemon's --bwlimit (PR_M_INIT), KiB/s, 0 = none */
};

/*
 * Run the text phase: greeting, MOTD, request line, listing or selection.
 * Returns 1 when a module was selected (the caller then answers
 * "@RSYNCD: OK" and the transfer follows), or exits the worker with the
 * session's exit code.
 */
int daemon_handshake(struct conn *c, const struct pr_m_init *init, int motd_fd,
		     struct handshake *hs);

#endif
