/* `revrun spec` and `revrun review` flags (and an agent preset) applied to a
 * config: everything here becomes plain config.json fields (mounts,
 * process.env, revrun.egress, revrun.home...), so what the flags produce is
 * what `revrun spec` prints and what runtime/confine/profile/ judges. A
 * flag overrides the preset; lists given on the command line replace the
 * preset's (allow, baseUrlEnv) or add to them (env, artifacts, binds). */
#ifndef REVRUN_SPEC_H
#define REVRUN_SPEC_H

#include <stdbool.h>

#include "bundle/config.h"
#include "bundle/preset.h"
#include "common/error.h"

/* Where --agent-dir appears inside (read-only). A directory named
 * node_modules is bound at SPEC_AGENT_DIR/node_modules, anything else at
 * SPEC_AGENT_DIR: node's resolver only searches directories of that name. */
#define SPEC_AGENT_DIR "/opt/agent"
#define SPEC_DUMMY_KEY "revrun-placeholder-key"

struct spec_opts {
    const char *agent_dir;
    struct rr_strv binds; /* SRC:DST[:ro|rw] */
    const char *upstream;
    const char *credential_file;
    const char *credential_env;
    const char *ca_file;
    const char *header;
    const char *header_prefix;
    struct rr_strv allow;
    struct rr_strv base_url_env;
    struct rr_strv env; /* K=V */
    bool nested_sandboxes;
    const char *home;
    struct rr_strv artifacts;
    struct rr_strv best_effort; /* added to revrun.bestEffort (names checked by the caller) */
    bool no_activity; /* revrun.activity "off" */
};

/* Apply preset (may be NULL), then the flags, to cfg. Host paths (binds,
 * --agent-dir, --home, --ca-file, --credential-file) are made absolute
 * and must exist. */
int spec_apply(struct rr_config *cfg, const struct spec_opts *o, const struct rr_preset *preset,
               struct rr_error *err);

/* Load the preset named by agent (NULL: none) into *preset (zeroed
 * otherwise; the caller frees it), then spec_apply. */
int spec_build(struct rr_config *cfg, const char *agent, const struct spec_opts *o,
               struct rr_preset *preset, struct rr_error *err);

void spec_opts_free(struct spec_opts *o);

#endif
