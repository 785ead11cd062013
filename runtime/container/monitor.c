#include "runtime/container/monitor_internal.h"

#include <errno.h>
#include <linux/securebits.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/escape.h"
#include "common/crashpoint.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "overlay/overlay.h"
#include "runtime/container/backend.h"
#include "runtime/container/console.h"
#include "runtime/container/egress_wire.h"
#include "runtime/container/home_store.h"
#include "runtime/container/init.h"
#include "runtime/container/outdir.h"
#include "runtime/container/subgid.h"
#include "common/proc.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"


/* ---- namespaces of the monitor itself ---- */

static int write_proc_file(const char *path, const char *text, struct rr_error *err)
{
    _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);

    if (fd < 0 || rr_write_all(fd, text, strlen(text)) < 0)
        return rr_fail(err, errno, "write %s", path);
    return 0;
}

/* Without root, the monitor makes a user namespace where it is root (its own
 * uid mapped to 0), which is what lets it mount the store. The caller's
 * supplementary groups are dropped there when newgidmap can map the gids
 * with setgroups allowed (runtime/container/subgid.h); otherwise the kernel
 * keeps them (setgroups denied) and one line says so. */
static int own_userns(int warn_fd, struct rr_error *err)
{
    char map[64], why[256], line[512];
    uid_t uid = getuid();
    gid_t gid = getgid();
    struct subgid_helper h;
    bool helper = subgid_helper_start(&h, why, sizeof(why));
    struct rr_error herr;

    if (unshare(CLONE_NEWUSER) < 0) {
        subgid_helper_abandon(&h);
        return rr_fail(err, errno,
                       "user namespace (unprivileged user namespaces may be disabled: see "
                       "`revrun check`)");
    }
    snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
    if (write_proc_file("/proc/self/uid_map", map, err) < 0) {
        subgid_helper_abandon(&h);
        return -1;
    }
    if (helper && subgid_helper_map(&h, gid, &herr) == 0) {
        if (setgroups(0, NULL) < 0)
            return rr_fail(err, errno, "drop the supplementary groups");
        return 0;
    }
    if (helper)
        rr_error_text(&herr, why, sizeof(why));
    if (getgroups(0, NULL) > 0) {
        snprintf(line, sizeof(line),
                 "rootless: the agent keeps your supplementary groups (%s): give this user a "
                 "range in /etc/subgid to drop them",
                 why);
        sync_send(warn_fd, SYNC_WARNING, 0, 0, line);
    }
    if (write_proc_file("/proc/self/setgroups", "deny", err) < 0)
        return -1;
    snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
    return write_proc_file("/proc/self/gid_map", map, err);
}

/* A mount namespace of our own, receiving the host's unmounts (slave) so it
 * never pins a filesystem the host wants to let go of. */
static int own_mountns(struct rr_error *err)
{
    struct mount_attr slave = {.propagation = MS_SLAVE};

    if (unshare(CLONE_NEWNS) < 0)
        return rr_fail(err, errno, "mount namespace");
    if (rr_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &slave) < 0)
        return rr_fail(err, errno, "mount propagation");
    return 0;
}

/* ---- the container's pid 1 ---- */

static int write_maps(const struct monitor *m, struct rr_error *err)
{
    const struct profile *p = m->a->p;
    char path[64], map[64];
    /* Rootless, the monitor's own namespace maps the caller to 0. */
    unsigned host_uid = p->rootless ? 0 : (unsigned)p->host_uid;
    unsigned host_gid = p->rootless ? 0 : (unsigned)p->host_gid;

    snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)m->init_pid);
    snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)p->uid, host_uid);
    if (write_proc_file(path, map, err) < 0)
        return rr_wrap(err, "uid map");
    snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)m->init_pid);
    snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)p->gid, host_gid);
    if (write_proc_file(path, map, err) < 0)
        return rr_wrap(err, "gid map");
    return 0;
}

static pid_t clone_init(unsigned flags)
{
    struct clone_args ca = {.flags = flags, .exit_signal = SIGCHLD};
    long pid = syscall(SYS_clone3, &ca, sizeof(ca));

    if (pid < 0 && errno == ENOSYS)
        pid = syscall(SYS_clone, (unsigned long)flags | SIGCHLD, 0, 0, 0, 0);
    return (pid_t)pid;
}

