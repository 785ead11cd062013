/* config.json -> struct rr_config. Validation here is about shape (types,
 * ranges, absolute paths, known names); what the values permit is judged by
 * runtime/confine/profile/. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bundle/config.h"
#include "bundle/config_engine.h"
#include "bundle/jfield.h"
#include "common/cleanup.h"

static const struct {
    const char *name;
    int resource;
} rlimit_names[] = {
    {"RLIMIT_AS", RLIMIT_AS},           {"RLIMIT_CORE", RLIMIT_CORE},
    {"RLIMIT_CPU", RLIMIT_CPU},         {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE},     {"RLIMIT_LOCKS", RLIMIT_LOCKS},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK}, {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
    {"RLIMIT_NICE", RLIMIT_NICE},       {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_NPROC", RLIMIT_NPROC},     {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},   {"RLIMIT_RTTIME", RLIMIT_RTTIME},
    {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING}, {"RLIMIT_STACK", RLIMIT_STACK},
};

static const struct {
    const char *name;
    unsigned bit;
} ns_names[] = {
    {"user", RR_NS_USER}, {"mount", RR_NS_MOUNT}, {"pid", RR_NS_PID},      {"network", RR_NS_NET},
    {"ipc", RR_NS_IPC},   {"uts", RR_NS_UTS},     {"cgroup", RR_NS_CGROUP},
};

static int parse_user(const struct json_node *u, const char *path, struct rr_config *cfg,
                      struct rr_error *err)
{
    static const char *const keys[] = {"uid", "gid", "additionalGids", "umask", NULL};
    char p[JPATH_MAX];
    const struct json_node *extra;

    if (jf_only_keys(u, path, keys, err) < 0)
        return -1;
    if (jf_u32(u, "uid", path, true, &cfg->process.uid, err) < 0 ||
        jf_u32(u, "gid", path, true, &cfg->process.gid, err) < 0)
        return -1;
    extra = json_get(u, "additionalGids");
    jpath_key(p, path, "additionalGids");
    if (extra != NULL && (extra->type != JSON_ARRAY || extra->u.array.n != 0))
        return rr_fail(err, 0,
                       "%s: supplementary groups are not supported (the sandbox has one "
                       "mapped group)",
                       p);
    if (json_get(u, "umask") != NULL) {
        jpath_key(p, path, "umask");
        return rr_fail(err, 0, "%s: not supported (the agent starts with umask 022)", p);
    }
    return 0;
}

/* revrun grants no capability: a config asking for one is refused rather
 * than quietly trimmed, so the operator learns the agent will not have it. */
static int parse_capabilities(const struct json_node *caps, const char *path, struct rr_error *err)
{
    static const char *const keys[] = {"bounding", "effective", "inheritable",
                                       "permitted", "ambient",  NULL};

    if (jf_only_keys(caps, path, keys, err) < 0)
        return -1;
    for (size_t i = 0; i < caps->u.object.n; i++) {
        char p[JPATH_MAX];
        const struct json_node *set = caps->u.object.values[i];
        jpath_key(p, path, caps->u.object.keys[i]);
        if (jf_expect(set, JSON_ARRAY, p, err) < 0)
            return -1;
        if (set->u.array.n != 0)
            return rr_fail(err, 0,
                           "%s: revrun grants the agent no capabilities; remove %s",
                           p, set->u.array.items[0]->type == JSON_STRING
                                  ? set->u.array.items[0]->u.string.s
                                  : "the entries");
    }
    return 0;
}

static int parse_rlimits(const struct json_node *arr, const char *path, struct rr_config *cfg,
                         struct rr_error *err)
{
    static const char *const keys[] = {"type", "soft", "hard", NULL};

