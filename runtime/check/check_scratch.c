/* `revrun check`: the real thing. A container of the config's shape (the
 * bundle's, or the default spec) over an empty scratch lower, in a state
 * root of the check's own: created, started with `true`, waited for and
 * destroyed, by the same library calls `create`, `start` and `destroy`
 * make. Whatever the step probes say, this is the verdict: check exits
 * non-zero whenever create would fail here. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/check/check.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"
#include "runtime/container/sync.h"

#define SCRATCH_ID "check"

/* The monitor's word that `true` has exited, and how. */
static int await_exit(int fd, struct sync_msg *m, struct rr_error *err)
{
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        /* `true` ends at once; a minute is for a loaded machine */
        int r = poll(&pfd, 1, 60000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return rr_fail(err, r < 0 ? errno : ETIMEDOUT, "wait for `true` to exit");
        r = sync_recv(fd, m);
        if (r <= 0)
            return rr_fail(err, r < 0 ? errno : EPIPE, "lost the scratch container's monitor");
        if (m->type == SYNC_EXITED)
            return 0;
    }
}

static int run_scratch(const struct rr_ctx *sctx, const struct rr_config *cfg,
                       struct rr_error *err)
{
    struct create_opts co = {.id = SCRATCH_ID, .cfg = cfg, .attached = true};
    struct sync_msg m;
    struct rr_error ignored;
    int fd = -1, rc;

    if (container_create(sctx, &co, &fd, err) < 0)
        return -1;
    rc = container_start(sctx, SCRATCH_ID, err);
    if (rc == 0)
        rc = await_exit(fd, &m, err);
    if (rc == 0 && m.text[0] != '\0')
        rc = rr_fail(err, 0, "start `true`: %s", m.text);
    else if (rc == 0 && (!WIFEXITED(m.value) || WEXITSTATUS(m.value) != 0))
        rc = rr_fail(err, 0, "start `true`: it exited with status 0x%llx",
                     (unsigned long long)m.value);
    close(fd);
    if (container_destroy(sctx, SCRATCH_ID, true, &ignored) < 0 && rc == 0)
        rc = rr_fail(err, ignored.errnum, "destroy: %s", ignored.msg);
    return rc;
}

void check_scratch(struct check_report *r, const struct rr_ctx *ctx, const struct rr_config *cfg)
{
    struct rr_ctx sctx = *ctx;
    struct rr_strv warnings = {0};
    struct rr_error err;
    char root[PATH_MAX], text[RR_ERROR_MSG_MAX + 64];
    int rc;

    snprintf(root, sizeof(root), "%s/state", r->scratch);
    sctx.root = root;
    /* revrun's own words about the scratch container go into the report */
    log_collect_warnings(&warnings);
    log_set_stderr_level(LOG_ERROR + 1);
    rc = run_scratch(&sctx, cfg, &err);
    log_set_stderr_level(LOG_WARN);
    log_collect_warnings(NULL);
    for (size_t i = 0; i < warnings.n; i++)
        check_add(r, CHECK_INFO, false, "scratch warning", NULL, "%s", warnings.v[i]);
    strv_free(&warnings);
    if (rc == 0) {
        check_add(r, CHECK_OK, true, "scratch container", NULL,
                  "created, started `true`, destroyed: create works here");
        return;
    }
    r->create_failed = true;
    rr_error_text(&err, text, sizeof(text));
    check_add(r, CHECK_FAIL, true, "scratch container", NULL, "%s", text);
}
