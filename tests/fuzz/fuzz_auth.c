/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the session monitor's check of a daemon-auth response
 * (auth_check_response in src/monitor/auth.c, reached by a line the client
 * sends through the worker): the input is
 * "RULES\0SECRETS\0LINE\0DIGEST-LIST\0GROUPS\0" then one byte of
 * protocol.  The secrets go to a file auth_begin() reads.  GROUPS are the
 * user's groups as the name-service child would send them (comma-separated,
 * one record each; "!" first: the child reports a failure; "~" first: the
 * child is gone).  Oracle: a response is accepted only if it really is the
 * chosen digest of one of the file's passwords and the challenge, computed
 * here independently (OpenSSL; md4 through src/proto/md4.c).
 */
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>

#include "auth.h"
#include "log.h"
#include "md4.h"
#include "nsquery.h"
#include "nsrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static int answers(const char *digest, int old, const char *pw, const char *chal, const char *resp)
{
	unsigned char d[64], enc[100];
	unsigned n = 16;

	if (strcmp(digest, "md4") == 0) {
		struct md4_ctx c;
		static const unsigned char zero[4];

		md4_init(&c);
		if (old)
			md4_update(&c, zero, 4);
		md4_update(&c, pw, strlen(pw));
		md4_update(&c, chal, strlen(chal));
		md4_final(&c, d);
	} else {
		EVP_MD_CTX *c = EVP_MD_CTX_new();

		EVP_DigestInit_ex(c, EVP_get_digestbyname(digest), NULL);
		EVP_DigestUpdate(c, pw, strlen(pw));
		EVP_DigestUpdate(c, chal, strlen(chal));
		EVP_DigestFinal_ex(c, d, &n);
		EVP_MD_CTX_free(c);
	}
	EVP_EncodeBlock(enc, d, (int)n);
	enc[strcspn((char *)enc, "=")] = '\0';
	return strcmp((char *)enc, resp) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[] = { "sha512", "sha256", "sha1", "md5", "md4" };
	char buf[8192 + 8], *part[5] = { "", "", "", "", "" }, text[PR_TEXT_MAX], line[PR_TEXT_MAX];
	struct cfg_module m = { .name = "m", .strict_modes = 0 };
	struct auth a;
	struct nsq q;
	size_t at = 0;
	int fd, ok, sv[2];

	if (size > 8192)
		return 0;
	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/fuzz_auth.%d", (int)getpid());
		log_use_fd(open("/dev/null", O_WRONLY));
	}
	memcpy(buf, data, size);
	memset(buf + size, 0, 8);
	for (int i = 0; i < 5 && at <= size; i++) {
		part[i] = buf + at;
		at += strlen(buf + at) + 1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, part[1], strlen(part[1])) < 0)
		abort();
	close(fd);
	m.auth_users = part[0];
	m.secrets_file = path;
	if (auth_init(&a) < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	/* the child's answer to the first question, queued before it is asked */
	nsq_attach(&q, sv[0]);
	if (part[4][0] == '~') {
		close(sv[1]);
		sv[1] = -1;
	} else {
		struct nsrec r;
		uint32_t n = 0;

		for (char *g = part[4] + (part[4][0] == '!'); part[4][0] != '!' && *g && n < 64; g += strcspn(g, ",") + 1) {
			char name[NSREC_TEXT_MAX + 1];

			snprintf(name, sizeof(name), "%.*s", (int)strcspn(g, ","), g);
			nsrec_init(&r, NSANS_GROUP, 1);
			r.count = n;
			if (name[0] && nsrec_set(&r, 'a', name) == 0 && send(sv[1], &r, sizeof(r), MSG_NOSIGNAL) > 0)
				n++;
			if (g[strcspn(g, ",")] == '\0')
				break;
		}
		nsrec_init(&r, NSANS_END, 1);
		r.status = part[4][0] == '!' ? NS_FAIL : NS_OK;
		r.count = part[4][0] == '!' ? 0 : n;
		(void)send(sv[1], &r, sizeof(r), MSG_NOSIGNAL);
	}
	a.protocol = 27 + (at < size ? data[at] % 6 : 5);
	snprintf(a.digests, sizeof(a.digests), "%.*s", (int)strcspn(part[3], "\n"), part[3]);
	if (auth_begin(&a, &m, "host", "10.0.0.1", text, sizeof(text)) < 0) {
		nsq_stop(&q);
		if (sv[1] >= 0)
			close(sv[1]);
		return 0;
	}
	snprintf(line, sizeof(line), "%s", part[2]);
	ok = auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) == 0;
	nsq_stop(&q);
	if (sv[1] >= 0)
		close(sv[1]);
	if (ok) {
		const char *resp = strchr(line, ' ') + 1;
		int found = 0;

		for (char *s = part[1]; *s && !found; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] != '\0')) {
			char entry[1100], *colon;

			snprintf(entry, sizeof(entry), "%.*s", (int)strcspn(s, "\n"), s);
			entry[strcspn(entry, "\r")] = '\0';
			if ((colon = strchr(entry, ':')) != NULL)
				found = answers(names[a.digest], a.md4_old, colon + 1, a.challenge, resp);
		}
		if (!found)
			abort();
	}
	return 0;
}