/* As root, the container's user namespace is owned by its own host uid, not
 * by root: the kernel charges the per-user counts made inside a namespace
 * (inotify instances and watches, user namespaces, mqueue bytes: its
 * ucounts) to the namespace's owner in the parent, so each container has a
 * budget of its own and none spends root's or another container's. The
 * monitor takes that euid for the clone alone, keeping its capabilities
 * (SECBIT_NO_SETUID_FIXUP) and root's fsuid; the child puts the securebits
 * back at once.
 * Host-side processes of that uid (the fuse daemon, the broker) would have
 * capabilities in the namespace, but only through setns and ptrace, which
 * their seccomp floor refuses; and no other container shares the uid. */
/* Back to root (uid and fsuid) with the securebits and the dumpable flag
 * as they were (the kernel clears the flag when the euid changes; root of a
 * container without CAP_SYS_PTRACE then could not reach the monitor's
 * /proc/PID/root for the write-back): the monitor cannot go on as anyone
 * else. */
static void monitor_back_to_root(int bits, int dumpable)
{
    if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0 || prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0 ||
        prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0) < 0)
        _exit(127);
}

static pid_t clone_init_owned(const struct profile *p)
{
    int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0), e;
    int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
    pid_t pid;

    if (p->rootless)
        return clone_init(p->clone_flags);
    if (bits < 0 || dumpable < 0 || prctl(PR_SET_SECUREBITS, bits | SECBIT_NO_SETUID_FIXUP, 0, 0, 0) < 0)
        return -1;
    if (setresuid((uid_t)-1, p->host_uid, (uid_t)-1) < 0) {
        e = errno;
        monitor_back_to_root(bits, dumpable);
        errno = e;
        return -1;
    }
    /* fsuid stays root's: pid 1 opens the state directory (root's, 0700)
     * before its ids are mapped, as it always did. */
    setfsuid(0);
    if ((uid_t)setfsuid((uid_t)-1) != 0) {
        monitor_back_to_root(bits, dumpable);
        errno = EPERM;
        return -1;
    }
    pid = clone_init(p->clone_flags);
    e = errno;
    if (pid == 0) {
        /* pid 1 as it always began: init makes itself non-dumpable later */
        if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0 ||
            prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0) < 0)
            _exit(127);
        return 0;
    }
    monitor_back_to_root(bits, dumpable);
    errno = e;
    return pid;
}

static int spawn_init(struct monitor *m, struct rr_error *err)
{
    const struct profile *p = m->a->p;
    int sp[2];

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
        return rr_fail(err, errno, "socketpair");
    m->init_pid = clone_init_owned(p);
    if (m->init_pid < 0) {
        int e = errno;
        close(sp[0]);
        close(sp[1]);
        return rr_fail(err, e, "clone the container (namespaces%s)",
                       e == EPERM || e == ENOSPC ? "; user namespaces may be refused here: see "
                                                   "`revrun check`" : "");
    }
    if (m->init_pid == 0) {
        struct init_args ia = {
            .p = p,
            .sync_fd = sp[1],
            .fds = {.mountpoint = m->a->rootfs_dir,
                    .lower_mfd = m->lower_mfd,
                    .checkout_mfd = backend_view(&m->backend),
                    .upper_fd = m->store.upper_fd,
                    .work_fd = m->store.work_fd,
                    .home_fd = -1,
                    .out_mfd = m->out_mfd,
                    .git_lower_mfd = m->git_lower_mfd,
                    .git_upper_fd = m->git_store.upper_fd,
                    .git_work_fd = m->git_store.work_fd},
            .fifo_fd = m->a->fifo_fd,
            .state_path = m->a->state_path,
            .seccomp = &m->seccomp,
            .clear_groups = !p->rootless,
            .console_fd = m->a->console_fd,
            .egress_sock = -1,
        };
        close(sp[0]);
        close(m->a->cli_fd);
        close(m->a->state_dir);
        init_main(&ia);
    }
    close(sp[1]);
    m->init_fd = sp[0];
    return 0;
}

/* A worktree's main git directory, shown (profile git_common): its lower,
 * idmapped exactly as the checkout's, and an upper pair in the store, for
 * pid 1 to stack. Only beside kernel overlayfs; under fuse-overlayfs (auto
 * fell back) it is not shown, and one line says why git will not work. */
