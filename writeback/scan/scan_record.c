/* What the walk records: refusals and warnings on the path being looked at,
 * the change itself, the upper's index for the merged lookups, and the walk
 * cap that stops it. Shared by scan.c, scan_lower.c and scan_git.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "writeback/scan/scan_int.h"

int sc_refuse(struct scanner *sc, size_t len, const char *code, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = wb_note_addv(&sc->out->cs.refused, len ? sc->path : NULL, len, code, sc->err, fmt, ap);
    va_end(ap);
    return r;
}

int sc_warn(struct scanner *sc, size_t len, const char *code, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = wb_note_addv(&sc->out->cs.warned, len ? sc->path : NULL, len, code, sc->err, fmt, ap);
    va_end(ap);
    return r;
}

bool sc_child_path(struct scanner *sc, size_t plen, const char *name, size_t *len)
{
    size_t nlen = strlen(name), total = plen + (plen > 0) + nlen;

    if (total + 1 > sc->path_cap)
        return false;
    if (plen > 0)
        sc->path[plen] = '/';
    memcpy(sc->path + total - nlen, name, nlen + 1);
    *len = total;
    return true;
}

bool sc_count(struct scanner *sc)
{
    if (sc->out->stopped)
        return false;
    if (++sc->entries <= sc->walk_cap)
        return true;
    sc->out->stopped = true;
    sc_refuse(sc, 0, "walk-cap",
              "the upper and the checkout trees it hides hold more than %zu entries; stopped",
              sc->walk_cap);
    return false;
}

int sc_names_failed(struct scanner *sc, size_t len)
{
    if (sc->err->errnum != E2BIG)
        return rr_wrap(sc->err, "%.*s", (int)len, sc->path);
    sc->out->stopped = true; /* one directory wider than the whole walk may go */
    return sc_refuse(sc, 0, "walk-cap", "a directory holds more than %zu entries; stopped",
                     sc->walk_cap);
}

int sc_change(struct scanner *sc, size_t len, const struct wb_obj *base, const struct wb_obj *new)
{
    return wb_changeset_add(&sc->out->cs, sc->path, len, base, new, sc->err);
}

int sc_index(struct scanner *sc, size_t len, enum wb_upper_kind kind, bool opaque,
             const char *target)
{
    struct wb_scan *s = sc->out;
    struct wb_upper_entry e = {.len = len, .kind = kind, .opaque = opaque};

    if (s->n_idx == s->cap_idx) {
        size_t ncap = s->cap_idx ? s->cap_idx * 2 : 256;
        struct wb_upper_entry *nv = realloc(s->idx, ncap * sizeof(*nv));
        if (nv == NULL)
            return rr_fail(sc->err, ENOMEM, "upper index");
        s->idx = nv;
        s->cap_idx = ncap;
    }
    e.path = strndup(sc->path, len);
    e.target = target ? strdup(target) : NULL;
    if (e.path == NULL || (target && e.target == NULL)) {
        free(e.path);
        free(e.target);
        return rr_fail(sc->err, ENOMEM, "upper index");
    }
    s->idx[s->n_idx++] = e;
    return 0;
}
