/* The `revrun` section: review settings. Unlike the OCI part, every key here
 * is revrun's own, so an unknown key is almost certainly a typo of one that
 * was meant to restrict: it is refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"
#include "bundle/jfield.h"
#include "common/cleanup.h"

#define DEFAULT_CHECKOUT_PATH "/workspace"
#define DEFAULT_UPPER_SIZE (1ULL << 30)
/* Below this much free space under the state root, create refuses: state
 * written half-way on a full disk is exactly what must not happen. */
#define DEFAULT_MIN_FREE (64ULL << 20)

static const char *const best_effort_names[] = {"memory", "pids", "cpu", "upperSize", "landlock",
                                                NULL};

bool config_best_effort_known(const char *name)
{
    for (const char *const *n = best_effort_names; *n != NULL; n++)
        if (strcmp(*n, name) == 0)
            return true;
    return false;
}

static int parse_enum(const struct json_node *obj, const char *key, const char *path,
                      const char *const *names, int *out, struct rr_error *err)
{
    _cleanup_free_ char *v = NULL;
    char p[JPATH_MAX];

    if (jf_string(obj, key, path, false, &v, err) < 0)
        return -1;
    if (v == NULL)
        return 0;
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], v) == 0) {
            *out = i;
            return 0;
        }
    jpath_key(p, path, key);
    return rr_fail(err, 0, "%s: \"%s\" is not one of the accepted values", p, v);
}

static int parse_writeback(const struct json_node *wb, struct rr_writeback_policy *p,
                           struct rr_error *err)
{
    static const char *const keys[] = {"protect",      "warn",         "maxFiles",
                                       "maxFileBytes", "maxTotalBytes", "maxDepth",
                                       "maxNameBytes", "maxPathBytes", "ignored",  NULL};
    static const char *const ignored[] = {"exclude", "include", NULL};
    const char *path = "revrun.writeback";
    int include = p->include_ignored;

    if (jf_only_keys(wb, path, keys, err) < 0 || jf_strv(wb, "protect", path, &p->protect, err) < 0 ||
        jf_strv(wb, "warn", path, &p->warn, err) < 0 ||
        jf_u64(wb, "maxFiles", path, &p->max_files, NULL, err) < 0 ||
        jf_size(wb, "maxFileBytes", path, &p->max_file_bytes, err) < 0 ||
        jf_size(wb, "maxTotalBytes", path, &p->max_total_bytes, err) < 0 ||
        jf_u32(wb, "maxDepth", path, false, &p->max_depth, err) < 0 ||
        jf_u32(wb, "maxNameBytes", path, false, &p->max_name_bytes, err) < 0 ||
        jf_u32(wb, "maxPathBytes", path, false, &p->max_path_bytes, err) < 0 ||
        parse_enum(wb, "ignored", path, ignored, &include, err) < 0)
        return -1;
    p->include_ignored = include == 1;
    if (p->max_depth == 0 || p->max_name_bytes == 0 || p->max_path_bytes == 0 || p->max_files == 0)
        return rr_fail(err, 0, "%s: caps must be above zero", path);
    return 0;
}

static int parse_git(const struct json_node *g, struct rr_config *cfg, struct rr_error *err)
{
    static const char *const keys[] = {"worktree", NULL};
    static const char *const worktree[] = {"show", "hide", NULL};
    int v = cfg->revrun.git_worktree_hide;

    if (jf_only_keys(g, "revrun.git", keys, err) < 0 ||
        parse_enum(g, "worktree", "revrun.git", worktree, &v, err) < 0)
        return -1;
    cfg->revrun.git_worktree_hide = v == 1;
    return 0;
}

