/* SPDX-License-Identifier: ISC */
/* Unit tests for the chmod rules of "outgoing chmod" (src/proto/chmod.c).
 * Every expected mode below was observed from rsync 3.5.0's daemon
 * (tests/integration/t_confdirs.sh compares the two end to end). */
#include <string.h>
#include <sys/stat.h>

#include "chmod.h"
#include "unit.h"

#define F(m) (S_IFREG | (m))
#define D(m) (S_IFDIR | (m))

/* spec applied to mode with umask 022 gives want */
static void apply_case(const char *spec, uint32_t mode, uint32_t want)
{
	static struct chmod_rules c;
	uint32_t got;

	CHECK_MSG(chmod_parse(&c, spec, 022) == 0, "\"%s\" refused", spec);
	got = chmod_apply(&c, mode);
	CHECK_MSG(got == want, "\"%s\" on %o: %o, expected %o", spec, mode, got, want);
}

static void umask_case(const char *spec, uint32_t umask, uint32_t mode, uint32_t want)
{
	static struct chmod_rules c;
	uint32_t got;

	CHECK(chmod_parse(&c, spec, umask) == 0);
	got = chmod_apply(&c, mode);
	CHECK_MSG(got == want, "\"%s\" umask %o on %o: %o, expected %o", spec, umask, mode, got, want);
}

static void test_valid(void)
{
	apply_case("Dg+s,ug+w,Fo-w,+X", F(0), F(0220));
	apply_case("Dg+s,ug+w,Fo-w,+X", F(01777), F(01775));
	apply_case("Dg+s,ug+w,Fo-w,+X", F(0711), F(0731));
	apply_case("Dg+s,ug+w,Fo-w,+X", D(0700), D(02731));
	apply_case("D2775,F664", F(04755), F(0664));
	apply_case("D2775,F664", D(0700), D(02775));
	apply_case("a-x", F(01777), F(01666));
	apply_case("a-x", F(02644), F(02644));
	apply_case("o=", F(01777), F(01770));
	apply_case("u=rwX", F(04755), F(04755));
	apply_case("u=rwX", F(02644), F(02644));
	apply_case("g+s,+t", F(0), F(03000));
	apply_case("u+x,+X", F(0644), F(0744));   /* X looks at the mode before the first rule */
	apply_case("=r", F(04755), F(04444));
	apply_case("Fu+s,Dg-s", D(02755), D(0755));
	apply_case("0", F(01777), F(0));
	apply_case("7777", F(0), F(07777));
	apply_case("00644", D(0755), D(0644));
	apply_case("u=,g=,o=r", F(02644), F(02004));
	apply_case("u+t", F(0), F(01000));
	apply_case("o+s", F(0), F(04000));
	apply_case("+s", F(0), F(04000));
	apply_case("a+s", F(0), F(06000));
	apply_case("go+s", F(0), F(02000));
	apply_case("uo+s", F(0), F(04000));
	apply_case("-s", F(07777), F(03777));
	apply_case("o-s", F(07777), F(03777));
	apply_case("u=s", F(07777), F(07077));
	apply_case("=st", F(0), F(05000));
	apply_case("a=", F(07777), F(07000));
	apply_case("-x", F(07777), F(07666));
	apply_case("D0", F(07777), F(07777));
	apply_case("a-X", F(0711), F(0600));
	apply_case("=X", F(0644), F(0));
	apply_case("go-X", F(0755), F(0744));
	apply_case("o=s", F(0644), F(04640));
	apply_case("u=r,g=u", F(0755), F(0445));  /* copies the bits as they are then */
	apply_case("g=u", F(0644), F(0664));
	apply_case("o-u", F(0755), F(0750));
	apply_case("a+u", F(0644), F(0666));
	apply_case("ug=o", F(0755), F(0555));
	/* = with a copied class clears that class's special bit */
	apply_case("u=g", F(07777), F(03777));
	apply_case("o=u", F(01777), F(0777));
	apply_case("=u", F(07777), F(0755));
	apply_case("ug=o", F(07777), F(01777));
	apply_case("g=u", F(02755), F(0775));
	apply_case("u+g", F(02755), F(02755));
	apply_case("g-u", F(04755), F(04705));
	apply_case("u+rr", F(0), F(0400));
	/* symbolic links never change */
	apply_case("a=", S_IFLNK | 0777, S_IFLNK | 0777);

	/* No who: the umask is honoured, as chmod(1) does. */
	umask_case("+u", 022, F(0711), F(0755));
	umask_case("+u", 077, F(0711), F(0711));
	umask_case("+u", 0, F(0711), F(0777));
	umask_case("+w", 022, F(0644), F(0644));
	umask_case("+w", 0, F(0711), F(0733));
	umask_case("=rw", 077, F(0755), F(0600));
	umask_case("-r", 077, F(0644), F(0244));
	umask_case("+x", 077, F(0644), F(0744));
	umask_case("=", 077, F(0755), F(0));
}

static void test_invalid(void)
{
	static const char *const bad[] = {
		"u+x-r", "u+r,,g+r", "17777", "u+", "+", "x", "DF+x", "d+x", "U+x", "g=ux",
		"u=go", "g=uX", "g+us", "F", "D", "u+x,", "", ",u+x", "u+q", "99999", "8", "u x",
		"u+x g+w",
	};
	static struct chmod_rules c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_MSG(chmod_parse(&c, bad[i], 022) < 0, "\"%s\" accepted", bad[i]);
	/* bounded: more clauses than the table holds */
	{
		static char many[CHMOD_RULES_MAX * 4 + 8];
		size_t n = 0;

		for (int i = 0; i <= CHMOD_RULES_MAX; i++)
			n += (size_t)snprintf(many + n, sizeof(many) - n, "%sa+r", i ? "," : "");
		CHECK(chmod_parse(&c, many, 022) < 0);
	}
}

int main(void)
{
	test_valid();
	test_invalid();
	return unit_done("test_chmod");
}
