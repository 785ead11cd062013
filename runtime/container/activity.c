#include "runtime/container/activity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/escape.h"
#include "common/fsutil.h"

/* Keys, numbers and punctuation of an exec record, above its texts. */
#define EXEC_FIXED 512u
#define CWD_BUDGET 2048u
#define PATH_BUDGET 4096u
/* An argument is cut to fit what is left of the record, unless less than
 * this is left: then it and the rest are counted, not shown. */
#define ARG_MIN_ROOM 64u

/* ---- texts ---- */

/* What s takes in the JSON document: escaped text holds no control byte,
 * so only the backslash and the quote grow (yajl writes the rest as is). */
static size_t json_size(const char *s)
{
    size_t n = 2;

    for (; *s != '\0'; s++)
        n += (*s == '\\' || *s == '"') ? 2 : 1;
    return n;
}

/* t (up to raw_max of its bytes) escaped, taking at most budget bytes once
 * in JSON: cut with the escaping's marker when it does not fit. *cut counts
 * the bytes of t not shown; *size is what it takes. NULL: no room. */
static char *fit_text(struct act_text t, size_t raw_max, size_t budget, uint64_t *cut,
                      size_t *size)
{
    size_t n = t.n < raw_max ? t.n : raw_max, outlen = budget, used = 0;
    char *buf;

    if (budget < ARG_MIN_ROOM / 2)
        return NULL;
    buf = malloc(budget);
    if (buf == NULL)
        return NULL;
    /* Each pass takes off what overflowed; the marker keeps a cut one
     * recognisable. A handful of passes converge (each at least halves
     * the overflow). */
    for (int pass = 0; pass < 16 && outlen >= ARG_MIN_ROOM / 2; pass++) {
        rr_escape_used(t.p, n, buf, outlen, &used);
        *size = json_size(buf);
        if (*size <= budget) {
            *cut += t.n - used;
            return buf;
        }
        outlen -= *size - budget < outlen ? *size - budget : outlen;
    }
    free(buf);
    return NULL;
}

static void w_time(struct json_writer *w, const char *key, const struct timespec *ts)
{
    struct tm tm;
    char text[48];

    if (gmtime_r(&ts->tv_sec, &tm) == NULL) {
        json_w_kv_string(w, key, "");
        return;
    }
    snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             ts->tv_nsec / 1000000);
    json_w_kv_string(w, key, text);
}

/* The finished line, with its newline. */
static int finish_line(struct json_writer *w, char **out, size_t *len)
{
    struct rr_error err;
    char *doc = NULL;
    size_t n = 0;
    int r = json_writer_finish(w, &doc, &n, &err);

    json_writer_free(w);
    if (r < 0)
        return -1;
    char *grown = realloc(doc, n + 2);

    if (grown == NULL) {
        free(doc);
        return -1;
    }
    doc = grown;
    doc[n++] = '\n';
    doc[n] = '\0';
    *out = doc;
    *len = n;
    return 0;
}

/* ---- records ---- */

/* The texts of an exec, each cut to what is left of the record. */
static void w_exec_texts(struct json_writer *w, const struct act_exec *e, uint64_t *bytes_cut,
                         uint64_t *args_cut)
{
    size_t room = ACT_MAX_RECORD_BYTES - EXEC_FIXED, size = 0, i;
    _cleanup_free_ char *cwd = fit_text(e->cwd, ACT_MAX_PATH_BYTES, CWD_BUDGET, bytes_cut, &size);
    char *text;

    json_w_key(w, "cwd");
    json_w_string(w, cwd != NULL ? cwd : "");
    room -= cwd != NULL ? size : 2;
    text = fit_text(e->path, ACT_MAX_PATH_BYTES, PATH_BUDGET, bytes_cut, &size);
    json_w_key(w, "path");
    json_w_string(w, text != NULL ? text : "");
    room -= text != NULL ? size : 2;
    free(text);
    json_w_key(w, "argv");
    json_w_begin_array(w);
    for (i = 0; i < e->n_argv && i < ACT_MAX_ARGS && room > ARG_MIN_ROOM; i++) {
        text = fit_text(e->argv[i], ACT_MAX_ARG_BYTES, room - 1, bytes_cut, &size);
        if (text == NULL)
            break;
        json_w_string(w, text);
        room -= size + 1; /* and its comma */
        free(text);
    }
    json_w_end_array(w);
    *args_cut += e->n_argv - i;
}

