/* Unit tests for %VAR% expansion (src/priv/cfgvars.c); the expected
 * results are rsyncd 3.5.0's, seen in a module comment. */
#include <string.h>

#include "cfgvars.h"
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
	return unit_done("test_cfgvars");
}
