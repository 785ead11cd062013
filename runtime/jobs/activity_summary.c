#include "runtime/jobs/activity_summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/json.h"
#include "common/escape.h"

#define SLOTS (2 * ACT_SUMMARY_KEYS) /* open addressing, at most half full */

/* One record line: small, flat, a few texts. */
static const struct json_limits line_limits = {
    .max_bytes = 64 * 1024,
    .max_depth = 4,
    .max_nodes = 256,
    .max_string = 32 * 1024,
    .max_members = 32,
};

struct counter {
    struct act_table *t;
    size_t *slots; /* index + 1 into t->v; 0: empty */
};

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int count(struct counter *c, const char *key)
{
    size_t i = (size_t)(fnv(key) % SLOTS);
    struct act_table *t = c->t;

    while (c->slots[i] != 0) {
        if (strcmp(t->v[c->slots[i] - 1].key, key) == 0) {
            t->v[c->slots[i] - 1].n++;
            return 0;
        }
        i = (i + 1) % SLOTS;
    }
    if (t->n >= ACT_SUMMARY_KEYS) {
        t->others++;
        return 0;
    }
    t->v[t->n].key = strdup(key);
    if (t->v[t->n].key == NULL)
        return -1;
    t->v[t->n].n = 1;
    c->slots[i] = ++t->n;
    return 0;
}

/* The text as the monitor wrote it (escaped), or escaped now. */
static char *shown(const struct json_node *n)
{
    if (n == NULL || n->type != JSON_STRING)
        return strdup("");
    if (rr_is_escaped(n->u.string.s, n->u.string.len))
        return strdup(n->u.string.s);
    return rr_escape_dup(n->u.string.s, n->u.string.len);
}

static uint64_t uint_of(const struct json_node *n)
{
    return n != NULL && n->type == JSON_INT && n->u.integer > 0 ? (uint64_t)n->u.integer : 0;
}

static bool bool_of(const struct json_node *n, bool dflt)
{
    return n != NULL && n->type == JSON_BOOL ? n->u.boolean : dflt;
}

static int on_exec(struct act_summary *s, struct counter *progs, const struct json_node *o)
{
    char *path;
    int r;

    if (!bool_of(json_get(o, "found"), true)) {
        s->not_found++;
        return 0;
    }
    s->execs++;
    s->nested += uint_of(json_get(o, "nested")) > 0;
    path = shown(json_get(o, "path"));
    if (path == NULL)
        return -1;
    r = count(progs, path);
    free(path);
    return r;
}

static int on_request(struct act_summary *s, struct counter *paths, const struct json_node *o)
{
    char *method = shown(json_get(o, "method")), *path = shown(json_get(o, "path"));
    size_t n = (method ? strlen(method) : 0) + (path ? strlen(path) : 0) + 32;
    char *key = malloc(n);
    int r = -1;

    s->requests++;
    if (method != NULL && path != NULL && key != NULL) {
        snprintf(key, n, "%s %s %lld", method, path, (long long)uint_of(json_get(o, "status")));
        r = count(paths, key);
    }
    free(method);
    free(path);
    free(key);
    return r;
}

static void on_header_or_end(struct act_summary *s, const char *type, const struct json_node *o)
{
    const struct json_node *more = json_get(o, "more");

    if (strcmp(type, "activity") == 0) {
        s->max_records = uint_of(json_get(o, "maxRecords"));
        s->max_bytes = uint_of(json_get(o, "maxBytes"));
        return;
    }
    s->ended = true;
    s->capped = bool_of(json_get(o, "capped"), false);
    s->more_execs = uint_of(json_get(more, "execs"));
    s->more_requests = uint_of(json_get(more, "requests"));
}

static int on_line(struct act_summary *s, struct counter *c, const char *line, size_t len)
{
    struct json_node *o = NULL;
    struct rr_error ignored;
    const struct json_node *type;
    int r = 0;

    if (json_parse(line, len, &line_limits, &o, &ignored) < 0 ||
        (type = json_get(o, "type")) == NULL || type->type != JSON_STRING) {
        s->bad_lines++;
        json_free(o);
        return 0;
    }
    if (strcmp(type->u.string.s, "exec") == 0)
        r = on_exec(s, &c[0], o);
    else if (strcmp(type->u.string.s, "request") == 0)
        r = on_request(s, &c[1], o);
    else if (strcmp(type->u.string.s, "activity") == 0 || strcmp(type->u.string.s, "end") == 0)
        on_header_or_end(s, type->u.string.s, o);
    json_free(o);
    return r;
}

static int by_count(const void *a, const void *b)
{
    const struct act_count *x = a, *y = b;

    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->key, y->key);
}

