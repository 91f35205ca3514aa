/* SPDX-License-Identifier: ISC */
/*
 * The sender's main loop (spec part 1 section 8, part 2 section 7): read
 * the client's requests, echo them, send each file's delta, keep the
 * phase bookkeeping, and end with the statistics and the goodbye.
 *
 * Every number from a request is checked before use: file indexes against
 * the list, sum heads against the negotiated digest length (the
 * CVE-2024-12084 lesson), and all sum arrays are sized from a checked head.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compress_sess.h"
#include "flist.h"
#include "fsclient.h"
#include "filters.h"
#include "match.h"
#include "wildmatch.h"
#include "mon.h"
#include "openahead.h"
#include "sess.h"
#include "xferrec.h"
#include "xattr.h"

#define ITEM_REPORT_XATTR 0x0100
#define ITEM_BASIS_TYPE_FOLLOWS 0x0800
#define ITEM_XNAME_FOLLOWS 0x1000
#define ITEM_IS_NEW 0x2000
#define ITEM_LOCAL_CHANGE 0x4000
#define ITEM_TRANSFER 0x8000
#define FNAMECMP_FNAME 0x80
#define CHUNK_SIZE 32768
#define XNAME_MAX 4096
#define FMAP_SLACK (256 * 1024)

/* ---- plain token stream (spec part 2, 11.1) ----------------------------- */

static int tok_literal(void *ctx, const unsigned char *data, size_t len)
{
	io_write_literal(ctx, data, len, CHUNK_SIZE);
	return 0;
}

static int tok_block(void *ctx, int32_t idx, const unsigned char *data, size_t len)
{
	(void)data;
	(void)len;
	io_write_int32(ctx, -(idx + 1));
	return 0;
}

static int tok_end(void *ctx)
{
	io_write_int32(ctx, 0);
	return 0;
}

/* ---- one file request ---------------------------------------------------- */

struct request {
	int32_t ndx;
	uint16_t iflags;
	uint8_t fnamecmp_type;
	int has_type;
	char xname[XNAME_MAX];
	size_t xname_len;
	int has_xname;
};

/* Does a request carry the receiver's wants for long xattr values (and
 * its echo our answer)?  As stock decides it (protocol 31 optimizes hard
 * links unless the client said 'x'). */
static int xattr_request(const struct sess *s, const struct request *r)
{
	const uint16_t both = ITEM_XNAME_FOLLOWS | ITEM_LOCAL_CHANGE;

	return s->opt.xattrs && (r->iflags & ITEM_REPORT_XATTR) && !s->opt.dry_run &&
	       !(s->protocol >= 31 && !(s->compat_flags & CF_AVOID_XATTR_OPTIM) && (r->iflags & both) == both);
}

/* An entry's lists, or with f NULL its list's directory's (the index
 * just below a sub-list names that directory). */
static const struct xa_ref *entry_xa(const struct flist *fl, const struct fentry *f)
{
	return f ? (f->x ? &f->x->xa : NULL) : fl ? &fl->dir_xa : NULL;
}

static void echo_request(struct sess *s, const struct request *r, const struct flist *fl, const struct fentry *f)
{
	struct io *io = &s->io;
	char mpath[PR_RELPATH_MAX];
	const char *where = "";

	io_write_ndx(io, r->ndx);
	if (s->protocol < 29)
		return;
	io_write_shortint(io, r->iflags);
	if (r->has_type)
		io_write_byte(io, r->fnamecmp_type);
	if (r->has_xname) {
		unsigned char h[2];
		io_write(io, h, wire_put_vstring_hdr(h, r->xname_len));
		io_write(io, r->xname, r->xname_len);
	}
	if (!xattr_request(s, r))
		return;
	if (f && fl && flist_module_path(fl, f, mpath, sizeof(mpath)) == 0)
		where = mpath;
	else if (!f && fl && fl->dir_mpath)
		where = fl->dir_mpath;
	xa_send_request(s, entry_xa(fl, f), where);
}

static void write_head(struct io *io, const struct sum_head *h)
{
	io_write_int32(io, h->count);
	io_write_int32(io, h->blength);
	io_write_int32(io, h->s2length);
	io_write_int32(io, h->remainder);
}

