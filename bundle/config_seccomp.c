/* linux.seccomp in the OCI shape. Only the actions, operators and fields that
 * revrun enforces are accepted; listener-based actions (SCMP_ACT_NOTIFY) and
 * filter flags are refused rather than ignored. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"
#include "bundle/jfield.h"
#include "common/cleanup.h"

static const struct {
    const char *name;
    enum rr_seccomp_action action;
} actions[] = {
    {"SCMP_ACT_ALLOW", RR_SCMP_ALLOW},
    {"SCMP_ACT_ERRNO", RR_SCMP_ERRNO},
    {"SCMP_ACT_KILL", RR_SCMP_KILL},
    {"SCMP_ACT_KILL_THREAD", RR_SCMP_KILL},
    {"SCMP_ACT_KILL_PROCESS", RR_SCMP_KILL_PROCESS},
    {"SCMP_ACT_TRAP", RR_SCMP_TRAP},
    {"SCMP_ACT_LOG", RR_SCMP_LOG},
};

static const struct {
    const char *name;
    enum rr_seccomp_op op;
} ops[] = {
    {"SCMP_CMP_NE", RR_SCMP_OP_NE},
    {"SCMP_CMP_LT", RR_SCMP_OP_LT},
    {"SCMP_CMP_LE", RR_SCMP_OP_LE},
    {"SCMP_CMP_EQ", RR_SCMP_OP_EQ},
    {"SCMP_CMP_GE", RR_SCMP_OP_GE},
    {"SCMP_CMP_GT", RR_SCMP_OP_GT},
    {"SCMP_CMP_MASKED_EQ", RR_SCMP_OP_MASKED_EQ},
};

static int action_by_name(const struct json_node *obj, const char *key, const char *path,
                          enum rr_seccomp_action *out, struct rr_error *err)
{
    _cleanup_free_ char *name = NULL;
    char p[JPATH_MAX];

    if (jf_string(obj, key, path, true, &name, err) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
        if (strcmp(actions[i].name, name) == 0) {
            *out = actions[i].action;
            return 0;
        }
    jpath_key(p, path, key);
    return rr_fail(err, 0, "%s: unsupported seccomp action", p);
}

static int parse_arg(const struct json_node *a, const char *path, struct rr_seccomp_arg *out,
                     struct rr_error *err)
{
    static const char *const keys[] = {"index", "value", "valueTwo", "op", NULL};
    _cleanup_free_ char *op = NULL;
    uint32_t index = 0;

    if (jf_only_keys(a, path, keys, err) < 0 || jf_u32(a, "index", path, true, &index, err) < 0 ||
        jf_u64(a, "value", path, &out->value, NULL, err) < 0 ||
        jf_u64(a, "valueTwo", path, &out->value_two, NULL, err) < 0 ||
        jf_string(a, "op", path, true, &op, err) < 0)
        return -1;
    if (index > 5)
        return rr_fail(err, 0, "%s.index: syscalls have six arguments (0..5)", path);
    out->index = index;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(ops[i].name, op) == 0) {
            out->op = ops[i].op;
            return 0;
        }
    return rr_fail(err, 0, "%s.op: unknown comparison", path);
}

static int parse_rule(const struct json_node *r, const char *path, struct rr_seccomp_rule *out,
                      struct rr_error *err)
{
    static const char *const keys[] = {"names", "action", "errnoRet", "args", NULL};
    const struct json_node *args;

    out->errno_ret = EPERM;
    if (jf_only_keys(r, path, keys, err) < 0 || jf_strv(r, "names", path, &out->names, err) < 0 ||
        action_by_name(r, "action", path, &out->action, err) < 0 ||
        jf_u32(r, "errnoRet", path, false, &out->errno_ret, err) < 0)
        return -1;
    if (out->names.n == 0)
        return rr_fail(err, 0, "%s.names: at least one syscall name is required", path);
    args = json_get(r, "args");
    if (args == NULL)
        return 0;
    char ap[JPATH_MAX];
    jpath_key(ap, path, "args");
    if (jf_expect(args, JSON_ARRAY, ap, err) < 0)
        return -1;
    if (args->u.array.n > 6)
        return rr_fail(err, 0, "%s: at most six argument conditions", ap);
    for (size_t i = 0; i < args->u.array.n; i++) {
        char p[JPATH_MAX];
        jpath_index(p, ap, i);
        if (parse_arg(args->u.array.items[i], p, &out->args[i], err) < 0)
            return -1;
        out->n_args++;
    }
    return 0;
}

int config_parse_seccomp(const struct json_node *sc, struct rr_seccomp *out,
                         struct rr_error *err);

int config_parse_seccomp(const struct json_node *sc, struct rr_seccomp *out,
                         struct rr_error *err)
{
    static const char *const keys[] = {"defaultAction", "defaultErrnoRet", "architectures",
                                       "syscalls", NULL};
    const char *path = "linux.seccomp";
    const struct json_node *calls;

    out->present = true;
    out->default_errno = EPERM;
    if (jf_only_keys(sc, path, keys, err) < 0 ||
        action_by_name(sc, "defaultAction", path, &out->default_action, err) < 0 ||
        jf_u32(sc, "defaultErrnoRet", path, false, &out->default_errno, err) < 0 ||
        jf_strv(sc, "architectures", path, &out->architectures, err) < 0)
        return -1;
    calls = json_get(sc, "syscalls");
    if (calls == NULL)
        return 0;
    if (jf_expect(calls, JSON_ARRAY, "linux.seccomp.syscalls", err) < 0)
        return -1;
    out->rules = calloc(calls->u.array.n + 1, sizeof(*out->rules));
    if (out->rules == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    for (size_t i = 0; i < calls->u.array.n; i++) {
        char p[JPATH_MAX];
        jpath_index(p, "linux.seccomp.syscalls", i);
        out->n_rules++;
        if (parse_rule(calls->u.array.items[i], p, &out->rules[i], err) < 0)
            return -1;
    }
    return 0;
}

/* Names for config_write.c: the first name of an action is the one written. */
const char *config_seccomp_action_name(enum rr_seccomp_action a);
const char *config_seccomp_op_name(enum rr_seccomp_op op);

const char *config_seccomp_action_name(enum rr_seccomp_action a)
{
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
        if (actions[i].action == a)
            return actions[i].name;
    return "?";
}

const char *config_seccomp_op_name(enum rr_seccomp_op op)
{
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (ops[i].op == op)
            return ops[i].name;
    return "?";
}