    if (jf_expect(arr, JSON_ARRAY, path, err) < 0)
        return -1;
    cfg->process.rlimits = calloc(arr->u.array.n + 1, sizeof(*cfg->process.rlimits));
    if (cfg->process.rlimits == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    for (size_t i = 0; i < arr->u.array.n; i++) {
        const struct json_node *r = arr->u.array.items[i];
        struct rr_rlimit *out = &cfg->process.rlimits[i];
        _cleanup_free_ char *type = NULL;
        char p[JPATH_MAX];
        size_t k;

        jpath_index(p, path, i);
        if (jf_only_keys(r, p, keys, err) < 0 || jf_string(r, "type", p, true, &type, err) < 0 ||
            jf_u64(r, "soft", p, &out->soft, NULL, err) < 0 ||
            jf_u64(r, "hard", p, &out->hard, NULL, err) < 0)
            return -1;
        if (json_get(r, "soft") == NULL || json_get(r, "hard") == NULL)
            return rr_fail(err, 0, "%s: soft and hard are required", p);
        for (k = 0; k < sizeof(rlimit_names) / sizeof(rlimit_names[0]); k++)
            if (strcmp(rlimit_names[k].name, type) == 0)
                break;
        if (k == sizeof(rlimit_names) / sizeof(rlimit_names[0]))
            return rr_fail(err, 0, "%s.type: unknown rlimit", p);
        if (out->soft > out->hard)
            return rr_fail(err, 0, "%s: soft is above hard", p);
        for (size_t j = 0; j < i; j++)
            if (cfg->process.rlimits[j].resource == rlimit_names[k].resource)
                return rr_fail(err, 0, "%s: %s given twice", p, type);
        out->resource = rlimit_names[k].resource;
        cfg->process.n_rlimits++;
    }
    return 0;
}

static int parse_env(struct rr_config *cfg, const char *path, struct rr_error *err)
{
    for (size_t i = 0; i < cfg->process.env.n; i++) {
        const char *e = cfg->process.env.v[i];
        const char *eq = strchr(e, '=');
        if (eq == NULL || eq == e) {
            char p[JPATH_MAX];
            jpath_index(p, path, i);
            return rr_fail(err, 0, "%s: expected NAME=VALUE", p);
        }
    }
    return 0;
}

static int parse_process(const struct json_node *proc, struct rr_config *cfg,
                         struct rr_error *err)
{
    static const char *const keys[] = {"terminal", "user",         "args",
                                       "env",      "cwd",          "capabilities",
                                       "rlimits",  "noNewPrivileges", NULL};
    /* Every member of the runtime spec's process: an engine's config is
     * judged field by field, not refused for having one. */
    static const char *const engine_keys[] = {
        "terminal", "consoleSize", "user", "args", "commandLine", "env", "cwd", "capabilities",
        "rlimits", "noNewPrivileges", "apparmorProfile", "oomScoreAdj", "selinuxLabel",
        "scheduler", "ioPriority", "execCPUAffinity", NULL};
    const char *path = "process";
    const struct json_node *n;
    char p[JPATH_MAX];

