/* SPDX-License-Identifier: ISC */
/*
 * chmod rules (chmod.h), written from rsync's manual and chmod(1), with
 * every corner below checked against rsync 3.5.0's "outgoing chmod":
 *
 *  - Clauses: [D|F] then either octal digits (value at most 07777, which
 *    replaces all permission bits, set-id and sticky included) or
 *    [ugoa]* one of + - = and the permissions: any of rwxXst, or exactly
 *    one of u g o (copy that class's bits as they are at that clause).
 *    + and - need at least one permission, = may have none.  One operator
 *    per clause; an empty clause, a trailing comma, lower-case d/f or any
 *    other letter make the whole value invalid.
 *  - No who: all classes, minus the bits of the umask (r w x X and the
 *    copied bits); = with no who still clears every class first.
 *  - X: execute where the mode is a directory's, or where the file had
 *    any execute bit before the first clause (not after earlier ones).
 *  - s: set-gid when g (or a) is given; set-uid when u (or a) is given or
 *    g is not ("+s", "o+s": set-uid only; "go+s": set-gid only).
 *    t: the sticky bit, whatever the who.
 *  - = clears the read/write/execute bits of its classes only: set-id
 *    and sticky bits stay unless the clause itself changes them; but = with
 *    a copied class also clears its classes' special bit (u set-uid, g
 *    set-gid, o sticky; all three without a who).
 */
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "chmod.h"

static const char *parse_octal(struct chmod_rule *r, const char *p)
{
	uint32_t v = 0;

	if (*p < '0' || *p > '7')
		return NULL;
	for (; *p >= '0' && *p <= '7'; p++) {
		v = v * 8 + (uint32_t)(*p - '0');
		if (v > 07777)
			return NULL;
	}
	r->octal = 1;
	r->value = (uint16_t)v;
	return p;
}

static const char *parse_symbolic(struct chmod_rule *r, const char *p)
{
	for (;; p++) {
		if (*p == 'u')
			r->who |= CHMOD_U;
		else if (*p == 'g')
			r->who |= CHMOD_G;
		else if (*p == 'o')
			r->who |= CHMOD_O;
		else if (*p == 'a')
			r->who |= CHMOD_U | CHMOD_G | CHMOD_O;
		else
			break;
	}
	if (*p != '+' && *p != '-' && *p != '=')
		return NULL;
	r->op = (uint8_t)*p++;
	if ((*p == 'u' || *p == 'g' || *p == 'o') && (p[1] == ',' || p[1] == '\0')) {
		r->copy = (uint8_t)*p;
		return p + 1;
	}
	for (; *p && *p != ','; p++) {
		const char *k = strchr("rwxXst", *p);

		if (k == NULL)
			return NULL;
		r->perms |= (uint8_t)(1u << (k - "rwxXst"));
	}
	return r->perms || r->op == '=' ? p : NULL;
}

int chmod_parse(struct chmod_rules *c, const char *spec, uint32_t umask)
{
	const char *p = spec;

	memset(c, 0, sizeof(*c));
	c->umask = umask & 0777;
	for (;;) {
		struct chmod_rule *r;

		if (c->n == CHMOD_RULES_MAX)
			return -1;
		r = &c->r[c->n++];
		if (*p == 'D' || *p == 'F')
			r->only = (uint8_t)*p++;
		p = *p >= '0' && *p <= '9' ? parse_octal(r, p) : parse_symbolic(r, p);
		if (p == NULL)
			return -1;
		if (*p == '\0')
			return 0;
		if (*p++ != ',' || *p == '\0')
			return -1;
	}
}

/* rwx (0..7) of a class, placed in every class. */
static uint32_t spread(uint32_t bits3)
{
	return bits3 * 0111u;
}

static uint32_t class_mask(uint8_t who)
{
	return (who & CHMOD_U ? 0700u : 0) | (who & CHMOD_G ? 0070u : 0) | (who & CHMOD_O ? 0007u : 0);
}

static uint32_t one(const struct chmod_rule *r, uint32_t mode, int dir, int had_x, uint32_t umask)
{
	uint32_t classes = r->who ? class_mask(r->who) : 0777u;
	uint32_t bits = 0, special = 0;

	if (r->octal)
		return (mode & ~07777u) | r->value;
	if (r->copy)
		bits = spread((mode >> (r->copy == 'u' ? 6 : r->copy == 'g' ? 3 : 0)) & 7u);
	if (r->perms & CHMOD_R)
		bits |= 0444u;
	if (r->perms & CHMOD_W)
		bits |= 0222u;
	if ((r->perms & CHMOD_X) || ((r->perms & CHMOD_XX) && (dir || had_x)))
		bits |= 0111u;
	bits &= classes;
	if (!r->who)
		bits &= ~umask;
	if (r->perms & CHMOD_S) {
		if (r->who & CHMOD_G)
			special |= S_ISGID;
		if ((r->who & CHMOD_U) || !(r->who & CHMOD_G))
			special |= S_ISUID;
	}
	if (r->perms & CHMOD_T)
		special |= S_ISVTX;
	switch (r->op) {
	case '+':
		return mode | bits | special;
	case '-':
		return mode & ~(bits | special);
	default: /* '=' */
		if (r->copy)
			classes |= (classes & 0700u ? S_ISUID : 0) | (classes & 0070u ? S_ISGID : 0) |
				   (classes & 0007u ? S_ISVTX : 0);
		return (mode & ~classes) | bits | special;
	}
}

uint32_t chmod_apply(const struct chmod_rules *c, uint32_t mode)
{
	int dir = S_ISDIR(mode), had_x = (mode & 0111u) != 0;

	if (S_ISLNK(mode))
		return mode;
	for (unsigned i = 0; i < c->n && i < CHMOD_RULES_MAX; i++) {
		if ((c->r[i].only == 'D' && !dir) || (c->r[i].only == 'F' && dir))
			continue;
		mode = one(&c->r[i], mode, dir, had_x, c->umask);
	}
	return mode;
}
