/* struct rr_config -> config.json (for `revrun spec`). The output parses back
 * to the same struct: tests/test_config.c checks the round trip. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bundle/config.h"

static const char *rlimit_name(int resource)
{
    switch (resource) {
    case RLIMIT_AS: return "RLIMIT_AS";
    case RLIMIT_CORE: return "RLIMIT_CORE";
    case RLIMIT_CPU: return "RLIMIT_CPU";
    case RLIMIT_DATA: return "RLIMIT_DATA";
    case RLIMIT_FSIZE: return "RLIMIT_FSIZE";
    case RLIMIT_LOCKS: return "RLIMIT_LOCKS";
    case RLIMIT_MEMLOCK: return "RLIMIT_MEMLOCK";
    case RLIMIT_MSGQUEUE: return "RLIMIT_MSGQUEUE";
    case RLIMIT_NICE: return "RLIMIT_NICE";
    case RLIMIT_NOFILE: return "RLIMIT_NOFILE";
    case RLIMIT_NPROC: return "RLIMIT_NPROC";
    case RLIMIT_RSS: return "RLIMIT_RSS";
    case RLIMIT_RTPRIO: return "RLIMIT_RTPRIO";
    case RLIMIT_RTTIME: return "RLIMIT_RTTIME";
    case RLIMIT_SIGPENDING: return "RLIMIT_SIGPENDING";
    case RLIMIT_STACK: return "RLIMIT_STACK";
    }
    return "RLIMIT_UNKNOWN";
}

static void w_strv(struct json_writer *w, const char *key, const struct rr_strv *sv)
{
    json_w_key(w, key);
    json_w_begin_array(w);
    for (size_t i = 0; i < sv->n; i++)
        json_w_string(w, sv->v[i]);
    json_w_end_array(w);
}

static void w_process(struct json_writer *w, const struct rr_config *c)
{
    static const char *const capsets[] = {"bounding", "effective", "inheritable", "permitted",
                                          "ambient"};

    json_w_key(w, "process");
    json_w_begin_object(w);
    json_w_kv_bool(w, "terminal", c->process.terminal);
    json_w_key(w, "user");
    json_w_begin_object(w);
    json_w_kv_uint(w, "uid", c->process.uid);
    json_w_kv_uint(w, "gid", c->process.gid);
    json_w_end_object(w);
    w_strv(w, "args", &c->process.args);
    w_strv(w, "env", &c->process.env);
    json_w_kv_string(w, "cwd", c->process.cwd);
    /* Written out empty on purpose: the agent's capability sets are empty,
     * and a reader of the config sees that rather than an absence. */
    json_w_key(w, "capabilities");
    json_w_begin_object(w);
    for (size_t i = 0; i < sizeof(capsets) / sizeof(capsets[0]); i++) {
        json_w_key(w, capsets[i]);
        json_w_begin_array(w);
        json_w_end_array(w);
    }
    json_w_end_object(w);
    json_w_key(w, "rlimits");
    json_w_begin_array(w);
    for (size_t i = 0; i < c->process.n_rlimits; i++) {
        json_w_begin_object(w);
        json_w_kv_string(w, "type", rlimit_name(c->process.rlimits[i].resource));
        json_w_kv_uint(w, "hard", c->process.rlimits[i].hard);
        json_w_kv_uint(w, "soft", c->process.rlimits[i].soft);
        json_w_end_object(w);
    }
    json_w_end_array(w);
    json_w_kv_bool(w, "noNewPrivileges", c->process.no_new_privileges);
    json_w_end_object(w);
}

static void w_mounts(struct json_writer *w, const struct rr_config *c)
{
    json_w_key(w, "mounts");
    json_w_begin_array(w);
    for (size_t i = 0; i < c->n_mounts; i++) {
        const struct rr_mount *m = &c->mounts[i];
        json_w_begin_object(w);
        json_w_kv_string(w, "destination", m->destination);
        json_w_kv_string(w, "type", m->type);
        if (m->source != NULL)
            json_w_kv_string(w, "source", m->source);
        w_strv(w, "options", &m->options);
        json_w_end_object(w);
    }
    json_w_end_array(w);
}

static void w_idmaps(struct json_writer *w, const char *key, const struct rr_id_mapping *m,
                     size_t n)
{
    json_w_key(w, key);
    json_w_begin_array(w);
    for (size_t i = 0; i < n; i++) {
        json_w_begin_object(w);
        json_w_kv_uint(w, "containerID", m[i].container_id);
        json_w_kv_uint(w, "hostID", m[i].host_id);
        json_w_kv_uint(w, "size", m[i].size);
        json_w_end_object(w);
    }
    json_w_end_array(w);
}

