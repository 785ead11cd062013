/* config.json -> struct rr_config -> config.json (bundle/config_*.c,
 * config_write.c): what loads, what round-trips, and that a refusal frees
 * what was parsed. The refusals themselves: test_config.c. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bundle/config.h"
#include "bundle/json.h"
#include "runtime/confine/profile/profile.h"
#include "tests/config_fixture.h"
#include "tests/tap.h"

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
