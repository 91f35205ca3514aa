/* SPDX-License-Identifier: ISC */
/*
 * One end of the monitor<->worker channel: a SOCK_SEQPACKET socket that
 * carries whole pr_msg records (the header and the body its type declares)
 * and the descriptors the type allows (msg.c).
 */
#ifndef PRSYNCD_IPC_H
#define PRSYNCD_IPC_H

#include "msg.h"

struct pr_ipc {
	int fd;
	pr_msg_validator recv_check; /* validates what this end receives */
	uint32_t send_seq;        /* last sequence number sent */
	uint32_t recv_seq;        /* last sequence number received */
};

/* recv_check: pr_msg_validate_w2m at the monitor's end, pr_msg_validate_m2w
 * at the worker's. */
void pr_ipc_init(struct pr_ipc *c, int fd, pr_msg_validator recv_check);

/* Send one message, with a descriptor if fd_to_pass >= 0.  Fills in seq and
 * the PR_F_FD flag.  Returns 0, or -1 with errno set. */
int pr_ipc_send(struct pr_ipc *c, struct pr_msg *m, int fd_to_pass);
/* The same with nfds (<= PR_MSG_FDS_MAX) descriptors; the caller keeps its
 * copies of them. */
int pr_ipc_send_fds(struct pr_ipc *c, struct pr_msg *m, const int *fds, size_t nfds);

enum pr_ipc_result {
	PR_IPC_OK = 0,
	PR_IPC_EOF = 1,      /* the peer closed the channel */
	PR_IPC_ERR = 2,      /* I/O error: errno says which */
	PR_IPC_INVALID = 3,  /* the record was malformed: *why says how */
};

/*
 * Receive and validate one message.  On PR_IPC_OK, *fd_out is the received
 * descriptor or -1.  Any descriptor that arrives with an invalid record is
 * closed before returning.  *why receives a static description on
 * PR_IPC_INVALID.
 */
enum pr_ipc_result pr_ipc_recv(struct pr_ipc *c, struct pr_msg *m, int *fd_out,
			       const char **why);

/*
 * The same for types that carry several descriptors: up to cap of them land
 * in fds, *nfds says how many; a record with more than cap (or more than
 * its type allows) is invalid, and all its descriptors are closed.
 */
enum pr_ipc_result pr_ipc_recv_fds(struct pr_ipc *c, struct pr_msg *m, int *fds, size_t cap,
				   size_t *nfds, const char **why);

/*
 * The monitor's receive: no type a worker sends carries a descriptor
 * (msg.c's table), so it gives the kernel no room for one; the kernel
 * then drops any the worker attached, unread, and flags the record,
 * which is refused as PR_MSG_EBADFD.
 */
enum pr_ipc_result pr_ipc_recv_nofd(struct pr_ipc *c, struct pr_msg *m, const char **why);

/*
 * Close n descriptors: each run of ascending consecutive numbers with one
 * close_range(2), the rest one by one.  The descriptors a monitor opens
 * for a batched OPENV answer are ascending and consecutive as a rule (the
 * kernel hands out the lowest free numbers and it closes none between two
 * opens), so a batch costs one system call; a worker sorts
 * the ones it is done with first (they end in any order).
 */
void pr_close_fds(const int *fds, size_t n);

#endif
