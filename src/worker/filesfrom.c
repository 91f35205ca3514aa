/* SPDX-License-Identifier: ISC */
/*
 * --files-from=FILE: the names to send from a file in the module, read
 * through the monitor like a merge file.  Each name becomes a source
 * argument "BASE/./NAME" (BASE the first path argument, -R implied).
 * (--files-from=-, from the client, is streamed by flist.c.)
 *
 * Bounds: 64 MiB of list, names below 4096 bytes.  A module file is read as a chrooted rsync 3.5.0 daemon reads it
 * (observed): names end at a newline or carriage return (a NUL with -0),
 * empty names and names starting with '#' or ';' are skipped (with -0
 * too), a name stops at an embedded NUL, a longer name is cut at 4095
 * bytes, and the last name needs no terminator.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "filesfrom.h"
#include "fsclient.h"
#include "mon.h"
#include "sess.h"

#define FF_LIST_MAX (64u << 20) /* bytes of list, either form */
#define FF_NAME_MAX 4096u       /* a name and its NUL */
#define FF_CHUNK 65536u

static const char *base_arg(const struct sess *s)
{
	return s->opt.npaths ? s->opt.paths[0] : "";
}

/* The module path of a --files-from=FILE value, as the kernel resolves it
 * in rsyncd's chroot: from the module root, ".." at the root stays there. */
static void module_path(const char *in, char *out, size_t cap)
{
	size_t o = 0;

	out[0] = '\0';
	for (const char *p = in; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			o -= o > 0;
		} else if (n > 0 && !(n == 1 && p[0] == '.') && o + n + 2 < cap) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		out[o] = '\0';
		p += n + (p[n] == '/');
	}
}

int files_from_open(struct sess *s, char *err, size_t errlen)
{
	char path[PR_RELPATH_MAX];
	struct pr_stat st;
	int e;

	s->ff_fd = -1;
	if (!s->opt.files_from_path[0])
		return 0;
	module_path(s->opt.files_from_path, path, sizeof(path));
	e = fsc_open(path, &s->ff_fd, &s->ff_handle, &st);
	if (e == EINVAL) {
		/* a directory: rsyncd opens it and dies reading it */
		s->ff_fd = -2;
		return 0;
	}
	if (e != 0) {
		snprintf(err, errlen, "rsync: failed to open files-from file %s: %s", s->opt.files_from_path,
			 strerror(e));
		return -1;
	}
	return 0;
}

/* One name of a module file is complete. */
static void add_name(struct sess *s, char *name, size_t len)
{
	name[len] = '\0';
	static char arg[2 * FF_NAME_MAX + 8];

	if (name[0] == '\0' || name[0] == '#' || name[0] == ';')
		return;
	if (sess_source_name(base_arg(s), name, arg, sizeof(arg)) < 0)
		io_fatal(&s->io, RERR_PROTOCOL, "files-from name too long [sender]");
	sess_add_path(s, arg);
}

static void read_module_file(struct sess *s)
{
	static char buf[FF_CHUNK], name[FF_NAME_MAX];
	size_t len = 0;
	off_t off = 0;

	if (s->ff_fd == -2) {
		mon_log(PR_LOG_ERR, "files-from file %s: read error: %s", s->opt.files_from_path, strerror(EISDIR));
		mon_exit(RERR_FILEIO);
	}
	for (;;) {
		ssize_t n = pread(s->ff_fd, buf, sizeof(buf), off);

		if (n < 0)
			io_fatal(&s->io, RERR_FILEIO, "rsync: read error on files-from file %s: %s [sender]",
				 s->opt.files_from_path, strerror(errno));
		if (n == 0)
			break;
		if ((uint64_t)off + (uint64_t)n > FF_LIST_MAX)
			io_fatal(&s->io, RERR_PROTOCOL, "files-from list too long [sender]");
		off += n;
		for (ssize_t i = 0; i < n; i++) {
			char ch = buf[i];

			if (s->opt.from0 ? ch == '\0' : (ch == '\n' || ch == '\r')) {
				add_name(s, name, len);
				len = 0;
			} else if (len < FF_NAME_MAX - 1) {
				name[len++] = ch;
			}
		}
	}
	add_name(s, name, len);
	fsc_close(s->ff_fd, s->ff_handle);
	s->ff_fd = -1;
}

void files_from_recv(struct sess *s)
{
	/* --files-from=- is read as the file list is built, each name looked
	 * up as it arrives and never stored (flist.c files_from_all()). */
	if (s->opt.files_from_path[0])
		read_module_file(s);
}
