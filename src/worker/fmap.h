/* SPDX-License-Identifier: ISC */
/*
 * Windowed reading of a file the monitor opened for us.  Reads go through
 * pread into a sliding buffer rather than mmap, so a file that shrinks
 * under us yields zeros and an error flag instead of SIGBUS.
 */
#ifndef PRSYNCD_FMAP_H
#define PRSYNCD_FMAP_H

#include <stddef.h>
#include <stdint.h>

struct fmap {
	int fd;
	int64_t size;          /* the size we intend to send (at open time) */
	unsigned char *buf;
	size_t buf_cap;
	size_t buf_alloc;       /* bytes allocated at buf (>= buf_cap: a reused buffer) */
	int64_t buf_off;       /* file offset of buf[0] */
	size_t buf_len;        /* valid bytes in buf */
	int read_error;        /* errno of the first failed/short read, 0 if none */
};

/* window: the largest span a caller will ask for at once (e.g. blength + 32 KiB). */
int fmap_open(struct fmap *m, int fd, int64_t size, size_t window);

/*
 * Pointer to bytes [off, off+len) of the file; 0 <= off, len <= window,
 * off+len <= size.  Missing bytes (short read) read as zero and set
 * read_error.  Valid until the next call.
 */
const unsigned char *fmap_ptr(struct fmap *m, int64_t off, size_t len);

void fmap_close(struct fmap *m);   /* frees the buffer; does not close fd */

#endif
