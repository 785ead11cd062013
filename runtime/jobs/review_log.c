/* review's phases on the job's log (review_log.h). */
#include "runtime/jobs/review_log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/escape.h"

#define LINE_MAX_RAW 2048
#define LINE_MAX_ESC (4 * LINE_MAX_RAW + 64)

enum field_type { F_STR, F_ESC, F_INT, F_BOOL }; /* F_ESC: a string escaped already */

/* One member of a phase's JSON object. Strings are escaped before they are
 * written, as in the text line. */
struct field {
    const char *key;
    enum field_type t;
    const char *s;
    int64_t i;
};

#define STR(k, v)                                                                                  \
    {                                                                                              \
        .key = (k), .t = F_STR, .s = (v)                                                           \
    }
#define ESC(k, v)                                                                                  \
    {                                                                                              \
        .key = (k), .t = F_ESC, .s = (v)                                                           \
    }
#define INT(k, v)                                                                                  \
    {                                                                                              \
        .key = (k), .t = F_INT, .i = (int64_t)(v)                                                  \
    }
#define BOOL(k, v)                                                                                 \
    {                                                                                              \
        .key = (k), .t = F_BOOL, .i = (v) ? 1 : 0                                                  \
    }

/* One write per line, so lines of ours and of the agent's never interleave
 * inside a line (the job's stderr may be a pipe shared with others). */
