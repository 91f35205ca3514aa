/* SPDX-License-Identifier: ISC */
/*
 * The transfer log's per-file lines (xferfmt.h).  The escapes, as
 * rsyncd.conf(5) lists them and rsync 3.5.0 prints them:
 *
 *   %a address  %h host  %m module  %P module path  %u user  %p pid
 *   %t now "YYYY/MM/DD hh:mm:ss"    %o "send"
 *   %f name relative to the module (no trailing '/')
 *   %n name as the file list has it ('/' after a directory)
 *   %l length  %b bytes sent  %c checksum bytes received
 *   %C file checksum in hex, or blanks  %i itemized changes
 *   %B permission bits ("rwxr-xr-x")  %M mtime "YYYY/MM/DD-hh:mm:ss"
 *   %L " -> TARGET" or " => HARDLINK"  %U uid  %G gid or "DEFAULT"
 *
 * "%[-][WIDTH]X" pads (zeros for a WIDTH starting with 0, on %p %U %G),
 * apostrophes before or after the width make %l %b %c human-readable
 * (1: "1,234,567", 2: "1.23M", 3: "1.18M"), "%%" is '%', and any other
 * escape is kept as written.  Every piece is bounded by the output size.
 * %h %a %u %m %P %p are the monitor's values (PR_M_XFERLOG).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "xferfmt.h"

#define ITEM_REPORT_ATIME 0x0001
#define ITEM_REPORT_CHANGE 0x0002
#define ITEM_REPORT_SIZE 0x0004     /* symlinks: REPORT_TIMEFAIL */
#define ITEM_REPORT_TIME 0x0008
#define ITEM_REPORT_PERMS 0x0010
#define ITEM_REPORT_OWNER 0x0020
#define ITEM_REPORT_GROUP 0x0040
#define ITEM_REPORT_ACL 0x0080
#define ITEM_REPORT_XATTR 0x0100
#define ITEM_REPORT_CRTIME 0x0400
#define ITEM_BASIS_TYPE_FOLLOWS 0x0800
#define ITEM_XNAME_FOLLOWS 0x1000
#define ITEM_IS_NEW 0x2000
#define ITEM_LOCAL_CHANGE 0x4000
#define ITEM_TRANSFER 0x8000
#define WIDTH_MAX 4096

/* rsyncd's escaping of the names it logs: a control byte but tab as
 * "\#ooo", and a backslash that would read as such an escape as "\#134";
 * other bytes (UTF-8 names) as they are.  A name cannot start a line. */
