/* revrun entry point: global options, then dispatch to runtime/cli_*.c. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cmdline.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/usage.h"
#include "runtime/confine/libmnt.h"
#include "runtime/confine/userns_ids.h"
#include "runtime/container/log.h"
#include "runtime/container/paths.h"

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
    {"exec", cli_exec},       {"ps", cli_ps},               {"pause", cli_pause},
    {"resume", cli_resume},   {"update", cli_update},       {"features", cli_features},
    {"activity", cli_activity},
};

/* The commands that only read a change set or write one onto a target
 * (writeback/), and the egress relay, never need libmount: they skip
 * loading it, which is most of what start-up would cost them. Every other command loads it here, before
 * it forks, confines itself or leaves the host's root (libmnt.h). */
static bool needs_libmount(const char *cmd)
{
    /* check reports a missing libmount as one of its rows; review loads
     * it with the other libraries its stages need, before the agent runs,
     * and says so in result.json (exit 3). */
    static const char *const light[] = {"diff", "export", "apply", "relay", "check", "review"};

    for (size_t i = 0; i < sizeof(light) / sizeof(light[0]); i++)
        if (strcmp(cmd, light[i]) == 0)
            return false;
    return true;
}

/* Without XDG_RUNTIME_DIR the state root is a private directory in /tmp
 * (paths.h): made and judged only for a command that keeps state. spec,
 * features and check keep none (check uses a scratch root of its own);
 * list only reads it, and a missing one lists nothing. */
static int private_root(const char *cmd, const char *root)
{
    static const char *const none[] = {"spec", "features", "check"};
    bool create = strcmp(cmd, "list") != 0;
    struct rr_error err;

    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
        if (strcmp(cmd, none[i]) == 0)
            return 0;
    if (paths_private_dir(root, create, &err) < 0 && (create || err.errnum != ENOENT)) {
        log_error(&err);
        return -1;
    }
    return 0;
}

/* --log and --log-format first, so that every error after them, a bad
 * command line included, reaches the log the engine reads back. */
static int open_log_early(int argc, char **argv)
{
    const char *path = NULL;
    enum log_format fmt = LOG_FORMAT_TEXT;
    struct rr_error err;

    for (int i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *v = NULL;
        if (strncmp(a, "--log=", 6) == 0)
            path = a + 6;
        else if (strcmp(a, "--log") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strncmp(a, "--log-format=", 13) == 0)
            v = a + 13;
        else if (strcmp(a, "--log-format") == 0 && i + 1 < argc)
            v = argv[++i];
        else if (strcmp(a, "--root") == 0)
            i++;
        if (v != NULL)
            fmt = strcmp(v, "json") == 0 ? LOG_FORMAT_JSON : LOG_FORMAT_TEXT;
    }
    if (path == NULL)
        return 0;
    if (log_open(path, fmt, &err) < 0) {
        log_error(&err);
        return -1;
    }
    return 0;
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
        {"systemd-cgroup", no_argument, NULL, 's'},
        {"version", no_argument, NULL, 'v'},
        {"man", no_argument, NULL, 'm'},
        {"bash-completion", no_argument, NULL, 'B'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct rr_ctx ctx = {0};
    char root_buf[4096];
    bool private_dir = false;
    int c;

    if (rr_cmdline_take(argc, argv) < 0) {
        fprintf(stderr, "revrun: out of memory\n");
        return CLI_ERROR;
    }

    /* Everything revrun creates is private to its user: no reliance on the
     * caller's umask for state, uppers or exported change sets. */
    umask(077);
    if (open_log_early(argc, argv) < 0)
        return CLI_ERROR;
    /* getopt's own messages would reach stderr only: revrun reports. */
    opterr = 0;
    cli_argv = argv;
    while ((c = getopt_long(argc, argv, "+hv", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            ctx.root = optarg;
            break;
        case 'l':
            break; /* opened above */
        case 'f':
            if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0) {
                cli_usage_error("revrun", "--log-format must be text or json");
                return CLI_USAGE;
            }
            break;
        case 's':
            ctx.systemd_cgroup = true;
            break;
        case 'v':
            cli_version(stdout);
            return CLI_OK;
        case 'm':
            usage_print_man(stdout);
            return CLI_OK;
        case 'B':
            usage_print_bash(stdout);
            return CLI_OK;
        case 'h':
            usage_print_all(stdout);
            return CLI_OK;
        default:
            cli_usage_error("revrun", "unknown option");
            return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        usage_print_all(stderr);
        return CLI_USAGE;
    }
    ctx.rootless = geteuid() != 0 || root_without_ids();
    if (ctx.root == NULL) {
        struct rr_error err;
        if (paths_default_root(root_buf, sizeof(root_buf), &private_dir, &err) < 0) {
            log_error(&err);
            return CLI_ERROR;
        }
        ctx.root = root_buf;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(argv[optind], commands[i].name) == 0) {
            int sub_argc = argc - optind;
            char **sub_argv = argv + optind;
            const struct usage_cmd *u = usage_find(commands[i].name);
            if (u != NULL && usage_wants_help(sub_argc, sub_argv)) {
                usage_print_cmd(stdout, u);
                return CLI_OK;
            }
            struct rr_error err;
            if (private_dir && private_root(commands[i].name, ctx.root) < 0)
                return CLI_ERROR;
            if (needs_libmount(commands[i].name) && rr_libmnt_load(&err) < 0) {
                log_error(&err);
                return CLI_ERROR;
            }
            optind = 0; /* reset getopt for the command's own options */
            cli_argv = sub_argv;
            return commands[i].fn(&ctx, sub_argc, sub_argv);
        }
    }
    cli_usage_error("revrun", "unknown command '%s'", argv[optind]);
    return CLI_USAGE;
}
