/* The monitor after create (monitor.h): its event loop over pid 1's
 * messages, the agent's refused namespace attempts, signals and the
 * timeout, and the exit record. */
#include "runtime/container/monitor_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/clock.h"
#include "common/escape.h"
#include "common/crashpoint.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "runtime/container/outdir.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"


/* ---- after create ---- */

void monitor_kill_init(struct monitor *m)
{
    if (m->init_pid > 0 && !m->exited)
        kill(m->init_pid, SIGKILL);
}

static void on_init_message(struct monitor *m);

static void report_out(void *arg, const char *path, const char *why)
{
    struct monitor *m = arg;
    char shown[1024], line[SYNC_TEXT_MAX];

    if (!m->a->attached || m->a->cli_fd < 0)
        return;
    rr_escape(path, strlen(path), shown, sizeof(shown));
    snprintf(line, sizeof(line), "out-dir: /out/%s is %s: not handed over", shown, why);
    sync_send(m->a->cli_fd, SYNC_WARNING, 0, 0, line);
}

/* Every process of the container is gone (pid 1's exit took its pid
 * namespace): /out holds what the agent left, and nobody writes it now. */
static void hand_over_out(struct monitor *m)
{
    struct rr_error err;
    char text[RR_ERROR_MSG_MAX + 64];
    size_t refused = 0;

    if (m->out_mfd < 0)
        return;
    if (outdir_export(m->out_mfd, m->out_dir, report_out, m, &refused, &err) < 0 &&
        m->a->attached && m->a->cli_fd >= 0)
        sync_send(m->a->cli_fd, SYNC_WARNING, 0, 0, rr_error_text(&err, text, sizeof(text)));
    rr_closep(&m->out_mfd);
    m->out_mfd = -1;
}

/* The upper's store full, now or at an earlier look: an agent that filled
 * it and deleted what it wrote before it exited still shows in the
 * review's limitsHit (looked at every UPPER_LOOK_MS while it runs, and at
 * its exit). */
#define UPPER_LOOK_MS 500

static void look_upper(struct monitor *m)
{
    struct statfs st;

    m->next_upper_look_ms = rr_mono_ms() + UPPER_LOOK_MS;
    if (m->upper_look_fd < 0 || fstatfs(m->upper_look_fd, &st) < 0)
        return;
    if (st.f_blocks > 0 && st.f_bfree == 0)
        m->upper_hit |= SYNC_EXIT_UPPER_FULL;
    if (st.f_files > 0 && st.f_ffree == 0)
        m->upper_hit |= SYNC_EXIT_UPPER_INODES;
}

/* The poll's timeout: the record's, or the next look at the upper. */
static int loop_timeout_ms(struct monitor *m)
{
    int t = notify_timeout_ms(&m->notify);
    int64_t left;

    if (m->upper_look_fd < 0 || m->exited)
        return t;
    left = m->next_upper_look_ms - rr_mono_ms();
    if (left < 0)
        left = 0;
    return t < 0 || left < t ? (int)left : t;
}

static void record_exit(struct monitor *m, int init_status)
{
    char finished[64];
    struct rr_exit e = {0};
    struct rr_error err;
    struct pollfd pfd = {.fd = m->init_fd, .events = POLLIN};

    /* pid 1's last words (its exit report) may still be queued. */
    while (m->init_fd >= 0 && poll(&pfd, 1, 0) > 0)
        on_init_message(m);
    m->exited = true;
    look_upper(m);
    /* Every process of the container is gone: the broker's last requests,
     * the exits, and the record's last line, before anyone is told. */
    if (m->notify.rec.fd >= 0)
        egress_wire_stop(&m->broker, &m->notify.rec);
    notify_finish(&m->notify);
    rr_now_rfc3339(finished, sizeof(finished));
    /* The agent's own status when pid 1 reported it; otherwise pid 1 was
     * killed (kill -9, timeout, out of memory) and its status says how. */
    e.wait_status = m->have_agent_status ? m->agent_status : init_status;
    e.timed_out = m->timed_out;
    e.oom_killed = cgroup_oom_killed(m->a->cgroup);
    e.finished = finished;
    e.error = m->exec_error[0] ? m->exec_error : NULL;
    e.ns_refused = m->notify.ns_refused;
    e.ns_refused_syscall = m->notify.ns_first[0] ? m->notify.ns_first : NULL;
    /* A failed write (a full disk) leaves `state` without an exit code, but
     * an attached run is told all the same. */
    statedir_write_exit(m->a->state_dir, &e, &err);
    hand_over_out(m);
    if (m->a->attached && m->a->cli_fd >= 0)
        sync_send(m->a->cli_fd, SYNC_EXITED, e.wait_status,
                  (m->timed_out ? SYNC_EXIT_TIMED_OUT : 0) | m->upper_hit, e.error);
}

