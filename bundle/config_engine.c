/* The parts of an engine's config.json that revrun's own bundles never have:
 * a config without a `revrun` section comes from containerd's runc shim,
 * podman's conmon or docker, and carries fields a review config refuses
 * (supplementary groups, umask, capabilities, hooks, sysctls, device rules).
 * Here they are read, shape-checked and stored; runtime/confine/profile/ decides
 * whether each is honoured or tightened. A field of the runtime spec that
 * revrun cannot honour is refused with the reason, never ignored. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"
#include "bundle/config_engine.h"
#include "bundle/jfield.h"
#include "common/cleanup.h"

/* Not NULL-terminated: indexed by set and by kind (jf_only_keys takes
 * its own terminated lists). */
const char *const rr_cap_set_names[5] = {"bounding", "effective", "inheritable", "permitted",
                                         "ambient"};
const char *const rr_hook_kind_names[RR_HOOK_KINDS] = {
    "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"};

#define MAX_GIDS 64
#define MAX_HOOKS 32
#define MAX_DEVICE_RULES 256
#define MAX_SYSCTLS 128

/* A key of the runtime spec that revrun does not implement: refused with
 * why, so the operator knows what to remove (or which runtime to use). */
int engine_refuse_keys(const struct json_node *obj, const char *path,
                       const struct engine_refusal *r, struct rr_error *err)
{
    char p[JPATH_MAX];

    for (; r->key != NULL; r++)
        if (json_get(obj, r->key) != NULL) {
            jpath_key(p, path, r->key);
            return rr_fail(err, 0, "%s: refused: %s", p, r->why);
        }
    return 0;
}

static int parse_gids(const struct json_node *arr, const char *path, struct rr_config *cfg,
                      struct rr_error *err)
{
    if (jf_expect(arr, JSON_ARRAY, path, err) < 0)
        return -1;
    if (arr->u.array.n > MAX_GIDS)
        return rr_fail(err, 0, "%s: more than %d groups", path, MAX_GIDS);
    cfg->process.additional_gids = calloc(arr->u.array.n + 1, sizeof(uint32_t));
    if (cfg->process.additional_gids == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    for (size_t i = 0; i < arr->u.array.n; i++) {
        const struct json_node *g = arr->u.array.items[i];
        char p[JPATH_MAX];
        jpath_index(p, path, i);
        if (jf_expect(g, JSON_INT, p, err) < 0)
            return -1;
        if (g->u.integer < 0 || g->u.integer > UINT32_MAX - 1)
            return rr_fail(err, 0, "%s: not a group id", p);
        cfg->process.additional_gids[cfg->process.n_additional_gids++] = (uint32_t)g->u.integer;
    }
    return 0;
}

int engine_parse_user(const struct json_node *u, const char *path, struct rr_config *cfg,
                      struct rr_error *err)
{
    static const char *const keys[] = {"uid", "gid", "additionalGids", "umask", "username", NULL};
    const struct json_node *n;
    char p[JPATH_MAX];

    if (jf_only_keys(u, path, keys, err) < 0 ||
        jf_u32(u, "uid", path, true, &cfg->process.uid, err) < 0 ||
        jf_u32(u, "gid", path, true, &cfg->process.gid, err) < 0)
        return -1;
    jpath_key(p, path, "additionalGids");
    if ((n = json_get(u, "additionalGids")) != NULL && parse_gids(n, p, cfg, err) < 0)
        return -1;
    if (json_get(u, "umask") != NULL) {
        if (jf_u32(u, "umask", path, false, &cfg->process.umask, err) < 0)
            return -1;
        if (cfg->process.umask > 0777)
            return rr_fail(err, 0, "%s.umask: above 0777", path);
        cfg->process.has_umask = true;
    }
    if (json_get(u, "username") != NULL)
        return rr_fail(err, 0, "%s.username: refused: a Windows field", path);
    return 0;
}

int engine_parse_capabilities(const struct json_node *caps, const char *path,
                              struct rr_config *cfg, struct rr_error *err)
{
    static const char *const keys[] = {"bounding", "effective", "inheritable", "permitted",
                                       "ambient", NULL};

