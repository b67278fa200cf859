/* Why oz0fs --write refuses a write: the rule, in the audit log's and the
 * stderr line's words, and the reason. The rules of its own; a refusal may
 * also carry --check-path's (tools/check-path-roots.h, check-path-model.h)
 * or the judge's (POLICY_RULE_*). */
#pragma once

#define WRITE_RULE_OUTSIDE "outside-tree" /* PATH does not lie in the tree */
#define WRITE_RULE_WALK "walk"            /* a folder on the way is missing, a file, or cannot be searched */
#define WRITE_RULE_LINK "link"            /* a symbolic link on the way or as the target */
#define WRITE_RULE_NOT_FILE "not-a-file"  /* a folder, FIFO, socket or device */
#define WRITE_RULE_GIT_NAME "git-name"    /* a component named .git */
#define WRITE_RULE_GIT_DIR "git-dir"      /* inside a git directory of the model */
#define WRITE_RULE_TOO_LARGE "too-large"  /* past WRITE_MAX_SIZE */
#define WRITE_RULE_CHANGED "changed"      /* the tree changed under the write */
#define WRITE_RULE_AUDIT "audit"          /* the audit log did not take the line */
#define WRITE_RULE_FAIL_CLOSED "fail-closed" /* what cannot be judged or done is refused */

struct write_refusal {
	const char *rule; /* NULL: not refused */
	char *reason;
};

/* Fills NO. Returns 1 (refused), or -ENOMEM. */
int write_refuse(struct write_refusal *no, const char *rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void write_refusal_clear(struct write_refusal *no);
