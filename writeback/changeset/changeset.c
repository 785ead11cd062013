#include "writeback/changeset/changeset.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"

static const char *const kind_names[] = {
    [WB_ADD] = "add",
    [WB_MODIFY] = "modify",
    [WB_DELETE] = "delete",
    [WB_MODE] = "mode",
    [WB_SYMLINK] = "symlink",
    [WB_DIR_ADD] = "dir-add",
    [WB_DIR_DELETE] = "dir-delete",
    [WB_REPLACE] = "replace",
};

static const char *const type_names[] = {
    [WB_T_NONE] = "none", [WB_T_FILE] = "file", [WB_T_DIR] = "dir", [WB_T_SYMLINK] = "symlink"};

const char *wb_kind_name(enum wb_kind k)
{
    return kind_names[k];
}

const char *wb_type_name(enum wb_type t)
{
    return type_names[t];
}

int wb_kind_parse(const char *s)
{
    for (size_t i = 0; i < RR_ARRAY_SIZE(kind_names); i++)
        if (strcmp(s, kind_names[i]) == 0)
            return (int)i;
    return -1;
}

int wb_type_parse(const char *s)
{
    for (size_t i = 0; i < RR_ARRAY_SIZE(type_names); i++)
        if (strcmp(s, type_names[i]) == 0)
            return (int)i;
    return -1;
}

static int same_type_kind(const struct wb_obj *b, const struct wb_obj *n)
{
    switch (n->type) {
    case WB_T_FILE:
        if (memcmp(b->sha256, n->sha256, WB_SHA256_LEN) != 0 || b->size != n->size)
            return WB_MODIFY;
        return b->exec != n->exec ? WB_MODE : -1;
    case WB_T_SYMLINK:
        return strcmp(b->target, n->target) != 0 ? WB_SYMLINK : -1;
    default:
        return -1;
    }
}

int wb_kind_of(const struct wb_obj *base, const struct wb_obj *new)
{
    static const int from_none[] = {[WB_T_NONE] = -1,
                                    [WB_T_FILE] = WB_ADD,
                                    [WB_T_DIR] = WB_DIR_ADD,
                                    [WB_T_SYMLINK] = WB_SYMLINK};

    if (base->type == WB_T_NONE)
        return from_none[new->type];
    if (new->type == WB_T_NONE)
        return base->type == WB_T_DIR ? WB_DIR_DELETE : WB_DELETE;
    if (base->type != new->type)
        return WB_REPLACE;
    return same_type_kind(base, new);
}

static int obj_copy(struct wb_obj *dst, const struct wb_obj *src)
{
    *dst = *src;
    dst->target = NULL;
    if (src->target != NULL && (dst->target = strdup(src->target)) == NULL)
        return -1;
    return 0;
}

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
    size_t ncap;
    void *nv;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 64;
    nv = realloc(*v, ncap * elem);
    if (nv == NULL)
        return -1;
    *v = nv;
    *cap = ncap;
    return 0;
}

static char *memdup0(const char *s, size_t len)
{
    char *p = malloc(len + 1);

    if (p != NULL) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

int wb_changeset_add(struct wb_changeset *cs, const char *path, size_t len,
                     const struct wb_obj *base, const struct wb_obj *new, struct rr_error *err)
{
    struct wb_change c = {.path_len = len};
    int kind = wb_kind_of(base, new);

    if (kind < 0)
        return 0;
    c.kind = (enum wb_kind)kind;
    if (grow((void **)&cs->v, &cs->cap, cs->n, sizeof(c)) < 0 ||
        (c.path = memdup0(path, len)) == NULL)
        return rr_fail(err, ENOMEM, "change set");
    if (obj_copy(&c.base, base) < 0 || obj_copy(&c.new, new) < 0) {
        free(c.path);
        wb_obj_free(&c.base);
        return rr_fail(err, ENOMEM, "change set");
    }
    cs->v[cs->n++] = c;
    return 0;
}

int wb_note_add(struct wb_notes *notes, const char *path, size_t len, const char *code,
                struct rr_error *err, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = wb_note_addv(notes, path, len, code, err, fmt, ap);
    va_end(ap);
    return r;
}

int wb_note_addv(struct wb_notes *notes, const char *path, size_t len, const char *code,
                 struct rr_error *err, const char *fmt, va_list ap)
{
    struct wb_note n = {.code = code, .path_len = path ? len : 0};

    if (vasprintf(&n.detail, fmt, ap) < 0)
        return rr_fail(err, ENOMEM, "note");
    n.path = memdup0(path ? path : "", n.path_len);
    if (n.path == NULL || grow((void **)&notes->v, &notes->cap, notes->n, sizeof(n)) < 0) {
        free(n.path);
        free(n.detail);
        return rr_fail(err, ENOMEM, "note");
    }
    notes->v[notes->n++] = n;
    return 0;
}

int wb_path_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;

    for (size_t i = 0; i < n; i++) {
        unsigned char x = a[i] == '/' ? 0 : (unsigned char)a[i];
        unsigned char y = b[i] == '/' ? 0 : (unsigned char)b[i];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return alen < blen ? -1 : alen > blen;
}

static int cmp_change(const void *x, const void *y)
{
    const struct wb_change *a = x, *b = y;
    return wb_path_cmp(a->path, a->path_len, b->path, b->path_len);
}

static int cmp_note(const void *x, const void *y)
{
    const struct wb_note *a = x, *b = y;
    int c = wb_path_cmp(a->path, a->path_len, b->path, b->path_len);
    return c ? c : strcmp(a->detail, b->detail);
}

void wb_changeset_sort(struct wb_changeset *cs)
{
    if (cs->n > 1)
        qsort(cs->v, cs->n, sizeof(cs->v[0]), cmp_change);
}

void wb_notes_sort(struct wb_notes *notes)
{
    if (notes->n > 1)
        qsort(notes->v, notes->n, sizeof(notes->v[0]), cmp_note);
}

long wb_changeset_find(const struct wb_changeset *cs, const char *path, size_t len)
{
    size_t lo = 0, hi = cs->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = wb_path_cmp(cs->v[mid].path, cs->v[mid].path_len, path, len);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

bool wb_changeset_refused(const struct wb_changeset *cs)
{
    return cs->refused.n > 0;
}

void wb_obj_free(struct wb_obj *o)
{
    free(o->target);
    o->target = NULL;
}

void wb_notes_free(struct wb_notes *notes)
{
    for (size_t i = 0; i < notes->n; i++) {
        free(notes->v[i].path);
        free(notes->v[i].detail);
    }
    free(notes->v);
    *notes = (struct wb_notes){0};
}

void wb_changeset_free(struct wb_changeset *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        free(cs->v[i].path);
        wb_obj_free(&cs->v[i].base);
        wb_obj_free(&cs->v[i].new);
    }
    free(cs->v);
    wb_notes_free(&cs->refused);
    wb_notes_free(&cs->warned);
    wb_gitinfo_free(&cs->git);
    wb_origin_free(&cs->origin);
    *cs = (struct wb_changeset){0};
}
