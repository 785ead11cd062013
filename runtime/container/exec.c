/* revrun exec (see exec.h): the host side, and the two processes it forks. */
#include "runtime/container/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "runtime/confine/caps.h"
#include "runtime/confine/cgroup_freeze.h"
#include "runtime/container/console.h"
#include "runtime/container/exec_wait.h"
#include "runtime/container/container.h"
#include "runtime/confine/landlock.h"
#include "runtime/container/log.h"
#include "runtime/container/members.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/confine/seccomp.h"
#include "runtime/container/recorder_execs.h"
#include "runtime/container/passfds.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"

#define EXEC_MAX_CANDIDATES 64

/* Everything the two forked processes need, ready before the first fork. */
struct exec_job {
    const struct rr_ctx *ctx;
    const struct exec_opts *o;
    struct rr_config cfg;  /* the container's, as snapshotted at create */
    struct rr_config proc; /* the process asked for */
    struct profile cp;     /* the container's profile */
    struct exec_profile ep;
    struct seccomp_progs seccomp;
    enum cg_version cg_version;
    char cgroup[PATH_MAX];
    pid_t init_pid;
    int init_pidfd;
    int console_fd;
    int report[2]; /* SEQPACKET: [0] revrun, [1] the helper and the process */
    int record_fd; /* to the container's recorder (recorder_execs.h), or -1 */
    /* Rootless, setns through a pidfd needs ptrace access to its process,
     * and the init is not dumpable: the container's other processes are
     * tried in its place (see join()). */
    int cand[EXEC_MAX_CANDIDATES];
    size_t n_cand;
    char exe[PATH_MAX];
};

/* ---- the process, inside the container's namespaces ---- */

/* args[0] through the process's PATH (its env, never the host's), in the
 * container's root. */
static int resolve_exe(struct exec_job *j, struct rr_error *err)
{
    const char *prog = j->ep.p.args->v[0];
    const char *path = strv_env_get(j->ep.p.env, "PATH");
    struct stat st;

    if (strchr(prog, '/') != NULL) {
        snprintf(j->exe, sizeof(j->exe), "%s", prog);
        if (stat(j->exe, &st) < 0)
            return rr_fail(err, errno, "exec: \"%s\"", prog);
        return 0;
    }
    for (const char *dir = path ? path : "/usr/local/bin:/usr/bin:/bin"; *dir != '\0';) {
        size_t n = strcspn(dir, ":");
        if ((size_t)snprintf(j->exe, sizeof(j->exe), "%.*s/%s", (int)n, dir, prog) <
                sizeof(j->exe) &&
            stat(j->exe, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
            return 0;
        dir += n;
        if (*dir == ':')
            dir++;
    }
    /* runc's words, which engines show as is */
    return rr_fail(err, ENOENT, "exec: \"%s\": executable file not found in $PATH", prog);
}

static int take_identity(const struct exec_job *j, struct rr_error *err)
{
    const struct profile *p = &j->ep.p;

    /* Rootless, the namespace has setgroups "deny" (as the container's
     * init had it): the caller's groups stay, as they did for the init.
     * An engine's process has the groups it asked for (mapped ones). */
    if (p->engine ? setgroups(p->eng.n_groups, p->eng.groups) < 0
                  : !j->ctx->rootless && setgroups(0, NULL) < 0)
        return rr_fail(err, errno, "identity: setgroups");
    if (setresgid(p->gid, p->gid, p->gid) < 0)
        return rr_fail(err, errno, "identity: setresgid %u", (unsigned)p->gid);
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
        return rr_fail(err, errno, "identity: keepcaps");
    if (setresuid(p->uid, p->uid, p->uid) < 0)
        return rr_fail(err, errno, "identity: setresuid %u", (unsigned)p->uid);
    if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || caps_raise_effective(err) < 0)
        return rr_wrap(err, "identity");
    return 0;
}

static int set_rlimits(const struct profile *p, struct rr_error *err)
{
    for (size_t i = 0; i < p->n_rlimits; i++) {
        struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};
        if (setrlimit(p->rlimits[i].resource, &rl) < 0)
            return rr_fail(err, errno, "rlimit %d", p->rlimits[i].resource);
    }
    return 0;
}

