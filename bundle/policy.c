#include "bundle/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bundle/jfield.h"
#include "bundle/json.h"
#include "common/cleanup.h"

static const char *const cap_names[] = {
    "CAP_CHOWN",          "CAP_DAC_OVERRIDE",   "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
    "CAP_FSETID",         "CAP_KILL",           "CAP_SETGID",          "CAP_SETUID",
    "CAP_SETPCAP",        "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",      "CAP_NET_RAW",        "CAP_IPC_LOCK",        "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",     "CAP_SYS_RAWIO",      "CAP_SYS_CHROOT",      "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",      "CAP_SYS_ADMIN",      "CAP_SYS_BOOT",        "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",   "CAP_SYS_TIME",       "CAP_SYS_TTY_CONFIG",  "CAP_MKNOD",
    "CAP_LEASE",          "CAP_AUDIT_WRITE",    "CAP_AUDIT_CONTROL",   "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",   "CAP_MAC_ADMIN",      "CAP_SYSLOG",          "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",  "CAP_AUDIT_READ",     "CAP_PERFMON",         "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
};

#define BIT(n) (1ULL << (n))

/* SYS_ADMIN, SYS_MODULE, SYS_PTRACE, SYS_RAWIO, SYS_BOOT, MAC_ADMIN, BPF,
 * PERFMON: each one is a known way out of a container or into the kernel. */
const uint64_t rr_caps_never = BIT(21) | BIT(16) | BIT(19) | BIT(17) | BIT(22) | BIT(33) |
                               BIT(39) | BIT(38);
/* CHOWN, DAC_OVERRIDE, FSETID, FOWNER, MKNOD, NET_RAW, SETGID, SETUID,
 * SETFCAP, SETPCAP, NET_BIND_SERVICE, SYS_CHROOT, KILL, AUDIT_WRITE. */
const uint64_t rr_caps_engine_default = BIT(0) | BIT(1) | BIT(4) | BIT(3) | BIT(27) | BIT(13) |
                                        BIT(6) | BIT(7) | BIT(31) | BIT(8) | BIT(10) | BIT(18) |
                                        BIT(5) | BIT(29);

int rr_cap_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
        if (strcmp(cap_names[i], name) == 0)
            return (int)i;
    return -1;
}

const char *rr_cap_name(int cap)
{
    if (cap < 0 || (size_t)cap >= sizeof(cap_names) / sizeof(cap_names[0]))
        return "?";
    return cap_names[cap];
}

static int parse_caps(const struct json_node *caps, const char *path, uint64_t *allowed,
                      struct rr_error *err)
{
    char ap[JPATH_MAX];

    jpath_key(ap, path, "capabilities");
    if (jf_expect(caps, JSON_ARRAY, ap, err) < 0)
        return -1;
    *allowed = 0;
    for (size_t i = 0; i < caps->u.array.n; i++) {
        const struct json_node *c = caps->u.array.items[i];
        char p[JPATH_MAX];
        int n;
        jpath_index(p, ap, i);
        if (jf_expect(c, JSON_STRING, p, err) < 0)
            return -1;
        if ((n = rr_cap_by_name(c->u.string.s)) < 0)
            return rr_fail(err, 0, "%s: unknown capability", p);
        if (rr_caps_never & BIT(n))
            return rr_fail(err, 0, "%s: %s is never granted by revrun", p, c->u.string.s);
        *allowed |= BIT(n);
    }
    return 0;
}

static void policy_defaults(struct rr_policy *out)
{
    memset(out, 0, sizeof(*out));
    out->caps = rr_caps_engine_default;
    out->upper_size = RR_POLICY_UPPER_SIZE;
    out->nnp_as_config = false;
    snprintf(out->export_root, sizeof(out->export_root), "%s", RR_POLICY_EXPORT_ROOT);
    snprintf(out->kubelet_pods, sizeof(out->kubelet_pods), "%s", RR_POLICY_KUBELET_PODS);
}

/* A key that takes one of two words (any other is refused: a typo must not
 * widen or quietly drop what the file asks): *out is whether it is on. */