static void w_namespaces(struct json_writer *w, unsigned ns)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{RR_NS_PID, "pid"},   {RR_NS_NET, "network"}, {RR_NS_IPC, "ipc"},
                 {RR_NS_UTS, "uts"},   {RR_NS_MOUNT, "mount"}, {RR_NS_USER, "user"},
                 {RR_NS_CGROUP, "cgroup"}};

    json_w_key(w, "namespaces");
    json_w_begin_array(w);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(ns & names[i].bit))
            continue;
        json_w_begin_object(w);
        json_w_kv_string(w, "type", names[i].name);
        json_w_end_object(w);
    }
    json_w_end_array(w);
}

static void w_resources(struct json_writer *w, const struct rr_resources *r)
{
    json_w_key(w, "resources");
    json_w_begin_object(w);
    if (r->memory_limit != RR_UNSET || r->memory_swap != RR_UNSET) {
        json_w_key(w, "memory");
        json_w_begin_object(w);
        if (r->memory_limit != RR_UNSET)
            json_w_kv_int(w, "limit", r->memory_limit);
        if (r->memory_swap != RR_UNSET)
            json_w_kv_int(w, "swap", r->memory_swap);
        json_w_end_object(w);
    }
    if (r->pids_limit != RR_UNSET) {
        json_w_key(w, "pids");
        json_w_begin_object(w);
        json_w_kv_int(w, "limit", r->pids_limit);
        json_w_end_object(w);
    }
    if (r->cpu_quota != RR_UNSET || r->cpu_period != RR_UNSET) {
        json_w_key(w, "cpu");
        json_w_begin_object(w);
        if (r->cpu_quota != RR_UNSET)
            json_w_kv_int(w, "quota", r->cpu_quota);
        if (r->cpu_period != RR_UNSET)
            json_w_kv_int(w, "period", r->cpu_period);
        json_w_end_object(w);
    }
    json_w_end_object(w);
}

const char *config_seccomp_action_name(enum rr_seccomp_action a);
const char *config_seccomp_op_name(enum rr_seccomp_op op);

static void w_seccomp_rule(struct json_writer *w, const struct rr_seccomp_rule *r)
{
    json_w_begin_object(w);
    w_strv(w, "names", &r->names);
    json_w_kv_string(w, "action", config_seccomp_action_name(r->action));
    json_w_kv_uint(w, "errnoRet", r->errno_ret);
    json_w_key(w, "args");
    json_w_begin_array(w);
    for (size_t i = 0; i < r->n_args; i++) {
        json_w_begin_object(w);
        json_w_kv_uint(w, "index", r->args[i].index);
        json_w_kv_uint(w, "value", r->args[i].value);
        json_w_kv_uint(w, "valueTwo", r->args[i].value_two);
        json_w_kv_string(w, "op", config_seccomp_op_name(r->args[i].op));
        json_w_end_object(w);
    }
    json_w_end_array(w);
    json_w_end_object(w);
}

/* Written when the config has it: dropping it would widen what a config
 * that went through `revrun spec` or the create-time snapshot allows. */
static void w_seccomp(struct json_writer *w, const struct rr_seccomp *s)
{
    if (!s->present)
        return;
    json_w_key(w, "seccomp");
    json_w_begin_object(w);
    json_w_kv_string(w, "defaultAction", config_seccomp_action_name(s->default_action));
    json_w_kv_uint(w, "defaultErrnoRet", s->default_errno);
    w_strv(w, "architectures", &s->architectures);
    json_w_key(w, "syscalls");
    json_w_begin_array(w);
    for (size_t i = 0; i < s->n_rules; i++)
        w_seccomp_rule(w, &s->rules[i]);
    json_w_end_array(w);
    json_w_end_object(w);
}

static void w_linux(struct json_writer *w, const struct rr_config *c)
{
    json_w_key(w, "linux");
    json_w_begin_object(w);
    w_namespaces(w, c->linux.namespaces);
    w_idmaps(w, "uidMappings", c->linux.uid_mappings, c->linux.n_uid_mappings);
    w_idmaps(w, "gidMappings", c->linux.gid_mappings, c->linux.n_gid_mappings);
    w_resources(w, &c->linux.resources);
    w_seccomp(w, &c->linux.seccomp);
    w_strv(w, "maskedPaths", &c->linux.masked_paths);
    w_strv(w, "readonlyPaths", &c->linux.readonly_paths);
    if (c->linux.cgroups_path != NULL)
        json_w_kv_string(w, "cgroupsPath", c->linux.cgroups_path);
    json_w_end_object(w);
}