/* In the same order as the container's own process (init.c): identity,
 * session and terminal, cwd, Landlock ruleset, no capability, no_new_privs,
 * rlimits, fds; Landlock and seccomp last. */
__attribute__((noreturn)) static void process_main(struct exec_job *j)
{
    const struct profile *p = &j->ep.p;
    struct rr_error err = {0};
    int ruleset = -1, slave = -1;
    sigset_t none;

    if (take_identity(j, &err) < 0)
        goto fail;
    if (setsid() < 0) {
        rr_fail(&err, errno, "setsid");
        goto fail;
    }
    if (p->terminal) {
        slave = console_make_pty(j->console_fd, &err);
        j->console_fd = -1;
        if (slave < 0 || console_attach(slave) < 0) {
            if (slave >= 0)
                rr_fail(&err, errno, "terminal");
            goto fail;
        }
        close(slave);
    }
    if (chdir(p->cwd) < 0) {
        rr_fail(&err, errno, "chdir to cwd (\"%s\") set in config.json failed", p->cwd);
        goto fail;
    }
    if (resolve_exe(j, &err) < 0 || landlock_prepare(p, &ruleset, &err) < 0)
        goto fail;
    /* none at all (revrun's own), or the engine's within the container's */
    if ((p->engine ? caps_set_masks(p->eng.caps, &err) : caps_drop_all(&err)) < 0) {
        rr_wrap(&err, "capabilities");
        goto fail;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        rr_fail(&err, errno, "no_new_privs");
        goto fail;
    }
    if (set_rlimits(p, &err) < 0)
        goto fail;
    umask(p->engine ? p->eng.umask : 022);
    if (p->engine) { /* as runc leaves them */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
    } else {
        proc_signals_default();
    }
    if (passfds_seal(j->o->preserve_fds) < 0) {
        rr_fail(&err, errno, "close fds");
        goto fail;
    }
    if (landlock_enforce(ruleset) < 0) {
        rr_fail(&err, errno, "landlock");
        goto fail;
    }
    if (recorder_load_seccomp(&j->seccomp, j->record_fd, "seccomp", &err) < 0)
        goto fail;
    execve(j->exe, p->args->v, p->env->v);
    rr_fail(&err, errno, "exec %s", j->exe);
fail:
    sync_send_error(j->report[1], &err);
    _exit(127);
}

/* ---- the helper: host side, then setns ---- */

/* CLONE_NEW* of every namespace to join: those the container made (its
 * profile's), and any other the init has that is not ours, where /proc
 * lets us compare (rootless, the init is not ours to inspect; setns
 * refuses to join one's own user namespace, and a namespace of the host's
 * cannot be joined once inside the container's user namespace). */
static int ns_flags(const struct exec_job *j, unsigned *flags, struct rr_error *err)
{
    static const struct {
        const char *name;
        unsigned flag;
    } ns[] = {{"user", CLONE_NEWUSER}, {"mnt", CLONE_NEWNS},  {"pid", CLONE_NEWPID},
              {"net", CLONE_NEWNET},   {"ipc", CLONE_NEWIPC}, {"uts", CLONE_NEWUTS},
              {"cgroup", CLONE_NEWCGROUP}};

    *flags = j->cp.clone_flags;
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        char path[64];
        struct stat theirs, mine;
        snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)j->init_pid, ns[i].name);
        if (stat(path, &theirs) < 0) {
            if (errno == EACCES || errno == EPERM)
                continue;
            return rr_fail(err, errno, "%s", path);
        }
        snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i].name);
        if (stat(path, &mine) < 0)
            return rr_fail(err, errno, "%s", path);
        if (theirs.st_ino != mine.st_ino || theirs.st_dev != mine.st_dev)
            *flags |= ns[i].flag;
        else
            *flags &= ~ns[i].flag;
    }
    return 0;
}

