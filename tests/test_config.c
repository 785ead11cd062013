/* config.json -> struct rr_config (bundle/config_*.c, jfield.c) and back
 * (config_write.c). Every refusal is checked for the JSON path and the
 * problem it names, starting from one valid config edited in one place. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bundle/config.h"
#include "bundle/json.h"
#include "runtime/confine/profile/profile.h"
#include "tests/tap.h"

/* Uses every section; mounts[0] proc, [1] tmpfs, [2] bind; seccomp
 * syscalls[1] has argument conditions. */
static const char base[] =
    "{\"ociVersion\": \"1.0.2\","
    " \"process\": {\"terminal\": false, \"user\": {\"uid\": 1000, \"gid\": 1000},"
    "   \"args\": [\"sh\", \"-c\", \"true\"], \"env\": [\"A=1\", \"B=\"], \"cwd\": \"/workspace\","
    "   \"capabilities\": {\"bounding\": [], \"effective\": []},"
    "   \"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"soft\": 1024, \"hard\": 4096}],"
    "   \"noNewPrivileges\": true},"
    " \"root\": {\"path\": \"rootfs\", \"readonly\": true},"
    " \"hostname\": \"revrun\","
    " \"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"},"
    "   {\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": "
    "[\"size=1m\"]},"
    "   {\"destination\": \"/usr\", \"type\": \"bind\", \"source\": \"/usr\", \"options\": "
    "[\"rbind\", \"ro\"]}],"
    " \"linux\": {\"namespaces\": [{\"type\": \"user\"}, {\"type\": \"mount\"}, {\"type\": "
    "\"pid\"},"
    "     {\"type\": \"network\"}, {\"type\": \"ipc\"}, {\"type\": \"uts\"}, {\"type\": "
    "\"cgroup\"}],"
    "   \"uidMappings\": [{\"containerID\": 1000, \"hostID\": 2000000000, \"size\": 1}],"
    "   \"gidMappings\": [{\"containerID\": 1000, \"hostID\": 2000000000, \"size\": 1}],"
    "   \"resources\": {\"memory\": {\"limit\": 1048576, \"swap\": 2097152}, \"pids\": {\"limit\": "
    "64},"
    "     \"cpu\": {\"quota\": 50000, \"period\": 100000}},"
    "   \"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": "
    "[\"SCMP_ARCH_X86_64\"],"
    "     \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"},"
    "       {\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\","
    "        \"args\": [{\"index\": 0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}]},"
    "   \"maskedPaths\": [\"/proc/kcore\"], \"readonlyPaths\": [\"/proc/sys\"],"
    "   \"cgroupsPath\": \"/revrun/t\"},"
    " \"annotations\": {\"anything.goes/here\": \"x\"},"
    " \"revrun\": {\"lower\": \"/src/checkout\", \"checkoutPath\": \"/workspace\","
    "   \"overlay\": \"auto\", \"upperSize\": \"64M\", \"timeout\": 60, \"network\": \"none\","
    "   \"bestEffort\": [\"memory\"],"
    "   \"writeback\": {\"protect\": [\".git/**\"], \"maxFiles\": 10, \"maxDepth\": 8},"
    "   \"egress\": {\"mode\": \"none\"}}}";

/* A working broker section for the egress cases. */
static const char broker[] = "{\"mode\": \"broker\", \"upstream\": \"https://api.example.com\","
                             " \"credentialEnv\": \"KEY\", \"port\": 8080}";

static struct rr_error err;
static struct rr_config cfg;
static bool cfg_loaded;

static struct json_node *frag(const char *text)
{
    struct json_node *n = NULL;
    struct rr_error e;

    if (json_parse(text, strlen(text), &json_limits_config, &n, &e) < 0)
        tap_note("test bug: %s: %s", text, e.msg);
    return n;
}

/* The member key of obj, appended (value NULL) when absent. */
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

/* The slot at path ("a.b[2].c") below *at. */
static struct json_node **slot(struct json_node **at, const char *path)
{
    while (*path != '\0') {
        if (*path == '[') {
            char *end;
            size_t i = strtoul(path + 1, &end, 10);
            at = &(*at)->u.array.items[i];
            path = end + 1;
        } else {
            char key[64];
            size_t n;
            path += *path == '.';
            n = strcspn(path, ".[");
            snprintf(key, sizeof(key), "%.*s", (int)n, path);
            at = member(*at, key);
            path += n;
        }
    }
    return at;
}

