/* SPDX-License-Identifier: ISC */
/* Fuzz the PROXY protocol header reader as the session monitor runs it:
 * the input is what a trusted proxy's peer sends.  proxy_need() is asked
 * how many bytes to take, exactly those are taken (never more than the
 * input has, never past PROXY_HEADER_MAX), and a complete header goes to
 * proxy_parse(), whose address must be a well-formed IPv4 or IPv6 one.
 * The same bytes, as text, go through the "proxy protocol hosts" checker
 * and matcher (the loader's and the listener's side). */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "proxy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_addr a;
	const char *why = NULL;
	size_t have = 0;
	int need;
	char text[1024], reason[160];
	uint8_t key[16] = { 127, 0, 0, 1 };

	while ((need = proxy_need(data, have, &why)) > 0) {
		if (have + (size_t)need > PROXY_HEADER_MAX)
			abort(); /* the reader's buffer would overflow */
		if (have + (size_t)need > size)
			break;
		have += (size_t)need;
	}
	if (need < 0 && why == NULL)
		abort();
	if (need == 0) {
		if (proxy_parse(data, have, &a, &why) == 0) {
			if (a.proxied && !((a.ss.ss_family == AF_INET && a.len == sizeof(struct sockaddr_in)) ||
					   (a.ss.ss_family == AF_INET6 && a.len == sizeof(struct sockaddr_in6))))
				abort();
		} else if (why == NULL) {
			abort();
		}
	}
	/* any prefix of the bytes is refused or parsed, never read past */
	(void)proxy_parse(data, size < PROXY_HEADER_MAX ? size : PROXY_HEADER_MAX, &a, &why);

	if (size < sizeof(text)) {
		memcpy(text, data, size);
		text[size] = '\0';
		if (hostlist_check(text, reason, sizeof(reason)) < 0 && strlen(reason) >= sizeof(reason))
			abort();
		(void)hostlist_match(text, 4, key);
		memcpy(key, data, size < sizeof(key) ? size : sizeof(key));
		(void)hostlist_match(text, 6, key);
	}
	return 0;
}
