/* Engine configs (no `revrun` section): the OCI fields only engines send.
 * Parsed here, judged by runtime/confine/profile/ (profile_build_engine). */
#ifndef REVRUN_CONFIG_ENGINE_H
#define REVRUN_CONFIG_ENGINE_H

#include "bundle/config.h"
#include "bundle/json.h"

/* revrun's annotations (an engine's config): see README "Annotations". */
#define RR_ANN_PREFIX "io.revrun."
#define RR_ANN_CHECKOUT "io.revrun.checkout"
#define RR_ANN_POLICY "io.revrun.policy"
#define RR_ANN_EXPORT "io.revrun.export"
#define RR_ANN_UPPER_SIZE "io.revrun.upperSize"
#define RR_ANN_OVERLAY "io.revrun.overlay"
#define RR_ANN_NAME_MAX 64

struct engine_refusal {
    const char *key;
    const char *why;
};

int engine_refuse_keys(const struct json_node *obj, const char *path,
                       const struct engine_refusal *r, struct rr_error *err);
int engine_parse_user(const struct json_node *u, const char *path, struct rr_config *cfg,
                      struct rr_error *err);
int engine_parse_capabilities(const struct json_node *caps, const char *path,
                              struct rr_config *cfg, struct rr_error *err);
int engine_parse_process_extra(const struct json_node *proc, struct rr_config *cfg,
                               struct rr_error *err);
int engine_parse_hooks(const struct json_node *hooks, struct rr_config *cfg, struct rr_error *err);
int engine_parse_resources_extra(const struct json_node *res, struct rr_config *cfg,
                                 struct rr_error *err);
int engine_parse_linux_extra(const struct json_node *lx, struct rr_config *cfg,
                             struct rr_error *err);
int engine_parse_annotations(const struct json_node *a, struct rr_config *cfg,
                             struct rr_error *err);
void engine_config_free(struct rr_config *cfg);

#endif