    if (jf_only_keys(proc, path, cfg->engine ? engine_keys : keys, err) < 0)
        return -1;
    if (cfg->engine && engine_parse_process_extra(proc, cfg, err) < 0)
        return -1;
    if (jf_bool(proc, "terminal", path, &cfg->process.terminal, NULL, err) < 0)
        return -1;
    n = json_get(proc, "user");
    if (n == NULL)
        return rr_fail(err, 0, "process.user: required");
    if ((cfg->engine ? engine_parse_user(n, "process.user", cfg, err)
                     : parse_user(n, "process.user", cfg, err)) < 0)
        return -1;
    if (jf_strv(proc, "args", path, &cfg->process.args, err) < 0)
        return -1;
    if (cfg->process.args.n == 0)
        return rr_fail(err, 0, "process.args: required, with at least the program to run");
    if (jf_strv(proc, "env", path, &cfg->process.env, err) < 0 ||
        parse_env(cfg, "process.env", err) < 0)
        return -1;
    if (jf_string(proc, "cwd", path, true, &cfg->process.cwd, err) < 0 ||
        jf_check_abs_path(cfg->process.cwd, "process.cwd", err) < 0)
        return -1;
    n = json_get(proc, "capabilities");
    if (n != NULL && (cfg->engine ? engine_parse_capabilities(n, "process.capabilities", cfg, err)
                                  : parse_capabilities(n, "process.capabilities", err)) < 0)
        return -1;
    n = json_get(proc, "rlimits");
    jpath_key(p, path, "rlimits");
    if (n != NULL && parse_rlimits(n, p, cfg, err) < 0)
        return -1;
    return jf_bool(proc, "noNewPrivileges", path, &cfg->process.no_new_privileges,
                   &cfg->process.has_no_new_privileges, err);
}

static int parse_root(const struct json_node *root, struct rr_config *cfg, struct rr_error *err)
{
    static const char *const keys[] = {"path", "readonly", NULL};

    if (jf_only_keys(root, "root", keys, err) < 0 ||
        jf_string(root, "path", "root", true, &cfg->root.path, err) < 0 ||
        jf_bool(root, "readonly", "root", &cfg->root.readonly, NULL, err) < 0)
        return -1;
    if (cfg->root.path[0] == '\0')
        return rr_fail(err, 0, "root.path: must not be empty");
    return 0;
}

static int parse_mounts(const struct json_node *arr, struct rr_config *cfg, struct rr_error *err)
{
    static const char *const keys[] = {"destination", "type", "source", "options", NULL};

    if (jf_expect(arr, JSON_ARRAY, "mounts", err) < 0)
        return -1;
    cfg->mounts = calloc(arr->u.array.n + 1, sizeof(*cfg->mounts));
    if (cfg->mounts == NULL)
        return rr_fail(err, ENOMEM, "mounts");
    for (size_t i = 0; i < arr->u.array.n; i++) {
        const struct json_node *m = arr->u.array.items[i];
        struct rr_mount *out = &cfg->mounts[i];
        char p[JPATH_MAX], dp[JPATH_MAX];

        jpath_index(p, "mounts", i);
        cfg->n_mounts++;
        if (jf_only_keys(m, p, keys, err) < 0 ||
            jf_string(m, "destination", p, true, &out->destination, err) < 0 ||
            jf_string(m, "type", p, !cfg->engine, &out->type, err) < 0 ||
            jf_string(m, "source", p, false, &out->source, err) < 0 ||
            jf_strv(m, "options", p, &out->options, err) < 0)
            return -1;
        jpath_key(dp, p, "destination");
        if (jf_check_abs_path(out->destination, dp, err) < 0)
            return -1;
        /* The spec lets a bind go without a type: "bind" or "rbind" among
         * the options says what it is. */
        if (out->type == NULL &&
            (strv_contains(&out->options, "bind") || strv_contains(&out->options, "rbind")) &&
            (out->type = strdup("bind")) == NULL)
            return rr_fail(err, ENOMEM, "%s", p);
        if (out->type == NULL)
            return rr_fail(err, 0, "%s.type: required unless the options say bind or rbind", p);
        if (strcmp(out->type, "bind") == 0) {
            jpath_key(dp, p, "source");
            if (out->source == NULL)
                return rr_fail(err, 0, "%s: required for a bind mount", dp);
            if (jf_check_abs_path(out->source, dp, err) < 0)
                return -1;
        }
    }
    return 0;
}

static int parse_namespaces(const struct json_node *arr, struct rr_config *cfg,
                            struct rr_error *err)
{
    static const char *const keys[] = {"type", "path", NULL};
    const char *path = "linux.namespaces";

    if (jf_expect(arr, JSON_ARRAY, path, err) < 0)
        return -1;
    for (size_t i = 0; i < arr->u.array.n; i++) {
        const struct json_node *ns = arr->u.array.items[i];
        _cleanup_free_ char *type = NULL;
        char p[JPATH_MAX];
        size_t k;

        jpath_index(p, path, i);
        if (jf_only_keys(ns, p, keys, err) < 0 || jf_string(ns, "type", p, true, &type, err) < 0)
            return -1;
        if (json_get(ns, "path") != NULL && !cfg->engine)
            return rr_fail(err, 0, "%s.path: joining an existing namespace is not supported", p);
        if (cfg->engine && strcmp(type, "time") == 0)
            return rr_fail(err, 0, "%s.type: refused: revrun does not make time namespaces", p);
        for (k = 0; k < sizeof(ns_names) / sizeof(ns_names[0]); k++)
            if (strcmp(ns_names[k].name, type) == 0)
                break;
        if (k == sizeof(ns_names) / sizeof(ns_names[0]))
            return rr_fail(err, 0, "%s.type: unknown namespace type", p);
        if (cfg->linux.namespaces & ns_names[k].bit)
            return rr_fail(err, 0, "%s: %s listed twice", p, type);
        if (json_get(ns, "path") != NULL) {
            char pp[JPATH_MAX];
            jpath_key(pp, p, "path");
            if (jf_string(ns, "path", p, true, &cfg->linux.ns_path[k], err) < 0 ||
                jf_check_abs_path(cfg->linux.ns_path[k], pp, err) < 0)
                return -1;
        }
        cfg->linux.namespaces |= ns_names[k].bit;
    }
    return 0;
}

static int parse_idmaps(const struct json_node *arr, const char *path,
                        struct rr_id_mapping **out, size_t *n_out, struct rr_error *err)
{
    static const char *const keys[] = {"containerID", "hostID", "size", NULL};

