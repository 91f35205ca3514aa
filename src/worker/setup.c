/*
 * From "@RSYNCD: OK" to the first multiplexed byte: the argument list,
 * option checks, compat flags, checksum negotiation and the seed (spec
 * part 1, sections 4 and 5).  Refusals follow stock's wire behaviour so
 * clients print the same messages and exit codes.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "compress_sess.h"
#include "mon.h"
#include "sess.h"

#define ARGS_MAX 16000
#define ARG_LEN_MAX 5120

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
static void read_args(struct sess *s, struct arglist *a, int nul)
{
	static char rec[ARG_LEN_MAX + 1];

	for (;;) {
		size_t len = 0;

		for (;;) {
			unsigned char ch;
			int r = conn_read_exact(s->c, &ch, 1);

			if (r != CONN_OK) {
				mon_log(PR_LOG_WARNING, "reading arguments: %s", conn_strerror(r));
				mon_exit(r == CONN_TIMEOUT ? RERR_TIMEOUT : RERR_STREAMIO);
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
		if (a->n >= ARGS_MAX) {
			mon_log(PR_LOG_WARNING, "too many arguments");
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
		default: break; /* 'i' is decided after the options; L, s: nothing for a sender */
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

/*
 * The stock way to refuse after the arguments: do a setup the client can
 * follow (no negotiation), multiplex, one error message, close.  The
 * client prints it and exits with code 12.
 */
__attribute__((noreturn)) static void refuse(struct sess *s, int flags, const char *text)
{
	write_compat(s, flags & ~(CF_VARINT_FLIST_FLAGS | CF_INC_RECURSE));
	write_seed(s, choose_seed(&s->opt));
	io_start_mux(&s->io);
	/* one message, newline included, as stock sends it */
	io_msg(&s->io, MSG_ERROR, "%s", text);
	/* Like stock, close only once the client has sent more (its filter
	 * list): the close then resets the connection, and clients report
	 * exactly what they report for rsyncd (exit 10). Bounded wait. */
	struct pollfd p = { .fd = s->c->fd, .events = POLLIN };
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

#define SRC_MAX (4u << 20)

void sess_add_path(struct sess *s, const char *base, const char *name)
{
	size_t blen = strlen(base), need;
	char *p;

	while (name && blen > 0 && base[blen - 1] == '/')
		blen--; /* a trailing slash means "contents" only for a lone argument */
	need = blen + (name ? strlen(name) + 3 : 0) + 1;
	if (s->nsrc >= SRC_MAX || (p = malloc(need)) == NULL)
		io_fatal(&s->io, RERR_MALLOC, "too many source names [sender]");
	if (name)
		snprintf(p, need, "%.*s/./%s", (int)blen, base, name);
	else
		snprintf(p, need, "%s", base);
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

void setup_session(struct sess *s)
{
	struct arglist *a = calloc(1, sizeof(*a));
	const char *cluster, *caps = NULL;
	char err[IO_MSG_TEXT_MAX];
	size_t at = 0;
	int flags;

	if (a == NULL)
		mon_exit(RERR_MALLOC);
	io_init(&s->io, s->c, s->protocol);
	read_args(s, a, s->protocol >= 30);
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
		read_args(s, b, 1);
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

	if (options_parse(&s->opt, s->protocol, a->v, a->n, err, sizeof(err)) < 0) {
		args_free(a);
		free(a);
		refuse(s, flags, err);
	}
	args_free(a);
	free(a);

	if (s->opt.remove_source_files)
		refuse(s, flags, "ERROR: --remove-source-files cannot be used with a read-only module");

	if (s->opt.files_from_path[0])
		refuse(s, flags, "rsync: --files-from with a file on the server is not supported by this prsyncd yet");
	if (s->opt.copy_links || s->opt.copy_dirlinks || s->opt.copy_unsafe_links)
		refuse(s, flags, "rsync: --copy-links (-L), --copy-dirlinks (-k) and --copy-unsafe-links "
		       "are not supported by this prsyncd yet");
	if (s->opt.crtimes)
		refuse(s, flags, "rsync: --crtimes (-N) is not supported by this server");
	if (!s->opt.files_from_socket) {
		for (size_t i = 0; i < s->opt.npaths; i++)
			sess_add_path(s, s->opt.paths[i], NULL);
	}
	/* Incremental recursion needs the client's 'i' and -r (and no --qsort). */
	if (s->protocol >= 30 && s->opt.cap_inc_recurse && s->opt.recursive && !s->opt.qsort)
		flags |= CF_INC_RECURSE;
	s->compat_flags = flags;
	s->inc_recurse = (flags & CF_INC_RECURSE) != 0;
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
	if (s->opt.timeout > 0) {
		io_set_timeout(&s->io, s->opt.timeout);
		if (s->protocol >= 31)
			io_send_int_msg(&s->io, MSG_IO_TIMEOUT, s->opt.timeout);
	}
	mon_log(PR_LOG_DEBUG, "protocol %d, compat flags 0x%x, checksum %s, compress %s", s->protocol,
		flags, csum_name(s->xfer.type), cpres_name(s->cpres));

	if (!s->opt.sender) {
		/* A push.  Read-only modules refuse after a full setup. */
		io_fatal(&s->io, RERR_SYNTAX, "ERROR: module is read only");
	}
}
