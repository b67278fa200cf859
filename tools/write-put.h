/* How oz0fs --write puts the bytes in place, so that readers never see half
 * a file and nothing swapped in during the write can redirect it: the bytes
 * go into a new file made in the held folder (O_TMPFILE: no name, nobody
 * else can open it; where the file system lacks it, a fresh random name,
 * O_EXCL), reach the disk, and only then does the file take its name,
 * relative to that folder: a rename onto an existing file, which replaces
 * whatever the name holds by then (a link swapped in is replaced itself,
 * never followed), or a link onto a missing name, which fails if something
 * took the name meanwhile. Between the two steps the caller re-checks and
 * audits. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* ".oz0fs-write-" and 16 hex digits. */
#define WRITE_PUT_NAME_SIZE 32

struct write_put {
	int dirfd; /* the folder, the caller's */
	int fd;    /* the new file */
	bool named; /* it has TMPNAME in the folder (no O_TMPFILE there, or linked already) */
	char tmpname[WRITE_PUT_NAME_SIZE];
};

/* A fresh temporary name, from getrandom(2). Returns 0 or -errno. */
int write_put_name(char name[static WRITE_PUT_NAME_SIZE]);

/* Makes the new file in DIRFD (O_PATH will do) with LEN bytes of DATA and
 * exactly MODE, on the disk when this returns; TMPNAME is the name it takes
 * where it must take one. Returns 0, or -errno with nothing left behind. */
int write_put_stage(struct write_put *p, int dirfd, const char *tmpname, const char *data, size_t len, mode_t mode);

/* Gives the new file NAME: REPLACE, renamed onto the file there; else
 * linked to the missing NAME (-EEXIST when it was taken meanwhile). The
 * folder is synced. Returns 0, or -errno with the temporary name gone. */
int write_put_commit(struct write_put *p, const char *name, bool replace);

/* Closes the new file, removing its temporary name if it has one. */
void write_put_discard(struct write_put *p);

/* Tests make every new file as on a file system without O_TMPFILE. */
void write_put_force_named(bool on);