static int parse_switch(const struct json_node *v, const char *path, const char *key,
                        const char *off, const char *on, bool *out, struct rr_error *err)
{
    char p[JPATH_MAX];

    jpath_key(p, path, key);
    if (jf_expect(v, JSON_STRING, p, err) < 0)
        return -1;
    if (strcmp(v->u.string.s, off) == 0)
        *out = false;
    else if (strcmp(v->u.string.s, on) == 0)
        *out = true;
    else
        return rr_fail(err, 0, "%s: \"%s\" or \"%s\"", p, off, on);
    return 0;
}

/* "checkoutOwners": host uids, none of them root (an idmap of uid 0 to
 * the container's user would hand it root's files). */
static int parse_owners(const struct json_node *v, const char *path, struct rr_policy *out,
                        struct rr_error *err)
{
    char ap[JPATH_MAX];

    jpath_key(ap, path, "checkoutOwners");
    if (jf_expect(v, JSON_ARRAY, ap, err) < 0)
        return -1;
    if (v->u.array.n == 0 || v->u.array.n > RR_POLICY_CHECKOUT_OWNERS_MAX)
        return rr_fail(err, 0, "%s: 1 to %d uids", ap, RR_POLICY_CHECKOUT_OWNERS_MAX);
    out->n_checkout_owners = 0;
    for (size_t i = 0; i < v->u.array.n; i++) {
        const struct json_node *u = v->u.array.items[i];
        char p[JPATH_MAX];
        jpath_index(p, ap, i);
        if (u->type != JSON_INT || u->u.integer < 1 || u->u.integer >= UINT32_MAX)
            return rr_fail(err, 0, "%s: a host uid from 1 to 4294967294 (root is never a "
                                   "checkout owner)", p);
        out->checkout_owners[out->n_checkout_owners++] = (uint32_t)u->u.integer;
    }
    return 0;
}

/* An absolute directory path under key, when given, into out. */
static int parse_dir(const struct json_node *e, const char *key, const char *path, char *out,
                     size_t len, struct rr_error *err)
{
    char *dir = NULL, p[JPATH_MAX];
    int r;

    if (jf_string(e, key, path, false, &dir, err) < 0)
        return -1;
    if (dir == NULL)
        return 0;
    jpath_key(p, path, key);
    r = jf_check_abs_path(dir, p, err);
    if (r == 0 && strlen(dir) >= len)
        r = rr_fail(err, ENAMETOOLONG, "%s", p);
    if (r == 0)
        snprintf(out, len, "%s", dir);
    free(dir);
    return r;
}

/* One policy object ("engine", or one of "policies"): a key it omits takes
 * base's value (NULL: revrun's defaults; a named policy: "engine"'s). */
static int parse_one(const struct json_node *e, const char *path, const struct rr_policy *base,
                     struct rr_policy *out, struct rr_error *err)
{
    static const char *const keys[] = {"capabilities",    "upperSize",      "exportRoot",
                                       "noNewPrivileges", "checkoutOwners", "kubeletPodsDir",
                                       "activity",        "activityRoot",   NULL};
    const struct json_node *caps, *nnp, *owners, *act;

    if (base != NULL)
        *out = *base;
    else
        policy_defaults(out);
    if (jf_only_keys(e, path, keys, err) < 0)
        return -1;
    if ((owners = json_get(e, "checkoutOwners")) != NULL && parse_owners(owners, path, out, err) < 0)
        return -1;
    if ((caps = json_get(e, "capabilities")) != NULL && parse_caps(caps, path, &out->caps, err) < 0)
        return -1;
    /* noNewPrivileges: "force" (the default: set whatever the config says)
     * or "config" (the config's process.noNewPrivileges, as the runtime
     * spec has it). activity: "off" (the default) or "record" (every exec
     * of the container recorded from outside it, engine_recorder.h). */
    if ((nnp = json_get(e, "noNewPrivileges")) != NULL &&
        parse_switch(nnp, path, "noNewPrivileges", "force", "config", &out->nnp_as_config,
                     err) < 0)
        return -1;
    if ((act = json_get(e, "activity")) != NULL &&
        parse_switch(act, path, "activity", "off", "record", &out->activity_record, err) < 0)
        return -1;
    if (jf_size(e, "upperSize", path, &out->upper_size, err) < 0)
        return -1;
    if (out->upper_size < (1u << 20))
        return rr_fail(err, 0, "%s.upperSize: at least 1M", path);
    if (parse_dir(e, "exportRoot", path, out->export_root, sizeof(out->export_root), err) < 0 ||
        parse_dir(e, "kubeletPodsDir", path, out->kubelet_pods, sizeof(out->kubelet_pods),
                  err) < 0 ||
        parse_dir(e, "activityRoot", path, out->activity_root, sizeof(out->activity_root),
                  err) < 0)
        return -1;
    return 0;
}

