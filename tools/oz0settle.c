/* oz0settle: the settler's command (git/settle/settle.h).
 *
 *   oz0settle record [--seen-as PATH] DIR STATE
 *   oz0settle settle [--dry-run] [--seen-as PATH] DIR STATE
 *
 * record: 0 recorded, 1 DIR could not be recorded, 2 a usage error.
 * settle: 0 nothing to settle, 1 it acted or could not settle something
 * (the run fails), 2 a usage error, or STATE missing, unreadable, inside
 * DIR or not for DIR (nothing is changed). STATE is never removed here. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountinfo.h"
#include "common/tree-place.h"
#include "git/settle/settle.h"

#define EXIT_ACTED 1
#define EXIT_USAGE 2

static const char usage[] = "usage: oz0settle record [--seen-as PATH] DIR STATE\n"
                            "       oz0settle settle [--dry-run] [--seen-as PATH] DIR STATE\n";

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("oz0settle: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

struct args {
	bool record;
	bool dry_run;
	const char *seen_as;
	const char *dir;
	const char *state;
};

static void parse_args(int argc, char **argv, struct args *a)
{
	enum { OPT_DRY_RUN = 256, OPT_SEEN_AS, OPT_HELP };
	static const struct option options[] = {
	        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
	        {"seen-as", required_argument, NULL, OPT_SEEN_AS},
	        {"help", no_argument, NULL, OPT_HELP},
	        {0},
	};
	int c;

	if (argc < 2)
		die(EXIT_USAGE, "a command is needed: record or settle\n%s", usage);
	if (strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		exit(0);
	}
	if (strcmp(argv[1], "record") && strcmp(argv[1], "settle"))
		die(EXIT_USAGE, "unknown command '%s': record or settle\n%s", argv[1], usage);
	a->record = strcmp(argv[1], "record") == 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case OPT_DRY_RUN:
			if (a->record)
				die(EXIT_USAGE, "--dry-run is for settle: record changes nothing");
			a->dry_run = true;
			break;
		case OPT_SEEN_AS:
			if (optarg[0] != '/')
				die(EXIT_USAGE, "--seen-as '%s': an absolute path is needed", optarg);
			a->seen_as = optarg;
			break;
		case OPT_HELP:
			fputs(usage, stdout);
			exit(0);
		default:
			die(EXIT_USAGE, "%s", usage);
		}
	}
	if (argc - optind != 2)
		die(EXIT_USAGE, "DIR and STATE are needed\n%s", usage);
	a->dir = argv[optind];
	a->state = argv[optind + 1];
	if (!*a->dir || !*a->state)
		die(EXIT_USAGE, "an empty file name");
}

/* Refuses a STATE in DIR (open as ROOTFD): the run could have written it.
 * The folder that holds it is placed, since STATE itself may not exist. */
static void check_state_outside(const char *state, int rootfd)
{
	_cleanup_free_ char *copy = strdup(state);
	int fd, place;

	if (!copy)
		die(EXIT_USAGE, "out of memory");
	fd = open(dirname(copy), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die(EXIT_USAGE, "cannot open the folder of '%s': %m", state);
	place = tree_place(fd, rootfd);
	close(fd);
	if (place < 0)
		die(EXIT_USAGE, "cannot tell whether '%s' lies inside the tree: %s", state, strerror(-place));
	if (place == TREE_PLACE_TREE || place == TREE_PLACE_INSIDE)
		die(EXIT_USAGE, "'%s' lies inside the tree, where the run could change it: keep STATE outside it", state);
}

/* Refuses a DIR that an oz0fs mount covers: the settler works on the tree
 * itself, which the mount would refuse to change. */
static void check_not_mounted(const char *dir, int rootfd)
{
	_cleanup_(mount_entry_clear) struct mount_entry m = {.id = -1};
	bool is_root;
	int id;

	if (mount_of_fd(rootfd, &id, &is_root) < 0 || !is_root || mountinfo_find(id, &m) < 0)
		return;
	if (strcmp(m.fstype, "fuse.oz0fs") == 0)
		die(EXIT_USAGE, "'%s' is an oz0fs mount: settle the tree itself once the run and its mount have ended",
		    dir);
}

static int record(int rootfd, const char *dir, const struct args *a)
{
	_cleanup_free_ char *err = NULL;
	struct settle_state st = {0};
	int r = settle_record(rootfd, dir, a->seen_as, &st, &err);

	if (r < 0)
		die(EXIT_ACTED, "%s", err ? err : strerror(-r));
	r = settle_state_write(&st, a->state);
	settle_state_done(&st);
	if (r == -E2BIG)
		die(EXIT_ACTED, "'%s' holds more git state than a STATE keeps", a->dir);
	if (r < 0)
		die(EXIT_ACTED, "cannot write '%s': %s", a->state, strerror(-r));
	return 0;
}

/* The STATE recorded for the tree open as ROOTFD, or exit 2. */
static void read_state(const char *file, int rootfd, struct settle_state *st)
{
	const char *why = NULL;
	struct stat tree;
	int r = settle_state_read(file, st, &why);

	if (r < 0)
		die(EXIT_USAGE, "cannot read STATE '%s': %s", file, why ? why : strerror(-r));
	if (fstat(rootfd, &tree) < 0)
		die(EXIT_USAGE, "cannot look at the tree: %m");
	if (st->dev != (uint64_t)tree.st_dev || st->ino != (uint64_t)tree.st_ino)
		die(EXIT_USAGE, "STATE '%s' was recorded for '%s', another folder: nothing is changed", file, st->dir);
}

static int settle(int rootfd, const struct args *a)
{
	_cleanup_free_ char *err = NULL;
	struct settle_state st = {0};
	struct settle_opts o = {.dry_run = a->dry_run, .out = stdout, .seen_as = a->seen_as};
	int r;

	read_state(a->state, rootfd, &st);
	r = settle_tree(rootfd, &st, &o, &err);
	settle_state_done(&st);
	if (r < 0)
		die(EXIT_ACTED, "cannot settle '%s': %s", a->dir, err ? err : strerror(-r));
	return r == 0 ? 0 : EXIT_ACTED;
}

int main(int argc, char **argv)
{
	struct args a = {0};
	_cleanup_free_ char *dir = NULL;
	int rootfd;

	parse_args(argc, argv, &a);
	rootfd = open(a.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		die(EXIT_USAGE, "cannot open '%s': %m", a.dir);
	dir = realpath(a.dir, NULL);
	if (!dir)
		die(EXIT_USAGE, "cannot resolve '%s': %m", a.dir);
	check_not_mounted(a.dir, rootfd);
	check_state_outside(a.state, rootfd);
	int status = a.record ? record(rootfd, dir, &a) : settle(rootfd, &a);
	close(rootfd);
	return status;
}
