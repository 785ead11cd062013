/* start, kill, destroy and state: each takes the container's lock, reads
 * its state, and acts on its processes only through pidfds of processes
 * whose start time matches the record. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/crashpoint.h"
#include "common/proc.h"
#include "common/version.h"
#include "runtime/confine/cgroup.h"
#include "runtime/confine/cgroup_freeze.h"
#include "runtime/container/container.h"
#include "runtime/container/statedir.h"
#include "runtime/container/engine.h"
#include "runtime/container/engine_checkout.h"
#include "runtime/container/engine_rootstore.h"
#include "runtime/container/idalloc.h"
#include "runtime/container/log.h"
#include "runtime/container/verbs.h"

#define STOP_GRACE_MS 5000

const char *container_status_name(enum container_status s)
{
    static const char *const names[] = {"creating", "created", "running", "stopped", "paused"};
    return names[s];
}

int container_root(const struct rr_ctx *ctx, bool create, struct rr_error *err)
{
    return statedir_root(ctx->root, create, err);
}

enum container_status container_status_of(int dirfd, const struct rr_state *s)
{
    struct proc_ref init;

    if (s == NULL || s->pid == 0)
        return STATUS_CREATING;
    init.pid = (pid_t)s->pid;
    init.start_time = s->pid_start;
    if (!proc_ref_alive(&init))
        return STATUS_STOPPED;
    if (cgroup_frozen(cgroup_version_parse(s->cgroup_version), s->cgroup))
        return STATUS_PAUSED;
    if (faccessat(dirfd, FIFO_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
        return STATUS_CREATED;
    return STATUS_RUNNING;
}

void opened_close(struct opened *o)
{
    if (o->have_state)
        state_free(&o->state);
    if (o->lock >= 0)
        close(o->lock);
    if (o->dir >= 0)
        close(o->dir);
    if (o->root >= 0)
        close(o->root);
    o->root = o->dir = o->lock = -1;
}

int open_container(const struct rr_ctx *ctx, const char *id, bool need_state, struct opened *o,
                   struct rr_error *err)
{
    *o = (struct opened){.root = -1, .dir = -1, .lock = -1};
    if (!rr_id_valid(id))
        return rr_fail(err, EINVAL, "invalid container ID");
    o->root = container_root(ctx, false, err);
    /* No state root yet: nothing was ever created here. */
    if (o->root < 0 && err->errnum == ENOENT)
        return rr_fail(err, ENOENT, "container does not exist");
    if (o->root < 0)
        return -1;
    o->dir = statedir_open(o->root, id, err);
    if (o->dir < 0)
        return -1;
    o->lock = statedir_lock(o->dir, err);
    if (o->lock < 0)
        return -1;
    /* A destroy that held the lock before us has removed the directory. */
    if (faccessat(o->dir, LOCK_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
        return rr_fail(err, ENOENT, "container does not exist");
    if (statedir_read_state(o->dir, &o->state, err) == 0) {
        o->have_state = true;
    } else if (need_state) {
        return rr_wrap(err, "container %s is not fully created (destroy it)", id);
    }
    return 0;
}

struct proc_ref init_ref(const struct rr_state *s)
{
    return (struct proc_ref){(pid_t)s->pid, s->pid_start};
}

static struct proc_ref monitor_ref(const struct rr_state *s)
{
    return (struct proc_ref){(pid_t)s->monitor_pid, s->monitor_start};
}

/* Open the fifo's reading end and wait for pid 1's byte (or its death).
 * The fifo and a pidfd of pid 1 are handed out for wait_exec. */
static int release(int dirfd, const struct rr_state *s, int *fifo_out, int *pidfd_out,
                   struct rr_error *err)
{
    struct proc_ref ref = init_ref(s);
    _cleanup_close_ int pidfd = proc_ref_pidfd(&ref);
    _cleanup_close_ int fifo = -1;
    struct pollfd pfd[2];
    char c;

    if (pidfd < 0)
        return rr_fail(err, ESRCH, "the container's process is gone");
    fifo = openat(dirfd, FIFO_FILE, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (fifo < 0)
        return rr_fail(err, errno, "exec fifo");
    pfd[0] = (struct pollfd){.fd = fifo, .events = POLLIN};
    pfd[1] = (struct pollfd){.fd = pidfd, .events = POLLIN};
    for (;;) {
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return rr_fail(err, errno, "poll");
        }
        if (pfd[0].revents & POLLIN)
            break;
        if (pfd[1].revents & POLLIN)
            return rr_fail(err, ESRCH, "the container's process ended before it started");
    }
    crash_point("start:fifo");
    if (read(fifo, &c, 1) != 1)
        return rr_fail(err, EPROTO, "the container did not confirm its start");
    if (unlinkat(dirfd, FIFO_FILE, 0) < 0)
        return rr_fail(err, errno, "remove exec fifo");
    *fifo_out = rr_steal_fd(&fifo);
    *pidfd_out = rr_steal_fd(&pidfd);
    return 0;
}

/* The fifo's end of file: an engine's process holds the writing end until
 * its exec (close-on-exec), revrun's own pid 1 closes it at once; or pid 1
 * is gone. Waited for without the container's lock, so that a delete
 * --force of a container stuck before its exec (a startContainer hook that
 * never ends) is not held up behind this start. */
static void wait_exec(int fifo, int pidfd)
{
    struct pollfd pfd[2] = {{.fd = fifo, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};

    for (;;) {
        char c;
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (pfd[1].revents & POLLIN)
            return;
        if (pfd[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(fifo, &c, 1);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                return;
        }
    }
}

int container_start(const struct rr_ctx *ctx, const char *id, struct rr_error *err)
{
    struct opened o;
    enum container_status st;
    _cleanup_close_ int fifo = -1;
    _cleanup_close_ int pidfd = -1;
    int r = -1;

    if (open_container(ctx, id, true, &o, err) < 0)
        goto out;
    st = container_status_of(o.dir, &o.state);
    if (st != STATUS_CREATED) {
        rr_fail(err, EINVAL, "container %s is %s, not created", id, container_status_name(st));
        goto out;
    }
    r = release(o.dir, &o.state, &fifo, &pidfd, err);
    if (r < 0)
        goto out;
    close(o.lock);
    o.lock = -1;
    wait_exec(fifo, pidfd);
    /* An engine's poststart hooks, after the exec: a failure is a warning,
     * the container runs on (the runtime spec's rule). */
    if (engine_state_is_engine(&o.state)) {
        struct rr_error hook_err;
        if (engine_after(o.dir, &o.state, RR_HOOK_POSTSTART, "running", &hook_err) < 0) {
            char text[RR_ERROR_MSG_MAX + 128];
            log_msg(LOG_WARN, "%s", rr_error_text(&hook_err, text, sizeof(text)));
        }
    }
out:
    opened_close(&o);
    return r < 0 ? rr_wrap(err, "start") : 0;
}

static int kill_impl(const struct rr_ctx *ctx, const char *id, int sig, bool all,
                     struct rr_error *err)
{
    struct opened o;
    enum container_status st;
    struct proc_ref ref;
    int r = -1;

    if (open_container(ctx, id, true, &o, err) < 0)
        goto out;
    st = container_status_of(o.dir, &o.state);
    /* runc's words: the shim and conmon match on them. */
    if (st != STATUS_CREATED && st != STATUS_RUNNING && st != STATUS_PAUSED) {
        rr_fail(err, ESRCH, "container not running (%s is %s)", id, container_status_name(st));
        goto out;
    }
    if (all) {
        r = container_signal_all(&o.state, sig, err);
        goto out;
    }
    ref = init_ref(&o.state);
    r = proc_ref_signal(&ref, sig, err);
    if (r < 0 && err->errnum == ESRCH)
        rr_fail(err, ESRCH, "container not running");
out:
    opened_close(&o);
    return r < 0 ? rr_wrap(err, "kill %s", id) : 0;
}

int container_kill(const struct rr_ctx *ctx, const char *id, int sig, struct rr_error *err)
{
    return kill_impl(ctx, id, sig, false, err);
}

int container_kill_all(const struct rr_ctx *ctx, const char *id, int sig, struct rr_error *err)
{
    return kill_impl(ctx, id, sig, true, err);
}

/* Stop the monitor (which kills pid 1 first); escalate if either lingers. */
int container_stop_processes(const struct rr_state *s, struct rr_error *err)
{
    struct proc_ref mon = monitor_ref(s), init = init_ref(s);

    if (proc_ref_alive(&mon)) {
        struct rr_error ignored;
        proc_ref_signal(&mon, SIGTERM, &ignored);
        if (proc_ref_wait_gone(&mon, STOP_GRACE_MS) < 0) {
            proc_ref_signal(&mon, SIGKILL, &ignored);
            proc_ref_wait_gone(&mon, STOP_GRACE_MS);
        }
    }
    if (proc_ref_alive(&init)) {
        struct rr_error ignored;
        proc_ref_signal(&init, SIGKILL, &ignored);
        if (proc_ref_wait_gone(&init, STOP_GRACE_MS) < 0)
            return rr_fail(err, ETIMEDOUT, "the container's pid 1 (%d) does not die",
                           (int)init.pid);
    }
    return 0;
}

/* As root: the container's host ids go back to the range, before its state
 * directory goes (until then no reclaimer frees them for another). */
int container_release_ids(const struct rr_ctx *ctx, const char *id, struct rr_error *err)
{
    char root[PATH_MAX];

    if (ctx->rootless)
        return 0;
    if (realpath(ctx->root, root) == NULL)
        return rr_fail(err, errno, "state root %s", ctx->root);
    return idalloc_release(root, id, err);
}

int container_destroy(const struct rr_ctx *ctx, const char *id, bool force,
                      struct rr_error *err)
{
    struct opened o;
    int r = -1;

    if (open_container(ctx, id, false, &o, err) < 0) {
        opened_close(&o);
        /* Destroying what is not there is done already. */
        if (err->errnum == ENOENT)
            return 0;
        return rr_wrap(err, "delete %s", id);
    }
    if (o.have_state) {
        enum container_status st = container_status_of(o.dir, &o.state);
        if ((st == STATUS_RUNNING || st == STATUS_PAUSED) && !force) {
            rr_fail(err, EBUSY, "cannot delete container %s that is not stopped: %s (stop it, or "
                    "delete --force)", id, container_status_name(st));
            goto out;
        }
        /* frozen (v1) tasks die of SIGKILL only once thawed */
        if (st == STATUS_PAUSED &&
            cgroup_set_frozen(cgroup_version_parse(o.state.cgroup_version), o.state.cgroup, false,
                              err) < 0)
            goto out;
        if (container_stop_processes(&o.state, err) < 0)
            goto out;
        crash_point("destroy:stopped");
        if (cgroup_remove(cgroup_version_parse(o.state.cgroup_version), o.state.cgroup, err) < 0)
            goto out;
        /* An engine's poststop hooks, once the process is gone: a failure
         * is a warning, the delete goes on. */
        if (engine_state_is_engine(&o.state)) {
            struct rr_error hook_err;
            if (engine_after(o.dir, &o.state, RR_HOOK_POSTSTOP, "stopped", &hook_err) < 0) {
                char text[RR_ERROR_MSG_MAX + 128];
                log_msg(LOG_WARN, "%s", rr_error_text(&hook_err, text, sizeof(text)));
            }
        }
    }
    /* io.revrun.checkout's store, and the image's private upper, that
     * create mounted in this namespace */
    if (o.have_state && engine_state_is_engine(&o.state) &&
        (engine_checkout_unmount(o.dir, err) < 0 || engine_root_store_unmount(o.dir, err) < 0))
        goto out;
    crash_point("destroy:cgroup");
    if (container_release_ids(ctx, id, err) < 0)
        goto out;
    r = statedir_remove(o.root, id, err);
out:
    opened_close(&o);
    return r < 0 ? rr_wrap(err, "delete %s", id) : 0;
}

/* What create tightened in an engine's config, one entry per field. */
static void engine_state_notes(struct json_writer *w, int dirfd)
{
    char text[16384];
    char *line, *save = NULL;

    if (engine_read_notes(dirfd, text, sizeof(text)) < 0)
        return;
    json_w_key(w, "tightened");
    json_w_begin_array(w);
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
        json_w_bytes(w, line, strlen(line));
    json_w_end_array(w);
}

static void state_extras(struct json_writer *w, int dirfd)
{
    struct rr_exit e;
    struct rr_error ignored;

    if (statedir_read_exit(dirfd, &e, &ignored) != 1)
        return;
    json_w_key(w, "exit");
    json_w_begin_object(w);
    if (WIFEXITED(e.wait_status))
        json_w_kv_int(w, "code", WEXITSTATUS(e.wait_status));
    if (WIFSIGNALED(e.wait_status))
        json_w_kv_int(w, "signal", WTERMSIG(e.wait_status));
    json_w_kv_bool(w, "timedOut", e.timed_out);
    json_w_kv_bool(w, "oomKilled", e.oom_killed);
    if (e.finished != NULL)
        json_w_kv_string(w, "finished", e.finished);
    if (e.error != NULL) {
        json_w_key(w, "error");
        json_w_bytes(w, e.error, strlen(e.error));
    }
    json_w_end_object(w);
    exit_free(&e);
}

/* The user name of uid, or the uid in decimal when it has none. */
static void owner_name(uint32_t uid, char *out, size_t len)
{
    struct passwd pw, *res = NULL;
    char buf[1024];

    if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res != NULL)
        snprintf(out, len, "%s", pw.pw_name);
    else
        snprintf(out, len, "%u", (unsigned)uid);
}

int container_state_json(const struct rr_ctx *ctx, const char *id, char **out,
                         struct rr_error *err)
{
    struct opened o;
    struct json_writer *w;
    enum container_status st;
    char owner[256];
    int r = -1;

    if (open_container(ctx, id, false, &o, err) < 0)
        goto out;
    st = container_status_of(o.dir, o.have_state ? &o.state : NULL);
    owner_name(o.have_state ? o.state.owner : (uint32_t)geteuid(), owner, sizeof(owner));
    w = json_writer_new(true);
    if (w == NULL) {
        rr_fail(err, ENOMEM, "state");
        goto out;
    }
    json_w_begin_object(w);
    json_w_kv_string(w, "ociVersion", REVRUN_SPEC_VERSION);
    json_w_kv_string(w, "id", id);
    json_w_kv_string(w, "status", container_status_name(st));
    json_w_kv_int(w, "pid", o.have_state && st != STATUS_STOPPED ? o.state.pid : 0);
    if (o.have_state) {
        json_w_key(w, "bundle");
        json_w_bytes(w, o.state.bundle, strlen(o.state.bundle));
        if (o.state.rootfs != NULL) {
            json_w_key(w, "rootfs");
            json_w_bytes(w, o.state.rootfs, strlen(o.state.rootfs));
        }
        json_w_kv_string(w, "created", o.state.created);
        /* runc's field: the creator, by name (a string, never a number) */
        json_w_kv_string(w, "owner", owner);
        if (o.state.n_annotations > 0) {
            json_w_key(w, "annotations");
            json_w_begin_object(w);
            for (size_t i = 0; i < o.state.n_annotations; i++) {
                json_w_key(w, o.state.annotations[2 * i]);
                json_w_bytes(w, o.state.annotations[2 * i + 1],
                             strlen(o.state.annotations[2 * i + 1]));
            }
            json_w_end_object(w);
        }
        json_w_key(w, "revrun");
        json_w_begin_object(w);
        json_w_kv_string(w, "backend", o.state.backend);
        json_w_kv_bool(w, "rootless", o.state.rootless);
        if (o.state.lower != NULL) {
            json_w_key(w, "lower");
            json_w_bytes(w, o.state.lower, strlen(o.state.lower));
        }
        state_extras(w, o.dir);
        if (engine_state_is_engine(&o.state))
            engine_state_notes(w, o.dir);
        json_w_end_object(w);
    }
    json_w_end_object(w);
    r = json_writer_finish(w, out, NULL, err);
    json_writer_free(w);
out:
    opened_close(&o);
    return r < 0 ? rr_wrap(err, "state %s", id) : 0;
}