static bool policy_name_ok(const char *n)
{
    size_t len = strlen(n);

    return len > 0 && len <= 64 && n[0] != '.' &&
           strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

/* "hostIds" / "engineIds": {"first": N, "count": M}: above the ids of real
 * users and nobody, below the invalid id 4294967295. */
static int parse_range(const struct json_node *root, const char *key, struct rr_id_range def,
                       struct rr_id_range *r, struct rr_error *err)
{
    static const char *const keys[] = {"first", "count", NULL};
    const struct json_node *h = json_get(root, key);

    *r = def;
    if (h == NULL)
        return 0;
    if (jf_expect(h, JSON_OBJECT, key, err) < 0 || jf_only_keys(h, key, keys, err) < 0 ||
        jf_u32(h, "first", key, true, &r->first, err) < 0 ||
        jf_u32(h, "count", key, true, &r->count, err) < 0)
        return -1;
    if (r->first < POLICY_HOST_IDS_FLOOR)
        return rr_fail(err, 0, "%s.first: %u is below %u (the ids of real users)", key, r->first,
                       POLICY_HOST_IDS_FLOOR);
    if (r->count == 0 || (uint64_t)r->first + r->count > UINT32_MAX)
        return rr_fail(err, 0, "%s.count: %u ids from %u do not fit below 4294967295", key,
                       r->count, r->first);
    return 0;
}

static int parse_id_range(const struct json_node *root, struct rr_id_range *r,
                          struct rr_error *err)
{
    return parse_range(root, "hostIds",
                       (struct rr_id_range){POLICY_HOST_IDS_FIRST, POLICY_HOST_IDS_COUNT}, r, err);
}

/* engineIds, in whole blocks, and never meeting hostIds (review2 F9): a
 * review's id inside an engine block would be that container's user, and
 * own the review's user namespace. */
static int parse_engine_range(const struct json_node *root, struct rr_id_range *r,
                              struct rr_error *err)
{
    struct rr_id_range h;

    if (parse_id_range(root, &h, err) < 0 ||
        parse_range(root, "engineIds",
                    (struct rr_id_range){POLICY_ENGINE_IDS_FIRST, POLICY_ENGINE_IDS_COUNT}, r,
                    err) < 0)
        return -1;
    if (r->count % POLICY_ENGINE_BLOCK != 0)
        return rr_fail(err, 0, "engineIds.count: %u is not a whole number of blocks of %u ids",
                       r->count, POLICY_ENGINE_BLOCK);
    if ((uint64_t)h.first < (uint64_t)r->first + r->count &&
        (uint64_t)r->first < (uint64_t)h.first + h.count)
        return rr_fail(err, 0, "hostIds %u-%u overlaps engineIds %u-%u: reviews and engine "
                               "containers never share a host id",
                       h.first, h.first + (h.count - 1), r->first, r->first + (r->count - 1));
    return 0;
}

static int parse_policy(const struct json_node *root, const char *name, struct rr_policy *out,
                        struct rr_error *err)
{
    static const char *const top[] = {"engine", "policies", "hostIds", "engineIds", NULL};
    struct rr_id_range ids;
    const struct json_node *e, *named, *chosen = NULL;
    struct rr_policy engine;

    if (jf_only_keys(root, "", top, err) < 0 || parse_engine_range(root, &ids, err) < 0)
        return -1;
    /* "engine" first: the base every named policy starts from */
    policy_defaults(&engine);
    if ((e = json_get(root, "engine")) != NULL &&
        (jf_expect(e, JSON_OBJECT, "engine", err) < 0 ||
         parse_one(e, "engine", NULL, &engine, err) < 0))
        return -1;
    /* Every policy is checked, whichever is chosen: a broken one is found
     * when the file is first used, not when an engine first names it. */
    if ((named = json_get(root, "policies")) != NULL) {
        if (jf_expect(named, JSON_OBJECT, "policies", err) < 0)
            return -1;
        for (size_t i = 0; i < named->u.object.n; i++) {
            struct rr_policy scratch;
            char p[JPATH_MAX];
            jpath_key(p, "policies", named->u.object.keys[i]);
            if (!policy_name_ok(named->u.object.keys[i]))
                return rr_fail(err, 0, "%s: not a policy name ([A-Za-z0-9._-], 1-64)", p);
            if (jf_expect(named->u.object.values[i], JSON_OBJECT, p, err) < 0 ||
                parse_one(named->u.object.values[i], p, &engine, &scratch, err) < 0)
                return -1;
            if (name != NULL && strcmp(name, named->u.object.keys[i]) == 0)
                chosen = named->u.object.values[i];
        }
    }
    if (name != NULL) {
        char p[JPATH_MAX];
        if (chosen == NULL)
            return rr_fail(err, ENOENT, "io.revrun.policy \"%s\": not a policy of this host (the "
                                        "engine may only name one the file's \"policies\" "
                                        "defines)", name);
        jpath_key(p, "policies", name);
        return parse_one(chosen, p, &engine, out, err);
    }
    *out = engine;
    return 0;
}

int policy_load_named(const char *path, const char *name, struct rr_policy *out,
                      struct rr_error *err)
{
    struct json_node *root = NULL;
    int r;

    policy_defaults(out);
    if (access(path, F_OK) < 0 && errno == ENOENT) {
        if (name != NULL)
            return rr_fail(err, ENOENT, "io.revrun.policy \"%s\": not a policy of this host "
                                        "(%s does not exist)", name, path);
        return 0;
    }
    if (json_parse_file(AT_FDCWD, path, &json_limits_config, &root, err) < 0)
        return rr_wrap(err, "policy %s", path);
    r = parse_policy(root, name, out, err);
    json_free(root);
    return r < 0 ? rr_wrap(err, "policy %s", path) : 0;
}

/* One id range of the file at PATH, DEFAULTS when there is none; the whole
 * file is judged first, as every load of it is. */
static int load_range(const char *path, struct rr_id_range defaults,
                      int (*parse)(const struct json_node *, struct rr_id_range *,
                                   struct rr_error *),
                      struct rr_id_range *r, struct rr_error *err)
{
    struct json_node *root = NULL;
    struct rr_policy scratch;
    int rc;

    *r = defaults;
    if (access(path, F_OK) < 0 && errno == ENOENT)
        return 0;
    if (json_parse_file(AT_FDCWD, path, &json_limits_config, &root, err) < 0)
        return rr_wrap(err, "policy %s", path);
    policy_defaults(&scratch);
    rc = parse_policy(root, NULL, &scratch, err);
    if (rc == 0)
        rc = parse(root, r, err);
    json_free(root);
    return rc < 0 ? rr_wrap(err, "policy %s", path) : 0;
}

int policy_load_host_ids(const char *path, struct rr_id_range *r, struct rr_error *err)
{
    return load_range(path, (struct rr_id_range){POLICY_HOST_IDS_FIRST, POLICY_HOST_IDS_COUNT},
                      parse_id_range, r, err);
}

int policy_load_engine_ids(const char *path, struct rr_id_range *r, struct rr_error *err)
{
    return load_range(path,
                      (struct rr_id_range){POLICY_ENGINE_IDS_FIRST, POLICY_ENGINE_IDS_COUNT},
                      parse_engine_range, r, err);
}

int policy_load(const char *path, uint64_t *allowed, struct rr_error *err)
{
    struct rr_policy pol;

    if (policy_load_named(path, NULL, &pol, err) < 0)
        return -1;
    *allowed = pol.caps;
    return 0;
}
