/* SPDX-License-Identifier: ISC */
/*
 * Configuration files (cfgfile.h).  rsyncd 3.5.0, checked: a directory
 * named by &include contributes its "*.conf" files and one named by
 * &merge its "*.inc" files, dot-files included, sorted by name (strcmp
 * order: ".x.conf" < "10-a.conf" < "B.conf" < "a.conf").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfgfile.h"
#include "safeopen.h"

int cfgfile_read(const char *path, size_t max, char **out, size_t *len, char *why, size_t whylen)
{
	/* O_NONBLOCK: a FIFO put in the file's place must not hang us
	 * before the regular-file check. */
	/* safe_open: the configuration and what it names are operator files
	 * (no symlink planted by another user is followed, safeopen.h). */
	char swhy[256];
	int fd = safe_open(path, O_RDONLY | O_NONBLOCK, 0, swhy, sizeof(swhy));
	struct stat st;
	size_t n = 0;
	char *buf;

	if (fd < 0) {
		snprintf(why, whylen, "cannot open: %s", swhy);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		if (S_ISREG(st.st_mode))
			snprintf(why, whylen, "larger than %zu bytes, refusing to read it", max);
		else
			snprintf(why, whylen, "not a regular file");
		close(fd);
		return -1;
	}
	/* One spare byte tells us the file grew after fstat. */
	if ((buf = malloc(max + 1)) == NULL) {
		close(fd);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	while (n < max + 1) {
		ssize_t r = read(fd, buf + n, max + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, whylen, "read error: %s", strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max || memchr(buf, '\0', n) != NULL) {
		free(buf);
		snprintf(why, whylen, n > max ? "changed while being read, or too large" : "contains a NUL byte");
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

void cfgfile_free_list(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

int cfgfile_list(const char *path, const char *suffix, char ***paths, size_t *n, char *why, size_t whylen)
{
	struct stat st;
	struct dirent *d;
	char **v;
	size_t k = 0;
	DIR *dir;
	int fd;

	*paths = NULL;
	*n = 0;
	fd = safe_open(path, O_PATH, 0, why, whylen);
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			close(fd);
		}
		return -1;
	}
	close(fd);
	if (!S_ISDIR(st.st_mode)) {
		if ((v = calloc(1, sizeof(*v))) == NULL || (v[0] = strdup(path)) == NULL) {
			free(v);
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		*paths = v;
		*n = 1;
		return 0;
	}
	if ((fd = safe_open(path, O_RDONLY | O_DIRECTORY, 0, why, whylen)) < 0)
		return -1;
	if ((dir = fdopendir(fd)) == NULL) {
		snprintf(why, whylen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if ((v = calloc(CFGFILE_DIR_MAX, sizeof(*v))) == NULL) {
		closedir(dir);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	while ((d = readdir(dir)) != NULL) {
		size_t need;

		if (!ends_with(d->d_name, suffix))
			continue;
		if (k == CFGFILE_DIR_MAX) {
			snprintf(why, whylen, "more than %d %s files", CFGFILE_DIR_MAX, suffix);
			goto fail;
		}
		need = strlen(path) + strlen(d->d_name) + 2;
		if ((v[k] = malloc(need)) == NULL) {
			snprintf(why, whylen, "out of memory");
			goto fail;
		}
		snprintf(v[k++], need, "%s/%s", path, d->d_name);
	}
	closedir(dir);
	qsort(v, k, sizeof(*v), by_name);
	*paths = v;
	*n = k;
	return 0;
fail:
	closedir(dir);
	cfgfile_free_list(v, k);
	return -1;
}
