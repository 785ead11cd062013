/* `revrun check`: every step create takes, each probed on its own in a
 * forked child (whatever namespace or mount it makes goes with the child),
 * so that one refusal does not hide the next: an operator sees every
 * blocker of this host at once, each with the layer that refused it. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "overlay/overlay.h"
#include "runtime/confine/cgroup.h"
#include "runtime/check/check.h"

struct step_ctx {
    const struct check_report *r;
};

/* ---- the monitor's side: in the caller's user namespace (root) ---- */

/* As the monitor: rootless in a user namespace of its own; a mount
 * namespace either way, receiving the host's unmounts. */
static int monitor_ns(const struct check_report *r, char *msg, size_t len)
{
    struct mount_attr slave = {.propagation = MS_SLAVE};

    if (r->rootless)
        return check_enter_userns(msg, len);
    if (unshare(CLONE_NEWNS) < 0)
        return snprintf(msg, len, "unshare(CLONE_NEWNS)"), errno;
    if (rr_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &slave) < 0)
        return snprintf(msg, len, "mount_setattr(MS_SLAVE)"), errno;
    return 0;
}

static int step_mount_ns(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    return monitor_ns(s->r, msg, len);
}

/* The store: a tmpfs mounted with the new mount API in that namespace. */
static int step_store(void *arg, char *msg, size_t len)
{
    static const char *const opts[] = {"size=64k", "mode=0700"};
    const struct step_ctx *s = arg;
    struct rr_error err;
    _cleanup_close_ int mfd = -1, target = -1;
    int e = monitor_ns(s->r, msg, len);

    if (e != 0)
        return e;
    mfd = rr_make_fs("tmpfs", opts, 2, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, &err);
    target = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (mfd < 0 || target < 0 || rr_attach(mfd, target, &err) < 0)
        return rr_error_text(&err, msg, len), err.errnum ? err.errnum : errno;
    return 0;
}

/* The checkout, idmapped to the container user (root only). */
static int step_idmap(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    const struct profile *p = s->r->shape;
    char lower[PATH_MAX];
    struct rr_error err;
    int fd, e = monitor_ns(s->r, msg, len);

    if (e != 0)
        return e;
    snprintf(lower, sizeof(lower), "%s/lower", s->r->scratch);
    fd = overlay_lower_open(lower, true, 0, 0, p->host_uid, p->host_gid, &err);
    if (fd < 0)
        return rr_error_text(&err, msg, len), err.errnum;
    close(fd);
    return 0;
}

/* ---- the container's side: a user namespace and what pid 1 does in it ---- */

/* The user namespace of pid 1 and the maps the monitor writes into it:
 * the container user to the profile's host ids (rootless: to the monitor's
 * own root). */
static int step_id_map(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    const struct profile *p = s->r->shape;
    int go[2], e = 0;
    char path[64], map[64], byte;
    pid_t pid;

    if (s->r->rootless && (e = check_enter_userns(msg, len)) != 0)
        return e;
    if (pipe2(go, O_CLOEXEC) < 0)
        return errno;
    int done[2];
    if (pipe2(done, O_CLOEXEC) < 0)
        return errno;
    pid = fork();
    if (pid == 0) {
        int ue = 0;
        close(go[1]);
        close(done[0]);
        if (unshare(CLONE_NEWUSER) < 0)
            ue = errno;
        (void)!write(done[1], &ue, sizeof(ue)); /* whether there is a namespace to map */
        (void)!read(go[0], &byte, 1);           /* until the maps are written (or not) */
        _exit(0);
    }
    close(go[0]);
    close(done[1]);
    if (pid < 0)
        return errno;
    {
        int ue = EIO;
        if (read(done[0], &ue, sizeof(ue)) != (ssize_t)sizeof(ue) || ue != 0) {
            close(done[0]);
            close(go[1]);
            waitpid(pid, NULL, 0);
            return snprintf(msg, len, "unshare(CLONE_NEWUSER)"), ue;
        }
        close(done[0]);
    }
    snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
    snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)p->uid,
             s->r->rootless ? 0u : (unsigned)p->host_uid);
    {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || rr_write_all(fd, map, strlen(map)) < 0) {
            e = errno;
            snprintf(msg, len, "write uid_map \"%u %u 1\"", (unsigned)p->uid,
                     s->r->rootless ? 0u : (unsigned)p->host_uid);
        }
    }
    if (e == 0) {
        snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
        snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)p->gid,
                 s->r->rootless ? 0u : (unsigned)p->host_gid);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || rr_write_all(fd, map, strlen(map)) < 0) {
            e = errno;
            snprintf(msg, len, "write gid_map \"%u %u 1\"", (unsigned)p->gid,
                     s->r->rootless ? 0u : (unsigned)p->host_gid);
        }
    }
    close(go[1]);
    waitpid(pid, NULL, 0);
    return e;
}