/* Remove the last key of path from its object. */
static void drop(struct json_node *root, const char *path)
{
    const char *dot = strrchr(path, '.');
    char parent[128];
    struct json_node *obj = root;

    if (dot != NULL) {
        snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
        obj = *slot(&root, parent);
    }
    (void)member(obj, dot ? dot + 1 : path);
    for (size_t i = 0; i < obj->u.object.n; i++) {
        if (strcmp(obj->u.object.keys[i], dot ? dot + 1 : path) != 0)
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

/* Load base with path set to value (JSON text; NULL removes the key);
 * path NULL loads base as is. */
static int load_edited(const char *path, const char *value)
{
    struct json_node *root = frag(base);
    int r;

    if (cfg_loaded)
        config_free(&cfg);
    cfg_loaded = false;
    err = (struct rr_error){0};
    if (path != NULL && value == NULL) {
        drop(root, path);
    } else if (path != NULL) {
        struct json_node **s = slot(&root, path);
        json_free(*s);
        *s = frag(value);
    }
    r = config_from_json(root, &cfg, &err);
    json_free(root);
    cfg_loaded = r == 0;
    return r;
}

static bool refused(const char *path, const char *value, const char *want)
{
    if (load_edited(path, value) == 0) {
        tap_note("accepted %s = %s", path, value ? value : "(removed)");
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("%s = %s: message \"%s\" lacks \"%s\"", path, value ? value : "(removed)", err.msg,
                 want);
        return false;
    }
    return true;
}

static bool accepted(const char *path, const char *value)
{
    if (load_edited(path, value) < 0) {
        tap_note("refused %s = %s: %s", path ? path : "(base)", value ? value : "(removed)",
                 err.msg);
        return false;
    }
    return true;
}

struct edit {
    const char *path, *value, *want;
};

/* Each edit alone is refused with its message. */
static void all_refused(const struct edit *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK(refused(e[i].path, e[i].value, e[i].want));
}

#define ALL_REFUSED(table) all_refused(table, sizeof(table) / sizeof(table[0]))

TEST(the_base_config_loads_in_full)
{
    if (!CHECK(accepted(NULL, NULL)))
        return;
    CHECK(strcmp(cfg.oci_version, "1.0.2") == 0);
    CHECK(cfg.process.uid == 1000 && cfg.process.gid == 1000 && cfg.process.args.n == 3);
    CHECK(cfg.process.args.v[3] == NULL); /* execve-ready */
    CHECK(cfg.process.env.n == 2 && strcmp(cfg.process.env.v[1], "B=") == 0);
    CHECK(cfg.process.n_rlimits == 1 && cfg.process.rlimits[0].resource == RLIMIT_NOFILE &&
          cfg.process.rlimits[0].soft == 1024 && cfg.process.rlimits[0].hard == 4096);
    CHECK(cfg.process.no_new_privileges && cfg.process.has_no_new_privileges);
    CHECK(cfg.root.readonly && strcmp(cfg.root.path, "rootfs") == 0);
    CHECK(cfg.n_mounts == 3 && strcmp(cfg.mounts[2].source, "/usr") == 0 &&
          cfg.mounts[2].options.n == 2);
    CHECK(cfg.linux.namespaces == (RR_NS_USER | RR_NS_MOUNT | RR_NS_PID | RR_NS_NET | RR_NS_IPC |
                                   RR_NS_UTS | RR_NS_CGROUP));
    CHECK(cfg.linux.n_uid_mappings == 1 && cfg.linux.uid_mappings[0].host_id == 2000000000u);
    CHECK(cfg.linux.resources.memory_limit == 1048576 && cfg.linux.resources.pids_limit == 64);
    CHECK(cfg.linux.seccomp.present && cfg.linux.seccomp.default_action == RR_SCMP_ERRNO &&
          cfg.linux.seccomp.default_errno == 1 /* EPERM */ && cfg.linux.seccomp.n_rules == 2 &&
          cfg.linux.seccomp.rules[1].n_args == 1);
    CHECK(strcmp(cfg.revrun.lower, "/src/checkout") == 0 && cfg.revrun.upper_size == 64u << 20);
    CHECK(cfg.revrun.timeout_seconds == 60 && cfg.revrun.network == RR_NET_NONE);
    CHECK(cfg.revrun.writeback.max_files == 10 && cfg.revrun.writeback.max_depth == 8);
    /* Defaults where the config says nothing. */
    CHECK(cfg.revrun.writeback.max_name_bytes == 255 && cfg.revrun.egress.mode == RR_EGRESS_NONE);
    CHECK(accepted("revrun.checkoutPath", NULL) &&
          strcmp(cfg.revrun.checkout_path, "/workspace") == 0);
    CHECK(accepted("revrun.upperSize", NULL) && cfg.revrun.upper_size == 1ULL << 30);
    CHECK(accepted("linux", NULL) && cfg.linux.resources.memory_limit == RR_UNSET &&
          !cfg.linux.seccomp.present);
}

/* text -> config -> text */
static char *reserialise(const char *text)
{
    struct json_node *root = NULL;
    struct rr_config c;
    char *out = NULL;

    if (json_parse(text, strlen(text), &json_limits_config, &root, &err) < 0)
        return NULL;
    if (config_from_json(root, &c, &err) == 0) {
        if (config_to_json(&c, &out, &err) < 0)
            out = NULL;
        config_free(&c);
    }
    json_free(root);
    return out;
}

static bool str_eq(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool strv_eq(const struct rr_strv *a, const struct rr_strv *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return false;
    return true;
}

static bool mounts_eq(const struct rr_config *a, const struct rr_config *b)
{
    if (a->n_mounts != b->n_mounts)
        return false;
    for (size_t i = 0; i < a->n_mounts; i++)
        if (!str_eq(a->mounts[i].destination, b->mounts[i].destination) ||
            !str_eq(a->mounts[i].type, b->mounts[i].type) ||
            !str_eq(a->mounts[i].source, b->mounts[i].source) ||
            !strv_eq(&a->mounts[i].options, &b->mounts[i].options))
            return false;
    return true;
}

static bool seccomp_eq(const struct rr_seccomp *a, const struct rr_seccomp *b)
{
    if (a->present != b->present || a->default_action != b->default_action ||
        a->default_errno != b->default_errno || !strv_eq(&a->architectures, &b->architectures) ||
        a->n_rules != b->n_rules)
        return false;
    for (size_t i = 0; i < a->n_rules; i++) {
        const struct rr_seccomp_rule *x = &a->rules[i], *y = &b->rules[i];
        if (!strv_eq(&x->names, &y->names) || x->action != y->action ||
            x->errno_ret != y->errno_ret || x->n_args != y->n_args ||
            memcmp(x->args, y->args, x->n_args * sizeof(x->args[0])) != 0)
            return false;
    }
    return true;
}

static bool egress_eq(const struct rr_egress *a, const struct rr_egress *b)
{
    return a->mode == b->mode && str_eq(a->upstream, b->upstream) &&
           strv_eq(&a->allow, &b->allow) && str_eq(a->credential_file, b->credential_file) &&
           str_eq(a->credential_env, b->credential_env) && str_eq(a->header, b->header) &&
           str_eq(a->header_prefix, b->header_prefix) && a->port == b->port &&
           strv_eq(&a->base_url_env, &b->base_url_env);
}

static bool home_files_eq(const struct rr_config *a, const struct rr_config *b)
{
    if (a->revrun.n_home_files != b->revrun.n_home_files)
        return false;
    for (size_t i = 0; i < a->revrun.n_home_files; i++)
        if (!str_eq(a->revrun.home_files[i].path, b->revrun.home_files[i].path) ||
            !str_eq(a->revrun.home_files[i].content, b->revrun.home_files[i].content))
            return false;
    return true;
}

static bool revrun_eq(const struct rr_config *a, const struct rr_config *b)
{
    const struct rr_writeback_policy *x = &a->revrun.writeback, *y = &b->revrun.writeback;

    return str_eq(a->revrun.lower, b->revrun.lower) &&
           str_eq(a->revrun.checkout_path, b->revrun.checkout_path) &&
           a->revrun.overlay == b->revrun.overlay && a->revrun.upper_size == b->revrun.upper_size &&
           a->revrun.timeout_seconds == b->revrun.timeout_seconds &&
           a->revrun.min_free_space == b->revrun.min_free_space &&
           a->revrun.nested_sandboxes == b->revrun.nested_sandboxes &&
           a->revrun.ptrace == b->revrun.ptrace && a->revrun.network == b->revrun.network &&
           strv_eq(&a->revrun.best_effort, &b->revrun.best_effort) &&
           strv_eq(&x->protect, &y->protect) && strv_eq(&x->warn, &y->warn) &&
           x->max_files == y->max_files && x->max_file_bytes == y->max_file_bytes &&
           x->max_total_bytes == y->max_total_bytes && x->max_depth == y->max_depth &&
           x->max_name_bytes == y->max_name_bytes && x->max_path_bytes == y->max_path_bytes &&
           egress_eq(&a->revrun.egress, &b->revrun.egress) && str_eq(a->revrun.home, b->revrun.home) &&
           home_files_eq(a, b) && strv_eq(&a->revrun.artifacts, &b->revrun.artifacts) &&
           a->revrun.git_worktree_hide == b->revrun.git_worktree_hide;
}

/* memcmp of two arrays of n items; with n == 0 either may be NULL (a
 * config without mappings, as root's spec now writes), which memcmp's
 * contract does not allow. */
static bool array_eq(const void *a, const void *b, size_t bytes)
{
    return bytes == 0 || memcmp(a, b, bytes) == 0;
}

/* Every field of the struct, so that a writer that drops one is caught. */
static bool config_eq(const struct rr_config *a, const struct rr_config *b)
{
    return str_eq(a->oci_version, b->oci_version) && a->process.terminal == b->process.terminal &&
           a->process.uid == b->process.uid && a->process.gid == b->process.gid &&
           strv_eq(&a->process.args, &b->process.args) &&
           strv_eq(&a->process.env, &b->process.env) && str_eq(a->process.cwd, b->process.cwd) &&
           a->process.n_rlimits == b->process.n_rlimits &&
           array_eq(a->process.rlimits, b->process.rlimits,
                    a->process.n_rlimits * sizeof(a->process.rlimits[0])) &&
           a->process.no_new_privileges == b->process.no_new_privileges &&
           str_eq(a->root.path, b->root.path) && a->root.readonly == b->root.readonly &&
           str_eq(a->hostname, b->hostname) && mounts_eq(a, b) &&
           a->linux.namespaces == b->linux.namespaces &&
           a->linux.n_uid_mappings == b->linux.n_uid_mappings &&
           array_eq(a->linux.uid_mappings, b->linux.uid_mappings,
                    a->linux.n_uid_mappings * sizeof(a->linux.uid_mappings[0])) &&
           a->linux.n_gid_mappings == b->linux.n_gid_mappings &&
           array_eq(a->linux.gid_mappings, b->linux.gid_mappings,
                    a->linux.n_gid_mappings * sizeof(a->linux.gid_mappings[0])) &&
           memcmp(&a->linux.resources, &b->linux.resources, sizeof(a->linux.resources)) == 0 &&
           seccomp_eq(&a->linux.seccomp, &b->linux.seccomp) &&
           strv_eq(&a->linux.masked_paths, &b->linux.masked_paths) &&
           strv_eq(&a->linux.readonly_paths, &b->linux.readonly_paths) &&
           str_eq(a->linux.cgroups_path, b->linux.cgroups_path) && revrun_eq(a, b);
}

/* cfg -> text -> a second struct equal to cfg in every field. */
static bool round_trips(const struct rr_config *c)
{
    struct json_node *root = NULL;
    struct rr_config back;
    char *text = NULL;
    bool same = false;

    if (config_to_json(c, &text, &err) < 0 ||
        json_parse(text, strlen(text), &json_limits_config, &root, &err) < 0) {
        free(text);
        return false;
    }
    if (config_from_json(root, &back, &err) == 0) {
        same = config_eq(c, &back);
        config_free(&back);
    }
    json_free(root);
    free(text);
    return same;
}

TEST(the_default_spec_round_trips)
{
    for (int rootless = 0; rootless < 2; rootless++) {
        struct rr_config c;
        char *first = NULL, *second;

        if (!CHECK(profile_default_config(&c, "/src/checkout", rootless, &err) == 0))
            return;
        CHECK(config_to_json(&c, &first, &err) == 0);
        CHECK(round_trips(&c));
        config_free(&c);
        if (first == NULL)
            return;
        second = reserialise(first);
        CHECK(second != NULL && strcmp(first, second) == 0);
        if (second == NULL)
            tap_note("%s", err.msg);
        free(first);
        free(second);
    }
}

TEST(a_full_config_round_trips_with_seccomp_and_uint64_max)
{
    struct json_node *root = frag(base);
    char *first, *second;

    /* The base with every field away from its default, and values at the
     * edges of their ranges. */
    static const char *const edits[][2] = {
        {"process.rlimits[0]", "{\"type\": \"RLIMIT_AS\", \"soft\": 18446744073709551615, "
                               "\"hard\": 18446744073709551615}"},
        {"process.terminal", "true"},
        {"root.readonly", "false"},
        {"linux.seccomp.defaultErrnoRet", "38"},
        {"linux.seccomp.syscalls[0].errnoRet", "13"},
        {"linux.seccomp.syscalls[1].args[0]",
         "{\"index\": 5, \"value\": 18446744073709551615, \"valueTwo\": 7, \"op\": "
         "\"SCMP_CMP_MASKED_EQ\"}"},
        {"revrun.overlay", "\"native\""},
        {"revrun.network", "\"host\""},
        {"revrun.nestedSandboxes", "true"},
        {"revrun.ptrace", "true"},
        {"revrun.minFreeSpace", "\"1G\""},
        {"revrun.writeback",
         "{\"protect\": [\"a\"], \"warn\": [\"b\", \"c\"], \"maxFiles\": 3, \"maxFileBytes\": 4,"
         " \"maxTotalBytes\": 5, \"maxDepth\": 6, \"maxNameBytes\": 7, \"maxPathBytes\": 8}"},
        {"revrun.egress",
         "{\"mode\": \"broker\", \"upstream\": \"https://a.example:8443\", \"allow\": [\"/x/\", "
         "\"/y\"],"
         " \"credentialFile\": \"/run/key\", \"header\": \"authorization\","
         " \"headerPrefix\": \"Bearer \", \"port\": 65535, \"baseUrlEnv\": [\"BASE\", \"B2\"]}"},
        {"revrun.home", "\"/srv/seed\""},
        {"revrun.homeFiles", "{\".x/config.toml\": \"a = 1\\n\", \"b\": \"\"}"},
        {"revrun.artifacts", "[\"~/.x/sessions\", \"~/log\"]"},
        {"revrun.git", "{\"worktree\": \"hide\"}"},
    };

    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        struct json_node **at = slot(&root, edits[i][0]);
        json_free(*at);
        *at = frag(edits[i][1]);
    }
    err = (struct rr_error){0};
    if (cfg_loaded)
        config_free(&cfg);
    cfg_loaded = config_from_json(root, &cfg, &err) == 0;
    json_free(root);
    if (!CHECK(cfg_loaded))
        return;
    CHECK(cfg.process.rlimits[0].soft == UINT64_MAX);
    CHECK(cfg.revrun.n_home_files == 2 && cfg.revrun.artifacts.n == 2 &&
          cfg.revrun.egress.base_url_env.n == 2);
    CHECK(round_trips(&cfg));
    CHECK(config_to_json(&cfg, &first, &err) == 0);
    /* linux.seccomp is written back: a snapshot does not lose it. */
    CHECK(strstr(first, "\"SCMP_CMP_MASKED_EQ\"") != NULL &&
          strstr(first, "\"defaultAction\": \"SCMP_ACT_ERRNO\"") != NULL);
    CHECK(strstr(first, "18446744073709551615") != NULL);
    second = reserialise(first);
    CHECK(second != NULL && strcmp(first, second) == 0);
    free(first);
    free(second);
}

TEST(wrong_types_name_path_and_types)
{
    static const struct edit bad[] = {
        {"process", "[]", "process: expected object, got array"},
        {"process.terminal", "\"yes\"", "process.terminal: expected boolean, got string"},
        {"process.user", "1", "process.user: expected object, got integer"},
        {"process.user.uid", "\"1000\"", "process.user.uid: expected integer, got string"},
        {"process.args", "\"sh\"", "process.args: expected array, got string"},
        {"process.args[1]", "1", "process.args[1]: expected string, got integer"},
        {"process.env[0]", "null", "process.env[0]: expected string, got null"},
        {"process.cwd", "[]", "process.cwd: expected string, got array"},
        {"process.rlimits", "{}", "process.rlimits: expected array, got object"},
        {"process.rlimits[0]", "\"x\"", "process.rlimits[0]: expected object"},
        {"process.noNewPrivileges", "1", "process.noNewPrivileges: expected boolean"},
        {"process.capabilities", "[]", "process.capabilities: expected object"},
        {"process.capabilities.bounding", "\"x\"", "process.capabilities.bounding: expected array"},
        {"root", "\"rootfs\"", "root: expected object, got string"},
        {"root.readonly", "1", "root.readonly: expected boolean, got integer"},
        {"hostname", "false", "hostname: expected string, got boolean"},
        {"mounts", "{}", "mounts: expected array, got object"},
        {"mounts[1]", "\"/tmp\"", "mounts[1]: expected object, got string"},
        {"mounts[1].options", "\"ro\"", "mounts[1].options: expected array"},
        {"mounts[1].options[0]", "1", "mounts[1].options[0]: expected string"},
        {"linux", "[]", "linux: expected object, got array"},
        {"linux.namespaces", "{}", "linux.namespaces: expected array"},
        {"linux.namespaces[2].type", "1", "linux.namespaces[2].type: expected string"},
        {"linux.uidMappings[0].hostID", "\"0\"", "linux.uidMappings[0].hostID: expected integer"},
        {"linux.resources.memory", "5", "linux.resources.memory: expected object"},
        {"linux.resources.memory.limit", "\"1G\"",
         "linux.resources.memory.limit: expected integer, got string"},
        {"linux.maskedPaths", "\"/proc\"", "linux.maskedPaths: expected array"},
        {"linux.cgroupsPath", "1", "linux.cgroupsPath: expected string"},
        {"linux.seccomp.syscalls", "{}", "linux.seccomp.syscalls: expected array"},
        {"linux.seccomp.syscalls[0].names", "\"read\"",
         "linux.seccomp.syscalls[0].names: expected array"},
        {"linux.seccomp.syscalls[1].args[0]", "[]",
         "linux.seccomp.syscalls[1].args[0]: expected object"},
        {"annotations", "[]", "annotations: expected object"},
        {"annotations.n", "1", "annotations.n: expected string, got integer"},
        {"revrun", "\"/src\"", "revrun: expected object, got string"},
        {"revrun.timeout", "\"60\"", "revrun.timeout: expected integer, got string"},
        {"revrun.ptrace", "\"no\"", "revrun.ptrace: expected boolean"},
        {"revrun.minFreeSpace", "[]", "revrun.minFreeSpace: expected integer, got array"},
        {"revrun.nestedSandboxes", "0", "revrun.nestedSandboxes: expected boolean"},
        {"revrun.bestEffort", "\"memory\"", "revrun.bestEffort: expected array"},
        {"revrun.upperSize", "true", "revrun.upperSize: expected integer, got boolean"},
        {"revrun.writeback", "[]", "revrun.writeback: expected object"},
        {"revrun.writeback.maxFiles", "\"10\"", "revrun.writeback.maxFiles: expected integer"},
        {"revrun.egress", "\"broker\"", "revrun.egress: expected object"},
        {"revrun.egress.port", "\"80\"", "revrun.egress.port: expected integer"},
        {"ociVersion", "1", "ociVersion: expected string, got integer"},
    };

    ALL_REFUSED(bad);
}

TEST(top_level_must_be_an_object)
{
    struct json_node *root = frag("[1]");

    CHECK(config_from_json(root, &cfg, &err) < 0 &&
          strstr(err.msg, "(top level): expected object, got array") != NULL);
    json_free(root);
}

TEST(unknown_keys_are_refused_everywhere_but_annotations)
{
    static const char *const where[] = {
        "",
        "process.",
        "process.user.",
        "process.capabilities.",
        "process.rlimits[0].",
        "root.",
        "mounts[0].",
        "mounts[2].",
        "linux.",
        "linux.namespaces[0].",
        "linux.uidMappings[0].",
        "linux.gidMappings[0].",
        "linux.resources.",
        "linux.resources.memory.",
        "linux.resources.pids.",
        "linux.resources.cpu.",
        "linux.seccomp.",
        "linux.seccomp.syscalls[0].",
        "linux.seccomp.syscalls[1].args[0].",
        "revrun.",
        "revrun.writeback.",
        "revrun.egress.",
    };

    for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
        char path[128], want[160];
        snprintf(path, sizeof(path), "%sbogusKey", where[i]);
        snprintf(want, sizeof(want), "%s: unknown or unsupported key", path);
        CHECK(refused(path, "1", want));
    }
    /* Keys the OCI spec has and revrun does not enforce are refused too. */
    CHECK(refused("linux.sysctl", "{}", "linux.sysctl: unknown"));
    CHECK(refused("process.apparmorProfile", "\"x\"", "process.apparmorProfile: unknown"));
    CHECK(refused("linux.seccomp.flags", "[]", "linux.seccomp.flags: unknown"));
    CHECK(refused("linux.seccomp.listenerPath", "\"/x\"", "linux.seccomp.listenerPath: unknown"));
    CHECK(refused("hooks", "{}", "hooks: unknown"));
    /* An unknown key is shown escaped. */
    CHECK(refused("process.\x1b"
                  "c",
                  "1",
                  "process.\\x1b"
                  "c: unknown"));
    CHECK(accepted("annotations.bogusKey", "\"fine\""));
}

TEST(required_members)
{
    static const struct edit bad[] = {
        {"ociVersion", NULL, "ociVersion: required"},
        {"ociVersion", "\"2.0.0\"", "ociVersion: 2.0.0 is not a 1.x runtime spec"},
        {"process", NULL, "process: required"},
        {"process.user", NULL, "process.user: required"},
        {"process.user.uid", NULL, "process.user.uid: required"},
        {"process.user.gid", NULL, "process.user.gid: required"},
        {"process.args", NULL, "process.args: required"},
        {"process.args", "[]", "process.args: required"},
        {"process.cwd", NULL, "process.cwd: required"},
        {"root", NULL, "root: required"},
        {"root.path", NULL, "root.path: required"},
        {"root.path", "\"\"", "root.path: must not be empty"},
        {"revrun.lower", NULL, "revrun.lower: required"},
        {"mounts[1].destination", NULL, "mounts[1].destination: required"},
        {"mounts[1].type", NULL, "mounts[1].type: required"},
        {"mounts[2].source", NULL, "mounts[2].source: required for a bind mount"},
        {"linux.namespaces[0].type", NULL, "linux.namespaces[0].type: required"},
        {"linux.uidMappings[0].size", NULL, "linux.uidMappings[0].size: required"},
        {"process.rlimits[0].hard", NULL, "process.rlimits[0]: soft and hard are required"},
        {"process.rlimits[0].type", NULL, "process.rlimits[0].type: required"},
        {"linux.seccomp.defaultAction", NULL, "linux.seccomp.defaultAction: required"},
        {"linux.seccomp.syscalls[1].args[0].op", NULL,
         "linux.seccomp.syscalls[1].args[0].op: required"},
        {"linux.seccomp.syscalls[1].args[0].index", NULL,
         "linux.seccomp.syscalls[1].args[0].index: required"},
    };

    ALL_REFUSED(bad);
    /* A non-bind mount needs no source. */
    CHECK(accepted("mounts[1].source", NULL));
}

TEST(paths_must_be_absolute)
{
    static const struct edit bad[] = {
        {"process.cwd", "\"workspace\"", "process.cwd: must be an absolute path"},
        {"process.cwd", "\"\"", "process.cwd: must be an absolute path"},
        {"mounts[1].destination", "\"tmp\"", "mounts[1].destination: must be an absolute path"},
        {"mounts[2].source", "\"usr\"", "mounts[2].source: must be an absolute path"},
        {"revrun.lower", "\"checkout\"", "revrun.lower: must be an absolute path"},
        {"revrun.lower", "\"./checkout\"", "revrun.lower: must be an absolute path"},
        {"revrun.checkoutPath", "\"workspace\"", "revrun.checkoutPath: must be an absolute path"},
        {"linux.maskedPaths[0]", "\"proc/kcore\"",
         "linux.maskedPaths[0]: must be an absolute path"},
        {"linux.readonlyPaths[0]", "\"proc/sys\"",
         "linux.readonlyPaths[0]: must be an absolute path"},
    };

    ALL_REFUSED(bad);
    /* A relative bundle path is fine for root.path (OCI). */
    CHECK(accepted("root.path", "\"rootfs\""));
}

TEST(dot_dotdot_and_empty_components_are_refused)
{
    static const char *const bad[] = {"\"/a/../b\"", "\"/..\"",    "\"/a/.\"",   "\"/./a\"",
                                      "\"/a/./b\"",  "\"/a/../\"", "\"/a/b/..\""};
    static const char *const where[] = {
        "process.cwd",         "mounts[1].destination", "mounts[2].source",      "revrun.lower",
        "revrun.checkoutPath", "linux.maskedPaths[0]",  "linux.readonlyPaths[0]"};

    for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++)
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            char want[128];
            snprintf(want, sizeof(want), "%s: \".\" and \"..\" components are not allowed",
                     where[w]);
            CHECK(refused(where[w], bad[i], want));
        }
    for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
        static const char *const empty[] = {"\"//\"", "\"//workspace\"", "\"/a//b\"", "\"/a//\""};
        char want[128];
        snprintf(want, sizeof(want), "%s: empty components", where[w]);
        for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
            CHECK(refused(where[w], empty[i], want));
    }
    /* Names that merely start with dots are names. */
    CHECK(accepted("process.cwd", "\"/a/.../..b/.c/b..\""));
    CHECK(accepted("mounts[1].destination", "\"/tmp/\""));
}

