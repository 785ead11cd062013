#include "bundle/state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bundle/jfield.h"
#include "bundle/json.h"

static const struct json_limits state_limits = {
    .max_bytes = 512 * 1024,
    .max_depth = 4,
    .max_nodes = 2048,
    .max_string = 8192,
    .max_members = 512, /* an engine's annotations (Kubernetes sends dozens) */
};

bool rr_id_valid(const char *id)
{
    size_t n = strlen(id);

    if (n == 0 || n > RR_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
            return false;
    }
    return true;
}

void rr_now_rfc3339(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    char base[32];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%09ldZ", base, ts.tv_nsec);
}

static void kv_opt(struct json_writer *w, const char *k, const char *v)
{
    if (v != NULL)
        json_w_kv_string(w, k, v);
}

int state_to_json(const struct rr_state *s, char **out, struct rr_error *err)
{
    struct json_writer *w = json_writer_new(false);
    int r;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "state");
    json_w_begin_object(w);
    json_w_kv_string(w, "id", s->id);
    kv_opt(w, "bundle", s->bundle);
    kv_opt(w, "lower", s->lower);
    kv_opt(w, "store", s->store);
    kv_opt(w, "backend", s->backend);
    kv_opt(w, "created", s->created);
    json_w_kv_int(w, "pid", s->pid);
    json_w_kv_uint(w, "pidStart", s->pid_start);
    json_w_kv_int(w, "monitorPid", s->monitor_pid);
    json_w_kv_uint(w, "monitorStart", s->monitor_start);
    json_w_kv_bool(w, "rootless", s->rootless);
    json_w_kv_uint(w, "owner", s->owner);
    kv_opt(w, "cgroup", s->cgroup);
    kv_opt(w, "cgroupVersion", s->cgroup_version);
    kv_opt(w, "rootfs", s->rootfs);
    if (s->n_annotations > 0) {
        json_w_key(w, "annotations");
        json_w_begin_object(w);
        for (size_t i = 0; i < s->n_annotations; i++) {
            json_w_key(w, s->annotations[2 * i]);
            json_w_bytes(w, s->annotations[2 * i + 1], strlen(s->annotations[2 * i + 1]));
        }
        json_w_end_object(w);
    }
    json_w_end_object(w);
    r = json_writer_finish(w, out, NULL, err);
    json_writer_free(w);
    return r;
}

int state_add_annotation(struct rr_state *s, const char *key, const char *value)
{
    char **v = realloc(s->annotations, (s->n_annotations + 1) * 2 * sizeof(char *));
    char *k, *val;

    if (v == NULL)
        return -1;
    s->annotations = v;
    k = strdup(key);
    val = strdup(value);
    if (k == NULL || val == NULL) {
        free(k);
        free(val);
        return -1;
    }
    v[2 * s->n_annotations] = k;
    v[2 * s->n_annotations + 1] = val;
    s->n_annotations++;
    return 0;
}

/* "annotations": an object of strings, or absent. */
static int get_annotations(const struct json_node *root, struct rr_state *s, struct rr_error *err)
{
    const struct json_node *a = json_get(root, "annotations");

    if (a == NULL)
        return 0;
    if (a->type != JSON_OBJECT)
        return rr_fail(err, 0, "annotations: not an object");
    for (size_t i = 0; i < a->u.object.n; i++) {
        const struct json_node *v = a->u.object.values[i];
        if (v->type != JSON_STRING)
            return rr_fail(err, 0, "annotations: not a string");
        if (state_add_annotation(s, a->u.object.keys[i], v->u.string.s) < 0)
            return rr_fail(err, ENOMEM, "annotations");
    }
    return 0;
}

static int get_i64(const struct json_node *o, const char *k, int64_t *out, struct rr_error *err)
{
    const struct json_node *n = json_get(o, k);

    if (n == NULL || n->type != JSON_INT)
        return rr_fail(err, 0, "%s: missing or not an integer", k);
    *out = n->u.integer;
    return 0;
}

/* Negative pids (kill() reads them as process groups or everyone), start
 * times and an owner that the casts below would wrap: refused. A pid of 0
 * is a state recorded before the process exists ("creating"). */
static bool in_range(int64_t pid, int64_t monitor_pid, int64_t pid_start, int64_t monitor_start,
                     int64_t owner)
{
    return pid >= 0 && pid <= INT32_MAX && monitor_pid >= 0 && monitor_pid <= INT32_MAX &&
           pid_start >= 0 && monitor_start >= 0 && owner >= 0 && owner <= UINT32_MAX;
}