    if (jf_expect(arr, JSON_ARRAY, path, err) < 0)
        return -1;
    if (arr->u.array.n > 340) /* the kernel's limit on extents per map */
        return rr_fail(err, 0, "%s: too many mappings", path);
    *out = calloc(arr->u.array.n + 1, sizeof(**out));
    if (*out == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    for (size_t i = 0; i < arr->u.array.n; i++) {
        struct rr_id_mapping *m = &(*out)[i];
        char p[JPATH_MAX];

        jpath_index(p, path, i);
        if (jf_only_keys(arr->u.array.items[i], p, keys, err) < 0 ||
            jf_u32(arr->u.array.items[i], "containerID", p, true, &m->container_id, err) < 0 ||
            jf_u32(arr->u.array.items[i], "hostID", p, true, &m->host_id, err) < 0 ||
            jf_u32(arr->u.array.items[i], "size", p, true, &m->size, err) < 0)
            return -1;
        if (m->size == 0 || (uint64_t)m->container_id + m->size > UINT32_MAX ||
            (uint64_t)m->host_id + m->size > UINT32_MAX)
            return rr_fail(err, 0, "%s: size is zero or the range overflows", p);
        (*n_out)++;
    }
    return 0;
}

static int parse_resources(const struct json_node *res, struct rr_config *cfg,
                           struct rr_error *err)
{
    static const char *const keys[] = {"memory", "pids", "cpu", NULL};
    static const char *const mem_keys_r[] = {"limit", "swap", NULL};
    static const char *const pids_keys[] = {"limit", NULL};
    static const char *const cpu_keys_r[] = {"quota", "period", NULL};
    const char *const *mem_keys = mem_keys_r, *const *cpu_keys = cpu_keys_r;
    static const char *const e_keys[] = {"devices", "memory", "cpu", "pids", "blockIO",
                                         "hugepageLimits", "network", "rdma", "unified", NULL};
    static const char *const e_mem_keys[] = {"limit", "swap", "reservation", "kernel",
                                             "kernelTCP", "swappiness", "disableOOMKiller",
                                             "useHierarchy", "checkBeforeUpdate", NULL};
    static const char *const e_cpu_keys[] = {"quota", "period", "shares", "realtimeRuntime",
                                             "realtimePeriod", "cpus", "mems", "idle", "burst",
                                             NULL};
    struct rr_resources *r = &cfg->linux.resources;
    const struct json_node *n;

