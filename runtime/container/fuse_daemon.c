#include "runtime/container/fuse_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "runtime/confine/helper_confine.h"
#include "common/proc.h"
#include "runtime/confine/seccomp.h"

/* What the daemon may say on stderr over its whole life: the memfd is sized
 * once and sealed, so writes past the end fail rather than grow it. */
#define LOG_MAX 16384
/* fuse-overlayfs loads nothing before it answers: this is generous. */
#define READY_TIMEOUT_MS 10000

void fuse_daemon_init(struct fuse_daemon *d)
{
    *d = (struct fuse_daemon){.pid = -1, .pidfd = -1, .log_fd = -1, .view_mfd = -1};
}

static int bounded_log(struct rr_error *err)
{
    _cleanup_close_ int fd = memfd_create("fuse-overlayfs-stderr", MFD_CLOEXEC | MFD_ALLOW_SEALING);

    if (fd < 0)
        return rr_fail(err, errno, "memfd for fuse-overlayfs' stderr");
    if (ftruncate(fd, LOG_MAX) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
        return rr_fail(err, errno, "seal fuse-overlayfs' stderr");
    return rr_steal_fd(&fd);
}

/* The daemon's words so far, one line, for an error message. */
static void read_log(int fd, char *buf, size_t len)
{
    ssize_t n = fd >= 0 ? pread(fd, buf, len - 1, 0) : -1;

    buf[n > 0 ? n : 0] = '\0';
    for (char *p = buf; *p != '\0'; p++)
        if (*p == '\n')
            *p = *(p + 1) != '\0' ? ';' : '\0';
}

/* ---- the daemon's side ---- */

static int daemon_setup(const struct fuse_spec *s, int store_mfd, int log_fd, struct rr_error *err)
{
    struct mount_attr priv = {.propagation = MS_PRIVATE};
    sigset_t none;

    /* The monitor's blocked signals (it reads them from a signalfd) are
     * not the daemon's. */
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
        return rr_fail(err, errno, "signal mask");
    if (helper_stdio(log_fd, err) < 0)
        return -1;
    if (rr_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &priv) < 0)
        return rr_fail(err, errno, "make mounts private");
    if (overlay_fuse_stage(s->lower_mfd, store_mfd, err) < 0)
        return -1;
    /* The container user's identity (as root; rootless it is uid 0 of the
     * monitor's namespace already), then no capability at all. */
    return helper_drop_identity(s->uid, s->gid, err);
}

/* Die with the monitor. Set again after the uid change (which clears it),
 * then checked once, since the monitor may have gone before. */
static int tie_to_monitor(int monitor_pidfd, struct rr_error *err)
{
    struct pollfd pfd = {.fd = monitor_pidfd, .events = POLLIN};

    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        return rr_fail(err, errno, "parent-death signal");
    if (poll(&pfd, 1, 0) != 0)
        return rr_fail(err, ESRCH, "the monitor is gone");
    return 0;
}

__attribute__((noreturn)) static void daemon_main(const struct fuse_spec *s, int dev_fd,
                                                  int store_mfd, int go_fd, int log_fd,
                                                  int monitor_pidfd)
{
    struct rr_error err = {0};
    char text[RR_ERROR_MSG_MAX + 64];
    char c;

    /* The byte on go_fd says the monitor has put us in the container's
     * cgroup (EOF: it failed, or is gone). */
    if ((!s->outlive_parent && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) ||
        read(go_fd, &c, 1) != 1)
        _exit(1);
    close(go_fd);
    if (daemon_setup(s, store_mfd, log_fd, &err) == 0 &&
        (s->outlive_parent || tie_to_monitor(monitor_pidfd, &err) == 0)) {
        const int keep[] = {dev_fd, s->bin->fd};
        rr_close_all_except(keep, RR_ARRAY_SIZE(keep));
        /* revrun's floor for its helpers (the agent's, without the config's
         * widenings or its own filter): no mount, no namespaces, no
         * keyrings or bpf for the process that serves the agent's files. */
        if (helper_load_seccomp(s->seccomp != NULL ? &s->seccomp->prog[0] : NULL, &err) < 0)
            goto fail;
        overlay_fuse_exec(s->bin, dev_fd, s->squash ? (int)s->uid : -1,
                          s->squash ? (int)s->gid : -1, &err);
    }
fail:
    dprintf(2, "revrun: fuse-overlayfs setup: %s\n", rr_error_text(&err, text, sizeof(text)));
    _exit(127);
}

/* ---- the monitor's side ---- */

static pid_t clone_daemon(int *pidfd)
{
    struct clone_args ca = {
        .flags =
            CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_PIDFD,
        .pidfd = (uint64_t)(uintptr_t)pidfd,
        .exit_signal = SIGCHLD,
    };

    long pid = syscall(SYS_clone3, &ca, sizeof(ca));

    /* Docker's default seccomp profile answers ENOSYS to clone3 (a filter
     * cannot read its flags): clone(2) takes the same flags, the pidfd
     * coming back through its parent_tid argument (third on every arch). */
    if (pid < 0 && errno == ENOSYS)
        pid = syscall(SYS_clone, (unsigned long)ca.flags | SIGCHLD, 0, pidfd, 0, 0);
    return (pid_t)pid;
}

