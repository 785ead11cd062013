#include "bundle/policy.h"

#include <errno.h>
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

/* "hostIds": {"first": N, "count": M}: above the ids of real users and
 * nobody (65534), below the invalid id 4294967295. */
static int parse_id_range(const struct json_node *root, struct rr_id_range *r,
                          struct rr_error *err)
{
    static const char *const keys[] = {"first", "count", NULL};
    const struct json_node *h = json_get(root, "hostIds");

    if (h == NULL)
        return 0;
    if (jf_expect(h, JSON_OBJECT, "hostIds", err) < 0 ||
        jf_only_keys(h, "hostIds", keys, err) < 0 ||
        jf_u32(h, "first", "hostIds", true, &r->first, err) < 0 ||
        jf_u32(h, "count", "hostIds", true, &r->count, err) < 0)
        return -1;
    if (r->first < POLICY_HOST_IDS_FLOOR)
        return rr_fail(err, 0, "hostIds.first: %u is below %u (the ids of real users)", r->first,
                       POLICY_HOST_IDS_FLOOR);
    if (r->count == 0 || (uint64_t)r->first + r->count > UINT32_MAX)
        return rr_fail(err, 0, "hostIds.count: %u ids from %u do not fit below 4294967295",
                       r->count, r->first);
    return 0;
}

static int parse_policy(const struct json_node *root, struct rr_policy *pol,
                        struct rr_error *err)
{
    static const char *const top[] = {"engine", "hostIds", NULL};
    static const char *const eng[] = {"capabilities", NULL};
    const struct json_node *e, *caps;
    uint64_t *allowed = &pol->caps;

    if (jf_only_keys(root, "", top, err) < 0 || parse_id_range(root, &pol->host_ids, err) < 0)
        return -1;
    if ((e = json_get(root, "engine")) == NULL)
        return 0;
    if (jf_only_keys(e, "engine", eng, err) < 0)
        return -1;
    if ((caps = json_get(e, "capabilities")) == NULL)
        return 0;
    if (jf_expect(caps, JSON_ARRAY, "engine.capabilities", err) < 0)
        return -1;
    *allowed = 0;
    for (size_t i = 0; i < caps->u.array.n; i++) {
        const struct json_node *c = caps->u.array.items[i];
        char p[JPATH_MAX];
        int n;
        jpath_index(p, "engine.capabilities", i);
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

int policy_load_all(const char *path, struct rr_policy *pol, struct rr_error *err)
{
    struct json_node *root = NULL;
    int r;

    *pol = (struct rr_policy){.caps = rr_caps_engine_default,
                              .host_ids = {POLICY_HOST_IDS_FIRST, POLICY_HOST_IDS_COUNT}};
    if (access(path, F_OK) < 0 && errno == ENOENT)
        return 0;
    if (json_parse_file(AT_FDCWD, path, &json_limits_config, &root, err) < 0)
        return rr_wrap(err, "policy %s", path);
    r = parse_policy(root, pol, err);
    json_free(root);
    return r < 0 ? rr_wrap(err, "policy %s", path) : 0;
}

int policy_load(const char *path, uint64_t *allowed, struct rr_error *err)
{
    struct rr_policy pol;

    if (policy_load_all(path, &pol, err) < 0)
        return -1;
    *allowed = pol.caps;
    return 0;
}
