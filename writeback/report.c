#include "writeback/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/escape.h"
#include "writeback/manifest.h"

static void put_obj(FILE *out, const char *label, const struct wb_obj *o)
{
    char hex[WB_SHA256_HEX];

    if (o->type == WB_T_NONE)
        return;
    wb_hex(o->sha256, WB_SHA256_LEN, hex);
    if (o->type == WB_T_FILE)
        fprintf(out, "%s%s %ju bytes sha256 %s", label, o->exec ? "100755" : "100644",
                (uintmax_t)o->size, hex);
    else if (o->type == WB_T_SYMLINK) {
        _cleanup_free_ char *t = rr_escape_dup(o->target, strlen(o->target));
        fprintf(out, "%s-> %s", label, t ? t : "?");
    } else
        fprintf(out, "%sdirectory", label);
}

static int put_change(FILE *out, const struct wb_change *c)
{
    _cleanup_free_ char *p = rr_escape_dup(c->path, c->path_len);

    if (p == NULL)
        return -1;
    fprintf(out, "  %-10s %s%s\n", wb_kind_name(c->kind), p, c->new.type == WB_T_DIR ? "/" : "");
    if (c->new.type != WB_T_NONE) {
        put_obj(out, "             new:  ", &c->new);
        fputc('\n', out);
    }
    if (c->base.type != WB_T_NONE && c->kind != WB_DIR_ADD) {
        put_obj(out, "             base: ", &c->base);
        fputc('\n', out);
    }
    return 0;
}

static int put_notes(FILE *out, const char *label, const struct wb_notes *notes)
{
    for (size_t i = 0; i < notes->n; i++) {
        const struct wb_note *n = &notes->v[i];
        _cleanup_free_ char *p = rr_escape_dup(n->path, n->path_len);
        _cleanup_free_ char *d = rr_escape_dup(n->detail, strlen(n->detail));
        if (p == NULL || d == NULL)
            return -1;
        fprintf(out, "%s %s: %s [%s]\n", label, n->path_len ? p : "(change set)", d, n->code);
    }
    return 0;
}

int wb_report_text(FILE *out, const struct wb_changeset *cs, struct rr_error *err)
{
    char hex[WB_SHA256_HEX];

    if (wb_changeset_digest_hex(cs, hex, err) < 0)
        return -1;
    fprintf(out, "%zu change%s\n", cs->n, cs->n == 1 ? "" : "s");
    for (size_t i = 0; i < cs->n; i++)
        if (put_change(out, &cs->v[i]) < 0)
            return rr_fail(err, ENOMEM, "report");
    if (cs->warned.n > 0)
        fprintf(out, "\n!!! %zu warning%s: review these paths closely\n", cs->warned.n,
                cs->warned.n == 1 ? "" : "s");
    if (put_notes(out, "WARNING", &cs->warned) < 0)
        return rr_fail(err, ENOMEM, "report");
    if (cs->refused.n > 0)
        fprintf(out, "\n%zu reason%s to refuse:\n", cs->refused.n, cs->refused.n == 1 ? "" : "s");
    if (put_notes(out, "REFUSED", &cs->refused) < 0)
        return rr_fail(err, ENOMEM, "report");
    fprintf(out, "\nverdict: %s\ndigest: %s\n", wb_changeset_refused(cs) ? "refuse" : "accept",
            hex);
    return 0;
}

static void json_notes(struct json_writer *w, const char *key, const struct wb_notes *notes)
{
    json_w_key(w, key);
    json_w_begin_array(w);
    for (size_t i = 0; i < notes->n; i++) {
        json_w_begin_object(w);
        json_w_key(w, "path");
        wb_json_text(w, notes->v[i].path, notes->v[i].path_len);
        json_w_kv_string(w, "code", notes->v[i].code);
        json_w_key(w, "reason");
        wb_json_text(w, notes->v[i].detail, strlen(notes->v[i].detail));
        json_w_end_object(w);
    }
    json_w_end_array(w);
}

int wb_report_json(FILE *out, const struct wb_changeset *cs, struct rr_error *err)
{
    char hex[WB_SHA256_HEX];
    _cleanup_free_ char *doc = NULL;
    struct json_writer *w;
    size_t len;
    int r;

    if (wb_changeset_digest_hex(cs, hex, err) < 0)
        return -1;
    if ((w = json_writer_new(false)) == NULL)
        return rr_fail(err, ENOMEM, "report");
    json_w_begin_object(w);
    json_w_kv_string(w, "digest", hex);
    json_w_kv_string(w, "verdict", wb_changeset_refused(cs) ? "refuse" : "accept");
    wb_json_changes(w, cs);
    json_notes(w, "reasons", &cs->refused);
    json_notes(w, "warnings", &cs->warned);
    json_w_end_object(w);
    r = json_writer_finish(w, &doc, &len, err);
    json_writer_free(w);
    if (r < 0)
        return -1;
    fwrite(doc, 1, len, out);
    fputc('\n', out);
    return 0;
}