void xferfmt_escape(char *out, size_t cap, const char *in)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < cap; p++) {
		if ((*p < 0x20 && *p != '\t') || (*p == '\\' && p[1] == '#' && p[2] >= '0' && p[2] <= '7' &&
						  p[3] >= '0' && p[3] <= '7' && p[4] >= '0' && p[4] <= '7'))
			o += (size_t)snprintf(out + o, cap - o, "\\#%03o", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
}

/* One escape as written: "%", flags, width, apostrophes, letter. */
struct spec {
	int left, zero, humanize;
	unsigned width;
	char letter;        /* '\0': the format ended inside the escape */
	size_t len;         /* bytes of fmt it took */
};

static struct spec parse_spec(const char *p)
{
	struct spec s = { 0 };
	const char *q = p + 1;

	while (*q == '\'')
		s.humanize++, q++;
	if (*q == '-')
		s.left = 1, q++;
	s.zero = *q == '0';
	for (; *q >= '0' && *q <= '9'; q++)
		s.width = s.width * 10 + (unsigned)(*q - '0') > WIDTH_MAX ? WIDTH_MAX : s.width * 10 + (unsigned)(*q - '0');
	while (*q == '\'')
		s.humanize++, q++;
	s.letter = *q;
	s.len = (size_t)(q - p) + (*q != '\0');
	return s;
}

/*
 * The format, cut once into text and escapes (rsyncd's reading of it,
 * escape by escape), so that a record only fills the escapes in.  A
 * format of n bytes has at most one piece per byte and one more.
 */
void xferfmt_init(struct xferfmt *x, const struct pr_m_xferlog *ctx)
{
	static const char known[] = "ahmPuofnLlbcpUGBiMtC%";
	const char *fmt = ctx->format.s, *p = fmt;
	size_t max = sizeof(x->item) / sizeof(x->item[0]);

	x->ctx = *ctx;
	x->uses_i = 0;
	x->nitems = 0;
	while (*p && x->nitems + 2 <= max) {
		const char *pct = strchr(p, '%');
		struct spec s;

		if (pct != p) {
			x->item[x->nitems++] = (struct xferfmt_item){ .off = (uint16_t)(p - fmt),
				.len = (uint16_t)(pct ? (size_t)(pct - p) : strlen(p)) };
			if (pct == NULL)
				break;
		}
		s = parse_spec(pct);
		p = pct + s.len;
		x->item[x->nitems++] = (struct xferfmt_item){ .off = (uint16_t)(pct - fmt), .len = (uint16_t)s.len,
			.letter = s.letter && strchr(known, s.letter) ? s.letter : '\0', .width = (uint16_t)s.width,
			.left = (uint8_t)s.left, .zero = (uint8_t)s.zero,
			.humanize = (uint8_t)(s.humanize > 3 ? 3 : s.humanize) };
		x->uses_i |= s.letter == 'i';
	}
}

/* The output buffer: appends are cut at its end.  n < cap always (cap is
 * a fixed non-zero array size at every caller), so a full buffer copies
 * nothing and rewrites its terminator in place. */
struct out {
	char *b;
	size_t cap, n;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (n > o->cap - 1 - o->n)
		n = o->cap - 1 - o->n;
	memcpy(o->b + o->n, s, n);
	o->n += n;
	o->b[o->n] = '\0';
}

static void pad(struct out *o, char c, size_t n)
{
	for (size_t i = 0; i < n && o->n + 1 < o->cap; i++)
		put(o, &c, 1);
}

/* Numbers as --human-readable shows them. */
static void human(char *buf, size_t cap, uint64_t v, int level)
{
	static const char units[] = "KMGTPEZY";
	char digits[32];
	size_t n, o = 0;

	if (level >= 2 && v >= (level == 2 ? 1000u : 1024u)) {
		double mult = level == 2 ? 1000.0 : 1024.0, d = (double)v / mult;
		int u = 0;

		while (d >= mult && units[u + 1])
			d /= mult, u++;
		snprintf(buf, cap, "%.2f%c", d, units[u]);
		return;
	}
	n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (size_t i = 0; i < n && o + 2 < cap; i++) {
		if (level == 1 && i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* "YXcstpoguax", the --itemize-changes string, from the client's bits. */
static void itemize(char c[12], uint32_t f, uint32_t mode, uint32_t flags)
{
	int link = S_ISLNK(mode), i;
	int notime = !(flags & XF_MTIMES) || (link && (!(flags & XF_LINK_TIMES) || (f & ITEM_REPORT_SIZE)));

	c[0] = f & ITEM_LOCAL_CHANGE ? (f & ITEM_XNAME_FOLLOWS ? 'h' : 'c') : !(f & ITEM_TRANSFER) ? '.' : '<';
	c[1] = link ? 'L' : S_ISDIR(mode) ? 'd' : S_ISREG(mode) ? 'f' : S_ISCHR(mode) || S_ISBLK(mode) ? 'D' : 'S';
	c[2] = f & ITEM_REPORT_CHANGE ? 'c' : '.';
	c[3] = !link && (f & ITEM_REPORT_SIZE) ? 's' : '.';
	c[4] = !(f & ITEM_REPORT_TIME) ? '.' : notime ? 'T' : 't';
	c[5] = f & ITEM_REPORT_PERMS ? 'p' : '.';
	c[6] = f & ITEM_REPORT_OWNER ? 'o' : '.';
	c[7] = f & ITEM_REPORT_GROUP ? 'g' : '.';
	c[8] = (f & ITEM_REPORT_ATIME) && (f & ITEM_REPORT_CRTIME) ? 'b' : f & ITEM_REPORT_ATIME ? 'u' :
	       f & ITEM_REPORT_CRTIME ? 'n' : '.';
	c[9] = f & ITEM_REPORT_ACL ? 'a' : '.';
	c[10] = f & ITEM_REPORT_XATTR ? 'x' : '.';
	c[11] = '\0';
	if (f & ITEM_IS_NEW || flags & XF_NO_ITEMS) {
		memset(c + 2, f & ITEM_IS_NEW ? '+' : '?', 9);
	} else if (c[0] == '.' || c[0] == 'h' || c[0] == 'c') {
		for (i = 2; c[i] == '.'; i++)
			;
		if (c[i] == '\0')
			memset(c + 2, ' ', 9);
	}
}

/* "rwxr-xr-x", with s/S and t/T for the special bits. */
static void perms(char p[10], uint32_t m)
{
	static const char rwx[] = "rwxrwxrwx";

	for (int i = 0; i < 9; i++)
		p[i] = m & (0400u >> i) ? rwx[i] : '-';
	if (m & S_ISUID)
		p[2] = p[2] == 'x' ? 's' : 'S';
	if (m & S_ISGID)
		p[5] = p[5] == 'x' ? 's' : 'S';
	if (m & S_ISVTX)
		p[8] = p[8] == 'x' ? 't' : 'T';
	p[9] = '\0';
}

/* "YYYY/MM/DD" then sep then "hh:mm:ss", local time. */
static void stamp(char *buf, size_t cap, time_t t, char sep)
{
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	snprintf(buf, cap, "%04d/%02d/%02d%c%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, sep,
		 tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void format(char *out, size_t cap, const struct xferfmt *x, const struct xferfmt_rec *r)
{
	const struct pr_m_xferlog *c = &x->ctx;
	struct out o = { out, cap, 0 };
	char buf[PR_RELPATH_MAX + 8];
	uint32_t sum_len = r->sum_len < XF_SUM_MAX ? r->sum_len : XF_SUM_MAX;

	out[0] = '\0';
	for (size_t i = 0; i < x->nitems; i++) {
		const struct xferfmt_item *s = &x->item[i];
		const char *v = buf;
		int numeric = 0;
		size_t n;

		buf[0] = '\0';
		switch (s->letter) {
		case 'a': v = c->addr.s; break;
		case 'h': v = c->host.s; break;
		case 'm': v = c->module.s; break;
		case 'P': v = c->path.s; break;
		case 'u': v = c->user.s; break;
		case 'o': v = "send"; break;
		case 'f': v = r->path; break;
		case 'n':
			snprintf(buf, sizeof(buf), "%s%s", r->name, S_ISDIR(r->mode) ? "/" : "");
			break;
		case 'L':
			snprintf(buf, sizeof(buf), "%s%s", r->link == XF_LINK_SYMLINK ? " -> " :
				 r->link == XF_LINK_HARD ? " => " : "", r->target);
			break;
		case 'l': human(buf, sizeof(buf), r->length, s->humanize); break;
		case 'b': human(buf, sizeof(buf), r->bytes, s->humanize); break;
		case 'c': human(buf, sizeof(buf), r->sum_bytes, s->humanize); break;
		case 'p':
			numeric = 1;
			snprintf(buf, sizeof(buf), "%u", c->pid);
			break;
		case 'U':
			numeric = 1;
			snprintf(buf, sizeof(buf), "%u", r->flags & XF_UID ? r->uid : 0);
			break;
		case 'G':
			numeric = (r->flags & XF_GID) != 0;
			if (numeric)
				snprintf(buf, sizeof(buf), "%u", r->gid);
			else
				v = "DEFAULT";
			break;
		case 'B': perms(buf, r->mode); break;
		case 'i': itemize(buf, r->iflags, r->mode, r->flags); break;
		case 'M': stamp(buf, sizeof(buf), (time_t)r->mtime, '-'); break;
		case 't': stamp(buf, sizeof(buf), time(NULL), ' '); break;
		case 'C':
			for (uint32_t k = 0; k < sum_len; k++)
				snprintf(buf + 2 * k, 3, "%02x", r->flags & XF_SUM ? r->sum[k] : 0);
			if (!(r->flags & XF_SUM))
				memset(buf, ' ', 2 * sum_len);
			break;
		case '%': v = "%"; break;
		default: /* text, an unknown escape, or the format's end: as written */
			put(&o, c->format.s + s->off, s->len);
			continue;
		}
		n = strlen(v);
		if (!s->left && s->width > n)
			pad(&o, numeric && s->zero ? '0' : ' ', s->width - n);
		put(&o, v, n);
		if (s->left && s->width > n)
			pad(&o, ' ', s->width - n);
	}
}

size_t xferfmt_line(char *out, size_t cap, const struct xferfmt *x, const struct xferfmt_rec *r)
{
	char line[8192];

	format(line, sizeof(line), x, r);
	xferfmt_escape(out, cap, line);
	return strlen(out);
}
