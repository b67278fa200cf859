#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "policy/explain-text.h"
#include "tools/write-walk.h"

/* What the walk found, refused unless it is a file or a missing name. */
static int check_target(const struct explain_target *t, struct write_refusal *no)
{
	bool link = t->exists && S_ISLNK(t->st.st_mode);

	if (!t->name)
		return write_refuse(no, WRITE_RULE_NOT_FILE, "the tree itself is a folder: only a file is written");
	if (link && t->rest)
		return write_refuse(no, WRITE_RULE_LINK, "%s on the way is a symbolic link: a write follows no link",
		                    t->path);
	if (t->rest)
		return write_refuse(no, WRITE_RULE_WALK, "%s on the way does not exist: a write makes no folder",
		                    t->path);
	if (link)
		return write_refuse(no, WRITE_RULE_LINK,
		                    "%s is a symbolic link: a write neither follows nor replaces one", t->path);
	if (t->exists && !S_ISREG(t->st.st_mode))
		return write_refuse(no, WRITE_RULE_NOT_FILE, "%s is a %s: only a regular file is written", t->path,
		                    explain_type(t));
	return 0;
}

/* Whether REL's last component names a folder whatever is there: a
 * trailing '/', "." or "..", which the walk would otherwise settle on the
 * name before them. */
static bool names_a_folder(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	const char *last = slash ? slash + 1 : rel;

	return !*last || strcmp(last, ".") == 0 || strcmp(last, "..") == 0;
}

int write_walk(int rootfd, const char *rel, struct write_place *p, struct write_refusal *no)
{
	_cleanup_free_ char *err = NULL;
	int r = explain_resolve(rootfd, rel, &p->t, &err);

	p->dirfd = -1;
	if (r >= 0 && names_a_folder(rel))
		return write_refuse(no, WRITE_RULE_NOT_FILE, "%s names a folder (it ends in '/', '.' or '..'): only a "
		                    "file is written", rel);
	if (r == -ENOMEM)
		return r;
	if (r == -EXDEV)
		return write_refuse(no, WRITE_RULE_OUTSIDE, "%s", err ? err : "the path leaves the tree");
	if (r < 0)
		return write_refuse(no, WRITE_RULE_WALK, "%s", err ? err : strerror(-r));
	r = check_target(&p->t, no);
	if (r != 0)
		return r;
	p->dirfd = p->t.dirfd;
	p->parent = (struct policy_id){p->t.folders[p->t.n_folders - 1].dev, p->t.folders[p->t.n_folders - 1].ino};
	p->exists = p->t.exists;
	return 0;
}

void write_place_free(struct write_place *p)
{
	explain_target_free(&p->t);
	p->dirfd = -1;
}
