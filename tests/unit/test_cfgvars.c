/* SPDX-License-Identifier: ISC */
/* Unit tests for %VAR% expansion (src/priv/cfgvars.c); the expected
 * results are rsyncd 3.5.0's, seen in a module comment. */
#include <string.h>

#include <stdlib.h>
#include "cfgvars.h"
#include "modvars.h"
#include "modfilter.h"
#include "unit.h"

static const char *lookup(const char *name, void *ctx)
{
	(void)ctx;
	if (strcmp(name, "HOME") == 0)
		return "/root";
	if (strcmp(name, "EMPTYV") == 0)
		return "";
	if (strcmp(name, "PCT") == 0)
		return "%HOME%";
	return NULL;
}

static void expand_case(const char *in, const char *want)
{
	char out[256];

	CHECK(cfgvars_expand(in, out, sizeof(out), lookup, NULL) == 0);
	CHECK_MSG(strcmp(out, want) == 0, "\"%s\" gave \"%s\", expected \"%s\"", in, out, want);
}

static void release(struct modvars *v)
{
	for (int i = 0; i < v->nowned; i++)
		free(v->owned[i]);
}

/* A module's values with the per-connection names: the path and a
 * filter directive take the client's host or user name only if it is a
 * plain name. */
static void modvars_cases(void)
{
	struct cfg_module in;
	struct modvars v;

	memset(&in, 0, sizeof(in));
	in.name = (char *)"m";
	in.path = (char *)"/srv/%RSYNC_USER_NAME%";
	in.filt[CFG_F_EXCLUDE] = (char *)"/%RSYNC_HOST_NAME%/ %RSYNC_USER_NAME%.* %RSYNC_HOST_ADDR%";
	CHECK(modvars_expand(&v, &in, "h1.example-2.org", "2001:db8::1", "al_ice@x") == 0);
	CHECK(strcmp(v.m.filt[CFG_F_EXCLUDE], "/h1.example-2.org/ al_ice@x.* 2001:db8::1") == 0);
	CHECK(strcmp(v.m.path, "/srv/al_ice@x") == 0);
	release(&v);
	/* a wildcard, a blank or a slash from the client's DNS or login */
	const char *bad[] = { "*", "a b", "a/b", "[x]", "a?", "a\\b", "+", "a\tb", "a\nb", "\xc3\xa9" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(modvars_expand(&v, &in, bad[i], "127.0.0.1", "u") == -1);
		release(&v);
		CHECK(modvars_expand(&v, &in, "h", "127.0.0.1", bad[i]) == -1);
		release(&v);
	}
	/* the path alone: the same rule, and its own '..' check */
	in.filt[CFG_F_EXCLUDE] = (char *)"*.tmp";
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(modvars_expand(&v, &in, "h", "127.0.0.1", bad[i]) == -1);
		release(&v);
	}
	CHECK(modvars_expand(&v, &in, "h", "127.0.0.1", "..") == -1);
	release(&v);
	CHECK(modvars_expand(&v, &in, "h", "127.0.0.1", "a.b") == 0);
	CHECK(strcmp(v.m.path, "/srv/a.b") == 0 && strcmp(v.m.filt[CFG_F_EXCLUDE], "*.tmp") == 0);
	release(&v);
	/* elsewhere (here: the uid, which must then be a number) they expand as rsyncd does */
	in.path = (char *)"/srv";
	in.uid = (char *)"%RSYNC_USER_NAME%";
	CHECK(modvars_expand(&v, &in, "h", "127.0.0.1", "a b") == 0);
	CHECK(strcmp(v.m.uid, "a b") == 0);
	release(&v);
	in.uid = NULL;
	in.filt[CFG_F_FILTER] = (char *)"- %RSYNC_MODULE_NAME%.lock";
	CHECK(modvars_expand(&v, &in, "a b", "127.0.0.1", "*") == 0);
	CHECK(strcmp(v.m.filt[CFG_F_FILTER], "- m.lock") == 0);
	release(&v);
}

int main(void)
{
	char small[8];

	expand_case("1[%%HOME%]", "1[%/root]");
	expand_case("2[%HOME%%]", "2[/root%]");
	expand_case("3[%%]", "3[%%]");
	expand_case("4[%HOME%HOME%]", "4[/rootHOME%]");
	expand_case("5[%A B%]", "5[%A B%]");
	expand_case("6[%%%HOME%]", "6[%%/root]");
	expand_case("7[%HOME]", "7[%HOME]");
	expand_case("8[a%NOPE%c]", "8[a%NOPE%c]");
	expand_case("9[%NOPE%HOME%]", "9[%NOPE/root]");
	expand_case("10[%%%]", "10[%%%]");
	expand_case("11[%EMPTYV%]", "11[]");
	expand_case("12[%HO-ME%]", "12[%HO-ME%]");
	expand_case("%PCT%", "%HOME%"); /* a value is not expanded again */
	expand_case("", "");
	expand_case("no refs", "no refs");
	/* too long: -1, and the copy is cut but terminated */
	CHECK(cfgvars_expand("abc%HOME%", small, sizeof(small), lookup, NULL) == -1);
	CHECK(strlen(small) == sizeof(small) - 1);
	CHECK(cfgvars_is_session_name("RSYNC_MODULE_NAME") && !cfgvars_is_session_name("HOME"));
	modvars_cases();
	return unit_done("test_cfgvars");
}
