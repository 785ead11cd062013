#include "common/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"

int rr_pidfd_open(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int rr_pidfd_send_signal(int pidfd, int sig)
{
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/* State letter and start time from /proc/PID/stat. The command name (field
 * 2) may contain spaces and parentheses, so parsing starts after the last ')'. */
static int read_stat(pid_t pid, char *state, unsigned long long *start)
{
    char path[64], buf[1024];
    _cleanup_close_ int fd = -1;
    ssize_t n;
    char *p;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    if (n <= 0) {
        errno = n == 0 ? ESRCH : errno;
        return -1;
    }
    buf[n] = '\0';
    p = strrchr(buf, ')');
    if (p == NULL || p[1] != ' ') {
        errno = EINVAL;
        return -1;
    }
    *state = p[2];
    p += 2;
    /* field 3 is the state; start time is field 22: skip 19 more spaces */
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (p == NULL) {
            errno = EINVAL;
            return -1;
        }
        p++;
    }
    *start = strtoull(p, NULL, 10);
    return 0;
}

int proc_ref_of(pid_t pid, struct proc_ref *ref, struct rr_error *err)
{
    char state;

    ref->pid = pid;
    if (read_stat(pid, &state, &ref->start_time) < 0)
        return rr_fail(err, errno, "read /proc/%d/stat", (int)pid);
    return 0;
}

int proc_ref_pidfd(const struct proc_ref *ref)
{
    unsigned long long start;
    char state;
    int fd;

    if (ref->pid <= 0) {
        errno = ESRCH;
        return -1;
    }
    fd = rr_pidfd_open(ref->pid);
    if (fd < 0)
        return -1;
    /* Checked after the pidfd exists: if the start time matches now, the
     * pidfd holds the process we recorded and cannot drift to another. */
    if (read_stat(ref->pid, &state, &start) < 0 || start != ref->start_time || state == 'Z' ||
        state == 'X') {
        close(fd);
        errno = ESRCH;
        return -1;
    }
    return fd;
}

bool proc_ref_alive(const struct proc_ref *ref)
{
    int fd = proc_ref_pidfd(ref);

    if (fd < 0)
        return false;
    close(fd);
    return true;
}

int proc_ref_signal(const struct proc_ref *ref, int sig, struct rr_error *err)
{
    _cleanup_close_ int fd = proc_ref_pidfd(ref);

    if (fd < 0)
        return rr_fail(err, errno, "process %d", (int)ref->pid);
    if (rr_pidfd_send_signal(fd, sig) < 0)
        return rr_fail(err, errno, "signal %d to process %d", sig, (int)ref->pid);
    return 0;
}

int proc_ref_wait_gone(const struct proc_ref *ref, int timeout_ms)
{
    _cleanup_close_ int fd = proc_ref_pidfd(ref);
    struct pollfd pfd;
    int r;

    if (fd < 0)
        return 0;
    pfd.fd = fd;
    pfd.events = POLLIN;
    do {
        r = poll(&pfd, 1, timeout_ms);
    } while (r < 0 && errno == EINTR);
    if (r > 0)
        return 0;
    if (r == 0)
        errno = ETIMEDOUT;
    return -1;
}

int proc_signalfd_stop(bool with_sigchld)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (with_sigchld)
        sigaddset(&set, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        return -1;
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int proc_pidns_self(unsigned long long *dev, unsigned long long *ino)
{
    char self[32], want[32];
    struct stat st;
    ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

    snprintf(want, sizeof(want), "%d", (int)getpid());
    if (n <= 0 || (self[n] = '\0', strcmp(self, want) != 0)) {
        errno = ESRCH;
        return -1;
    }
    if (stat("/proc/self/ns/pid", &st) < 0)
        return -1;
    *dev = (unsigned long long)st.st_dev;
    *ino = (unsigned long long)st.st_ino;
    return 0;
}

void proc_signals_default(void)
{
    sigset_t none;

    for (int sig = 1; sig < 32; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

static void end_created(int sig)
{
    _exit(128 + sig);
}

int proc_end_on_signals(bool on)
{
    static const int ending[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM};
    struct sigaction sa = {.sa_handler = on ? end_created : SIG_DFL};

    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
        if (sigaction(ending[i], &sa, NULL) < 0)
            return -1;
    return 0;
}
