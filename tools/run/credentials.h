/* Home credential paths (seed 000, "Credential files outside the working
 * directory"): in a home the sandbox sees, each that exists reads as empty:
 * a folder empty and read-only, a file empty. A missing one is left alone,
 * so a command may make its own. Nothing is looked at through a link: the
 * sandbox can write the homes it sees, so a link there may be one a command
 * planted (.kube pointing at its tests), and following it would hide what
 * it points at. Such a link, at a credential path or on the way to one, is
 * covered itself: it reads as an empty file, and what it names stays as it
 * is. Each folder on the way (.config, .docker) is pinned under a mount of
 * itself, so a command cannot rename it, with the credential in it, to a
 * name the next run would not hide. */
#pragma once

#include <stddef.h>

/* .ssh, .aws, .config/gcloud, .azure, .kube, .gnupg, .config/gh,
 * .docker/config.json, .netrc, .git-credentials, .npmrc, .pypirc */
extern const char *const credential_paths[];
extern const size_t n_credential_paths;

/* Covers each credential path present below HOMEFD (an O_PATH descriptor of
 * the home as the sandbox sees it): a folder with an empty read-only tmpfs,
 * anything else with a read-only copy of the mount of EMPTY_FILE (an O_PATH
 * descriptor of an empty file). TREE is the working tree's path relative
 * to the home when it lies inside it, else NULL: nothing inside the tree is
 * hidden, nor a path that holds it. Returns how many it covered, or -errno
 * with the path in *FAILED (static storage). */
int credentials_hide(int homefd, int empty_file, const char *tree, const char **failed);