TEST(overlong_paths_are_refused)
{
    char *v = malloc(4200);

    if (v == NULL)
        return;
    v[0] = '"';
    for (size_t i = 1; i < 4097; i++)
        v[i] = (i % 2) ? '/' : 'a';
    strcpy(v + 4097, "\"");
    CHECK(refused("process.cwd", v, "process.cwd: path is too long"));
    v[4095] = '"';
    v[4096] = '\0';
    CHECK(accepted("process.cwd", v));
    free(v);
}

TEST(environment_entries_need_a_name_and_equals)
{
    CHECK(refused("process.env[1]", "\"NOEQUALS\"", "process.env[1]: expected NAME=VALUE"));
    CHECK(refused("process.env[0]", "\"=value\"", "process.env[0]: expected NAME=VALUE"));
    CHECK(accepted("process.env[0]", "\"A==\""));
}

TEST(capabilities_must_be_empty)
{
    CHECK(refused("process.capabilities.bounding", "[\"CAP_SYS_ADMIN\"]",
                  "process.capabilities.bounding: revrun grants the agent no capabilities; "
                  "remove CAP_SYS_ADMIN"));
    CHECK(refused("process.capabilities.ambient", "[1]",
                  "process.capabilities.ambient: revrun grants the agent no capabilities"));
    CHECK(accepted("process.capabilities",
                   "{\"bounding\": [], \"effective\": [], \"inheritable\": [], \"permitted\": [], "
                   "\"ambient\": []}"));
}

