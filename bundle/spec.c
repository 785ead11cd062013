/* Flags and presets -> config fields (see spec.h). Only the config is
 * written here: what it allows is judged by the profile. */
#include "bundle/spec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"

int preset_check_env_assignment(const char *kv, const char *path, struct rr_error *err);

static int dup_into(char **dst, const char *src, struct rr_error *err)
{
    char *c = strdup(src);

    if (c == NULL)
        return rr_fail(err, ENOMEM, "spec");
    free(*dst);
    *dst = c;
    return 0;
}

static int abs_host_path(const char *flag, const char *in, char **out, bool want_dir,
                         struct rr_error *err)
{
    char buf[PATH_MAX];
    struct stat st;

    if (realpath(in, buf) == NULL)
        return rr_fail(err, errno, "%s %s", flag, in);
    if (stat(buf, &st) < 0)
        return rr_fail(err, errno, "%s %s", flag, in);
    if (want_dir && !S_ISDIR(st.st_mode))
        return rr_fail(err, ENOTDIR, "%s %s", flag, in);
    return dup_into(out, buf, err);
}

/* NAME=value into env, replacing an earlier NAME. */
static int env_set(struct rr_strv *env, const char *kv, struct rr_error *err)
{
    size_t n = strcspn(kv, "=") + 1;

    if (preset_check_env_assignment(kv, "--env", err) < 0)
        return -1;
    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], kv, n) == 0) {
            char *c = strdup(kv);
            if (c == NULL)
                return rr_fail(err, ENOMEM, "env");
            free(env->v[i]);
            env->v[i] = c;
            return 0;
        }
    if (strv_push(env, kv) < 0)
        return rr_fail(err, ENOMEM, "env");
    return 0;
}

static const char *env_get(const struct rr_strv *env, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
            return env->v[i] + n + 1;
    return NULL;
}

static int copy_strv(struct rr_strv *dst, const struct rr_strv *src, struct rr_error *err)
{
    strv_free(dst);
    for (size_t i = 0; i < src->n; i++)
        if (strv_push(dst, src->v[i]) < 0)
            return rr_fail(err, ENOMEM, "spec");
    return 0;
}

/* ---- egress ---- */

static int egress_credential(struct rr_egress *e, const struct spec_opts *o,
                             const struct rr_preset *pr, struct rr_error *err)
{
    free(e->credential_file);
    free(e->credential_env);
    e->credential_file = e->credential_env = NULL;
    if (o->credential_file != NULL && o->credential_env != NULL)
        return rr_fail(err, EINVAL, "--credential-file and --credential-env: one of them");
    if (o->credential_file != NULL)
        return abs_host_path("--credential-file", o->credential_file, &e->credential_file, false,
                             err);
    if (o->credential_env != NULL)
        return dup_into(&e->credential_env, o->credential_env, err);
    if (pr != NULL && pr->credential_env != NULL)
        return dup_into(&e->credential_env, pr->credential_env, err);
    return rr_fail(err, EINVAL, "--upstream needs --credential-file F or --credential-env VAR");
}

static int apply_egress(struct rr_config *c, const struct spec_opts *o, const struct rr_preset *pr,
                        struct rr_error *err)
{
    struct rr_egress *e = &c->revrun.egress;
    const char *upstream = o->upstream ? o->upstream : pr ? pr->upstream : NULL;
    const char *header = o->header ? o->header : pr ? pr->header : NULL;
    const char *prefix = o->header_prefix ? o->header_prefix : pr ? pr->header_prefix : NULL;
    const struct rr_strv *allow = o->allow.n || pr == NULL ? &o->allow : &pr->allow;
    const struct rr_strv *urls = o->base_url_env.n || pr == NULL ? &o->base_url_env
                                                                   : &pr->base_url_env;

