/* SPDX-License-Identifier: ISC */
/*
 * Choosing a compressor: names, the negotiation pick, levels, and which
 * files count as already compressed (spec part 1 5.2/5.3, part 2 11.7).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <zstd.h>

#include "compress.h"

/* The receiver never learns the level; above 19 zstd wants hundreds of
 * MiB per session for little gain, so a daemon stops there. */
#define ZSTD_LEVEL_CAP 19
#define ZLIB_DEFAULT_LEVEL 6

/* The default "dont compress" list (suffixes; spec part 2, 11.7). */
static const char default_suffixes[] =
	"3g2 3gp 7z aac ace apk avi bz2 deb dmg ear f4v flac flv gpg gz iso jar jpeg jpg lrz lz "
	"lz4 lzma lzo m1a m1v m2a m2ts m2v m4a m4b m4p m4r m4v mka mkv mov mp1 mp2 mp3 mp4 mpa "
	"mpeg mpg mpv mts odb odf odg odi odm odp ods odt oga ogg ogm ogv ogx opus otg oth otp ots "
	"ott oxt png qt rar rpm rz rzip spx squashfs sxc sxd sxg sxm sxw sz tbz tbz2 tgz tlz ts txz "
	"tzo vob war webm webp xz z zip zst";

static const char *const names[] = {
	[CPRES_NONE] = "none", [CPRES_ZLIB] = "zlib", [CPRES_ZLIBX] = "zlibx",
	[CPRES_LZ4] = "lz4", [CPRES_ZSTD] = "zstd",
};

int cpres_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

const char *cpres_name(enum cpres t)
{
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

int cpres_level(enum cpres *type, int given, int level)
{
	switch (*type) {
	case CPRES_ZLIB:
	case CPRES_ZLIBX:
		if (!given || level == -1)
			return ZLIB_DEFAULT_LEVEL;
		if (level == 0) {
			/* stock turns compression off on both sides */
			*type = CPRES_NONE;
			return 0;
		}
		return level < 1 ? 1 : level > 9 ? 9 : level;
	case CPRES_ZSTD: {
		int lo = ZSTD_minCLevel(), hi = ZSTD_maxCLevel();

		if (hi > ZSTD_LEVEL_CAP)
			hi = ZSTD_LEVEL_CAP;
		if (!given || level == 0)
			return ZSTD_CLEVEL_DEFAULT;
		return level < lo ? lo : level > hi ? hi : level;
	}
	default:
		return 0;
	}
}

int cpres_pick(const char *client_list)
{
	char buf[256];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", client_list);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		int c = cpres_from_name(t);
		if (c >= 0)
			return c;
	}
	return -1;
}

/* Is `ext` (no dot) one of the space-separated default suffixes? */
static int default_suffix(const char *ext)
{
	size_t n = strlen(ext);

	for (const char *p = default_suffixes; *p;) {
		const char *q = strchr(p, ' ');
		size_t k = q ? (size_t)(q - p) : strlen(p);

		if (k == n && strncasecmp(p, ext, n) == 0)
			return 1;
		p += k + (q ? 1 : 0);
	}
	return 0;
}

/* Walk a list of words separated by `sep`; true if `match(word)` for one. */
static int any_word(const char *list, char sep, const char *name, int suffix)
{
	char word[256];

	for (const char *p = list; *p;) {
		const char *q = strchr(p, sep);
		size_t k = q ? (size_t)(q - p) : strlen(p);

		if (k > 0 && k < sizeof(word) - 3) {
			if (suffix) /* "gz" means "*.gz" */
				snprintf(word, sizeof(word), "*.%.*s", (int)k, p);
			else
				snprintf(word, sizeof(word), "%.*s", (int)k, p);
			if (fnmatch(word, name, FNM_CASEFOLD) == 0)
				return 1;
		}
		p += k + (q ? 1 : 0);
	}
	return 0;
}

int cpres_dont_compress(const char *patterns, const char *skip, const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	if (skip && *skip && any_word(skip, '/', base, 1))
		return 1;
	if (patterns && *patterns)
		return any_word(patterns, ' ', base, 0);
	const char *dot = strrchr(base, '.');
	return dot && dot != base && dot[1] && default_suffix(dot + 1);
}