TEST(user_extras_are_refused)
{
    CHECK(refused("process.user.additionalGids", "[5]",
                  "process.user.additionalGids: supplementary groups are not supported"));
    CHECK(
        refused("process.user.additionalGids", "5", "process.user.additionalGids: supplementary"));
    CHECK(accepted("process.user.additionalGids", "[]"));
    CHECK(refused("process.user.umask", "18", "process.user.umask: not supported"));
}

TEST(namespace_rules)
{
    CHECK(refused("linux.namespaces[1].path", "\"/proc/1/ns/mnt\"",
                  "linux.namespaces[1].path: joining an existing namespace is not supported"));
    CHECK(refused("linux.namespaces[3].type", "\"time\"",
                  "linux.namespaces[3].type: unknown namespace type"));
    CHECK(refused("linux.namespaces[3].type", "\"NETWORK\"", "linux.namespaces[3].type: unknown"));
    CHECK(refused("linux.namespaces[3].type", "\"pid\"", "linux.namespaces[3]: pid listed twice"));
    CHECK(accepted("linux.namespaces", "[{\"type\": \"mount\"}]") &&
          cfg.linux.namespaces == RR_NS_MOUNT);
}

TEST(rlimit_rules)
{
    static const struct edit bad[] = {
        {"process.rlimits[0].type", "\"RLIMIT_BOGUS\"", "process.rlimits[0].type: unknown rlimit"},
        {"process.rlimits[0].soft", "4097", "process.rlimits[0]: soft is above hard"},
        {"process.rlimits",
         "[{\"type\": \"RLIMIT_CORE\", \"soft\": 0, \"hard\": 0},"
         " {\"type\": \"RLIMIT_CORE\", \"soft\": 0, \"hard\": 0}]",
         "process.rlimits[1]: RLIMIT_CORE given twice"},
        {"process.rlimits[0].soft", "-1", "process.rlimits[0].soft: must not be negative"},
        {"process.rlimits[0].hard", "18446744073709551616",
         "process.rlimits[0].hard: 18446744073709551616 is out of range"},
        {"process.rlimits[0].hard", "4096.0",
         "process.rlimits[0].hard: expected an integer in range, got 4096.0"},
        {"process.rlimits[0].hard", "4e3", "process.rlimits[0].hard: expected an integer"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("process.rlimits[0].soft", "4096"));
    CHECK(accepted("process.rlimits[0].hard", "18446744073709551615") &&
          cfg.process.rlimits[0].hard == UINT64_MAX);
}

TEST(id_mapping_rules)
{
    static const struct edit bad[] = {
        {"linux.uidMappings[0].size", "0",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.gidMappings[0].size", "0",
         "linux.gidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].containerID", "4294967295",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].hostID", "4294967295",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].size", "4294967295",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].hostID", "4294967296",
         "linux.uidMappings[0].hostID: 4294967296 is out of range 0..4294967295"},
        {"linux.uidMappings[0].hostID", "-1", "linux.uidMappings[0].hostID: -1 is out of range"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("linux.uidMappings[0].containerID", "4294967294"));
}