static void put(const struct review_log *l, const char *line, size_t len)
{
    while (len > 0) {
        ssize_t n = write(l->fd, line, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* the log is not worth failing the review for */
        line += n;
        len -= (size_t)n;
    }
}

static void emit_json(const struct review_log *l, const char *key, const char *value,
                      const struct field *f, size_t n)
{
    struct json_writer *w = json_writer_new(false);
    struct rr_error ignored;
    char *doc = NULL;
    size_t len;

    if (w == NULL)
        return;
    json_w_begin_object(w);
    json_w_kv_string(w, key, value);
    for (size_t i = 0; i < n; i++) {
        char esc[LINE_MAX_ESC];
        if (f[i].t == F_STR && f[i].s != NULL)
            json_w_kv_string(w, f[i].key, rr_escape(f[i].s, strlen(f[i].s), esc, sizeof(esc)));
        else if (f[i].t == F_ESC)
            json_w_kv_string(w, f[i].key, f[i].s);
        else if (f[i].t == F_INT)
            json_w_kv_int(w, f[i].key, f[i].i);
        else if (f[i].t == F_BOOL)
            json_w_kv_bool(w, f[i].key, f[i].i != 0);
    }
    json_w_end_object(w);
    if (json_writer_finish(w, &doc, &len, &ignored) == 0) {
        char *nl = realloc(doc, len + 2);
        if (nl != NULL) {
            doc = nl;
            doc[len] = '\n';
            put(l, doc, len + 1);
        }
    }
    free(doc);
    json_writer_free(w);
}

/* A phase: the text line (escaped whole, unless it is already: it holds
 * paths and the command), or its JSON object. */
static void emit_as(const struct review_log *l, const char *phase, const char *text, bool escaped,
                    const struct field *f, size_t n)
{
    char esc[LINE_MAX_ESC];
    size_t len;

    if (l->voice == REVIEW_VOICE_QUIET)
        return;
    if (l->voice == REVIEW_VOICE_JSON) {
        emit_json(l, "phase", phase, f, n);
        return;
    }
    memcpy(esc, "revrun| ", 8);
    if (escaped)
        snprintf(esc + 8, sizeof(esc) - 9, "%s", text);
    else
        rr_escape(text, strlen(text), esc + 8, sizeof(esc) - 9);
    len = strlen(esc);
    esc[len++] = '\n';
    put(l, esc, len);
}

static void emit(const struct review_log *l, const char *phase, const char *text,
                 const struct field *f, size_t n)
{
    emit_as(l, phase, text, false, f, n);
}

void rlog_bundle(const struct review_log *l, const char *id)
{
    char text[LINE_MAX_RAW];
    const struct field f[] = {STR("id", id)};

    snprintf(text, sizeof(text), "bundle ready: %s", id);
    emit(l, "bundle", text, f, 1);
}

void rlog_started(const struct review_log *l, char **cmd, int n_cmd, uint64_t timeout_s)
{
    char joined[1024] = "", text[LINE_MAX_RAW];
    size_t used = 0;

    for (int i = 0; i < n_cmd && used + 1 < sizeof(joined); i++) {
        int w = snprintf(joined + used, sizeof(joined) - used, "%s%s", i ? " " : "", cmd[i]);
        used = w < 0 ? used : used + (size_t)w;
    }
    {
        const struct field f[] = {STR("command", joined), INT("timeoutSeconds", timeout_s)};
        snprintf(text, sizeof(text), "agent started: %s (timeout %llu s)", joined,
                 (unsigned long long)timeout_s);
        emit(l, "started", text, f, 2);
    }
}

void rlog_exited(const struct review_log *l, const struct review_agent_end *e)
{
    char text[LINE_MAX_RAW], how[512];
    int ms = (int)(e->seconds * 1000.0);
    bool exited = WIFEXITED(e->wait_status);
    int value = exited ? WEXITSTATUS(e->wait_status) : WTERMSIG(e->wait_status);

    if (e->timed_out)
        snprintf(how, sizeof(how), "was killed at its timeout (%llu s)",
                 (unsigned long long)e->timeout_s);
    else if (exited)
        snprintf(how, sizeof(how), "exited with status %d", value);
    else
        snprintf(how, sizeof(how), "was killed by signal %d (%s)", value,
                 sigabbrev_np(value) ? sigabbrev_np(value) : "?");
    snprintf(text, sizeof(text), "agent %s after %d.%03d s%s%s", how, ms / 1000, ms % 1000,
             e->exec_error[0] ? ": " : "", e->exec_error);
    {
        const struct field f[] = {INT(exited ? "exitStatus" : "signal", value),
                                  BOOL("timedOut", e->timed_out), INT("ms", ms),
                                  STR("error", e->exec_error[0] ? e->exec_error : NULL)};
        emit(l, "exited", text, f, 4);
    }
}

void rlog_vetting(const struct review_log *l)
{
    emit(l, "vetting", "vetting what the agent wrote", NULL, 0);
}

void rlog_note(const struct review_log *l, const char *phase, const char *note)
{
    const struct field f[] = {ESC("note", note)};

    emit_as(l, phase, note, true, f, 1);
}

void rlog_verdict(const struct review_log *l, bool refused, size_t changes, size_t reasons,
                  const char *digest)
{
    char text[LINE_MAX_RAW];

    if (refused) {
        const struct field f[] = {STR("verdict", "refuse"), INT("changes", changes),
                                  INT("reasons", reasons)};
        snprintf(text, sizeof(text),
                 "verdict: refuse, %zu change%s, %zu reason%s (nothing to approve; see "
                 "summary.txt)",
                 changes, changes == 1 ? "" : "s", reasons, reasons == 1 ? "" : "s");
        emit(l, "verdict", text, f, 3);
        return;
    }
    {
        const struct field f[] = {STR("verdict", "accept"), INT("changes", changes),
                                  STR("digest", digest)};
        snprintf(text, sizeof(text), "verdict: accept, %zu change%s, digest %s", changes,
                 changes == 1 ? "" : "s", digest);
        emit(l, "verdict", text, f, 3);
    }
}

void rlog_exported(const struct review_log *l, const char *dir)
{
    char text[LINE_MAX_RAW];
    const struct field f[] = {STR("dir", dir)};

    snprintf(text, sizeof(text), "exported to %s", dir);
    emit(l, "exported", text, f, 1);
}

void rlog_destroyed(const struct review_log *l)
{
    emit(l, "destroyed", "bundle destroyed", NULL, 0);
}

void rlog_result(const struct review_log *l, int code, const char *out)
{
    char text[LINE_MAX_RAW];
    const struct field f[] = {INT("exitCode", code), STR("out", out)};

    snprintf(text, sizeof(text), "result: exit %d, written to %s/result.json", code, out);
    emit(l, "result", text, f, 2);
}

void rlog_agent_line(const struct review_log *l, const char *line, size_t len)
{
    char esc[LINE_MAX_ESC];
    size_t n;

    rr_escape(line, len, esc + 7, sizeof(esc) - 8);
    if (l->voice == REVIEW_VOICE_JSON) {
        emit_json(l, "agent", esc + 7, NULL, 0);
        return;
    }
    memcpy(esc, "agent| ", 7);
    n = strlen(esc);
    esc[n++] = '\n';
    put(l, esc, n);
}

bool review_unfinished_note(const struct review_agent_end *e, char *buf, size_t len)
{
    static const char tail[] = "this change set is what it left, unfinished";
    char esc[1024];
    int s = e->wait_status;

    if (e->timed_out)
        snprintf(buf, len, "the agent was killed after %llu s (its timeout): %s",
                 (unsigned long long)e->timeout_s, tail);
    else if (e->interrupted != 0)
        snprintf(buf, len, "the job was cancelled (SIG%s) and the agent stopped: %s",
                 sigabbrev_np(e->interrupted) ? sigabbrev_np(e->interrupted) : "?", tail);
    else if (e->exec_error[0] != '\0')
        snprintf(buf, len, "the agent could not be started (%s): %s",
                 rr_escape(e->exec_error, strlen(e->exec_error), esc, sizeof(esc)), tail);
    else if (WIFEXITED(s) && WEXITSTATUS(s) != 0)
        snprintf(buf, len, "the agent exited %d: %s", WEXITSTATUS(s), tail);
    else if (WIFSIGNALED(s))
        snprintf(buf, len, "the agent was killed by signal %d (SIG%s): %s", WTERMSIG(s),
                 sigabbrev_np(WTERMSIG(s)) ? sigabbrev_np(WTERMSIG(s)) : "?", tail);
    else
        return false;
    return true;
}
