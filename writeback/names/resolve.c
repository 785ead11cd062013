#include "writeback/names/resolve.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/names/names.h"

/* Bounds the text still to walk: 40 expansions of long targets at most. */
#define PENDING_MAX (64 * 1024)

struct walk {
    char *cur; /* the resolved path so far, "" for the top */
    size_t cur_len, cur_cap;
    char *pending; /* components still to walk, '/' separated */
    size_t pend_len, pend_off;
    unsigned hops;
    bool exists; /* cur exists in the tree: later components get looked up */
};

const char *wb_resolve_text(enum wb_resolve r)
{
    static const char *const t[] = {
        [WB_RES_INSIDE] = "stays inside the tree",
        [WB_RES_ABSOLUTE] = "is absolute (or goes through an absolute link)",
        [WB_RES_ESCAPES] = "leads out of the tree",
        [WB_RES_INTO_GIT] = "leads into .git",
        [WB_RES_LOOP] = "goes through too many links",
    };
    return t[r];
}

/* Replace what is left to walk with text + "/" + the rest. */
static int prepend(struct walk *w, const char *text, size_t len)
{
    size_t rest = w->pend_len - w->pend_off;
    char *n;

    if (len + 1 + rest > PENDING_MAX)
        return -1;
    n = malloc(len + 1 + rest + 1);
    if (n == NULL)
        return -1;
    memcpy(n, text, len);
    n[len] = '/';
    if (rest > 0)
        memcpy(n + len + 1, w->pending + w->pend_off, rest);
    n[len + 1 + rest] = '\0';
    free(w->pending);
    w->pending = n;
    w->pend_len = len + 1 + rest;
    w->pend_off = 0;
    return 0;
}

static bool next_component(struct walk *w, const char **c, size_t *len)
{
    while (w->pend_off < w->pend_len) {
        const char *s = w->pending + w->pend_off;
        const char *slash = memchr(s, '/', w->pend_len - w->pend_off);
        *len = slash ? (size_t)(slash - s) : w->pend_len - w->pend_off;
        *c = s;
        w->pend_off += *len + (slash != NULL);
        if (*len > 0 && !(*len == 1 && s[0] == '.'))
            return true;
    }
    return false;
}

static void pop(struct walk *w)
{
    while (w->cur_len > 0 && w->cur[w->cur_len - 1] != '/')
        w->cur_len--;
    if (w->cur_len > 0)
        w->cur_len--;
    w->cur[w->cur_len] = '\0';
}

static bool push(struct walk *w, const char *c, size_t len)
{
    if (w->cur_len + 1 + len + 1 > w->cur_cap)
        return false;
    if (w->cur_len > 0)
        w->cur[w->cur_len++] = '/';
    memcpy(w->cur + w->cur_len, c, len);
    w->cur_len += len;
    w->cur[w->cur_len] = '\0';
    return true;
}

/* Look at what cur now names; expand a symlink into pending. Returns 1 to
 * stop walking (a file with more to come: the kernel says ENOTDIR there). */
static int visit(struct walk *w, wb_lookup_fn lookup, void *ctx, enum wb_resolve *res,
                 struct rr_error *err)
{
    struct wb_node node = {0};
    int r = 0;

    if (lookup == NULL || !w->exists)
        return 0;
    if (lookup(ctx, w->cur, w->cur_len, &node, err) < 0)
        return -1;
    if (node.kind == WB_N_ABSENT) {
        w->exists = false;
    } else if (node.kind == WB_N_FILE) {
        r = w->pend_off < w->pend_len ? 1 : 0;
    } else if (node.kind == WB_N_SYMLINK) {
        if (++w->hops > WB_MAX_LINK_HOPS) {
            *res = WB_RES_LOOP;
            r = 1;
        } else if (node.target[0] == '/') {
            *res = WB_RES_ABSOLUTE;
            r = 1;
        } else {
            pop(w);
            if (prepend(w, node.target, strlen(node.target)) < 0) {
                *res = WB_RES_LOOP;
                r = 1;
            }
        }
    }
    free(node.target);
    return r;
}

static int walk(struct walk *w, wb_lookup_fn lookup, void *ctx, enum wb_resolve *res,
                struct rr_error *err)
{
    const char *c;
    size_t len;

    while (next_component(w, &c, &len)) {
        int r;
        if (len == 2 && c[0] == '.' && c[1] == '.') {
            if (w->cur_len == 0) {
                *res = WB_RES_ESCAPES;
                return 0;
            }
            pop(w);
            continue;
        }
        if (wb_name_is_dotgit(c, len)) {
            *res = WB_RES_INTO_GIT;
            return 0;
        }
        if (!push(w, c, len)) {
            *res = WB_RES_LOOP; /* only a chain of links grows a path this long */
            return 0;
        }
        if ((r = visit(w, lookup, ctx, res, err)) != 0)
            return r < 0 ? -1 : 0;
    }
    return 0;
}

int wb_resolve_symlink(const char *link_path, size_t link_len, const char *target,
                       wb_lookup_fn lookup, void *ctx, enum wb_resolve *res, struct rr_error *err)
{
    size_t cap = link_len + PENDING_MAX + 2;
    _cleanup_free_ char *cur = malloc(cap);
    struct walk w = {.cur = cur, .cur_cap = cap, .exists = true};
    int r;

    *res = WB_RES_INSIDE;
    if (target[0] == '/') {
        *res = WB_RES_ABSOLUTE;
        return 0;
    }
    if (cur == NULL)
        return rr_fail(err, ENOMEM, "resolving a symlink");
    memcpy(cur, link_path, link_len);
    w.cur_len = link_len;
    cur[link_len] = '\0';
    pop(&w); /* start from the link's directory */
    if (prepend(&w, target, strlen(target)) < 0) {
        free(w.pending);
        *res = WB_RES_LOOP;
        return 0;
    }
    r = walk(&w, lookup, ctx, res, err);
    free(w.pending);
    return r;
}