/* Read and check a sum head, then the sums it announces. */
static void read_sums(struct sess *s, struct sumset *ss, struct sum_head *head, int no_sums)
{
	struct io *io = &s->io;
	struct sum_head h;
	const char *why;

	h.count = io_read_int32(io);
	h.blength = io_read_int32(io);
	h.s2length = io_read_int32(io);
	h.remainder = io_read_int32(io);
	if (sums_check_head(&h, s->protocol, csum_len(s->xfer.type), &why) < 0)
		io_fatal(io, RERR_PROTOCOL, "Invalid checksum header from client: %s "
			 "(count=%d blength=%d s2length=%d remainder=%d) [sender]",
			 why, h.count, h.blength, h.s2length, h.remainder);
	*head = h;
	if (no_sums) {
		/* --append: the head describes the client's file, no sums follow;
		 * matching then sees no blocks and sends the tail as literal data */
		struct sum_head empty = h;
		empty.count = 0;
		empty.remainder = 0;
		if (sums_alloc(ss, &empty) < 0)
			io_fatal(io, RERR_MALLOC, "out of memory [sender]");
		return;
	}
	if (sums_alloc(ss, &h) < 0)
		io_fatal(io, RERR_MALLOC, "out of memory for %d block sums [sender]", h.count);
	for (int32_t i = 0; i < h.count; i++) {
		ss->sum1[i] = (uint32_t)io_read_int32(io);
		io_read(io, ss->sum2 + (size_t)i * (size_t)h.s2length, (size_t)h.s2length);
	}
}

/* Report a file we could not open; the request is not echoed. */
static void open_failed(struct sess *s, int32_t ndx, const char *mpath, int err, int *io_error)
{
	if (err == ENOENT) {
		io_msg(&s->io, s->protocol == 27 ? MSG_ERROR_XFER : MSG_WARNING,
		       "file has vanished: \"/%s\" (in %s)", mpath, s->hs.module);
		*io_error |= IOERR_VANISHED;
	} else {
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] send_files failed to open \"/%s\" (in %s): %s (%d)",
		       mpath, s->hs.module, strerror(err), err);
		*io_error |= IOERR_GENERAL;
	}
	if (s->protocol >= 30)
		io_send_int_msg(&s->io, MSG_NO_SEND, ndx);
}