    if (cfg->engine) {
        mem_keys = e_mem_keys;
        cpu_keys = e_cpu_keys;
    }
    if (jf_only_keys(res, "linux.resources", cfg->engine ? e_keys : keys, err) < 0)
        return -1;
    if (cfg->engine && engine_parse_resources_extra(res, cfg, err) < 0)
        return -1;
    if ((n = json_get(res, "memory")) != NULL &&
        (jf_only_keys(n, "linux.resources.memory", mem_keys, err) < 0 ||
         jf_i64(n, "limit", "linux.resources.memory", 1, &r->memory_limit, err) < 0 ||
         jf_i64(n, "swap", "linux.resources.memory", 1, &r->memory_swap, err) < 0))
        return -1;
    if ((n = json_get(res, "pids")) != NULL &&
        (jf_only_keys(n, "linux.resources.pids", pids_keys, err) < 0 ||
         jf_i64(n, "limit", "linux.resources.pids", 1, &r->pids_limit, err) < 0))
        return -1;
    if ((n = json_get(res, "cpu")) != NULL &&
        (jf_only_keys(n, "linux.resources.cpu", cpu_keys, err) < 0 ||
         jf_i64(n, "quota", "linux.resources.cpu", 1000, &r->cpu_quota, err) < 0 ||
         jf_i64(n, "period", "linux.resources.cpu", 1000, &r->cpu_period, err) < 0))
        return -1;
    if (r->memory_swap != RR_UNSET && r->memory_limit != RR_UNSET &&
        r->memory_swap < r->memory_limit)
        return rr_fail(err, 0, "linux.resources.memory.swap: below memory.limit");
    return 0;
}

int config_parse_seccomp(const struct json_node *sc, struct rr_seccomp *out,
                         struct rr_error *err);

static int parse_linux(const struct json_node *lx, struct rr_config *cfg, struct rr_error *err)
{
    static const char *const keys[] = {"namespaces",   "uidMappings",   "gidMappings",
                                       "resources",    "seccomp",       "maskedPaths",
                                       "readonlyPaths", "cgroupsPath",  NULL};
    static const char *const engine_keys[] = {
        "namespaces", "uidMappings", "gidMappings", "resources", "seccomp", "maskedPaths",
        "readonlyPaths", "cgroupsPath", "devices", "sysctl", "rootfsPropagation", "mountLabel",
        "intelRdt", "personality", "timeOffsets", "memoryPolicy", "netDevices", NULL};
    const char *path = "linux";
    const struct json_node *n;

    if (jf_only_keys(lx, path, cfg->engine ? engine_keys : keys, err) < 0)
        return -1;
    if (cfg->engine && engine_parse_linux_extra(lx, cfg, err) < 0)
        return -1;
    if ((n = json_get(lx, "namespaces")) != NULL && parse_namespaces(n, cfg, err) < 0)
        return -1;
    if ((n = json_get(lx, "uidMappings")) != NULL &&
        parse_idmaps(n, "linux.uidMappings", &cfg->linux.uid_mappings,
                     &cfg->linux.n_uid_mappings, err) < 0)
        return -1;
    if ((n = json_get(lx, "gidMappings")) != NULL &&
        parse_idmaps(n, "linux.gidMappings", &cfg->linux.gid_mappings,
                     &cfg->linux.n_gid_mappings, err) < 0)
        return -1;
    if ((n = json_get(lx, "resources")) != NULL && parse_resources(n, cfg, err) < 0)
        return -1;
    if ((n = json_get(lx, "seccomp")) != NULL &&
        config_parse_seccomp(n, &cfg->linux.seccomp, err) < 0)
        return -1;
    if (jf_strv(lx, "maskedPaths", path, &cfg->linux.masked_paths, err) < 0 ||
        jf_strv(lx, "readonlyPaths", path, &cfg->linux.readonly_paths, err) < 0 ||
        jf_string(lx, "cgroupsPath", path, false, &cfg->linux.cgroups_path, err) < 0)
        return -1;
    for (size_t i = 0; i < cfg->linux.masked_paths.n; i++) {
        char p[JPATH_MAX];
        jpath_index(p, "linux.maskedPaths", i);
        if (jf_check_abs_path(cfg->linux.masked_paths.v[i], p, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < cfg->linux.readonly_paths.n; i++) {
        char p[JPATH_MAX];
        jpath_index(p, "linux.readonlyPaths", i);
        if (jf_check_abs_path(cfg->linux.readonly_paths.v[i], p, err) < 0)
            return -1;
    }
    return 0;
}

int config_parse_revrun(const struct json_node *rv, struct rr_config *cfg, struct rr_error *err);
int config_engine_defaults(struct rr_config *cfg, struct rr_error *err);

static int parse_annotations(const struct json_node *a, struct rr_error *err)
{
    if (jf_expect(a, JSON_OBJECT, "annotations", err) < 0)
        return -1;
    for (size_t i = 0; i < a->u.object.n; i++) {
        char p[JPATH_MAX];
        jpath_key(p, "annotations", a->u.object.keys[i]);
        if (jf_expect(a->u.object.values[i], JSON_STRING, p, err) < 0)
            return -1;
    }
    return 0;
}

static void config_init(struct rr_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->linux.resources = (struct rr_resources){RR_UNSET, RR_UNSET, RR_UNSET, RR_UNSET, RR_UNSET,
                                                 .cpu_shares = RR_UNSET,
                                                 .blkio_weight = RR_UNSET};
    cfg->ann.overlay = -1;
}

/* An engine's top level: the runtime spec's own sections are parsed (and
 * within them every unknown key is refused); any other key is ignored, as
 * the spec's extensibility rule says a runtime MUST (what containerd does
 * too), and kept by name for the log. A config with a `revrun` section is
 * revrun's own and stays strict everywhere. */
static int engine_top_keys(const struct json_node *root, const char *const *known,
                           struct rr_config *cfg, struct rr_error *err)
{
    if (jf_expect(root, JSON_OBJECT, "config", err) < 0)
        return -1;
    for (size_t i = 0; i < root->u.object.n; i++) {
        const char *k = root->u.object.keys[i];
        size_t j = 0;
        while (known[j] != NULL && strcmp(known[j], k) != 0)
            j++;
        if (known[j] == NULL && strv_push(&cfg->ignored_top, k) < 0)
            return rr_fail(err, ENOMEM, "config");
    }
    return 0;
}

int config_from_json(const struct json_node *root, struct rr_config *cfg, struct rr_error *err)
{
    static const char *const keys[] = {"ociVersion", "process", "root",        "hostname",
                                       "mounts",     "linux",   "annotations", "revrun",
                                       NULL};
    static const char *const engine_keys[] = {"ociVersion", "process", "root",  "hostname",
                                              "domainname", "mounts",  "hooks", "linux",
                                              "annotations", NULL};
    const struct json_node *n;

    config_init(cfg);
    /* No `revrun` section: an engine's config (containerd drops unknown
     * top-level keys, so an engine cannot send one). */
    cfg->engine = root->type == JSON_OBJECT && json_get(root, "revrun") == NULL;
    if (cfg->engine ? engine_top_keys(root, engine_keys, cfg, err) < 0
                    : jf_only_keys(root, "", keys, err) < 0)
        goto fail;
    if (cfg->engine && json_get(root, "domainname") != NULL &&
        jf_string(root, "domainname", "", false, &cfg->domainname, err) < 0)
        goto fail;
    if (cfg->engine && (n = json_get(root, "hooks")) != NULL && engine_parse_hooks(n, cfg, err) < 0)
        goto fail;
    if (jf_string(root, "ociVersion", "", true, &cfg->oci_version, err) < 0)
        goto fail;
    if (strncmp(cfg->oci_version, "1.", 2) != 0) {
        rr_fail(err, 0, "ociVersion: %s is not a 1.x runtime spec", cfg->oci_version);
        goto fail;
    }
    if ((n = json_get(root, "process")) == NULL) {
        rr_fail(err, 0, "process: required");
        goto fail;
    }
    if (parse_process(n, cfg, err) < 0)
        goto fail;
    if ((n = json_get(root, "root")) == NULL) {
        rr_fail(err, 0, "root: required");
        goto fail;
    }
    if (parse_root(n, cfg, err) < 0 ||
        jf_string(root, "hostname", "", false, &cfg->hostname, err) < 0)
        goto fail;
    if ((n = json_get(root, "mounts")) != NULL && parse_mounts(n, cfg, err) < 0)
        goto fail;
    if ((n = json_get(root, "linux")) != NULL && parse_linux(n, cfg, err) < 0)
        goto fail;
    if ((n = json_get(root, "annotations")) != NULL &&
        (parse_annotations(n, err) < 0 ||
         (cfg->engine && engine_parse_annotations(n, cfg, err) < 0)))
        goto fail;
    if (cfg->engine ? config_engine_defaults(cfg, err) < 0
                    : config_parse_revrun(json_get(root, "revrun"), cfg, err) < 0)
        goto fail;
    return 0;
fail:
    config_free(cfg);
    return -1;
}

int config_process_from_json(const struct json_node *proc, bool engine, struct rr_config *cfg,
                             struct rr_error *err)
{
    config_init(cfg);
    cfg->engine = engine;
    if (jf_expect(proc, JSON_OBJECT, "process", err) < 0 || parse_process(proc, cfg, err) < 0) {
        config_free(cfg);
        return -1;
    }
    return 0;
}
