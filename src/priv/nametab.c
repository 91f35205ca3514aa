/* SPDX-License-Identifier: ISC */
/*
 * The names table (format in nametab.h): written by the listener, checked
 * by every session monitor before it is used.  The reader trusts nothing:
 * sizes are checked against the buffer before any entry is read, every
 * name must lie in the strings area in order and end with its NUL, every
 * run of addresses in the addresses area in order, and the entries must
 * be sorted, so a lookup is a binary search.  Work: one pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nametab.h"
#include "sealed.h"

enum { E_KIND, E_STATUS, E_OFF, E_LEN, E_VALUE, E_COUNT };

static int item_cmp(uint32_t k1, const char *n1, uint32_t k2, const char *n2)
{
	if (k1 != k2)
		return k1 < k2 ? -1 : 1;
	return strcmp(n1, n2);
}

int nametab_build(const struct nametab_item *items, size_t n, uint32_t flags, unsigned char **out,
		  size_t *outlen, char *err, size_t errlen)
{
	uint64_t naddr = 0, slen = 0, total;
	uint32_t *w, *e, *a;
	char *s;

	for (size_t i = 0; i < n; i++) {
		const struct nametab_item *it = &items[i];
		size_t len = strlen(it->name);
		int host_ok = it->kind == NT_HOST && it->status == NT_RESOLVED;

		if (len == 0 || len > NAMETAB_NAME_MAX || (it->kind != NT_HOST && it->kind != NT_IFACE) ||
		    it->status < NT_RESOLVED || it->status > NT_UNKNOWN ||
		    (host_ok && (it->naddr == 0 || it->naddr > NAMETAB_ADDRS_MAX)) ||
		    (it->kind == NT_IFACE && it->status == NT_RESOLVED && it->ifindex == 0) ||
		    (i > 0 && item_cmp(items[i - 1].kind, items[i - 1].name, it->kind, it->name) >= 0)) {
			snprintf(err, errlen, "names table: entry %zu (%.64s) is malformed or out of order", i, it->name);
			return -1;
		}
		naddr += host_ok ? it->naddr : 0;
		slen += len + 1;
	}
	total = 4 * (NAMETAB_HDR_WORDS + (uint64_t)n * NAMETAB_ENTRY_WORDS + naddr) + slen;
	if (total > NAMETAB_MAX) {
		snprintf(err, errlen, "names table larger than %u bytes", NAMETAB_MAX);
		return -1;
	}
	if ((w = calloc(1, (size_t)total)) == NULL) {
		snprintf(err, errlen, "names table: out of memory");
		return -1;
	}
	w[0] = NAMETAB_MAGIC;
	w[1] = NAMETAB_VERSION;
	w[2] = (uint32_t)total;
	w[3] = (uint32_t)n;
	w[4] = (uint32_t)naddr;
	w[5] = (uint32_t)slen;
	w[6] = flags;
	e = w + NAMETAB_HDR_WORDS;
	a = e + n * NAMETAB_ENTRY_WORDS;
	s = (char *)(a + naddr);
	naddr = slen = 0;
	for (size_t i = 0; i < n; i++, e += NAMETAB_ENTRY_WORDS) {
		const struct nametab_item *it = &items[i];
		size_t len = strlen(it->name);

		e[E_KIND] = it->kind;
		e[E_STATUS] = it->status;
		e[E_OFF] = (uint32_t)slen;
		e[E_LEN] = (uint32_t)len;
		memcpy(s + slen, it->name, len + 1);
		slen += len + 1;
		if (it->status != NT_RESOLVED)
			continue;
		if (it->kind == NT_IFACE) {
			e[E_VALUE] = it->ifindex;
			continue;
		}
		e[E_VALUE] = (uint32_t)naddr;
		e[E_COUNT] = it->naddr;
		memcpy(a + naddr, it->addrs, (size_t)it->naddr * 4);
		naddr += it->naddr;
	}
	*out = (unsigned char *)w;
	*outlen = (size_t)total;
	return 0;
}

/* One entry against the rules of nametab.h; next_off and next_addr are
 * where its name and addresses must start. */
