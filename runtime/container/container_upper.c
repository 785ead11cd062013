/* The write-back stage's handle on a bundle: only once the container has
 * stopped, and only while its monitor (which holds the upper's store) lives.
 * The upper is reached through the monitor's root (/proc/PID/root), whose
 * identity is checked before and after by pid and start time. */
#include "runtime/container/container_upper.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/container/container.h"
#include "runtime/container/engine.h"
#include "runtime/container/engine_checkout.h"
#include "common/proc.h"
#include "runtime/container/statedir.h"

static int open_in_monitor(const struct rr_ctx *ctx, const struct rr_state *s, const char *rel,
                           struct rr_error *err)
{
    struct proc_ref mon = {(pid_t)s->monitor_pid, s->monitor_start};
    char root[PATH_MAX], path[PATH_MAX * 2];
    _cleanup_close_ int pidfd = proc_ref_pidfd(&mon);
    int fd;

    if (pidfd < 0)
        return rr_fail(err, ESRCH,
                       "the container's monitor is gone, and the upper with it (the bundle "
                       "can only be destroyed)");
    if (realpath(ctx->root, root) == NULL)
        return rr_fail(err, errno, "state root");
    snprintf(path, sizeof(path), "/proc/%d/root%s/%s/%s", (int)mon.pid, root, s->id, rel);
    fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "open %s", rel);
    /* The pid could have been reused between the check and the open. */
    if (!proc_ref_alive(&mon)) {
        close(fd);
        return rr_fail(err, ESRCH, "the container's monitor went away");
    }
    return fd;
}

/* A worktree checkout's main git directory was shown: its upper is in the
 * store beside the checkout's (none there: it was not). */
static int open_git_upper(const struct rr_ctx *ctx, const struct rr_state *s,
                          struct container_upper *out, struct rr_error *err)
{
    struct rr_error why;

    out->git_upper_fd = open_in_monitor(ctx, s, STORE_DIR "/" STORE_GIT_UPPER, &why);
    if (out->git_upper_fd >= 0 || why.errnum == ENOENT)
        return 0;
    *err = why;
    return -1;
}

static int load_policy(int dirfd, struct rr_writeback_policy *out, struct rr_error *err)
{
    struct rr_config cfg;
    struct json_node *root = NULL;

    if (json_parse_file(dirfd, CONFIG_FILE, &json_limits_config, &root, err) < 0)
        return -1;
    if (config_from_json(root, &cfg, err) < 0) {
        json_free(root);
        return -1;
    }
    json_free(root);
    *out = cfg.revrun.writeback;
    cfg.revrun.writeback = (struct rr_writeback_policy){0};
    config_free(&cfg);
    return 0;
}

int container_open_upper(const struct rr_ctx *ctx, const char *id, struct container_upper *out,
                         struct rr_error *err)
{
    _cleanup_close_ int rootfd = -1;
    _cleanup_close_ int dir = -1;
    struct rr_state s;
    int r = -1;

    *out = (struct container_upper){.lower_fd = -1, .upper_fd = -1, .git_upper_fd = -1};
    rootfd = container_root(ctx, false, err);
    if (rootfd < 0 || (dir = statedir_open(rootfd, id, err)) < 0)
        return rr_wrap(err, "container %s", id);
    if (statedir_read_state(dir, &s, err) < 0)
        return rr_wrap(err, "container %s", id);
    if (container_status_of(dir, &s) != STATUS_STOPPED) {
        rr_fail(err, EBUSY, "container %s is still running: write-back reads the upper only "
                            "after everything in it has stopped", id);
        goto out;
    }
    /* An engine's container (io.revrun.checkout): no monitor; the store is
     * mounted on its state directory in create's mount namespace. */
    out->upper_fd = engine_state_is_engine(&s) ? engine_checkout_open_upper(dir, err)
                                               : open_in_monitor(ctx, &s, STORE_DIR "/upper", err);
    if (out->upper_fd < 0)
        goto out;
    if (!engine_state_is_engine(&s) && open_git_upper(ctx, &s, out, err) < 0)
        goto out;
    if (s.lower == NULL) {
        rr_fail(err, ENOENT, "no checkout recorded");
        goto out;
    }
    out->lower_fd = open(s.lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (out->lower_fd < 0) {
        rr_fail(err, errno, "open the checkout %s", s.lower);
        goto out;
    }
    if (engine_state_is_engine(&s) && engine_checkout_check_lower(dir, out->lower_fd, err) < 0) {
        rr_wrap(err, "checkout %s", s.lower);
        goto out;
    }
    out->format = WB_FORMAT_OVERLAY_USERXATTR;
    {
        char buf[16];
        const char *b = engine_state_is_engine(&s) ? engine_checkout_backend(dir, buf, sizeof(buf))
                                                   : s.backend;
        if (b != NULL && strcmp(b, "fuse") == 0)
            out->format = WB_FORMAT_FUSE_OVERLAYFS;
    }
    r = load_policy(dir, &out->policy, err);
out:
    state_free(&s);
    if (r < 0) {
        container_upper_release(out);
        return rr_wrap(err, "container %s", id);
    }
    return 0;
}

int container_open_home(const struct rr_ctx *ctx, const char *id, struct rr_error *err)
{
    _cleanup_close_ int rootfd = container_root(ctx, false, err);
    _cleanup_close_ int dir = rootfd < 0 ? -1 : statedir_open(rootfd, id, err);
    struct rr_state s;
    int fd = -1;

    if (dir < 0 || statedir_read_state(dir, &s, err) < 0)
        return rr_wrap(err, "container %s", id);
    if (container_status_of(dir, &s) != STATUS_STOPPED)
        rr_fail(err, EBUSY, "container %s is still running", id);
    else
        fd = open_in_monitor(ctx, &s, HOME_DIR, err);
    state_free(&s);
    return fd;
}

void container_upper_release(struct container_upper *cu)
{
    if (cu->lower_fd >= 0)
        close(cu->lower_fd);
    if (cu->upper_fd >= 0)
        close(cu->upper_fd);
    if (cu->git_upper_fd >= 0)
        close(cu->git_upper_fd);
    cu->lower_fd = cu->upper_fd = cu->git_upper_fd = -1;
    writeback_policy_free(&cu->policy);
}
