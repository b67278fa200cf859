/* meta: the benchmark's metadata workload, one phase per call.
 *
 *   meta create|stat|rename|unlink DIR N
 *
 * N small files spread over N/1000 directories (ext4 and every peer handle
 * 1,000 entries a directory well; one directory of 100,000 would measure
 * directory indexing instead). A shell loop would measure fork and exec,
 * not the file system, hence this helper. Any failing call ends the run
 * with its errno, so the suite records the phase as failed with that error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PER_DIR = 1000 };

static void die(const char *what, const char *path)
{
	fprintf(stderr, "meta: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void name_of(char *buf, size_t len, const char *dir, long i, int renamed)
{
	snprintf(buf, len, "%s/d%03ld/%s%06ld", dir, i / PER_DIR, renamed ? "r" : "f", i);
}

static void one(const char *op, const char *dir, long i)
{
	static const char body[100] = "oz0fs bench small file\n";
	char path[4096], to[4096];
	struct stat st;
	int fd;

	name_of(path, sizeof path, dir, i, strcmp(op, "unlink") == 0);
	if (strcmp(op, "create") == 0) {
		if (i % PER_DIR == 0) {
			char sub[4096];
			snprintf(sub, sizeof sub, "%s/d%03ld", dir, i / PER_DIR);
			if (mkdir(sub, 0755) != 0 && errno != EEXIST)
				die("mkdir", sub);
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create", path);
		if (write(fd, body, sizeof body) != (ssize_t)sizeof body)
			die("write", path);
		if (close(fd) != 0)
			die("close", path);
	} else if (strcmp(op, "stat") == 0) {
		if (stat(path, &st) != 0)
			die("stat", path);
	} else if (strcmp(op, "rename") == 0) {
		name_of(to, sizeof to, dir, i, 1);
		if (rename(path, to) != 0)
			die("rename", path);
	} else if (strcmp(op, "unlink") == 0) {
		if (unlink(path) != 0)
			die("unlink", path);
	} else {
		fprintf(stderr, "meta: unknown phase %s\n", op);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: meta create|stat|rename|unlink DIR N\n");
		return 2;
	}
	if (strcmp(argv[1], "create") == 0 && mkdir(argv[2], 0755) != 0 && errno != EEXIST)
		die("mkdir", argv[2]);
	long n = strtol(argv[3], NULL, 10);
	for (long i = 0; i < n; i++)
		one(argv[1], argv[2], i);
	return 0;
}
