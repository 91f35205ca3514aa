/* SPDX-License-Identifier: ISC */
/*
 * From "@RSYNCD: OK" to the first multiplexed byte: the argument list,
 * option checks, compat flags, checksum negotiation and the seed (spec
 * part 1, sections 4 and 5).  Refusals follow stock's wire behaviour so
 * clients print the same messages and exit codes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "compress_sess.h"
#include "mon.h"
#include "filesfrom.h"
#include "filters.h"
#include "sess.h"
#include "xferrec.h"

#define ARGS_MAX 16000
#define ARG_LEN_MAX 5120
/* rsyncd's bound on a client's list: its argv of 16000 holds its own
 * "rsyncd" first (not before a secluded list) and ends the session
 * ("too many daemon arguments", code 2) at the record that would fill the
 * last place but one: 15998 records, 15999 in a secluded list.  (It also
 * counts the names a wildcard in a path expands to; prsyncd counts the
 * records.) */
#define ARGS_DAEMON_MAX (ARGS_MAX - 2)
#define ARGS_SECLUDED_MAX (ARGS_MAX - 1)

/* Our checksum list in stock's preference order; the client chooses. */
static const char our_checksums[] = "xxh128 xxh3 xxh64 md5 md4 sha1 none";

/* Grown as records arrive (a fixed array of ARGS_MAX pointers was 125 KiB
 * zeroed, and faulted in, at every session's start for a dozen records). */
struct arglist {
	char **v;
	size_t n, cap;
};

