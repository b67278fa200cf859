#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "mountinfo.h"

/* The fields before the optional ones: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS. */
#define MOUNTINFO_FIXED_FIELDS 6

int mount_of_fd(int fd, int *id, bool *is_root)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) < 0)
		return negative_errno();
	if (!(stx.stx_mask & STATX_MNT_ID) || !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return -ENOSYS;
	*id = (int)stx.stx_mnt_id;
	*is_root = stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
	return 0;
}

/* The kernel writes ' ', '\t', '\n' and '\\' in a path as "\ooo". */
static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* Fills E from one line when it is mount ID's: "ID PARENT MAJ:MIN ROOT
 * MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS". Returns 1
 * when it is, 0 when not, -ENOMEM. */
static int parse_line(char *line, int id, struct mount_entry *e)
{
	char *field[MOUNTINFO_FIXED_FIELDS], *f, *fstype = NULL;
	size_t n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < MOUNTINFO_FIXED_FIELDS && (f = strsep(&line, " ")))
		field[n++] = f;
	if (n < MOUNTINFO_FIXED_FIELDS || strtol(field[0], NULL, 10) != id)
		return 0;
	while ((f = strsep(&line, " ")))
		if (strcmp(f, "-") == 0) {
			fstype = strsep(&line, " ");
			break;
		}
	if (!fstype)
		return 0;
	e->id = id;
	e->root = unescape(field[3]);
	e->mountpoint = unescape(field[4]);
	e->fstype = unescape(fstype);
	if (!e->root || !e->mountpoint || !e->fstype) {
		mount_entry_clear(e);
		return -ENOMEM;
	}
	return 1;
}

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

int mountinfo_find(int id, struct mount_entry *out)
{
	_cleanup_(fclosep) FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	*out = (struct mount_entry){.id = -1};
	if (!f)
		return negative_errno();
	while (getline(&line, &cap, f) > 0) {
		int r = parse_line(line, id, out);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	return -ENOENT;
}

void mount_entry_clear(struct mount_entry *e)
{
	free(e->root);
	free(e->mountpoint);
	free(e->fstype);
	*e = (struct mount_entry){.id = -1};
}
