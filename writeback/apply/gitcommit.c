#include "writeback/apply/gitcommit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/apply/gitcommit_int.h"

bool wb_ident_parse(const char *s, char **name, char **email)
{
    const char *lt = strchr(s, '<'), *gt = strrchr(s, '>');
    size_t nlen;

    *name = *email = NULL;
    if (lt == NULL || gt == NULL || gt < lt || gt[1] != '\0' || strchr(lt + 1, '<') ||
        memchr(s, '>', (size_t)(gt - s)) || strchr(s, '\n') || gt == lt + 1)
        return false;
    for (nlen = (size_t)(lt - s); nlen > 0 && s[nlen - 1] == ' ';)
        nlen--;
    if (nlen == 0)
        return false;
    *name = strndup(s, nlen);
    *email = strndup(lt + 1, (size_t)(gt - lt - 1));
    if (*name == NULL || *email == NULL) {
        free(*name);
        free(*email);
        *name = *email = NULL;
        return false;
    }
    return true;
}

static int refuse(struct committer *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct committer *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->res->why, sizeof(c->res->why), fmt, ap);
    va_end(ap);
    return 1;
}

/* REPO opened as it is (no search upwards), its owner known (written as
 * from write_commit on; what comes before only reads, as ourselves: root's
 * own ~/.gitconfig is no one else's to read). */
static int open_repo(struct committer *c)
{
    int r =
        c->g2->git_repository_open_ext(&c->repo, c->o->repo, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);

    if (r < 0)
        return refuse(c, "%s is not a git repository revrun can open: %s", c->o->repo,
                      wb_git2_error(c->g2));
    return wb_owner_of(c->g2->git_repository_commondir(c->repo), &c->owner, c->err);
}

static int find_base(struct committer *c)
{
    const struct wb_origin *o = &c->cs->origin;
    git_oid id;

    if (!wb_origin_has_base(o))
        return refuse(c, "the set records no base commit (the review's checkout was not a git "
                         "checkout at a commit revrun could read): apply it as files instead");
    if (c->g2->git_oid_fromstr(&id, o->base.commit) < 0 ||
        c->g2->git_commit_lookup(&c->base, c->repo, &id) < 0)
        return refuse(c,
                      "the set was made on commit %s, which %s does not hold: fetch it, "
                      "then apply again",
                      o->base.commit, c->o->repo);
    c->g2->git_oid_tostr(c->res->commit, sizeof(c->res->commit),
                         c->g2->git_commit_tree_id(c->base));
    if (strcmp(c->res->commit, o->base.tree) != 0)
        return refuse(c, "commit %s holds tree %s, not the recorded %s", o->base.commit,
                      c->res->commit, o->base.tree);
    c->res->commit[0] = '\0';
    if (c->g2->git_tree_lookup(&c->base_tree, c->repo, c->g2->git_commit_tree_id(c->base)) < 0)
        return gc_fail(c, "the base commit's tree");
    return 0;
}

static bool ref_exists(struct committer *c, const char *refname)
{
    git_reference *ref = NULL;

    if (c->g2->git_reference_lookup(&ref, c->repo, refname) < 0)
        return false;
    c->g2->git_reference_free(ref);
    return true;
}

/* The branch's name, valid and free: neither it nor a branch on its way
 * ("revrun" for "revrun/ID") exists. */
static int check_branch(struct committer *c)
{
    const struct wb_origin *o = &c->cs->origin;
    char prefix[sizeof(c->refname)];
    int valid = 0;

    if (c->o->branch)
        snprintf(c->res->branch, sizeof(c->res->branch), "%s", c->o->branch);
    else if (o->review)
        snprintf(c->res->branch, sizeof(c->res->branch), "revrun/%s", o->review);
    else
        snprintf(c->res->branch, sizeof(c->res->branch), "revrun/%.12s", c->o->digest_hex);
    snprintf(c->refname, sizeof(c->refname), "refs/heads/%s", c->res->branch);
    if ((c->o->branch && strlen(c->o->branch) > WB_BRANCH_MAX) ||
        c->g2->git_reference_name_is_valid(&valid, c->refname) < 0 || !valid)
        return refuse(c, "%s is not a branch name git takes", c->res->branch);
    if (ref_exists(c, c->refname))
        return refuse(c, "the branch %s exists already in %s: pass --branch NAME", c->res->branch,
                      c->o->repo);
    for (size_t i = 11; c->refname[i] != '\0'; i++) {
        if (c->refname[i] != '/')
            continue;
        snprintf(prefix, sizeof(prefix), "%.*s", (int)i, c->refname);
        if (ref_exists(c, prefix))
            return refuse(c, "the branch %s is in the way of %s in %s: pass --branch NAME",
                          prefix + 11, c->res->branch, c->o->repo);
    }
    return 0;
}

