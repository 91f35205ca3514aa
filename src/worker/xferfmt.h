/* SPDX-License-Identifier: ISC */
/*
 * rsyncd's per-file transfer log lines, in the module's "log format",
 * formatted by the worker (xferrec.c sends them to the monitor, which
 * writes them).  The format and the values only the monitor knows
 * (%h %a %u %m %P %p) come in its PR_M_XFERLOG answer; the rest is the
 * file's.  Nothing here gains from privilege: a worker could already
 * write any sanitized line through PR_W_LOG.
 */
#ifndef PRSYNCD_XFERFMT_H
#define PRSYNCD_XFERFMT_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

/* xferfmt_rec.flags */
#define XF_UID 0x1u        /* the client preserves owners: %U is the file's */
#define XF_GID 0x2u        /* likewise groups: %G is the file's, else "DEFAULT" */
#define XF_MTIMES 0x4u     /* the client preserves modification times (%i 't') */
#define XF_LINK_TIMES 0x8u /* and symlink times */
#define XF_SUM 0x10u       /* sum holds the file's checksum (%C) */
#define XF_NO_ITEMS 0x20u  /* protocol < 29: the client sent no itemize bits (%i '?') */

enum xf_link { XF_LINK_NONE, XF_LINK_SYMLINK, XF_LINK_HARD };

#define XF_SUM_MAX 64u

/* What the escapes need from one file. */
struct xferfmt_rec {
	uint32_t iflags;          /* the client's itemize bits */
	uint32_t mode, uid, gid;  /* as listed */
	uint32_t flags;           /* XF_* */
	uint32_t sum_len;         /* digest length of the session's checksum (%C's width), <= XF_SUM_MAX */
	enum xf_link link;
	uint64_t length;          /* %l */
	uint64_t bytes;           /* %b: data bytes sent for this file */
	uint64_t sum_bytes;       /* %c: bytes of block checksums received */
	int64_t mtime;            /* %M */
	uint8_t sum[XF_SUM_MAX];  /* XF_SUM: sum_len bytes, in display order */
	const char *path;         /* %f: the name relative to the module, as rsync writes it */
	const char *name;         /* %n: the listed name (the end of path) */
	const char *target;       /* link != NONE: the symlink target or hard-link name */
};

/* One piece of the format, compiled once: text copied as written
 * (letter 0; an unknown escape too), or an escape. */
struct xferfmt_item {
	uint16_t off, len;             /* where it is written in the format */
	uint16_t width;
	char letter;
	uint8_t left, zero, humanize;  /* humanize: apostrophes, at most 3 */
};

struct xferfmt {
	struct pr_m_xferlog ctx;       /* the monitor's answer (validated) */
	int uses_i;                    /* the format has %i */
	size_t nitems;
	struct xferfmt_item item[PR_TEXT_MAX + 1];
};

/* Keep the monitor's answer and compile its format. */
void xferfmt_init(struct xferfmt *x, const struct pr_m_xferlog *ctx);

/* rsyncd's escaping of what it logs: a control byte but tab as "\#ooo",
 * and a backslash that would read as such an escape as "\#134"; other
 * bytes (UTF-8) as they are.  Cut at cap (not 0), always NUL-terminated. */
void xferfmt_escape(char *out, size_t cap, const char *in);

/* The line for record r, escaped as rsyncd does (no control byte but
 * tab), into out (always NUL-terminated, cut at cap, which must not be
 * 0).  Returns its length. */
size_t xferfmt_line(char *out, size_t cap, const struct xferfmt *x, const struct xferfmt_rec *r);

#endif