static int git_common_layers(struct monitor *m, int here, struct rr_error *err)
{
    const struct profile *p = m->a->p;
    char line[SYNC_TEXT_MAX];

    if (!p->git_common.shown)
        return 0;
    if (backend_view(&m->backend) >= 0) {
        snprintf(line, sizeof(line),
                 "git: a worktree checkout, and git will not work inside: its git directory "
                 "%.200s is shown through kernel overlayfs only, and fuse-overlayfs serves "
                 "this checkout",
                 p->git_common.host);
        sync_send(m->a->cli_fd, SYNC_WARNING, 0, 0, line);
        return 0;
    }
    m->git_lower_mfd = overlay_lower_open_same(p->git_common.host, p->git_common.dev,
                                               p->git_common.ino, p->idmap_lower, p->lower_owner,
                                               p->lower_group, p->host_uid, p->host_gid, err);
    if (m->git_lower_mfd < 0)
        return rr_wrap(err, "the worktree's git directory");
    if (overlay_store_pair(here, STORE_DIR, STORE_GIT_UPPER, STORE_GIT_WORK, p->git_common.mode,
                           p->rootless ? (uid_t)-1 : p->host_uid,
                           p->rootless ? (gid_t)-1 : p->host_gid, &m->git_store, err) < 0)
        return rr_wrap(err, "the worktree's git directory");
    return 0;
}