static const char *check_entry(const struct nametab *t, const uint32_t *e, size_t slen, uint64_t *next_off,
			       uint64_t *next_addr)
{
	int resolved = e[E_STATUS] == NT_RESOLVED;

	if (e[E_KIND] != NT_HOST && e[E_KIND] != NT_IFACE)
		return "unknown kind";
	if (e[E_STATUS] < NT_RESOLVED || e[E_STATUS] > NT_UNKNOWN)
		return "unknown status";
	if (e[E_OFF] != *next_off || e[E_LEN] == 0 || e[E_LEN] > NAMETAB_NAME_MAX ||
	    (uint64_t)e[E_OFF] + e[E_LEN] >= slen)
		return "name out of place or out of bounds";
	if (t->strings[e[E_OFF] + e[E_LEN]] != '\0' || memchr(t->strings + e[E_OFF], '\0', e[E_LEN]) != NULL)
		return "name not terminated where its length says";
	*next_off += (uint64_t)e[E_LEN] + 1;
	if (!resolved || e[E_KIND] == NT_IFACE) {
		if (e[E_COUNT] != 0 || (e[E_VALUE] != 0) != (resolved && e[E_KIND] == NT_IFACE))
			return "answer does not fit the status";
		return NULL;
	}
	if (e[E_VALUE] != *next_addr || e[E_COUNT] == 0 || e[E_COUNT] > NAMETAB_ADDRS_MAX ||
	    *next_addr + e[E_COUNT] > t->naddr)
		return "addresses out of place or out of bounds";
	*next_addr += e[E_COUNT];
	return NULL;
}

int nametab_parse(const void *buf, size_t len, struct nametab *t, char *err, size_t errlen)
{
	const uint32_t *w = buf;
	uint64_t next_off = 0, next_addr = 0, words;
	const char *why = NULL;

	memset(t, 0, sizeof(*t));
	if (len < NAMETAB_HDR_WORDS * 4 || len > NAMETAB_MAX || ((uintptr_t)buf & 3) != 0) {
		snprintf(err, errlen, "names table: bad size %zu", len);
		return -1;
	}
	words = NAMETAB_HDR_WORDS + (uint64_t)w[3] * NAMETAB_ENTRY_WORDS + w[4];
	if (w[0] != NAMETAB_MAGIC || w[1] != NAMETAB_VERSION || w[2] != len ||
	    (w[6] & ~NT_FLAG_CLIENT_QUERIES) != 0 || w[7] != 0) {
		snprintf(err, errlen, "names table: header does not match this build");
		return -1;
	}
	if (words * 4 + w[5] != len || w[3] > len || w[4] > len) {
		snprintf(err, errlen, "names table: sizes do not add up");
		return -1;
	}
	t->entries = w + NAMETAB_HDR_WORDS;
	t->n = w[3];
	t->addrs = t->entries + t->n * NAMETAB_ENTRY_WORDS;
	t->naddr = w[4];
	t->strings = (const char *)(t->addrs + t->naddr);
	t->flags = w[6];
	for (size_t i = 0; i < t->n && why == NULL; i++) {
		const uint32_t *e = t->entries + i * NAMETAB_ENTRY_WORDS, *p = e - NAMETAB_ENTRY_WORDS;

		why = check_entry(t, e, w[5], &next_off, &next_addr);
		if (why == NULL && i > 0 &&
		    item_cmp(p[E_KIND], t->strings + p[E_OFF], e[E_KIND], t->strings + e[E_OFF]) >= 0)
			why = "entries out of order";
	}
	if (why == NULL && (next_off != w[5] || next_addr != t->naddr))
		why = "bytes after the last name or address";
	if (why != NULL) {
		snprintf(err, errlen, "names table: %s", why);
		memset(t, 0, sizeof(*t));
		return -1;
	}
	return 0;
}

int nametab_open(int fd, struct nametab *t, char *err, size_t errlen)
{
	char why[128];
	size_t len;
	const void *map = sealed_map(fd, NAMETAB_HDR_WORDS * 4, NAMETAB_MAX, &len, why, sizeof(why));

	memset(t, 0, sizeof(*t));
	if (map == NULL) {
		snprintf(err, errlen, "names table: %s", why);
		return -1;
	}
	return nametab_parse(map, len, t, err, errlen); /* a refused mapping stays: the session ends */
}

int nametab_find(const struct nametab *t, uint32_t kind, const char *name, struct nametab_answer *a)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint32_t *e = t->entries + mid * NAMETAB_ENTRY_WORDS;
		int c = item_cmp(e[E_KIND], t->strings + e[E_OFF], kind, name);

		if (c == 0) {
			a->status = e[E_STATUS];
			a->addrs = e[E_KIND] == NT_HOST && e[E_STATUS] == NT_RESOLVED ? t->addrs + e[E_VALUE] : NULL;
			a->naddr = e[E_KIND] == NT_HOST ? e[E_COUNT] : 0;
			a->ifindex = e[E_KIND] == NT_IFACE ? e[E_VALUE] : 0;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}
