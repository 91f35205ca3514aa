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

/* The header (magic, type, direction, exact length, flags, descriptor
 * count) against msg.c's table. */
enum pr_msg_err pr_msg_check_header(const struct pr_msg *m, enum pr_msg_dir dir, int nfds);
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
