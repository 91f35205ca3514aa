/* SPDX-License-Identifier: ISC */
/*
 * A sliding pread window over a file (see fmap.h).
 *
 * The window always starts at the requested offset and extends as far as
 * the buffer and the intended size allow; the part of the old window that
 * overlaps the new one is moved instead of re-read, so a forward scan reads
 * every byte once.  Bytes the file no longer has (it shrank, or a read
 * failed) read as zeros and set read_error; the sender then spoils its
 * whole-file checksum so the client retries (spec part 2 section 8.3).
 */
#include "fmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The buffer of the last map closed, for the next one: a tree of small
 * files costs no allocation, and no fresh pages to fault in, per file.
 * Never larger than the largest window the session used. */
static unsigned char *spare;
static size_t spare_alloc;

int fmap_open(struct fmap *m, int fd, int64_t size, size_t window)
{
	memset(m, 0, sizeof *m);
	m->fd = fd;
	if (size < 0) {
		errno = EINVAL;
		return -1;
	}
	m->size = size;
	/* No request can be longer than the file, so a window beyond the
	 * file's size would only waste memory. */
	if (window == 0)
		window = 1;
	if ((uint64_t)window > (uint64_t)size)
		window = size > 0 ? (size_t)size : 1;
	if (spare != NULL && spare_alloc >= window) {
		m->buf = spare;
		m->buf_alloc = spare_alloc;
		spare = NULL;
		spare_alloc = 0;
	} else if ((m->buf = malloc(window)) != NULL) {
		m->buf_alloc = window;
	} else {
		return -1;
	}
	m->buf_cap = window;
	return 0;
}

static void note_error(struct fmap *m, int err)
{
	if (m->read_error == 0)
		m->read_error = err;
}

/* Fill buf[have, want) from the file at buf_off + have; zeros past a short
 * read or a failed read. */
static void fill(struct fmap *m, size_t have, size_t want)
{
	while (have < want) {
		ssize_t n = pread(m->fd, m->buf + have, want - have, m->buf_off + (int64_t)have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			note_error(m, n < 0 ? errno : EIO);
			memset(m->buf + have, 0, want - have);
			return;
		}
		have += (size_t)n;
	}
}

const unsigned char *fmap_ptr(struct fmap *m, int64_t off, size_t len)
{
	if (m->buf == NULL) {
		note_error(m, EINVAL);
		return NULL;
	}
	if (len > m->buf_cap) {
		/* Cannot be served without overflowing; the caller broke the
		 * window contract. */
		note_error(m, EINVAL);
		return NULL;
	}
	if (off < 0 || off > m->size || (uint64_t)len > (uint64_t)(m->size - off)) {
		note_error(m, EINVAL);
		memset(m->buf, 0, len);
		m->buf_len = 0;            /* the window no longer holds file data */
		return m->buf;
	}

	/* Already in the window? */
	if (off >= m->buf_off && (uint64_t)(off - m->buf_off) <= m->buf_len &&
	    len <= m->buf_len - (size_t)(off - m->buf_off))
		return m->buf + (off - m->buf_off);

	/* Slide: keep what overlaps the front of the new window. */
	size_t keep = 0;

	if (off >= m->buf_off && (uint64_t)(off - m->buf_off) < m->buf_len) {
		size_t skip = (size_t)(off - m->buf_off);

		keep = m->buf_len - skip;
		memmove(m->buf, m->buf + skip, keep);
	}

	size_t want = m->buf_cap;

	if ((uint64_t)want > (uint64_t)(m->size - off))
		want = (size_t)(m->size - off);
	m->buf_off = off;
	m->buf_len = want;
	fill(m, keep, want);
	return m->buf;
}

void fmap_close(struct fmap *m)
{
	if (m->buf != NULL && m->buf_alloc > spare_alloc) {
		free(spare);
		spare = m->buf;
		spare_alloc = m->buf_alloc;
	} else {
		free(m->buf);
	}
	m->buf = NULL;
	m->buf_cap = 0;
	m->buf_alloc = 0;
	m->buf_len = 0;
}
