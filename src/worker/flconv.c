/* SPDX-License-Identifier: ISC */
/* File-list names under --iconv (flconv.h).  Messages as rsyncd 3.5.0. */
#include <errno.h>
#include <string.h>

#include "charset.h"
#include "flconv.h"

int flconv_check(struct sess *s, const char *name, const char *mpath, const char *link)
{
	char buf[PR_RELPATH_MAX];
	size_t n;

	if (!s->iconv)
		return 1;
	if (charset_convert(1, name, strlen(name), buf, sizeof(buf), &n) < 0) {
		io_msg(&s->io, MSG_ERROR_XFER, "[sender] cannot convert filename: %s (%s)", name, strerror(errno));
		s->io_error |= IOERR_GENERAL;
		return 0;
	}
	if (link && s->opt.cap_symlink_iconv &&
	    charset_convert(1, link, strlen(link), buf, sizeof(buf), &n) < 0) {
		io_msg(&s->io, MSG_ERROR_XFER, "[sender] cannot convert symlink data for: \"/%s\" (in %s) (%s)",
		       mpath, s->hs.module, strerror(errno));
		s->io_error |= IOERR_GENERAL;
		return 0;
	}
	return 1;
}

size_t flconv_wire(const struct sess *s, const char *in, char *buf, size_t cap, const char **out)
{
	size_t n;

	/* Checked when listed; an implied directory of an argument that
	 * cannot be converted goes as it is rather than not at all. */
	if (s->iconv && charset_convert(1, in, strlen(in), buf, cap, &n) == 0) {
		*out = buf;
		return n;
	}
	*out = in;
	return strlen(in);
}
