/* SPDX-License-Identifier: ISC */
/* A read-only Landlock domain (landlock.h). */
#include <errno.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"

/* Landlock of ABI 3 (truncate), 4 (TCP) and 5 (device ioctls), newer
 * than the kernel headers of Debian 12. */
#define LL_FS_TRUNCATE (1ULL << 14)
#define LL_FS_IOCTL_DEV (1ULL << 15)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_RULE_NET_PORT 2

struct ll_net_port {
	uint64_t allowed_access;
	uint64_t port;
} __attribute__((packed));

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return -1;
}

int landlock_readonly_port(int *on, uint16_t tcp_port, char *err, size_t errlen)
{
	struct { uint64_t fs, net; } attr = {
		.fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		      LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		      LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		      LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	struct ll_net_port port = { LL_NET_CONNECT_TCP, tcp_port };
	size_t size = sizeof(attr.fs);
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int fd, rc;

	*on = 0;
	if (abi < 1)
		return 0; /* no Landlock in this kernel: the filter alone */
	attr.fs |= (abi >= 2 ? LANDLOCK_ACCESS_FS_REFER : 0) | (abi >= 3 ? LL_FS_TRUNCATE : 0) |
		   (abi >= 5 ? LL_FS_IOCTL_DEV : 0);
	if (abi >= 4) {
		attr.net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		size = sizeof(attr);
	}
	/* Only the port rule, if any: every other handled right is denied
	 * everywhere. */
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0)
		return fail(err, errlen, "landlock_create_ruleset");
	if (abi >= 4 && tcp_port != 0 && syscall(SYS_landlock_add_rule, fd, LL_RULE_NET_PORT, &port, 0) < 0) {
		close(fd);
		return fail(err, errlen, "landlock_add_rule");
	}
	rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	close(fd);
	if (rc < 0)
		return fail(err, errlen, "landlock_restrict_self");
	*on = 1;
	return 0;
}

int landlock_readonly(int *on, char *err, size_t errlen)
{
	return landlock_readonly_port(on, 0, err, errlen);
}