int state_from_json(const char *text, size_t len, struct rr_state *s, struct rr_error *err)
{
    struct json_node *root = NULL;
    char *id = NULL;
    int64_t pid_start = 0, monitor_start = 0, owner = 0;
    bool dummy;
    int r = -1;

    memset(s, 0, sizeof(*s));
    if (json_parse(text, len, &state_limits, &root, err) < 0)
        return rr_wrap(err, "state.json");
    if (jf_string(root, "id", "", true, &id, err) < 0 ||
        (!rr_id_valid(id) && rr_fail(err, 0, "id: not a container ID") < 0) ||
        jf_string(root, "bundle", "", false, &s->bundle, err) < 0 ||
        jf_string(root, "lower", "", false, &s->lower, err) < 0 ||
        jf_string(root, "store", "", false, &s->store, err) < 0 ||
        jf_string(root, "backend", "", false, &s->backend, err) < 0 ||
        jf_string(root, "created", "", false, &s->created, err) < 0 ||
        jf_string(root, "cgroup", "", false, &s->cgroup, err) < 0 ||
        jf_string(root, "cgroupVersion", "", false, &s->cgroup_version, err) < 0 ||
        jf_string(root, "rootfs", "", false, &s->rootfs, err) < 0 ||
        get_annotations(root, s, err) < 0 ||
        get_i64(root, "pid", &s->pid, err) < 0 || get_i64(root, "pidStart", &pid_start, err) < 0 ||
        get_i64(root, "monitorPid", &s->monitor_pid, err) < 0 ||
        get_i64(root, "monitorStart", &monitor_start, err) < 0 ||
        get_i64(root, "owner", &owner, err) < 0 ||
        jf_bool(root, "rootless", "", &s->rootless, &dummy, err) < 0 ||
        (!in_range(s->pid, s->monitor_pid, pid_start, monitor_start, owner) &&
         rr_fail(err, 0, "pid, monitorPid, pidStart, monitorStart or owner out of range") < 0)) {
        rr_wrap(err, "state.json");
        goto out;
    }
    snprintf(s->id, sizeof(s->id), "%s", id);
    s->pid_start = (uint64_t)pid_start;
    s->monitor_start = (uint64_t)monitor_start;
    s->owner = (uint32_t)owner;
    r = 0;
out:
    free(id);
    json_free(root);
    if (r < 0)
        state_free(s);
    return r;
}

void state_free(struct rr_state *s)
{
    free(s->bundle);
    free(s->lower);
    free(s->store);
    free(s->backend);
    free(s->created);
    free(s->cgroup);
    free(s->cgroup_version);
    free(s->rootfs);
    for (size_t i = 0; i < 2 * s->n_annotations; i++)
        free(s->annotations[i]);
    free(s->annotations);
    memset(s, 0, sizeof(*s));
}

int exit_to_json(const struct rr_exit *e, char **out, struct rr_error *err)
{
    struct json_writer *w = json_writer_new(false);
    int r;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "exit record");
    json_w_begin_object(w);
    json_w_kv_int(w, "waitStatus", e->wait_status);
    json_w_kv_bool(w, "timedOut", e->timed_out);
    json_w_kv_bool(w, "oomKilled", e->oom_killed);
    kv_opt(w, "finished", e->finished);
    if (e->error != NULL) {
        json_w_key(w, "error");
        json_w_bytes(w, e->error, strlen(e->error));
    }
    if (e->ns_refused > 0) {
        json_w_kv_uint(w, "nestedRefused", e->ns_refused);
        kv_opt(w, "nestedRefusedSyscall", e->ns_refused_syscall);
    }
    json_w_end_object(w);
    r = json_writer_finish(w, out, NULL, err);
    json_writer_free(w);
    return r;
}

int exit_from_json(const char *text, size_t len, struct rr_exit *e, struct rr_error *err)
{
    struct json_node *root = NULL;
    int r = -1;

    memset(e, 0, sizeof(*e));
    if (json_parse(text, len, &state_limits, &root, err) < 0)
        return rr_wrap(err, "exit.json");
    if (get_i64(root, "waitStatus", &e->wait_status, err) < 0 ||
        jf_bool(root, "timedOut", "", &e->timed_out, NULL, err) < 0 ||
        jf_bool(root, "oomKilled", "", &e->oom_killed, NULL, err) < 0 ||
        jf_string(root, "finished", "", false, &e->finished, err) < 0 ||
        jf_string(root, "error", "", false, &e->error, err) < 0 ||
        jf_u64(root, "nestedRefused", "", &e->ns_refused, NULL, err) < 0 ||
        jf_string(root, "nestedRefusedSyscall", "", false, &e->ns_refused_syscall, err) < 0) {
        rr_wrap(err, "exit.json");
        goto out;
    }
    r = 0;
out:
    json_free(root);
    if (r < 0)
        exit_free(e);
    return r;
}

void exit_free(struct rr_exit *e)
{
    free(e->finished);
    free(e->error);
    free(e->ns_refused_syscall);
    memset(e, 0, sizeof(*e));
}
