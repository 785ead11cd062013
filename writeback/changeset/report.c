#include "writeback/changeset/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/escape.h"
#include "writeback/changeset/manifest.h"

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
    /* the patch shows such content as binary: say why here too */
    if (c->new.type == WB_T_FILE && c->new.unsafe)
        fprintf(out, "             the new content holds %s: shown as binary in the patch\n",
                c->new.unsafe);
    if (c->base.type == WB_T_FILE && c->base.unsafe)
        fprintf(out, "             the old content holds %s: shown as binary in the patch\n",
                c->base.unsafe);
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

static int put_texts(FILE *out, const struct wb_text *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        _cleanup_free_ char *e = rr_escape_dup(t[i].s, t[i].len);
        if (e == NULL)
            return -1;
        fprintf(out, "    %s\n", e);
    }
    return 0;
}

static int put_ignored(FILE *out, const struct wb_gitinfo *gi)
{
    for (size_t i = 0; i < gi->n_ignored_first; i++) {
        const struct wb_text *t = &gi->ignored_first[i];
        _cleanup_free_ char *e = rr_escape_dup(t->s, t->len);
        if (e == NULL)
            return -1;
        if (t->len > 0 && t->s[t->len - 1] == '/')
            fprintf(out, "    %s (%ju file%s)\n", e, (uintmax_t)gi->ignored_first_files[i],
                    gi->ignored_first_files[i] == 1 ? "" : "s");
        else
            fprintf(out, "    %s\n", e);
    }
    return 0;
}

static int put_git(FILE *out, const struct wb_gitinfo *gi)
{
    if (!gi->repo)
        return 0;
    if (gi->scratch > 0)
        fprintf(out, "\nthe agent changed %s%ju file%s under .git (not part of the change set)\n",
                gi->scratch_more ? "at least " : "", (uintmax_t)gi->scratch,
                gi->scratch == 1 ? "" : "s");
    if (gi->commits_packed)
        fprintf(out, "\nthe agent's commits%s are in a pack it wrote (git gc, repack) that revrun "
                     "did not read within its bounds (%s), so they are not listed\n",
                gi->n_commits > 0 ? " older than those below" : "", gi->packed_why);
    if (gi->n_commits > 0 || gi->commits_off_base) {
        fprintf(out, "\nthe agent's commit%s %s (newest first; not applied, the worktree is):\n",
                gi->n_commits == 1 ? "" : "s",
                gi->commits_off_base ? "(its HEAD is not on top of the checkout's)"
                                     : "on top of the checkout's HEAD");
        if (put_texts(out, gi->commits, gi->n_commits) < 0)
            return -1;
        if (gi->commits_more)
            fprintf(out, "    ... and more\n");
    }
    if (gi->ignored > 0) {
        fprintf(out,
                "\n%ju ignored file%s left out by the checkout's ignore rules (not exported; "
                "revrun.writeback.ignored \"include\" keeps them):\n",
                (uintmax_t)gi->ignored, gi->ignored == 1 ? "" : "s");
        if (put_ignored(out, gi) < 0)
            return -1;
        if (gi->ignored_names > gi->n_ignored_first)
            fprintf(out, "    ... and %ju more\n",
                    (uintmax_t)(gi->ignored_names - gi->n_ignored_first));
    }
    if (gi->problem[0] != '\0') {
        _cleanup_free_ char *e = rr_escape_dup(gi->problem, strlen(gi->problem));
        fprintf(out, "\nnote: %s\n", e ? e : "?");
    }
    return 0;
}

/* The commit the set was made on, or why none is recorded. */
static void put_base(FILE *out, const struct wb_changeset *cs)
{
    const struct wb_origin *o = &cs->origin;

    if (wb_origin_has_base(o))
        fprintf(out, "\nbase: commit %s (tree %s), the checkout's HEAD\n", o->base.commit,
                o->base.tree);
    else if (cs->git.repo && cs->git.base_problem[0] != '\0') {
        _cleanup_free_ char *e = rr_escape_dup(cs->git.base_problem, strlen(cs->git.base_problem));
        fprintf(out, "\nbase: none recorded (%s)\n", e ? e : "?");
    }
}

