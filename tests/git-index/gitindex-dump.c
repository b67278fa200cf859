#include "config.h"

/* Prints an index as `git ls-files --stage -z` does ("%06o %s %d\t%s\0"
 * per entry), or with --submodules the submodule paths the model gets
 * (gitindex_read_submodules), one per line, so the oracle can compare
 * bytes with git's. Reads GITDIR/index, and its shared index when split.
 * On a refusal it prints the reason to stderr and exits 1. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/index.h"
#include "git/read.h"

static int print_entry(const struct gitindex_entry *e, void *userdata)
{
	size_t n = *(size_t *)userdata;

	printf("%06o ", e->mode);
	for (size_t i = 0; i < n; i++)
		printf("%02x", e->oid[i]);
	printf(" %u\t%s%c", e->stage, e->path, '\0');
	return 0;
}

static void fail(const struct gitindex_error *err, int r)
{
	fprintf(stderr, "%s: %s%s (%s)\n", err->origin, err->shared ? "shared index: " : "",
	        err->reason ? err->reason : strerror(-r), strerror(-r));
}

static int dump_entries(int dirfd, enum gitindex_hash hash)
{
	struct git_blob index = {0}, shared = {0};
	struct gitindex_shared sh;
	struct gitindex_error err = {.origin = "index"};
	char name[GITINDEX_SHARED_NAME_MAX];
	size_t oid_len = gitindex_hash_len(hash);
	int split = 0, r = gitread_file(dirfd, "index", GITINDEX_MAX_BYTES, &index);

	if (r >= 0)
		r = split = gitindex_link(index.data, index.len, "index", hash, name, &err);
	if (split == 1)
		r = gitread_file(dirfd, name, GITINDEX_MAX_BYTES, &shared);
	sh = (struct gitindex_shared){.buf = shared.data, .len = shared.len};
	if (r >= 0)
		r = gitindex_parse(index.data, index.len, "index", hash, split == 1 ? &sh : NULL,
		                   print_entry, &oid_len, &err);
	if (r < 0)
		fail(&err, r);
	git_blob_free(&index);
	git_blob_free(&shared);
	return r < 0 ? 1 : 0;
}

static int dump_submodules(int dirfd, enum gitindex_hash hash)
{
	struct gitindex_submodules subs;
	struct gitindex_error err = {.origin = "index"};
	int r = gitindex_read_submodules(dirfd, "index", "index", hash, &subs, &err);

	if (r < 0) {
		fail(&err, r);
		return 1;
	}
	for (size_t i = 0; i < subs.n; i++)
		printf("%s\n", subs.paths[i]);
	gitindex_submodules_free(&subs);
	return 0;
}

int main(int argc, char **argv)
{
	enum gitindex_hash hash = GITINDEX_SHA1;
	bool submodules = false;
	_cleanup_close_ int dirfd = -1;
	int i;

	for (i = 1; i < argc - 1; i++) {
		if (strcmp(argv[i], "--sha256") == 0)
			hash = GITINDEX_SHA256;
		else if (strcmp(argv[i], "--submodules") == 0)
			submodules = true;
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: %s [--sha256] [--submodules] GITDIR\n", argv[0]);
		return 2;
	}
	dirfd = open(argv[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		perror(argv[i]);
		return 2;
	}
	return submodules ? dump_submodules(dirfd, hash) : dump_entries(dirfd, hash);
}
