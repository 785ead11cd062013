/* revrun broker: the host side of egress in the foreground, until SIGTERM.
 * revrun relay: the in-container side, for tests and benchmarks (the runtime
 * calls egress_relay_run itself in the container's network namespace). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "egress/egress.h"
#include "runtime/cli/cli.h"
#include "runtime/container/log.h"

static int stop_pipe[2] = {-1, -1};

static void on_stop(int sig)
{
    int saved = errno;

    (void)sig;
    (void)!write(stop_pipe[1], "x", 1);
    errno = saved;
}

/* SIGTERM and SIGINT make the returned fd readable; SIGPIPE is ignored. */
static int stop_fd_on_signals(struct rr_error *err)
{
    struct sigaction sa = {.sa_handler = on_stop};

    if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return rr_fail(err, errno, "pipe2");
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
        return rr_fail(err, errno, "sigaction");
    signal(SIGPIPE, SIG_IGN);
    return stop_pipe[0];
}

/* One line per request: method, path, status (and the broker's own reason
 * for a refusal or a cut stream). log_msg escapes the agent's bytes. */
static void log_request(void *arg, const struct egress_log_entry *e)
{
    int mlen = e->method.n > 16 ? 16 : (int)e->method.n;
    int plen = e->path.n > 256 ? 256 : (int)e->path.n;

    (void)arg;
    log_msg(LOG_INFO, "egress: %.*s %.*s%s %d%s%s", mlen, e->method.p, plen, e->path.p,
            e->path.n > 256 ? "..." : "", e->status, e->note ? ": " : "",
            e->note ? e->note : "");
}

static bool parse_seconds(const char *s, unsigned *ms)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v == 0 || v > 86400)
        return false;
    *ms = (unsigned)v * 1000u;
    return true;
}

struct broker_args {
    const char *socket, *upstream, *cred_file, *cred_env, *header, *prefix, *ca_file;
    struct rr_strv allow;
    unsigned idle_ms, max_conns;
};

static int parse_broker_args(int argc, char **argv, struct broker_args *a)
{
    static const struct option opts[] = {
        {"socket", required_argument, NULL, 's'},
        {"upstream", required_argument, NULL, 'u'},
        {"credential-file", required_argument, NULL, 'f'},
        {"credential-env", required_argument, NULL, 'e'},
        {"header", required_argument, NULL, 'H'},
        {"header-prefix", required_argument, NULL, 'p'},
        {"allow", required_argument, NULL, 'a'},
        {"ca-file", required_argument, NULL, 'c'},
        {"idle-timeout", required_argument, NULL, 't'},
        {"max-conns", required_argument, NULL, 'm'},
        {NULL, 0, NULL, 0},
    };
    int c;

    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (c) {
        case 's': a->socket = optarg; break;
        case 'u': a->upstream = optarg; break;
        case 'f': a->cred_file = optarg; break;
        case 'e': a->cred_env = optarg; break;
        case 'H': a->header = optarg; break;
        case 'p': a->prefix = optarg; break;
        case 'c': a->ca_file = optarg; break;
        case 'a':
            if (strv_push(&a->allow, optarg) < 0)
                return -1;
            break;
        case 't':
            if (!parse_seconds(optarg, &a->idle_ms)) {
                cli_usage_error(argv[0], "%s", "--idle-timeout takes 1-86400 seconds");
                return -1;
            }
            break;
        case 'm': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (end == optarg || *end != '\0' || v == 0 || v > 4096) {
                cli_usage_error(argv[0], "%s", "--max-conns takes 1-4096");
                return -1;
            }
            a->max_conns = (unsigned)v;
            break;
        }
        default:
            cli_usage_error(argv[0], "%s", "unknown option");
            return -1;
        }
    }
    if (optind != argc || a->socket == NULL || a->upstream == NULL ||
        (a->cred_file == NULL) == (a->cred_env == NULL)) {
        cli_usage_error(argv[0], "%s", "usage: broker --socket PATH --upstream URL "
                                 "(--credential-file F | --credential-env VAR) [--header NAME] "
                                 "[--header-prefix TEXT] [--allow PREFIX]... [--ca-file F] "
                                 "[--idle-timeout S] [--max-conns N]");
        return -1;
    }
    return 0;
}

static int run_broker(struct broker_args *a, struct rr_error *err)
{
    struct egress_broker_opts o = {
        .upstream = a->upstream, .allow = &a->allow, .header = a->header,
        .header_prefix = a->prefix, .ca_file = a->ca_file, .idle_timeout_ms = a->idle_ms,
        .max_conns = a->max_conns, .log = log_request,
    };
    int stop = stop_fd_on_signals(err);

    if (stop < 0)
        return -1;
    log_msg(LOG_INFO, "egress: broker for %s on %s", a->upstream, a->socket);
    return egress_broker_run(&o, a->cred_file, a->cred_env, a->socket, stop, err);
}

int cli_broker(struct rr_ctx *ctx, int argc, char **argv)
{
    struct broker_args a = {0};
    struct rr_error err;
    int r;

    (void)ctx;
    if (parse_broker_args(argc, argv, &a) < 0) {
        strv_free(&a.allow);
        return CLI_USAGE;
    }
    log_set_stderr_level(LOG_INFO);
    r = run_broker(&a, &err);
    strv_free(&a.allow);
    if (r < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}

int cli_relay(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"socket", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    const char *sock = NULL;
    long port = -1;
    struct rr_error err;
    int c, stop;

    (void)ctx;
    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        char *end;
        if (c == 's') {
            sock = optarg;
        } else if (c == 'l') {
            port = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || port < 1 || port > 65535)
                port = -1;
        } else {
            port = -1;
            break;
        }
    }
    if (optind != argc || sock == NULL || port < 0) {
        cli_usage_error(argv[0], "%s", "usage: relay --listen PORT --socket PATH");
        return CLI_USAGE;
    }
    stop = stop_fd_on_signals(&err);
    if (stop < 0 || egress_relay_run((uint16_t)port, sock, stop, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
