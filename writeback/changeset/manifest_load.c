/* Reading manifest.json back for apply. The export directory may have sat in
 * a CI artifact store: everything in it is parsed as hostile, and the digest
 * is recomputed from what was parsed, so the operator's approval covers
 * exactly what apply is about to do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/changeset/manifest.h"
#include "writeback/names/names.h"

#define CHANGE_MAX_KEYS 13

struct reader {
    const struct json_node *obj;
    size_t used; /* members consumed: any left over are unknown keys */
    struct rr_error *err;
};

static const struct json_node *member(struct reader *r, const char *prefix, const char *name,
                                      enum json_type type)
{
    char k[32];
    const struct json_node *v;

    snprintf(k, sizeof(k), "%s%s", prefix, name);
    v = json_get(r->obj, k);
    if (v == NULL) {
        rr_fail(r->err, 0, "missing \"%s\"", k);
        return NULL;
    }
    if (v->type != type) {
        rr_fail(r->err, 0, "\"%s\" is a %s, not a %s", k, json_type_name(v->type),
                json_type_name(type));
        return NULL;
    }
    r->used++;
    return v;
}

static int read_sha(struct reader *r, const char *prefix, unsigned char out[WB_SHA256_LEN])
{
    const struct json_node *v = member(r, prefix, "sha256", JSON_STRING);

    if (v == NULL)
        return -1;
    if (v->u.string.len != 2 * WB_SHA256_LEN || !wb_unhex(v->u.string.s, out, WB_SHA256_LEN))
        return rr_fail(r->err, 0, "\"%ssha256\" is not 64 hex digits", prefix);
    return 0;
}

static int read_mode(struct reader *r, const char *prefix, struct wb_obj *o)
{
    static const char *const want[] = {[WB_T_DIR] = "040000", [WB_T_SYMLINK] = "120000"};
    const struct json_node *v = member(r, prefix, "mode", JSON_STRING);

    if (v == NULL)
        return -1;
    if (o->type == WB_T_FILE) {
        o->exec = strcmp(v->u.string.s, "100755") == 0;
        if (o->exec || strcmp(v->u.string.s, "100644") == 0)
            return 0;
    } else if (strcmp(v->u.string.s, want[o->type]) == 0) {
        return 0;
    }
    return rr_fail(r->err, 0, "\"%smode\" does not fit the type", prefix);
}

static int read_symlink(struct reader *r, const char *prefix, struct wb_obj *o)
{
    const struct json_node *v = member(r, prefix, "target", JSON_STRING);
    unsigned char want[WB_SHA256_LEN];

    if (v == NULL || read_sha(r, prefix, o->sha256) < 0)
        return -1;
    if ((o->target = strdup(v->u.string.s)) == NULL)
        return rr_fail(r->err, ENOMEM, "manifest");
    o->size = v->u.string.len;
    wb_sha256(o->target, o->size, want);
    if (memcmp(want, o->sha256, WB_SHA256_LEN) != 0)
        return rr_fail(r->err, 0, "\"%ssha256\" is not the hash of the target", prefix);
    return 0;
}

static int read_obj(struct reader *r, const char *prefix, struct wb_obj *o)
{
    const struct json_node *v = member(r, prefix, "type", JSON_STRING);
    int t = v ? wb_type_parse(v->u.string.s) : -1;

    if (v == NULL)
        return -1;
    if (t < 0)
        return rr_fail(r->err, 0, "unknown \"%stype\"", prefix);
    o->type = (enum wb_type)t;
    if (o->type == WB_T_NONE)
        return 0;
    if (read_mode(r, prefix, o) < 0)
        return -1;
    if (o->type == WB_T_SYMLINK)
        return read_symlink(r, prefix, o);
    if (o->type != WB_T_FILE)
        return 0;
    if ((v = member(r, prefix, "size", JSON_INT)) == NULL)
        return -1;
    if (v->u.integer < 0)
        return rr_fail(r->err, 0, "negative \"%ssize\"", prefix);
    o->size = (uint64_t)v->u.integer;
    return read_sha(r, prefix, o->sha256);
}

