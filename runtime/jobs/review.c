/* revrun review: the CI job in one command. Bundle the checkout, run the
 * agent with a timeout, vet what it wrote, export the change set, destroy
 * the bundle, and say what happened with a documented exit status.
 *
 * The agent's stdout and stderr do not reach the job's log raw: every line
 * is escaped and prefixed ("agent| "), so the agent can neither drive the
 * terminal nor issue CI workflow commands (GitHub Actions reads "::name::"
 * only at the start of a line); the raw bytes are kept in OUT/agent.log. */
#include "runtime/jobs/review_internal.h"
#include "runtime/jobs/changeset_dir.h"
#include "runtime/jobs/review_preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/escape.h"
#include "common/fsutil.h"
#include "runtime/container/container.h"
#include "runtime/container/container_upper.h"
#include "runtime/container/egress_wire.h"
#include "runtime/container/home_store.h"
#include "runtime/container/log.h"
#include "common/proc.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/container/statedir.h"
#include "runtime/jobs/review_activity.h"
#include "runtime/container/sync.h"
#include "runtime/confine/cgroup.h"
#include "writeback/export/export.h"
#include "writeback/changeset/manifest.h"
#include "writeback/changeset/report.h"
#include "writeback/rules/rules.h"

#define AGENT_LOG_MAX (16u << 20) /* raw bytes kept of the agent's output */

static double ms_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1000.0 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* ---- phase 1: the bundle ---- */

