#include "runtime/container/verbs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/confine/cgroup_freeze.h"
#include "runtime/container/container.h"
#include "runtime/container/members.h"
#include "runtime/confine/profile/profile.h"

int container_signal_all(const struct rr_state *s, int sig, struct rr_error *err)
{
    struct members m;
    int r;

    if (members_collect(s, &m, err) < 0)
        return -1;
    r = members_signal(&m, sig, err);
    members_free(&m);
    return r;
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

int container_pids(const struct rr_ctx *ctx, const char *id, pid_t **pids, size_t *n,
                   struct rr_error *err)
{
    struct opened o;
    struct members m = {0};
    int r = -1;

    *pids = NULL;
    *n = 0;
    if (open_container(ctx, id, true, &o, err) < 0)
        goto out;
    if (container_status_of(o.dir, &o.state) == STATUS_STOPPED) {
        r = 0;
        goto out;
    }
    if (members_collect(&o.state, &m, err) < 0)
        goto out;
    *pids = calloc(m.n > 0 ? m.n : 1, sizeof(pid_t));
    if (*pids == NULL) {
        rr_fail(err, ENOMEM, "ps");
        goto out;
    }
    memcpy(*pids, m.pids, m.n * sizeof(pid_t));
    *n = m.n;
    qsort(*pids, *n, sizeof(pid_t), cmp_pid);
    r = 0;
out:
    members_free(&m);
    opened_close(&o);
    return r < 0 ? rr_wrap(err, "ps %s", id) : 0;
}

int container_pause(const struct rr_ctx *ctx, const char *id, bool pause, struct rr_error *err)
{
    struct opened o;
    enum container_status st;
    int r = -1;

    if (open_container(ctx, id, true, &o, err) < 0)
        goto out;
    st = container_status_of(o.dir, &o.state);
    /* runc's words */
    if (pause && st != STATUS_RUNNING && st != STATUS_CREATED) {
        rr_fail(err, EINVAL, st == STATUS_PAUSED ? "container already paused"
                                                 : "container not running");
        goto out;
    }
    if (!pause && st != STATUS_PAUSED) {
        rr_fail(err, EINVAL, "container not paused");
        goto out;
    }
    r = cgroup_set_frozen(cgroup_version_parse(o.state.cgroup_version), o.state.cgroup, pause,
                          err);
out:
    opened_close(&o);
    return r < 0 ? rr_wrap(err, "%s %s", pause ? "pause" : "resume", id) : 0;
}

int container_update(const struct rr_ctx *ctx, const char *id, const struct rr_resources *res,
                     struct rr_error *err)
{
    struct opened o;
    int r = -1;

    if (open_container(ctx, id, true, &o, err) < 0)
        goto out;
    if (container_status_of(o.dir, &o.state) == STATUS_STOPPED) {
        rr_fail(err, ESRCH, "container not running");
        goto out;
    }
    /* The rules are the same for every container (never lifted, only
     * changed), so no profile is rebuilt from config.json: an engine
     * container's config is not a review's (a pod's container has no user
     * namespace of its own in it), and only the cgroup in the state file is
     * written. */
    if (profile_judge_update(NULL, res, err) < 0)
        goto out;
    r = cgroup_update(cgroup_version_parse(o.state.cgroup_version), o.state.cgroup, res, err);
out:
    opened_close(&o);
    return r < 0 ? rr_wrap(err, "update %s", id) : 0;
}
