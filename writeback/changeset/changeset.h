/* The change set: what apply will do, path by path, and the notes (refusals
 * and warnings) the vetting attached. Pure data; the scan (scan/scan.c)
 * fills it, the manifest code (manifest.c) serialises and digests it, apply
 * consumes it.
 *
 * Only content and the executable bit are carried: a file is (exec, size,
 * sha256), a symlink is its target, a directory is just there. */
#ifndef REVRUN_WB_CHANGESET_H
#define REVRUN_WB_CHANGESET_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "writeback/changeset/origin.h"
#include "writeback/git/gitinfo.h"
#include "writeback/base/hash.h"

enum wb_type { WB_T_NONE, WB_T_FILE, WB_T_DIR, WB_T_SYMLINK };

enum wb_kind {
    WB_ADD,        /* a file where there was nothing */
    WB_MODIFY,     /* a file's content changed (its exec bit may too) */
    WB_DELETE,     /* a file or symlink removed */
    WB_MODE,       /* only a file's exec bit changed */
    WB_SYMLINK,    /* a symlink added, or its target changed */
    WB_DIR_ADD,    /* a directory where there was nothing */
    WB_DIR_DELETE, /* a directory removed (its contents are listed as deletes) */
    WB_REPLACE,    /* one type replaced by another at the same path */
};

/* One side of a change: what was in the lower (base) or is in the merged
 * view (new) at the path. */
struct wb_obj {
    enum wb_type type;
    bool exec;                           /* files */
    uint64_t size;                       /* files: bytes; symlinks: target bytes */
    unsigned char sha256[WB_SHA256_LEN]; /* files: content; symlinks: target */
    char *target;                        /* symlinks, NUL-terminated */
    const char *unsafe; /* files: why the content is not printed as text (a
                         * static reason, base/textclass.h), or NULL; not in the
                         * manifest */
};

struct wb_change {
    char *path; /* relative to the tree's top, no leading or trailing slash */
    size_t path_len;
    enum wb_kind kind;
    struct wb_obj base;
    struct wb_obj new;
};

/* A refusal or a warning, tied to a path ("" for the whole set). */
struct wb_note {
    char *path;
    size_t path_len;
    const char *code; /* short, stable: "device", "symlink-escape", ... */
    char *detail;     /* for a person */
};

struct wb_notes {
    struct wb_note *v;
    size_t n, cap;
};

struct wb_changeset {
    struct wb_change *v;
    size_t n, cap;
    struct wb_notes refused;
    struct wb_notes warned;
    struct wb_origin origin; /* the base, the review, the agent's commits: in the digest */
    struct wb_gitinfo git;   /* beside the set, never in it nor in its digest */
};

const char *wb_kind_name(enum wb_kind k);
const char *wb_type_name(enum wb_type t);
/* Inverse of the two above: -1 when the name is unknown. */
int wb_kind_parse(const char *s);
int wb_type_parse(const char *s);

/* The kind that turns base into new, or -1 when nothing changed. */
int wb_kind_of(const struct wb_obj *base, const struct wb_obj *new);

/* Take a copy of path; on success the change owns both objects' targets. */
int wb_changeset_add(struct wb_changeset *cs, const char *path, size_t len,
                     const struct wb_obj *base, const struct wb_obj *new, struct rr_error *err);

/* Record a note (path may be NULL for the whole set). */
int wb_note_addv(struct wb_notes *notes, const char *path, size_t len, const char *code,
                 struct rr_error *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
int wb_note_add(struct wb_notes *notes, const char *path, size_t len, const char *code,
                struct rr_error *err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Byte order of paths, so a directory sorts right before its contents
 * ("a", "a/b", "a-b" would put "a-b" between them: '/' compares as 0). */
int wb_path_cmp(const char *a, size_t alen, const char *b, size_t blen);
void wb_changeset_sort(struct wb_changeset *cs);
void wb_notes_sort(struct wb_notes *notes);

/* Index of path in the sorted set, or -1. */
long wb_changeset_find(const struct wb_changeset *cs, const char *path, size_t len);

bool wb_changeset_refused(const struct wb_changeset *cs);

void wb_obj_free(struct wb_obj *o);
void wb_changeset_free(struct wb_changeset *cs);
void wb_notes_free(struct wb_notes *notes);

#endif
