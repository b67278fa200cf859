#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <strings.h>

#include "common/path-parts.h"
#include "tools/write-judge.h"

int write_check_name(const char *rel, struct write_refusal *no)
{
	const char *part;
	size_t n;

	for (const char *p = rel; path_next_part(&p, &part, &n);) {
		/* A volume that ignores case opens .GIT as .git. */
		if (n == 4 && strncasecmp(part, ".git", 4) == 0)
			return write_refuse(no, WRITE_RULE_GIT_NAME,
			                    "%s has a component named .git: an agent's write never touches a .git "
			                    "file or anything in a .git folder",
			                    rel);
	}
	return 0;
}

/* The first folder on the way, the tree included, that is a git directory. */
static const char *git_dir_on_the_way(const struct tree_model *tm, const struct write_place *p)
{
	for (size_t i = 0; i < p->t.n_folders; i++)
		if (git_model_is_git_dir(tm->model, (struct policy_id){p->t.folders[i].dev, p->t.folders[i].ino}))
			return p->t.folders[i].path;
	return NULL;
}

/* R, a policy_check_* answer for OP: refused unless 0 (a rename the judge
 * allows only for identical bytes is refused too: the bytes are new). */
static int mount_refuses(int r, const char *op, const struct write_place *p, const struct policy_verdict *v,
                         struct write_refusal *no)
{
	if (r == 0)
		return 0;
	return write_refuse(no, v->rule, "the mount refuses a %s of %s (%s %s: %s)", op, p->t.path, v->rule, v->path,
	                    v->reason);
}

/* The questions the mount would be asked for this write. */
static int ask_the_mount(const struct policy_snapshot *s, const struct write_place *p, const char *tmpname,
                         struct write_refusal *no)
{
	static const struct policy_id fresh = {0, 0};
	struct policy_id id = {(uint64_t)p->t.st.st_dev, (uint64_t)p->t.st.st_ino};
	const char *name = p->t.name;
	struct policy_verdict v = {0};
	int r;

	r = mount_refuses(policy_check_add(s, POLICY_OP_CREATE, p->parent, tmpname, &v), "create", p, &v, no);
	if (r == 0 && !p->exists)
		r = mount_refuses(policy_check_add(s, POLICY_OP_CREATE, p->parent, name, &v), "create", p, &v, no);
	if (r == 0 && p->exists)
		r = mount_refuses(policy_check_object(s, POLICY_OP_WRITE, id, &v), "write", p, &v, no);
	if (r == 0 && p->exists)
		r = mount_refuses(policy_check_object(s, POLICY_OP_TRUNCATE, id, &v), "truncate", p, &v, no);
	if (r == 0 && p->exists)
		r = mount_refuses(policy_check_rename(s, p->parent, tmpname, fresh, p->parent, name, &id, 0, &v),
		                  "rename", p, &v, no);
	return r;
}

int write_judge(const struct tree_model *tm, const struct write_place *p, const char *tmpname, const char **op,
                struct write_refusal *no)
{
	const char *gitdir;

	*op = p->exists ? "write" : "create";
	gitdir = git_dir_on_the_way(tm, p);
	if (gitdir)
		return write_refuse(no, WRITE_RULE_GIT_DIR,
		                    "%s lies in the git directory %s: an agent's write never touches git's own state",
		                    p->t.path, gitdir);
	return ask_the_mount(tm->snap, p, tmpname, no);
}
