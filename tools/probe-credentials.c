/* Read-protection of home credential paths (seed 000, "Credential files
 * outside the working directory"): the runner is what would hide them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "tools/probes.h"

static const char *const credential_paths[] = {
        ".ssh",   ".aws",       ".config/gcloud",      ".azure", ".kube",
        ".gnupg", ".config/gh", ".docker/config.json", ".netrc", ".git-credentials",
        ".npmrc", ".pypirc",
};

/* The seed's paths that exist in HOME, looked at without following a link
 * at the end ("a, b, c"), into LIST. */
static void present_in(const char *home, char *list, size_t size)
{
	_cleanup_close_ int fd = open(home, O_PATH | O_DIRECTORY | O_CLOEXEC);
	size_t len = 0;
	struct stat st;

	list[0] = '\0';
	for (size_t i = 0; fd >= 0 && i < ELEMENTSOF(credential_paths) && len < size; i++) {
		if (fstatat(fd, credential_paths[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			len += (size_t)snprintf(list + len, size - len, "%s%s", len ? ", " : "", credential_paths[i]);
	}
}

int probe_credentials(struct report *r)
{
	const char *home = getenv("HOME");
	char list[512];

	if (!home || !*home)
		return report_add(r, "credential_read_protection", "Read-protected credential paths", REPORT_OFF,
		                  "oz0run, which would hide them from a sandbox, is not built yet; HOME is not set");
	present_in(home, list, sizeof(list));
	return report_add(r, "credential_read_protection", "Read-protected credential paths", REPORT_OFF,
	                  "oz0run, which would hide them from a sandbox, is not built yet, so a command reads "
	                  "whatever this user can; %s %s%s%s",
	                  list[0] ? "present in" : "none of the seed's paths exists in", home, list[0] ? ": " : "",
	                  list);
}