/* Through the init's pidfd; rootless, where that needs a ptrace right the
 * caller lacks (the init is not dumpable, by design), through another of
 * the container's processes, each a member of its cgroup as deep in pid
 * namespaces as the init (members.c): its namespaces are the container's,
 * or ones the container made below them with revrun.nestedSandboxes:
 * never wider. */
static int join(const struct exec_job *j, unsigned flags, struct rr_error *err)
{
    if (setns(j->init_pidfd, (int)flags) == 0)
        return 0;
    if (errno != EPERM || !j->ctx->rootless)
        return rr_fail(err, errno, "setns into the container's namespaces");
    for (size_t i = 0; i < j->n_cand; i++)
        if (setns(j->cand[i], (int)flags) == 0)
            return 0;
    return rr_fail(err, EPERM, "setns into the container's namespaces (rootless: no process "
                               "of the container is open to its owner's ptrace check)");
}

static pid_t clone_parent(void)
{
    return (pid_t)syscall(SYS_clone, (unsigned long)CLONE_PARENT, 0, 0, 0, 0);
}

__attribute__((noreturn)) static void helper_main(struct exec_job *j)
{
    struct rr_error err = {0};
    unsigned flags;
    pid_t child;
    int keep[PASSFDS_MAX + EXEC_MAX_CANDIDATES + 4];
    size_t nk = 0;

    /* Nothing of revrun's reaches the container: not its state directory,
     * its lock or its log; and no container process may read this one's
     * memory or fds while it sits in their namespaces. */
    keep[nk++] = j->report[1];
    keep[nk++] = j->init_pidfd;
    keep[nk++] = j->console_fd;
    keep[nk++] = j->record_fd;
    for (size_t i = 0; i < j->n_cand; i++)
        keep[nk++] = j->cand[i];
    for (int fd = 3; fd < 3 + j->o->preserve_fds; fd++)
        keep[nk++] = fd;
    rr_close_all_except(keep, nk);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) {
        rr_fail(&err, errno, "prctl");
        goto fail;
    }
    /* Counted against the container's limits before it runs a step there. */
    if (cgroup_join_existing(j->cg_version, j->cg_version == CG_NONE ? NULL : j->cgroup,
                             getpid(), &err) < 0)
        goto fail;
    if (ns_flags(j, &flags, &err) < 0)
        goto fail;
    /* The pidfd is the init's: if it died, /proc/PID above may have been
     * someone else's, and setns fails (ESRCH) rather than join that. */
    if (rr_pidfd_send_signal(j->init_pidfd, 0) < 0) {
        rr_fail(&err, errno, "the container's init is gone");
        goto fail;
    }
    if (join(j, flags, &err) < 0)
        goto fail;
    close(j->init_pidfd);
    for (size_t i = 0; i < j->n_cand; i++)
        close(j->cand[i]);
    child = clone_parent();
    if (child < 0) {
        rr_fail(&err, errno, "clone the process");
        goto fail;
    }
    if (child == 0)
        process_main(j);
    sync_send(j->report[1], SYNC_STARTED, child, 0, NULL);
    _exit(0);
fail:
    sync_send_error(j->report[1], &err);
    _exit(1);
}

/* ---- revrun's side ---- */

