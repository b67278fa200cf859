#include "config.h"

/* Prints a repository's configuration as gitcfg_read() reads it, in the
 * form of `git config --list --show-origin --includes --null`
 * ("file:ORIGIN\0name\nvalue\0", or "file:ORIGIN\0name\0" for an implicit
 * true), so the oracle can compare bytes. Usage: cfgread-dump ROOT [GITDIR],
 * ROOT the tree's real path, GITDIR relative to it (default .git); $HOME as
 * git sees it. On failure prints "FILE: reason" to stderr and exits 4 (not
 * 1, which is what a sanitizer's report exits with). With
 * --files it prints the files looked at instead, one per line. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/config-read.h"

static const char *const state_names[] = {
	[GITCFG_FILE_READ] = "read",
	[GITCFG_FILE_MISSING] = "missing",
	[GITCFG_FILE_OUTSIDE] = "outside",
};

static void print_entries(const struct gitcfg_config *c)
{
	for (size_t i = 0; i < c->n_entries; i++) {
		const struct gitcfg_read_entry *e = &c->entries[i];

		if (c->files[e->file].dormant) /* git does not apply them now */
			continue;
		printf("file:%s%c%s", c->files[e->file].origin, '\0', e->name);
		if (e->value)
			printf("\n%s", e->value);
		putchar('\0');
	}
}

static void print_files(const struct gitcfg_config *c)
{
	for (size_t i = 0; i < c->n_files; i++) {
		const struct gitcfg_file *f = &c->files[i];

		printf("%s %s%s%s -> %s\n", state_names[f->state], f->urls_only ? "(urls) " : "",
		       f->dormant ? "(dormant) " : "", f->origin,
		       f->path ? f->path : "-");
	}
}

int main(int argc, char **argv)
{
	bool files = argc > 1 && !strcmp(argv[1], "--files");
	struct gitcfg_read_opts opts = {.home = getenv("HOME")};
	struct gitcfg_read_error err;
	struct gitcfg_config *c = NULL;
	_cleanup_close_ int rootfd = -1;
	int r;

	argv += files;
	argc -= files;
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: cfgread-dump [--files] ROOT [GITDIR]\n");
		return 2;
	}
	opts.root_path = argv[1];
	opts.gitdir = argc > 2 ? argv[2] : ".git";
	rootfd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		perror(argv[1]);
		return 2;
	}
	r = gitcfg_read(rootfd, &opts, &c, &err);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", err.file, err.reason);
		return 4;
	}
	if (files)
		print_files(c);
	else
		print_entries(c);
	gitcfg_config_free(c);
	return 0;
}