static void send_file(struct sess *s, struct flist *fl, struct fentry *f, const struct request *r,
		      int phase, int *io_error, int64_t *literal_total, int64_t *matched_total)
{
	struct sumset ss;
	struct sum_head head;
	struct fmap map;
	struct csum_file cf;
	struct match_stats ms = { 0 };
	unsigned char digest[CSUM_MAX_LEN];
	char mpath[PR_RELPATH_MAX];
	struct oa_file of;
	int err, redo, append;
	int64_t start = 0;
	struct match_opts mo = { .inplace = 0 };
	struct token_sink sink = { &s->io, tok_literal, tok_block, tok_end };
	uint64_t data_start;

	if (f == NULL || !S_ISREG(f->st.mode))
		io_fatal(&s->io, RERR_PROTOCOL, "transfer request for a non-regular file (index %d) [sender]", r->ndx);
	redo = f->st.sent;
	append = s->opt.append && !redo;
	if (phase >= 2)
		io_fatal(&s->io, RERR_PROTOCOL, "got transfer request in phase 2 [sender]");
	memset(&ss, 0, sizeof(ss));
	read_sums(s, &ss, &head, append);
	if (flist_module_path(fl, f, mpath, sizeof(mpath)) < 0) {
		sums_free(&ss);
		open_failed(s, r->ndx, f->name, ENAMETOOLONG, io_error);
		return;
	}
	err = oa_open(fl, (size_t)(f - fl->e), mpath, !redo && phase == 0, &of);
	if (err) {
		sums_free(&ss);
		open_failed(s, r->ndx, mpath, err, io_error);
		return;
	}
	const struct pr_stat st = of.st;
	if (append) {
		int64_t have = (int64_t)head.count * head.blength;
		if (head.remainder)
			have -= head.blength - head.remainder;
		if ((int64_t)st.size < (int64_t)f->st.size) {
			io_msg(&s->io, MSG_WARNING, "skipped diminished file: %s", mpath);
			if (s->protocol >= 30)
				io_send_int_msg(&s->io, MSG_NO_SEND, r->ndx);
			oa_close(&of);
			sums_free(&ss);
			return;
		}
		start = have < (int64_t)st.size ? have : (int64_t)st.size;
	}
	/* The in-place rule applies when the receiver rewrites its own file
	 * (--append implies --inplace on the client, which does not send it). */
	mo.inplace = (s->opt.inplace || s->opt.append) && (s->protocol < 29 || !r->has_type || r->fnamecmp_type == FNAMECMP_FNAME);
	if (s->opt.inplace && (s->compat_flags & CF_INPLACE_PARTIAL_DIR) && r->has_type && r->fnamecmp_type == 0x81)
		mo.inplace = 1;

	data_start = s->io.data_out;
	echo_request(s, r, fl, f);
	write_head(&s->io, &head);
	/* Large reads: a window serves many offsets of the search, and a cold
	 * file goes out in few system calls (fmap_open caps it at the size). */
	if (fmap_open(&map, of.fd, (int64_t)st.size, (size_t)(head.blength > 0 ? head.blength : 1) + FMAP_SLACK) < 0 ||
	    csum_file_init(&cf, &s->xfer, 1) < 0)
		io_fatal(&s->io, RERR_MALLOC, "out of memory [sender]");
	/* append-verify (and any append before protocol 30) sums the whole file */
	if (append && start > 0 && (s->opt.append > 1 || s->protocol < 30)) {
		for (int64_t off = 0; off < start;) {
			size_t n = start - off > 65536 ? 65536 : (size_t)(start - off);
			csum_file_update(&cf, fmap_ptr(&map, off, n), n);
			off += (int64_t)n;
		}
	}
	if (compress_sink(s, &sink, f->name) < 0 ||
	    match_file(&map, start, &ss, &s->xfer, &mo, &sink, &cf, &ms) < 0)
		io_fatal(&s->io, RERR_STREAMIO, "token stream failed: %s [sender]", compress_error(s));
	if (ms.strong_bytes > 0)
		mon_log(PR_LOG_DEBUG, "match work: %lld bytes of strong sums (%lld failed) for %lld bytes, %d blocks of %d",
			(long long)ms.strong_bytes, (long long)ms.missed_bytes, (long long)f->st.size,
			(int)ss.h.count, (int)ss.h.blength);
	csum_file_final(&cf, digest);
	if (map.read_error) {
		/* A deliberately wrong sum makes the receiver discard and redo. */
		int all_zero = 1;
		for (int i = 0; i < csum_len(s->xfer.type); i++)
			all_zero &= digest[i] == 0;
		memset(digest, 0, sizeof(digest));
		if (all_zero)
			digest[csum_len(s->xfer.type) - 1] = 1;
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] read errors mapping \"/%s\" (in %s): %s (%d)",
		       mpath, s->hs.module, strerror(map.read_error), map.read_error);
		*io_error |= IOERR_GENERAL;
	}
	io_write(&s->io, digest, (size_t)csum_len(s->xfer.type));
	/* rsyncd logs a file once its data is out: %b is what was written
	 * for it, %c the sum head and block sums read */
	if (xferrec_wanted(s, r->iflags, 0))
		xferrec_send(s, fl, f, r->iflags, NULL, s->io.data_out - data_start,
			     16 + (append ? 0 : (uint64_t)head.count * (4u + (uint32_t)head.s2length)),
			     map.read_error ? NULL : digest);
	fmap_close(&map);
	oa_close(&of);
	sums_free(&ss);
	f->st.sent = 1;
	*literal_total += ms.literal_bytes;
	*matched_total += ms.matched_bytes;
}

/* ---- the loop ------------------------------------------------------------ */

/* NDX_DEL_STATS (protocol >= 31): five counts, echoed at once. */
static void del_stats(struct sess *s)
{
	int32_t v[5];

	for (int i = 0; i < 5; i++) {
		v[i] = io_read_varint(&s->io);
		if (v[i] < 0)
			io_fatal(&s->io, RERR_PROTOCOL, "invalid delete statistics [sender]");
	}
	io_write_ndx(&s->io, NDX_DEL_STATS);
	for (int i = 0; i < 5; i++)
		io_write_varint(&s->io, v[i]);
}

