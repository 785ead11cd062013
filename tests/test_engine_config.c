/* Engine configs (tests/fixtures/engines: what containerd 1.6, podman 4.3
 * and docker 20.10 sent runc on Debian 12): each is accepted and judged by
 * profile_build_engine, every field honoured or tightened with a note; the
 * review profile still refuses the same fields; the floor holds whatever the
 * config asks (capabilities, sysctls, namespaces, mappings). */
#include <linux/mount.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/config.h"
#include "bundle/json.h"
#include "bundle/policy.h"
#include "runtime/confine/cgroup_devices.h"
#include "runtime/confine/profile/profile.h"
#include "tests/tap.h"

static const char *const fixtures[] = {
    "containerd-ctr-run.json",     "containerd-ctr-run-t.json",  "podman-run-network-none.json",
    "podman-run-netns-path.json",  "podman-run-t.json",          "docker-run-network-none.json",
    "docker-run-d.json",           "docker-run-t.json",
};

static char rootfs[] = "/tmp/revrun-test-engine.XXXXXX";
static char policy[sizeof(rootfs) + 16];
static struct rr_error err;
static struct rr_config cfg;
static struct profile prof;
static bool have_cfg, have_prof;

static void reset(void)
{
    if (have_prof)
        profile_free(&prof);
    if (have_cfg)
        config_free(&cfg);
    have_cfg = have_prof = false;
    err = (struct rr_error){0};
}

static struct json_node *load_fixture(const char *name)
{
    char path[256];
    struct json_node *root = NULL;

    snprintf(path, sizeof(path), "tests/fixtures/engines/%s", name);
    if (json_parse_file(AT_FDCWD, path, &json_limits_config, &root, &err) < 0)
        tap_note("fixture %s: %s", name, err.msg);
    return root;
}

static struct json_node *frag(const char *text)
{
    struct json_node *n = NULL;
    struct rr_error e;

    if (json_parse(text, strlen(text), &json_limits_config, &n, &e) < 0)
        tap_note("test bug: %s: %s", text, e.msg);
    return n;
}

/* obj.key, added (NULL) when absent */
static struct json_node **member(struct json_node *obj, const char *key)
{
    size_t n = obj->u.object.n;

    for (size_t i = 0; i < n; i++)
        if (strcmp(obj->u.object.keys[i], key) == 0)
            return &obj->u.object.values[i];
    obj->u.object.keys = realloc(obj->u.object.keys, (n + 1) * sizeof(char *));
    obj->u.object.values = realloc(obj->u.object.values, (n + 1) * sizeof(void *));
    obj->u.object.keys[n] = strdup(key);
    obj->u.object.values[n] = NULL;
    obj->u.object.n++;
    return &obj->u.object.values[n];
}

/* Remove obj.key (present or not). */
static void drop(struct json_node *obj, const char *key)
{
    for (size_t i = 0; obj != NULL && i < obj->u.object.n; i++) {
        if (strcmp(obj->u.object.keys[i], key) != 0)
            continue;
        free(obj->u.object.keys[i]);
        json_free(obj->u.object.values[i]);
        obj->u.object.n--;
        memmove(&obj->u.object.keys[i], &obj->u.object.keys[i + 1],
                (obj->u.object.n - i) * sizeof(char *));
        memmove(&obj->u.object.values[i], &obj->u.object.values[i + 1],
                (obj->u.object.n - i) * sizeof(void *));
        return;
    }
}

/* Set a.b.c (objects only) to the JSON text value. */
static void set(struct json_node *root, const char *path, const char *value)
{
    struct json_node **at = &root;
    char key[64];

    while (*path != '\0') {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof(key), "%.*s", (int)n, path);
        if (*at == NULL)
            *at = frag("{}");
        at = member(*at, key);
        path += n + (path[n] == '.');
    }
    json_free(*at);
    *at = frag(value);
}

