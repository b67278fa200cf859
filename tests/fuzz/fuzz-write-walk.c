#include "config.h"

/* libFuzzer harness for oz0fs --write's walk (tools/write-walk.h) on the
 * agent's PATH, over a small tree of folders, a file, a FIFO and links in,
 * out and up.
 *
 * Properties beyond "no crash, no leak": a walk that takes PATH holds one
 * of the tree's own folders (never what a link leads to, nor a folder
 * above the tree), and names a target with no '/' that is no "." or "..";
 * one that refuses gives a rule and a reason (which may hold PATH's
 * bytes, a newline too: the stderr line escapes them). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/write-walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char top[] = "/tmp/oz0-fuzz-write-XXXXXX";
static int rootfd = -1;
static const char *const folders[] = {".", "a", "a/b", "c"};
static struct policy_id ids[sizeof(folders) / sizeof(folders[0])];

static void remove_tree(void)
{
	static const char *const files[] = {"a/f", "p", "l", "up", "a/b/back"};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlinkat(rootfd, files[i], 0);
	for (size_t i = sizeof(folders) / sizeof(folders[0]); i-- > 1;)
		unlinkat(rootfd, folders[i], AT_REMOVEDIR);
	rmdir(top);
}

static void make_tree(void)
{
	struct stat st;
	int fd;

	if (!mkdtemp(top) || (rootfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		abort();
	for (size_t i = 1; i < sizeof(folders) / sizeof(folders[0]); i++)
		if (mkdirat(rootfd, folders[i], 0755) < 0)
			abort();
	fd = openat(rootfd, "a/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || close(fd) < 0 || mkfifoat(rootfd, "p", 0644) < 0 || symlinkat("a", rootfd, "l") < 0 ||
	    symlinkat("/", rootfd, "up") < 0 || symlinkat("../..", rootfd, "a/b/back") < 0)
		abort();
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		if (fstatat(rootfd, folders[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			abort();
		ids[i] = (struct policy_id){(uint64_t)st.st_dev, (uint64_t)st.st_ino};
	}
	atexit(remove_tree);
}

static bool a_tree_folder(struct policy_id id)
{
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i].dev == id.dev && ids[i].ino == id.ino)
			return true;
	return false;
}

static void check_walk(const char *rel)
{
	struct write_refusal no = {0};
	struct write_place p;
	struct stat st;
	int r = write_walk(rootfd, rel, &p, &no);

	if (r == 0) {
		if (fstat(p.dirfd, &st) < 0 || (uint64_t)st.st_ino != p.parent.ino || !a_tree_folder(p.parent))
			abort();
		if (!p.t.name || strchr(p.t.name, '/') || !strcmp(p.t.name, ".") || !strcmp(p.t.name, ".."))
			abort();
	} else if (r == 1) {
		if (!no.rule || !no.reason || !*no.reason)
			abort();
	} else if (r != -ENOMEM) {
		abort();
	}
	write_refusal_clear(&no);
	write_place_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *rel;

	if (rootfd < 0)
		make_tree();
	if (size > 4096)
		return 0;
	rel = strndup((const char *)data, size); /* a PATH from argv ends at its first NUL */
	if (!rel)
		return 0;
	check_walk(rel);
	free(rel);
	return 0;
}
