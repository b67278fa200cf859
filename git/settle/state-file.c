#include "config.h"

/* STATE on disk (state.h): written beside itself and renamed into place,
 * read only from a regular file. The file is the runner's, outside the
 * tree, so it is named by a path; only its last component is guarded. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "common/replace-file.h"
#include "git/settle/state.h"

#define WHY_TOO_LARGE "the STATE is larger than a STATE may be"

/* rename() replaces a link at FILE itself, never what it points to. */
int settle_state_write(const struct settle_state *s, const char *file)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = settle_state_format(s, &buf, &len);

	return r < 0 ? r : replace_file(file, buf, len, 0600);
}

int settle_state_read(const char *file, struct settle_state *out, const char **why)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len;
	int r;

	*out = (struct settle_state){0};
	*why = NULL;
	/* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer, and
	 * fstat then refuses it. */
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode)) {
		*why = "the STATE is not a regular file";
		return -EINVAL;
	}
	r = (uint64_t)st.st_size > SETTLE_STATE_MAX_BYTES
	            ? -EFBIG
	            : read_fd_bounded(fd, (size_t)st.st_size, SETTLE_STATE_MAX_BYTES, &buf, &len);
	if (r == -EFBIG) {
		*why = WHY_TOO_LARGE;
		return -E2BIG;
	}
	return r < 0 ? r : settle_state_parse(buf, len, out, why);
}
