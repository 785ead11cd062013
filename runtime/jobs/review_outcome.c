/* revrun review's outcome (review.c runs the phases): the exit record,
 * the artifacts and egress log kept, the summary lines, the exit status
 * and OUT/result.json. */
#include "runtime/jobs/review_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/escape.h"
#include "common/fsutil.h"
#include "runtime/container/container_upper.h"
#include "runtime/container/egress_wire.h"
#include "runtime/container/home_store.h"
#include "runtime/container/log.h"
#include "runtime/container/statedir.h"
#include "runtime/confine/cgroup.h"
#include "writeback/changeset/report.h"

static double ms_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1000.0 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* ---- the outcome ---- */

int review_exit_code(const struct review *r)
{
    if (r->setup_error[0] != '\0')
        return r->started ? REVIEW_AFTER_AGENT : REVIEW_SETUP_FAILED;
    if (r->timed_out)
        return REVIEW_TIMEOUT;
    if (r->refused)
        return REVIEW_REFUSED;
    if (!WIFEXITED(r->wait_status) || WEXITSTATUS(r->wait_status) != 0)
        return REVIEW_AGENT_FAILED;
    return REVIEW_OK;
}

void review_read_exit_record(struct review *r)
{
    struct rr_exit e;
    struct rr_error ignored;
    _cleanup_close_ int root = container_root(r->ctx, false, &ignored);
    _cleanup_close_ int dir = root < 0 ? -1 : statedir_open(root, r->id, &ignored);

    struct rr_state s;

    if (dir >= 0 && statedir_read_exit(dir, &e, &ignored) == 1) {
        r->oom_killed = e.oom_killed;
        r->ns_refused = e.ns_refused;
        snprintf(r->ns_syscall, sizeof(r->ns_syscall), "%s",
                 e.ns_refused_syscall ? e.ns_refused_syscall : "");
        exit_free(&e);
    }
    if (dir >= 0 && statedir_read_state(dir, &s, &ignored) == 0) {
        snprintf(r->backend, sizeof(r->backend), "%s", s.backend ? s.backend : "");
        state_free(&s);
    }
}

/* The broker's request log (method, path, status) goes with the results:
 * the state directory holding it is about to be destroyed. */
void review_keep_egress_log(struct review *r)
{
    struct rr_error ignored;
    _cleanup_close_ int root = container_root(r->ctx, false, &ignored);
    _cleanup_close_ int dir = root < 0 ? -1 : statedir_open(root, r->id, &ignored);
    _cleanup_free_ char *text = NULL;
    size_t len;

    if (dir >= 0 && rr_read_file(dir, EGRESS_LOG, 4u << 20, &text, &len, &ignored) == 0)
        rr_write_atomic(r->out_fd, EGRESS_LOG, text, len, 0600, &ignored);
}

/* revrun.artifacts: copied out of the agent's HOME (hostile, like the
 * upper) into OUT/artifacts, apart from the change set. */
