/* Exit statuses for the activity record: a pidfd of each recorded process
 * (opened while its exec waited, so it is that process and no later one
 * with the same pid), in an epoll set. While execs come, the monitor looks
 * at it every EXIT_LOOK_MS, not at each exit: waking the monitor at every
 * exit cost a shell loop of /bin/true some 150-250 us an exec on 2 cores,
 * more than the exec's own notification (bench/activity.sh). Once none
 * came for that long, the set is in the monitor's poll and an exit wakes
 * it (no timer while a long-lived process runs). A pidfd is readable once
 * its process ended; the status is the kernel's (PIDFD_GET_INFO with
 * PIDFD_INFO_EXIT, Linux 6.15+), there once the process has been reaped,
 * by its parent or by the container's pid 1. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/proc.h"
#include "runtime/container/activity_exec.h"

/* linux/pidfd.h of the kernels revrun builds on may not have these yet. */
struct act_pidfd_info {
    uint64_t mask;
    uint64_t cgroupid;
    uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
    int32_t exit_code;
    uint32_t coredump_mask;
    uint32_t spare;
};
#define ACT_PIDFD_GET_INFO _IOWR(0xFF, 11, struct act_pidfd_info)
#define ACT_PIDFD_INFO_EXIT (1u << 3)

/* Watched processes are looked at this often: an exit's time in the record
 * is this much late at most, plus until the process is reaped. */
#define EXIT_LOOK_MS 50

struct act_watch {
    int pidfd; /* -1: a free slot */
    pid_t host_pid;
    int pid; /* in the container */
    uint64_t seq;
    bool ended;
};

/* 1 with *status once the kernel has it; 0 not yet; -1 never (no support). */
static int exit_status(int pidfd, int *status)
{
    struct act_pidfd_info info = {.mask = ACT_PIDFD_INFO_EXIT};

    if (ioctl(pidfd, ACT_PIDFD_GET_INFO, &info) < 0)
        return errno == ESRCH ? 0 : -1;
    if (!(info.mask & ACT_PIDFD_INFO_EXIT))
        return 0;
    *status = info.exit_code;
    return 1;
}

int act_pidfd_ppid(int pidfd, pid_t *ppid)
{
    struct act_pidfd_info info = {.mask = 0};

    if (ioctl(pidfd, ACT_PIDFD_GET_INFO, &info) < 0)
        return -1;
    *ppid = (pid_t)info.ppid;
    return 0;
}

int act_watch_init(struct act_execs *x, struct rr_error *err)
{
    int self = rr_pidfd_open(getpid()), status;

    (void)err;
    x->epfd = -1;
    /* Without PIDFD_INFO_EXIT the record has no exits: nothing is watched. */
    if (self < 0)
        return 0;
    if (exit_status(self, &status) < 0) {
        close(self);
        return 0;
    }
    close(self);
    x->watch = calloc(ACT_WATCH_MAX, sizeof(*x->watch));
    x->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (x->watch == NULL || x->epfd < 0) {
        free(x->watch);
        x->watch = NULL;
        if (x->epfd >= 0)
            close(x->epfd);
        x->epfd = -1;
        return 0;
    }
    for (size_t i = 0; i < ACT_WATCH_MAX; i++)
        x->watch[i].pidfd = -1;
    return 0;
}

/* Closing the pidfd takes it out of the epoll set (the set holds no other
 * reference to it): no EPOLL_CTL_DEL, one system call less an exec. */
static void release(struct act_execs *x, struct act_watch *w)
{
    if (w->ended)
        x->zombies--;
    close(w->pidfd);
    w->pidfd = -1;
    x->n_watch--;
}

/* Its exit into the record when the kernel has it; true when done with. */
static bool settle(struct act_execs *x, struct act_watch *w)
{
    int status;

    if (exit_status(w->pidfd, &status) != 1)
        return false;
    activity_exit(x->rec, w->seq, w->pid, status);
    release(x, w);
    return true;
}

static bool same_process(int a, int b)
{
    struct stat sa, sb;

    /* pidfs: one inode per process, never reused */
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_ino == sb.st_ino &&
           sa.st_dev == sb.st_dev;
}

