/* revrun update [--memory B] [--memory-swap B] [--pids-limit N]
 *               [--cpu-quota US] [--cpu-period US] [-r resources.json] ID
 * The resources file is an OCI linux.resources object, as containerd's
 * shim writes it; revrun applies memory, pids and the CFS quota, and says
 * in one line which other fields it did not apply. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"

#include "bundle/json.h"
#include "runtime/cli/cli.h"
#include "runtime/container/log.h"
#include "runtime/container/verbs.h"

/* -1 (or any negative) asks for "no limit": kept as such, so that the
 * profile refuses it by name; 0 leaves the value as it is, as in runc. */
static bool parse_value(const char *s, bool size, int64_t *out)
{
    uint64_t v;
    char *end;

    if (s[0] == '-') {
        long long n = strtoll(s, &end, 10);
        if (*end != '\0' || n >= 0)
            return false;
        *out = 0; /* lifting a limit: refused by profile_judge_update */
        return true;
    }
    if (size ? !parse_size(s, &v) : ((v = strtoull(s, &end, 10)), *end != '\0' || s[0] == '\0'))
        return false;
    if (v > INT64_MAX)
        return false;
    *out = v == 0 ? RR_UNSET : (int64_t)v;
    return true;
}

static int json_value(const struct json_node *obj, const char *key, int64_t *out,
                      struct rr_error *err)
{
    const struct json_node *n = obj == NULL ? NULL : json_get(obj, key);

    if (n == NULL || n->type == JSON_NULL)
        return 0;
    if (n->type != JSON_INT)
        return rr_fail(err, EINVAL, "%s: not an integer", key);
    *out = n->u.integer < 0 ? 0 : n->u.integer == 0 ? RR_UNSET : n->u.integer;
    return 0;
}

static void note_ignored(const struct json_node *root)
{
    static const char *const applied[] = {"memory", "pids", "cpu", NULL};
    char list[512] = "";

    for (size_t i = 0; i < root->u.object.n; i++) {
        bool ok = false;
        for (const char *const *a = applied; *a != NULL; a++)
            ok = ok || strcmp(root->u.object.keys[i], *a) == 0;
        if (!ok && strlen(list) + strlen(root->u.object.keys[i]) + 3 < sizeof(list))
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                     list[0] ? ", " : "", root->u.object.keys[i]);
    }
    if (list[0] != '\0')
        log_msg(LOG_WARN, "update: not applied (revrun updates memory, pids and cpu quota/period/shares "
                          "only): %s",
                list);
}

/* `--resources -`: the object on stdin, which containerd's shim makes a
 * pipe (so not a file to open by name: /dev/stdin is a symlink and
 * json_parse_file wants a regular file); the size capped while reading. */
static int parse_stdin(struct json_node **root, struct rr_error *err)
{
    size_t max = json_limits_config.max_bytes, used = 0;
    _cleanup_free_ char *buf = malloc(max + 1);

    if (buf == NULL)
        return rr_fail(err, ENOMEM, "reading stdin");
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf + used, max + 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rr_fail(err, errno, "read stdin");
        if (n == 0)
            break;
        used += (size_t)n;
        if (used > max)
            return rr_fail(err, EFBIG, "stdin: larger than %zu bytes", max);
    }
    return json_parse(buf, used, &json_limits_config, root, err);
}

static int load_resources(const char *path, struct rr_resources *r, struct rr_error *err)
{
    struct json_node *root = NULL;
    int rc = -1;

    if ((strcmp(path, "-") == 0 ? parse_stdin(&root, err)
                                : json_parse_file(AT_FDCWD, path, &json_limits_config, &root,
                                                  err)) < 0)
        return rr_wrap(err, "--resources %s", path);
    if (root->type != JSON_OBJECT) {
        rr_fail(err, EINVAL, "--resources %s: not an object", path);
        goto out;
    }
    const struct json_node *mem = json_get(root, "memory"), *pids = json_get(root, "pids"),
                           *cpu = json_get(root, "cpu");
    if (json_value(mem, "limit", &r->memory_limit, err) < 0 ||
        json_value(mem, "swap", &r->memory_swap, err) < 0 ||
        json_value(pids, "limit", &r->pids_limit, err) < 0 ||
        json_value(cpu, "quota", &r->cpu_quota, err) < 0 ||
        json_value(cpu, "period", &r->cpu_period, err) < 0 ||
        json_value(cpu, "shares", &r->cpu_shares, err) < 0) {
        rr_wrap(err, "--resources %s", path);
        goto out;
    }
    note_ignored(root);
    rc = 0;
out:
    json_free(root);
    return rc;
}

int cli_update(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"resources", required_argument, NULL, 'r'},
        {"memory", required_argument, NULL, 'm'},
        {"memory-swap", required_argument, NULL, 's'},
        {"pids-limit", required_argument, NULL, 'p'},
        {"cpu-quota", required_argument, NULL, 'q'},
        {"cpu-period", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    struct rr_resources r = {.memory_limit = RR_UNSET, .memory_swap = RR_UNSET, .pids_limit = RR_UNSET,
                             .cpu_quota = RR_UNSET, .cpu_period = RR_UNSET, .cpu_shares = RR_UNSET,
                             .blkio_weight = RR_UNSET};
    struct rr_resources flags = r;
    const char *file = NULL;
    struct rr_error err;
    int c;

    while ((c = getopt_long(argc, argv, "r:", opts, NULL)) != -1) {
        int64_t *dst = c == 'm' ? &flags.memory_limit : c == 's' ? &flags.memory_swap
                     : c == 'p' ? &flags.pids_limit : c == 'q' ? &flags.cpu_quota
                     : c == 'P' ? &flags.cpu_period : NULL;
        if (c == 'r') {
            file = optarg;
        } else if (dst == NULL) {
            cli_usage_error("update", "unknown option");
            return CLI_USAGE;
        } else if (!parse_value(optarg, c == 'm' || c == 's', dst)) {
            cli_usage_error("update", "%s: not a number", optarg);
            return CLI_USAGE;
        }
    }
    if (optind != argc - 1) {
        cli_usage_error("update", "expected one container ID");
        return CLI_USAGE;
    }
    if (file != NULL && load_resources(file, &r, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    /* flags win over the file, as in runc */
    int64_t *from[] = {&flags.memory_limit, &flags.memory_swap, &flags.pids_limit,
                       &flags.cpu_quota, &flags.cpu_period};
    int64_t *to[] = {&r.memory_limit, &r.memory_swap, &r.pids_limit, &r.cpu_quota,
                     &r.cpu_period};
    for (size_t i = 0; i < 5; i++)
        if (*from[i] != RR_UNSET)
            *to[i] = *from[i];
    if (container_update(ctx, argv[optind], &r, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