/* One change object into a new entry of cs. */
static int read_change(const struct json_node *obj, struct wb_changeset *cs, struct rr_error *err)
{
    struct reader r = {.obj = obj, .err = err};
    struct wb_obj base = {0}, new = {0};
    const struct json_node *path = NULL, *kind = NULL;
    int rc = -1;

    if (obj->type != JSON_OBJECT)
        return rr_fail(err, 0, "a change is not an object");
    if ((path = member(&r, "", "path", JSON_STRING)) == NULL ||
        (kind = member(&r, "", "kind", JSON_STRING)) == NULL || read_obj(&r, "", &new) < 0 ||
        read_obj(&r, "base_", &base) < 0)
        goto out;
    if (r.used != obj->u.object.n) {
        rr_fail(err, 0, "unknown keys");
    } else if (wb_kind_parse(kind->u.string.s) != wb_kind_of(&base, &new)) {
        rr_fail(err, 0, "\"kind\" is not what turns base into new");
    } else {
        size_t before = cs->n;
        rc = wb_changeset_add(cs, path->u.string.s, path->u.string.len, &base, &new, err);
        if (rc == 0 && cs->n == before)
            rc = rr_fail(err, 0, "a change that changes nothing");
    }
out:
    if (rc < 0 && path != NULL)
        rr_wrap(err, "change of %.200s", path->u.string.s);
    wb_obj_free(&base);
    wb_obj_free(&new);
    return rc;
}

static int read_changes(const struct json_node *arr, struct wb_changeset *cs, struct rr_error *err)
{
    for (size_t i = 0; i < arr->u.array.n; i++) {
        if (read_change(arr->u.array.items[i], cs, err) < 0)
            return rr_wrap(err, "changes[%zu]", i);
        if (i > 0) {
            const struct wb_change *a = &cs->v[i - 1], *b = &cs->v[i];
            if (wb_path_cmp(a->path, a->path_len, b->path, b->path_len) >= 0)
                return rr_fail(err, 0, "changes[%zu]: paths not in canonical order", i);
        }
    }
    return 0;
}

/* An optional member: 0 and *v (NULL when absent), or -1 (another type). */
static int opt_member(struct reader *r, const char *name, enum json_type type,
                      const struct json_node **v)
{
    *v = NULL;
    if (json_get(r->obj, name) == NULL)
        return 0;
    return (*v = member(r, "", name, type)) != NULL ? 0 : -1;
}

static int read_base(struct reader *top, const struct json_node *obj, struct wb_origin *o)
{
    struct reader r = {.obj = obj, .err = top->err};
    const struct json_node *commit, *tree;

    if (obj->type != JSON_OBJECT)
        return rr_fail(top->err, 0, "\"base\" is not an object");
    if ((commit = member(&r, "", "commit", JSON_STRING)) == NULL ||
        (tree = member(&r, "", "tree", JSON_STRING)) == NULL)
        return rr_wrap(top->err, "\"base\"");
    if (r.used != obj->u.object.n)
        return rr_fail(top->err, 0, "\"base\": unknown keys");
    if (!wb_oid_hex_ok(commit->u.string.s, commit->u.string.len) ||
        !wb_oid_hex_ok(tree->u.string.s, tree->u.string.len))
        return rr_fail(top->err, 0, "\"base\": not 40 lower-case hex digits");
    memcpy(o->base.commit, commit->u.string.s, WB_OID_HEX);
    memcpy(o->base.tree, tree->u.string.s, WB_OID_HEX);
    return 0;
}

static int read_commit(const struct json_node *obj, struct wb_origin *o, struct rr_error *err)
{
    struct reader r = {.obj = obj, .err = err};
    const struct json_node *subject, *body;

    if (obj->type != JSON_OBJECT)
        return rr_fail(err, 0, "not an object");
    if ((subject = member(&r, "", "subject", JSON_STRING)) == NULL ||
        (body = member(&r, "", "body", JSON_STRING)) == NULL)
        return -1;
    if (r.used != obj->u.object.n)
        return rr_fail(err, 0, "unknown keys");
    if (!wb_origin_text_ok(subject->u.string.s, subject->u.string.len, false,
                           WB_SUBJECT_TEXT_MAX) ||
        !wb_origin_text_ok(body->u.string.s, body->u.string.len, true, WB_BODY_TEXT_MAX))
        return rr_fail(err, 0, "text that is not escaped, or too long");
    return wb_origin_add_escaped(o, subject->u.string.s, body->u.string.s, err);
}