static void on_init_message(struct monitor *m)
{
    struct sync_msg msg;
    int passed = -1;
    int r = sync_recv_fd(m->init_fd, &msg, &passed);

    if (r <= 0) {
        close(m->init_fd);
        m->init_fd = -1;
        return;
    }
    if (msg.type == SYNC_NOTIFY_FD && passed >= 0) {
        notify_take_fd(&m->notify, passed);
        return;
    }
    if (passed >= 0)
        close(passed);
    if (msg.type == SYNC_STARTED && m->a->p->timeout_seconds > 0 && m->timer_fd >= 0) {
        struct itimerspec its = {.it_value.tv_sec = (time_t)m->a->p->timeout_seconds};
        timerfd_settime(m->timer_fd, 0, &its, NULL);
    } else if (msg.type == SYNC_ERROR) {
        snprintf(m->exec_error, sizeof(m->exec_error), "%s%s%s", msg.text,
                 msg.errnum ? ": " : "", msg.errnum ? strerror(msg.errnum) : "");
    } else if (msg.type == SYNC_LEFTOVER && m->a->attached && m->a->cli_fd >= 0) {
        sync_send(m->a->cli_fd, SYNC_LEFTOVER, msg.value, 0, msg.text);
    } else if (msg.type == SYNC_EXITED) {
        m->have_agent_status = true;
        m->agent_status = (int)msg.value;
        snprintf(m->exec_error, sizeof(m->exec_error), "%s", msg.text);
    }
}

/* 1 when the monitor should exit. */
static int on_signal(struct monitor *m)
{
    struct signalfd_siginfo si;

    if (read(m->sig_fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
        return 0;
    if (si.ssi_signo == SIGCHLD) {
        int status;
        pid_t w;
        while ((w = waitpid(-1, &status, WNOHANG)) > 0)
            if (w == m->init_pid && !m->exited)
                record_exit(m, status);
            else if (backend_lost(&m->backend, w, status, m->exited ? -1 : m->init_pid,
                                  m->exec_error, sizeof(m->exec_error)))
                monitor_kill_init(m);
        return 0;
    }
    /* TERM/INT/HUP: destroy. The store goes with us. */
    monitor_kill_init(m);
    return 1;
}

void monitor_event_loop(struct monitor *m)
{
    for (;;) {
        struct pollfd pfd[7] = {
            {.fd = m->sig_fd, .events = POLLIN},
            {.fd = m->init_fd, .events = POLLIN},
            {.fd = m->timer_fd, .events = POLLIN},
            {.fd = m->a->attached ? m->a->cli_fd : -1, .events = POLLIN},
            {.fd = m->notify.fd, .events = POLLIN},
            {.fd = m->notify.have_execs ? act_execs_poll_fd(&m->notify.execs) : -1,
             .events = POLLIN},
            {.fd = m->broker.activity, .events = POLLIN},
        };
        int r = poll(pfd, 7, loop_timeout_ms(m));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (!m->exited && rr_mono_ms() >= m->next_upper_look_ms)
            look_upper(m);
        /* the agent waits on these: first */
        if (pfd[4].revents & POLLIN)
            notify_handle(&m->notify);
        else if (pfd[4].revents & (POLLHUP | POLLERR | POLLNVAL))
            notify_hangup(&m->notify); /* every process under the filter is gone */
        notify_idle(&m->notify, r == 0, pfd[5].revents & POLLIN);
        if (pfd[6].revents & (POLLIN | POLLHUP))
            egress_wire_take_activity(&m->broker.activity, &m->notify.rec);
        if ((pfd[0].revents & POLLIN) && on_signal(m))
            break;
        if (pfd[1].revents & (POLLIN | POLLHUP))
            on_init_message(m);
        if (pfd[2].revents & POLLIN) {
            uint64_t ticks;
            if (read(m->timer_fd, &ticks, sizeof(ticks)) > 0 && !m->exited) {
                m->timed_out = true;
                monitor_kill_init(m);
            }
        }
        if (pfd[3].revents & (POLLIN | POLLHUP)) {
            /* The attached `run` went away. While the container runs, that
             * kills it (its state is left for `destroy` or `sweep`); once it
             * has exited, the bundle stays for `run --keep`'s diff. */
            close(m->a->cli_fd);
            m->a->cli_fd = -1;
            if (!m->exited) {
                monitor_kill_init(m);
                break;
            }
        }
    }
    /* Reap pid 1 before leaving, so its exit is on record. */
    while (!m->exited && m->init_pid > 0) {
        int status;
        pid_t w = waitpid(m->init_pid, &status, 0);
        if (w == m->init_pid)
            record_exit(m, status);
        else if (w < 0 && errno != EINTR)
            break;
    }
}
