#include "runtime/container/notify.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Counting stops here. Without a record, the listener is closed too: from
 * then on the kernel answers ENOSYS itself (still refused), and an agent
 * looping on unshare costs the monitor nothing more. With a record it is
 * kept (without it every exec would fail), and the attempts are answered
 * uncounted. */
#define NS_REFUSED_MAX 10000u

void notify_init(struct notify *n)
{
    *n = (struct notify){.fd = -1, .rec = {.fd = -1}};
}

int notify_record(struct notify *n, int dirfd, struct rr_error *err)
{
    if (activity_open(&n->rec, dirfd, err) < 0)
        return -1;
    n->recording = true;
    return 0;
}

int notify_started(struct notify *n, pid_t init_pid, bool flat, struct rr_error *err)
{
    if (!n->recording)
        return 0;
    if (act_execs_init(&n->execs, &n->rec, init_pid, flat, err) < 0) {
        act_execs_free(&n->execs);
        return -1;
    }
    n->have_execs = true;
    return 0;
}

void notify_take_fd(struct notify *n, int fd)
{
    if (n->fd >= 0) {
        close(fd);
        return;
    }
    /* Not SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6): it runs the
     * monitor on the exec'ing process's CPU, and the kernel's balancing
     * at exec then mostly moves the process to the other one. Measured on
     * 2 cores, with this loop and with a thread that only answered: a
     * slower exec either way (docs/activity.md, "Where an exec's time
     * goes"). */
    n->fd = fd;
}

static void let_go(struct notify *n)
{
    if (n->fd >= 0)
        close(n->fd);
    n->fd = -1;
}

/* A namespace attempt: refused with EPERM, as the filter would without a
 * listener, and counted. */
static void refuse(struct notify *n, const struct seccomp_notif *req,
                   struct seccomp_notif_resp *resp)
{
    resp->id = req->id;
    resp->error = -EPERM;
    resp->val = 0;
    resp->flags = 0;
    seccomp_notify_respond(n->fd, resp);
    if (n->ns_refused >= NS_REFUSED_MAX)
        return;
    if (n->ns_refused++ == 0) {
        char *name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
        snprintf(n->ns_first, sizeof(n->ns_first), "%s", name ? name : "?");
        free(name);
    }
    if (n->ns_refused >= NS_REFUSED_MAX && !n->recording)
        let_go(n);
}

void notify_handle(struct notify *n)
{
    const struct act_call *call;

    if (n->req == NULL && seccomp_notify_alloc(&n->req, &n->resp) < 0) {
        n->req = NULL;
        return;
    }
    /* the kernel wants it zeroed */
    memset(n->req, 0, sizeof(*n->req));
    if (seccomp_notify_receive(n->fd, n->req) < 0)
        return;
    call = n->have_execs ? act_execs_call(&n->execs, &n->req->data) : NULL;
    if (call != NULL)
        act_execs_handle(&n->execs, n->fd, n->req, call);
    else
        refuse(n, n->req, n->resp);
}

void notify_handle_on(struct notify *n, int fd)
{
    const struct act_call *call;

    if (n->req == NULL && seccomp_notify_alloc(&n->req, &n->resp) < 0) {
        n->req = NULL;
        return;
    }
    memset(n->req, 0, sizeof(*n->req));
    if (seccomp_notify_receive(fd, n->req) < 0)
        return;
    call = n->have_execs ? act_execs_call(&n->execs, &n->req->data) : NULL;
    if (call != NULL) {
        act_execs_handle(&n->execs, fd, n->req, call);
        return;
    }
    *n->resp = (struct seccomp_notif_resp){.id = n->req->id, .error = -EPERM};
    seccomp_notify_respond(fd, n->resp);
}

int notify_timeout_ms(const struct notify *n)
{
    int t = n->have_execs ? act_execs_timeout_ms(&n->execs) : -1;

    if (activity_pending(&n->rec) && (t < 0 || t > ACT_FLUSH_MS))
        t = ACT_FLUSH_MS;
    return t;
}

void notify_idle(struct notify *n, bool timed_out, bool exits_ready)
{
    if (n->have_execs)
        act_execs_tick(&n->execs, exits_ready);
    if (timed_out)
        activity_flush(&n->rec);
}

void notify_free(struct notify *n)
{
    notify_finish(n);
    let_go(n);
    if (n->req != NULL)
        seccomp_notify_free(n->req, n->resp);
    n->req = NULL;
    n->resp = NULL;
}

void notify_hangup(struct notify *n)
{
    let_go(n);
}

void notify_finish(struct notify *n)
{
    if (n->have_execs) {
        act_execs_finish(&n->execs);
        act_execs_free(&n->execs);
        n->have_execs = false;
    }
    activity_close(&n->rec);
}