static void args_free(struct arglist *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* Append p (owned from now on); the caller has checked n < ARGS_MAX. */
static void args_push(struct arglist *a, char *p)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		char **v;

		if (cap > ARGS_MAX)
			cap = ARGS_MAX;
		if ((v = realloc(a->v, cap * sizeof(*v))) == NULL) {
			free(p);
			mon_exit(RERR_MALLOC);
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = p;
}

/*
 * Read records until an empty one.  `nul` selects NUL framing (protocol
 * >= 30 and secluded lists); otherwise '\n' (or '\r') ends a record.
 * Bounded in count and length; an over-long record ends the session.
 */
static void read_args(struct sess *s, struct arglist *a, int nul, size_t limit)
{
	static char rec[ARG_LEN_MAX + 1];

	for (;;) {
		size_t len = 0;

		for (;;) {
			unsigned char ch;
			int r = conn_read_exact(s->c, &ch, 1);

			if (r == CONN_TIMEOUT) {
				mon_log(PR_LOG_WARNING, "daemon handshake timeout (%u s) in the argument list -- "
					"exiting (code %d)", s->hs.args_timeout, RERR_TIMEOUT);
				mon_exit(RERR_TIMEOUT);
			}
			if (r != CONN_OK) {
				mon_log(PR_LOG_WARNING, "reading arguments: %s", conn_strerror(r));
				mon_exit(RERR_STREAMIO);
			}
			if (nul ? ch == '\0' : (ch == '\n' || ch == '\r'))
				break;
			if (ch == '\0' || len >= ARG_LEN_MAX) {
				mon_log(PR_LOG_WARNING, "argument record too long or with NUL");
				mon_exit(RERR_PROTOCOL);
			}
			rec[len++] = (char)ch;
		}
		if (len == 0)
			return;
		if (a->n >= limit) {
			/* rsyncd's two lines: its message, then its exit's
			 * (which names its source line where we name the step) */
			mon_log(PR_LOG_WARNING, "too many daemon arguments");
			mon_log(PR_LOG_WARNING, "rsync error: %s (code %d) at read_args [Receiver=prsyncd-%s]",
				rerr_text(RERR_PROTOCOL), RERR_PROTOCOL, PRSYNCD_VERSION);
			mon_exit(RERR_PROTOCOL);
		}
		rec[len] = '\0';
		{
			char *copy = strdup(rec);

			if (copy == NULL)
				mon_exit(RERR_MALLOC);
			args_push(a, copy);
		}
	}
}

/* The short-option cluster among the first records (not a path). */
static const char *find_cluster(const struct arglist *a, size_t *at)
{
	for (size_t i = 0; i < a->n && strcmp(a->v[i], ".") != 0; i++) {
		const char *r = a->v[i];
		if (r[0] == '-' && r[1] != '-' && r[1] != '\0') {
			*at = i;
			return r;
		}
	}
	return NULL;
}

/* Letters before the first argument-taking letter; 'e' starts the caps. */
static int cluster_has(const char *cl, char want, const char **caps)
{
	int found = 0;

	if (caps)
		*caps = NULL;
	for (const char *p = cl + 1; *p; p++) {
		if (*p == 'e') {
			if (caps)
				*caps = p + 1;
			break;
		}
		if (strchr("BTfM@", *p))
			break;
		if (*p == want)
			found = 1;
	}
	return found;
}

/* Compat flags from the capability letters (what the client can take). */
static int compat_from_caps(const char *caps)
{
	int f = CF_SYMLINK_TIMES;

	if (caps == NULL)
		return f;
	for (const char *p = caps; *p; p++) {
		switch (*p) {
		case 'f': f |= CF_SAFE_FLIST; break;
		case 'x': f |= CF_AVOID_XATTR_OPTIM; break;
		case 'C': f |= CF_CHKSUM_SEED_FIX; break;
		case 'I': f |= CF_INPLACE_PARTIAL_DIR; break;
		case 'v': f |= CF_VARINT_FLIST_FLAGS; break;
		case 'u': f |= CF_ID0_NAMES; break;
		case 's': f |= CF_SYMLINK_ICONV; break; /* as rsyncd, built with iconv */
		default: break; /* 'i' is decided after the options; L: nothing for a sender */
		}
	}
	return f;
}

static int32_t choose_seed(const struct options *o)
{
	int32_t seed = 0;

	if (o->checksum_seed)
		return o->checksum_seed;
	while (seed == 0) {
		if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
			seed = 0x5eed;
		seed &= 0x7fffffff; /* stock seeds are positive; some clients may assume it */
	}
	return seed;
}

static void write_compat(struct sess *s, int flags)
{
	if (s->protocol < 30)
		return;
	if (s->opt.cap_varint_prerelease && !s->opt.cap_varint_flist) {
		unsigned char b = (unsigned char)flags;
		io_write_raw(&s->io, &b, 1);
		return;
	}
	unsigned char v[WIRE_VARINT_MAX];
	io_write_raw(&s->io, v, wire_put_varint(v, flags));
}

static void write_seed(struct sess *s, int32_t seed)
{
	unsigned char b[4];

	wire_put_int32(b, seed);
	io_write_raw(&s->io, b, 4);
}

#define REFUSE_DRAIN_MS 5000          /* what a refused client may still send ... */
#define REFUSE_DRAIN_BYTES (1u << 20)  /* ... bounded in time and bytes */

/*
 * Refuse after the arguments.  The bytes are stock's (a setup the client
 * can follow without negotiation, multiplexing, the error message with its
 * newline), so clients print exactly what they print for rsyncd.  rsyncd
 * then exits with the client's filter list unread, so its clients see
 * "Connection reset by peer" and exit 10.  We end it cleanly instead: the
 * exit code rsyncd itself ends with (RERR_UNSUPPORTED) in MSG_ERROR_EXIT,
 * which every stock client of protocols 27-32 takes as its own exit code,
 * then we read what the client still sends (its filter list, its
 * acknowledgement) until it hangs up, so the close carries no reset.
 */
/* rsyncd logs the request ("rsync on MODULE/PATH from ...") before it
 * judges the options, from the arguments after "." as the client sent
 * them: a refused session's log has it too. */
static void log_request(struct sess *s, const struct arglist *a)
{
	size_t dot = 0;

	while (dot < a->n && strcmp(a->v[dot], ".") != 0)
		dot++;
	xferrec_start_paths(s, dot < a->n ? a->v + dot + 1 : NULL, dot < a->n ? a->n - dot - 1 : 0);
}

/* The lines rsyncd's log has after a refusal (io_msg() logged the text):
 * its totals (what it sent up to the error's text: our MSG_ERROR_EXIT,
 * which rsyncd does not send, is left out), then its exit code (rsyncd
 * names its source line; we, the step). */
static void log_refused(struct sess *s, long long sent)
{
	mon_log(PR_LOG_INFO, "sent %lld bytes  received %lld bytes  total size 0", sent,
		(long long)io_stat_read(&s->io));
	mon_log(PR_LOG_ERR, "rsync error: %s (code %d) at refuse [sender=prsyncd-%s]", rerr_text(RERR_UNSUPPORTED),
		RERR_UNSUPPORTED, PRSYNCD_VERSION);
}

__attribute__((noreturn)) static void refuse(struct sess *s, int flags, const char *text)
{
	unsigned char sink[4096];
	size_t drained = 0;
	long long sent;

	write_compat(s, flags & ~(CF_VARINT_FLIST_FLAGS | CF_INC_RECURSE));
	write_seed(s, choose_seed(&s->opt));
	io_start_mux(&s->io);
	io_msg(&s->io, MSG_ERROR, "%s", text);
	sent = (long long)io_stat_written(&s->io);
	io_send_int_msg(&s->io, MSG_ERROR_EXIT, RERR_UNSUPPORTED);
	io_flush(&s->io);
	log_refused(s, sent);
	(void)shutdown(s->c->fd, SHUT_WR);
	s->c->deadline_ms = conn_now_ms() + REFUSE_DRAIN_MS;
	while (drained < REFUSE_DRAIN_BYTES) {
		size_t n = conn_buffered(s->c);

		n = n == 0 ? 1 : n < sizeof(sink) ? n : sizeof(sink);
		if (conn_read_exact(s->c, sink, n) != CONN_OK)
			break;
		drained += n;
	}
	mon_exit(RERR_UNSUPPORTED);
}

/*
 * rsync 3.5.0 refuses --insecure-links apart from "refuse options": it
 * sends the same text and closes while the client is still sending, so the
 * client ends with a connection error (exit 10).  The same, bounded.
 */
__attribute__((noreturn)) static void refuse_abrupt(struct sess *s, int flags, const char *text)
{
	struct pollfd p = { .fd = s->c->fd, .events = POLLIN };

	write_compat(s, flags & ~(CF_VARINT_FLIST_FLAGS | CF_INC_RECURSE));
	write_seed(s, choose_seed(&s->opt));
	io_start_mux(&s->io);
	io_msg(&s->io, MSG_ERROR, "%s", text);
	io_flush(&s->io);
	log_refused(s, (long long)io_stat_written(&s->io));
	(void)poll(&p, 1, 1000);
	(void)poll(NULL, 0, 300); /* let the client read the message first */
	mon_exit(RERR_UNSUPPORTED);
}

/* Pick the first name in the client's list that we implement. */
static int pick_checksum(const char *client_list)
{
	char buf[256];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", client_list);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		int c = csum_from_name(t);
		if (c >= 0 && strstr(our_checksums, csum_name((enum csum_type)c)) != NULL)
			return c;
	}
	return -1;
}

