/* The INI configuration (inih), read only from a file outside the tree.
 *
 *   [protect]            ; extra tree-relative paths held read-only (seed: sandbox.protect)
 *   path = .mcp.json
 *   path = .idea
 *   [unprotect]          ; frees one of the editor/agent defaults (seed: sandbox.unprotect)
 *   path = .envrc
 *   [deny]               ; roots oz0fs --check-path refuses to reads and writes (seed 004's denied_root)
 *   path = /srv/keys     ; absolute, or in the home of whoever asks: ~/.aws
 *   name = .env.agent    ; refused anywhere in the mounted tree, to reads too (seed 004 layer B); none by default
 *   [audit]
 *   file = /var/log/oz0fs/audit.log
 *   syslog = yes|no
 *   [commands]           ; the command rules (seed 002), see policy/command-rules.h
 *   deny = NAME          ; repeated: refused everywhere, inside sh -c too
 *   allow = NAME         ; repeated: when any, the only names allowed besides the builtins
 *   rm = refuse|allow    ; refuse unless set
 *   sudo = refuse|allow
 *   [ceiling]            ; the most any one oz0run sandbox is given (seed 000), see tools/run/ceiling.h
 *   memory_mb = 8192     ; each key at most once, kept as text: the runner judges the values
 *   pids = 2048
 *   cpus = 4
 *   file = /etc/oz0/ceiling.conf ; a file a fleet pushes, the same keys; until it reads, no sandbox starts
 *
 * A bad file refuses with "FILE:LINE: reason" in *errmsg.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define POLICY_CONFIG_DEFAULT_FILE "/etc/oz0fs/oz0fs.conf"

struct policy_config {
	char **protect;      /* normalised tree-relative paths: no '/', '.', '..' or empty components at the edges */
	size_t n_protect;
	char **unprotect;
	size_t n_unprotect;
	char **deny_paths;   /* "/a/b", "~" or "~/a/b": no '.', '..' or empty components */
	size_t n_deny_paths;
	char **deny_names;   /* entry names: no '/', not '.', '..', '.git' or empty */
	size_t n_deny_names;
	char *audit_file;    /* NULL when unset */
	bool audit_syslog;   /* also send refusals to syslog */
	char **command_deny; /* bare command names: no '/', blank or control byte */
	size_t n_command_deny;
	char **command_allow;
	size_t n_command_allow;
	bool command_allow_rm, command_allow_sudo;
	bool commands_configured; /* [commands] sets a key: oz0run judges its command by the rules */
	struct {
		char *memory_mb, *pids, *cpus; /* as written, NULL when unset */
		char *file;                    /* absolute, NULL when unset */
	} ceiling;
	char *file;          /* the file read, for reasons like "named in [protect] of FILE"; NULL for the defaults */
};

/* Returns 0 and a config, or -errno with a malloc'd one-line message. A NULL
 * FILE yields the defaults (all empty); an empty name is -EINVAL. Lines may
 * be as long as the file: inih's fixed line buffer is worked around. */
int policy_config_load(const char *file, struct policy_config **out, char **errmsg);
/* The same, refusing with -EXDEV a FILE inside the tree open as TREE_FD, or
 * a hard link on its file system (see common/tree-place.h): "FILE: inside the
 * tree being mounted, ...: keep the configuration outside the tree". */
int policy_config_load_outside(const char *file, int tree_fd, struct policy_config **out, char **errmsg);
void policy_config_free(struct policy_config *c);

/* The editor and agent paths protected by default at the tree root
 * (.claude, .codex, .cursor, .vscode/tasks.json, .envrc), NULL-terminated. */
extern const char *const policy_default_tool_paths[];

/* True when PATH is a default tool path that [unprotect] frees. */
bool policy_config_unprotected(const struct policy_config *c, const char *path);