static void json_texts(struct json_writer *w, const char *key, const struct wb_text *t, size_t n)
{
    json_w_key(w, key);
    json_w_begin_array(w);
    for (size_t i = 0; i < n; i++)
        wb_json_text(w, t[i].s, t[i].len);
    json_w_end_array(w);
}

void wb_report_git_json(struct json_writer *w, const struct wb_gitinfo *gi)
{
    if (!gi->repo)
        return;
    json_w_key(w, "git");
    json_w_begin_object(w);
    json_w_key(w, "ignored");
    json_w_begin_object(w);
    json_w_kv_uint(w, "count", gi->ignored);
    json_texts(w, "first", gi->ignored_first, gi->n_ignored_first);
    json_w_kv_bool(w, "exported", gi->include_ignored);
    json_w_end_object(w);
    json_w_key(w, "gitDir");
    json_w_begin_object(w);
    json_w_kv_uint(w, "changed", gi->scratch);
    json_w_kv_bool(w, "atLeast", gi->scratch_more);
    json_w_end_object(w);
    json_w_key(w, "commits");
    json_w_begin_object(w);
    json_texts(w, "subjects", gi->commits, gi->n_commits);
    json_w_kv_bool(w, "more", gi->commits_more);
    json_w_kv_bool(w, "onCheckoutHead", !gi->commits_off_base);
    json_w_kv_bool(w, "packed", gi->commits_packed);
    if (gi->commits_packed) {
        json_w_key(w, "packedWhy");
        wb_json_text(w, gi->packed_why, strlen(gi->packed_why));
    }
    json_w_end_object(w);
    if (gi->problem[0] != '\0') {
        json_w_key(w, "note");
        wb_json_text(w, gi->problem, strlen(gi->problem));
    }
    json_w_end_object(w);
}

int wb_report_text(FILE *out, const struct wb_changeset *cs, struct rr_error *err)
{
    if (wb_report_text_body(out, cs, err) < 0)
        return -1;
    return wb_report_text_verdict(out, cs, err);
}

/* A refused set's digest is labelled as such and never in the "digest: "
 * line an approvable set prints: no one copies it into --approve from a
 * report that only looks like an accepted one. */
int wb_report_text_verdict(FILE *out, const struct wb_changeset *cs, struct rr_error *err)
{
    char hex[WB_SHA256_HEX];

    if (wb_changeset_digest_hex(cs, hex, err) < 0)
        return -1;
    if (wb_changeset_refused(cs))
        fprintf(out, "\nverdict: refuse\nrefused set (not approvable): sha256 %s\n", hex);
    else
        fprintf(out, "\nverdict: accept\ndigest: %s\n", hex);
    return 0;
}

int wb_report_text_body(FILE *out, const struct wb_changeset *cs, struct rr_error *err)
{
    fprintf(out, "%zu change%s\n", cs->n, cs->n == 1 ? "" : "s");
    for (size_t i = 0; i < cs->n; i++)
        if (put_change(out, &cs->v[i]) < 0)
            return rr_fail(err, ENOMEM, "report");
    if (put_git(out, &cs->git) < 0)
        return rr_fail(err, ENOMEM, "report");
    put_base(out, cs);
    if (cs->warned.n > 0)
        fprintf(out, "\n!!! %zu warning%s: review these paths closely\n", cs->warned.n,
                cs->warned.n == 1 ? "" : "s");
    if (put_notes(out, "WARNING", &cs->warned) < 0)
        return rr_fail(err, ENOMEM, "report");
    if (cs->refused.n > 0)
        fprintf(out, "\n%zu reason%s to refuse:\n", cs->refused.n, cs->refused.n == 1 ? "" : "s");
    if (put_notes(out, "REFUSED", &cs->refused) < 0)
        return rr_fail(err, ENOMEM, "report");
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
    wb_json_origin(w, &cs->origin);
    wb_json_changes(w, cs);
    json_notes(w, "reasons", &cs->refused);
    json_notes(w, "warnings", &cs->warned);
    wb_report_git_json(w, &cs->git);
    json_w_end_object(w);
    r = json_writer_finish(w, &doc, &len, err);
    json_writer_free(w);
    if (r < 0)
        return -1;
    fwrite(doc, 1, len, out);
    fputc('\n', out);
    return 0;
}