    if (jf_only_keys(caps, path, keys, err) < 0)
        return -1;
    for (size_t i = 0; i < 5; i++)
        if (jf_strv(caps, rr_cap_set_names[i], path, &cfg->process.caps[i], err) < 0)
            return -1;
    cfg->process.has_capabilities = true;
    return 0;
}

int engine_parse_process_extra(const struct json_node *proc, struct rr_config *cfg,
                               struct rr_error *err)
{
    static const struct engine_refusal refused[] = {
        {"commandLine", "a Windows field"},
        {"scheduler", "revrun does not change the scheduling policy (a real-time class "
                      "would widen what the container can take from the host)"},
        {"ioPriority", "revrun does not set I/O priorities"},
        {"execCPUAffinity", "revrun does not pin CPUs"},
        {NULL, NULL}};
    const struct json_node *n;

    if (engine_refuse_keys(proc, "process", refused, err) < 0)
        return -1;
    if ((n = json_get(proc, "oomScoreAdj")) != NULL) {
        if (jf_i64(proc, "oomScoreAdj", "process", -1000, &cfg->process.oom_score_adj, err) < 0)
            return -1;
        if (cfg->process.oom_score_adj > 1000)
            return rr_fail(err, 0, "process.oomScoreAdj: above 1000");
        cfg->process.has_oom_score_adj = true;
    }
    if (jf_string(proc, "apparmorProfile", "process", false, &cfg->process.apparmor_profile,
                  err) < 0 ||
        jf_string(proc, "selinuxLabel", "process", false, &cfg->process.selinux_label, err) < 0)
        return -1;
    if ((n = json_get(proc, "consoleSize")) != NULL) {
        static const char *const keys[] = {"height", "width", NULL};
        if (jf_only_keys(n, "process.consoleSize", keys, err) < 0 ||
            jf_u32(n, "height", "process.consoleSize", true, &cfg->process.console_height, err) <
                0 ||
            jf_u32(n, "width", "process.consoleSize", true, &cfg->process.console_width, err) < 0)
            return -1;
        if (cfg->process.console_height > 65535 || cfg->process.console_width > 65535)
            return rr_fail(err, 0, "process.consoleSize: above 65535");
    }
    return 0;
}

static int parse_hook(const struct json_node *h, const char *path, struct rr_hook *out,
                      struct rr_error *err)
{
    static const char *const keys[] = {"path", "args", "env", "timeout", NULL};

    out->timeout = RR_UNSET;
    if (jf_only_keys(h, path, keys, err) < 0 ||
        jf_string(h, "path", path, true, &out->path, err) < 0 ||
        jf_check_abs_path(out->path, path, err) < 0 ||
        jf_strv(h, "args", path, &out->args, err) < 0 ||
        jf_strv(h, "env", path, &out->env, err) < 0 ||
        jf_i64(h, "timeout", path, 1, &out->timeout, err) < 0)
        return -1;
    if (out->timeout != RR_UNSET && out->timeout > 3600)
        return rr_fail(err, 0, "%s.timeout: above 3600 seconds", path);
    return 0;
}

int engine_parse_hooks(const struct json_node *hooks, struct rr_config *cfg,
                       struct rr_error *err)
{
    static const char *const keys[] = {"prestart", "createRuntime", "createContainer",
                                       "startContainer", "poststart", "poststop", NULL};

