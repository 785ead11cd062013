/* The broker's request records for the activity record: one fixed-size
 * message per request, from the broker (a child of the monitor, outside
 * the sandbox) to the monitor, which alone writes the record. The broker
 * never waits on it: a full channel drops the message and the next one
 * carries the count. The monitor reads the messages as a helper's that
 * parses hostile input: lengths checked, text escaped when written. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/egress.h"
#include "runtime/container/activity.h"
#include "runtime/container/egress_wire.h"

#define MSG_MAGIC 0x72726131u /* "rra1" */
#define M_METHOD 32
#define M_PATH 2048
#define M_NOTE 160

struct eg_act_msg {
    uint32_t magic;
    int32_t status; /* -1: a count of dropped records only */
    uint64_t bytes_up, bytes_down, ms, dropped, cut;
    int64_t sec, nsec;
    uint32_t method_len, path_len, note_len;
    uint8_t credential;
    char method[M_METHOD];
    char path[M_PATH];
    char note[M_NOTE];
};

static uint32_t take(char *dst, size_t cap, const char *src, size_t n, uint64_t *cut)
{
    size_t k = n < cap ? n : cap;

    memcpy(dst, src, k);
    *cut += n - k;
    return (uint32_t)k;
}

static void send_msg(struct eg_act_sender *s, struct eg_act_msg *m)
{
    m->magic = MSG_MAGIC;
    m->dropped = s->dropped;
    if (send(s->fd, m, sizeof(*m), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(*m))
        s->dropped = 0;
    else
        s->dropped++;
}

void egress_activity_send(struct eg_act_sender *s, const struct egress_log_entry *e)
{
    struct eg_act_msg m = {0};

    if (s->fd < 0)
        return;
    m.status = e->status;
    m.bytes_up = e->bytes_up;
    m.bytes_down = e->bytes_down;
    m.ms = e->ms;
    m.sec = e->started.tv_sec;
    m.nsec = e->started.tv_nsec;
    m.credential = e->credential;
    m.method_len = take(m.method, M_METHOD, e->method.p, e->method.n, &m.cut);
    m.path_len = take(m.path, M_PATH, e->path.p, e->path.n, &m.cut);
    if (e->note != NULL)
        m.note_len = take(m.note, M_NOTE - 1, e->note, strlen(e->note), &m.cut);
    send_msg(s, &m);
}

void egress_activity_close(struct eg_act_sender *s)
{
    struct eg_act_msg m = {.status = -1};

    if (s->fd < 0)
        return;
    if (s->dropped > 0)
        send_msg(s, &m);
    close(s->fd);
    s->fd = -1;
}

static void record(const struct eg_act_msg *m, struct activity *rec)
{
    char note[M_NOTE];
    struct act_request r = {
        .when = {.tv_sec = (time_t)m->sec, .tv_nsec = (long)m->nsec},
        .method = {m->method, m->method_len},
        .path = {m->path, m->path_len},
        .status = m->status,
        .bytes_up = m->bytes_up,
        .bytes_down = m->bytes_down,
        .ms = m->ms,
        .credential = m->credential != 0,
        .bytes_cut = m->cut,
    };

    if (m->note_len > 0) {
        memcpy(note, m->note, m->note_len);
        note[m->note_len] = '\0';
        r.note = note;
    }
    if (r.when.tv_nsec < 0 || r.when.tv_nsec >= 1000000000L)
        r.when.tv_nsec = 0;
    activity_request(rec, &r);
}

void egress_wire_take_activity(int *fd, struct activity *rec)
{
    struct eg_act_msg m;

    while (*fd >= 0) {
        ssize_t n = recv(*fd, &m, sizeof(m), MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            close(*fd);
            *fd = -1;
            return;
        }
        if ((size_t)n != sizeof(m) || m.magic != MSG_MAGIC || m.method_len > M_METHOD ||
            m.path_len > M_PATH || m.note_len >= M_NOTE)
            continue;
        activity_lost_requests(rec, m.dropped);
        if (m.status != -1)
            record(&m, rec);
    }
}