/* One identity: the option's, else the repository's config (as git reads
 * it), else fallback's. */
static int identity(struct committer *c, const char *opt, git_signature *fallback,
                    git_signature **out, const char *which)
{
    _cleanup_free_ char *name = NULL, *email = NULL;
    int r;

    if (opt != NULL) {
        if (!wb_ident_parse(opt, &name, &email))
            return refuse(c, "--%s %s: expected \"Name <email>\"", which, opt);
        r = c->g2->git_signature_now(out, name, email);
    } else if ((r = c->g2->git_signature_default(out, c->repo)) == GIT_ENOTFOUND && fallback) {
        r = c->g2->git_signature_now(out, fallback->name, fallback->email);
    } else if (r == GIT_ENOTFOUND) {
        return refuse(c,
                      "no %s: pass --%s \"Name <email>\", or set user.name and user.email "
                      "in %s's config",
                      which, which, c->o->repo);
    }
    return r < 0 ? gc_fail(c, which) : 0;
}

/* Everything that can refuse, before anything is written. */
static int preflight(struct committer *c)
{
    char why[sizeof(c->res->why)];
    int r;

    if ((r = open_repo(c)) != 0 || (r = find_base(c)) != 0 || (r = check_branch(c)) != 0 ||
        (r = identity(c, c->o->author, NULL, &c->author, "author")) != 0 ||
        (r = identity(c, c->o->committer, c->author, &c->committer, "committer")) != 0)
        return r;
    r = wb_commit_dirs_ok(c->g2->git_repository_commondir(c->repo), c->refname, why, sizeof(why),
                          c->err);
    if (r == 0)
        return refuse(c, "%s", why);
    if (r < 0)
        return -1;
    if ((r = gc_check_bases(c)) == 1)
        return refuse(c,
                      "the base commit %s does not hold the base of %zu path%s the set "
                      "changes",
                      c->cs->origin.base.commit, c->res->conflicts.n,
                      c->res->conflicts.n == 1 ? "" : "s");
    return r;
}

static int write_commit(struct committer *c)
{
    const struct wb_git2 *g2 = c->g2;
    const git_commit *parents[1] = {c->base};
    git_oid tree_id, commit_id;
    git_tree *tree = NULL;
    git_reference *ref = NULL;
    char log[128];
    int r;

    if (gc_build_tree(c, &tree_id) < 0)
        return -1;
    if (g2->git_oid_cmp(&tree_id, g2->git_commit_tree_id(c->base)) == 0)
        return refuse(c, "the set changes nothing git records (only empty directories)");
    if (g2->git_tree_lookup(&tree, c->repo, &tree_id) < 0)
        return gc_fail(c, "the new tree");
    r = g2->git_commit_create(&commit_id, c->repo, NULL, c->author, c->committer, NULL,
                              c->o->message, tree, 1, parents);
    g2->git_tree_free(tree);
    if (r < 0)
        return gc_fail(c, "the commit");
    g2->git_oid_tostr(c->res->commit, sizeof(c->res->commit), &commit_id);
    /* last, and all or nothing: the ref appears whole or not at all */
    snprintf(log, sizeof(log), "revrun apply --commit: sha256:%.64s", c->o->digest_hex);
    if (g2->git_reference_create(&ref, c->repo, c->refname, &commit_id, 0, log) < 0)
        return gc_fail(c, "the branch");
    g2->git_reference_free(ref);
    return 0;
}

static void release(struct committer *c)
{
    const struct wb_git2 *g2 = c->g2;

    wb_owner_leave(&c->owner);
    g2->git_signature_free(c->author);
    g2->git_signature_free(c->committer);
    g2->git_tree_free(c->base_tree);
    g2->git_commit_free(c->base);
    g2->git_repository_free(c->repo);
    wb_git2_release(g2);
}

int wb_commit_apply(const struct wb_changeset *cs, const struct wb_source *src,
                    const struct wb_commit_opts *o, struct wb_commit_result *res,
                    struct rr_error *err)
{
    struct committer c = {.cs = cs, .src = src, .o = o, .res = res, .err = err};
    int r;

    memset(res, 0, sizeof(*res));
    if ((c.g2 = wb_git2_acquire_operator(err)) == NULL)
        return -1;
    if ((r = preflight(&c)) == 0 && (r = wb_owner_enter(&c.owner, err)) == 0)
        r = write_commit(&c);
    release(&c);
    return r;
}

void wb_commit_result_free(struct wb_commit_result *res)
{
    wb_notes_free(&res->conflicts);
}