TEST(too_many_id_mappings)
{
    char *v = malloc(341 * 48 + 8);
    size_t o = 0;

    if (v == NULL)
        return;
    v[o++] = '[';
    for (unsigned i = 0; i < 341; i++)
        o += (size_t)sprintf(v + o, "%s{\"containerID\":%u,\"hostID\":%u,\"size\":1}", i ? "," : "",
                             i, i + 100000);
    strcpy(v + o, "]");
    CHECK(refused("linux.uidMappings", v, "linux.uidMappings: too many mappings"));
    /* 340, the kernel's limit, is accepted. */
    strcpy(strstr(v, ",{\"containerID\":340,"), "]");
    CHECK(accepted("linux.uidMappings", v) && cfg.linux.n_uid_mappings == 340);
    free(v);
}

TEST(huge_and_fractional_integers_are_refused_with_the_path)
{
    static const struct edit bad[] = {
        {"process.user.uid", "99999999999999999999",
         "process.user.uid: expected an integer in range, got 99999999999999999999"},
        {"process.user.uid", "4294967296", "process.user.uid: 4294967296 is out of range"},
        {"process.user.gid", "-1", "process.user.gid: -1 is out of range"},
        {"process.user.uid", "1000.5",
         "process.user.uid: expected an integer in range, got 1000.5"},
        {"linux.resources.pids.limit", "1e3",
         "linux.resources.pids.limit: expected an integer in range, got 1e3"},
        {"linux.resources.pids.limit", "9223372036854775808",
         "linux.resources.pids.limit: expected an integer in range"},
        {"revrun.timeout", "-5", "revrun.timeout: must not be negative"},
        {"revrun.timeout", "1.5", "revrun.timeout: expected an integer in range, got 1.5"},
        {"revrun.timeout", "18446744073709551616",
         "revrun.timeout: 18446744073709551616 is out of range"},
        {"revrun.timeout", "-18446744073709551616", "revrun.timeout: expected an integer"},
        {"revrun.writeback.maxFiles", "-1", "revrun.writeback.maxFiles: must not be negative"},
        {"revrun.writeback.maxDepth", "4294967296",
         "revrun.writeback.maxDepth: 4294967296 is out of range"},
        {"revrun.egress.port", "1e2", "revrun.egress.port: expected an integer"},
        {"linux.seccomp.defaultErrnoRet", "-1",
         "linux.seccomp.defaultErrnoRet: -1 is out of range"},
        {"linux.seccomp.syscalls[1].args[0].value", "-1",
         "linux.seccomp.syscalls[1].args[0].value: must not be negative"},
    };

    ALL_REFUSED(bad);
}

