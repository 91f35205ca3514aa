/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the trusted-owner path walk (src/priv/safeopen.c): links
 * owned by root or by us are followed wherever they are, a link owned by
 * anyone else is refused as the last component and as a directory on the
 * way, chains and loops are bounded, O_CREAT never creates through a
 * refused link, and the descriptor returned is the object the path names.
 * The ownership cases need root (lchown); without it they are skipped.
 */
#include "safeopen.h"
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OTHER_UID 65534

static char top[PATH_MAX];

static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", top, rel);
	return buf[i];
}

static void put(const char *rel, const char *text, mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		perror(rel);
	close(fd);
}

/* A link owned by uid (when we may give it away). */
static void link_as(const char *target, const char *rel, uid_t uid)
{
	if (symlink(target, at(rel)) < 0)
		perror(rel);
	if (uid != geteuid() && lchown(at(rel), uid, (gid_t)-1) < 0)
		perror(rel);
}

/* Open path, read what it holds ("" on error); the reason in why. */
static int read_via(const char *path, char *out, size_t outlen, char *why, size_t whylen)
{
	int fd = safe_open(path, O_RDONLY | O_NONBLOCK, 0, why, whylen);
	ssize_t n;

	out[0] = '\0';
	if (fd < 0)
		return -1;
	n = read(fd, out, outlen - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return 0;
}

static void test_plain(void)
{
	char buf[64], why[256];
	struct stat a, b;
	int fd;

	CHECK(read_via(at("f"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "file\n") == 0);
	CHECK(read_via(at("d/../f"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "file\n") == 0);
	CHECK(read_via(at("./d/./g"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "g\n") == 0);
	CHECK(read_via(at("nothere"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ENOENT &&
	      strstr(why, "No such file") != NULL);
	CHECK(read_via(at("f/x"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ENOTDIR);

	fd = safe_open("/", O_PATH | O_DIRECTORY, 0, why, sizeof(why));
	CHECK(fd >= 0 && fstat(fd, &a) == 0 && stat("/", &b) == 0 && a.st_ino == b.st_ino);
	close(fd);
	fd = safe_open(at("d"), O_PATH | O_DIRECTORY, 0, why, sizeof(why));
	CHECK(fd >= 0 && fstat(fd, &a) == 0 && S_ISDIR(a.st_mode));
	close(fd);
	fd = safe_open(at("d/"), O_RDONLY | O_DIRECTORY, 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	CHECK(safe_open(at("f"), O_PATH | O_DIRECTORY, 0, why, sizeof(why)) < 0 && errno == ENOTDIR);
	CHECK(safe_open("", O_RDONLY, 0, why, sizeof(why)) < 0 && errno == ENOENT);
	/* the lowest free descriptor, as open(2), and close-on-exec */
	{
		int low = open("/dev/null", O_RDONLY);

		close(low);
		fd = safe_open(at("d/g"), O_RDONLY, 0, why, sizeof(why));
		CHECK(fd == low && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
		close(fd);
	}
	CHECK(safe_open(NULL, O_RDONLY, 0, NULL, 0) < 0);

	/* relative to the current directory */
	CHECK(chdir(top) == 0);
	CHECK(read_via("d/g", buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "g\n") == 0);
	CHECK(chdir("/") == 0);
}

static void test_trusted_links(void)
{
	char buf[64], why[256];

	link_as("f", "own", geteuid());
	link_as("../f", "d/up", geteuid());
	link_as(at("d"), "absdir", geteuid());
	CHECK(read_via(at("own"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "file\n") == 0);
	CHECK(read_via(at("d/up"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "file\n") == 0);
	CHECK(read_via(at("absdir/g"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "g\n") == 0);
	CHECK(read_via(at("absdir/up"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "file\n") == 0);

	/* a loop, and a chain one longer than the limit */
	link_as("loop2", "loop1", geteuid());
	link_as("loop1", "loop2", geteuid());
	CHECK(read_via(at("loop1"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ELOOP);
	for (int i = 0; i <= SAFEOPEN_MAX_LINKS; i++) {
		char name[32], target[32];

		snprintf(name, sizeof(name), "chain%d", i);
		snprintf(target, sizeof(target), i == SAFEOPEN_MAX_LINKS ? "f" : "chain%d", i + 1);
		link_as(target, name, geteuid());
	}
	CHECK(read_via(at("chain1"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "file\n") == 0);
	CHECK(read_via(at("chain0"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ELOOP);
}

static void test_untrusted_links(void)
{
	char buf[64], why[256];
	struct stat st;
	int fd;

	if (geteuid() != 0) {
		printf("skipping the ownership cases: not root\n");
		return;
	}
	put("secret", "TOPSECRET\n", 0600);
	link_as(at("secret"), "pub/motd", OTHER_UID);
	link_as(at("d"), "pub/dirlink", OTHER_UID);
	link_as("pub/motd", "rootchain", 0);
	link_as(at("pub/dirlink"), "d2", 0);

	/* as the last component */
	CHECK(read_via(at("pub/motd"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ELOOP &&
	      strstr(why, "refusing to follow a symlink owned by an untrusted user (uid 65534)") != NULL &&
	      strstr(why, "motd -> ") != NULL && buf[0] == '\0');
	/* as a directory on the way */
	CHECK(read_via(at("pub/dirlink/g"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ELOOP);
	/* reached through a trusted link first */
	CHECK(read_via(at("rootchain"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ELOOP);
	CHECK(read_via(at("d2/g"), buf, sizeof(buf), why, sizeof(why)) < 0 && errno == ELOOP);
	/* O_PATH does not make it acceptable either */
	CHECK(safe_open(at("pub/dirlink"), O_PATH | O_DIRECTORY, 0, why, sizeof(why)) < 0 && errno == ELOOP);
	/* O_CREAT through a refused dangling link creates nothing */
	link_as(at("created"), "pub/log", OTHER_UID);
	CHECK(safe_open(at("pub/log"), O_WRONLY | O_APPEND | O_CREAT, 0640, why, sizeof(why)) < 0 &&
	      errno == ELOOP && lstat(at("created"), &st) < 0);
	/* the unprivileged user's own files are fine: only links are judged */
	put("pub/plain", "plain\n", 0644);
	CHECK(chown(at("pub/plain"), OTHER_UID, (gid_t)-1) == 0);
	CHECK(read_via(at("pub/plain"), buf, sizeof(buf), why, sizeof(why)) == 0 && strcmp(buf, "plain\n") == 0);
	/* a trusted dangling link is created through, as open(2) would */
	link_as(at("made"), "trusted-log", 0);
	fd = safe_open(at("trusted-log"), O_WRONLY | O_APPEND | O_CREAT, 0640, why, sizeof(why));
	CHECK(fd >= 0 && lstat(at("made"), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640);
	close(fd);
}

static void test_create(void)
{
	char why[256];
	struct stat st;
	int fd;

	fd = safe_open(at("d/new.pid"), O_RDWR | O_CREAT, 0644, why, sizeof(why));
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644);
	close(fd);
	CHECK(safe_open(at("nodir/new"), O_RDWR | O_CREAT, 0644, why, sizeof(why)) < 0 && errno == ENOENT);
}

static void test_long(void)
{
	char path[PATH_MAX + 16], why[256];

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	CHECK(safe_open(path, O_RDONLY, 0, why, sizeof(why)) < 0 && errno == ENAMETOOLONG);
	snprintf(path, sizeof(path), "/%0300d", 1);
	CHECK(safe_open(path, O_RDONLY, 0, why, sizeof(why)) < 0 && errno == ENAMETOOLONG);
}

int main(void)
{
	char tmpl[] = "/tmp/prsyncd-safeopen.XXXXXX";

	if (mkdtemp(tmpl) == NULL)
		return 1;
	/* the walk follows no link on the way to the test directory */
	if (realpath(tmpl, top) == NULL)
		return 1;
	chmod(top, 0755);
	mkdir(at("d"), 0755);
	mkdir(at("pub"), 0777);
	put("f", "file\n", 0644);
	put("d/g", "g\n", 0644);

	test_plain();
	test_trusted_links();
	test_untrusted_links();
	test_create();
	test_long();

	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		(void)!system(cmd);
	}
	return unit_done("test_safeopen");
}
