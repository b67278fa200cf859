#include "config.h"

/* Prints a config file's entries as `git config --file F --list --null`
 * does ("name\nvalue\0", or "name\0" for an implicit true), so the oracle
 * can compare bytes. On a parse error it prints "bad config line N: reason"
 * to stderr and exits 1, or 3 when one of our limits (not git's rules)
 * refused the file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/cleanup.h"
#include "git/config-parse.h"

static int print_entry(const struct gitcfg_entry *e, void *userdata)
{
	(void)userdata;
	if (e->value)
		printf("%s\n%s%c", e->name, e->value, '\0');
	else
		printf("%s%c", e->name, '\0');
	return 0;
}

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

int main(int argc, char **argv)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_free_ char *buf = NULL;
	struct gitcfg_error err;
	size_t len;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "rb");
	/* One byte past the limit, so an oversized file reaches the parser. */
	buf = malloc(GITCFG_MAX_INPUT + 1);
	if (!f || !buf) {
		perror(argv[1]);
		return 2;
	}
	len = fread(buf, 1, GITCFG_MAX_INPUT + 1, f);
	r = gitcfg_parse(buf, len, argv[1], print_entry, NULL, &err);
	if (r >= 0)
		return 0;
	fprintf(stderr, "bad config line %d: %s\n", err.line, err.reason);
	return r == -EINVAL ? 1 : 3;
}
