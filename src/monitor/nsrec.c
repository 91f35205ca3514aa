/* SPDX-License-Identifier: ISC */
/* Records of the name-service channel (nsrec.h). */
#include <string.h>

#include "nsrec.h"

_Static_assert(sizeof(struct nsrec) == 7 * 4 + 2 * (NSREC_TEXT_MAX + 1) + 2, "no hidden padding");

void nsrec_init(struct nsrec *r, enum nsrec_type type, uint32_t seq)
{
	memset(r, 0, sizeof(*r));
	r->magic = NSREC_MAGIC;
	r->type = (uint32_t)type;
	r->seq = seq;
}

int nsrec_set(struct nsrec *r, int which, const char *s)
{
	char *f = which == 'a' ? r->a : r->b;
	uint32_t *len = which == 'a' ? &r->alen : &r->blen;
	size_t n = strlen(s);

	memset(f, 0, NSREC_TEXT_MAX + 1);
	*len = 0;
	if (n > NSREC_TEXT_MAX)
		return -1;
	memcpy(f, s, n);
	*len = (uint32_t)n;
	return 0;
}

/* len bytes, none of them NUL, then zeros to the end of the field. */
static int field_ok(const char *f, uint32_t len)
{
	if (len > NSREC_TEXT_MAX || memchr(f, '\0', len) != NULL)
		return 0;
	for (size_t i = len; i <= NSREC_TEXT_MAX; i++)
		if (f[i] != '\0')
			return 0;
	return 1;
}

const char *nsrec_check(const struct nsrec *r, size_t len, enum nsrec_dir dir)
{
	if (len != sizeof(*r))
		return "record of the wrong size";
	if (r->magic != NSREC_MAGIC || r->pad[0] || r->pad[1])
		return "bad magic or padding";
	if (!field_ok(r->a, r->alen) || !field_ok(r->b, r->blen))
		return "malformed text field";
	switch (dir == NSREC_TO_CHILD ? r->type : r->type | 0x10000u) {
	case NSREQ_GROUPS:
		return r->status || r->count || r->blen ? "malformed groups request" : NULL;
	case NSREQ_NETGROUP:
		return r->status || r->count || r->alen == 0 ? "malformed netgroup request" : NULL;
	case NSANS_GROUP | 0x10000u:
		return r->status || r->alen == 0 || r->blen || r->count >= NSREC_GROUPS_MAX
		       ? "malformed group answer" : NULL;
	case NSANS_END | 0x10000u:
		if (r->blen || (r->status != NS_OK && r->status != NS_FAIL) ||
		    (r->status == NS_OK && (r->alen || r->count > NSREC_GROUPS_MAX)) ||
		    (r->status == NS_FAIL && r->count))
			return "malformed end of groups";
		return NULL;
	case NSANS_NETGROUP | 0x10000u:
		if (r->blen || r->count || (r->status != NS_IN && r->status != NS_NOTIN && r->status != NS_FAIL) ||
		    (r->status != NS_FAIL && r->alen))
			return "malformed netgroup answer";
		return NULL;
	}
	return "unknown record type for this direction";
}
