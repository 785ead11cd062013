/* The Landlock rules: where the agent may write, whatever the mounts say. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <linux/mount.h>
#include <stdlib.h>

static int landlock_rule(struct profile *p, const char *path, enum landlock_access access)
{
    struct landlock_rule *v =
        realloc(p->landlock_rules, (p->n_landlock_rules + 1) * sizeof(*p->landlock_rules));

    if (v == NULL)
        return -1;
    p->landlock_rules = v;
    v[p->n_landlock_rules++] = (struct landlock_rule){path, access};
    return 0;
}

/* Landlock, under the mounts: the agent reads everywhere, and writes only to
 * the checkout (the overlay), to read-write tmpfs and binds (/tmp, $HOME,
 * /dev/shm, --out) and to the existing nodes of /dev, whatever a mount would
 * allow: a mistake in setting the mounts up (a root or a /dev left
 * writable, a bind missing its read-only flag) does not become write access.
 * Its own stdio files (a log file it was started with) stay reopenable
 * through /dev/stdout, terminals do not (reopening one would make it the
 * controlling terminal). Off with nested sandboxes: the kernel never lets a
 * Landlock-restricted process mount, and bwrap and unshare must. Required
 * unless revrun.bestEffort lists "landlock". */
int pf_judge_landlock(struct profile *p, struct rr_error *err)
{
    int r;

    p->landlock = LANDLOCK_OFF;
    if (p->allow_nested_sandboxes)
        return 0;
    p->landlock = profile_best_effort(p, "landlock") ? LANDLOCK_BEST_EFFORT : LANDLOCK_REQUIRED;
    p->landlock_stdio = !p->terminal;
    r = landlock_rule(p, "/", LANDLOCK_READ);
    if (r == 0)
        r = landlock_rule(p, p->checkout_path, LANDLOCK_WRITE);
    /* a worktree's git bookkeeping (index, objects, refs) goes to scratch */
    if (r == 0 && p->git_common.shown)
        r = landlock_rule(p, p->git_common.dest, LANDLOCK_WRITE);
    for (size_t i = 0; r == 0 && i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        if (m->is_dev || m->kind == MOUNT_DEVPTS)
            r = landlock_rule(p, m->destination, LANDLOCK_DEVICES);
        else if (m->kind != MOUNT_PROC && !(m->attr & MOUNT_ATTR_RDONLY))
            r = landlock_rule(p, m->destination, LANDLOCK_WRITE);
    }
    if (r < 0)
        return rr_fail(err, ENOMEM, "landlock rules");
    return 0;
}