int act_format_exec(const struct act_exec *e, uint64_t seq, char **out, size_t *len)
{
    struct json_writer *w = json_writer_new(false);
    uint64_t bytes_cut = e->bytes_cut, args_cut = e->args_cut;

    if (w == NULL)
        return -1;
    json_w_begin_object(w);
    json_w_kv_string(w, "type", "exec");
    json_w_kv_uint(w, "seq", seq);
    w_time(w, "time", &e->when);
    json_w_kv_int(w, "pid", e->pid);
    json_w_kv_int(w, "ppid", e->ppid);
    if (e->nested > 0)
        json_w_kv_uint(w, "nested", e->nested);
    if (e->found >= 0)
        json_w_kv_bool(w, "found", e->found == 1);
    w_exec_texts(w, e, &bytes_cut, &args_cut);
    json_w_kv_uint(w, "argc", e->argc);
    if (args_cut > 0)
        json_w_kv_uint(w, "argsCut", args_cut);
    if (bytes_cut > 0)
        json_w_kv_uint(w, "bytesCut", bytes_cut);
    json_w_end_object(w);
    return finish_line(w, out, len);
}

int act_format_exit(uint64_t seq, int pid, int wait_status, const struct timespec *when,
                    char **out, size_t *len)
{
    struct json_writer *w = json_writer_new(false);

    if (w == NULL)
        return -1;
    json_w_begin_object(w);
    json_w_kv_string(w, "type", "exit");
    json_w_kv_uint(w, "seq", seq);
    w_time(w, "time", when);
    json_w_kv_int(w, "pid", pid);
    if (WIFSIGNALED(wait_status))
        json_w_kv_int(w, "signal", WTERMSIG(wait_status));
    else
        json_w_kv_int(w, "status", WEXITSTATUS(wait_status));
    json_w_end_object(w);
    return finish_line(w, out, len);
}

int act_format_request(const struct act_request *r, char **out, size_t *len)
{
    struct json_writer *w = json_writer_new(false);
    uint64_t cut = r->bytes_cut;
    size_t size;
    _cleanup_free_ char *method = fit_text(r->method, 64, 128, &cut, &size);
    _cleanup_free_ char *path = fit_text(r->path, ACT_MAX_PATH_BYTES, PATH_BUDGET, &cut, &size);
    _cleanup_free_ char *note = NULL;

    if (w == NULL)
        return -1;
    if (r->note != NULL)
        note = fit_text((struct act_text){r->note, strlen(r->note)}, 256, 512, &cut, &size);
    json_w_begin_object(w);
    json_w_kv_string(w, "type", "request");
    w_time(w, "time", &r->when);
    json_w_kv_string(w, "method", method != NULL ? method : "");
    json_w_kv_string(w, "path", path != NULL ? path : "");
    json_w_kv_int(w, "status", r->status);
    json_w_kv_uint(w, "bytesUp", r->bytes_up);
    json_w_kv_uint(w, "bytesDown", r->bytes_down);
    json_w_kv_uint(w, "ms", r->ms);
    json_w_kv_bool(w, "credential", r->credential);
    if (note != NULL)
        json_w_kv_string(w, "note", note);
    if (cut > 0)
        json_w_kv_uint(w, "bytesCut", cut);
    json_w_end_object(w);
    return finish_line(w, out, len);
}

/* ---- the file ---- */

static int header(char **out, size_t *len)
{
    struct json_writer *w = json_writer_new(false);
    struct timespec now;

    if (w == NULL)
        return -1;
    clock_gettime(CLOCK_REALTIME, &now);
    json_w_begin_object(w);
    json_w_kv_string(w, "type", "activity");
    json_w_kv_uint(w, "version", 1);
    w_time(w, "started", &now);
    json_w_kv_string(w, "execs", "seccomp user notification, read by revrun outside the container");
    json_w_kv_uint(w, "maxRecords", ACT_MAX_RECORDS);
    json_w_kv_uint(w, "maxBytes", ACT_MAX_BYTES);
    json_w_kv_uint(w, "maxRecordBytes", ACT_MAX_RECORD_BYTES);
    json_w_kv_uint(w, "maxArgs", ACT_MAX_ARGS);
    json_w_kv_uint(w, "maxArgBytes", ACT_MAX_ARG_BYTES);
    json_w_end_object(w);
    return finish_line(w, out, len);
}

