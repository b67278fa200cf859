/* The real test of whether this process can mount FUSE: an empty folder is
 * mounted with a minimal libfuse session in a child process, the kernel's
 * INIT request is read (it says the protocol version and what the kernel
 * offers, FUSE passthrough and io_uring among it), answered, and the folder unmounted. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct fuse_mount_probe {
	bool mounted;
	bool got_init; /* the fields below are the kernel's */
	uint32_t major, minor;
	bool passthrough;   /* FUSE_PASSTHROUGH offered */
	bool over_io_uring; /* FUSE_OVER_IO_URING offered */
	char error[256];  /* why not, when !mounted or !got_init */
};

/* Gives up after TIMEOUT_S seconds. Returns 0 (OUT says what happened) or
 * -errno when the probe itself could not run. */
int fuse_mount_probe(unsigned timeout_s, struct fuse_mount_probe *out);

/* Reads the kernel's INIT request, the first a session receives (exposed for
 * the unit test). Returns 0, or -EINVAL when BUF is not an INIT request. */
int fuse_init_parse(const void *buf, size_t len, struct fuse_mount_probe *out);