void act_watch_add(struct act_execs *x, int pidfd, pid_t host_pid, int pid, uint64_t seq)
{
    struct act_watch *free_slot = NULL;
    struct epoll_event ev = {.events = EPOLLIN};

    for (size_t i = 0; x->watch != NULL && i < ACT_WATCH_MAX; i++) {
        struct act_watch *w = &x->watch[i];
        if (w->pidfd < 0) {
            free_slot = free_slot ? free_slot : w;
            continue;
        }
        if (w->host_pid != host_pid)
            continue;
        if (same_process(w->pidfd, pidfd)) { /* it ran another program: its exit is that one's */
            w->seq = seq;
            w->pid = pid;
            close(pidfd);
            return;
        }
        if (!settle(x, w)) /* an earlier process with this pid */
            release(x, w);
        free_slot = free_slot ? free_slot : w;
    }
    /* full: the ended ones not looked at yet make room */
    if (free_slot == NULL) {
        act_execs_on_exits(x);
        for (size_t i = 0; x->watch != NULL && i < ACT_WATCH_MAX && free_slot == NULL; i++)
            if (x->watch[i].pidfd < 0)
                free_slot = &x->watch[i];
    }
    if (free_slot == NULL) {
        activity_lost_exits(x->rec, 1); /* counted, as any record past a cap */
        close(pidfd);
        return;
    }
    ev.data.u64 = (uint64_t)(free_slot - x->watch);
    if (epoll_ctl(x->epfd, EPOLL_CTL_ADD, pidfd, &ev) < 0) {
        close(pidfd);
        return;
    }
    *free_slot = (struct act_watch){pidfd, host_pid, pid, seq, false};
    x->last_exec_ms = rr_mono_ms();
    if (x->n_watch++ == 0)
        x->next_look_ms = x->last_exec_ms + EXIT_LOOK_MS;
}

int act_watch_inside_pid(const struct act_execs *x, pid_t host_pid)
{
    for (size_t i = 0; x->watch != NULL && i < ACT_WATCH_MAX; i++)
        if (x->watch[i].pidfd >= 0 && !x->watch[i].ended && x->watch[i].host_pid == host_pid)
            return x->watch[i].pid;
    return 0;
}

static bool busy(const struct act_execs *x, int64_t now)
{
    return now - x->last_exec_ms < EXIT_LOOK_MS;
}

int act_execs_poll_fd(const struct act_execs *x)
{
    if (x->epfd < 0 || x->n_watch <= x->zombies || busy(x, rr_mono_ms()))
        return -1;
    return x->epfd;
}

int act_execs_timeout_ms(const struct act_execs *x)
{
    int64_t now, left;

    if (x->epfd < 0 || x->n_watch == 0)
        return -1;
    now = rr_mono_ms();
    /* idle with none ended: the poll set has the exits */
    if (x->zombies == 0 && !busy(x, now))
        return -1;
    left = x->next_look_ms - now;
    return left < 0 ? 0 : left > EXIT_LOOK_MS ? EXIT_LOOK_MS : (int)left;
}

/* Ended ones: recorded once reaped; until then out of the epoll set (a
 * pidfd stays readable) and looked at again on the next round. */
void act_execs_on_exits(struct act_execs *x)
{
    struct epoll_event ev[64];
    int n;

    if (x->epfd < 0)
        return;
    for (size_t i = 0; x->zombies > 0 && i < ACT_WATCH_MAX; i++)
        if (x->watch[i].pidfd >= 0 && x->watch[i].ended)
            settle(x, &x->watch[i]);
    do {
        n = epoll_wait(x->epfd, ev, 64, 0);
        for (int i = 0; i < n; i++) {
            struct act_watch *w = &x->watch[ev[i].data.u64];
            if (w->pidfd < 0 || w->ended || settle(x, w))
                continue;
            epoll_ctl(x->epfd, EPOLL_CTL_DEL, w->pidfd, NULL);
            w->ended = true;
            x->zombies++;
        }
    } while (n == 64);
}

void act_execs_tick(struct act_execs *x, bool exits_ready)
{
    int64_t now;

    if (x->epfd < 0 || x->n_watch == 0)
        return;
    now = rr_mono_ms();
    if (!exits_ready && now < x->next_look_ms)
        return;
    act_execs_on_exits(x);
    x->next_look_ms = now + EXIT_LOOK_MS;
}

void act_execs_finish(struct act_execs *x)
{
    for (size_t i = 0; x->watch != NULL && i < ACT_WATCH_MAX; i++)
        if (x->watch[i].pidfd >= 0 && !settle(x, &x->watch[i]))
            release(x, &x->watch[i]);
}

void act_watch_free(struct act_execs *x)
{
    for (size_t i = 0; x->watch != NULL && i < ACT_WATCH_MAX; i++)
        if (x->watch[i].pidfd >= 0)
            release(x, &x->watch[i]);
    free(x->watch);
    x->watch = NULL;
    if (x->epfd >= 0)
        close(x->epfd);
    x->epfd = -1;
}