/* The origin (origin.h): every member optional, each checked as strictly
 * as a change. */
static int read_origin(struct reader *top, struct wb_origin *o)
{
    const struct json_node *review, *base, *commits;

    if (opt_member(top, "review", JSON_STRING, &review) < 0 ||
        opt_member(top, "base", JSON_OBJECT, &base) < 0 ||
        opt_member(top, "commits", JSON_ARRAY, &commits) < 0)
        return -1;
    if (review && wb_origin_set_review(o, review->u.string.s, top->err) < 0)
        return -1;
    if (base && read_base(top, base, o) < 0)
        return -1;
    if (commits && commits->u.array.n > WB_ORIGIN_COMMITS)
        return rr_fail(top->err, 0, "more than %u commits", WB_ORIGIN_COMMITS);
    for (size_t i = 0; commits && i < commits->u.array.n; i++)
        if (read_commit(commits->u.array.items[i], o, top->err) < 0)
            return rr_wrap(top->err, "commits[%zu]", i);
    return 0;
}

static int read_top(const struct json_node *root, struct wb_changeset *cs,
                    unsigned char recorded[WB_SHA256_LEN], struct rr_error *err)
{
    struct reader r = {.obj = root, .err = err};
    const struct json_node *ver, *dig, *changes;

    if (root->type != JSON_OBJECT)
        return rr_fail(err, 0, "not an object");
    if ((ver = member(&r, "", "version", JSON_INT)) == NULL ||
        (dig = member(&r, "", "digest", JSON_STRING)) == NULL ||
        (changes = member(&r, "", "changes", JSON_ARRAY)) == NULL ||
        read_origin(&r, &cs->origin) < 0)
        return -1;
    if (r.used != root->u.object.n)
        return rr_fail(err, 0, "unknown keys at the top");
    if (ver->u.integer != WB_MANIFEST_VERSION)
        return rr_fail(err, 0, "version %lld is not %d", (long long)ver->u.integer,
                       WB_MANIFEST_VERSION);
    if (!wb_digest_parse(dig->u.string.s, recorded))
        return rr_fail(err, 0, "\"digest\" is not a sha256");
    return read_changes(changes, cs, err);
}

int wb_manifest_load(int dirfd, const struct rr_writeback_policy *pol, struct wb_changeset *cs,
                     unsigned char out[WB_SHA256_LEN], struct rr_error *err)
{
    /* Room for max_files changes with their longest paths and targets. */
    const struct json_limits lim = {
        .max_bytes = 96u << 20,
        .max_depth = 4,
        .max_nodes = (size_t)pol->max_files * (CHANGE_MAX_KEYS + 1) + 8,
        .max_string = 2 * (size_t)pol->max_path_bytes + 64 > WB_BODY_TEXT_MAX + 64
                          ? 2 * (size_t)pol->max_path_bytes + 64
                          : WB_BODY_TEXT_MAX + 64,
        .max_members = CHANGE_MAX_KEYS,
    };
    struct json_node *root = NULL;
    unsigned char recorded[WB_SHA256_LEN];
    int r;

    if (json_parse_file(dirfd, WB_MANIFEST_NAME, &lim, &root, err) < 0)
        return -1;
    r = read_top(root, cs, recorded, err);
    json_free(root);
    if (r < 0)
        return rr_wrap(err, "%s", WB_MANIFEST_NAME);
    if (wb_changeset_digest(cs, out, err) < 0)
        return -1;
    if (memcmp(out, recorded, WB_SHA256_LEN) != 0)
        return rr_fail(err, 0, "%s: the recorded digest is not the digest of its changes",
                       WB_MANIFEST_NAME);
    return 0;
}
