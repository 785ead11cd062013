/* The flags `revrun spec` and `revrun review` share: the agent preset, the
 * agent's install and binds, egress, environment, HOME and artifacts. They
 * fill a struct spec_opts (bundle/spec.h), which becomes config fields. */
#ifndef REVRUN_CLI_SPEC_OPTS_H
#define REVRUN_CLI_SPEC_OPTS_H

#include <getopt.h>

#include "bundle/spec.h"

enum {
    SPEC_OPT_AGENT = 1000,
    SPEC_OPT_AGENT_DIR,
    SPEC_OPT_BIND,
    SPEC_OPT_UPSTREAM,
    SPEC_OPT_CRED_FILE,
    SPEC_OPT_CRED_ENV,
    SPEC_OPT_CA_FILE,
    SPEC_OPT_HEADER,
    SPEC_OPT_HEADER_PREFIX,
    SPEC_OPT_ALLOW,
    SPEC_OPT_BASE_URL_ENV,
    SPEC_OPT_ENV,
    SPEC_OPT_NESTED,
    SPEC_OPT_HOME,
    SPEC_OPT_ARTIFACT,
    SPEC_OPT_BEST_EFFORT,
    SPEC_OPT_NO_ACTIVITY,
};

#define CLI_SPEC_LONGOPTS                                                                          \
    {"agent", required_argument, NULL, SPEC_OPT_AGENT},                                            \
        {"agent-dir", required_argument, NULL, SPEC_OPT_AGENT_DIR},                                \
        {"bind", required_argument, NULL, SPEC_OPT_BIND},                                          \
        {"upstream", required_argument, NULL, SPEC_OPT_UPSTREAM},                                  \
        {"egress-upstream", required_argument, NULL, SPEC_OPT_UPSTREAM},                           \
        {"credential-file", required_argument, NULL, SPEC_OPT_CRED_FILE},                          \
        {"credential-env", required_argument, NULL, SPEC_OPT_CRED_ENV},                            \
        {"ca-file", required_argument, NULL, SPEC_OPT_CA_FILE},                                    \
        {"header", required_argument, NULL, SPEC_OPT_HEADER},                                      \
        {"header-prefix", required_argument, NULL, SPEC_OPT_HEADER_PREFIX},                        \
        {"allow", required_argument, NULL, SPEC_OPT_ALLOW},                                        \
        {"base-url-env", required_argument, NULL, SPEC_OPT_BASE_URL_ENV},                          \
        {"env", required_argument, NULL, SPEC_OPT_ENV},                                            \
        {"nested-sandboxes", no_argument, NULL, SPEC_OPT_NESTED},                                  \
        {"home", required_argument, NULL, SPEC_OPT_HOME},                                          \
        {"artifact", required_argument, NULL, SPEC_OPT_ARTIFACT},                                  \
        {"best-effort", required_argument, NULL, SPEC_OPT_BEST_EFFORT},                            \
        {"no-activity", no_argument, NULL, SPEC_OPT_NO_ACTIVITY}

struct cli_spec_flags {
    const char *agent; /* --agent NAME|FILE, or NULL */
    struct spec_opts spec;
};

/* 1: c was one of these options (taken); 0: not one of them; -1: out of
 * memory, -2: a bad value (both reported). */
int cli_spec_flag(int c, const char *arg, struct cli_spec_flags *f);

/* What the flags widen, said once on the command line (a read-write
 * --bind). */
void cli_spec_flags_warn(const struct cli_spec_flags *f);

void cli_spec_flags_free(struct cli_spec_flags *f);

#endif
