/* SPDX-License-Identifier: ISC */
/*
 * The worker's root directory.  Its only job is to contain nothing: if it
 * held files, or if the worker's user could write to it, the chroot would
 * stop being a dead end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emptydir.h"
#include "safeopen.h"

static void make_parent(const char *path)
{
	char parent[4096];
	char *slash;

	if (snprintf(parent, sizeof(parent), "%s", path) >= (int)sizeof(parent))
		return;
	slash = strrchr(parent, '/');
	if (slash == NULL || slash == parent)
		return;
	*slash = '\0';
	(void)mkdir(parent, 0755);
}

int emptydir_check(const char *path, uid_t owner, int create, char *err, size_t errlen)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int fd, entries = 0;
	char why[512];

	if (path[0] != '/' || strstr(path, "/..") != NULL) {
		snprintf(err, errlen, "worker chroot %s: must be an absolute path without '..'", path);
		return -1;
	}
	if (create) {
		make_parent(path);
		if (mkdir(path, 0555) == 0)
			(void)chmod(path, 0555); /* umask may have removed bits we do not need anyway */
	}
	fd = safe_open(path, O_RDONLY | O_DIRECTORY, 0, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "worker chroot %s: %s", path, why);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "worker chroot %s: not a directory", path);
		return -1;
	}
	if (st.st_uid != owner || (st.st_mode & 022) != 0) {
		close(fd);
		snprintf(err, errlen,
			 "worker chroot %s: must be owned by uid %u and not writable by group or others",
			 path, (unsigned)owner);
		return -1;
	}
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		snprintf(err, errlen, "worker chroot %s: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			entries++;
	}
	closedir(d);
	if (entries) {
		snprintf(err, errlen, "worker chroot %s: must be empty", path);
		return -1;
	}
	return 0;
}
