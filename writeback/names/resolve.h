/* Where a symlink leads, worked out on paths alone: from the link's
 * directory, component by component, "." and ".." lexically, and through the
 * other symlinks of the merged tree as the kernel would follow them (the
 * caller's lookup says what is at a path). No syscall here: the lookup is a
 * callback, so tests drive it with a table. */
#ifndef REVRUN_WB_RESOLVE_H
#define REVRUN_WB_RESOLVE_H

#include <stddef.h>

#include "common/error.h"

#define WB_MAX_LINK_HOPS 40 /* the kernel's own limit on nested links */

enum wb_node_kind { WB_N_ABSENT, WB_N_DIR, WB_N_FILE, WB_N_SYMLINK };

struct wb_node {
    enum wb_node_kind kind;
    char *target; /* symlinks; owned by the caller of the lookup (freed by it) */
};

/* What is at path[0..len) in the merged tree. */
typedef int (*wb_lookup_fn)(void *ctx, const char *path, size_t len, struct wb_node *out,
                            struct rr_error *err);

enum wb_resolve {
    WB_RES_INSIDE,   /* stays in the tree (it may dangle) */
    WB_RES_ABSOLUTE, /* the link, or one it goes through, is absolute */
    WB_RES_ESCAPES,  /* ".." above the top of the tree */
    WB_RES_INTO_GIT, /* reaches a .git directory or something in one */
    WB_RES_LOOP,     /* more than WB_MAX_LINK_HOPS links */
};

const char *wb_resolve_text(enum wb_resolve r);

/* Resolve the link at link_path whose target is target. lookup may be NULL:
 * then only this link's own text is judged (apply's re-check). */
int wb_resolve_symlink(const char *link_path, size_t link_len, const char *target,
                       wb_lookup_fn lookup, void *ctx, enum wb_resolve *res, struct rr_error *err);

#endif
