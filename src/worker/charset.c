/* SPDX-License-Identifier: ISC */
/* Module charsets (charset.h). */
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <string.h>

#include "charset.h"

struct pair {
	char name[256];
	iconv_t to_utf8, from_utf8; /* (iconv_t)-1: iconv does not know the name */
};

/* Filled once before the sandbox, then only read: one session per process. */
static struct pair pairs[CHARSET_MAX];
static size_t npairs;
static const struct pair *active;

void charset_preload(const char *names)
{
	char buf[1024], *word, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", names ? names : "");
	for (word = strtok_r(buf, " ", &save); word && npairs < CHARSET_MAX; word = strtok_r(NULL, " ", &save)) {
		struct pair *p = &pairs[npairs++];

		snprintf(p->name, sizeof(p->name), "%s", word);
		p->to_utf8 = iconv_open("UTF-8", word);
		p->from_utf8 = iconv_open(word, "UTF-8");
	}
}

int charset_select(const char *name)
{
	for (size_t i = 0; i < npairs; i++) {
		if (strcmp(pairs[i].name, name) != 0)
			continue;
		if (pairs[i].to_utf8 == (iconv_t)-1 || pairs[i].from_utf8 == (iconv_t)-1)
			return -1;
		active = &pairs[i];
		return 0;
	}
	return -1;
}

int charset_convert(int to, const char *in, size_t inlen, char *out, size_t cap, size_t *outlen)
{
	iconv_t cd;
	char *ip = (char *)in, *op = out;
	size_t il = inlen, ol;

	if (active == NULL || cap == 0) {
		errno = EINVAL;
		return -1;
	}
	cd = to ? active->to_utf8 : active->from_utf8;
	ol = cap - 1;
	(void)iconv(cd, NULL, NULL, NULL, NULL); /* each name from the initial state */
	if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1 || iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1)
		return -1;
	*op = '\0';
	*outlen = (size_t)(op - out);
	return 0;
}
