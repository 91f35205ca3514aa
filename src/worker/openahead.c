/* SPDX-License-Identifier: ISC */
/*
 * Files opened ahead of the client's requests (see openahead.h).
 *
 * The queue holds answers for entries of one list, in list order, all
 * after the last entry asked for.  A request for an entry further on
 * closes the ones it passes (skipped: the client did not want them); a
 * request in another list, or oa_drop(), closes them all, so the queue
 * never outlives the list its entries belong to.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsclient.h"
#include "openahead.h"

#define AHEAD_START 4u

struct oa_slot {
	size_t idx;
	struct fsc_opened o;
};

static struct {
	const struct flist *fl;
	struct oa_slot q[PR_OPENV_MAX];
	size_t head, n;
	unsigned want;           /* files per request, 1..PR_OPENV_MAX */
} oa = { .want = AHEAD_START };

static char paths[PR_OPENV_MAX][PR_RELPATH_MAX];

static void close_slot(struct oa_slot *s)
{
	if (s->o.err == 0)
		fsc_close(s->o.fd, s->o.handle);
}

void oa_drop(void)
{
	for (; oa.n > 0; oa.n--, oa.head++)
		close_slot(&oa.q[oa.head]);
	oa.head = 0;
	oa.fl = NULL;
}

static int take(struct oa_slot *s, struct oa_file *out)
{
	if (s->o.err != 0)
		return s->o.err;
	out->fd = s->o.fd;
	out->handle = s->o.handle;
	out->st = s->o.st;
	return 0;
}

/* The entry idx is wanted: skip what comes before it; 1 if it is queued. */
static int from_queue(const struct flist *fl, size_t idx, struct oa_file *out, int *err)
{
	if (oa.fl != fl) {
		oa_drop();
		return 0;
	}
	while (oa.n > 0 && oa.q[oa.head].idx < idx) {
		close_slot(&oa.q[oa.head++]);
		oa.n--;
		if (oa.want > 1)
			oa.want /= 2;
	}
	if (oa.n == 0 || oa.q[oa.head].idx != idx) {
		oa_drop();
		return 0;
	}
	*err = take(&oa.q[oa.head++], out);
	if (--oa.n == 0) {
		/* everything opened ahead was asked for: look further */
		oa.head = 0;
		if (oa.want < PR_OPENV_MAX)
			oa.want *= 2;
	}
	return 1;
}

int oa_open(struct flist *fl, size_t idx, const char *mpath, int ahead, struct oa_file *out)
{
	const char *ask[PR_OPENV_MAX];
	struct fsc_opened got[PR_OPENV_MAX];
	size_t which[PR_OPENV_MAX];
	size_t n = 1, asked;
	int err;

	if (from_queue(fl, idx, out, &err))
		return err;
	ask[0] = mpath;
	which[0] = idx;
	for (size_t j = idx + 1; ahead && j < fl->n && n < oa.want; j++) {
		const struct fentry *f = &fl->e[j];

		if (!S_ISREG(f->st.mode) || f->st.sent ||
		    flist_module_path(fl, f, paths[n], sizeof(paths[n])) < 0)
			continue;
		ask[n] = paths[n];
		which[n++] = j;
	}
	asked = fsc_openv(ask, n, got);
	if (asked == 0)
		return EMFILE; /* as the monitor answers with no handle left */
	for (size_t i = 1; i < asked; i++) {
		oa.q[i - 1].idx = which[i];
		oa.q[i - 1].o = got[i];
	}
	oa.fl = fl;
	oa.head = 0;
	oa.n = asked - 1;
	if (got[0].err != 0)
		return got[0].err;
	out->fd = got[0].fd;
	out->handle = got[0].handle;
	out->st = got[0].st;
	return 0;
}

void oa_close(struct oa_file *f)
{
	fsc_close(f->fd, f->handle);
	f->fd = -1;
}