int activity_open(struct activity *a, int dirfd, struct rr_error *err)
{
    _cleanup_free_ char *line = NULL;
    size_t len;

    *a = (struct activity){.fd = -1};
    a->buf = malloc(ACT_BUF_BYTES);
    if (a->buf == NULL)
        return rr_fail(err, ENOMEM, "activity record");
    a->fd = openat(dirfd, ACTIVITY_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                   0600);
    if (a->fd < 0)
        return rr_fail(err, errno, "activity record: %s", ACTIVITY_FILE);
    if (header(&line, &len) < 0)
        return rr_fail(err, ENOMEM, "activity record");
    if (rr_write_all(a->fd, line, len) < 0)
        return rr_fail(err, errno, "activity record: %s", ACTIVITY_FILE);
    a->bytes = len;
    return 0;
}

void activity_flush(struct activity *a)
{
    if (a->used > 0 && a->fd >= 0 && rr_write_all(a->fd, a->buf, a->used) < 0)
        a->full = true; /* a full disk: from here on, counted only */
    a->used = 0;
}

/* true when line went into the record; false: counted only. */
static bool admit(struct activity *a, const char *line, size_t len)
{
    if (a->fd < 0 || a->full)
        return false;
    if (a->records >= ACT_MAX_RECORDS || a->bytes + len + ACT_END_RESERVE > ACT_MAX_BYTES) {
        a->full = true;
        return false;
    }
    if (a->used + len > ACT_BUF_BYTES)
        activity_flush(a);
    if (a->full)
        return false;
    memcpy(a->buf + a->used, line, len); /* a line is at most ACT_MAX_RECORD_BYTES */
    a->used += len;
    a->records++;
    a->bytes += len;
    /* Refusing past the caps: full while the largest record would still
     * fit, so the exec let run before its record is written always has its
     * room, and none runs only counted. */
    if (a->refuse_when_full && (a->records + 1 >= ACT_MAX_RECORDS ||
                                a->bytes + ACT_MAX_RECORD_BYTES + ACT_END_RESERVE > ACT_MAX_BYTES))
        a->full = true;
    return true;
}

uint64_t activity_exec(struct activity *a, const struct act_exec *e)
{
    _cleanup_free_ char *line = NULL;
    size_t len;

    if (!a->full && act_format_exec(e, a->seq + 1, &line, &len) == 0 && admit(a, line, len))
        return ++a->seq;
    a->more.execs++;
    return 0;
}

void activity_exit(struct activity *a, uint64_t seq, int pid, int wait_status)
{
    _cleanup_free_ char *line = NULL;
    struct timespec now;
    size_t len;

    clock_gettime(CLOCK_REALTIME, &now);
    if (a->full || act_format_exit(seq, pid, wait_status, &now, &line, &len) < 0 ||
        !admit(a, line, len))
        a->more.exits++;
}

void activity_request(struct activity *a, const struct act_request *r)
{
    _cleanup_free_ char *line = NULL;
    size_t len;

    if (a->full || act_format_request(r, &line, &len) < 0 || !admit(a, line, len))
        a->more.requests++;
}

void activity_lost_requests(struct activity *a, uint64_t n)
{
    a->more.requests += n;
}

void activity_lost_exits(struct activity *a, uint64_t n)
{
    a->more.exits += n;
}

void activity_close(struct activity *a)
{
    struct json_writer *w;
    _cleanup_free_ char *line = NULL;
    size_t len;

    if (a->fd < 0)
        return;
    activity_flush(a);
    w = json_writer_new(false);
    if (w != NULL) {
        json_w_begin_object(w);
        json_w_kv_string(w, "type", "end");
        json_w_kv_uint(w, "records", a->records);
        json_w_kv_uint(w, "bytes", a->bytes);
        json_w_kv_bool(w, "capped", a->full);
        json_w_key(w, "more");
        json_w_begin_object(w);
        json_w_kv_uint(w, "execs", a->more.execs);
        json_w_kv_uint(w, "exits", a->more.exits);
        json_w_kv_uint(w, "requests", a->more.requests);
        json_w_end_object(w);
        if (a->refuse_when_full)
            json_w_kv_uint(w, "refused", a->refused);
        json_w_end_object(w);
        if (finish_line(w, &line, &len) == 0)
            (void)rr_write_all(a->fd, line, len);
    }
    close(a->fd);
    a->fd = -1;
    free(a->buf);
    a->buf = NULL;
}
