/* SPDX-License-Identifier: ISC */
/*
 * The configuration snapshot (format in cfgsnap.h): written by the listener,
 * read and checked by every session monitor.  The reader trusts nothing in
 * the blob: sizes are checked against the mapping before any record is
 * read, every string must lie inside the strings area and end with its NUL,
 * and the work is one pass over the bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfgsnap.h"

#define NULL_OFF 0xffffffffu
#define SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

#define W_STR(f) + 2
#define W_INT(f) + 1
#define W_STRV(f, n) + 2 * (n)
enum {
	GLOBAL_WORDS = 0 CFG_GLOBAL_FIELDS(W_STR, W_INT, W_STRV),
	MODULE_WORDS = 0 CFG_MODULE_FIELDS(W_STR, W_INT, W_STRV),
};

/* FNV-1a over the kinds and names of both lists. */
static uint32_t hash_str(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ ';') * 16777619u;
}

static uint32_t layout_hash(void)
{
	uint32_t h = 2166136261u;
	char n[16];

#define H_STR(f) h = hash_str(hash_str(h, "S"), #f);
#define H_INT(f) h = hash_str(hash_str(h, "I"), #f);
#define H_STRV(f, k) snprintf(n, sizeof(n), "V%d", (int)(k)); h = hash_str(hash_str(h, n), #f);
	CFG_GLOBAL_FIELDS(H_STR, H_INT, H_STRV)
	h = hash_str(h, "|");
	CFG_MODULE_FIELDS(H_STR, H_INT, H_STRV)
	return h;
}

/* --- writing ------------------------------------------------------------ */

struct wr {
	uint32_t *words;      /* NULL while sizing */
	size_t nword;
	unsigned char *strings;
	size_t slen;          /* bytes of the strings area used so far */
	int bad;              /* a string or the area exceeds 32 bits */
};

static void put_int(struct wr *w, int v)
{
	if (w->words)
		w->words[w->nword] = (uint32_t)v;
	w->nword++;
}

static void put_str(struct wr *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (s && (n >= CFGSNAP_MAX || w->slen + n + 1 >= CFGSNAP_MAX))
		w->bad = 1;
	if (w->words) {
		w->words[w->nword] = s ? (uint32_t)w->slen : NULL_OFF;
		w->words[w->nword + 1] = (uint32_t)n;
		if (s && !w->bad)
			memcpy(w->strings + w->slen, s, n + 1);
	}
	w->nword += 2;
	if (s && !w->bad)
		w->slen += n + 1;
}

#define P_STR(f) put_str(w, src->f);
#define P_INT(f) put_int(w, src->f);
#define P_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) put_str(w, src->f[i_]);

static void put_global(struct wr *w, const struct cfg *src)
{
	CFG_GLOBAL_FIELDS(P_STR, P_INT, P_STRV)
}

static void put_module(struct wr *w, const struct cfg_module *src)
{
	CFG_MODULE_FIELDS(P_STR, P_INT, P_STRV)
}

static void put_all(struct wr *w, const struct cfg *c)
{
	put_global(w, c);
	for (size_t i = 0; i < c->nmodules; i++)
		put_module(w, &c->modules[i]);
}

int cfgsnap_build(const struct cfg *c, unsigned char **out, size_t *outlen, char *err, size_t errlen)
{
	struct wr w = { 0 };
	size_t words, total;
	uint32_t *hdr;
	unsigned char *buf;

	if (c->nmodules > CFG_MAX_MODULES) {
		snprintf(err, errlen, "configuration snapshot: %zu modules", c->nmodules);
		return -1;
	}
	put_all(&w, c); /* sizing pass */
	words = CFGSNAP_HDR_WORDS + w.nword;
	total = words * 4 + w.slen;
	if (w.bad || total > CFGSNAP_MAX) {
		snprintf(err, errlen, "configuration snapshot larger than %u bytes", CFGSNAP_MAX);
		return -1;
	}
	if ((buf = calloc(1, total)) == NULL) {
		snprintf(err, errlen, "configuration snapshot: out of memory");
		return -1;
	}
	hdr = (uint32_t *)(void *)buf;
	hdr[0] = CFGSNAP_MAGIC;
	hdr[1] = CFGSNAP_VERSION;
	hdr[2] = layout_hash();
	hdr[3] = (uint32_t)total;
	hdr[4] = GLOBAL_WORDS;
	hdr[5] = MODULE_WORDS;
	hdr[6] = (uint32_t)c->nmodules;
	hdr[7] = (uint32_t)w.slen;
	w = (struct wr){ .words = hdr + CFGSNAP_HDR_WORDS, .strings = buf + words * 4 };
	put_all(&w, c);
	*out = buf;
	*outlen = total;
	return 0;
}

int cfgsnap_create(const struct cfg *c, char *err, size_t errlen)
{
	unsigned char *buf;
	size_t len, done = 0;
	int fd;

	if (cfgsnap_build(c, &buf, &len, err, errlen) < 0)
		return -1;
	fd = memfd_create("prsyncd-config", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		free(buf);
		return -1;
	}
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "writing the configuration snapshot: %s",
				 n < 0 ? strerror(errno) : "short write");
			goto fail;
		}
		done += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, SEALS) < 0) {
		snprintf(err, errlen, "sealing the configuration snapshot: %s", strerror(errno));
		goto fail;
	}
	free(buf);
	return fd;