/* clone with the container's namespaces, as the monitor spawns pid 1. */
static int step_clone(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    long pid;
    int e;

    if (s->r->rootless && (e = check_enter_userns(msg, len)) != 0)
        return e;
    pid = syscall(SYS_clone, (unsigned long)s->r->shape->clone_flags | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        return snprintf(msg, len, "clone(namespaces)"), errno;
    waitpid((pid_t)pid, NULL, 0);
    return 0;
}

/* pid 1's own namespace: a user namespace with a mount namespace in it
 * (rootless, nested in the monitor's). */
static int pid1_ns(const struct check_report *r, unsigned extra, char *msg, size_t len)
{
    int e;

    if (r->rootless && (e = check_enter_userns(msg, len)) != 0)
        return e;
    if ((e = check_enter_userns(msg, len)) != 0)
        return e;
    if (extra != 0 && unshare((int)extra) < 0)
        return snprintf(msg, len, "unshare(0x%x)", extra), errno;
    return 0;
}

/* A fresh procfs for a new pid namespace, attached (the kernel judges a
 * masked /proc "too revealing" at fsmount). */
static int step_proc(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    int e = pid1_ns(s->r, CLONE_NEWPID, msg, len), status;
    pid_t pid;

    if (e != 0)
        return e;
    pid = fork(); /* the first child is the new namespace's pid 1 */
    if (pid == 0) {
        static const char *const opts[] = {"nosuid", "noexec", "nodev"};
        struct rr_error err;
        (void)opts;
        int mfd = rr_make_fs("proc", NULL, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC |
                                                  MOUNT_ATTR_NODEV, &err);
        int target = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        _exit(mfd >= 0 && target >= 0 && rr_attach(mfd, target, &err) == 0 ? 0
                                                                            : (err.errnum & 0xff));
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return errno;
    snprintf(msg, len, "mount proc for a new pid namespace (fsmount)");
    return WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
}

/* The switch into the assembled root: a tmpfs on the scratch mountpoint. */
static int step_pivot(void *arg, char *msg, size_t len)
{
    static const char *const opts[] = {"size=64k", "mode=0755"};
    const struct step_ctx *s = arg;
    struct mount_attr priv = {.propagation = MS_PRIVATE};
    struct rr_error err;
    char where[PATH_MAX];
    _cleanup_close_ int mfd = -1, target = -1;
    int e = pid1_ns(s->r, 0, msg, len);

    if (e != 0)
        return e;
    if (rr_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &priv) < 0)
        return snprintf(msg, len, "make mounts private"), errno;
    snprintf(where, sizeof(where), "%s/mnt", s->r->scratch);
    target = open(where, O_PATH | O_DIRECTORY | O_CLOEXEC);
    mfd = rr_make_fs("tmpfs", opts, 2, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, &err);
    if (target < 0 || mfd < 0 || rr_attach(mfd, target, &err) < 0)
        return snprintf(msg, len, "a tmpfs for the new root"), err.errnum ? err.errnum : errno;
    if (chdir(where) < 0)
        return snprintf(msg, len, "chdir"), errno;
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return snprintf(msg, len, "pivot_root"), errno;
    if (umount2(".", MNT_DETACH) < 0)
        return snprintf(msg, len, "detach the old root"), errno;
    return 0;
}

static int step_hostname(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    int e = pid1_ns(s->r, CLONE_NEWUTS, msg, len);

    if (e != 0)
        return e;
    if (sethostname("revrun", 6) < 0)
        return snprintf(msg, len, "sethostname"), errno;
    return 0;
}

static int step_loopback(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    struct ifreq ifr = {0};
    _cleanup_close_ int sock = -1;
    int e = pid1_ns(s->r, CLONE_NEWNET, msg, len);

    if (e != 0)
        return e;
    sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        return snprintf(msg, len, "socket"), errno;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
    if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
        return snprintf(msg, len, "lo flags"), errno;
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0)
        return snprintf(msg, len, "bring lo up"), errno;
    return 0;
}

static int step_cgroup_ns(void *arg, char *msg, size_t len)
{
    const struct step_ctx *s = arg;
    return pid1_ns(s->r, CLONE_NEWCGROUP, msg, len);
}

/* ---- the table ---- */

struct step {
    const char *name;
    enum check_step kind;
    int (*fn)(void *arg, char *msg, size_t len);
    const char *ok;
    bool root_only;
};