int act_summary_load(const char *text, size_t len, struct act_summary *s, struct rr_error *err)
{
    struct counter c[2] = {{&s->programs, NULL}, {&s->paths, NULL}};
    int r = 0;

    memset(s, 0, sizeof(*s));
    s->programs.v = calloc(ACT_SUMMARY_KEYS, sizeof(struct act_count));
    s->paths.v = calloc(ACT_SUMMARY_KEYS, sizeof(struct act_count));
    c[0].slots = calloc(SLOTS, sizeof(size_t));
    c[1].slots = calloc(SLOTS, sizeof(size_t));
    if (s->programs.v == NULL || s->paths.v == NULL || c[0].slots == NULL || c[1].slots == NULL)
        r = -1;
    for (size_t at = 0; r == 0 && at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        r = on_line(s, c, text + at, n);
        at += n + 1;
    }
    free(c[0].slots);
    free(c[1].slots);
    if (r < 0) {
        act_summary_free(s);
        return rr_fail(err, ENOMEM, "activity summary");
    }
    /* an empty list has no array (NULL), which qsort may not be given */
    if (s->programs.n > 1)
        qsort(s->programs.v, s->programs.n, sizeof(struct act_count), by_count);
    if (s->paths.n > 1)
        qsort(s->paths.v, s->paths.n, sizeof(struct act_count), by_count);
    return 0;
}

void act_summary_free(struct act_summary *s)
{
    struct act_table *t[2] = {&s->programs, &s->paths};

    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; t[k]->v != NULL && i < t[k]->n; i++)
            free(t[k]->v[i].key);
        free(t[k]->v);
        t[k]->v = NULL;
        t[k]->n = 0;
    }
}

static void table_text(FILE *f, const char *title, const struct act_table *t)
{
    size_t i;

    if (t->n == 0)
        return;
    fprintf(f, "  %s:\n", title);
    for (i = 0; i < t->n && i < ACT_SUMMARY_TEXT; i++)
        fprintf(f, "    %6llu  %s\n", (unsigned long long)t->v[i].n, t->v[i].key);
    if (i < t->n || t->others > 0) {
        uint64_t rest = t->others;
        for (; i < t->n; i++)
            rest += t->v[i].n;
        fprintf(f, "    %6llu  (the rest: activity.jsonl)\n", (unsigned long long)rest);
    }
}

void act_summary_text(FILE *f, const struct act_summary *s)
{
    fprintf(f, "activity: %llu program%s run, %llu request%s through the broker (recorded by "
               "revrun outside the sandbox: activity.jsonl)\n",
            (unsigned long long)s->execs, s->execs == 1 ? "" : "s",
            (unsigned long long)s->requests, s->requests == 1 ? "" : "s");
    if (s->capped || s->more_execs > 0 || s->more_requests > 0)
        fprintf(f, "  the record's cap (%llu records, %llu bytes) was reached: %llu more "
                   "exec%s and %llu more request%s were counted, not recorded\n",
                (unsigned long long)s->max_records, (unsigned long long)s->max_bytes,
                (unsigned long long)s->more_execs, s->more_execs == 1 ? "" : "s",
                (unsigned long long)s->more_requests, s->more_requests == 1 ? "" : "s");
    if (!s->ended)
        fprintf(f, "  the record has no last line: it may be incomplete\n");
    if (s->nested > 0)
        fprintf(f, "  %llu of the programs ran inside the agent's own sandbox\n",
                (unsigned long long)s->nested);
    if (s->not_found > 0)
        fprintf(f, "  %llu exec%s found no file there (a PATH search's misses; in the record, "
                   "\"found\": false)\n",
                (unsigned long long)s->not_found, s->not_found == 1 ? "" : "s");
    table_text(f, "programs by count", &s->programs);
    table_text(f, "requests by method, path and status", &s->paths);
}

static void table_json(struct json_writer *w, const char *key, const struct act_table *t)
{
    json_w_key(w, key);
    json_w_begin_array(w);
    for (size_t i = 0; i < t->n && i < ACT_SUMMARY_JSON; i++) {
        json_w_begin_object(w);
        json_w_kv_string(w, "name", t->v[i].key);
        json_w_kv_uint(w, "count", t->v[i].n);
        json_w_end_object(w);
    }
    json_w_end_array(w);
}

void act_summary_json(struct json_writer *w, const struct act_summary *s)
{
    json_w_begin_object(w);
    json_w_kv_string(w, "file", "activity.jsonl");
    json_w_kv_uint(w, "programs", s->execs);
    json_w_kv_uint(w, "requests", s->requests);
    json_w_kv_uint(w, "notFound", s->not_found);
    json_w_kv_uint(w, "nested", s->nested);
    json_w_kv_bool(w, "capped", s->capped);
    json_w_kv_bool(w, "complete", s->ended);
    json_w_kv_uint(w, "moreExecs", s->more_execs);
    json_w_kv_uint(w, "moreRequests", s->more_requests);
    table_json(w, "byProgram", &s->programs);
    table_json(w, "byRequest", &s->paths);
    json_w_end_object(w);
}