/* Read the next index, handling the records that are not requests. */
static int32_t next_ndx(struct sess *s)
{
	for (int guard = 0; guard < 1000000; guard++) {
		int32_t ndx = io_read_ndx(&s->io);

		if (ndx == NDX_DEL_STATS && s->protocol >= 31) {
			del_stats(s);
			continue;
		}
		return ndx;
	}
	io_fatal(&s->io, RERR_PROTOCOL, "too many statistics records [sender]");
}

static void read_request(struct sess *s, struct request *r, int32_t ndx, const struct flist *fl,
			 const struct fentry *f)
{
	struct io *io = &s->io;

	memset(r, 0, sizeof(*r));
	r->ndx = ndx;
	r->iflags = s->protocol >= 29 ? io_read_shortint(io) : ITEM_TRANSFER;
	if (r->iflags & ITEM_BASIS_TYPE_FOLLOWS) {
		r->fnamecmp_type = io_read_byte(io);
		r->has_type = 1;
	}
	if (r->iflags & ITEM_XNAME_FOLLOWS) {
		r->xname_len = io_read_vstring(io, r->xname, sizeof(r->xname));
		r->has_xname = 1;
	}
	if (xattr_request(s, r))
		xa_recv_request(s, entry_xa(fl, f), f ? f->name : fl && fl->dir_mpath ? fl->dir_mpath : "?");
}

static void send_stats(struct sess *s)
{
	struct io *io = &s->io;
	int64_t rd = (int64_t)io_stat_read(io), wr = (int64_t)io_stat_written(io);

	io_write_varlong30(io, rd, 3);
	io_write_varlong30(io, wr, 3);
	io_write_varlong30(io, s->total_size, 3);
	if (s->protocol >= 29) {
		io_write_varlong30(io, s->flist_buildtime_ms, 3);
		io_write_varlong30(io, s->flist_xfertime_ms, 3);
	}
	mon_log(PR_LOG_INFO, "sent %lld bytes  received %lld bytes  total size %lld",
		(long long)wr, (long long)rd, (long long)s->total_size);
	if (filt_checks() > 0)
		mon_log(PR_LOG_DEBUG, "filter work: %llu rule checks, %llu matcher steps",
			(unsigned long long)filt_checks(), (unsigned long long)pr_wild_work());
}

/* The goodbye (spec part 1, 8.3). */
static void goodbye(struct sess *s)
{
	struct io *io = &s->io;
	int32_t ndx;

	if (s->protocol < 29) {
		if (io_read_int32(io) != -1)
			io_fatal(io, RERR_PROTOCOL, "Invalid packet at end of run [sender]");
		return;
	}
	ndx = next_ndx(s);
	if (ndx != NDX_DONE)
		io_fatal(io, RERR_PROTOCOL, "Invalid packet at end of run (%d) [sender]", ndx);
	if (s->protocol >= 31) {
		io_write_ndx(io, NDX_DONE);
		io_flush(io);
		ndx = next_ndx(s);
		if (ndx != NDX_DONE)
			io_fatal(io, RERR_PROTOCOL, "Invalid packet at end of run (%d) [sender]", ndx);
	}
}

static int exit_code(int io_error)
{
	if (io_error & IOERR_GENERAL)
		return RERR_PARTIAL;
	if (io_error & IOERR_VANISHED)
		return RERR_VANISHED;
	return RERR_OK;
}

/* An index outside every list the client holds. */
__attribute__((noreturn)) static void bad_index(struct sess *s, struct flset *set, int32_t ndx)
{
	int32_t lo = 0, hi = -1;

	if (set->nheld > 0) {
		const struct flist *last = set->held[set->nheld - 1];
		lo = set->held[0]->ndx_start - (s->inc_recurse ? 1 : 0);
		hi = last->ndx_start + (int32_t)last->n - 1;
	}
	io_fatal(&s->io, RERR_PROTOCOL, "File-list index %d not in %d - %d (read_ndx_and_attrs) [sender]",
		 ndx, lo, hi);
}