fail:
	free(buf);
	close(fd);
	return -1;
}

/* --- reading ------------------------------------------------------------ */

struct rd {
	const uint32_t *words;
	size_t nword;
	const char *strings;
	size_t slen;
	size_t next;         /* where the next string must start */
	const char *why;
};

static int get_int(struct rd *r)
{
	return (int)r->words[r->nword++];
}

static char *get_str(struct rd *r)
{
	uint32_t off = r->words[r->nword], len = r->words[r->nword + 1];
	const char *s;

	r->nword += 2;
	if (off == NULL_OFF) {
		if (len != 0 && !r->why)
			r->why = "NULL string with a length";
		return NULL;
	}
	if (r->why)
		return NULL;
	if (off != r->next || len >= r->slen - off) {
		r->why = "string out of place or out of bounds";
		return NULL;
	}
	s = r->strings + off;
	if (s[len] != '\0' || memchr(s, '\0', len) != NULL) {
		r->why = "string not terminated where its length says";
		return NULL;
	}
	r->next = (size_t)off + len + 1;
	return (char *)(uintptr_t)s; /* the mapping is read-only: never written */
}

#define G_STR(f) dst->f = get_str(r);
#define G_INT(f) dst->f = get_int(r);
#define G_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) dst->f[i_] = get_str(r);

static void get_global(struct rd *r, struct cfg *dst)
{
	CFG_GLOBAL_FIELDS(G_STR, G_INT, G_STRV)
}

static void get_module(struct rd *r, struct cfg_module *dst)
{
	CFG_MODULE_FIELDS(G_STR, G_INT, G_STRV)
}

int cfgsnap_parse(const void *buf, size_t len, struct cfg *out, char *err, size_t errlen)
{
	const uint32_t *hdr = buf;
	struct rd r = { 0 };
	uint64_t words;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (len < CFGSNAP_HDR_WORDS * 4 || len > CFGSNAP_MAX || ((uintptr_t)buf & 3) != 0) {
		snprintf(err, errlen, "configuration snapshot: bad size %zu", len);
		return -1;
	}
	if (hdr[0] != CFGSNAP_MAGIC || hdr[1] != CFGSNAP_VERSION || hdr[2] != layout_hash() ||
	    hdr[3] != len || hdr[4] != GLOBAL_WORDS || hdr[5] != MODULE_WORDS ||
	    hdr[6] > CFG_MAX_MODULES) {
		snprintf(err, errlen, "configuration snapshot: header does not match this build");
		return -1;
	}
	words = CFGSNAP_HDR_WORDS + (uint64_t)GLOBAL_WORDS + (uint64_t)hdr[6] * MODULE_WORDS;
	if (words * 4 + hdr[7] != len || hdr[7] == 0 || ((const char *)buf)[len - 1] != '\0') {
		snprintf(err, errlen, "configuration snapshot: sizes do not add up");
		return -1;
	}
	r.words = hdr + CFGSNAP_HDR_WORDS;
	r.strings = (const char *)buf + words * 4;
	r.slen = hdr[7];
	if (hdr[6] > 0 && (out->modules = calloc(hdr[6], sizeof(*out->modules))) == NULL) {
		snprintf(err, errlen, "configuration snapshot: out of memory");
		return -1;
	}
	out->nmodules = hdr[6];
	get_global(&r, out);
	for (i = 0; i < out->nmodules; i++)
		get_module(&r, &out->modules[i]);
	if (!r.why && r.next != r.slen)
		r.why = "bytes after the last string";
	/* What the session uses without checking for NULL. */
	if (!r.why && (!out->worker_user || !out->worker_chroot || !out->syslog_facility))
		r.why = "a required global string is missing";
	for (i = 0; !r.why && i < out->nmodules; i++)
		if (!out->modules[i].name || !out->modules[i].name[0] || !out->modules[i].path ||
		    out->modules[i].path[0] != '/' || !out->modules[i].comment)
			r.why = "a module without name, absolute path or comment";
	if (r.why) {
		snprintf(err, errlen, "configuration snapshot: %s", r.why);
		cfgsnap_parsed_free(out);
		return -1;
	}
	return 0;
}

void cfgsnap_parsed_free(struct cfg *c)
{
	free(c->modules);
	memset(c, 0, sizeof(*c));
}

int cfgsnap_open(int fd, struct cfg *out, char *err, size_t errlen)
{
	struct stat st;
	int seals;
	void *map;

	memset(out, 0, sizeof(*out));
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & SEALS) != SEALS) {
		snprintf(err, errlen, "configuration snapshot on fd %d is not a sealed memfd", fd);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < CFGSNAP_HDR_WORDS * 4 ||
	    (uint64_t)st.st_size > CFGSNAP_MAX) {
		snprintf(err, errlen, "configuration snapshot: bad size");
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "configuration snapshot: mmap: %s", strerror(errno));
		return -1;
	}
	if (cfgsnap_parse(map, (size_t)st.st_size, out, err, errlen) < 0) {
		munmap(map, (size_t)st.st_size);
		return -1;
	}
	return 0;
}
