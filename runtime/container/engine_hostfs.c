/* A joined IPC or pid namespace the host's user namespace owns (a config
 * naming one by path, not a pod's), or such a network namespace (a CNI
 * pod's too): the container's own user namespace cannot mount its mqueue,
 * proc or sysfs (the kernel asks for CAP_SYS_ADMIN over the namespace's
 * owner). create, root on the host side, makes them in a helper that has
 * entered the namespace (proc: a child of that helper, the first process
 * in the pid namespace that proc describes) and passes the detached mount
 * back; the init attaches it as it does a bind. What the filesystem shows
 * is the namespace the container joins anyway. */
#include "runtime/container/engine_hostfs.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountapi.h"
#include "runtime/container/sync.h"

static int joined_fd(const struct engine_joins *j, int flag)
{
    for (size_t i = 0; i < j->n; i++)
        if (j->flag[i] == flag)
            return j->fd[i];
    return -1;
}

/* In the namespace: make the filesystem, send it up. */
static void make_and_send(const struct mount_plan *m, int sock)
{
    struct rr_error err = {0};
    const char *fstype = m->kind == MOUNT_PROC    ? "proc"
                         : m->kind == MOUNT_SYSFS ? "sysfs"
                                                  : "mqueue";
    int mfd = rr_make_fs_src(fstype, m->fs_source, (const char *const *)m->fs_options.v,
                             m->fs_options.n, (unsigned)m->attr, &err);

    if (mfd < 0) {
        rr_wrap(&err, "mount %s on %s in the joined namespace", fstype, m->destination);
        sync_send_error(sock, &err);
        _exit(1);
    }
    _exit(sync_send_fd(sock, SYNC_ACK, mfd) < 0 ? 1 : 0);
}

/* The helper: enter the namespace; for a pid namespace, fork once more
 * (setns changes the pid namespace of children only). */
static __attribute__((noreturn)) void helper(const struct mount_plan *m, int nsfd, int flag,
                                             int sock)
{
    struct rr_error err = {0};
    pid_t pid;
    int status;

    if (setns(nsfd, flag) < 0) {
        rr_fail(&err, errno, "enter the joined %s namespace",
                flag == CLONE_NEWPID ? "pid" : flag == CLONE_NEWNET ? "network" : "IPC");
        sync_send_error(sock, &err);
        _exit(1);
    }
    if (flag != CLONE_NEWPID)
        make_and_send(m, sock);
    pid = fork();
    if (pid == 0)
        make_and_send(m, sock);
    if (pid < 0) {
        rr_fail(&err, errno, "a process in the joined pid namespace (has it an init?)");
        sync_send_error(sock, &err);
        _exit(1);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    _exit(0);
}

static int make_one(const struct mount_plan *m, int nsfd, int flag, int *out, struct rr_error *err)
{
    _cleanup_close_ int up = -1, down = -1;
    struct sync_msg msg;
    int sv[2], status, r;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return rr_fail(err, errno, "socketpair");
    up = sv[0];
    down = sv[1];
    pid = fork();
    if (pid < 0)
        return rr_fail(err, errno, "fork");
    if (pid == 0)
        helper(m, nsfd, flag, down);
    close(down);
    down = -1;
    r = sync_recv_fd(up, &msg, out);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (r > 0 && msg.type == SYNC_ERROR) {
        if (*out >= 0)
            close(*out);
        *out = -1;
        return rr_fail(err, msg.errnum, "%s", msg.text);
    }
    if (r <= 0 || *out < 0)
        return rr_fail(err, r < 0 ? errno : EPROTO, "mount %s: the helper in the joined "
                                                   "namespace sent nothing", m->destination);
    return 0;
}

int engine_hostfs_make(const struct profile *p, const struct engine_joins *joins, int *fds,
                       struct rr_error *err)
{
    for (size_t i = 0; i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        int flag = m->kind == MOUNT_PROC    ? CLONE_NEWPID
                   : m->kind == MOUNT_SYSFS ? CLONE_NEWNET
                                            : CLONE_NEWIPC;
        int nsfd;

        if (!m->host_made)
            continue;
        nsfd = joined_fd(joins, flag);
        if (nsfd < 0)
            return rr_fail(err, EINVAL, "mounts[%zu]: no joined namespace to mount %s in", i,
                           m->destination);
        if (make_one(m, nsfd, flag, &fds[i], err) < 0)
            return rr_wrap(err, "mounts[%zu]", i);
    }
    return 0;
}
