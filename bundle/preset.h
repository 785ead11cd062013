/* Agent presets (agents/NAME.json): a small declarative file that fills the
 * flags of `revrun spec` and `revrun review` for one agent (its model
 * API's upstream, the header that carries the key, the variables its SDK
 * reads, settings seeded into HOME, the transcripts to keep). A preset can
 * only say what a config.json can say: spec_build() turns it into config
 * fields, and `revrun spec --agent` prints the result for review.
 * agents/SCHEMA.md documents every key. */
#ifndef REVRUN_PRESET_H
#define REVRUN_PRESET_H

#include <stdbool.h>

#include "bundle/config.h"
#include "common/error.h"

#define PRESET_MAX_BYTES (256u << 10)
#define PRESET_NAME_MAX 32

struct rr_preset {
    char *name;
    char *description;
    /* egress */
    char *upstream;
    char *header;
    char *header_prefix;
    struct rr_strv allow;
    struct rr_strv base_url_env;
    char *credential_env; /* the operator's variable read by default */
    char *dummy_key_env;  /* set inside to a placeholder: the SDK insists on a key */
    /* the agent's process */
    struct rr_strv env;   /* K=V */
    struct rr_home_file *home_files;
    size_t n_home_files;
    struct rr_strv artifacts;
    bool nested_sandboxes;
    char *sandbox_remedy; /* how to turn the agent's own sandbox off, for the report */
};

/* Parse a preset document: unknown keys, wrong types and values a config
 * would refuse are refused, with the JSON path. */
int preset_from_json(const struct json_node *root, struct rr_preset *p, struct rr_error *err);

/* NAME ([a-z0-9-]{1,32}) is NAME.json of a directory near the binary
 * (BINDIR/../share/revrun/agents as installed, agents/ of a source tree),
 * when root or the caller owns it and no one else may write it; else the
 * copy of agents/NAME.json built in (preset_builtin.h). Anything with a '/'
 * or ending in ".json" is a FILE. */
int preset_load(const char *name_or_file, struct rr_preset *p, struct rr_error *err);

void preset_free(struct rr_preset *p);

#endif