static int load_process(struct exec_job *j, struct rr_error *err)
{
    const struct exec_opts *o = j->o;
    struct json_node *root = NULL;
    int r;

    if (o->process_file != NULL) {
        if (json_parse_file(AT_FDCWD, o->process_file, &json_limits_config, &root, err) < 0)
            return rr_wrap(err, "--process %s", o->process_file);
        r = config_process_from_json(root, j->cfg.engine, &j->proc, err);
        json_free(root);
        return r < 0 ? rr_wrap(err, "--process %s", o->process_file) : 0;
    }
    /* The inline form: the container's process with this command. */
    memset(&j->proc, 0, sizeof(j->proc));
    j->proc.process.uid = j->cfg.process.uid;
    j->proc.process.gid = j->cfg.process.gid;
    j->proc.engine = j->cfg.engine;
    for (size_t s = 0; s < 5; s++)
        for (size_t i = 0; i < j->cfg.process.caps[s].n; i++)
            if (strv_push(&j->proc.process.caps[s], j->cfg.process.caps[s].v[i]) < 0)
                return rr_fail(err, ENOMEM, "exec");
    j->proc.process.terminal = o->tty;
    j->proc.process.cwd = strdup(o->cwd != NULL ? o->cwd : j->cfg.process.cwd);
    if (j->proc.process.cwd == NULL)
        return rr_fail(err, ENOMEM, "exec");
    if (j->proc.process.cwd[0] != '/')
        return rr_fail(err, EINVAL, "--cwd: must be an absolute path");
    for (int i = 0; i < o->argc; i++)
        if (strv_push(&j->proc.process.args, o->argv[i]) < 0)
            return rr_fail(err, ENOMEM, "exec");
    for (size_t i = 0; i < j->cfg.process.env.n; i++)
        if (strv_push(&j->proc.process.env, j->cfg.process.env.v[i]) < 0)
            return rr_fail(err, ENOMEM, "exec");
    for (size_t i = 0; o->env != NULL && i < o->env->n; i++)
        if (strv_push(&j->proc.process.env, o->env->v[i]) < 0)
            return rr_fail(err, ENOMEM, "exec");
    return 0;
}

static int check_status(const struct opened *op, struct rr_error *err)
{
    switch (container_status_of(op->dir, &op->state)) {
    case STATUS_CREATED:
    case STATUS_RUNNING:
        return 0;
    case STATUS_PAUSED:
        return rr_fail(err, EBUSY, "cannot exec in a paused container");
    case STATUS_STOPPED:
        return rr_fail(err, ESRCH, "cannot exec in a stopped container");
    default:
        return rr_fail(err, EAGAIN, "cannot exec in a container that is being created");
    }
}

/* Everything decided and opened while the container's lock is held. */
static int prepare(struct exec_job *j, const struct opened *op, struct rr_error *err)
{
    struct proc_ref init = init_ref(&op->state);

    if (check_status(op, err) < 0)
        return -1;
    j->init_pid = init.pid;
    j->init_pidfd = proc_ref_pidfd(&init);
    if (j->init_pidfd < 0)
        return rr_fail(err, ESRCH, "cannot exec in a stopped container");
    if (j->ctx->rootless) {
        struct members m = {0};
        struct rr_error ignored;
        /* none known (no cgroup to list them by): the init alone is tried */
        if (members_collect(&op->state, &m, &ignored) < 0)
            m.n = 0;
        for (size_t i = 0; i < m.n && j->n_cand < EXEC_MAX_CANDIDATES; i++)
            if (m.pids[i] != init.pid)
                if ((j->cand[j->n_cand] = fcntl(m.pidfds[i], F_DUPFD_CLOEXEC, 3)) >= 0)
                    j->n_cand++;
        members_free(&m);
    }
    j->cg_version = cgroup_version_parse(op->state.cgroup_version);
    if (op->state.cgroup != NULL)
        snprintf(j->cgroup, sizeof(j->cgroup), "%s", op->state.cgroup);
    if (config_load(op->dir, &j->cfg, err) < 0)
        return rr_wrap(err, "the container's config");
    if ((j->cfg.engine ? profile_build_engine(&j->cfg, op->state.bundle, PROFILE_POLICY_FILE,
                                              &j->cp, err)
                       : profile_build(&j->cfg, j->ctx->rootless, &j->cp, err)) < 0)
        return rr_wrap(err, "the container's profile");
    /* an engine container that records its execs records this one's too */
    if (j->cfg.engine && recorder_connect(op->dir, &j->record_fd, err) < 0)
        return -1;
    if (load_process(j, err) < 0 ||
        profile_exec(&j->cp, &j->proc, j->record_fd >= 0, &j->ep, err) < 0)
        return -1;
    for (size_t i = 0; i < j->ep.p.notes.n; i++)
        log_msg(LOG_WARN, "%s", j->ep.p.notes.v[i]);
    if (j->ep.p.terminal != (j->o->console_socket != NULL))
        return rr_fail(err, EINVAL, j->ep.p.terminal ? "a terminal needs --console-socket PATH"
                                                     : "--console-socket needs a terminal "
                                                       "(process.terminal or --tty)");
    if (j->o->console_socket != NULL &&
        (j->console_fd = console_connect(j->o->console_socket, err)) < 0)
        return -1;
    if (seccomp_compile(&j->ep.p, &j->seccomp, err) < 0)
        return -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, j->report) < 0)
        return rr_fail(err, errno, "socketpair");
    return 0;
}