static void w_writeback(struct json_writer *w, const struct rr_writeback_policy *p)
{
    json_w_key(w, "writeback");
    json_w_begin_object(w);
    w_strv(w, "protect", &p->protect);
    w_strv(w, "warn", &p->warn);
    json_w_kv_uint(w, "maxFiles", p->max_files);
    json_w_kv_uint(w, "maxFileBytes", p->max_file_bytes);
    json_w_kv_uint(w, "maxTotalBytes", p->max_total_bytes);
    json_w_kv_uint(w, "maxDepth", p->max_depth);
    json_w_kv_uint(w, "maxNameBytes", p->max_name_bytes);
    json_w_kv_uint(w, "maxPathBytes", p->max_path_bytes);
    json_w_kv_string(w, "ignored", p->include_ignored ? "include" : "exclude");
    json_w_end_object(w);
}

static void w_egress(struct json_writer *w, const struct rr_egress *e)
{
    json_w_key(w, "egress");
    json_w_begin_object(w);
    json_w_kv_string(w, "mode", e->mode == RR_EGRESS_BROKER ? "broker" : "none");
    if (e->mode == RR_EGRESS_BROKER) {
        json_w_kv_string(w, "upstream", e->upstream);
        w_strv(w, "allow", &e->allow);
        if (e->credential_file != NULL)
            json_w_kv_string(w, "credentialFile", e->credential_file);
        if (e->credential_env != NULL)
            json_w_kv_string(w, "credentialEnv", e->credential_env);
        json_w_kv_string(w, "header", e->header);
        if (e->header_prefix != NULL)
            json_w_kv_string(w, "headerPrefix", e->header_prefix);
        json_w_kv_uint(w, "port", e->port);
        if (e->base_url_env.n == 1)
            json_w_kv_string(w, "baseUrlEnv", e->base_url_env.v[0]);
        else if (e->base_url_env.n > 1)
            w_strv(w, "baseUrlEnv", &e->base_url_env);
        if (e->ca_file != NULL)
            json_w_kv_string(w, "caFile", e->ca_file);
    }
    json_w_end_object(w);
}

static void w_revrun(struct json_writer *w, const struct rr_config *c)
{
    static const char *const backends[] = {"auto", "native", "fuse"};

    json_w_key(w, "revrun");
    json_w_begin_object(w);
    json_w_kv_string(w, "lower", c->revrun.lower);
    json_w_kv_string(w, "checkoutPath", c->revrun.checkout_path);
    json_w_kv_string(w, "overlay", backends[c->revrun.overlay]);
    json_w_kv_uint(w, "upperSize", c->revrun.upper_size);
    if (c->revrun.out != NULL)
        json_w_kv_string(w, "out", c->revrun.out);
    if (c->revrun.results != NULL)
        json_w_kv_string(w, "results", c->revrun.results);
    json_w_kv_uint(w, "timeout", c->revrun.timeout_seconds);
    json_w_kv_uint(w, "minFreeSpace", c->revrun.min_free_space);
    json_w_kv_bool(w, "nestedSandboxes", c->revrun.nested_sandboxes);
    json_w_kv_bool(w, "ptrace", c->revrun.ptrace);
    json_w_kv_string(w, "network", c->revrun.network == RR_NET_HOST ? "host" : "none");
    json_w_kv_string(w, "activity", c->revrun.activity_off ? "off" : "record");
    w_strv(w, "bestEffort", &c->revrun.best_effort);
    w_writeback(w, &c->revrun.writeback);
    json_w_key(w, "git");
    json_w_begin_object(w);
    json_w_kv_string(w, "worktree", c->revrun.git_worktree_hide ? "hide" : "show");
    json_w_end_object(w);
    w_egress(w, &c->revrun.egress);
    if (c->revrun.home != NULL)
        json_w_kv_string(w, "home", c->revrun.home);
    if (c->revrun.n_home_files > 0) {
        json_w_key(w, "homeFiles");
        json_w_begin_object(w);
        for (size_t i = 0; i < c->revrun.n_home_files; i++)
            json_w_kv_string(w, c->revrun.home_files[i].path, c->revrun.home_files[i].content);
        json_w_end_object(w);
    }
    if (c->revrun.artifacts.n > 0)
        w_strv(w, "artifacts", &c->revrun.artifacts);
    json_w_end_object(w);
}

int config_to_json(const struct rr_config *c, char **out, struct rr_error *err)
{
    struct json_writer *w = json_writer_new(true);
    int r;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "writing config");
    json_w_begin_object(w);
    json_w_kv_string(w, "ociVersion", c->oci_version);
    w_process(w, c);
    json_w_key(w, "root");
    json_w_begin_object(w);
    json_w_kv_string(w, "path", c->root.path);
    json_w_kv_bool(w, "readonly", c->root.readonly);
    json_w_end_object(w);
    if (c->hostname != NULL)
        json_w_kv_string(w, "hostname", c->hostname);
    w_mounts(w, c);
    w_linux(w, c);
    w_revrun(w, c);
    json_w_end_object(w);
    r = json_writer_finish(w, out, NULL, err);
    json_writer_free(w);
    return r;
}