TEST(resource_rules)
{
    static const struct edit bad[] = {
        {"linux.resources.memory.swap", "1048575",
         "linux.resources.memory.swap: below memory.limit"},
        {"linux.resources.memory.limit", "0",
         "linux.resources.memory.limit: 0 is below the minimum 1"},
        {"linux.resources.pids.limit", "0", "linux.resources.pids.limit: 0 is below the minimum 1"},
        {"linux.resources.pids.limit", "-1", "linux.resources.pids.limit: -1 is below"},
        {"linux.resources.cpu.quota", "999",
         "linux.resources.cpu.quota: 999 is below the minimum 1000"},
        {"linux.resources.cpu.period", "999", "linux.resources.cpu.period: 999 is below"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("linux.resources.memory.swap", "1048576"));
}

TEST(revrun_enums_and_names)
{
    CHECK(refused("revrun.overlay", "\"zfs\"",
                  "revrun.overlay: \"zfs\" is not one of the accepted values"));
    CHECK(refused("revrun.overlay", "\"Native\"", "revrun.overlay: \"Native\" is not one"));
    CHECK(accepted("revrun.overlay", "\"fuse\"") && cfg.revrun.overlay == RR_BACKEND_FUSE);
    CHECK(accepted("revrun.overlay", "\"native\"") && cfg.revrun.overlay == RR_BACKEND_NATIVE);
    CHECK(refused("revrun.network", "\"bridge\"",
                  "revrun.network: \"bridge\" is not one of the accepted values"));
    CHECK(accepted("revrun.network", "\"host\"") && cfg.revrun.network == RR_NET_HOST);
    CHECK(refused("revrun.bestEffort", "[\"memory\", \"seccomp\"]",
                  "revrun.bestEffort[1]: not one of: " RR_BEST_EFFORT_NAMES));
    CHECK(refused("revrun.bestEffort", "[\"Memory\"]", "revrun.bestEffort[0]: not one of"));
    CHECK(accepted("revrun.bestEffort",
                   "[\"memory\", \"pids\", \"cpu\", \"upperSize\", \"landlock\"]"));
    /* revrun.git.worktree: a worktree checkout's main git directory */
    CHECK(accepted(NULL, NULL) && !cfg.revrun.git_worktree_hide);
    CHECK(accepted("revrun.git", "{\"worktree\": \"hide\"}") && cfg.revrun.git_worktree_hide);
    CHECK(accepted("revrun.git", "{\"worktree\": \"show\"}") && !cfg.revrun.git_worktree_hide);
    CHECK(accepted("revrun.git", "{}") && !cfg.revrun.git_worktree_hide);
    CHECK(refused("revrun.git", "{\"worktree\": \"off\"}",
                  "revrun.git.worktree: \"off\" is not one of the accepted values"));
    CHECK(refused("revrun.git", "{\"worktree\": true}", "revrun.git.worktree"));
    CHECK(refused("revrun.git", "{\"hooks\": \"hide\"}", "revrun.git"));
    CHECK(refused("revrun.git", "\"hide\"", "revrun.git"));
}

TEST(revrun_sizes_and_caps)
{
    static const struct edit bad[] = {
        {"revrun.upperSize", "\"512K\"", "revrun.upperSize: at least 1M"},
        {"revrun.upperSize", "1048575", "revrun.upperSize: at least 1M"},
        {"revrun.upperSize", "0", "revrun.upperSize: at least 1M"},
        {"revrun.upperSize", "\"10X\"", "revrun.upperSize: not a size"},
        {"revrun.upperSize", "\"-1G\"", "revrun.upperSize: not a size"},
        {"revrun.upperSize", "\"99999999999T\"", "revrun.upperSize: not a size"},
        {"revrun.writeback.maxDepth", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxFiles", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxNameBytes", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxPathBytes", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxFileBytes", "\"1Q\"", "revrun.writeback.maxFileBytes: not a size"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("revrun.upperSize", "1048576") && cfg.revrun.upper_size == 1048576);
    CHECK(accepted("revrun.upperSize", "\"2GiB\"") && cfg.revrun.upper_size == 2ULL << 30);
    CHECK(accepted("revrun.writeback.maxTotalBytes", "\"1G\"") &&
          cfg.revrun.writeback.max_total_bytes == 1ULL << 30);
    /* A list given replaces the default rather than adding to it. */
    CHECK(accepted("revrun.writeback.warn", "[]") && cfg.revrun.writeback.warn.n == 0);
}

TEST(egress_rules)
{
    CHECK(accepted("revrun.egress", broker) && cfg.revrun.egress.mode == RR_EGRESS_BROKER &&
          strcmp(cfg.revrun.egress.header, "x-api-key") == 0 && cfg.revrun.egress.allow.n == 1 &&
          strcmp(cfg.revrun.egress.allow.v[0], "/v1/") == 0 && cfg.revrun.egress.port == 8080);
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"credentialEnv\": \"KEY\", \"port\": 8080}",
                  "revrun.egress.upstream: an https:// URL is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"http://api.example.com\", "
                  "\"credentialEnv\": \"KEY\", \"port\": 8080}",
                  "revrun.egress.upstream: an https:// URL is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", \"port\": 8080}",
                  "revrun.egress: exactly one of credentialFile and credentialEnv is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", \"port\": 8080, "
                  "\"credentialEnv\": \"KEY\", \"credentialFile\": \"/run/key\"}",
                  "revrun.egress: exactly one of credentialFile and credentialEnv"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialFile\": \"key\", \"port\": 8080}",
                  "revrun.egress.credentialFile: must be an absolute path"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialEnv\": \"KEY\"}",
                  "revrun.egress.port: a port 1..65535 is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialEnv\": \"KEY\", \"port\": 0}",
                  "revrun.egress.port: a port 1..65535 is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialEnv\": \"KEY\", \"port\": 65536}",
                  "revrun.egress.port: a port 1..65535 is required"));
    CHECK(refused("revrun.egress.mode", "\"proxy\"",
                  "revrun.egress.mode: \"proxy\" is not one of the accepted values"));
    CHECK(refused("revrun.egress", "{\"mode\": \"broker\", \"allow\": \"/v1/\"}",
                  "revrun.egress.allow: expected array"));
    /* mode none: nothing else is checked (nothing is brokered). */
    CHECK(accepted("revrun.egress", "{\"mode\": \"none\", \"upstream\": \"http://x\"}"));
    CHECK(accepted("revrun.egress", "{}") && cfg.revrun.egress.mode == RR_EGRESS_NONE);
}