static int parse_egress(const struct json_node *eg, struct rr_egress *e, struct rr_error *err)
{
    static const char *const keys[] = {"mode",   "upstream",     "allow", "credentialFile",
                                       "credentialEnv", "header", "headerPrefix", "port",
                                       "baseUrlEnv", "caFile", NULL};
    static const char *const modes[] = {"none", "broker", NULL};
    const char *path = "revrun.egress";
    int mode = RR_EGRESS_NONE;
    uint32_t port = 0;

    if (jf_only_keys(eg, path, keys, err) < 0 ||
        parse_enum(eg, "mode", path, modes, &mode, err) < 0 ||
        jf_string(eg, "upstream", path, false, &e->upstream, err) < 0 ||
        jf_strv(eg, "allow", path, &e->allow, err) < 0 ||
        jf_string(eg, "credentialFile", path, false, &e->credential_file, err) < 0 ||
        jf_string(eg, "credentialEnv", path, false, &e->credential_env, err) < 0 ||
        jf_string(eg, "header", path, false, &e->header, err) < 0 ||
        jf_string(eg, "headerPrefix", path, false, &e->header_prefix, err) < 0 ||
        jf_u32(eg, "port", path, false, &port, err) < 0 ||
        jf_strv_or_string(eg, "baseUrlEnv", path, &e->base_url_env, err) < 0 ||
        jf_string(eg, "caFile", path, false, &e->ca_file, err) < 0)
        return -1;
    if (e->ca_file != NULL && jf_check_abs_path(e->ca_file, "revrun.egress.caFile", err) < 0)
        return -1;
    e->mode = (enum rr_egress_mode)mode;
    if (e->mode == RR_EGRESS_NONE)
        return 0;
    if (e->upstream == NULL || strncmp(e->upstream, "https://", 8) != 0)
        return rr_fail(err, 0, "revrun.egress.upstream: an https:// URL is required");
    if ((e->credential_file == NULL) == (e->credential_env == NULL))
        return rr_fail(err, 0,
                       "revrun.egress: exactly one of credentialFile and credentialEnv is "
                       "required (the secret itself never goes in config.json)");
    if (e->credential_file != NULL &&
        jf_check_abs_path(e->credential_file, "revrun.egress.credentialFile", err) < 0)
        return -1;
    if (port == 0 || port > 65535)
        return rr_fail(err, 0, "revrun.egress.port: a port 1..65535 is required");
    e->port = (uint16_t)port;
    if (e->header == NULL && (e->header = strdup("x-api-key")) == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    if (e->allow.n == 0 && strv_push(&e->allow, "/v1/") < 0)
        return rr_fail(err, ENOMEM, "%s", path);
    return 0;
}

/* homeFiles: {"relative/path": "content", ...}, capped. */
int config_parse_home_files(const struct json_node *hf, const char *path,
                            struct rr_home_file **out, size_t *n_out, struct rr_error *err)
{
    struct rr_home_file *v;

    if (jf_expect(hf, JSON_OBJECT, path, err) < 0)
        return -1;
    if (hf->u.object.n > RR_HOME_FILES_MAX)
        return rr_fail(err, 0, "%s: at most %d files", path, RR_HOME_FILES_MAX);
    v = calloc(hf->u.object.n + 1, sizeof(*v));
    if (v == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    *out = v;
    for (size_t i = 0; i < hf->u.object.n; i++) {
        const struct json_node *val = hf->u.object.values[i];
        char p[JPATH_MAX];
        jpath_key(p, path, hf->u.object.keys[i]);
        if (jf_check_rel_path(hf->u.object.keys[i], p, err) < 0 ||
            jf_expect(val, JSON_STRING, p, err) < 0)
            return -1;
        if (val->u.string.len > RR_HOME_FILE_BYTES)
            return rr_fail(err, 0, "%s: at most %u bytes", p, RR_HOME_FILE_BYTES);
        (*n_out)++;
        v[i].path = strdup(hf->u.object.keys[i]);
        v[i].content = strdup(val->u.string.s);
        if (v[i].path == NULL || v[i].content == NULL)
            return rr_fail(err, ENOMEM, "%s", p);
    }
    return 0;
}

/* artifacts: "~/rel/path" each; only HOME outlives the agent long enough
 * to be copied, so nothing else can be named. */
int config_parse_artifacts(const struct json_node *obj, const char *parent, struct rr_strv *a,
                           struct rr_error *err)
{
    char path[JPATH_MAX];

    jpath_key(path, parent, "artifacts");
    if (jf_strv(obj, "artifacts", parent, a, err) < 0)
        return -1;
    if (a->n > RR_ARTIFACTS_MAX)
        return rr_fail(err, 0, "%s: at most %d paths", path, RR_ARTIFACTS_MAX);
    for (size_t i = 0; i < a->n; i++) {
        char p[JPATH_MAX];
        jpath_index(p, path, i);
        if (strncmp(a->v[i], "~/", 2) != 0)
            return rr_fail(err, 0, "%s: must start with \"~/\" (a path in the agent's HOME)",
                           p);
        if (jf_check_rel_path(a->v[i] + 2, p, err) < 0)
            return -1;
    }
    return 0;
}

static int parse_home(const struct json_node *rv, struct rr_config *cfg, struct rr_error *err)
{
    const struct json_node *n;

    if (jf_string(rv, "home", "revrun", false, &cfg->revrun.home, err) < 0 ||
        (cfg->revrun.home != NULL &&
         jf_check_abs_path(cfg->revrun.home, "revrun.home", err) < 0))
        return -1;
    if ((n = json_get(rv, "homeFiles")) != NULL &&
        config_parse_home_files(n, "revrun.homeFiles", &cfg->revrun.home_files,
                                &cfg->revrun.n_home_files, err) < 0)
        return -1;
    return config_parse_artifacts(rv, "revrun", &cfg->revrun.artifacts, err);
}

static int parse_best_effort(const struct json_node *rv, struct rr_config *cfg,
                             struct rr_error *err)
{
    if (jf_strv(rv, "bestEffort", "revrun", &cfg->revrun.best_effort, err) < 0)
        return -1;
    for (size_t i = 0; i < cfg->revrun.best_effort.n; i++) {
        bool known = false;
        for (const char *const *n = best_effort_names; *n && !known; n++)
            known = strcmp(*n, cfg->revrun.best_effort.v[i]) == 0;
        if (!known)
            return rr_fail(err, 0, "revrun.bestEffort[%zu]: not one of: %s", i,
                           RR_BEST_EFFORT_NAMES);
    }
    return 0;
}

static int apply_defaults(struct rr_config *cfg, struct rr_error *err)
{
    if (cfg->revrun.checkout_path == NULL &&
        (cfg->revrun.checkout_path = strdup(DEFAULT_CHECKOUT_PATH)) == NULL)
        return rr_fail(err, ENOMEM, "revrun");
    if (cfg->revrun.upper_size == 0)
        cfg->revrun.upper_size = DEFAULT_UPPER_SIZE;
    if (cfg->revrun.min_free_space == 0)
        cfg->revrun.min_free_space = DEFAULT_MIN_FREE;
    return 0;
}

int config_parse_revrun(const struct json_node *rv, struct rr_config *cfg, struct rr_error *err);

int config_parse_revrun(const struct json_node *rv, struct rr_config *cfg, struct rr_error *err)
{
    static const char *const keys[] = {"lower",   "checkoutPath", "overlay",    "upperSize",
                                       "timeout", "nestedSandboxes", "ptrace", "network",
                                       "bestEffort", "writeback", "egress", "minFreeSpace",
                                       "home", "homeFiles", "artifacts", "out", "results", "git",
                                       "activity", NULL};
    static const char *const backends[] = {"auto", "native", "fuse", NULL};
    static const char *const activity[] = {"record", "off", NULL};
    static const char *const networks[] = {"none", "host", NULL};
    const char *path = "revrun";
    int backend = RR_BACKEND_AUTO, network = RR_NET_NONE, record = 0;
    const struct json_node *n;

    if (writeback_policy_defaults(&cfg->revrun.writeback, err) < 0)
        return -1;
    if (rv == NULL)
        return rr_fail(err, 0, "revrun: required (at least revrun.lower, the checkout)");
    if (jf_only_keys(rv, path, keys, err) < 0 ||
        jf_string(rv, "lower", path, true, &cfg->revrun.lower, err) < 0 ||
        jf_check_abs_path(cfg->revrun.lower, "revrun.lower", err) < 0 ||
        jf_string(rv, "checkoutPath", path, false, &cfg->revrun.checkout_path, err) < 0 ||
        jf_string(rv, "out", path, false, &cfg->revrun.out, err) < 0 ||
        jf_string(rv, "results", path, false, &cfg->revrun.results, err) < 0 ||
        parse_enum(rv, "overlay", path, backends, &backend, err) < 0 ||
        jf_size(rv, "upperSize", path, &cfg->revrun.upper_size, err) < 0 ||
        jf_u64(rv, "timeout", path, &cfg->revrun.timeout_seconds, NULL, err) < 0 ||
        jf_size(rv, "minFreeSpace", path, &cfg->revrun.min_free_space, err) < 0 ||
        jf_bool(rv, "nestedSandboxes", path, &cfg->revrun.nested_sandboxes, NULL, err) < 0 ||
        jf_bool(rv, "ptrace", path, &cfg->revrun.ptrace, NULL, err) < 0 ||
        parse_enum(rv, "network", path, networks, &network, err) < 0 ||
        parse_enum(rv, "activity", path, activity, &record, err) < 0 ||
        parse_best_effort(rv, cfg, err) < 0 || parse_home(rv, cfg, err) < 0)
        return -1;
    cfg->revrun.overlay = (enum rr_backend)backend;
    cfg->revrun.network = (enum rr_network)network;
    cfg->revrun.activity_off = record == 1;
    if (cfg->revrun.checkout_path != NULL &&
        jf_check_abs_path(cfg->revrun.checkout_path, "revrun.checkoutPath", err) < 0)
        return -1;
    if (cfg->revrun.out != NULL && jf_check_abs_path(cfg->revrun.out, "revrun.out", err) < 0)
        return -1;
    if (cfg->revrun.results != NULL &&
        jf_check_abs_path(cfg->revrun.results, "revrun.results", err) < 0)
        return -1;
    if (json_get(rv, "upperSize") != NULL && cfg->revrun.upper_size < (1u << 20))
        return rr_fail(err, 0, "revrun.upperSize: at least 1M");
    if ((n = json_get(rv, "writeback")) != NULL &&
        parse_writeback(n, &cfg->revrun.writeback, err) < 0)
        return -1;
    if ((n = json_get(rv, "egress")) != NULL && parse_egress(n, &cfg->revrun.egress, err) < 0)
        return -1;
    if ((n = json_get(rv, "git")) != NULL && parse_git(n, cfg, err) < 0)
        return -1;
    return apply_defaults(cfg, err);
}

int config_engine_defaults(struct rr_config *cfg, struct rr_error *err);

/* An engine's config has no review settings: no checkout, no write-back.
 * The defaults keep every later stage's invariants (a policy, a state-root
 * free-space floor) without adding anything the engine did not ask for. */
int config_engine_defaults(struct rr_config *cfg, struct rr_error *err)
{
    if (writeback_policy_defaults(&cfg->revrun.writeback, err) < 0)
        return -1;
    cfg->revrun.min_free_space = DEFAULT_MIN_FREE;
    cfg->revrun.upper_size = DEFAULT_UPPER_SIZE;
    return 0;
}
