#include "writeback/patch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/binpatch.h"
#include "writeback/fsutil.h"
#include "writeback/myers.h"

#define CONTEXT 3
#define BINARY_PROBE 8000

struct side {
    const struct wb_obj *o; /* type NONE or DIR: empty */
    char *data;
    size_t len;
    char blob_id[WB_SHA1_HEX];
};

static bool needs_quote(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\' || c == ' ' || c < 0x20 || c >= 0x7f)
            return true;
    }
    return false;
}

void wb_patch_put_path(FILE *out, const char *prefix, const char *path, size_t len)
{
    if (!needs_quote(path, len)) {
        fprintf(out, "%s%.*s", prefix, (int)len, path);
        return;
    }
    fprintf(out, "\"%s", prefix);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\%03o", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static const char *mode_of(const struct wb_obj *o)
{
    if (o->type == WB_T_SYMLINK)
        return "120000";
    return o->exec ? "100755" : "100644";
}

static bool present(const struct wb_obj *o)
{
    return o->type == WB_T_FILE || o->type == WB_T_SYMLINK;
}

static void blob_id(const char *data, size_t len, char out[WB_SHA1_HEX])
{
    char hdr[32];
    unsigned char d[WB_SHA1_LEN];
    struct wb_sha1 c;
    int n = snprintf(hdr, sizeof(hdr), "blob %zu", len);

    wb_sha1_init(&c);
    wb_sha1_update(&c, hdr, (size_t)n + 1); /* with the NUL */
    wb_sha1_update(&c, data, len);
    wb_sha1_final(&c, d);
    wb_hex(d, sizeof(d), out);
}

static int load(struct side *sd, int rootfd, const char *path, struct rr_error *err)
{
    const struct wb_obj *o = sd->o;

    if (o->type == WB_T_FILE) {
        if (wb_read_verified(rootfd, path, o->size, o->sha256, &sd->data, err) < 0)
            return -1;
        sd->len = o->size;
    } else if (o->type == WB_T_SYMLINK) {
        if ((sd->data = strdup(o->target)) == NULL)
            return rr_fail(err, ENOMEM, "patch");
        sd->len = o->size;
    }
    if (present(o))
        blob_id(sd->data ? sd->data : "", sd->len, sd->blob_id);
    else
        memset(sd->blob_id, '0', WB_SHA1_HEX - 1), sd->blob_id[WB_SHA1_HEX - 1] = '\0';
    return 0;
}

static bool is_binary(const struct side *sd)
{
    size_t n = sd->len < BINARY_PROBE ? sd->len : BINARY_PROBE;
    return sd->data != NULL && memchr(sd->data, '\0', n) != NULL;
}

static void put_line(FILE *out, char mark, const struct wb_line *l)
{
    fputc(mark, out);
    fwrite(l->s, 1, l->len, out);
    if (l->len == 0 || l->s[l->len - 1] != '\n')
        fputs("\n\\ No newline at end of file\n", out);
}

/* One hunk: edits [from, to), with old/new line numbers at its start. */
static void put_hunk(FILE *out, const struct wb_edit *e, size_t from, size_t to,
                     const struct wb_line *a, const struct wb_line *b, size_t oa, size_t ob)
{
    size_t na = 0, nb = 0;

    for (size_t i = from; i < to; i++) {
        na += e[i].op != WB_INS;
        nb += e[i].op != WB_DEL;
    }
    fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", na ? oa + 1 : oa, na, nb ? ob + 1 : ob, nb);
    for (size_t i = from; i < to; i++) {
        if (e[i].op == WB_EQ)
            put_line(out, ' ', &a[e[i].a]);
        else if (e[i].op == WB_DEL)
            put_line(out, '-', &a[e[i].a]);
        else
            put_line(out, '+', &b[e[i].b]);
    }
}

/* Group the edits into hunks: changes closer than 2*CONTEXT lines share one. */
static void put_hunks(FILE *out, const struct wb_edit *e, size_t n, const struct wb_line *a,
                      const struct wb_line *b)
{
    size_t i = 0, oa = 0, ob = 0;

    while (i < n) {
        size_t first = i, last, from, to;
        while (first < n && e[first].op == WB_EQ)
            first++;
        if (first == n)
            return;
        last = first;
        for (size_t k = first; k < n && k <= last + 2 * CONTEXT; k++)
            if (e[k].op != WB_EQ)
                last = k;
        from = first > CONTEXT ? first - CONTEXT : 0;
        from = from < i ? i : from;
        to = last + 1 + CONTEXT < n ? last + 1 + CONTEXT : n;
        for (size_t k = i; k < from; k++) { /* line numbers up to the hunk */
            oa += e[k].op != WB_INS;
            ob += e[k].op != WB_DEL;
        }
        put_hunk(out, e, from, to, a, b, oa, ob);
        for (size_t k = from; k < to; k++) {
            oa += e[k].op != WB_INS;
            ob += e[k].op != WB_DEL;
        }
        i = to;
    }
}

static int put_text(FILE *out, const struct side *old, const struct side *new, struct rr_error *err)
{
    _cleanup_free_ struct wb_line *a = NULL;
    _cleanup_free_ struct wb_line *b = NULL;
    _cleanup_free_ struct wb_edit *e = NULL;
    size_t na, nb, ne;

    if (wb_lines_split(old->data ? old->data : "", old->len, &a, &na, err) < 0 ||
        wb_lines_split(new->data ? new->data : "", new->len, &b, &nb, err) < 0 ||
        wb_myers(a, na, b, nb, &e, &ne, err) < 0)
        return -1;
    put_hunks(out, e, ne, a, b);
    return 0;
}

static void put_header(FILE *out, const char *path, size_t len, const struct side *old,
                       const struct side *new)
{
    bool same_mode =
        present(old->o) && present(new->o) && strcmp(mode_of(old->o), mode_of(new->o)) == 0;

    fputs("diff --git ", out);
    wb_patch_put_path(out, "a/", path, len);
    fputc(' ', out);
    wb_patch_put_path(out, "b/", path, len);
    fputc('\n', out);
    if (!present(old->o))
        fprintf(out, "new file mode %s\n", mode_of(new->o));
    else if (!present(new->o))
        fprintf(out, "deleted file mode %s\n", mode_of(old->o));
    else if (!same_mode)
        fprintf(out, "old mode %s\nnew mode %s\n", mode_of(old->o), mode_of(new->o));
    if (strcmp(old->blob_id, new->blob_id) != 0 || !present(old->o) || !present(new->o))
        fprintf(out, "index %s..%s%s%s\n", old->blob_id, new->blob_id, same_mode ? " " : "",
                same_mode ? mode_of(new->o) : "");
}

static int put_body(FILE *out, const char *path, size_t len, const struct side *old,
                    const struct side *new, struct rr_error *err)
{
    if (strcmp(old->blob_id, new->blob_id) == 0 || (old->len == 0 && new->len == 0))
        return 0; /* a mode change, or an empty file created or deleted */
    if (is_binary(old) || is_binary(new)) {
        fputs("GIT binary patch\n", out);
        return wb_binpatch_literal(out, (const unsigned char *)(new->data ? new->data : ""),
                                   new->len, err);
    }
    fputs("--- ", out);
    present(old->o) ? wb_patch_put_path(out, "a/", path, len) : (void)fputs("/dev/null", out);
    fputs("\n+++ ", out);
    present(new->o) ? wb_patch_put_path(out, "b/", path, len) : (void)fputs("/dev/null", out);
    fputc('\n', out);
    return put_text(out, old, new, err);
}

/* One git diff: base -> new, either of which may be absent (NONE or DIR). */
static int put_diff(FILE *out, const struct wb_scan *s, const struct wb_change *c,
                    const struct wb_obj *base, const struct wb_obj *new, struct rr_error *err)
{
    struct side o = {.o = base}, n = {.o = new};
    int r = -1;

    if (load(&o, s->lower_fd, c->path, err) == 0 && load(&n, s->upper_fd, c->path, err) == 0) {
        put_header(out, c->path, c->path_len, &o, &n);
        r = put_body(out, c->path, c->path_len, &o, &n, err);
    }
    free(o.data);
    free(n.data);
    return r < 0 ? rr_wrap(err, "patch of %s", c->path) : 0;
}

int wb_patch_write(FILE *out, const struct wb_scan *s, struct rr_error *err)
{
    static const struct wb_obj none = {.type = WB_T_NONE};

    for (size_t i = 0; i < s->cs.n; i++) {
        const struct wb_change *c = &s->cs.v[i];
        int r = 0;
        if (c->kind == WB_REPLACE) {
            /* git has no type change: the old one goes, the new one comes */
            if (present(&c->base))
                r = put_diff(out, s, c, &c->base, &none, err);
            if (r == 0 && present(&c->new))
                r = put_diff(out, s, c, &none, &c->new, err);
        } else if (present(&c->base) || present(&c->new)) {
            r = put_diff(out, s, c, &c->base, &c->new, err);
        }
        if (r < 0)
            return -1;
    }
    return 0;
}