/* Parse root (consumed), point root.path at the test's directory, build. */
static int build(struct json_node *root)
{
    int r;

    reset();
    r = config_from_json(root, &cfg, &err);
    json_free(root);
    if (r < 0)
        return -1;
    have_cfg = true;
    free(cfg.root.path);
    cfg.root.path = strdup(rootfs);
    if (profile_build_engine(&cfg, "/bundle", policy, &prof, &err) < 0)
        return -1;
    have_prof = true;
    return 0;
}

static bool has_note(const char *want)
{
    for (size_t i = 0; have_prof && i < prof.notes.n; i++)
        if (strstr(prof.notes.v[i], want) != NULL)
            return true;
    tap_note("no note with \"%s\"", want);
    return false;
}

static bool refused_with(struct json_node *root, const char *want)
{
    if (build(root) == 0) {
        tap_note("accepted (wanted \"%s\")", want);
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("message \"%s\" lacks \"%s\"", err.msg, want);
        return false;
    }
    return true;
}

static void write_policy(const char *text)
{
    FILE *f = fopen(policy, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
        tap_note("cannot write %s", policy);
}

static uint64_t bit(const char *name)
{
    return 1ULL << rr_cap_by_name(name);
}

TEST(setup_dirs)
{
    CHECK(mkdtemp(rootfs) != NULL);
    snprintf(policy, sizeof(policy), "%s/policy.json", rootfs);
}

TEST(every_engine_fixture_is_accepted_with_the_floor)
{
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        struct json_node *root = load_fixture(fixtures[i]);
        if (!CHECK(root != NULL))
            continue;
        if (!CHECK(build(root) == 0)) {
            tap_note("%s: %s", fixtures[i], err.msg);
            continue;
        }
        CHECK(cfg.engine);
        /* the floor: a user namespace of revrun's, masks, the seccomp floor */
        CHECK(prof.clone_flags & CLONE_NEWUSER);
        CHECK(prof.eng.n_uid_map == 1 && prof.eng.uid_map[0].host_id == PROFILE_ENGINE_HOST_BASE);
        CHECK(strv_contains(&prof.masked, "/proc/kcore"));
        CHECK(strv_contains(&prof.readonly, "/proc/sys"));
        CHECK(prof.n_syscall_rules > 0);
        CHECK(has_note("\"user\" added"));
        /* never beyond the default set */
        for (int s = 0; s < 5; s++)
            CHECK((prof.eng.caps[s] & ~rr_caps_engine_default) == 0);
        CHECK(prof.eng.caps[1] & bit("CAP_CHOWN"));
    }
    reset();
}

TEST(docker_fields_are_honoured_or_tightened)
{
    CHECK(build(load_fixture("docker-run-d.json")) == 0);
    CHECK(cfg.n_hooks[RR_HOOK_PRESTART] == 1);
    CHECK(cfg.process.n_additional_gids == 1 && prof.eng.n_groups == 1);
    /* docker's ping range (0 2147483647) is kept within the mapped groups */
    CHECK(strv_contains(&prof.eng.sysctl_inside, "net.ipv4.ping_group_range=0 65535"));
    CHECK(has_note("ping_group_range"));
    CHECK(strv_contains(&prof.eng.sysctl_inside, "net.ipv4.ip_unprivileged_port_start=0"));
    for (size_t i = 0; i < prof.n_mounts; i++)
        if (strncmp(prof.mounts[i].destination, "/sys", 4) == 0)
            CHECK(prof.mounts[i].attr & MOUNT_ATTR_RDONLY);
    reset();
}

TEST(podman_fields_are_honoured)
{
    CHECK(build(load_fixture("podman-run-netns-path.json")) == 0);
    CHECK(cfg.process.has_umask && prof.eng.umask == 022);
    CHECK(prof.eng.join_flags & CLONE_NEWNET);
    CHECK(!(prof.clone_flags & CLONE_NEWNET));
    /* a joined network namespace: its sysctls are written host side, with
     * the group ids as the host sees the container's */
    CHECK(prof.eng.sysctl_joined.n == 1);
    /* and its sysfs is made host side, read-only, as runc mounts it */
    CHECK(has_note("made by revrun on the host side, in the joined network namespace"));
    for (size_t i = 0; i < prof.n_mounts; i++)
        if (prof.mounts[i].kind == MOUNT_SYSFS)
            CHECK(prof.mounts[i].host_made && (prof.mounts[i].attr & MOUNT_ATTR_RDONLY));
    reset();
}

