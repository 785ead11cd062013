#include "runtime/container/engine_init.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/cmdline.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "runtime/confine/caps.h"
#include "runtime/container/console.h"
#include "runtime/container/loopback.h"
#include "runtime/container/passfds.h"
#include "runtime/container/recorder_execs.h"
#include "runtime/container/engine.h"
#include "runtime/container/engine_rootstore.h"
#include "runtime/container/hooks.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"

static char exe_path[4096];
static int pty_slave = -1;
static pid_t host_pid; /* ours, as the host sees it (hooks' state) */

/* Container root of the new user namespace, with its full capabilities
 * there (and none outside it). */
static int become_root(struct rr_error *err)
{
    if (setgroups(0, NULL) < 0)
        return rr_fail(err, errno, "identity: setgroups");
    if (setresgid(0, 0, 0) < 0)
        return rr_fail(err, errno, "identity: setresgid 0");
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
        return rr_fail(err, errno, "identity: setresuid 0");
    if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || caps_raise_effective(err) < 0)
        return rr_wrap(err, "identity");
    return 0;
}

/* args[0] through the container's PATH, checked now so that create reports
 * a missing program, as runc does. */
static int resolve_exe(const struct profile *p, struct rr_error *err)
{
    const char *prog = p->args->v[0];
    const char *path = strv_env_get(p->env, "PATH");
    struct stat st;

    if (strchr(prog, '/') != NULL) {
        snprintf(exe_path, sizeof(exe_path), "%s", prog);
        if (stat(exe_path, &st) < 0 || !S_ISREG(st.st_mode))
            return rr_fail(err, errno ? errno : EACCES, "exec: %s", prog);
        return 0;
    }
    for (const char *dir = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
         *dir != '\0';) {
        size_t n = strcspn(dir, ":");
        if ((size_t)snprintf(exe_path, sizeof(exe_path), "%.*s/%s", (int)n, dir, prog) <
                sizeof(exe_path) &&
            stat(exe_path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
            return 0;
        dir += n;
        if (*dir == ':')
            dir++;
    }
    return rr_fail(err, ENOENT, "exec: \"%s\": executable file not found in $PATH", prog);
}

static int run_hooks(const struct engine_init_args *a, enum rr_hook_kind kind, const char *status,
                     struct rr_error *err)
{
    _cleanup_free_ char *state = NULL;

    if (a->p->cfg->n_hooks[kind] == 0)
        return 0;
    if (hooks_state_json(a->id, status, host_pid, a->bundle, &a->p->cfg->annotations, &state,
                         err) < 0)
        return -1;
    return hooks_run(a->p->cfg, kind, state, err);
}

/* A store's upper and work (store: its directory in the state directory),
 * reopened as this mount namespace has them. */
static int reopen_store(const struct engine_init_args *a, const char *store, int *upper,
                        int *work, const char *what, struct rr_error *err)
{
    _cleanup_close_ int state = open(a->state_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int *fds[] = {upper, work};
    const char *names[] = {"upper", "work"};
    char path[64];

    if (state < 0)
        return rr_fail(err, errno, "open %s", a->state_path);
    for (size_t i = 0; i < 2; i++) {
        int fd;
        snprintf(path, sizeof(path), "%s/%s", store, names[i]);
        fd = rr_reopen_same(state, path, *fds[i], err);
        if (fd < 0)
            return rr_wrap(err, "%s", what);
        close(*fds[i]);
        *fds[i] = fd;
    }
    return 0;
}

static int setup(struct engine_init_args *a, struct rr_error *err)
{
    const struct profile *p = a->p;
    struct sync_msg m;
    _cleanup_close_ int root = -1;

    if (sync_expect(a->sync_fd, SYNC_GO, &m, err) < 0)
        return -1;
    host_pid = (pid_t)m.value;
    /* process.rlimits, set by the process itself: its namespace is owned by
     * its own host uid (engine_ids.h), so host root may prlimit it only
     * with CAP_SYS_RESOURCE; the host side raised what only root may. */
    for (size_t i = 0; i < p->n_rlimits; i++) {
        struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};
        if (setrlimit(p->rlimits[i].resource, &rl) < 0)
            return rr_fail(err, errno, "process.rlimits[%zu]", i);
    }
    /* The mount point as this mount namespace has it, opened while still
     * the creating user (the state directory's owner). */
    {
        char path[4200];
        int fd;
        snprintf(path, sizeof(path), "%s/%s", a->state_path, ROOTFS_DIR);
        fd = rr_reopen_same(AT_FDCWD, path, a->fds.mountpoint, err);
        if (fd < 0)
            return -1;
        close(a->fds.mountpoint);
        a->fds.mountpoint = fd;
    }
    /* io.revrun.checkout: create's fds name the store as its namespace has
     * it; the kernel stacks an overlay only on this namespace's mounts. */
    if (a->fds.upper_fd >= 0 &&
        reopen_store(a, STORE_DIR, &a->fds.upper_fd, &a->fds.work_fd,
                     "io.revrun.checkout: the upper's store", err) < 0)
        return -1;
    if (a->fds.root_upper_fd >= 0 &&
        reopen_store(a, ENGINE_ROOT_STORE, &a->fds.root_upper_fd, &a->fds.root_work_fd,
                     "root.path: the image's private upper", err) < 0)
        return -1;
    if (become_root(err) < 0)
        return -1;
    /* After `create` put us in our cgroup: the namespace's root is it. */
    if (unshare(CLONE_NEWCGROUP) < 0)
        return rr_fail(err, errno, "cgroup namespace");
    if (!(p->eng.join_flags & CLONE_NEWUTS)) {
        if (p->hostname != NULL && sethostname(p->hostname, strlen(p->hostname)) < 0)
            return rr_fail(err, errno, "sethostname");
        if (p->eng.domainname != NULL &&
            setdomainname(p->eng.domainname, strlen(p->eng.domainname)) < 0)
            return rr_fail(err, errno, "setdomainname");
    }
    if (!(p->eng.join_flags & CLONE_NEWNET) && loopback_up(err) < 0)
        return -1;
    if (engine_write_sysctls(&p->eng.sysctl_inside, err) < 0)
        return -1;
    root = rootfs_assemble_engine(p, &a->fds, err);
    if (root < 0)
        return -1;
    close(a->fds.root_mfd);
    a->fds.root_mfd = -1;
    /* The runtime spec's moment for prestart and createRuntime (run by
     * create, on the host side): the mounts are made, the root is not yet
     * pivoted to. Then createContainer, here in the container's namespaces. */
    if (sync_send(a->sync_fd, SYNC_HOOKS, 0, 0, NULL) < 0)
        return rr_fail(err, errno, "ask for the prestart hooks");
    if (sync_expect(a->sync_fd, SYNC_ACK, &m, err) < 0)
        return rr_wrap(err, "waiting for the prestart hooks");
    if (run_hooks(a, RR_HOOK_CREATE_CONTAINER, "created", err) < 0 ||
        rootfs_pivot_engine(p, root, err) < 0)
        return -1;
    if (chdir(p->cwd) < 0)
        return rr_fail(err, errno, "process.cwd %s", p->cwd);
    if (resolve_exe(p, err) < 0)
        return -1;
    if (p->terminal) {
        pty_slave = console_make_pty(a->console_fd, err);
        a->console_fd = -1;
        if (pty_slave < 0)
            return -1;
        if (p->cfg->process.console_width > 0) {
            struct winsize ws = {.ws_row = (unsigned short)p->cfg->process.console_height,
                                 .ws_col = (unsigned short)p->cfg->process.console_width};
            if (ioctl(pty_slave, TIOCSWINSZ, &ws) < 0)
                return rr_fail(err, errno, "process.consoleSize");
        }
    }
    return 0;
}

/* AppArmor applies at the exec, as runc applies it. */
static int apparmor_on_exec(const char *profile, struct rr_error *err)
{
    char text[512];
    int fd;

    if (profile == NULL)
        return 0;
    fd = open("/proc/thread-self/attr/apparmor/exec", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        fd = open("/proc/thread-self/attr/exec", O_WRONLY | O_CLOEXEC);
    snprintf(text, sizeof(text), "exec %s", profile);
    if (fd < 0 || rr_write_all(fd, text, strlen(text)) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return rr_fail(err, e, "process.apparmorProfile %s", profile);
    }
    close(fd);
    return 0;
}

/* The process's identity and capabilities, then the seals, then exec.
 * Without no_new_privs (the host policy let the config decide) the kernel
 * takes a seccomp filter only from a holder of CAP_SYS_ADMIN in its user
 * namespace: the filters then load before the capability sets shrink to
 * the granted ones, as runc orders it; with it, as late as possible. */
static int become_process(const struct engine_init_args *a, struct rr_error *err)
{
    const struct profile *p = a->p;
    bool nnp = p->eng.no_new_privs;

    if (setsid() < 0)
        return rr_fail(err, errno, "setsid");
    if (pty_slave >= 0 && console_attach(pty_slave) < 0)
        return rr_fail(err, errno, "attach the terminal");
    if (setgroups(p->eng.n_groups, p->eng.groups) < 0)
        return rr_fail(err, errno, "process.user.additionalGids");
    if (setresgid(p->gid, p->gid, p->gid) < 0)
        return rr_fail(err, errno, "process.user.gid %u", (unsigned)p->gid);
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setresuid(p->uid, p->uid, p->uid) < 0)
        return rr_fail(err, errno, "process.user.uid %u", (unsigned)p->uid);
    if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || caps_raise_effective(err) < 0 ||
        (nnp && caps_set_masks(p->eng.caps, err) < 0))
        return rr_wrap(err, "process.capabilities");
    umask(p->eng.umask);
    if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return rr_fail(err, errno, "no_new_privs");
    if (apparmor_on_exec(p->eng.apparmor_profile, err) < 0)
        return -1;
    if (passfds_seal(a->preserve_fds) < 0)
        return rr_fail(err, errno, "close fds (--preserve-fds %d)", a->preserve_fds);
    if (recorder_load_seccomp(a->seccomp, a->record_fd,
                              nnp ? "seccomp" : "seccomp (without no_new_privs)", err) < 0)
        return -1;
    if (!nnp && caps_set_masks(p->eng.caps, err) < 0)
        return rr_wrap(err, "process.capabilities");
    return 0;
}

static __attribute__((noreturn)) void die_started(const struct rr_error *err)
{
    char text[SYNC_TEXT_MAX];

    rr_error_text(err, text, sizeof(text));
    dprintf(2, "revrun: %s\n", text);
    _exit(127);
}

__attribute__((noreturn)) void engine_init_main(struct engine_init_args *a)
{
    struct rr_error err = {0};
    int started_fd = -1;
    sigset_t none;

    /* In tty mode nothing of create's stdio (the shim's pipe) is held: the
     * shim reads it to its end before it talks to the pty. */
    if (a->p->terminal) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
            _exit(1);
        close(null);
    }
    rr_cmdline_hide("revrun-init");
    /* revrun runs with umask 077; what it makes in the container's mounts
     * (mount points) must be searchable, as runc makes them. */
    umask(022);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (setup(a, &err) < 0) {
        sync_send_error(a->sync_fd, &err);
        _exit(1);
    }
    /* Until start a created container sent SIGTERM (or SIGKILL) ends, as
     * runc's does; the exec puts the handlers back to SIG_DFL. */
    if (proc_end_on_signals(true) < 0) {
        rr_fail(&err, errno, "pid 1's signals");
        sync_send_error(a->sync_fd, &err);
        _exit(1);
    }
    if (sync_send(a->sync_fd, SYNC_READY, 0, 0, NULL) < 0)
        _exit(1);
    close(a->sync_fd);
    /* The fifo's writing end stays open (close-on-exec) until the exec:
     * start waits for its end of file before the poststart hooks. */
    if (sync_wait_for_start(a->fifo_fd, &started_fd, NULL, &err) < 0)
        die_started(&err);
    /* startContainer's program is resolved in the container: it is the
     * image's, so it runs as the process will, with its identity,
     * capabilities, no_new_privs and seccomp (floor and the engine's
     * filter), after become_process as runc orders it. What it forks keeps
     * exactly that. */
    if (become_process(a, &err) < 0 ||
        run_hooks(a, RR_HOOK_START_CONTAINER, "created", &err) < 0)
        die_started(&err);
    execve(exe_path, a->p->args->v, a->p->env->v);
    rr_fail(&err, errno, "exec %s", exe_path);
    die_started(&err);
}