    if (jf_only_keys(hooks, "hooks", keys, err) < 0)
        return -1;
    for (size_t k = 0; k < RR_HOOK_KINDS; k++) {
        const struct json_node *arr = json_get(hooks, rr_hook_kind_names[k]);
        char path[JPATH_MAX];
        if (arr == NULL)
            continue;
        jpath_key(path, "hooks", rr_hook_kind_names[k]);
        if (jf_expect(arr, JSON_ARRAY, path, err) < 0)
            return -1;
        if (arr->u.array.n > MAX_HOOKS)
            return rr_fail(err, 0, "%s: more than %d hooks", path, MAX_HOOKS);
        cfg->hooks[k] = calloc(arr->u.array.n + 1, sizeof(struct rr_hook));
        if (cfg->hooks[k] == NULL)
            return rr_fail(err, ENOMEM, "%s", path);
        for (size_t i = 0; i < arr->u.array.n; i++) {
            char p[JPATH_MAX];
            jpath_index(p, path, i);
            cfg->n_hooks[k]++;
            if (parse_hook(arr->u.array.items[i], p, &cfg->hooks[k][i], err) < 0)
                return -1;
        }
    }
    return 0;
}

static int parse_device_rule(const struct json_node *d, const char *path,
                             struct rr_device_rule *out, struct rr_error *err)
{
    static const char *const keys[] = {"allow", "type", "major", "minor", "access", NULL};
    _cleanup_free_ char *type = NULL;
    _cleanup_free_ char *access = NULL;
    bool have_allow = false;

    out->major = out->minor = -1;
    if (jf_only_keys(d, path, keys, err) < 0 ||
        jf_bool(d, "allow", path, &out->allow, &have_allow, err) < 0 ||
        jf_string(d, "type", path, false, &type, err) < 0 ||
        jf_i64(d, "major", path, -1, &out->major, err) < 0 ||
        jf_i64(d, "minor", path, -1, &out->minor, err) < 0 ||
        jf_string(d, "access", path, false, &access, err) < 0)
        return -1;
    if (!have_allow)
        return rr_fail(err, 0, "%s.allow: required", path);
    out->type = type == NULL ? 'a' : type[0];
    if ((type != NULL && strlen(type) != 1) || strchr("acb", out->type) == NULL)
        return rr_fail(err, 0, "%s.type: one of a, c, b", path);
    if (out->major > 0xfff || out->minor > 0xfffff)
        return rr_fail(err, 0, "%s: device number out of range", path);
    snprintf(out->access, sizeof(out->access), "%s", access == NULL ? "rwm" : access);
    if (access != NULL && (strlen(access) > 3 || strspn(access, "rwm") != strlen(access)))
        return rr_fail(err, 0, "%s.access: letters of rwm", path);
    return 0;
}

static int parse_devices(const struct json_node *arr, struct rr_resources *r,
                         struct rr_error *err)
{
    const char *path = "linux.resources.devices";

    if (jf_expect(arr, JSON_ARRAY, path, err) < 0)
        return -1;
    if (arr->u.array.n > MAX_DEVICE_RULES)
        return rr_fail(err, 0, "%s: more than %d rules", path, MAX_DEVICE_RULES);
    r->devices = calloc(arr->u.array.n + 1, sizeof(*r->devices));
    if (r->devices == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    for (size_t i = 0; i < arr->u.array.n; i++) {
        char p[JPATH_MAX];
        jpath_index(p, path, i);
        r->n_devices++;
        if (parse_device_rule(arr->u.array.items[i], p, &r->devices[i], err) < 0)
            return -1;
    }
    return 0;
}

/* A zero is how docker says "not set" (cpu.shares 0, blockIO.weight 0). */
static bool zero_or_absent(const struct json_node *obj, const char *key)
{
    const struct json_node *n = json_get(obj, key);
    return n == NULL || (n->type == JSON_INT && n->u.integer == 0) ||
           (n->type == JSON_BOOL && !n->u.boolean);
}

/* memory, cpu and blockIO members beyond what a review config takes. Each
 * limit revrun cannot enforce is refused when it is set to something. */
int engine_parse_resources_extra(const struct json_node *res, struct rr_config *cfg,
                                 struct rr_error *err)
{
    static const char *const mem_unset[] = {"reservation", "kernel", "kernelTCP", "swappiness",
                                            "useHierarchy", "checkBeforeUpdate", NULL};
    static const char *const cpu_unset[] = {"realtimeRuntime", "realtimePeriod", "cpus", "mems",
                                            "idle", "burst", NULL};
    static const char *const res_unset[] = {"hugepageLimits", "network", "rdma", "unified", NULL};
    struct rr_resources *r = &cfg->linux.resources;
    const struct json_node *n;

