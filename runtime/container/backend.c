#include "runtime/container/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountapi.h"
#include "runtime/container/log.h"
#include "common/proc.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"

void backend_init(struct backend *b)
{
    memset(b, 0, sizeof(*b));
    b->kind = RR_BACKEND_NATIVE;
    b->bin.fd = -1;
    fuse_daemon_init(&b->fuse);
}

int backend_find(struct backend *b, const struct profile *p, struct rr_error *err)
{
    if (p->backend == RR_BACKEND_NATIVE)
        return 0;
    if (overlay_fuse_find(getenv(BACKEND_FUSE_ENV), &b->bin, &b->bin_err) == 0)
        return 0;
    if (p->backend == RR_BACKEND_AUTO)
        return 0; /* needed only if native fails: said then */
    *err = b->bin_err;
    return rr_wrap(err, "revrun.overlay \"fuse\"");
}

int backend_in_child(int (*fn)(void *arg, struct rr_error *err), void *arg, struct rr_error *err)
{
    struct rr_error child_err;
    int p[2], status;
    ssize_t n;
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) < 0)
        return rr_fail(err, errno, "pipe");
    pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return rr_fail(err, errno, "fork");
    }
    if (pid == 0) {
        struct rr_error e = {0};
        close(p[0]);
        if (fn(arg, &e) == 0)
            _exit(0);
        _exit(write(p[1], &e, sizeof(e)) == (ssize_t)sizeof(e) ? 1 : 2);
    }
    close(p[1]);
    do {
        n = read(p[0], &child_err, sizeof(child_err));
    } while (n < 0 && errno == EINTR);
    close(p[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (n == (ssize_t)sizeof(child_err)) {
        *err = child_err;
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return rr_fail(err, EIO, "the probe ended abnormally");
    return 0;
}

/* ---- auto: does kernel overlayfs mount over this checkout? ---- */

struct native_probe {
    int userns_fd; /* shaped as the container's: 0 -> the container user's host ids */
    int lower_mfd; /* a lower made exactly as for the container */
};

/* A scratch tmpfs holding l/, u/ and w/, attached on top of "/" of this
 * throwaway namespace (overlay layers must be attached in the mounter's
 * namespace; nothing else runs in this one). Returns its root. */
static int scratch_layers(struct rr_error *err)
{
    static const char *const opts[] = {"size=1m", "mode=0755"};
    _cleanup_close_ int scratch = rr_make_fs("tmpfs", opts, RR_ARRAY_SIZE(opts), 0, err);
    _cleanup_close_ int top = -1;
    _cleanup_close_ int root = -1;

    if (scratch < 0)
        return rr_wrap(err, "scratch upper");
    top = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return rr_fail(err, errno, "open /");
    if (rr_attach(scratch, top, err) < 0)
        return rr_wrap(err, "scratch upper");
    root = openat(scratch, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0 || mkdirat(root, "l", 0755) < 0 || mkdirat(root, "u", 0755) < 0 ||
        mkdirat(root, "w", 0755) < 0)
        return rr_fail(err, errno, "scratch layers");
    return rr_steal_fd(&root);
}

static int layer(int root, const char *name)
{
    return openat(root, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* In a throwaway child: what the container's pid 1 does, on a scratch
 * upper. The kernel's own reason comes back on failure. */
static int native_probe_child(void *arg, struct rr_error *err)
{
    const struct native_probe *np = arg;
    _cleanup_close_ int root = -1, l = -1, u = -1, w = -1, ovl = -1;

    if (setns(np->userns_fd, CLONE_NEWUSER) < 0 || setresgid(0, 0, 0) < 0 ||
        setresuid(0, 0, 0) < 0 || unshare(CLONE_NEWNS) < 0)
        return rr_fail(err, errno, "user and mount namespaces");
    root = scratch_layers(err);
    if (root < 0)
        return -1;
    l = layer(root, "l");
    if (l < 0)
        return rr_fail(err, errno, "scratch layers");
    if (rr_attach(np->lower_mfd, l, err) < 0)
        return rr_wrap(err, "attach the lower");
    close(rr_steal_fd(&l));
    l = layer(root, "l");
    u = layer(root, "u");
    w = layer(root, "w");
    if (l < 0 || u < 0 || w < 0)
        return rr_fail(err, errno, "scratch layers");
    ovl = overlay_mount_native(l, u, w, err);
    return ovl < 0 ? -1 : 0;
}

/* What the probe found: kernel overlayfs mounts, refuses (fuse-overlayfs may
 * still work), or something neither backend can do without (the checkout is
 * missing, user namespaces are refused). */
enum probe_result { NATIVE_WORKS, NATIVE_REFUSED, HOST_REFUSED };

static bool idmap_refused(const struct profile *p, const struct rr_error *err)
{
    /* EPERM of the mount_setattr itself, not of the user namespace the
     * idmap needs (that one stops both backends) */
    return p->idmap_lower && (err->errnum == EINVAL ||
                              (err->errnum == EPERM && strstr(err->msg, "mount_setattr") != NULL));
}

/* Whose host ids the checkout's owner becomes: the container user's (a
 * review), the engine's process user's (io.revrun.checkout). */
static uid_t lower_as_uid(const struct profile *p)
{
    return p->engine ? p->eng.lower_as_uid : p->host_uid;
}

static gid_t lower_as_gid(const struct profile *p)
{
    return p->engine ? p->eng.lower_as_gid : p->host_gid;
}

static enum probe_result probe_native(const struct profile *p, struct rr_error *err)
{
    struct native_probe np = {.userns_fd = -1, .lower_mfd = -1};
    /* As write_maps does for pid 1: rootless, the monitor's own namespace
     * maps the caller to 0. */
    uid_t uid = p->rootless ? 0 : p->host_uid;
    gid_t gid = p->rootless ? 0 : p->host_gid;
    enum probe_result r;

    np.lower_mfd = overlay_lower_open(p->lower, p->idmap_lower, p->lower_owner, p->lower_group,
                                      lower_as_uid(p), lower_as_gid(p), err);
    /* EINVAL: the checkout's filesystem refuses idmapped mounts; EPERM: it
     * was mounted outside the user namespace revrun runs in (a
     * user-namespaced container). The fuse backend copes with both; anything
     * else stops both. */
    if (np.lower_mfd < 0)
        return idmap_refused(p, err) ? NATIVE_REFUSED : HOST_REFUSED;
    np.userns_fd = overlay_idmap_userns(0, 0, uid, gid, err);
    if (np.userns_fd < 0)
        r = HOST_REFUSED;
    else
        r = backend_in_child(native_probe_child, &np, err) == 0 ? NATIVE_WORKS : NATIVE_REFUSED;
    close(np.lower_mfd);
    if (np.userns_fd >= 0)
        close(np.userns_fd);
    return r;
}

/* ---- fuse ---- */

/* The lower as for native; but where the checkout's filesystem refuses
 * idmapped mounts (overlayfs: revrun running as root inside a container),
 * a plain read-only one, and fuse-overlayfs shows every file as the
 * container user's (squash) so that the agent can still change them. */
static int fuse_lower(const struct profile *p, bool *squash, struct rr_error *err)
{
    int fd = overlay_lower_open(p->lower, p->idmap_lower, p->lower_owner, p->lower_group,
                                lower_as_uid(p), lower_as_gid(p), err);

    *squash = false;
    if (fd >= 0 || !idmap_refused(p, err))
        return fd;
    *squash = true;
    return overlay_lower_open(p->lower, false, 0, 0, 0, 0, err);
}

static int start_fuse(struct backend *b, const struct backend_env *e, struct rr_error *err)
{
    const struct profile *p = e->p;
    _cleanup_close_ int store = -1, lower = -1;
    struct fuse_spec s = {
        .bin = &b->bin,
        /* the identity the mount serves: the checkout's user */
        .uid = p->rootless ? 0 : lower_as_uid(p),
        .gid = p->rootless ? 0 : lower_as_gid(p),
        .cgroup = e->cgroup,
        .seccomp = e->seccomp,
        .outlive_parent = p->engine,
    };

    if (b->bin.fd < 0) {
        *err = b->bin_err;
        return -1;
    }
    lower = fuse_lower(p, &s.squash, err);
    if (lower < 0 || overlay_fuse_check_lower(lower, err) < 0 ||
        overlay_fuse_check_markers(lower, err) < 0)
        return -1;
    store = openat(e->state_dir, STORE_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (store < 0)
        return rr_fail(err, errno, "open the upper's store");
    s.lower_mfd = lower;
    s.store_fd = store;
    if (fuse_daemon_start(&s, &b->fuse, err) < 0) {
        if (p->rootless && err->errnum == EACCES)
            rr_wrap(err, "unprivileged, fuse-overlayfs needs /dev/fuse readable and writable by "
                         "you (most distributions make it 0666; here: sudo chmod 0666 "
                         "/dev/fuse; see `revrun check`)");
        return -1;
    }
    b->kind = RR_BACKEND_FUSE;
    return 0;
}

int backend_choose(struct backend *b, const struct backend_env *e, struct rr_error *err)
{
    struct rr_error native_err;
    char text[RR_ERROR_MSG_MAX + 64], msg[SYNC_TEXT_MAX];

    switch (e->p->backend) {
    case RR_BACKEND_NATIVE:
        b->kind = RR_BACKEND_NATIVE;
        return 0;
    case RR_BACKEND_FUSE:
        if (start_fuse(b, e, err) < 0)
            return rr_wrap(err, "revrun.overlay \"fuse\"");
        return 0;
    case RR_BACKEND_AUTO:
        break;
    }
    switch (probe_native(e->p, &native_err)) {
    case NATIVE_WORKS:
        b->kind = RR_BACKEND_NATIVE;
        return 0;
    case HOST_REFUSED:
        *err = native_err;
        return -1;
    case NATIVE_REFUSED:
        break;
    }
    rr_error_text(&native_err, text, sizeof(text));
    snprintf(msg, sizeof(msg),
             "revrun.overlay \"auto\": kernel overlayfs cannot mount this checkout (%s); "
             "using fuse-overlayfs",
             text);
    if (start_fuse(b, e, err) < 0)
        return rr_wrap(err, "revrun.overlay \"auto\": no overlay works here: native: %s; fuse",
                       text);
    if (e->warn_fd >= 0)
        sync_send(e->warn_fd, SYNC_WARNING, 0, 0, msg);
    else
        log_msg(LOG_WARN, "%s", msg);
    return 0;
}

int backend_view(const struct backend *b)
{
    return b->fuse.view_mfd;
}

void backend_release_view(struct backend *b)
{
    rr_closep(&b->fuse.view_mfd);
    b->fuse.view_mfd = -1;
}

const char *backend_name(const struct backend *b)
{
    return b->kind == RR_BACKEND_FUSE ? "fuse" : "native";
}

/* The daemon also exits by itself once the container's mount namespace,
 * and its mount with it, is gone: that is no loss. The kernel releases the
 * namespaces of an exiting pid 1 before it reports it a zombie, so its end
 * may show a moment after the daemon's. */
#define INIT_EXIT_GRACE_MS 1000

bool backend_lost(struct backend *b, pid_t w, int status, pid_t init_pid, char *why, size_t len)
{
    char text[SYNC_TEXT_MAX];
    _cleanup_close_ int pidfd = -1;
    struct pollfd pfd;
    int r;

    if (!fuse_daemon_reaped(&b->fuse, w, status, text, sizeof(text)) || init_pid <= 0)
        return false;
    pidfd = rr_pidfd_open(init_pid);
    if (pidfd < 0)
        return false;
    pfd = (struct pollfd){.fd = pidfd, .events = POLLIN};
    do {
        r = poll(&pfd, 1, INIT_EXIT_GRACE_MS);
    } while (r < 0 && errno == EINTR);
    if (r != 0)
        return false;
    snprintf(why, len, "%s", text);
    return true;
}

void backend_stop(struct backend *b)
{
    fuse_daemon_stop(&b->fuse);
    rr_closep(&b->bin.fd);
    b->bin.fd = -1;
}

void backend_log_choice(enum rr_backend asked, const char *chosen)
{
    log_msg(LOG_INFO, "overlay backend: %s (revrun.overlay \"%s\")", chosen,
            asked == RR_BACKEND_AUTO ? "auto" : chosen);
}
