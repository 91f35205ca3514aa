/* SPDX-License-Identifier: ISC */
/*
 * Everything one transfer session knows after the handshake: the options,
 * what was negotiated, and the I/O channel.  One instance per worker.
 */
#ifndef PRSYNCD_SESS_H
#define PRSYNCD_SESS_H

#include <stdint.h>

#include "compress.h"
#include "csum.h"
#include "daemon.h"
#include "io.h"
#include "chmod.h"
#include "links.h"
#include "options.h"
#include "refuse.h"
#include "xferfmt.h"

/* Compat flags (spec part 1, 5.1). */
#define CF_INC_RECURSE 0x001
#define CF_SYMLINK_TIMES 0x002
#define CF_SYMLINK_ICONV 0x004
#define CF_SAFE_FLIST 0x008
#define CF_AVOID_XATTR_OPTIM 0x010
#define CF_CHKSUM_SEED_FIX 0x020
#define CF_INPLACE_PARTIAL_DIR 0x040
#define CF_VARINT_FLIST_FLAGS 0x080
#define CF_ID0_NAMES 0x100

/* io_error bits */
#define IOERR_GENERAL 1
#define IOERR_VANISHED 2

struct sess {
	struct conn *c;
	struct io io;
	struct handshake hs;
	struct options opt;
	int protocol;
	int compat_flags;
	int varint_flags;            /* file-list flags as varints */
	int inc_recurse;
	int numeric_ids;             /* client --numeric-ids, or the module forces it */
	struct links_opts links;     /* -L, -k, --copy-unsafe-links, munge symlinks */
	struct csum_params xfer;     /* block and whole-file sums */
	struct csum_params flist;    /* -c sums (seed unused) */
	int io_error;                /* accumulated, sent at the end of lists / loop */
	int64_t total_size;          /* for the statistics */
	int64_t flist_buildtime_ms, flist_xfertime_ms;
	/* the source arguments: the path arguments, or the --files-from names */
	char **src;
	size_t nsrc, src_cap;
	int ff_fd;                   /* --files-from=FILE: its descriptor (-1 none, -2 not a file) */
	uint32_t ff_handle;
	/* compression (compress_sess.c) */
	enum cpres cpres;            /* negotiated or chosen; CPRES_NONE = plain */
	int clevel;
	int cpres_list;              /* name lists are exchanged */
	struct ctok_enc *cenc;       /* made at the first file */
	/* the module's say on what is sent */
	struct refuse refuse;        /* "refuse options" */
	struct chmod_rules *chmod;   /* "outgoing chmod", NULL = none */
	int iconv;                   /* --iconv with a module charset: names go in UTF-8 */
	/* the transfer log (xferrec.c): lines the monitor asked for, and how */
	int xlog_files, xlog_itemized;
	struct xferfmt xlog;
};

/* Add a path argument as a source. */
void sess_add_path(struct sess *s, const char *base);
/* A --files-from name as a source argument: "base/./name" into out (cap
 * bytes); -1 if it does not fit. */
int sess_source_name(const char *base, const char *name, char *out, size_t cap);

/*
 * Read the arguments, parse them, and do the protocol setup (compat flags,
 * negotiation, seed), leaving the session multiplexed and ready for the
 * filter list.  Ends the session itself on refusals and errors.
 */
void setup_session(struct sess *s);

/* Build and send the file list, then serve the transfer until the end. */
__attribute__((noreturn)) void sender_run(struct sess *s);

#endif
