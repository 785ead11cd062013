/* revrun entry point: global options, then dispatch to runtime/cli_*.c. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cmdline.h"
#include "runtime/cli/cli.h"
#include "runtime/container/log.h"
#include "runtime/container/paths.h"
#include "runtime/confine/userns_ids.h"

static const struct {
    const char *name;
    cli_fn fn;
} commands[] = {
    {"spec", cli_spec},       {"create", cli_create},       {"start", cli_start},
    {"state", cli_state},     {"kill", cli_kill},           {"destroy", cli_destroy},
    {"delete", cli_destroy},  {"run", cli_run},             {"list", cli_list},
    {"check", cli_check},     {"diff", cli_diff},           {"export", cli_export},
    {"apply", cli_apply},     {"writeback", cli_writeback}, {"review", cli_review},
    {"sweep", cli_sweep},     {"broker", cli_broker},       {"relay", cli_relay},
};

static void usage(FILE *out)
{
    fputs("usage: revrun [--root DIR] [--log FILE] [--log-format text|json] COMMAND ...\n"
          "  spec     [--lower DIR] [--rootless] [--agent NAME|FILE] [AGENT FLAGS]\n"
          "                                             write a hardened config.json\n"
          "  create   [--bundle DIR] [--pid-file F] ID   set up; the process waits, not yet exec'd\n"
          "           [--console-socket PATH]           process.terminal: where the pty master goes\n"
          "  start    ID                                 let it run\n"
          "  state    ID                                 OCI state JSON\n"
          "  kill     ID [SIGNAL]\n"
          "  destroy  [--force] ID                       (alias: delete) nothing left behind\n"
          "  run      [--bundle DIR] ID                  create + start + wait\n"
          "  run      --lower DIR [--out DIR] [--keep] -- CMD ARGS...\n"
          "  list\n"
          "  check    [--bundle DIR]                     what this host can enforce\n"
          "  diff     [--json|--patch] ID                the vetted change set, or why refused\n"
          "  export   ID DIR                             manifest.json + blobs\n"
          "  apply    DIR --to TARGET --approve DIGEST   all or nothing onto TARGET\n"
          "  writeback ID --to TARGET --approve DIGEST   export + apply from a live bundle\n"
          "  review   --lower DIR --out DIR [--timeout S] [--bundle DIR] [--agent NAME|FILE]\n"
          "           [AGENT FLAGS] -- CMD ARGS...     the CI job: bundle, run, vet, export\n"
          "  sweep    [--older-than DURATION] [--exports DIR]  clean what crashed runs left\n"
          "  broker   --socket PATH --upstream URL (--credential-file F | --credential-env VAR)\n"
          "           [--header NAME] [--header-prefix TEXT] [--allow PREFIX]... [--ca-file F]\n"
          "           [--idle-timeout S] [--max-conns N]   the egress credential broker\n"
          "  (diff, export and writeback also take --lower DIR --upper DIR in place of ID)\n"
          "AGENT FLAGS (spec and review; a flag overrides the --agent preset: claude, codex,\n"
          "gemini, or a preset FILE; `spec` prints the config they make):\n"
          "  --agent-dir DIR            the agent's install, read-only at /opt/agent, its bin and\n"
          "                             node_modules/.bin first on PATH\n"
          "  --bind SRC:DST[:ro|rw]     a host path inside (read-only unless :rw)\n"
          "  --upstream URL             the model API, reached through the broker\n"
          "  --credential-file F | --credential-env VAR   where the broker reads the key\n"
          "  --ca-file F  --header NAME  --header-prefix TEXT  --allow PREFIX...\n"
          "  --base-url-env VAR[=/PATH]... set to the relay's URL (+ PATH) inside\n"
          "  --env K=V...               the agent's environment\n"
          "  --home DIR                 copied (not bound) into the agent's HOME\n"
          "  --artifact ~/PATH...       kept in OUT/artifacts after the run\n"
          "  --nested-sandboxes         let the agent make its own namespaces (bwrap)\n",
          out);
}

/* Root of a user namespace that maps no id but 0 (unshare -r, a rootless
 * engine's single-id container): no other id to give the container user,
 * so revrun runs as any unprivileged caller does, and says so. */
static bool root_without_ids(void)
{
    static struct id_map m, g;
    struct rr_error err;
    uint32_t id;

    if (geteuid() != 0 || id_map_read_self(true, &m, &err) < 0 ||
        id_map_read_self(false, &g, &err) < 0 || id_map_is_initial(&m) ||
        (id_map_pick(&m, &id) && id_map_pick(&g, &id)))
        return false;
    log_msg(LOG_WARN, "root of a user namespace that maps no other id (uid_map: %u ids): "
                      "running rootless, the container user is this namespace's root",
            m.n ? m.r[0].count : 0);
    return true;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"root", required_argument, NULL, 'r'},
        {"log", required_argument, NULL, 'l'},
        {"log-format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct rr_ctx ctx = {0};
    const char *log_path = NULL;
    enum log_format fmt = LOG_FORMAT_TEXT;
    char root_buf[4096];
    int c;

    if (rr_cmdline_take(argc, argv) < 0) {
        fprintf(stderr, "revrun: out of memory\n");
        return CLI_ERROR;
    }

    /* Everything revrun creates is private to its user: no reliance on the
     * caller's umask for state, uppers or exported change sets. */
    umask(077);
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            ctx.root = optarg;
            break;
        case 'l':
            log_path = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "json") == 0) {
                fmt = LOG_FORMAT_JSON;
            } else if (strcmp(optarg, "text") == 0) {
                fmt = LOG_FORMAT_TEXT;
            } else {
                cli_usage_error("revrun", "--log-format must be text or json");
                return CLI_USAGE;
            }
            break;
        case 'h':
            usage(stdout);
            return CLI_OK;
        default:
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (log_path != NULL) {
        struct rr_error err;
        if (log_open(log_path, fmt, &err) < 0) {
            log_error(&err);
            return CLI_ERROR;
        }
    }
    ctx.rootless = geteuid() != 0 || root_without_ids();
    if (ctx.root == NULL) {
        struct rr_error err;
        if (paths_default_root(root_buf, sizeof(root_buf), &err) < 0) {
            log_error(&err);
            return CLI_ERROR;
        }
        ctx.root = root_buf;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(argv[optind], commands[i].name) == 0) {
            int sub_argc = argc - optind;
            char **sub_argv = argv + optind;
            optind = 0; /* reset getopt for the command's own options */
            return commands[i].fn(&ctx, sub_argc, sub_argv);
        }
    }
    cli_usage_error("revrun", "unknown command '%s'", argv[optind]);
    return CLI_USAGE;
}
