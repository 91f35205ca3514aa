/* SPDX-License-Identifier: ISC */
/* Sealed memfds (sealed.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sealed.h"

#define SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

int sealed_create(const char *name, const void *buf, size_t len, char *err, size_t errlen)
{
	size_t done = 0;
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0) {
		snprintf(err, errlen, "%s: memfd_create: %s", name, strerror(errno));
		return -1;
	}
	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "%s: write: %s", name, n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, SEALS) < 0) {
		snprintf(err, errlen, "%s: sealing: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

const void *sealed_map(int fd, size_t min, size_t max, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	void *map;

	if (seals < 0 || (seals & SEALS) != SEALS) {
		snprintf(err, errlen, "fd %d is not a sealed memfd", fd);
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 0 || (uint64_t)st.st_size < min ||
	    (uint64_t)st.st_size > max || st.st_size == 0) {
		snprintf(err, errlen, "fd %d: bad size", fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "fd %d: mmap: %s", fd, strerror(errno));
		return NULL;
	}
	*len = (size_t)st.st_size;
	return map;
}
