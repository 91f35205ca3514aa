/* SPDX-License-Identifier: ISC */
/*
 * Filesystem races for the tests: changes a module's files in a loop, for
 * a bounded time, while clients pull from it.
 *
 *   racer exchange SECONDS A B   swap A and B atomically, over and over
 *                                (renameat2 RENAME_EXCHANGE: e.g. a file
 *                                and a symlink to a secret, or a directory
 *                                and a symlink to an outside directory)
 *   racer mutate SECONDS FILE SIZE
 *                                cycle FILE through: truncated to 0, grown
 *                                to 2*SIZE, deleted, recreated at SIZE,
 *                                replaced by rename, cut to SIZE/2
 *   racer hardlink SECONDS TARGET LINK
 *                                create and remove a hard link to TARGET
 *
 * Prints the number of changes made.  Every loop is bounded by the time
 * and by a count; a short pause between changes leaves the clients CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHANGES 50000000L
#define PAUSE_US 200

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_file(const char *path, long size)
{
	static char block[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (block[0] == 0)
		for (size_t i = 0; i < sizeof(block); i++)
			block[i] = "module-data\n"[i % 12];
	for (long done = 0; done < size;) {
		size_t n = size - done < (long)sizeof(block) ? (size_t)(size - done) : sizeof(block);
		ssize_t w = write(fd, block, n);

		if (w <= 0)
			break;
		done += w;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	double end;
	long changes = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: racer exchange|mutate|hardlink SECONDS ARGS...\n");
		return 2;
	}
	end = now() + atof(argv[2]);
	if (strcmp(argv[1], "exchange") == 0) {
		while (now() < end && changes < MAX_CHANGES) {
			if (renameat2(AT_FDCWD, argv[3], AT_FDCWD, argv[4], RENAME_EXCHANGE) < 0) {
				perror("renameat2");
				return 1;
			}
			changes++;
			usleep(PAUSE_US);
		}
		/* an even count leaves both names as they were */
		if (changes % 2 && renameat2(AT_FDCWD, argv[3], AT_FDCWD, argv[4], RENAME_EXCHANGE) == 0)
			changes++;
	} else if (strcmp(argv[1], "mutate") == 0 && argc == 5) {
		long size = atol(argv[4]);
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s.racer-tmp", argv[3]);
		while (now() < end && changes < MAX_CHANGES) {
			switch (changes % 6) {
			case 0: (void)!truncate(argv[3], 0); break;
			case 1: write_file(argv[3], 2 * size); break;
			case 2: unlink(argv[3]); break;
			case 3: write_file(argv[3], size); break;
			case 4: write_file(tmp, size); rename(tmp, argv[3]); break;
			case 5: (void)!truncate(argv[3], size / 2); break;
			}
			changes++;
			usleep(PAUSE_US);
		}
		write_file(argv[3], size);
	} else if (strcmp(argv[1], "hardlink") == 0) {
		while (now() < end && changes < MAX_CHANGES) {
			if (changes % 2 == 0 && link(argv[3], argv[4]) < 0 && errno != EEXIST) {
				perror("link");
				return 1;
			}
			if (changes % 2 == 1)
				unlink(argv[4]);
			changes++;
			usleep(PAUSE_US);
		}
		unlink(argv[4]);
	} else {
		fprintf(stderr, "racer: unknown mode or arguments\n");
		return 2;
	}
	printf("%ld\n", changes);
	return 0;
}