    for (const char *const *k = res_unset; *k; k++)
        if ((n = json_get(res, *k)) != NULL &&
            !(n->type == JSON_ARRAY && n->u.array.n == 0) &&
            !(n->type == JSON_OBJECT && n->u.object.n == 0))
            return rr_fail(err, 0, "linux.resources.%s: refused: revrun does not enforce it", *k);
    if ((n = json_get(res, "memory")) != NULL) {
        for (const char *const *k = mem_unset; *k; k++)
            if (!zero_or_absent(n, *k))
                return rr_fail(err, 0,
                               "linux.resources.memory.%s: refused: revrun enforces memory.limit "
                               "and memory.swap only", *k);
        if (jf_bool(n, "disableOOMKiller", "linux.resources.memory", &r->disable_oom_killer,
                    NULL, err) < 0)
            return -1;
    }
    if ((n = json_get(res, "cpu")) != NULL) {
        for (const char *const *k = cpu_unset; *k; k++) {
            const struct json_node *v = json_get(n, *k);
            if (!zero_or_absent(n, *k) &&
                !(v->type == JSON_STRING && v->u.string.len == 0))
                return rr_fail(err, 0,
                               "linux.resources.cpu.%s: refused: revrun enforces cpu.quota, "
                               "cpu.period and cpu.shares only", *k);
        }
        if (jf_i64(n, "shares", "linux.resources.cpu", 0, &r->cpu_shares, err) < 0)
            return -1;
    }
    if ((n = json_get(res, "blockIO")) != NULL) {
        static const char *const keys[] = {"weight", "leafWeight", "weightDevice",
                                           "throttleReadBpsDevice", "throttleWriteBpsDevice",
                                           "throttleReadIOPSDevice", "throttleWriteIOPSDevice",
                                           NULL};
        if (jf_only_keys(n, "linux.resources.blockIO", keys, err) < 0)
            return -1;
        for (const char *const *k = keys + 1; *k; k++) {
            const struct json_node *v = json_get(n, *k);
            if (v != NULL && !zero_or_absent(n, *k) &&
                !(v->type == JSON_ARRAY && v->u.array.n == 0))
                return rr_fail(err, 0,
                               "linux.resources.blockIO.%s: refused: revrun enforces the "
                               "blockIO weight only", *k);
        }
        if (jf_i64(n, "weight", "linux.resources.blockIO", 0, &r->blkio_weight, err) < 0)
            return -1;
        if (r->blkio_weight > 1000)
            return rr_fail(err, 0, "linux.resources.blockIO.weight: above 1000");
    }
    if ((n = json_get(res, "devices")) != NULL && parse_devices(n, r, err) < 0)
        return -1;
    return 0;
}

static int parse_sysctl(const struct json_node *obj, struct rr_config *cfg, struct rr_error *err)
{
    if (jf_expect(obj, JSON_OBJECT, "linux.sysctl", err) < 0)
        return -1;
    if (obj->u.object.n > MAX_SYSCTLS)
        return rr_fail(err, 0, "linux.sysctl: more than %d entries", MAX_SYSCTLS);
    for (size_t i = 0; i < obj->u.object.n; i++) {
        const char *k = obj->u.object.keys[i];
        const struct json_node *v = obj->u.object.values[i];
        _cleanup_free_ char *kv = NULL;
        char p[JPATH_MAX];

        jpath_key(p, "linux.sysctl", k);
        if (jf_expect(v, JSON_STRING, p, err) < 0)
            return -1;
        /* A name of dots and [a-z0-9_-] only: it becomes a path under
         * /proc/sys, where "/" or ".." would reach other files. */
        if (k[0] == '\0' || k[0] == '.' || strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_-.") !=
                                               strlen(k) || strstr(k, "..") != NULL)
            return rr_fail(err, 0, "%s: not a sysctl name", p);
        for (const char *c = v->u.string.s; *c; c++)
            if ((unsigned char)*c < 0x20 && *c != '\t')
                return rr_fail(err, 0, "%s: control character in the value", p);
        if (asprintf(&kv, "%s=%s", k, v->u.string.s) < 0)
            return rr_fail(err, ENOMEM, "%s", p);
        if (strv_push(&cfg->linux.sysctl, kv) < 0)
            return rr_fail(err, ENOMEM, "%s", p);
    }
    return 0;
}

int engine_parse_linux_extra(const struct json_node *lx, struct rr_config *cfg,
                             struct rr_error *err)
{
    static const struct engine_refusal refused[] = {
        {"intelRdt", "revrun does not manage resctrl"},
        {"personality", "the seccomp floor decides the personalities allowed"},
        {"timeOffsets", "revrun does not make time namespaces"},
        {"memoryPolicy", "revrun does not set NUMA policies"},
        {"netDevices", "revrun moves no network device into a container"},
        {NULL, NULL}};
    const struct json_node *n;

