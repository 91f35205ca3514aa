/* SPDX-License-Identifier: ISC */
/*
 * Daemon authentication ("auth users", "secrets file", "strict modes",
 * "auth digest"), done by the session monitor as rsyncd 3.5.0 does it.
 *
 * The worker only relays: it sends the client's protocol and digest list
 * (PR_W_HELLO), the challenge line the monitor made (PR_M_AUTHREQ), and the
 * client's "USER RESPONSE" line back (PR_W_AUTH); the monitor answers with
 * the selection's OK or @ERROR.  The secrets never leave this process: the
 * file is read at each login (as rsyncd reads it; here when the challenge
 * is made, from the module's configuration alone, so that the client's
 * response reaches only the lookup), after the worker was exec'd into its
 * own address space, into buffers wiped after use, and nothing derived
 * from a password is sent back.
 *
 * Digests, strongest first, the daemon's order of preference: sha512,
 * sha256, sha1, md5 (OpenSSL), md4 (src/proto/md4.c).  The first of them
 * the client lists is used; a client that lists none gets md5, or below
 * protocol 30 rsync's old seeded md4; a list without any of them is refused.
 */
#ifndef PRSYNCD_AUTH_H
#define PRSYNCD_AUTH_H

#include "config.h"
#include "msg.h"

#define AUTH_NDIGESTS 5 /* sha512 sha256 sha1 md5 md4 */

struct auth {
	unsigned char nonce[64];       /* random, drawn before the worker exists */
	int protocol;                  /* from PR_W_HELLO; 0 = not received */
	char digests[PR_TEXT_MAX];     /* the client's list, "" = none */
	int digest;                    /* chosen by auth_begin, index of the table */
	int md4_old;                   /* rsync's seeded md4 of old protocols */
	char challenge[PR_CHALLENGE_MAX + 1];
	/* The nonce in base64, as long as a digest of each kind (rsyncd's
	 * challenge length), made by auth_init: auth_begin only picks one. */
	char challenges[AUTH_NDIGESTS][PR_CHALLENGE_MAX + 1];
	/* The selected module's secrets file, read by auth_begin() from the
	 * module's configuration alone; the response check only looks names
	 * up in it, then wipes it. */
	char *secrets;                 /* its lines, each NUL-terminated */
	size_t secrets_len;
	const char *secrets_err;       /* NULL, or rsyncd's reason it is not used */
	int secrets_late;              /* that reason ranks after the user name check */
	int note_level;                /* a log line owed when the file is consulted */
	char note[1024];
};

/* Before the worker exists: the nonce, and OpenSSL's digests fetched so
 * that nothing is loaded later.  0, or -1 (logged). */
int auth_init(struct auth *a);

/*
 * Module m needs a login: choose the digest, check "auth digest", make the
 * challenge (a->challenge), and read the module's secrets file (as rsyncd,
 * once per login).  0, or -1 with the client's @ERROR line in text (the
 * refusal is logged as rsyncd logs it).
 */
int auth_begin(struct auth *a, const struct cfg_module *m, const char *host, const char *addr,
	       char *text, size_t textlen);

/*
 * The client's response line (untrusted, relayed by the worker): its user
 * must match an "auth users" rule that is not :deny (the first that
 * matches decides, as in rsyncd; the user's groups for @group rules come
 * from the name-service child q, and if they cannot be had a @group :deny
 * rule matches and the other @group rules do not), and its response
 * must be the digest of a password of the secrets file for that user (or
 * for the @group whose rule matched) and the challenge.  0 if it
 * authenticates, -1 otherwise (logged with rsyncd's reason).  One check
 * per auth_begin(): it wipes what auth_begin() read.
 */
struct nsq;
int auth_check_response(struct auth *a, const struct cfg_module *m, const char *line, const char *host,
			const char *addr, struct nsq *q);

/* Wipe what auth_begin() read, for a session that ends without a response. */
void auth_forget(struct auth *a);

#endif