static void set_checksums(struct sess *s, int xfer, int flist, int by_name)
{
	s->xfer.type = (enum csum_type)xfer;
	s->flist.type = (enum csum_type)flist;
	/* md5's seed goes first with the seed-order fix, and always when the
	 * name was chosen (negotiated or --checksum-choice, at any protocol). */
	s->xfer.seed_first = by_name || (s->compat_flags & CF_CHKSUM_SEED_FIX) != 0;
	s->flist.seed_first = s->xfer.seed_first;
}

/* --checksum-choice=A[,B]; returns -1 on an unknown name. */
static int checksum_choice(struct sess *s)
{
	char a[64], *b;
	int x, f;

	snprintf(a, sizeof(a), "%s", s->opt.checksum_choice);
	b = strchr(a, ',');
	if (b)
		*b++ = '\0';
	x = csum_from_name(a);
	f = b ? csum_from_name(b) : x;
	if (x < 0 || f < 0)
		return -1;
	set_checksums(s, x, f, 1);
	return 0;
}

/* The module's settings that change what the options ask for. */
static void module_settings(struct sess *s)
{
	static struct chmod_rules rules;

	/* rsyncd cuts the client's verbosity to the module's maximum; this
	 * sender's messages do not depend on it (docs/configuration.md). */
	if (s->opt.verbose > s->hs.max_verbosity)
		s->opt.verbose = s->hs.max_verbosity;
	if (s->hs.ignore_errors)
		s->opt.ignore_errors = 1;
	/* Checked by the listener: a value that does not parse never comes. */
	if (s->hs.outgoing_chmod[0] && chmod_parse(&rules, s->hs.outgoing_chmod, s->hs.chmod_umask) == 0)
		s->chmod = &rules;
	s->iconv = s->opt.iconv && s->hs.charset[0];
}

#define SRC_MAX (4u << 20) /* path arguments and the names of a --files-from=FILE */