TEST(seccomp_rules)
{
    CHECK(refused("linux.seccomp.defaultAction", "\"SCMP_ACT_NOTIFY\"",
                  "linux.seccomp.defaultAction: unsupported seccomp action"));
    CHECK(refused("linux.seccomp.syscalls[0].action", "\"SCMP_ACT_TRACE\"",
                  "linux.seccomp.syscalls[0].action: unsupported seccomp action"));
    CHECK(refused("linux.seccomp.syscalls[0].action", "\"scmp_act_allow\"",
                  "linux.seccomp.syscalls[0].action: unsupported"));
    CHECK(refused("linux.seccomp.syscalls[1].args[0].op", "\"SCMP_CMP_BOGUS\"",
                  "linux.seccomp.syscalls[1].args[0].op: unknown comparison"));
    CHECK(refused("linux.seccomp.syscalls[1].args[0].index", "6",
                  "linux.seccomp.syscalls[1].args[0].index: syscalls have six arguments (0..5)"));
    CHECK(accepted("linux.seccomp.syscalls[1].args[0].index", "5") &&
          cfg.linux.seccomp.rules[1].args[0].index == 5);
    CHECK(refused("linux.seccomp.syscalls[1].args",
                  "[{\"index\":0,\"op\":\"SCMP_CMP_EQ\"},{\"index\":1,\"op\":\"SCMP_CMP_EQ\"},"
                  "{\"index\":2,\"op\":\"SCMP_CMP_EQ\"},{\"index\":3,\"op\":\"SCMP_CMP_EQ\"},"
                  "{\"index\":4,\"op\":\"SCMP_CMP_EQ\"},{\"index\":5,\"op\":\"SCMP_CMP_EQ\"},"
                  "{\"index\":0,\"op\":\"SCMP_CMP_NE\"}]",
                  "linux.seccomp.syscalls[1].args: at most six argument conditions"));
    CHECK(refused("linux.seccomp.syscalls[0].names", "[]",
                  "linux.seccomp.syscalls[0].names: at least one syscall name is required"));
    CHECK(refused("linux.seccomp.syscalls[0].names", NULL,
                  "linux.seccomp.syscalls[0].names: at least one syscall name"));
    CHECK(accepted("linux.seccomp.syscalls[0].errnoRet", "38") &&
          cfg.linux.seccomp.rules[0].errno_ret == 38 && cfg.linux.seccomp.rules[1].errno_ret == 1);
    CHECK(accepted("linux.seccomp.defaultAction", "\"SCMP_ACT_KILL_THREAD\"") &&
          cfg.linux.seccomp.default_action == RR_SCMP_KILL);
}

