/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_SESSION_H
#define PRSYNCD_SESSION_H

#include "config.h"

struct nametab;

struct session_opts {
	const struct cfg *cfg;     /* from the snapshot (cfgsnap_open); the session takes it */
	const struct nametab *names; /* the names table (nametab_open) */
	const char *worker_path;   /* NULL: next to prsyncd-monitor, else libexec */
	int listener_fd;           /* the listener channel (lchan.h) */
};

/* Run one session on the client socket PR_FD_CLIENT; returns the exit status. */
int session_main(const struct session_opts *o);
/* Refuse the client on PR_FD_CLIENT (before any worker exists) with
 * rsyncd's greeting and the line text ("@ERROR: ..."), then close it. */
void session_refuse(const char *text);

#ifdef PRSYNCD_FUZZ
struct session;
struct fs_idmap;
/* tests/fuzz/fuzz_dispatch.c: a session on the fuzzer's channels (taken
 * over: closed by session_fuzz_free), and one worker record at a time. */
struct session *session_fuzz_new(const struct cfg *cfg, const struct nametab *names, const struct fs_idmap *ids,
				 int ipc_fd, int listener_fd);
int session_fuzz_step(struct session *s);
void session_fuzz_free(struct session *s);
#endif

#endif
