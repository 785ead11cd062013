/* ownfilter MODE: the agent stacking its own seccomp filter over revrun's
 * floor, as a sandbox of its own would (activity.bats).
 *
 *   ownfilter listener   make a filter whose execs go to a listener of its
 *                        own (answered CONTINUE by a child), print
 *                        "listener=ok" or the errno's name, then exec
 *                        /bin/echo ownfilter-listener
 *   ownfilter allow      an allow-all filter of its own, then exec
 *                        /bin/echo ownfilter-allow
 *   ownfilter unshare N  N refused unshare(CLONE_NEWUSER) first, then a
 *                        listener of its own for unshare answered CONTINUE:
 *                        prints "listener=..." and "unshare=ok" or the
 *                        errno's name */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *name(int e)
{
    switch (e) {
    case EPERM: return "EPERM";
    case EBUSY: return "EBUSY";
    case ENOSYS: return "ENOSYS";
    case EINVAL: return "EINVAL";
    case EACCES: return "EACCES";
    default: return "other";
    }
}

/* nr (or every call when nr < 0) gets ret; the rest are allowed. */
static long install(int nr, unsigned ret, unsigned flags)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, ret),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {4, f};

    if (nr < 0)
        prog = (struct sock_fprog){1, &f[3]};
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* A child that answers every notification of fd with CONTINUE. */
static void answer(int fd)
{
    if (fork() != 0) {
        close(fd);
        return;
    }
    for (;;) {
        struct seccomp_notif req;
        struct seccomp_notif_resp resp;
        memset(&req, 0, sizeof(req));
        if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
            _exit(0);
        memset(&resp, 0, sizeof(resp));
        resp.id = req.id;
        resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
    }
}

static long listener(int nr)
{
    long fd = install(nr, SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);

    printf("listener=%s\n", fd >= 0 ? "ok" : name(errno));
    fflush(stdout);
    if (fd >= 0)
        answer((int)fd);
    return fd;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (strcmp(mode, "listener") == 0) {
        listener(__NR_execve);
        execl("/bin/echo", "echo", "ownfilter-listener", (char *)NULL);
    } else if (strcmp(mode, "allow") == 0) {
        if (install(-1, SECCOMP_RET_ALLOW, 0) < 0)
            printf("allow=%s\n", name(errno));
        fflush(stdout);
        execl("/bin/echo", "echo", "ownfilter-allow", (char *)NULL);
    } else if (strcmp(mode, "unshare") == 0) {
        long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
        for (long i = 0; i < n; i++)
            unshare(CLONE_NEWUSER);
        listener(__NR_unshare);
        printf("unshare=%s\n", unshare(CLONE_NEWUSER) == 0 ? "ok" : name(errno));
        return 0;
    }
    return 2;
}