TEST(errors_free_what_was_parsed)
{
    /* Failing late, after every section was filled: ASan's leak check and
     * the zeroed struct tell that config_free ran. */
    CHECK(refused("revrun.egress.mode", "\"proxy\"", "revrun.egress.mode"));
    CHECK(cfg.oci_version == NULL && cfg.mounts == NULL && cfg.process.args.v == NULL);
    CHECK(refused("linux.seccomp.syscalls[1].args[0].op", "\"X\"", "op: unknown comparison"));
    CHECK(cfg.linux.seccomp.rules == NULL);
}

TEST(config_load_reads_the_bundle)
{
    char dir[] = "/tmp/revrun-test-config.XXXXXX";
    char path[256];
    FILE *f;
    int dfd;

    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    snprintf(path, sizeof(path), "%s/config.json", dir);
    f = fopen(path, "w");
    if (f != NULL) {
        fputs(base, f);
        fclose(f);
    }
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cfg_loaded)
        config_free(&cfg);
    cfg_loaded = config_load(dfd, &cfg, &err) == 0;
    CHECK(cfg_loaded && cfg.n_mounts == 3);
    f = fopen(path, "w");
    if (f != NULL) {
        fputs("{\"ociVersion\": \"1.0.2\", \"process\": {\"user\": 1}}", f);
        fclose(f);
    }
    if (cfg_loaded)
        config_free(&cfg);
    cfg_loaded = config_load(dfd, &cfg, &err) == 0;
    CHECK(!cfg_loaded &&
          strstr(err.msg, "config.json: process.user: expected object, got integer") != NULL);
    close(dfd);
    unlink(path);
    rmdir(dir);
}