    if (upstream == NULL) {
        if (o->credential_file || o->credential_env || o->ca_file || o->header ||
            o->header_prefix || o->allow.n || o->base_url_env.n)
            return rr_fail(err, EINVAL, "the egress flags need --upstream URL (or an --agent "
                                        "preset that names one)");
        return 0;
    }
    e->mode = RR_EGRESS_BROKER;
    if (e->port == 0)
        e->port = 8080;
    if (dup_into(&e->upstream, upstream, err) < 0 || egress_credential(e, o, pr, err) < 0 ||
        dup_into(&e->header, header ? header : "x-api-key", err) < 0)
        return -1;
    free(e->header_prefix);
    e->header_prefix = NULL;
    if (prefix != NULL && prefix[0] != '\0' && dup_into(&e->header_prefix, prefix, err) < 0)
        return -1;
    if (copy_strv(&e->allow, allow, err) < 0 || copy_strv(&e->base_url_env, urls, err) < 0)
        return -1;
    if (e->allow.n == 0 && strv_push(&e->allow, "/v1/") < 0)
        return rr_fail(err, ENOMEM, "spec");
    /* Without a preset, the variable `spec --upstream` has always set. */
    if (pr == NULL && e->base_url_env.n == 0 && strv_push(&e->base_url_env, "ANTHROPIC_BASE_URL") < 0)
        return rr_fail(err, ENOMEM, "spec");
    if (o->ca_file != NULL && abs_host_path("--ca-file", o->ca_file, &e->ca_file, false, err) < 0)
        return -1;
    return 0;
}

/* ---- mounts ---- */

static int add_bind(struct rr_config *c, const char *src, const char *dst, bool rw,
                    struct rr_error *err)
{
    static const char *const opts[] = {"rbind", "nosuid", "nodev"};
    struct rr_mount *m = realloc(c->mounts, (c->n_mounts + 1) * sizeof(*m));

    if (m == NULL)
        return rr_fail(err, ENOMEM, "mounts");
    c->mounts = m;
    m = &c->mounts[c->n_mounts++];
    *m = (struct rr_mount){0};
    m->destination = strdup(dst);
    m->type = strdup("bind");
    m->source = strdup(src);
    if (m->destination == NULL || m->type == NULL || m->source == NULL ||
        strv_push(&m->options, opts[0]) < 0 || strv_push(&m->options, rw ? "rw" : "ro") < 0 ||
        strv_push(&m->options, opts[1]) < 0 || strv_push(&m->options, opts[2]) < 0)
        return rr_fail(err, ENOMEM, "mounts");
    return 0;
}

/* SRC:DST[:ro|rw]; read-only unless ":rw" is written. */
static int apply_bind(struct rr_config *c, const char *arg, struct rr_error *err)
{
    _cleanup_free_ char *copy = strdup(arg);
    _cleanup_free_ char *src = NULL;
    size_t n;
    bool rw = false;
    char *dst;

    if (copy == NULL)
        return rr_fail(err, ENOMEM, "--bind");
    n = strlen(copy);
    if (n > 3 && (strcmp(copy + n - 3, ":ro") == 0 || strcmp(copy + n - 3, ":rw") == 0)) {
        rw = copy[n - 1] == 'w';
        copy[n - 3] = '\0';
    }
    dst = strchr(copy, ':');
    if (dst == NULL || dst == copy || dst[1] != '/' || strchr(dst + 1, ':') != NULL)
        return rr_fail(err, EINVAL, "--bind %s: SRC:DST[:ro|rw] with DST absolute", arg);
    *dst++ = '\0';
    if (abs_host_path("--bind", copy, &src, false, err) < 0)
        return -1;
    return add_bind(c, src, dst, rw, err);
}

/* The agent's install, read-only at SPEC_AGENT_DIR, its bin directories
 * first on PATH. */
static int apply_agent_dir(struct rr_config *c, const char *dir, struct rr_error *err)
{
    static const char prefix[] = "PATH=" SPEC_AGENT_DIR "/bin:" SPEC_AGENT_DIR "/node_modules/.bin";
    _cleanup_free_ char *src = NULL;
    _cleanup_free_ char *path = NULL;
    const char *base, *old;

    if (abs_host_path("--agent-dir", dir, &src, true, err) < 0)
        return -1;
    base = strrchr(src, '/') + 1;
    if (add_bind(c, src, strcmp(base, "node_modules") == 0 ? SPEC_AGENT_DIR "/node_modules"
                                                           : SPEC_AGENT_DIR,
                 false, err) < 0)
        return -1;
    old = env_get(&c->process.env, "PATH");
    if (asprintf(&path, "%s%s%s", prefix, old ? ":" : "", old ? old : "") < 0) {
        path = NULL;
        return rr_fail(err, ENOMEM, "PATH");
    }
    return env_set(&c->process.env, path, err);
}