static const struct step steps[] = {
    {"mount namespace", STEP_MOUNT_NS, step_mount_ns, "the monitor's own mount namespace", false},
    {"store mount", STEP_MOUNT, step_store, "a tmpfs mounted there (fsopen, fsmount, move_mount)",
     false},
    {"idmapped lower", STEP_IDMAP_LOWER, step_idmap,
     "the checkout idmapped to the container user", true},
    {"id maps", STEP_ID_MAP, step_id_map, "the container user mapped", false},
    {"namespaces", STEP_CLONE, step_clone,
     "clone with user, mount, pid, ipc, uts (and network) namespaces", false},
    {"fresh /proc", STEP_PROC, step_proc, "a new pid namespace gets its own /proc", false},
    {"pivot_root", STEP_PIVOT, step_pivot, "into a tmpfs root, the old one detached", false},
    {"hostname", STEP_HOSTNAME, step_hostname, "sethostname in its own UTS namespace", false},
    {"loopback", STEP_LOOPBACK, step_loopback, "lo up in its own network namespace", false},
    {"cgroup namespace", STEP_CGROUP_NS, step_cgroup_ns, "a cgroup namespace of its own", false},
};

/* A failure before the step itself (its namespace refused) is reported
 * as not reached: the earlier line names that blocker. */
static bool not_reached(const char *msg)
{
    return strncmp(msg, "unshare(CLONE_NEWUSER)", 22) == 0 || strcmp(msg, "uid_map") == 0 ||
           strcmp(msg, "gid_map") == 0;
}

static void probe_cgroup(struct check_report *r)
{
    const struct profile *p = r->shape;
    struct cgroup_plan plan;
    struct rr_strv warnings = {0};
    struct rr_error err;
    char scope[32], text[RR_ERROR_MSG_MAX + 64];
    bool limits = p->resources.memory_limit != RR_UNSET || p->resources.pids_limit != RR_UNSET ||
                  p->resources.cpu_quota != RR_UNSET;

    if (!limits) {
        check_add(r, CHECK_INFO, false, "cgroup limits", NULL, "the config sets no limit");
        return;
    }
    snprintf(scope, sizeof(scope), "check-%d", (int)getpid());
    if (cgroup_create(p, scope, "probe", &plan, &warnings, &err) < 0) {
        rr_error_text(&err, text, sizeof(text));
        check_add_step(r, CHECK_FAIL, true, "cgroup limits",
                       check_cause_of(r, STEP_CGROUP, plan.why_errno ? plan.why_errno : err.errnum),
                       "%s", text);
    } else if (plan.skipped != 0) {
        check_add_step(r, CHECK_WARN, false, "cgroup limits",
                       check_cause_of(r, STEP_CGROUP, plan.why_errno), "%s",
                       warnings.n ? warnings.v[0] : "skipped (best effort)");
    } else {
        check_add(r, CHECK_OK, true, "cgroup limits", NULL,
                  "the container's cgroup made and its limits written (%s)",
                  cgroup_version_name(plan.version));
    }
    if (plan.version != CG_NONE)
        cgroup_remove(plan.version, plan.path, &err);
    strv_free(&warnings);
}

void check_steps(struct check_report *r)
{
    struct step_ctx sc = {.r = r};
    char msg[512];

    probe_cgroup(r);
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        const struct step *st = &steps[i];
        int e;
        if (st->root_only && r->rootless)
            continue;
        e = check_in_child(st->fn, &sc, msg, sizeof(msg));
        if (e == 0) {
            check_add(r, CHECK_OK, true, st->name, NULL, "%s", st->ok);
        } else if (not_reached(msg) && st->kind == STEP_PROC && r->facts.proc_masked) {
            /* the kernel's rule is known: no new procfs while any path of
             * the one visible is covered */
            check_add_step(r, CHECK_FAIL, true, st->name, CAUSE_PROC_MASKED,
                           "not probed (no user namespace here), but it will fail: %s is "
                           "mounted over, and the kernel refuses a new procfs then",
                           r->facts.proc_mask);
        } else if (not_reached(msg)) {
            r->not_probed++;
            check_add(r, CHECK_INFO, false, st->name, NULL,
                      "not probed: it needs a user namespace (refused: see \"user "
                      "namespaces\")");
        } else if (st->kind != STEP_MOUNT_NS && strncmp(msg, "unshare(CLONE_NEWNS)", 20) == 0) {
            r->not_probed++;
            check_add(r, CHECK_INFO, false, st->name, NULL,
                      "not probed: it needs the monitor's mount namespace (refused: see "
                      "\"mount namespace\")");
        } else {
            /* the idmapped lower is optional: the fuse backend copes */
            bool optional = st->kind == STEP_IDMAP_LOWER;
            check_add_step(r, optional ? CHECK_WARN : CHECK_FAIL, !optional, st->name,
                           check_cause_of(r, st->kind, e), "%s%s%s", msg, msg[0] ? ": " : "",
                           strerror(e));
        }
    }
}
