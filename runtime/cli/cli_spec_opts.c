#include "runtime/cli/cli_spec_opts.h"

#include <errno.h>
#include <string.h>

#include "runtime/cli/cli.h"
#include "runtime/container/log.h"

static int push(struct rr_strv *sv, const char *arg)
{
    if (strv_push(sv, arg) < 0) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    return 1;
}

/* --best-effort memory,pids,cpu: names revrun.bestEffort takes, comma
 * separated, repeatable. */
static int best_effort(struct rr_strv *sv, const char *arg)
{
    char name[32];

    for (const char *p = arg;; p++) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof(name)) {
            cli_usage_error(cli_argv[0], "--best-effort takes names from: %s", RR_BEST_EFFORT_NAMES);
            return -2;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        if (!config_best_effort_known(name)) {
            cli_usage_error(cli_argv[0], "--best-effort: '%s' is not one of: %s", name,
                            RR_BEST_EFFORT_NAMES);
            return -2;
        }
        if (push(sv, name) < 0)
            return -1;
        p += n;
        if (*p == '\0')
            return 1;
    }
}

int cli_spec_flag(int c, const char *arg, struct cli_spec_flags *f)
{
    struct spec_opts *o = &f->spec;

    switch (c) {
    case SPEC_OPT_AGENT: f->agent = arg; return 1;
    case SPEC_OPT_AGENT_DIR: o->agent_dir = arg; return 1;
    case SPEC_OPT_BIND: return push(&o->binds, arg);
    case SPEC_OPT_UPSTREAM: o->upstream = arg; return 1;
    case SPEC_OPT_CRED_FILE: o->credential_file = arg; return 1;
    case SPEC_OPT_CRED_ENV: o->credential_env = arg; return 1;
    case SPEC_OPT_CA_FILE: o->ca_file = arg; return 1;
    case SPEC_OPT_HEADER: o->header = arg; return 1;
    case SPEC_OPT_HEADER_PREFIX: o->header_prefix = arg; return 1;
    case SPEC_OPT_ALLOW: return push(&o->allow, arg);
    case SPEC_OPT_BASE_URL_ENV: return push(&o->base_url_env, arg);
    case SPEC_OPT_ENV: return push(&o->env, arg);
    case SPEC_OPT_NESTED: o->nested_sandboxes = true; return 1;
    case SPEC_OPT_HOME: o->home = arg; return 1;
    case SPEC_OPT_ARTIFACT: return push(&o->artifacts, arg);
    case SPEC_OPT_BEST_EFFORT: return best_effort(&o->best_effort, arg);
    case SPEC_OPT_NO_ACTIVITY: o->no_activity = true; return 1;
    }
    return 0;
}

void cli_spec_flags_warn(const struct cli_spec_flags *f)
{
    for (size_t i = 0; i < f->spec.binds.n; i++) {
        const char *b = f->spec.binds.v[i];
        size_t n = strlen(b);
        if (n > 3 && strcmp(b + n - 3, ":rw") == 0)
            log_msg(LOG_WARN, "--bind %.*s: read-write: the agent writes there directly, outside "
                              "the vetted change set", (int)(n - 3), b);
    }
}

void cli_spec_flags_free(struct cli_spec_flags *f)
{
    spec_opts_free(&f->spec);
}
