/* The origin of the set (changeset/origin.h) once the walk is done: the
 * commit the checkout is at, and the agent's commits on top of it, escaped.
 * The commits are kept only when the walk found them all on the checkout's
 * HEAD: a message made of part of the history would say less than the
 * summary does. */
#include <stdio.h>

#include "writeback/git/gitbase.h"
#include "writeback/scan/scan_int.h"

static int keep_commits(struct wb_changeset *cs, struct rr_error *err)
{
    const struct wb_gitinfo *gi = &cs->git;

    if (gi->commits_more || gi->commits_off_base || gi->commits_packed)
        return 0;
    for (size_t i = 0; i < gi->n_commits; i++)
        if (wb_origin_add_commit(&cs->origin, gi->commits[i].s, gi->commits[i].len, gi->bodies[i].s,
                                 gi->bodies[i].len, err) < 0)
            return -1;
    return 0;
}

int sc_origin(struct scanner *sc)
{
    struct wb_changeset *cs = &sc->out->cs;
    char why[sizeof(cs->git.base_problem)];
    int r = wb_git_base(sc->out->lower_fd, &cs->origin.base, why, sizeof(why), sc->err);

    if (r < 0)
        return rr_wrap(sc->err, "the checkout's HEAD");
    if (r == 0)
        snprintf(cs->git.base_problem, sizeof(cs->git.base_problem), "%s", why);
    return keep_commits(cs, sc->err);
}
