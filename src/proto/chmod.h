/* SPDX-License-Identifier: ISC */
/*
 * rsync's chmod rules ("outgoing chmod", and the syntax of --chmod): a
 * comma-separated list of chmod(1)-style clauses, each optionally
 * prefixed by D (directories only) or F (everything else).  Parsed by the
 * listener to check a configuration, applied by the worker to the modes
 * it sends.  Semantics in chmod.c, checked against rsync 3.5.0.
 */
#ifndef PRSYNCD_CHMOD_H
#define PRSYNCD_CHMOD_H

#include <stdint.h>

#define CHMOD_RULES_MAX 512 /* a 1023-byte value has fewer clauses */

struct chmod_rule {
	uint8_t only;    /* 0, 'D' or 'F' */
	uint8_t octal;   /* 1: set the 07777 bits to value */
	uint8_t op;      /* '+', '-', '=' */
	uint8_t who;     /* CHMOD_U | CHMOD_G | CHMOD_O; 0: none given */
	uint8_t perms;   /* CHMOD_R ... CHMOD_T */
	uint8_t copy;    /* 0, or 'u', 'g', 'o': the bits of that class */
	uint16_t value;  /* octal only */
};

struct chmod_rules {
	unsigned n;
	uint32_t umask;  /* applies to clauses without a who, as in chmod(1) */
	struct chmod_rule r[CHMOD_RULES_MAX];
};

#define CHMOD_U 1u
#define CHMOD_G 2u
#define CHMOD_O 4u
#define CHMOD_R 0x01u
#define CHMOD_W 0x02u
#define CHMOD_X 0x04u
#define CHMOD_XX 0x08u /* X: execute for directories and for files executable by anyone */
#define CHMOD_S 0x10u
#define CHMOD_T 0x20u

/* Parse spec (NUL-terminated).  0, or -1 if it is not valid as a whole
 * (rsyncd then ignores the directive silently; prsyncd refuses it). */
int chmod_parse(struct chmod_rules *c, const char *spec, uint32_t umask);

/* The mode to send for a file of this mode (type bits included).
 * Symbolic links are never changed. */
uint32_t chmod_apply(const struct chmod_rules *c, uint32_t mode);

#endif
