/* revrun run: create + start + wait, exiting with the process's status
 * (128+N when a signal N ended it). Two forms:
 *   run [--bundle DIR] [--keep] ID
 *   run --lower DIR [--out DIR] [--keep] [--id ID] -- CMD ARGS...
 * The second builds the bundle from the default hardened spec; with --out,
 * the process writes /out (a tmpfs capped like the upper) and, when it has
 * exited, its regular files and directories are handed to that host
 * directory (revrun.out). Without --keep the container is destroyed once it
 * has exited. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/cli_paths.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"
#include "common/proc.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/container/sync.h"

struct run_opts {
    const char *bundle;
    const char *lower;
    const char *out;
    const char *id;
    bool keep;
    char **cmd;
    int n_cmd;
};

static int parse(int argc, char **argv, struct run_opts *o)
{
    static const struct option opts[] = {
        {"bundle", required_argument, NULL, 'b'}, {"lower", required_argument, NULL, 'l'},
        {"out", required_argument, NULL, 'o'},    {"keep", no_argument, NULL, 'k'},
        {"id", required_argument, NULL, 'i'},     {NULL, 0, NULL, 0},
    };
    int c;

    while ((c = getopt_long(argc, argv, "+b:", opts, NULL)) != -1) {
        switch (c) {
        case 'b': o->bundle = optarg; break;
        case 'l': o->lower = optarg; break;
        case 'o': o->out = optarg; break;
        case 'k': o->keep = true; break;
        case 'i': o->id = optarg; break;
        default:
            cli_usage_error("run", "unknown option");
            return -1;
        }
    }
    if (o->lower != NULL) {
        if (o->bundle != NULL || optind >= argc) {
            cli_usage_error("run", "--lower takes a command after --, and no --bundle");
            return -1;
        }
        o->cmd = argv + optind;
        o->n_cmd = argc - optind;
        return o->out == NULL || cli_paths_apart("run", o->lower, "--out", o->out, false) ? 0 : -1;
    }
    if (o->out != NULL || optind != argc - 1) {
        cli_usage_error("run", "expected [--bundle DIR] ID, or --lower DIR -- CMD ARGS...");
        return -1;
    }
    o->id = argv[optind];
    if (o->bundle == NULL)
        o->bundle = ".";
    return 0;
}

/* The default spec around the given checkout and command. */
static int build_config(const struct rr_ctx *ctx, const struct run_opts *o,
                        struct rr_config *cfg, struct rr_error *err)
{
    char lower[PATH_MAX], out[PATH_MAX];

    if (realpath(o->lower, lower) == NULL)
        return rr_fail(err, errno, "--lower %s", o->lower);
    if (profile_default_config(cfg, lower, ctx->rootless, err) < 0)
        return -1;
    strv_free(&cfg->process.args);
    for (int i = 0; i < o->n_cmd; i++)
        if (strv_push(&cfg->process.args, o->cmd[i]) < 0)
            return rr_fail(err, ENOMEM, "command");
    if (o->out == NULL)
        return 0;
    if (realpath(o->out, out) == NULL)
        return rr_fail(err, errno, "--out %s", o->out);
    /* /out inside, handed to this directory, vetted, at the agent's exit
     * (revrun.out: runtime/confine/profile/mounts.c judge_out) */
    cfg->revrun.out = strdup(out);
    if (cfg->revrun.out == NULL)
        return rr_fail(err, ENOMEM, "--out");
    return 0;
}

static void random_id(char *buf, size_t len)
{
    unsigned char r[6] = {0};

    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
        snprintf((char *)r, sizeof(r), "%05d", (int)getpid() % 100000);
    snprintf(buf, len, "run-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5]);
}

/* Forward TERM/INT/HUP to the container until the monitor reports the exit. */
static int wait_exit(const struct rr_ctx *ctx, const char *id, int fd, struct sync_msg *m,
                     struct rr_error *err)
{
    _cleanup_close_ int sfd = proc_signalfd_stop(false);

    for (;;) {
        struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return rr_fail(err, errno, "poll");
        }
        if (pfd[1].revents & POLLIN) {
            struct signalfd_siginfo si;
            struct rr_error ignored;
            if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                container_kill(ctx, id, (int)si.ssi_signo, &ignored);
        }
        if (pfd[0].revents & (POLLIN | POLLHUP)) {
            int r = sync_recv(fd, m);
            if (r <= 0)
                return rr_fail(err, r < 0 ? errno : EPIPE, "lost the container's monitor");
            if (m->type == SYNC_EXITED)
                return 0;
            if (m->type == SYNC_WARNING)
                log_msg(LOG_WARN, "%s", m->text);
        }
    }
}

static int exit_code(const struct sync_msg *m)
{
    int status = (int)m->value;

    if (m->value2 & SYNC_EXIT_TIMED_OUT)
        log_msg(LOG_WARN, "the container reached its timeout and was killed");
    if (m->text[0] != '\0')
        log_msg(LOG_ERROR, "%s", m->text);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return CLI_ERROR;
}

int cli_run(struct rr_ctx *ctx, int argc, char **argv)
{
    struct run_opts o = {0};
    struct create_opts co = {.attached = true};
    struct rr_config cfg = {0};
    struct rr_error err;
    struct sync_msg m;
    char idbuf[RR_ID_MAX + 1];
    int fd = -1, rc = CLI_ERROR;
    bool created = false;

    if (parse(argc, argv, &o) < 0)
        return CLI_USAGE;
    if (o.lower != NULL) {
        if (build_config(ctx, &o, &cfg, &err) < 0)
            goto fail;
        if (o.id == NULL) {
            random_id(idbuf, sizeof(idbuf));
            o.id = idbuf;
        }
        co.cfg = &cfg;
    } else {
        co.bundle = o.bundle;
    }
    co.id = o.id;
    if (container_create(ctx, &co, &fd, &err) < 0)
        goto fail;
    created = true;
    if (container_start(ctx, o.id, &err) < 0 || wait_exit(ctx, o.id, fd, &m, &err) < 0)
        goto fail;
    rc = exit_code(&m);
    goto done;
fail:
    log_error(&err);
done:
    if (fd >= 0)
        close(fd);
    if (created && o.keep) {
        log_msg(LOG_WARN, "kept container %s: see `revrun diff %s`, remove with `revrun destroy "
                          "%s`", o.id, o.id, o.id);
    } else if (created && container_destroy(ctx, o.id, true, &err) < 0) {
        log_error(&err);
        rc = rc == CLI_OK ? CLI_ERROR : rc;
    }
    if (o.lower != NULL)
        config_free(&cfg);
    return rc;
}