TEST(the_review_profile_still_refuses_engine_fields)
{
    static const struct {
        const char *fixture, *want;
    } cases[] = {
        {"docker-run-d.json", "hooks: unknown or unsupported key"},
        {"containerd-ctr-run.json", "supplementary groups"},
        {"podman-run-network-none.json", "umask"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct json_node *root = load_fixture(cases[i].fixture);
        struct rr_config c;
        set(root, "revrun", "{\"lower\": \"/tmp\"}");
        CHECK(config_from_json(root, &c, &err) < 0);
        if (!CHECK(strstr(err.msg, cases[i].want) != NULL))
            tap_note("%s: %s", cases[i].fixture, err.msg);
        json_free(root);
    }
    {
        struct json_node *root = load_fixture("containerd-ctr-run.json");
        struct rr_config c;
        set(root, "revrun", "{\"lower\": \"/tmp\"}");
        set(root, "process.user", "{\"uid\": 0, \"gid\": 0}");
        CHECK(config_from_json(root, &c, &err) < 0);
        CHECK(strstr(err.msg, "grants the agent no capabilities") != NULL);
        json_free(root);
    }
}

TEST(capabilities_only_within_the_policy)
{
    struct json_node *root = load_fixture("containerd-ctr-run.json");
    const char *all = "{\"bounding\": [\"CAP_SYS_ADMIN\",\"CAP_CHOWN\",\"CAP_NET_ADMIN\","
                      "\"CAP_BPF\",\"CAP_BOGUS\"]}";

    set(root, "process.capabilities",
        "{\"bounding\": [\"CAP_SYS_ADMIN\",\"CAP_CHOWN\",\"CAP_NET_ADMIN\",\"CAP_BPF\"], "
        "\"effective\": [\"CAP_SYS_ADMIN\",\"CAP_CHOWN\",\"CAP_NET_ADMIN\"], "
        "\"permitted\": [\"CAP_SYS_ADMIN\",\"CAP_CHOWN\",\"CAP_NET_ADMIN\"]}");
    CHECK(build(root) == 0);
    CHECK(prof.eng.caps[0] == bit("CAP_CHOWN"));
    CHECK(prof.eng.caps[1] == bit("CAP_CHOWN"));
    CHECK(has_note("CAP_SYS_ADMIN"));
    /* a name the kernel has no number for is an error (the runtime spec's
     * MUST), not a silently narrower set */
    root = load_fixture("containerd-ctr-run.json");
    set(root, "process.capabilities", all);
    CHECK(refused_with(root, "process.capabilities.bounding[4]: unknown capability"));
    /* a policy may allow more, never the forbidden ones */
    write_policy("{\"engine\": {\"capabilities\": [\"CAP_NET_ADMIN\", \"CAP_CHOWN\"]}}");
    root = load_fixture("containerd-ctr-run.json");
    set(root, "process.capabilities",
        "{\"bounding\": [\"CAP_SYS_ADMIN\",\"CAP_NET_ADMIN\",\"CAP_KILL\"], \"permitted\": "
        "[\"CAP_NET_ADMIN\",\"CAP_KILL\"], \"effective\": [\"CAP_NET_ADMIN\"]}");
    CHECK(build(root) == 0);
    CHECK(prof.eng.caps[0] == bit("CAP_NET_ADMIN"));
    CHECK(prof.eng.caps[1] == bit("CAP_NET_ADMIN"));
    write_policy("{\"engine\": {\"capabilities\": [\"CAP_SYS_ADMIN\"]}}");
    CHECK(refused_with(load_fixture("containerd-ctr-run.json"), "never granted"));
    write_policy("{\"engine\": {\"capabilites\": []}}");
    CHECK(refused_with(load_fixture("containerd-ctr-run.json"), "unknown or unsupported key"));
    unlink(policy);
    reset();
}

TEST(namespaces_mappings_and_identity)
{
    struct json_node *root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.namespaces", "[{\"type\": \"user\", \"path\": \"/proc/1/ns/user\"}]");
    CHECK(refused_with(root, "always its own"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.namespaces", "[{\"type\": \"mount\"}]");
    CHECK(build(root) == 0);
    CHECK((prof.clone_flags & (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                               CLONE_NEWUTS | CLONE_NEWNS)) ==
          (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNS));
    CHECK(has_note("\"network\" added"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.uidMappings", "[{\"containerID\": 0, \"hostID\": 0, \"size\": 65536}]");
    CHECK(refused_with(root, "host uid 0 is never mapped"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "process.user", "{\"uid\": 0, \"gid\": 0, \"additionalGids\": [70000]}");
    CHECK(refused_with(root, "is not mapped"));
    /* a joined UTS namespace keeps its names; said */
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.namespaces", "[{\"type\": \"uts\", \"path\": \"/proc/1/ns/uts\"}]");
    set(root, "hostname", "\"x\"");
    CHECK(build(root) == 0);
    CHECK((prof.eng.join_flags & CLONE_NEWUTS) && !(prof.clone_flags & CLONE_NEWUTS));
    CHECK(has_note("UTS namespace is joined"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "process.noNewPrivileges", "false");
    set(root, "process.oomScoreAdj", "-500");
    CHECK(build(root) == 0);
    CHECK(has_note("noNewPrivileges: false tightened to true"));
    CHECK(prof.eng.no_new_privs);
    CHECK(prof.eng.oom_score_adj == 0 && has_note("oomScoreAdj"));
    reset();
}

/* review2 F9: an engine's mappings never name a real or system user's
 * host id, a review's (hostIds) or an engine container's block
 * (engineIds); a policy whose hostIds and engineIds meet is refused. */
TEST(engine_mappings_stay_off_users_reviews_and_engine_blocks)
{
    static const struct {
        const char *host_id, *want;
    } cases[] = {
        {"1000", "below 65536"},
        {"1", "below 65536"},
        {"65535", "below 65536"},
        {"2000000000", "hostIds (reviews' ids)"},
        {"1999990000", "hostIds (reviews' ids)"},       /* its end reaches the range */
        {"2100000000", "engineIds (engine containers' blocks)"},
        {"2100131072", "engineIds (engine containers' blocks)"},
    };
    struct json_node *root;
    char map[160];

    unlink(policy);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        root = load_fixture("containerd-ctr-run.json");
        snprintf(map, sizeof(map), "[{\"containerID\": 0, \"hostID\": %s, \"size\": 65536}]",
                 cases[i].host_id);
        set(root, "linux.uidMappings", map);
        if (!CHECK(refused_with(root, cases[i].want)))
            tap_note("hostID %s", cases[i].host_id);
        root = load_fixture("containerd-ctr-run.json");
        set(root, "linux.gidMappings", map);
        CHECK(refused_with(root, "linux.gidMappings[0]"));
    }
    /* a subordinate range of the engine's own is honoured, owning the namespace */
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.uidMappings", "[{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]");
    set(root, "linux.gidMappings", "[{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]");
    CHECK(build(root) == 0);
    CHECK(prof.eng.uid_map[0].host_id == 100000 && prof.eng.ns_owner == 100000);
    /* the policy's ranges move the walls */
    write_policy("{\"hostIds\": {\"first\": 90000, \"count\": 65536}}");
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.uidMappings", "[{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]");
    CHECK(refused_with(root, "hostIds (reviews' ids) 90000-155535"));
    /* and never meet each other */
    write_policy("{\"hostIds\": {\"first\": 2100065536, \"count\": 1}}");
    CHECK(refused_with(load_fixture("containerd-ctr-run.json"), "overlaps engineIds"));
    write_policy("{\"engineIds\": {\"first\": 1999998976, \"count\": 65536}}");
    CHECK(refused_with(load_fixture("containerd-ctr-run.json"), "overlaps engineIds"));
    write_policy("{\"engineIds\": {\"first\": 3000000000, \"count\": 65537}}");
    CHECK(refused_with(load_fixture("containerd-ctr-run.json"), "whole number of blocks"));
    write_policy("{\"engineIds\": {\"first\": 3000000000, \"count\": 131072}}");
    CHECK(build(load_fixture("containerd-ctr-run.json")) == 0);
    /* without mappings: the first block of the range (create takes its own) */
    CHECK(prof.eng.uid_map[0].host_id == 3000000000u && prof.eng.ns_owner == 3000000000u);
    unlink(policy);
    reset();
}

TEST(no_new_privs_forced_unless_the_policy_lets_the_config_decide)
{
    static const struct {
        const char *policy; /* NULL: no file */
        const char *nnp;    /* NULL: absent */
        bool want;
    } cases[] = {
        {NULL, "false", true},
        {NULL, NULL, true},
        {"{\"engine\": {}}", "false", true},
        {"{\"engine\": {\"noNewPrivileges\": \"force\"}}", "false", true},
        {"{\"engine\": {\"noNewPrivileges\": \"config\"}}", "false", false},
        {"{\"engine\": {\"noNewPrivileges\": \"config\"}}", NULL, false},
        {"{\"engine\": {\"noNewPrivileges\": \"config\"}}", "true", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct json_node *root = load_fixture("containerd-ctr-run.json");
        unlink(policy);
        if (cases[i].policy != NULL)
            write_policy(cases[i].policy);
        if (cases[i].nnp != NULL)
            set(root, "process.noNewPrivileges", cases[i].nnp);
        else
            drop((struct json_node *)json_get(root, "process"), "noNewPrivileges");
        if (!CHECK(build(root) == 0)) {
            tap_note("case %zu: %s", i, err.msg);
            continue;
        }
        if (!CHECK(prof.eng.no_new_privs == cases[i].want))
            tap_note("case %zu", i);
        if (!cases[i].want)
            CHECK(has_note("noNewPrivileges: ") && has_note("honoured"));
    }
    write_policy("{\"engine\": {\"noNewPrivileges\": false}}");
    CHECK(refused_with(load_fixture("containerd-ctr-run.json"), "engine.noNewPrivileges"));
    write_policy("{\"engine\": {\"noNewPrivileges\": \"off\"}}");
    CHECK(refused_with(load_fixture("containerd-ctr-run.json"), "\"force\" or \"config\""));
    unlink(policy);
    /* the review profile never reads the policy: test_profile.c
     * no_new_privileges_cannot_be_turned_off, engine_oci.bats "review profile" */
    reset();
}

TEST(sysctls_only_in_the_containers_namespaces)
{
    static const char *const refused[] = {"kernel.panic", "net.core.somaxconn", "vm.swappiness",
                                          "kernel.pid_max"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        struct json_node *root = load_fixture("containerd-ctr-run.json");
        char obj[128];
        snprintf(obj, sizeof(obj), "{\"%s\": \"1\"}", refused[i]);
        set(root, "linux.sysctl", obj);
        CHECK(refused_with(root, "not in a namespace of the container's"));
    }
    struct json_node *root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.sysctl", "{\"../../kernel/panic\": \"1\"}");
    CHECK(refused_with(root, "not a sysctl name"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.sysctl", "{\"kernel.shmmax\": \"65536\", \"kernel.domainname\": \"x\"}");
    CHECK(build(root) == 0);
    CHECK(prof.eng.sysctl_inside.n == 2);
    reset();
}

/* cpu.cpus and cpu.mems: carried to cgroup_create as lists of numbers
 * and ranges, nothing else (they are written into a cgroup file); the
 * real-time budget, a grant, is tightened to none and said. */
TEST(cpuset_lists_and_realtime)
{
    static const char *const bad[] = {"\"0;1\"", "\"-1\"", "\"1-\"", "\"0 1\"", "\"a\"",
                                      "\"0\\n1\"", "1"};
    struct json_node *root = load_fixture("containerd-ctr-run.json");

    set(root, "linux.resources.cpu.cpus", "\"0-1,3\"");
    set(root, "linux.resources.cpu.mems", "\"0\"");
    CHECK(build(root) == 0);
    CHECK(strcmp(prof.resources.cpuset_cpus, "0-1,3") == 0);
    CHECK(strcmp(prof.resources.cpuset_mems, "0") == 0);
    CHECK(!prof.resources.cpu_realtime);
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.resources.cpu.cpus", "\"\"");
    CHECK(build(root) == 0 && prof.resources.cpuset_cpus[0] == '\0');
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        root = load_fixture("containerd-ctr-run.json");
        set(root, "linux.resources.cpu.mems", bad[i]);
        if (!CHECK(refused_with(root, "linux.resources.cpu.mems")))
            tap_note("case %s", bad[i]);
    }
    root = load_fixture("containerd-ctr-run.json");
    {
        char long_list[RR_CPUSET_MAX + 8];
        memset(long_list, '1', sizeof(long_list));
        long_list[0] = '"';
        long_list[sizeof(long_list) - 2] = '"';
        long_list[sizeof(long_list) - 1] = '\0';
        set(root, "linux.resources.cpu.cpus", long_list);
        CHECK(refused_with(root, "longer than"));
    }
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.resources.cpu.realtimeRuntime", "950000");
    set(root, "linux.resources.cpu.realtimePeriod", "1000000");
    CHECK(build(root) == 0 && prof.resources.cpu_realtime);
    CHECK(has_note("realtimeRuntime/realtimePeriod: not applied"));
    reset();
}

TEST(mounts_and_resources)
{
    struct json_node *root = load_fixture("containerd-ctr-run.json");
    set(root, "mounts",
        "[{\"destination\": \"/x\", \"source\": \"/tmp\", \"options\": [\"rbind\", "
        "\"strictatime\"]}, {\"destination\": \"/y\", \"type\": \"tmpfs\", \"source\": \"shm\", "
        "\"options\": [\"noatime\"]}]");
    CHECK(build(root) == 0);
    CHECK(prof.n_mounts == 2 && prof.mounts[0].kind == MOUNT_BIND && prof.mounts[0].recursive);
    CHECK(!(prof.mounts[0].attr & MOUNT_ATTR_RDONLY)); /* engine binds: rw unless ro */
    CHECK(prof.mounts[0].attr & MOUNT_ATTR_STRICTATIME);
    CHECK(prof.mounts[1].fs_source != NULL && strcmp(prof.mounts[1].fs_source, "shm") == 0);
    root = load_fixture("containerd-ctr-run.json");
    set(root, "mounts", "[{\"destination\": \"/x\", \"source\": \"/tmp\"}]");
    CHECK(refused_with(root, "required unless the options say bind"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "mounts", "[{\"destination\": \"/x\", \"type\": \"ext4\", \"source\": \"/dev/sda\"}]");
    CHECK(refused_with(root, "refused"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.resources.cpu.idle", "1");
    CHECK(refused_with(root, "linux.resources.cpu.idle: refused"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.resources.memory", "{\"disableOOMKiller\": true}");
    CHECK(build(root) == 0);
    /* carried to cgroup_create (v1 memory.oom_control); v2 has no switch */
    CHECK(prof.resources.disable_oom_killer);
    if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
        CHECK(has_note("disableOOMKiller: not applied on cgroup v2"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.resources.devices", "[{\"allow\": false, \"access\": \"rwm\"}, {\"allow\": "
                                         "true, \"type\": \"c\", \"major\": 1, \"minor\": 3, "
                                         "\"access\": \"rwm\"}, {\"allow\": false, \"type\": "
                                         "\"c\", \"major\": 1, \"minor\": 7}, {\"allow\": "
                                         "true, \"type\": \"b\", \"access\": \"m\"}]");
    CHECK(build(root) == 0);
    /* the runtime spec's default devices keep their nodes whatever the rules */
    CHECK(prof.dev_allowed == ~0u);
    {
        char mnt[4096];
        if (cgroup_devices_v1_mount(mnt, sizeof(mnt))) {
            /* in order after a deny of all; the defaults allowed again (as
             * runc) but the one a rule denies by number; wildcards not */
            const struct rr_strv *d = &prof.eng.device_rules;
            CHECK(d->n > 0 && strcmp(d->v[0], "deny a") == 0);
            CHECK(strv_contains(d, "allow c 1:3 rwm") && strv_contains(d, "deny c 1:7 rwm"));
            CHECK(strv_contains(d, "allow c 1:9 rwm") && strv_contains(d, "allow c 136:* rwm"));
            CHECK(!strv_contains(d, "allow c 1:7 rwm") && !strv_contains(d, "allow b *:* m"));
            CHECK(has_note("denied by the rules (the v1 devices controller): c 1:7"));
            CHECK(has_note("allow \"b *:* m\" not applied"));
        } else {
            CHECK(prof.eng.device_rules.n == 0);
            CHECK(has_note("not applied by a cgroup"));
        }
    }
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.cgroupsPath", "\"kubepods/pod1/c1\"");
    CHECK(build(root) == 0);
    CHECK(strcmp(prof.cgroups_path, "/revrun-engine/kubepods/pod1/c1") == 0);
    /* review2 F4: no climbing out of /revrun-engine (delete removes the
     * empty parents there as revrun's), no root, no empty component */
    static const char *const bad_cgp[] = {"\"../x\"", "\"a/../../x\"", "\"/a/../b\"",
                                          "\"./a\"", "\"a//b\"", "\"a/\"", "\"/\"", "\"\"",
                                          "\"..\"", "\"/a/.\""};
    for (size_t i = 0; i < sizeof(bad_cgp) / sizeof(bad_cgp[0]); i++) {
        root = load_fixture("containerd-ctr-run.json");
        set(root, "linux.cgroupsPath", bad_cgp[i]);
        if (!CHECK(refused_with(root, "components are refused")))
            tap_note("cgroupsPath %s", bad_cgp[i]);
    }
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.cgroupsPath", "\"/kubepods/..pod.1/c1\"");
    CHECK(build(root) == 0 && strcmp(prof.cgroups_path, "/kubepods/..pod.1/c1") == 0);
    root = load_fixture("containerd-ctr-run.json");
    set(root, "linux.cgroupsPath", "\"system.slice:docker:abc\"");
    CHECK(build(root) == 0);
    /* an unknown top-level property is ignored and named (the runtime
     * spec's MUST); inside what confines, unknown keys are still refused */
    root = load_fixture("containerd-ctr-run.json");
    set(root, "foo", "{\"capabilities\": [\"CAP_SYS_ADMIN\"]}");
    CHECK(build(root) == 0);
    CHECK(has_note("unknown top-level properties ignored") && has_note(": foo"));
    CHECK((prof.eng.caps[0] & bit("CAP_SYS_ADMIN")) == 0);
    static const char *const inner[] = {"process.foo", "linux.foo", "root.foo",
                                        "linux.resources.foo"};
    for (size_t i = 0; i < sizeof(inner) / sizeof(inner[0]); i++) {
        root = load_fixture("containerd-ctr-run.json");
        set(root, inner[i], "1");
        CHECK(refused_with(root, "unknown or unsupported key"));
    }
    root = load_fixture("containerd-ctr-run.json");
    set(root, "mounts", "[{\"destination\": \"/x\", \"type\": \"tmpfs\", \"source\": "
                        "\"tmpfs\", \"foo\": 1}]");
    CHECK(refused_with(root, "unknown or unsupported key"));
    root = load_fixture("containerd-ctr-run.json");
    set(root, "annotations", "{\"io.revrun.chekout\": \"/w\"}");
    CHECK(refused_with(root, "unknown revrun annotation"));
    reset();
    rmdir(rootfs);
}