static int write_pid_file(const char *path, pid_t pid, struct rr_error *err)
{
    char dir[PATH_MAX], text[32];
    const char *slash = strrchr(path, '/');
    _cleanup_close_ int dfd = -1;

    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return rr_fail(err, errno, "pid file directory %s", dir);
    snprintf(text, sizeof(text), "%d", (int)pid);
    return rr_write_atomic(dfd, slash ? slash + 1 : path, text, strlen(text), 0644, err);
}

static void job_free(struct exec_job *j)
{
    seccomp_progs_free(&j->seccomp);
    strv_free(&j->ep.p.notes);
    free(j->ep.rules);
    profile_free(&j->cp);
    config_free(&j->proc);
    config_free(&j->cfg);
    if (j->init_pidfd >= 0)
        close(j->init_pidfd);
    for (size_t i = 0; i < j->n_cand; i++)
        if (j->cand[i] >= 0)
            close(j->cand[i]);
    if (j->console_fd >= 0)
        close(j->console_fd);
    if (j->record_fd >= 0)
        close(j->record_fd);
    for (int i = 0; i < 2; i++)
        if (j->report[i] >= 0)
            close(j->report[i]);
}

static const int forwarded[] = {SIGTERM, SIGINT,  SIGHUP,   SIGQUIT, SIGUSR1,
                                SIGUSR2, SIGWINCH, SIGCONT, SIGALRM, SIGPIPE};

int container_exec(const struct rr_ctx *ctx, const struct exec_opts *o, int *status,
                   struct rr_error *err)
{
    struct exec_job j = {.ctx = ctx, .o = o, .init_pidfd = -1, .console_fd = -1,
                         .report = {-1, -1}, .record_fd = -1};
    struct opened op;
    sigset_t set, old;
    pid_t helper, child = -1;
    int r = -1;

    *status = 0;
    if (passfds_check(o->preserve_fds, err) < 0)
        return rr_wrap(err, "exec failed");
    if (open_container(ctx, o->id, true, &op, err) < 0 || prepare(&j, &op, err) < 0)
        goto out;
    /* Blocked before the fork, so a signal sent now waits for the process. */
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
        sigaddset(&set, forwarded[i]);
    sigprocmask(SIG_BLOCK, &set, &old);
    helper = fork();
    if (helper < 0) {
        rr_fail(err, errno, "fork");
        goto out;
    }
    if (helper == 0)
        helper_main(&j);
    if (exec_await_pid(j.report, helper, &child, err) < 0)
        goto out;
    /* The process is in the container's namespaces and cgroup: a kill or
     * delete of the container reaches it, and a process of the container
     * may stop it before its exec. The container's lock is not held for
     * that (it would hold every other verb on the container too). */
    opened_close(&op);
    if (exec_await_exec(j.report[0], child, &set, err) < 0)
        goto out;
    if (o->pid_file != NULL && write_pid_file(o->pid_file, child, err) < 0) {
        /* nobody would know the process: it does not stay */
        exec_kill_and_reap(child);
        goto out;
    }
    r = o->detach ? 0 : exec_wait_forwarding(child, &set, status, err);
out:
    opened_close(&op);
    job_free(&j);
    return r < 0 ? rr_wrap(err, "exec failed") : 0;
}