    if (engine_refuse_keys(lx, "linux", refused, err) < 0)
        return -1;
    if ((n = json_get(lx, "devices")) != NULL &&
        (jf_expect(n, JSON_ARRAY, "linux.devices", err) < 0 ||
         (n->u.array.n > 0 &&
          rr_fail(err, 0, "linux.devices: refused: a user namespace cannot make device nodes; "
                          "the container gets revrun's fixed set (null, zero, full, random, "
                          "urandom, tty) and its own pty") < 0)))
        return -1;
    if ((n = json_get(lx, "sysctl")) != NULL && parse_sysctl(n, cfg, err) < 0)
        return -1;
    if (jf_string(lx, "rootfsPropagation", "linux", false, &cfg->linux.rootfs_propagation, err) <
            0 ||
        jf_string(lx, "mountLabel", "linux", false, &cfg->linux.mount_label, err) < 0)
        return -1;
    return 0;
}

/* A name an annotation gives (a policy, an export): letters, digits, ".",
 * "_" and "-", not starting with "." (never "..", never a path). */
static int check_name(const char *v, const char *p, struct rr_error *err)
{
    size_t n = strlen(v);

    if (n == 0 || n > RR_ANN_NAME_MAX || v[0] == '.' ||
        strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
        return rr_fail(err, 0, "%s: not a name (1-%d of [A-Za-z0-9._-], not starting with \".\")",
                       p, RR_ANN_NAME_MAX);
    return 0;
}

static int dup_value(const char *v, char **out, const char *p, struct rr_error *err)
{
    if ((*out = strdup(v)) == NULL)
        return rr_fail(err, ENOMEM, "%s", p);
    return 0;
}

/* One io.revrun.* key: its value parsed as hostile (the engine passes on
 * what its user typed). Unknown keys are refused: a typo of a setting that
 * was meant to apply would otherwise run without it. */
static int parse_revrun_annotation(const char *k, const char *v, struct rr_config *cfg,
                                   struct rr_error *err)
{
    static const char *const backends[] = {"auto", "native", "fuse"};
    char p[JPATH_MAX];

    jpath_key(p, "annotations", k);
    for (const char *c = v; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return rr_fail(err, 0, "%s: control character in the value", p);
    if (strcmp(k, RR_ANN_CHECKOUT) == 0) {
        if (jf_check_abs_path(v, p, err) < 0)
            return -1;
        if (strcmp(v, "/") == 0)
            return rr_fail(err, 0, "%s: the checkout cannot be the root", p);
        return dup_value(v, &cfg->ann.checkout, p, err);
    }
    if (strcmp(k, RR_ANN_POLICY) == 0)
        return check_name(v, p, err) < 0 ? -1 : dup_value(v, &cfg->ann.policy, p, err);
    if (strcmp(k, RR_ANN_EXPORT) == 0)
        return check_name(v, p, err) < 0 ? -1 : dup_value(v, &cfg->ann.export_name, p, err);
    if (strcmp(k, RR_ANN_UPPER_SIZE) == 0) {
        if (!parse_size(v, &cfg->ann.upper_size) || cfg->ann.upper_size < (1u << 20))
            return rr_fail(err, 0, "%s: a size of at least 1M (\"512M\", \"2G\")", p);
        return 0;
    }
    if (strcmp(k, RR_ANN_OVERLAY) == 0) {
        for (int i = 0; i < 3; i++)
            if (strcmp(v, backends[i]) == 0) {
                cfg->ann.overlay = i; /* RR_BACKEND_AUTO, NATIVE, FUSE */
                return 0;
            }
        return rr_fail(err, 0, "%s: one of auto, native, fuse", p);
    }
    return rr_fail(err, 0, "%s: unknown revrun annotation (known: " RR_ANN_CHECKOUT ", "
                           RR_ANN_POLICY ", " RR_ANN_EXPORT ", " RR_ANN_UPPER_SIZE ", "
                           RR_ANN_OVERLAY ")", p);
}

int engine_parse_annotations(const struct json_node *a, struct rr_config *cfg,
                             struct rr_error *err)
{
    for (size_t i = 0; i < a->u.object.n; i++) {
        const char *k = a->u.object.keys[i];
        const char *v = a->u.object.values[i]->u.string.s;
        _cleanup_free_ char *kv = NULL;

        /* revrun's own namespace; every other key is the engine's or its
         * user's and is carried, never judged: the runtime spec says a
         * runtime MUST NOT fail on an annotation it does not know. */
        if (strncmp(k, RR_ANN_PREFIX, strlen(RR_ANN_PREFIX)) == 0 &&
            parse_revrun_annotation(k, v, cfg, err) < 0)
            return -1;
        if (asprintf(&kv, "%s=%s", k, v) < 0 || strv_push(&cfg->annotations, kv) < 0)
            return rr_fail(err, ENOMEM, "annotations");
    }
    if (cfg->ann.checkout == NULL &&
        (cfg->ann.export_name != NULL || cfg->ann.upper_size != 0 || cfg->ann.overlay >= 0))
        return rr_fail(err, 0, "annotations: %s, %s and %s need %s (the mount to overlay)",
                       RR_ANN_EXPORT, RR_ANN_UPPER_SIZE, RR_ANN_OVERLAY, RR_ANN_CHECKOUT);
    return 0;
}

void engine_config_free(struct rr_config *cfg)
{
    free(cfg->process.additional_gids);
    for (size_t i = 0; i < 5; i++)
        strv_free(&cfg->process.caps[i]);
    free(cfg->process.apparmor_profile);
    free(cfg->process.selinux_label);
    free(cfg->linux.resources.devices);
    for (size_t i = 0; i < 7; i++)
        free(cfg->linux.ns_path[i]);
    strv_free(&cfg->linux.sysctl);
    free(cfg->linux.rootfs_propagation);
    free(cfg->linux.mount_label);
    for (size_t k = 0; k < RR_HOOK_KINDS; k++) {
        for (size_t i = 0; i < cfg->n_hooks[k]; i++) {
            free(cfg->hooks[k][i].path);
            strv_free(&cfg->hooks[k][i].args);
            strv_free(&cfg->hooks[k][i].env);
        }
        free(cfg->hooks[k]);
    }
    strv_free(&cfg->annotations);
    free(cfg->ann.checkout);
    free(cfg->ann.policy);
    free(cfg->ann.export_name);
}
