#include "config.h"

/* libFuzzer harness for the include-following config reader and for
 * gitread_file().
 *
 * The input is cut at each "@@\n" into up to eight files of a small tree in
 * a temporary folder (.git/config, included files, config.worktree, HEAD, a
 * branch ref, a file in $HOME); the tree also holds a link and a FIFO an
 * include may name. The whole configuration is then read. Properties
 * beyond "no crash, no leak, no hang": a success lists only entries of
 * files it read (in the tree, or outside it); a failure names a file and a reason; each piece read back
 * with gitread_file() under a bound taken from the input is its bytes, or
 * -EFBIG exactly when it is longer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git/config-read.h"
#include "git/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {
	".git/config", ".git/a.cfg", ".git/sub/b.cfg", "c.cfg",
	".git/config.worktree", ".git/HEAD", ".git/refs/heads/main", "home/h.cfg",
};
static char root[PATH_MAX], home[PATH_MAX + 8];
static int rootfd = -1;

/* Leaves no folder behind when libFuzzer exits. */
static void remove_tree(void)
{
	static const char *const rest[] = {
		".git/link", ".git/fifo", ".git/refs/heads", ".git/refs", ".git/sub", ".git", "home",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlinkat(rootfd, files[i], 0);
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		if (unlinkat(rootfd, rest[i], 0) < 0)
			unlinkat(rootfd, rest[i], AT_REMOVEDIR);
	rmdir(root);
}

static void make_tree(void)
{
	char top[] = P_tmpdir "/oz0-fuzz-cfgread-XXXXXX";

	if (!mkdtemp(top) || !realpath(top, root))
		abort();
	snprintf(home, sizeof(home), "%s/home", root);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || mkdirat(rootfd, ".git", 0755) || mkdirat(rootfd, ".git/sub", 0755) ||
	    mkdirat(rootfd, ".git/refs", 0755) || mkdirat(rootfd, ".git/refs/heads", 0755) ||
	    mkdirat(rootfd, "home", 0755) || symlinkat("a.cfg", rootfd, ".git/link") ||
	    mkfifoat(rootfd, ".git/fifo", 0644) || atexit(remove_tree))
		abort();
}

static void write_piece(const char *name, const uint8_t *p, size_t n)
{
	int fd = openat(rootfd, name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

/* gitread_file() gives the piece back whole, or -EFBIG past the bound. */
static void check_read_back(const char *name, const uint8_t *p, size_t n, size_t max)
{
	struct git_blob b;
	int r = gitread_file(rootfd, name, max, &b);

	if (n > max ? r != -EFBIG : r != 0 || b.len != n || memcmp(b.data, p, n) || b.data[n])
		abort();
	git_blob_free(&b);
}

static void check_config(void)
{
	struct gitcfg_read_opts opts = {.root_path = root, .gitdir = ".git", .home = home};
	struct gitcfg_read_error err;
	struct gitcfg_config *c = NULL;
	int r = gitcfg_read(rootfd, &opts, &c, &err);

	if (r < 0) {
		if (c || (r != -ENOMEM && !err.reason[0]))
			abort();
		return;
	}
	for (size_t i = 0; i < c->n_entries; i++) {
		const struct gitcfg_read_entry *e = &c->entries[i];

		if (e->file < 0 || (size_t)e->file >= c->n_files || c->files[e->file].state == GITCFG_FILE_MISSING ||
		    c->files[e->file].urls_only || !e->name)
			abort();
	}
	gitcfg_config_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max = size ? data[0] * 4u : 0, piece = 0;
	const uint8_t *p = data, *end = data + size;

	if (rootfd < 0)
		make_tree();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlinkat(rootfd, files[i], 0);
	while (p < end && piece < sizeof(files) / sizeof(files[0])) {
		const uint8_t *cut = memmem(p, (size_t)(end - p), "@@\n", 3);
		size_t n = cut ? (size_t)(cut - p) : (size_t)(end - p);

		write_piece(files[piece], p, n);
		check_read_back(files[piece], p, n, max);
		piece++;
		p += n + (cut ? 3 : 0);
	}
	check_config();
	return 0;
}
