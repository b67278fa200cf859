#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tests/unit/scratch-dir.h"

char scratch_dir[] = P_tmpdir "/oz0-scratch-XXXXXX";

void scratch_make(void)
{
	cr_assert_not_null(mkdtemp(scratch_dir), "mkdtemp: %m");
}

static void remove_path(const char *path)
{
	_cleanup_free_ char *cmd = NULL;

	cr_assert_neq(asprintf(&cmd, "rm -rf '%s'", path), -1);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

void scratch_remove(void)
{
	remove_path(scratch_dir);
}

void scratch_remove_below(const char *rest)
{
	_cleanup_free_ char *p = scratch_path(rest);

	remove_path(p);
}

char *scratch_path(const char *rest)
{
	char *p;

	cr_assert_neq(asprintf(&p, "%s/%s", scratch_dir, rest), -1);
	return p;
}

void scratch_mkdir(const char *rest)
{
	_cleanup_free_ char *p = scratch_path(rest);

	cr_assert_eq(mkdir(p, 0755), 0, "mkdir %s: %m", p);
}

void scratch_symlink(const char *target, const char *rest)
{
	_cleanup_free_ char *p = scratch_path(rest);

	cr_assert_eq(symlink(target, p), 0, "symlink %s: %m", p);
}

void scratch_write(const char *rest, const char *text)
{
	_cleanup_free_ char *p = scratch_path(rest);
	_cleanup_close_ int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "create %s: %m", p);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
}

bool scratch_empty_folder(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = false;
	closedir(d);
	return empty;
}