/* ---- HOME ---- */

static int apply_home(struct rr_config *c, const struct spec_opts *o, const struct rr_preset *pr,
                      struct rr_error *err)
{
    if (o->home != NULL && abs_host_path("--home", o->home, &c->revrun.home, true, err) < 0)
        return -1;
    if (pr != NULL && pr->n_home_files > 0) {
        struct rr_home_file *v = calloc(pr->n_home_files, sizeof(*v));
        if (v == NULL)
            return rr_fail(err, ENOMEM, "homeFiles");
        for (size_t i = 0; i < c->revrun.n_home_files; i++) {
            free(c->revrun.home_files[i].path);
            free(c->revrun.home_files[i].content);
        }
        free(c->revrun.home_files);
        c->revrun.home_files = v;
        c->revrun.n_home_files = pr->n_home_files;
        for (size_t i = 0; i < pr->n_home_files; i++) {
            v[i].path = strdup(pr->home_files[i].path);
            v[i].content = strdup(pr->home_files[i].content);
            if (v[i].path == NULL || v[i].content == NULL)
                return rr_fail(err, ENOMEM, "homeFiles");
        }
    }
    for (size_t k = 0; k < 2; k++) {
        const struct rr_strv *from = k == 0 ? (pr ? &pr->artifacts : NULL) : &o->artifacts;
        for (size_t i = 0; from != NULL && i < from->n; i++)
            if (!strv_contains(&c->revrun.artifacts, from->v[i]) &&
                strv_push(&c->revrun.artifacts, from->v[i]) < 0)
                return rr_fail(err, ENOMEM, "artifacts");
    }
    return 0;
}

static int apply_env(struct rr_config *c, const struct spec_opts *o, const struct rr_preset *pr,
                     struct rr_error *err)
{
    char dummy[160];

    for (size_t i = 0; pr != NULL && i < pr->env.n; i++)
        if (env_set(&c->process.env, pr->env.v[i], err) < 0)
            return -1;
    if (pr != NULL && pr->dummy_key_env != NULL) {
        snprintf(dummy, sizeof(dummy), "%s=%s", pr->dummy_key_env, SPEC_DUMMY_KEY);
        if (env_set(&c->process.env, dummy, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < o->env.n; i++)
        if (env_set(&c->process.env, o->env.v[i], err) < 0)
            return -1;
    return 0;
}

int spec_apply(struct rr_config *c, const struct spec_opts *o, const struct rr_preset *pr,
               struct rr_error *err)
{
    if (apply_egress(c, o, pr, err) < 0 || apply_env(c, o, pr, err) < 0 ||
        apply_home(c, o, pr, err) < 0)
        return -1;
    if (o->agent_dir != NULL && apply_agent_dir(c, o->agent_dir, err) < 0)
        return -1;
    for (size_t i = 0; i < o->binds.n; i++)
        if (apply_bind(c, o->binds.v[i], err) < 0)
            return -1;
    if (o->nested_sandboxes || (pr != NULL && pr->nested_sandboxes))
        c->revrun.nested_sandboxes = true;
    for (size_t i = 0; i < o->best_effort.n; i++)
        if (!strv_contains(&c->revrun.best_effort, o->best_effort.v[i]) &&
            strv_push(&c->revrun.best_effort, o->best_effort.v[i]) < 0)
            return rr_fail(err, ENOMEM, "--best-effort");
    if (o->no_activity)
        c->revrun.activity_off = true;
    return 0;
}

int spec_build(struct rr_config *cfg, const char *agent, const struct spec_opts *o,
               struct rr_preset *preset, struct rr_error *err)
{
    memset(preset, 0, sizeof(*preset));
    if (agent != NULL && preset_load(agent, preset, err) < 0)
        return -1;
    if (spec_apply(cfg, o, agent ? preset : NULL, err) < 0)
        return rr_wrap(err, "spec");
    return 0;
}

void spec_opts_free(struct spec_opts *o)
{
    strv_free(&o->binds);
    strv_free(&o->allow);
    strv_free(&o->base_url_env);
    strv_free(&o->env);
    strv_free(&o->artifacts);
    strv_free(&o->best_effort);
}