int sess_source_name(const char *base, const char *name, char *out, size_t cap)
{
	size_t blen = strlen(base);
	int n;

	while (blen > 0 && base[blen - 1] == '/')
		blen--; /* a trailing slash means "contents" only for a lone argument */
	n = snprintf(out, cap, "%.*s/./%s", (int)blen, base, name);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

void sess_add_path(struct sess *s, const char *base)
{
	char *p;

	if (s->nsrc >= SRC_MAX || (p = strdup(base)) == NULL)
		io_fatal(&s->io, RERR_MALLOC, "out of memory storing the source arguments [sender]");
	if (s->nsrc == s->src_cap) {
		size_t cap = s->src_cap ? s->src_cap * 2 : 16;
		char **v = realloc(s->src, cap * sizeof(*v));
		if (v == NULL)
			io_fatal(&s->io, RERR_MALLOC, "out of memory [sender]");
		s->src = v;
		s->src_cap = cap;
	}
	s->src[s->nsrc++] = p;
}

/* The rate the session runs at: the client's --bwlimit under the cap. */
static uint32_t bwlimit_of(int client, unsigned cap)
{
	uint32_t want = client > 0 ? (uint32_t)client : 0;

	return cap && (want == 0 || want > cap) ? cap : want;
}

void setup_session(struct sess *s)
{
	struct arglist *a = calloc(1, sizeof(*a));
	const char *cluster, *caps = NULL;
	char err[IO_MSG_TEXT_MAX], ferr[IO_MSG_TEXT_MAX];
	size_t at = 0;
	int flags, timeout, rc;

	if (a == NULL)
		mon_exit(RERR_MALLOC);
	io_init(&s->io, s->c, s->protocol);
	read_args(s, a, s->protocol >= 30, ARGS_DAEMON_MAX);
	cluster = find_cluster(a, &at);
	if (cluster && cluster_has(cluster, 's', &caps)) {
		/* Secluded args: the real options follow in a NUL-framed list
		 * whose first record is a program name.  A protocol < 30 client
		 * repeats everything in the first list; keep only up to the
		 * cluster. */
		struct arglist *b = calloc(1, sizeof(*b));
		if (b == NULL)
			mon_exit(RERR_MALLOC);
		for (size_t i = at + 1; i < a->n; i++)
			free(a->v[i]);
		a->n = at + 1;
		read_args(s, b, 1, ARGS_SECLUDED_MAX);
		for (size_t i = 1; i < b->n && a->n < ARGS_MAX; i++) {
			args_push(a, b->v[i]);
			b->v[i] = NULL;
		}
		args_free(b);
		free(b);
	} else if (cluster) {
		(void)cluster_has(cluster, 's', &caps);
	}
	flags = compat_from_caps(caps);
	s->compat_flags = flags;

	refuse_compile(&s->refuse, s->hs.refuse, s->hs.charset[0] != '\0', err, sizeof(err));
	if (err[0])
		mon_log(PR_LOG_INFO, "No match for refuse-options string \"%s\"", err);
	rc = options_parse_refusing(&s->opt, s->protocol, &s->refuse, a->v, a->n, err, sizeof(err));
	/* rsyncd adds the filter arguments as it parses them, reading the
	 * files they name, so those before a bad option count first (and a
	 * file it cannot read ends the session before anything is sent). */
	if (filters_from_args(s, ferr, sizeof(ferr)) < 0) {
		log_request(s, a);
		args_free(a);
		free(a);
		refuse(s, flags, ferr);
	}
	if (rc < 0) {
		log_request(s, a);
		args_free(a);
		free(a);
		if (s->opt.insecure_links)
			refuse_abrupt(s, flags, err);
		refuse(s, flags, err);
	}
	/* From here on every write is paced, as rsyncd paces from its
	 * option parsing on; the daemon's own --bwlimit is a cap the
	 * client may go below, never above, and applies unasked. */
	conn_set_bwlimit(s->c, bwlimit_of(s->opt.bwlimit, s->hs.bwlimit_cap));
	/* rsyncd logs the request before it judges the options */
	xferrec_start(s);
	args_free(a);
	free(a);

	/* (--remove-source-files gets rsyncd's error after the setup, below.)
	 * rsyncd fails a missing --files-from file as it fails an option it
	 * refuses outright: the client sees the text and a reset (exit 10). */
	if (files_from_open(s, err, sizeof(err)) < 0)
		refuse_abrupt(s, flags, err);
	s->links = (struct links_opts){ s->opt.copy_links, s->opt.copy_dirlinks, s->opt.copy_unsafe_links,
					(s->hs.module_flags & PR_MOD_MUNGE) != 0 };
	/* stock's own check, in the same words (its compat.c) */
	if (s->protocol < 30 && (s->opt.acls || s->opt.xattrs)) {
		snprintf(err, sizeof(err), "--%s requires protocol 30 or higher (negotiated %d).",
			 s->opt.acls ? "acls" : "xattrs", s->protocol);
		refuse_abrupt(s, flags, err);
	}
	if (s->opt.crtimes)
		refuse(s, flags, "rsync: The server is configured to refuse --crtimes (-N)");
	module_settings(s);
	if (!s->opt.files_from_socket && !s->opt.files_from_path[0]) {
		for (size_t i = 0; i < s->opt.npaths; i++)
			sess_add_path(s, s->opt.paths[i]);
	}
	/* Incremental recursion needs the client's 'i' and -r (and no --qsort). */
	if (s->protocol >= 30 && s->opt.cap_inc_recurse && s->opt.recursive && !s->opt.qsort)
		flags |= CF_INC_RECURSE;
	s->compat_flags = flags;
	s->inc_recurse = (flags & CF_INC_RECURSE) != 0;
	s->io.inc_recurse = s->inc_recurse;
	s->numeric_ids = s->opt.numeric_ids || s->hs.numeric_ids;
	s->varint_flags = s->protocol >= 30 && (flags & CF_VARINT_FLIST_FLAGS);
	if (compress_options(s, s->varint_flags && !s->opt.cap_varint_prerelease, err, sizeof(err)) < 0)
		refuse(s, flags, err);
	write_compat(s, flags);

	/* stock writes all its lists before reading the client's */
	if (!s->opt.checksum_choice[0] && s->varint_flags && !s->opt.cap_varint_prerelease)
		io_write_vstring(&s->io, our_checksums);
	compress_write_list(s);
	if (s->opt.checksum_choice[0]) {
		if (checksum_choice(s) < 0)
			refuse(s, flags, "rsync: unknown checksum name in --checksum-choice");
	} else if (s->varint_flags && !s->opt.cap_varint_prerelease) {
		char theirs[256];
		int pick;

		io_read_vstring(&s->io, theirs, sizeof(theirs));
		pick = pick_checksum(theirs);
		if (pick < 0) {
			mon_log(PR_LOG_WARNING, "no checksum in common with the client (%s)", theirs);
			mon_exit(RERR_UNSUPPORTED);
		}
		set_checksums(s, pick, pick, 1);
	} else if (s->protocol >= 30) {
		set_checksums(s, CSUM_MD5, CSUM_MD5, 0);
	} else {
		set_checksums(s, CSUM_MD4_OLD, CSUM_MD4_OLD, 0);
	}
	compress_read_list(s);
	s->xfer.seed = choose_seed(&s->opt);
	s->flist.seed = 0;
	write_seed(s, s->xfer.seed);

	io_start_mux(&s->io);
	/* The handshake bound ends here: from now on the client's silence is
	 * bounded by the smaller of its --timeout and the module's. */
	s->c->deadline_ms = 0;
	timeout = s->opt.timeout;
	if (s->hs.timeout > 0 && (timeout == 0 || (unsigned)timeout > s->hs.timeout))
		timeout = (int)s->hs.timeout;
	if (timeout > 0) {
		io_set_timeout(&s->io, timeout);
		if (s->protocol >= 31)
			io_send_int_msg(&s->io, MSG_IO_TIMEOUT, timeout);
	}
	mon_log(PR_LOG_DEBUG, "protocol %d, compat flags 0x%x, checksum %s, compress %s", s->protocol,
		flags, csum_name(s->xfer.type), cpres_name(s->cpres));

	/* Refused as rsyncd refuses them, after a full setup. */
	if (!s->opt.sender)
		io_fatal(&s->io, RERR_SYNTAX, "ERROR: module is read only"); /* a push */
	if (s->hs.write_only)
		io_fatal(&s->io, RERR_SYNTAX, "ERROR: module is write only");
	if (s->opt.remove_source_files)
		io_fatal(&s->io, RERR_SYNTAX, "ERROR: --remove-%s-files cannot be used with a read-only module",
			 s->opt.remove_source_files == 2 ? "sent" : "source");
}
