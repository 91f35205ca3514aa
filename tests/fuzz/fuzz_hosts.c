/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the hosts allow/deny matcher (src/priv/hosts.c), which a PROXY
 * header's address also reaches: the input is "ALLOW\0DENY\0ADDRESS\0NAME"
 * (missing parts empty).  The name service is a deterministic stand-in
 * whose lookups fail for some names, and scopes' interfaces are known for
 * some.  Checks: the configuration check never crashes; a decision is the
 * same twice; an admitted peer is one no deny token refuses or one an
 * allow token admits; a name is shown only for an undetermined peer;
 * forward lookups are asked only with forward lookup on; with a name
 * service that answers nothing, nobody is admitted whom a working one
 * refuses.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned asked;

static int fwd(void *ctx, const char *name, int deny)
{
	(void)ctx;
	asked++;
	return (int)(strlen(name) % 3) - 1; /* -1, 0 or 1 */
}

static int netgroup(void *ctx, const char *group, const char *host, int deny)
{
	(void)ctx;
	return strlen(group) % 5 == 4 ? -1 : strlen(group) == strlen(host);
}

/* A name service that can answer nothing. */
static int fwd_down(void *ctx, const char *name, int deny)
{
	return -1;
}

static int netgroup_down(void *ctx, const char *group, const char *host, int deny)
{
	return -1;
}

static long ifindex(void *ctx, const char *name)
{
	return strlen(name) % 3 == 0 ? -1 : (long)(strlen(name) % 3) - 1; /* not known, none, index 1 */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[4096 + 4], *part[4] = { "", "", "", "" }, bad[HOSTS_TOKEN_MAX + 1], shown[HOSTS_TOKEN_MAX + 1];
	struct hosts_peer p = { 0 };
	struct hosts_ns ns = { fwd, netgroup, NULL };
	size_t at = 0;
	int a, b;

	if (size > 4096)
		return 0;
	memcpy(buf, data, size);
	memset(buf + size, 0, 4);
	for (int i = 0; i < 4 && at <= size; i++) {
		part[i] = buf + at;
		at += strlen(buf + at) + 1;
	}
	(void)hosts_check(part[0], bad, sizeof(bad));
	(void)hosts_check(part[1], bad, sizeof(bad));
	if (inet_pton(AF_INET, part[2], p.addr) == 1)
		p.family = AF_INET;
	else if (inet_pton(AF_INET6, part[2], p.addr) == 1)
		p.family = AF_INET6;
	p.name = part[3][0] ? part[3] : "UNDETERMINED";
	p.undetermined = part[3][0] == '\0';
	a = hosts_allowed(part[0], part[1], &p, 1, &ns, shown, sizeof(shown));
	b = hosts_allowed(part[0], part[1], &p, 1, &ns, NULL, 0);
	if (a != b || (a != 0 && a != 1) || (shown[0] && !p.undetermined))
		abort();
	/* parsed with scopes, decided with a name service that is down:
	 * every name and netgroup then matches in a deny list and admits
	 * nobody in an allow list, so nobody is admitted whom the working
	 * service refuses (a failure never opens a door) */
	{
		static const struct hosts_scopes sc = { ifindex, NULL };
		struct hosts_ns down = { fwd_down, netgroup_down, NULL, NULL };
		struct hosts_list al, dl;

		if (hosts_parse(&al, part[0], &sc) == 0) {
			if (hosts_parse(&dl, part[1], &sc) == 0) {
				int up = hosts_decide(&al, &dl, &p, 1, &ns, shown, sizeof(shown));
				int dn = hosts_decide(&al, &dl, &p, 1, &down, shown, sizeof(shown));

				if (dn && !up)
					abort();
				hosts_list_free(&dl);
			}
			hosts_list_free(&al);
		}
	}
	/* no deny list: admitted iff the allow list is unset or admits (one
	 * of separators only is set, and admits nobody, as in rsyncd) */
	if (hosts_allowed(part[0], NULL, &p, 1, &ns, NULL, 0) != (part[0][0] == '\0' ||
								  hosts_allowed(part[0], "**", &p, 1, &ns, NULL, 0)))
		abort();
	asked = 0;
	(void)hosts_allowed(part[0], part[1], &p, 0, &ns, NULL, 0);
	if (asked != 0)
		abort();
	return 0;
}
