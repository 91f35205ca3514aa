/* SPDX-License-Identifier: ISC */
/*
 * Between msg.c and the two validator files (msg_w2m.c, msg_m2w.c): the
 * header check and the field checks both directions use.  Not for callers
 * outside src/proto: they validate with pr_msg_validate_w2m/_m2w (msg.h).
 */
#ifndef PRSYNCD_MSG_CHECK_H
#define PRSYNCD_MSG_CHECK_H

#include "msg.h"

/* One type's body validator.  have_fd: how many descriptors arrived, never
 * more than the type's row in msg.c allows. */
struct pr_msg_check {
	uint16_t type;
	enum pr_msg_err (*check)(const struct pr_msg *m, int have_fd);
};

/* What one body field of a worker's message must be: msg.c's table holds
 * them in each worker type's row, msg_w2m.c's check_field() is the one
 * reading of them.  The rules no row can say (the packed paths of OPENV,
 * the handle lists) are kinds of their own, each one function there. */
enum pr_field_kind {
	F_END,      /* no further field; a worker's type whose first is F_END is refused */
	F_NONE,     /* no body */
	F_STR,      /* counted string (pr_str_ok): else EBADSTR */
	F_LINE,     /* counted string without '\n': else EBADSTR */
	F_NAME,     /* counted string (else EBADSTR), nonempty, without '\n' (else EBADFIELD) */
	F_RELPATH,  /* module path (pr_relpath_ok): else EBADSTR */
	F_LOG,      /* counted string without a control byte but tab: else EBADSTR */
	F_RANGE,    /* uint32 in lo..hi: else EBADFIELD */
	F_OPENV, F_CLOSEV, /* msg_w2m.c's v_openv, v_closev */
};

struct pr_field {
	uint16_t kind;
	uint32_t off;      /* of the field in struct pr_msg */
	uint32_t lo, hi;   /* F_RANGE: the bounds; strings: hi is the capacity */
};

#define PR_ROW_FIELDS 2

/* The header (magic, type, direction, exact length, flags, descriptor
 * count) against msg.c's table; *fields is set to the type's
 * PR_ROW_FIELDS field rules, checked in that order. */
enum pr_msg_err pr_msg_check_header(const struct pr_msg *m, enum pr_msg_dir dir, int nfds,
				    const struct pr_field **fields);
/* The header, then the body by the type's entry in checks[n]; a type with
 * no entry there is refused. */
enum pr_msg_err pr_msg_check(const struct pr_msg *m, enum pr_msg_dir dir, int nfds,
			    const struct pr_msg_check *checks, size_t n);

int pr_str_ok(uint16_t len, const char *s, size_t cap);
#define STR_OK(f) pr_str_ok((f).len, (f).s, sizeof((f).s))
#define RELPATH_OK(f) ((f).len < sizeof((f).s) && pr_relpath_ok((f).s, (f).len))
int pr_bool_ok(uint32_t v);
/* A known file type and no bits above them. */
int pr_mode_ok(uint32_t mode);
int pr_all_zero(const unsigned char *p, size_t n);

#endif
