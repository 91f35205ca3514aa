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
	return unit_done("test_flist_sort");
}