/* Everything before the container's pid 1 may run, in order. */
static int prepare(struct monitor *m, struct rr_error *err)
{
    const struct profile *p = m->a->p;

    if (backend_find(&m->backend, p, err) < 0)
        return -1;
    /* Ubuntu 24.04's AppArmor restriction lets the unshare pass and refuses
     * the id maps: the remedy is named whichever step fails. */
    if (p->rootless && own_userns(m->a->cli_fd, err) < 0)
        return rr_wrap(err, "a user namespace of our own (refused here: on Ubuntu 24.04 by "
                            "AppArmor; `revrun check` gives the remedy)");
    if (own_mountns(err) < 0)
        return -1;
    /* Mount targets must belong to this new namespace: reopen by path. */
    _cleanup_close_ int here = rr_reopen_same(AT_FDCWD, m->a->state_path, m->a->state_dir, err);
    if (here < 0)
        return -1;
    if (overlay_store_mount(here, STORE_DIR, p->upper_size, p->lower_mode,
                            p->rootless ? (uid_t)-1 : p->host_uid,
                            p->rootless ? (gid_t)-1 : p->host_gid, &m->store, err) < 0)
        return -1;
    if (home_store_make(here, p, err) < 0)
        return -1;
    /* Compiled here, loaded by the agent's process just before exec. */
    if (seccomp_compile(p, &m->seccomp, err) < 0 || seccomp_compile_helper(&m->helper_seccomp, err) < 0)
        return -1;
    /* fuse: its daemon serves the view from here on; native: pid 1 mounts
     * it over this lower. */
    if (backend_choose(
            &m->backend,
            &(struct backend_env){p, here, m->a->cli_fd, m->a->cgroup, &m->helper_seccomp},
            err) < 0)
        return -1;
    if (backend_view(&m->backend) < 0) {
        m->lower_mfd = overlay_lower_open(p->lower, p->idmap_lower, p->lower_owner,
                                          p->lower_group, p->host_uid, p->host_gid, err);
        if (m->lower_mfd < 0)
            return -1;
    }
    if (git_common_layers(m, here, err) < 0)
        return -1;
    if (p->out_dir != NULL) {
        m->out_dir = open(p->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (m->out_dir < 0)
            return rr_fail(err, errno, "revrun.out %s", p->out_dir);
        m->out_mfd = outdir_make(p->out_size, p->rootless ? 0 : p->host_uid,
                                 p->rootless ? 0 : p->host_gid, err);
        if (m->out_mfd < 0)
            return -1;
    }
    crash_point("monitor:store");
    /* The activity record, before anything it records can happen. */
    if (p->record_execs && notify_record(&m->notify, m->a->state_dir, err) < 0)
        return -1;
    /* The broker is listening before the container's first process. */
    if (egress_wire_broker(p, &m->helper_seccomp.prog[0], m->a->cgroup, m->a->state_path,
                           &m->broker, err) < 0)
        return -1;
    if (p->stdio_no_tty_input) {
        bool stdin_was_tty;
        if (console_stdio_no_input(&stdin_was_tty, err) < 0)
            return -1;
        if (stdin_was_tty)
            sync_send(m->a->cli_fd, SYNC_WARNING, 0, 0,
                      "stdin is a terminal and process.terminal is false: the agent gets "
                      "/dev/null as stdin (and the terminal write-only as stdout and stderr)");
    }
    if (spawn_init(m, err) < 0)
        return -1;
    crash_point("monitor:spawned");
    /* without nested sandboxes the floor refuses every new namespace and no
     * process holds a capability: none changes its pid namespace or root */
    if (notify_started(&m->notify, m->init_pid, !p->allow_nested_sandboxes, err) < 0)
        return -1;
    /* The container holds its own copies now. */
    close(m->lower_mfd);
    m->lower_mfd = -1;
    rr_closep(&m->git_lower_mfd);
    m->git_lower_mfd = -1;
    overlay_store_close(&m->git_store);
    backend_release_view(&m->backend);
    /* an fd on the upper's filesystem only, for its fill (monitor_events.c);
     * without it the review judges the upper at the agent's exit alone */
    m->upper_look_fd = m->store.upper_fd >= 0 ? fcntl(m->store.upper_fd, F_DUPFD_CLOEXEC, 0) : -1;
    overlay_store_close(&m->store);
    close(m->a->rootfs_dir);
    close(m->a->fifo_fd);
    if (m->a->console_fd >= 0)
        close(m->a->console_fd);
    if (write_maps(m, err) < 0)
        return -1;
    /* Before pid 1 runs a single step of its own: everything it and the
     * agent do is counted against the limits. */
    if (cgroup_join(m->a->cgroup, m->init_pid, err) < 0)
        return -1;
    if (sync_send(m->init_fd, SYNC_GO, 0, 0, NULL) < 0)
        return rr_fail(err, errno, "release the container");
    return 0;
}

static int setup_signals(struct monitor *m, struct rr_error *err)
{
    signal(SIGPIPE, SIG_IGN);
    m->sig_fd = proc_signalfd_stop(true);
    if (m->sig_fd < 0)
        return rr_fail(err, errno, "signalfd");
    m->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (m->timer_fd < 0)
        return rr_fail(err, errno, "timerfd");
    return 0;
}

/* stdio stays with the container; the monitor lets go of the caller's. */
static void detach_stdio(void)
{
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

    if (fd < 0)
        return;
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
}

static int handshake(struct monitor *m, struct rr_error *err)
{
    struct sync_msg msg;
    struct proc_ref ref;

    if (sync_expect(m->init_fd, SYNC_READY, &msg, err) < 0)
        return -1;
    if (proc_ref_of(m->init_pid, &ref, err) < 0)
        return -1;
    if (sync_send(m->a->cli_fd, SYNC_CREATED, m->init_pid, (int64_t)ref.start_time,
                  backend_name(&m->backend)) < 0)
        return rr_fail(err, errno, "report to revrun create");
    /* No ACK (revrun create was killed before it recorded the state): the
     * container must not live on unrecorded. */
    if (sync_expect(m->a->cli_fd, SYNC_ACK, &msg, err) < 0)
        return -1;
    return 0;
}

__attribute__((noreturn)) void monitor_main(struct monitor_args *a)
{
    struct monitor m = {.a = a, .lower_mfd = -1, .init_fd = -1, .sig_fd = -1, .timer_fd = -1,
                        .broker = {.pid = -1, .stop = -1, .activity = -1}, .out_mfd = -1,
                        .out_dir = -1};
    struct rr_error err = {0};

    notify_init(&m.notify);

    m.store.upper_fd = m.store.work_fd = -1;
    m.upper_look_fd = -1;
    m.git_store.upper_fd = m.git_store.work_fd = -1;
    m.git_lower_mfd = -1;
    backend_init(&m.backend);
    /* Recognisable in ps; the container's processes are in their own pid
     * namespace and cannot see it. */
    prctl(PR_SET_NAME, "revrun-monitor", 0, 0, 0);
    if (setsid() < 0 || setup_signals(&m, &err) < 0 || prepare(&m, &err) < 0) {
        sync_send_error(a->cli_fd, &err);
        monitor_kill_init(&m);
        backend_stop(&m.backend);
        _exit(1);
    }
    detach_stdio();
    if (handshake(&m, &err) < 0) {
        sync_send_error(a->cli_fd, &err);
        monitor_kill_init(&m);
        backend_stop(&m.backend);
        _exit(1);
    }
    if (!a->attached) {
        close(a->cli_fd);
        a->cli_fd = -1;
    }
    monitor_event_loop(&m);
    backend_stop(&m.backend);
    _exit(0);
}
