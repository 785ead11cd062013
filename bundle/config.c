#include "bundle/config.h"
#include "bundle/config_engine.h"

#include <stdlib.h>

int config_load(int bundle_dirfd, struct rr_config *cfg, struct rr_error *err)
{
    struct json_node *root = NULL;
    int r;

    if (json_parse_file(bundle_dirfd, "config.json", &json_limits_config, &root, err) < 0)
        return -1;
    r = config_from_json(root, cfg, err);
    json_free(root);
    if (r < 0)
        return rr_wrap(err, "config.json");
    return 0;
}

static void egress_free(struct rr_egress *e)
{
    free(e->upstream);
    strv_free(&e->allow);
    free(e->credential_file);
    free(e->credential_env);
    free(e->header);
    free(e->header_prefix);
    strv_free(&e->base_url_env);
    free(e->ca_file);
}

static void seccomp_free(struct rr_seccomp *s)
{
    strv_free(&s->architectures);
    for (size_t i = 0; i < s->n_rules; i++)
        strv_free(&s->rules[i].names);
    free(s->rules);
}

void config_free(struct rr_config *cfg)
{
    free(cfg->oci_version);
    strv_free(&cfg->process.args);
    strv_free(&cfg->process.env);
    free(cfg->process.cwd);
    free(cfg->process.rlimits);
    free(cfg->root.path);
    free(cfg->hostname);
    free(cfg->domainname);
    engine_config_free(cfg);
    for (size_t i = 0; i < cfg->n_mounts; i++) {
        free(cfg->mounts[i].destination);
        free(cfg->mounts[i].type);
        free(cfg->mounts[i].source);
        strv_free(&cfg->mounts[i].options);
    }
    free(cfg->mounts);
    free(cfg->linux.uid_mappings);
    free(cfg->linux.gid_mappings);
    seccomp_free(&cfg->linux.seccomp);
    strv_free(&cfg->ignored_top);
    strv_free(&cfg->linux.masked_paths);
    strv_free(&cfg->linux.readonly_paths);
    free(cfg->linux.cgroups_path);
    free(cfg->revrun.lower);
    free(cfg->revrun.checkout_path);
    free(cfg->revrun.out);
    free(cfg->revrun.results);
    strv_free(&cfg->revrun.best_effort);
    writeback_policy_free(&cfg->revrun.writeback);
    egress_free(&cfg->revrun.egress);
    free(cfg->revrun.home);
    for (size_t i = 0; i < cfg->revrun.n_home_files; i++) {
        free(cfg->revrun.home_files[i].path);
        free(cfg->revrun.home_files[i].content);
    }
    free(cfg->revrun.home_files);
    strv_free(&cfg->revrun.artifacts);
    *cfg = (struct rr_config){0};
}