int review_keep_artifacts(struct review *r, struct rr_error *err)
{
    _cleanup_close_ int home = -1;
    _cleanup_close_ int out = -1;

    if (r->cfg.revrun.artifacts.n == 0)
        return 0;
    home = container_open_home(r->ctx, r->id, err);
    if (home < 0)
        return rr_wrap(err, "artifacts");
    if (mkdirat(r->out_fd, "artifacts", 0700) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "artifacts");
    out = openat(r->out_fd, "artifacts", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (out < 0)
        return rr_fail(err, errno, "artifacts");
    if (home_copy_artifacts(home, &r->cfg.revrun.artifacts, out, &r->artifacts, err) < 0)
        return rr_wrap(err, "artifacts");
    r->kept_artifacts = true;
    return 0;
}

static const char *ns_remedy(const struct review *r)
{
    static char text[512];
    const char *agent = r->preset.sandbox_remedy;

    snprintf(text, sizeof(text),
             "the agent's own sandbox could not make namespaces (revrun refuses them): turn it "
             "off, revrun is the sandbox%s%s%s; or allow them with revrun --nested-sandboxes",
             agent ? " (" : "", agent ? agent : "", agent ? ")" : "");
    return text;
}

void review_ns_summary(const struct review *r)
{
    _cleanup_close_ int fd = -1;
    char line[1024];
    int n;

    if (r->ns_refused == 0)
        return;
    fd = openat(r->out_fd, "summary.txt", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
                0600);
    n = snprintf(line, sizeof(line), "nested sandbox: %llu namespace attempt%s refused (first: %s): %s",
                 (unsigned long long)r->ns_refused, r->ns_refused == 1 ? "" : "s", r->ns_syscall,
                 ns_remedy(r));
    if (fd >= 0 && n > 0)
        (void)(rr_write_all(fd, line, strlen(line)) == 0 && rr_write_all(fd, "\n", 1));
    log_msg(LOG_WARN, "review: %s", line);
}

/* A worktree checkout: create's line (escaped there) in summary.txt. */
void review_git_summary(const struct review *r)
{
    static const char not_shown[] = "git: a worktree checkout, and git will not work inside";
    _cleanup_close_ int fd = -1;
    const char *note = r->git_note;
    char line[2560];
    int n;

    /* the monitor may still have dropped it (auto fell back to
     * fuse-overlayfs): its line, logged and escaped, is then the truth */
    for (size_t i = 0; i < r->warnings.n; i++)
        if (strncmp(r->warnings.v[i], not_shown, sizeof(not_shown) - 1) == 0)
            note = r->warnings.v[i];
    if (note[0] == '\0')
        return;
    fd = openat(r->out_fd, "summary.txt", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
                0600);
    n = snprintf(line, sizeof(line), "%s\n", note);
    if (fd >= 0 && n > 0)
        (void)rr_write_all(fd, line, strlen(line));
}

/* A line for summary.txt; names are the agent's: escaped. */
void review_artifacts_summary(struct review *r)
{
    const struct rr_copy_report *c = &r->artifacts.copy;
    int fd;
    FILE *f;

    if (!r->kept_artifacts)
        return;
    fd = openat(r->out_fd, "summary.txt", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
                0600);
    if (fd < 0 || (f = fdopen(fd, "a")) == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    fprintf(f, "artifacts: %llu files, %llu bytes in artifacts/ (not part of the change set)%s\n",
            (unsigned long long)c->files, (unsigned long long)c->bytes,
            c->capped ? "; a cap was reached" : "");
    for (size_t i = 0; i < c->n_skipped_names; i++) {
        char esc[1024];
        rr_escape(c->skipped_names[i], strlen(c->skipped_names[i]), esc, sizeof(esc));
        fprintf(f, "  left out (not a regular file or directory, or over a cap): %s\n", esc);
    }
    fclose(f);
}

static void w_artifacts(struct json_writer *w, const struct review *r)
{
    const struct rr_copy_report *c = &r->artifacts.copy;

    if (!r->kept_artifacts)
        return;
    json_w_key(w, "artifacts");
    json_w_begin_object(w);
    json_w_kv_uint(w, "files", c->files);
    json_w_kv_uint(w, "bytes", c->bytes);
    json_w_kv_uint(w, "skipped", c->skipped);
    json_w_kv_uint(w, "missing", r->artifacts.n_missing);
    json_w_kv_bool(w, "capped", c->capped);
    json_w_key(w, "skippedNames");
    json_w_begin_array(w);
    for (size_t i = 0; i < c->n_skipped_names; i++)
        json_w_bytes(w, c->skipped_names[i], strlen(c->skipped_names[i]));
    json_w_end_array(w);
    json_w_end_object(w);
}

int review_write_result(struct review *r, int code, struct rr_error *err)
{
    static const char *const verdicts[] = {"accept", "refuse"};
    struct json_writer *w = json_writer_new(true);
    _cleanup_free_ char *text = NULL;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "result.json");
    json_w_begin_object(w);
    json_w_kv_string(w, "id", r->id);
    json_w_kv_int(w, "exitCode", code);
    if (r->setup_error[0] != '\0') {
        json_w_key(w, "setupError");
        json_w_bytes(w, r->setup_error, strlen(r->setup_error));
    }
    json_w_key(w, "agent");
    json_w_begin_object(w);
    if (r->created && WIFEXITED(r->wait_status))
        json_w_kv_int(w, "exitStatus", WEXITSTATUS(r->wait_status));
    if (r->created && WIFSIGNALED(r->wait_status))
        json_w_kv_int(w, "signal", WTERMSIG(r->wait_status));
    if (r->exec_error[0] != '\0') {
        json_w_key(w, "error");
        json_w_bytes(w, r->exec_error, strlen(r->exec_error));
    }
    json_w_end_object(w);
    json_w_key(w, "limitsHit");
    json_w_begin_array(w);
    if (r->timed_out)
        json_w_string(w, "timeout");
    if (r->oom_killed)
        json_w_string(w, "memory");
    review_notes_limits_json(w, &r->notes);
    json_w_end_array(w);
    json_w_key(w, "bestEffort"); /* what the job allowed to be skipped */
    json_w_begin_array(w);
    for (size_t i = 0; i < r->cfg.revrun.best_effort.n; i++)
        json_w_string(w, r->cfg.revrun.best_effort.v[i]);
    json_w_end_array(w);
    json_w_key(w, "limitsSkipped");
    json_w_begin_array(w);
    for (int i = 0; i < 3; i++)
        if (r->limits_skipped & (1u << i))
            json_w_string(w, cgroup_limit_names[i]);
    json_w_end_array(w);
    json_w_key(w, "warnings");
    json_w_begin_array(w);
    for (size_t i = 0; i < r->warnings.n; i++)
        json_w_bytes(w, r->warnings.v[i], strlen(r->warnings.v[i]));
    json_w_end_array(w);
    json_w_key(w, "timingMs");
    json_w_begin_object(w);
    json_w_kv_uint(w, "run", (uint64_t)ms_between(&r->t_run, &r->t_vet));
    json_w_kv_uint(w, "vet", (uint64_t)ms_between(&r->t_vet, &r->t_end));
    json_w_kv_uint(w, "total", (uint64_t)ms_between(&r->t0, &r->t_end));
    json_w_end_object(w);
    if (r->backend[0] != '\0')
        json_w_kv_string(w, "backend", r->backend);
    if (r->interrupted != 0)
        json_w_kv_string(w, "interruptedBy", sigabbrev_np(r->interrupted));
    if (r->vetted) {
        json_w_kv_string(w, "verdict", verdicts[r->refused]);
        json_w_kv_uint(w, "changes", r->n_changes);
        /* a refused set's digest is no approval's: another key */
        json_w_kv_string(w, r->refused ? "refusedDigest" : "digest", r->digest);
        json_w_kv_bool(w, "exported", !r->refused && r->n_changes > 0);
        if (r->base.commit[0] != '\0') {
            json_w_key(w, "base");
            json_w_begin_object(w);
            json_w_kv_string(w, "commit", r->base.commit);
            json_w_kv_string(w, "tree", r->base.tree);
            json_w_end_object(w);
        }
        wb_report_git_json(w, &r->git);
    }
    w_artifacts(w, r);
    review_notes_json(w, &r->notes);
    if (r->ns_refused > 0) {
        json_w_key(w, "nestedSandbox");
        json_w_begin_object(w);
        json_w_kv_uint(w, "refused", r->ns_refused);
        json_w_kv_string(w, "firstSyscall", r->ns_syscall);
        json_w_key(w, "remedy");
        json_w_bytes(w, ns_remedy(r), strlen(ns_remedy(r)));
        json_w_end_object(w);
    }
    json_w_end_object(w);
    if (json_writer_finish(w, &text, NULL, err) < 0) {
        json_writer_free(w);
        return -1;
    }
    json_writer_free(w);
    return rr_write_atomic(r->out_fd, "result.json", text, strlen(text), 0600, err);
}
