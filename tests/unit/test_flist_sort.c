/* SPDX-License-Identifier: ISC */
/* The file-list order against the order the spec captured from stock
 * (24 names, protocols >= 29 and 28). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flist.h"
#include "unit.h"

struct item { const char *name; int dir; };

/* The expected orders; trailing "/" in the spec marks a directory. */
static const struct item order29[] = {
	{ ".", 1 }, { "+x", 0 }, { ".hidden", 0 }, { "B", 0 }, { "_", 0 }, { "a", 0 },
	{ "a b", 0 }, { "a-b", 0 }, { "a.b", 0 }, { "a0", 0 }, { "d.y", 0 }, { "~z", 0 },
	{ "\xc3\xa9", 0 }, { "a c", 1 }, { "a c/q", 0 }, { "d-x", 1 }, { "d-x/k", 1 },
	{ "d-x/k/z", 0 }, { "dd-x", 1 }, { "dd-x/y", 0 }, { "dd", 1 }, { "dd/file", 0 },
	{ "dd/a", 1 }, { "dd/a/x", 0 },
};
static const char *const order28[] = {
	"+x", ".", ".hidden", "B", "_", "a", "a b", "a c", "a c/q", "a-b", "a.b", "a0",
	"d-x", "d-x/k", "d-x/k/z", "d.y", "dd", "dd-x", "dd-x/y", "dd/a", "dd/a/x",
	"dd/file", "~z", "\xc3\xa9",
};

#define N (sizeof(order29) / sizeof(order29[0]))

static struct fentry mk(const struct item *it)
{
	struct fentry f;

	memset(&f, 0, sizeof(f));
	f.name = (char *)it->name;
	f.st.mode = it->dir ? (S_IFDIR | 0755) : (S_IFREG | 0644);
	return f;
}

/* The definition flist_cmp once was, segment by segment: the reference the
 * one-pass comparison is held to on random names below. */
struct seg { const char *p; size_t len; int dirlevel; int end; };

static void next_seg(const char **pos, const char *name, int isdir, struct seg *sg)
{
	const char *p = *pos, *slash;

	if (p == NULL || (isdir && p == name && strcmp(name, ".") == 0)) {
		sg->end = 1;
		*pos = NULL;
		return;
	}
	sg->end = 0;
	slash = strchr(p, '/');
	sg->p = p;
	if (slash) {
		sg->len = (size_t)(slash - p);
		sg->dirlevel = 1;
		*pos = slash + 1;
	} else {
		sg->len = strlen(p);
		sg->dirlevel = isdir;
		*pos = NULL;
	}
}

static int ref_cmp(const struct fentry *a, const struct fentry *b)
{
	const char *pa = a->name, *pb = b->name;
	int da = S_ISDIR(a->st.mode), db = S_ISDIR(b->st.mode);

	for (;;) {
		struct seg sa, sb;

		next_seg(&pa, a->name, da, &sa);
		next_seg(&pb, b->name, db, &sb);
		if (sa.end || sb.end)
			return sa.end && sb.end ? 0 : sa.end ? -1 : 1;
		if (sa.dirlevel != sb.dirlevel)
			return sa.dirlevel ? 1 : -1;
		size_t n = sa.len < sb.len ? sa.len : sb.len;
		int c = memcmp(sa.p, sb.p, n);
		if (c)
			return c < 0 ? -1 : 1;
		if (sa.len == sb.len)
			continue;
		if (!sa.dirlevel)
			return sa.len < sb.len ? -1 : 1;
		unsigned char ca = sa.len > n ? (unsigned char)sa.p[n] : '/';
		unsigned char cb = sb.len > n ? (unsigned char)sb.p[n] : '/';
		return ca < cb ? -1 : ca > cb ? 1 : (sa.len < sb.len ? -1 : 1);
	}
}

/* A random relative name of 1-4 segments over a small alphabet (so that
 * prefixes, equal segments and the bytes around '/' all come up). */
static void rand_name(char *buf, unsigned *seed)
{
	static const char alpha[] = "ab.-_0/~\x7f\xc3";
	int segs = 1 + (int)((*seed = *seed * 1103515245u + 12345u) >> 16) % 4;
	size_t o = 0;

	for (int s = 0; s < segs; s++) {
		int len = 1 + (int)((*seed = *seed * 1103515245u + 12345u) >> 16) % 3;

		if (s)
			buf[o++] = '/';
		for (int k = 0; k < len; k++) {
			char c;

			do
				c = alpha[((*seed = *seed * 1103515245u + 12345u) >> 16) % (sizeof(alpha) - 1)];
			while (c == '/');
			buf[o++] = c;
		}
	}
	buf[o] = '\0';
	if (((*seed >> 20) & 15) == 0)
		strcpy(buf, ".");
}

static void test_random(void)
{
	char na[64], nb[64];
	unsigned seed = 12345;
	int bad = 0;

	for (int i = 0; i < 200000; i++) {
		struct fentry a, b;

		rand_name(na, &seed);
		rand_name(nb, &seed);
		if (i % 7 == 0)
			strcpy(nb, na);
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		a.name = na;
		b.name = nb;
		a.st.mode = (seed & 1) ? (S_IFDIR | 0755) : (S_IFREG | 0644);
		b.st.mode = (seed & 2) ? (S_IFDIR | 0755) : (S_IFREG | 0644);
		if (flist_cmp(&a, &b, 30) != ref_cmp(&a, &b) && bad++ < 10)
			CHECK_MSG(0, "'%s'%s vs '%s'%s: %d, reference %d", na, S_ISDIR(a.st.mode) ? "/" : "", nb,
				  S_ISDIR(b.st.mode) ? "/" : "", flist_cmp(&a, &b, 30), ref_cmp(&a, &b));
	}
	CHECK_MSG(bad == 0, "%d of 200000 random pairs differ from the reference", bad);
}

static int proto;
static int cmp(const void *a, const void *b)
{
	return flist_cmp(a, b, proto);
}

int main(void)
{
	struct fentry e[N];

	/* Every pair in the expected order compares as expected. */
	for (size_t i = 0; i < N; i++) {
		for (size_t j = 0; j < N; j++) {
			struct fentry a = mk(&order29[i]), b = mk(&order29[j]);
			int c = flist_cmp(&a, &b, 29);
			CHECK_MSG(i < j ? c < 0 : i > j ? c > 0 : c == 0, "'%s' vs '%s' = %d",
				  order29[i].name, order29[j].name, c);
		}
	}
	/* Sorting a reversed copy reproduces both orders. */
	for (size_t i = 0; i < N; i++)
		e[i] = mk(&order29[N - 1 - i]);
	proto = 32;
	qsort(e, N, sizeof(e[0]), cmp);
	for (size_t i = 0; i < N; i++)
		CHECK_MSG(strcmp(e[i].name, order29[i].name) == 0, "32: pos %zu is '%s'", i, e[i].name);
	proto = 28;
	qsort(e, N, sizeof(e[0]), cmp);
	for (size_t i = 0; i < N; i++)
		CHECK_MSG(strcmp(e[i].name, order28[i]) == 0, "28: pos %zu is '%s'", i, e[i].name);
	test_random();
	return unit_done("test_flist_sort");
}