void sender_run(struct sess *s)
{
	struct flset *set = flset_new(s);
	struct request *r = malloc(sizeof(*r));
	int phase = 0, max_phase = s->protocol >= 29 ? 2 : 1;
	int loop_io_error = 0;
	int64_t literal = 0, matched = 0;
	size_t n;

	if (r == NULL)
		mon_exit(RERR_MALLOC);
	mon_log(PR_LOG_INFO, "building file list"); /* rsyncd logs it, whatever the verbosity */
	n = flset_send_first(set);
	if (n == 0 && set->npending == 0) {
		/* Stock ends right after an empty list, whatever the client
		 * sends meanwhile: no phases, no stats exchanged, its totals
		 * line in the log, and exit 0 unless a name failed (its
		 * got_xfer_error) or an I/O error was reported. */
		io_flush(&s->io);
		mon_log(PR_LOG_INFO, "sent %lld bytes  received %lld bytes  total size %lld",
			(long long)io_stat_written(&s->io), (long long)io_stat_read(&s->io), (long long)s->total_size);
		mon_exit(s->io.xfer_errors ? RERR_PARTIAL : exit_code(s->io_error));
	}
	if (s->inc_recurse) {
		s->io.idle = flset_idle;
		s->io.idle_ctx = set;
	}
	for (;;) {
		struct flist *fl = NULL;
		struct fentry *f;
		int32_t ndx;
		int placeholder = 0;

		/* Keep lists flowing ahead of the client (stock: ~1000 entries). */
		flset_fill(set, 1000);
		ndx = next_ndx(s);
		if (ndx == NDX_DONE) {
			oa_drop(); /* nothing opened ahead outlives its list or phase */
			if (s->inc_recurse && set->nheld > 0) {
				/* Each D retires the oldest list; the one that
				 * retires the last list ends phase 0. */
				flset_retire(set);
				if (set->nheld > 0) {
					io_write_ndx(&s->io, NDX_DONE);
					continue;
				}
				if (!set->eof_sent)
					io_fatal(&s->io, RERR_PROTOCOL, "all file lists retired before the last was sent [sender]");
				s->io.idle = NULL;
			}
			if (++phase > max_phase)
				break;
			io_write_ndx(&s->io, NDX_DONE);
			continue;
		}
		f = ndx >= 0 ? flset_find(set, ndx, &fl, &placeholder) : NULL;
		if (f == NULL && !placeholder) {
			/* The protocol-29 keepalive names one past the end. */
			if (s->protocol == 29 && (size_t)ndx == n) {
				read_request(s, r, ndx, NULL, NULL);
				if (r->iflags == ITEM_IS_NEW)
					continue;
			}
			bad_index(s, set, ndx);
		}
		read_request(s, r, ndx, fl, f);
		/* A dry run's transfer requests carry no sums: only the echo. */
		if (!(r->iflags & ITEM_TRANSFER) || s->opt.dry_run) {
			if (s->protocol >= 29 || s->opt.dry_run)
				echo_request(s, r, fl, f);
			if (xferrec_wanted(s, r->iflags, r->has_xname && r->xname_len > 0)) {
				const struct fentry *lf = f ? f : flset_list_dir(fl);

				if (lf != NULL)
					xferrec_send(s, fl, lf, r->iflags, r->has_xname ? r->xname : NULL, 0, 0, NULL);
			}
			continue;
		}
		send_file(s, fl, f, r, phase, &loop_io_error, &literal, &matched);
	}
	if (loop_io_error && s->protocol >= 30)
		io_send_int_msg(&s->io, MSG_IO_ERROR, loop_io_error);
	s->io_error |= loop_io_error;
	io_write_ndx(&s->io, NDX_DONE);
	send_stats(s);
	io_flush(&s->io);
	goodbye(s);
	io_flush(&s->io);
	mon_log(PR_LOG_DEBUG, "literal data %lld bytes, matched data %lld bytes",
		(long long)literal, (long long)matched);
	flset_free(set);
	free(r);
	mon_exit(exit_code(s->io_error | s->io.client_io_error));
}