static int spawn(const struct fuse_spec *s, struct fuse_daemon *d, int dev_fd, struct rr_error *err)
{
    _cleanup_close_ int store_mfd = rr_clone_tree(
        s->store_fd, "", false, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
    _cleanup_close_ int self = rr_pidfd_open(getpid());
    int go[2];

    if (store_mfd < 0)
        return rr_wrap(err, "fuse-overlayfs: the upper's store");
    if (self < 0)
        return rr_fail(err, errno, "pidfd_open");
    if (pipe2(go, O_CLOEXEC) < 0)
        return rr_fail(err, errno, "pipe");
    d->pid = clone_daemon(&d->pidfd);
    if (d->pid == 0)
        daemon_main(s, dev_fd, store_mfd, go[0], d->log_fd, self);
    close(go[0]);
    if (d->pid < 0) {
        close(go[1]);
        return rr_fail(err, errno, "fuse-overlayfs: clone (namespaces)");
    }
    if (s->cgroup != NULL && cgroup_join(s->cgroup, d->pid, err) < 0) {
        close(go[1]);
        return rr_wrap(err, "fuse-overlayfs");
    }
    if (rr_write_all(go[1], "g", 1) < 0) {
        close(go[1]);
        return rr_fail(err, errno, "fuse-overlayfs: release");
    }
    close(go[1]);
    return 0;
}

/* A process with the container user's ids stats the mount's root: the
 * answer comes from the daemon once it serves, ENOTCONN if it died. */
__attribute__((noreturn)) static void ready_probe(const struct fuse_spec *s, int view)
{
    struct statx stx;

    if (s->uid != geteuid() && (setgroups(0, NULL) < 0 || setresgid(s->gid, s->gid, s->gid) < 0 ||
                                setresuid(s->uid, s->uid, s->uid) < 0))
        _exit(errno);
    if (statx(view, "", AT_EMPTY_PATH | AT_STATX_FORCE_SYNC, STATX_TYPE, &stx) < 0)
        _exit(errno);
    _exit(0);
}

static int wait_ready(const struct fuse_spec *s, int view, struct rr_error *err)
{
    _cleanup_close_ int pidfd = -1;
    struct pollfd pfd;
    int status = 0, r;
    pid_t pid = fork();

    if (pid < 0)
        return rr_fail(err, errno, "fork");
    if (pid == 0)
        ready_probe(s, view);
    pidfd = rr_pidfd_open(pid);
    pfd = (struct pollfd){.fd = pidfd, .events = POLLIN};
    do {
        r = pidfd < 0 ? 1 : poll(&pfd, 1, READY_TIMEOUT_MS);
    } while (r < 0 && errno == EINTR);
    if (r == 0)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (r == 0)
        return rr_fail(err, ETIMEDOUT, "fuse-overlayfs did not answer within %d s",
                       READY_TIMEOUT_MS / 1000);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return rr_fail(err, WIFEXITED(status) ? WEXITSTATUS(status) : EIO,
                       "fuse-overlayfs does not serve the mount");
    return 0;
}

int fuse_daemon_start(const struct fuse_spec *s, struct fuse_daemon *d, struct rr_error *err)
{
    _cleanup_close_ int dev_fd = -1;
    char log[512];

    fuse_daemon_init(d);
    d->log_fd = bounded_log(err);
    if (d->log_fd < 0)
        return -1;
    d->view_mfd = overlay_fuse_mount(s->uid, s->gid, &dev_fd, err);
    if (d->view_mfd < 0 || spawn(s, d, dev_fd, err) < 0) {
        fuse_daemon_stop(d);
        return -1;
    }
    /* Only the daemon holds the device now: when it ends, the mount stops
     * answering (ENOTCONN) instead of hanging. */
    close(rr_steal_fd(&dev_fd));
    if (wait_ready(s, d->view_mfd, err) < 0) {
        siginfo_t si = {0};
        read_log(d->log_fd, log, sizeof(log));
        if (log[0] != '\0')
            rr_wrap(err, "%s", log);
        if (waitid(P_PID, (id_t)d->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0)
            rr_wrap(err, "fuse-overlayfs %s %d",
                    si.si_code == CLD_EXITED ? "exited with status" : "was killed by signal",
                    si.si_status);
        fuse_daemon_stop(d);
        return -1;
    }
    return 0;
}

void fuse_daemon_release(struct fuse_daemon *d)
{
    rr_closep(&d->pidfd);
    rr_closep(&d->log_fd);
    rr_closep(&d->view_mfd);
    d->pidfd = d->log_fd = d->view_mfd = -1;
    d->pid = -1;
}

void fuse_daemon_stop(struct fuse_daemon *d)
{
    /* d->pid is unreaped here (fuse_daemon_reaped clears it), so it still
     * names the daemon; the pidfd says so regardless. */
    if (d->pid > 0) {
        if (d->pidfd >= 0)
            rr_pidfd_send_signal(d->pidfd, SIGKILL);
        else
            kill(d->pid, SIGKILL);
        while (waitpid(d->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    rr_closep(&d->pidfd);
    rr_closep(&d->log_fd);
    rr_closep(&d->view_mfd);
    fuse_daemon_init(d);
}

bool fuse_daemon_reaped(struct fuse_daemon *d, pid_t pid, int status, char *why, size_t len)
{
    char log[512];

    if (d->pid <= 0 || pid != d->pid)
        return false;
    d->pid = -1;
    read_log(d->log_fd, log, sizeof(log));
    if (WIFSIGNALED(status))
        snprintf(why, len, "fuse-overlayfs (the checkout's view) was killed by signal %d%s%s",
                 WTERMSIG(status), log[0] ? ": " : "", log);
    else
        snprintf(why, len, "fuse-overlayfs (the checkout's view) exited with status %d%s%s",
                 WEXITSTATUS(status), log[0] ? ": " : "", log);
    return true;
}
