#include "writeback/changeset/manifest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/names/names.h"

static const char *mode_text(const struct wb_obj *o)
{
    switch (o->type) {
    case WB_T_FILE:
        return o->exec ? "100755" : "100644";
    case WB_T_SYMLINK:
        return "120000";
    case WB_T_DIR:
        return "040000";
    default:
        return NULL;
    }
}

bool wb_json_text_exact(const char *s, size_t len)
{
    return json_utf8_valid(s, len) && memchr(s, '\0', len) == NULL;
}

void wb_json_text(struct json_writer *w, const char *s, size_t len)
{
    if (wb_json_text_exact(s, len))
        json_w_string(w, s);
    else
        json_w_bytes(w, s, len);
}

static void key(struct json_writer *w, const char *prefix, const char *name)
{
    char k[32];
    size_t p = strnlen(prefix, sizeof(k) - 1), n = strnlen(name, sizeof(k) - 1 - p);

    /* two short constants: no printf machinery for every key of the manifest */
    memcpy(k, prefix, p);
    memcpy(k + p, name, n);
    k[p + n] = '\0';
    json_w_key(w, k);
}

static void write_obj(struct json_writer *w, const char *prefix, const struct wb_obj *o)
{
    char hex[WB_SHA256_HEX];

    key(w, prefix, "type");
    json_w_string(w, wb_type_name(o->type));
    if (o->type == WB_T_NONE)
        return;
    key(w, prefix, "mode");
    json_w_string(w, mode_text(o));
    wb_hex(o->sha256, WB_SHA256_LEN, hex);
    if (o->type == WB_T_FILE) {
        key(w, prefix, "size");
        json_w_uint(w, o->size);
    } else if (o->type == WB_T_SYMLINK) {
        key(w, prefix, "target");
        wb_json_text(w, o->target, strlen(o->target));
    } else {
        return;
    }
    key(w, prefix, "sha256");
    json_w_string(w, hex);
}

void wb_json_change(struct json_writer *w, const struct wb_change *c)
{
    json_w_begin_object(w);
    json_w_key(w, "path");
    wb_json_text(w, c->path, c->path_len);
    json_w_kv_string(w, "kind", wb_kind_name(c->kind));
    write_obj(w, "", &c->new);
    write_obj(w, "base_", &c->base);
    json_w_end_object(w);
}

void wb_json_origin(struct json_writer *w, const struct wb_origin *o)
{
    if (o->review != NULL)
        json_w_kv_string(w, "review", o->review);
    if (wb_origin_has_base(o)) {
        json_w_key(w, "base");
        json_w_begin_object(w);
        json_w_kv_string(w, "commit", o->base.commit);
        json_w_kv_string(w, "tree", o->base.tree);
        json_w_end_object(w);
    }
    if (o->n_commits == 0)
        return;
    json_w_key(w, "commits");
    json_w_begin_array(w);
    for (size_t i = 0; i < o->n_commits; i++) {
        json_w_begin_object(w);
        json_w_kv_string(w, "subject", o->commits[i].subject);
        json_w_kv_string(w, "body", o->commits[i].body);
        json_w_end_object(w);
    }
    json_w_end_array(w);
}

void wb_json_changes(struct json_writer *w, const struct wb_changeset *cs)
{
    json_w_key(w, "changes");
    json_w_begin_array(w);
    for (size_t i = 0; i < cs->n; i++)
        wb_json_change(w, &cs->v[i]);
    json_w_end_array(w);
}

int wb_changeset_digest(const struct wb_changeset *cs, unsigned char out[WB_SHA256_LEN],
                        struct rr_error *err)
{
    struct json_writer *w = json_writer_new(false);
    _cleanup_free_ char *doc = NULL;
    size_t len;
    int r;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "canonical manifest");
    json_w_begin_object(w);
    json_w_kv_int(w, "version", WB_MANIFEST_VERSION);
    wb_json_origin(w, &cs->origin);
    wb_json_changes(w, cs);
    json_w_end_object(w);
    r = json_writer_finish(w, &doc, &len, err);
    json_writer_free(w);
    if (r < 0)
        return rr_wrap(err, "canonical manifest");
    wb_sha256(doc, len, out);
    return 0;
}

int wb_changeset_digest_hex(const struct wb_changeset *cs, char hex[WB_SHA256_HEX],
                            struct rr_error *err)
{
    unsigned char d[WB_SHA256_LEN];

    if (wb_changeset_digest(cs, d, err) < 0)
        return -1;
    wb_hex(d, sizeof(d), hex);
    return 0;
}

int wb_manifest_render(const struct wb_changeset *cs, char **out, size_t *len,
                       unsigned char digest[WB_SHA256_LEN], struct rr_error *err)
{
    char hex[WB_SHA256_HEX];
    struct json_writer *w;
    int r;

    if (wb_changeset_digest(cs, digest, err) < 0)
        return -1;
    wb_hex(digest, WB_SHA256_LEN, hex);
    if ((w = json_writer_new(true)) == NULL)
        return rr_fail(err, ENOMEM, "manifest");
    json_w_begin_object(w);
    json_w_kv_int(w, "version", WB_MANIFEST_VERSION);
    json_w_kv_string(w, "digest", hex);
    wb_json_origin(w, &cs->origin);
    wb_json_changes(w, cs);
    json_w_end_object(w);
    r = json_writer_finish(w, out, len, err);
    json_writer_free(w);
    return r;
}

bool wb_digest_parse(const char *s, unsigned char out[WB_SHA256_LEN])
{
    if (strncmp(s, "sha256:", 7) == 0)
        s += 7;
    return strlen(s) == 2 * WB_SHA256_LEN && wb_unhex(s, out, WB_SHA256_LEN);
}