static int build_config(struct review *r, struct rr_error *err)
{
    char lower[4096], out[4096];

    if (realpath(r->o->lower, lower) == NULL)
        return rr_fail(err, errno, "--lower %s", r->o->lower);
    if (r->o->bundle != NULL) {
        _cleanup_close_ int b = open(r->o->bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (b < 0)
            return rr_fail(err, errno, "--bundle %s", r->o->bundle);
        if (config_load(b, &r->cfg, err) < 0)
            return -1;
        free(r->cfg.revrun.lower);
        r->cfg.revrun.lower = strdup(lower);
        if (r->cfg.revrun.lower == NULL)
            return rr_fail(err, ENOMEM, "config");
    } else if (profile_default_config(&r->cfg, lower, r->ctx->rootless, err) < 0) {
        return -1;
    }
    if (r->o->spec != NULL && spec_build(&r->cfg, r->o->agent, r->o->spec, &r->preset, err) < 0)
        return -1;
    strv_free(&r->cfg.process.args);
    for (int i = 0; i < r->o->n_cmd; i++)
        if (strv_push(&r->cfg.process.args, r->o->cmd[i]) < 0)
            return rr_fail(err, ENOMEM, "command");
    if (r->o->timeout_s > 0)
        r->cfg.revrun.timeout_seconds = r->o->timeout_s;
    /* the profile keeps read-write binds off where the results go */
    if (realpath(r->o->out, out) == NULL)
        return rr_fail(err, errno, "--out %s", r->o->out);
    free(r->cfg.revrun.results);
    r->cfg.revrun.results = strdup(out);
    if (r->cfg.revrun.results == NULL)
        return rr_fail(err, ENOMEM, "config");
    return 0;
}

static int open_out(struct review *r, struct rr_error *err)
{
    bool created = mkdir(r->o->out, 0700) == 0;

    if (!created && errno != EEXIST)
        return rr_fail(err, errno, "--out %s", r->o->out);
    r->out_fd = open(r->o->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (r->out_fd < 0)
        return rr_fail(err, errno, "--out %s", r->o->out);
    /* A previous job's results must not be mistaken for this one's. */
    if (faccessat(r->out_fd, "result.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
        return rr_fail(err, EEXIST, "--out %s already holds a review's results", r->o->out);
    review_out_note_before(r->out_fd, created, &r->outdir);
    r->log_fd = openat(r->out_fd, "agent.log",
                       O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (r->log_fd < 0)
        return rr_fail(err, errno, "agent.log");
    return 0;
}

/* ---- phase 2: the run, with the agent's output piped through us ---- */

static void forward_output(struct review *r, const char *buf, size_t n, char *line, size_t *ll)
{
    if (r->log_used < AGENT_LOG_MAX) {
        size_t keep = n < AGENT_LOG_MAX - r->log_used ? n : AGENT_LOG_MAX - r->log_used;
        if (rr_write_all(r->log_fd, buf, keep) == 0)
            r->log_used += keep;
    }
    for (size_t i = 0; i < n; i++) {
        bool full = *ll == 1023;
        if (buf[i] != '\n' && !full) {
            line[(*ll)++] = buf[i];
            continue;
        }
        rlog_agent_line(&r->log, line, *ll);
        *ll = 0;
        if (full && buf[i] != '\n')
            line[(*ll)++] = buf[i];
    }
}

/* A cancelled CI job (SIGINT, then SIGTERM) or an operator's Ctrl-C: the
 * first signal goes to the agent, any further one kills the container; the
 * review then goes on as after any agent exit, so the bundle is destroyed
 * and the result written, and nothing is left for sweep. */
static void on_review_signal(struct review *r)
{
    struct signalfd_siginfo si;
    struct rr_error ignored;
    int sig;

    if (read(r->sig_fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
        return;
    sig = r->interrupted == 0 ? (int)si.ssi_signo : SIGKILL;
    if (r->interrupted == 0)
        r->interrupted = (int)si.ssi_signo;
    log_msg(LOG_WARN, "review: %s received: %s the agent", strsignal((int)si.ssi_signo),
            sig == SIGKILL ? "killing" : "stopping");
    container_kill(r->ctx, r->id, sig, &ignored);
}

static int pump_until_exit(struct review *r, int attach, int out_pipe, struct rr_error *err)
{
    char buf[8192], line[1024];
    size_t ll = 0;
    bool exited = false, eof = false;

    while (!exited || !eof) {
        struct pollfd pfd[3] = {{.fd = exited ? -1 : attach, .events = POLLIN},
                                {.fd = eof ? -1 : out_pipe, .events = POLLIN},
                                {.fd = exited ? -1 : r->sig_fd, .events = POLLIN}};
        if (poll(pfd, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            return rr_fail(err, errno, "poll");
        }
        if (pfd[2].revents & POLLIN)
            on_review_signal(r);
        if (pfd[1].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(out_pipe, buf, sizeof(buf));
            if (n > 0)
                forward_output(r, buf, (size_t)n, line, &ll);
            else if (n == 0 || errno != EINTR)
                eof = true;
        }
        if (pfd[0].revents & (POLLIN | POLLHUP)) {
            struct sync_msg m;
            int rc = sync_recv(attach, &m);
            if (rc <= 0)
                return rr_fail(err, EPIPE, "lost the container's monitor");
            if (m.type == SYNC_LEFTOVER) {
                r->notes.leftover = (uint64_t)m.value;
                snprintf(r->notes.leftover_names, sizeof(r->notes.leftover_names), "%s", m.text);
            }
            if (m.type != SYNC_EXITED)
                continue;
            exited = true;
            r->wait_status = (int)m.value;
            r->timed_out = (m.value2 & SYNC_EXIT_TIMED_OUT) != 0;
            r->notes.upper_full = (m.value2 & SYNC_EXIT_UPPER_FULL) != 0;
            r->notes.inodes_full = (m.value2 & SYNC_EXIT_UPPER_INODES) != 0;
            snprintf(r->exec_error, sizeof(r->exec_error), "%s", m.text);
        }
    }
    if (ll > 0)
        forward_output(r, "\n", 1, line, &ll);
    return 0;
}

/* create with stdout/stderr on a pipe we read (the container keeps them),
 * stdin on /dev/null; ours are restored right after. */
static int create_piped(struct review *r, int *attach, int *rd, struct rr_error *err)
{
    struct create_opts co = {.id = r->id, .cfg = &r->cfg, .attached = true,
                             .limits_skipped = &r->limits_skipped, .git_note = r->git_note,
                             .git_note_len = sizeof(r->git_note)};
    int p[2], saved[3], nul, rc;

    if (pipe2(p, O_CLOEXEC) < 0)
        return rr_fail(err, errno, "pipe");
    nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (int i = 0; i < 3; i++)
        saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
    dup2(nul, 0);
    dup2(p[1], 1);
    dup2(p[1], 2);
    /* The container inherits 1 and 2; revrun's own words go to the job's
     * stderr, not into the agent's stream. */
    log_set_stderr_fd(saved[2]);
    rc = container_create(r->ctx, &co, attach, err);
    log_set_stderr_fd(-1);
    for (int i = 0; i < 3; i++) {
        dup2(saved[i], i);
        close(saved[i]);
    }
    close(nul);
    close(p[1]);
    if (rc < 0) {
        close(p[0]);
        return -1;
    }
    *rd = p[0];
    return 0;
}

/* How the agent ended: on the log, and, when it did not finish, the note
 * that goes above the verdict. */
static void agent_ended(struct review *r)
{
    struct timespec now;
    struct review_agent_end e = {.wait_status = r->wait_status, .timed_out = r->timed_out,
                                 .timeout_s = r->cfg.revrun.timeout_seconds,
                                 .interrupted = r->interrupted, .exec_error = r->exec_error};
    char line[1024];

    clock_gettime(CLOCK_MONOTONIC, &now);
    e.seconds = ms_between(&r->t_run, &now) / 1000.0;
    rlog_exited(&r->log, &e);
    review_unfinished_note(&e, r->notes.unfinished, sizeof(r->notes.unfinished));
    review_notes_leftover_text(&r->notes, line, sizeof(line));
    if (line[0] != '\0')
        rlog_note(&r->log, "leftover", line);
}

static int run_agent(struct review *r, struct rr_error *err)
{
    int attach = -1, rd = -1, rc;

    if (create_piped(r, &attach, &rd, err) < 0)
        return -1;
    r->created = true;
    rlog_bundle(&r->log, r->id);
    rc = container_start(r->ctx, r->id, err);
    r->started = rc == 0;
    if (rc == 0) {
        rlog_started(&r->log, r->o->cmd, r->o->n_cmd, r->cfg.revrun.timeout_seconds);
        rc = pump_until_exit(r, attach, rd, err);
    }
    close(attach);
    close(rd);
    if (rc == 0)
        agent_ended(r);
    return rc;
}

/* ---- phase 3 and 4: vet, export ---- */

static int write_text(int dirfd, const char *name, int (*fn)(FILE *, const struct wb_changeset *,
                                                             struct rr_error *),
                      const struct wb_changeset *cs, struct rr_error *err)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    FILE *f;
    int rc;

    if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
        if (fd >= 0)
            close(fd);
        return rr_fail(err, errno, "write %s", name);
    }
    rc = fn(f, cs, err);
    if (fclose(f) != 0 && rc == 0)
        rc = rr_fail(err, errno, "write %s", name);
    return rc;
}

/* The notes on the agent's end, then the verdict, on the log. */
static void say_verdict(struct review *r, const struct wb_changeset *cs)
{
    if (r->notes.unfinished[0] != '\0')
        rlog_note(&r->log, "unfinished", r->notes.unfinished);
    if (r->notes.upper_full || r->notes.inodes_full)
        rlog_note(&r->log, "limit", r->notes.upper_full
                                        ? "the agent filled the upper to its size cap"
                                        : "the agent used every inode the upper allows");
    rlog_verdict(&r->log, r->refused, cs->n, cs->refused.n, r->digest);
}

static int vet_and_export(struct review *r, struct rr_error *err)
{
    struct container_upper cu;
    struct wb_scan scan = {0};
    struct wb_scan_input in;
    char dir[4096];
    unsigned char digest[WB_SHA256_LEN];
    int rc = -1;

    if (container_open_upper(r->ctx, r->id, &cu, err) < 0)
        return -1;
    in = (struct wb_scan_input){.lower_fd = cu.lower_fd, .upper_fd = cu.upper_fd,
                                .format = cu.format, .pol = &cu.policy,
                                .has_git_upper = cu.git_upper_fd >= 0,
                                .git_upper_fd = cu.git_upper_fd};
    review_notes_upper(&r->notes, cu.upper_fd, r->cfg.revrun.upper_size);
    if (wb_vet(&in, &scan, err) < 0 || wb_origin_set_review(&scan.cs.origin, r->id, err) < 0)
        goto out;
    r->vetted = true;
    r->refused = wb_changeset_refused(&scan.cs);
    r->n_changes = scan.cs.n;
    if (wb_changeset_digest_hex(&scan.cs, r->digest, err) < 0 ||
        review_notes_summary(r->out_fd, &scan.cs, &r->notes, err) < 0 ||
        write_text(r->out_fd, "report.json", wb_report_json, &scan.cs, err) < 0)
        goto out;
    say_verdict(r, &scan.cs);
    rc = 0;
    if (!r->refused && scan.cs.n > 0) {
        snprintf(dir, sizeof(dir), "%s/" REVIEW_CHANGESET_DIR, r->o->out);
        rc = review_notes_patch(r->out_fd, &scan, err);
        if (rc == 0 && (rc = wb_export(&scan, dir, digest, err)) == 0)
            rlog_exported(&r->log, dir);
    }
out:
    r->git = scan.cs.git;
    r->base = scan.cs.origin.base;
    scan.cs.git = (struct wb_gitinfo){0};
    wb_scan_free(&scan);
    container_upper_release(&cu);
    return rc;
}

/* Under sudo, OUT is the invoking user's (review_out.h); a failure only
 * warns: the results are there, root can still read them. */
static void hand_over_out(struct review *r)
{
    struct rr_error err;
    uid_t uid;
    gid_t gid;

    if (review_out_sudo_user(&uid, &gid) == 1 &&
        review_out_hand_over(r->out_fd, &r->outdir, uid, gid, &err) < 0) {
        char text[RR_ERROR_MSG_MAX + 128];
        rr_wrap(&err, "review: handing --out to the sudo user (SUDO_UID %u)", (unsigned)uid);
        log_msg(LOG_WARN, "%s", rr_error_text(&err, text, sizeof(text)));
    }
}

static void random_id(char *buf, size_t len)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, len, "review-%d-%ld", (int)getpid(), (long)(ts.tv_nsec % 1000000));
}

static void record_setup_error(struct review *r, const struct rr_error *err)
{
    rr_error_text(err, r->setup_error, sizeof(r->setup_error));
    log_error(err);
}

/* Blocked from the start, so no phase can be cut short by them; read while
 * the agent runs (children reset their own masks: the monitor blocks these
 * too, pid 1 and the fuse daemon clear theirs). */
static int block_signals(struct review *r, struct rr_error *err)
{
    r->sig_fd = proc_signalfd_stop(false);
    if (r->sig_fd < 0)
        return rr_fail(err, errno, "review: block signals");
    return 0;
}

int review_run(const struct rr_ctx *ctx, const struct review_opts *o)
{
    struct review r = {.ctx = ctx, .o = o, .out_fd = -1, .log_fd = -1, .sig_fd = -1,
                       .log = {.voice = o->voice, .fd = STDERR_FILENO}};
    struct rr_error err;
    int code;

    log_set_stderr_json(o->voice == REVIEW_VOICE_JSON);
    if (block_signals(&r, &err) < 0) {
        log_error(&err);
        return REVIEW_SETUP_FAILED;
    }

    clock_gettime(CLOCK_MONOTONIC, &r.t0);
    if (o->id != NULL)
        snprintf(r.id, sizeof(r.id), "%s", o->id);
    else
        random_id(r.id, sizeof(r.id));
    if (open_out(&r, &err) < 0) {
        log_error(&err);
        close(r.sig_fd);
        config_free(&r.cfg);
        review_out_free(&r.outdir);
        log_set_stderr_json(false);
        return REVIEW_SETUP_FAILED;
    }
    log_collect_warnings(&r.warnings);
    clock_gettime(CLOCK_MONOTONIC, &r.t_run);
    if (build_config(&r, &err) < 0 || review_preflight(&r.cfg, &err) < 0 ||
        run_agent(&r, &err) < 0) {
        record_setup_error(&r, &err);
    } else {
        clock_gettime(CLOCK_MONOTONIC, &r.t_vet);
        review_read_exit_record(&r);
        rlog_vetting(&r.log);
        if (vet_and_export(&r, &err) < 0)
            record_setup_error(&r, &err);
        if (review_keep_artifacts(&r, &err) < 0)
            record_setup_error(&r, &err);
        review_artifacts_summary(&r);
        review_ns_summary(&r);
        review_git_summary(&r);
    }
    if (r.t_vet.tv_sec == 0)
        clock_gettime(CLOCK_MONOTONIC, &r.t_vet);
    if (r.created) {
        review_keep_egress_log(&r);
        review_keep_activity(ctx, r.id, r.out_fd);
    }
    if (r.created && container_destroy(ctx, r.id, true, &err) < 0)
        record_setup_error(&r, &err);
    else if (r.created)
        rlog_destroyed(&r.log);
    clock_gettime(CLOCK_MONOTONIC, &r.t_end);
    code = review_exit_code(&r);
    if (review_write_result(&r, code, &err) < 0) {
        log_error(&err);
        code = r.started ? REVIEW_AFTER_AGENT : REVIEW_SETUP_FAILED;
    }
    if (r.log_fd >= 0)
        close(r.log_fd);
    hand_over_out(&r);
    rlog_result(&r.log, code, o->out);
    close(r.out_fd);
    close(r.sig_fd);
    config_free(&r.cfg);
    wb_gitinfo_free(&r.git);
    log_collect_warnings(NULL);
    log_set_stderr_json(false);
    review_out_free(&r.outdir);
    strv_free(&r.warnings);
    preset_free(&r.preset);
    rr_copy_report_free(&r.artifacts.copy);
    return code;
}
