#include "config.h"

/* The second oracle: libgit2's own index reader, printing GITDIR/index as
 * gitindex-dump and `git ls-files --stage -z` do. libgit2 1.5 reads neither
 * a split nor a SHA-256 index, so the oracle asks it only about the others. */
#include <git2.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	git_index *index = NULL;
	char path[4096];
	int r = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s GITDIR\n", argv[0]);
		return 2;
	}
	if (snprintf(path, sizeof(path), "%s/index", argv[1]) >= (int)sizeof(path))
		return 2;
	git_libgit2_init();
	if (git_index_open(&index, path) == 0) {
		for (size_t i = 0; i < git_index_entrycount(index); i++) {
			const git_index_entry *e = git_index_get_byindex(index, i);
			char hex[GIT_OID_HEXSZ + 1];

			git_oid_tostr(hex, sizeof(hex), &e->id);
			printf("%06o %s %d\t%s%c", e->mode, hex, git_index_entry_stage(e), e->path, '\0');
		}
		r = 0;
	} else {
		fprintf(stderr, "%s: %s\n", path, git_error_last() ? git_error_last()->message : "?");
	}
	git_index_free(index);
	git_libgit2_shutdown();
	return r;
}
