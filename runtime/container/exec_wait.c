#include "runtime/container/exec_wait.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "runtime/container/sync.h"

static void reap(pid_t child)
{
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
}

void exec_kill_and_reap(pid_t child)
{
    kill(child, SIGKILL);
    reap(child);
}

int exec_await_pid(int report[2], pid_t helper, pid_t *child, struct rr_error *err)
{
    struct sync_msg m;
    int r, st;

    *child = -1;
    close(report[1]);
    report[1] = -1;
    r = sync_recv(report[0], &m);
    while (waitpid(helper, &st, 0) < 0 && errno == EINTR)
        ;
    if (r <= 0)
        return rr_fail(err, r < 0 ? errno : EPIPE, "the exec helper ended without a word");
    if (m.type == SYNC_ERROR)
        return rr_fail(err, m.errnum, "%s", m.text);
    *child = (pid_t)m.value;
    return 0;
}

/* The report socket is readable: silence (end of file) means the exec
 * worked, or that the process died before it (its status comes with the
 * wait); a word is why the exec failed. */
static int exec_outcome(int report, pid_t child, struct rr_error *err)
{
    struct sync_msg m;
    int r = sync_recv(report, &m);

    if (r < 0) {
        int e = errno;
        exec_kill_and_reap(child);
        return rr_fail(err, e, "waiting for the process's exec");
    }
    if (r > 0 && m.type == SYNC_ERROR) {
        reap(child);
        return rr_fail(err, m.errnum, "%s", m.text);
    }
    return 0;
}

int exec_await_exec(int report, pid_t child, const sigset_t *set, struct rr_error *err)
{
    _cleanup_close_ int sfd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);

    if (sfd < 0) {
        int e = errno;
        exec_kill_and_reap(child);
        return rr_fail(err, e, "signalfd");
    }
    for (;;) {
        struct pollfd p[2] = {{.fd = report, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
        struct signalfd_siginfo si;

        if (poll(p, 2, -1) < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            exec_kill_and_reap(child);
            return rr_fail(err, e, "waiting for the process's exec");
        }
        /* the exec's outcome first: a signal sent with it stays pending
         * for the wait that follows, which passes it on */
        if (p[0].revents != 0)
            return exec_outcome(report, child, err);
        if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
            continue;
        if (si.ssi_signo == SIGCHLD)
            continue; /* the report's end of file tells */
        if (si.ssi_signo == SIGWINCH || si.ssi_signo == SIGCONT) {
            kill(child, (int)si.ssi_signo);
            continue;
        }
        /* Not yet the program: nothing there to pass the signal to, and a
         * process of the container may hold it stopped, so that only
         * SIGKILL would end it. The caller asked to stop: it ends. */
        exec_kill_and_reap(child);
        return rr_fail(err, 0, "%s before the process's exec: the process was killed",
                       strsignal((int)si.ssi_signo));
    }
}

static int exit_code(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

int exec_wait_forwarding(pid_t child, const sigset_t *set, int *status, struct rr_error *err)
{
    _cleanup_close_ int sfd = signalfd(-1, set, SFD_CLOEXEC);
    _cleanup_close_ int pidfd = rr_pidfd_open(child);

    if (sfd < 0)
        return rr_fail(err, errno, "signalfd");
    for (;;) {
        struct signalfd_siginfo si;
        int st;
        pid_t w = waitpid(child, &st, WNOHANG);
        if (w == child) {
            *status = exit_code(st);
            return 0;
        }
        if (w < 0 && errno != EINTR)
            return rr_fail(err, errno, "wait for the process");
        ssize_t n = read(sfd, &si, sizeof(si));
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof(si))
            return rr_fail(err, errno, "signalfd");
        if (si.ssi_signo != SIGCHLD && pidfd >= 0)
            (void)rr_pidfd_send_signal(pidfd, (int)si.ssi_signo);
    }
}
