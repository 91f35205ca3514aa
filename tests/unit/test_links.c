/* SPDX-License-Identifier: ISC */
/*
 * rsync 3.5.0's unsafe-link test (src/worker/links.c), on the cases a
 * chrooted 3.5.0 daemon was seen to treat so with --copy-unsafe-links
 * (tests/integration/t_links.sh pulls the same tree), and its edges.
 */
#include <string.h>

#include "links.h"
#include "unit.h"

struct ucase { const char *target, *where; int unsafe; };

static const struct ucase cases[] = {
	/* seen on the daemon */
	{ "../file", "pub/upfile", 0 },             /* mod/ */
	{ "../file", "upfile", 1 },                 /* mod/pub/ */
	{ "../../outside/secret", "pub/escape2", 1 },
	{ "../../outside/secret", "/pub/escape2", 0 }, /* -R mod/pub/: a leading '/' */
	{ "../outside/secret", "/escape", 0 },      /* -R mod/ */
	{ "../outside/secret", "escape", 1 },
	{ "pub/../file", "dotdot_in", 1 },          /* ".." after a component */
	{ "d/../d", "dirdot", 1 },
	{ "/etc/hostname", "absfile", 1 },
	{ "/file", "x/y/z", 1 },
	{ "file", "rel", 0 },
	{ "pub/sub/n", "deep", 0 },
	/* edges */
	{ "", "x", 1 },
	{ "..", "a/b", 0 },
	{ "..", "b", 1 },
	{ "../", "a/b", 0 },
	{ "a/..", "x", 1 },                         /* ends in "/.." */
	{ "../..", "a/b/c", 1 },                   /* ends in "/..": refused as such */
	{ "../../..", "a/b/c", 1 },
	{ "..//../x", "a/b/c", 0 },                 /* leading ".." runs, extra slashes */
	{ "../x/../y", "a/b/c", 1 },
	{ "./x", "y", 0 },
	{ "././../x", "a/y", 1 },                   /* "/../" after the leading run */
	{ "./../x", "y", 1 },
	{ "../x", "./a/y", 0 },                     /* "." components of the name do not count */
	{ "../x", "../a/y", 0 },                    /* ".." in the name starts the count again */
	{ "../x", "a/../y", 1 },
	{ "../x", "a//y", 0 },
	{ "../../x", "//y", 1 },                    /* one empty component, then runs of '/' */
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_MSG(links_unsafe(cases[i].target, cases[i].where) == cases[i].unsafe, "\"%s\" at \"%s\": want %d",
			  cases[i].target, cases[i].where, cases[i].unsafe);
	return unit_done("test_links");
}
