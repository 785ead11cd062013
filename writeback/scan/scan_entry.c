/* Checks on one upper entry that do not depend on its neighbours: its mode
 * bits, its link count, its xattrs against the producing format. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/base/markers.h"
#include "writeback/scan/scan_int.h"

#include "writeback/scan/scan_entry.h"

#define XATTR_VALUE_CAP 256

static int one_xattr(struct scanner *sc, const struct sc_entry *e, const char *xname,
                     struct sc_marks *m)
{
    struct wb_xattr_subject subj = {
        .format = sc->in->format,
        .type = e->st->st_mode & S_IFMT,
        .size = e->st->st_size,
        .is_top = e->len == 0,
    };
    unsigned char val[XATTR_VALUE_CAP];
    const char *why = "";
    size_t vlen;

    if (wb_xattr_get(e->fd, e->dirfd, e->name, xname, val, sizeof(val), &vlen, sc->err) < 0)
        return rr_wrap(sc->err, "%.*s", (int)e->len, sc->path);
    switch (wb_xattr_classify(&subj, xname, val, vlen, &why)) {
    case WB_XA_IGNORE:
        return 0;
    case WB_XA_OPAQUE:
        m->opaque = true;
        return 0;
    case WB_XA_DROP:
        return sc_warn(sc, e->len, "xattr-dropped", "%s: %.100s", why, xname);
    case WB_XA_PLANTED:
        m->refused = true;
        return sc_refuse(sc, e->len, "planted-marker", "%s: %.100s", why, xname);
    case WB_XA_FOREIGN:
        m->refused = true;
        return sc_refuse(sc, e->len, "foreign-marker", "%s: %.100s", why, xname);
    case WB_XA_REFUSE:
    default:
        m->refused = true;
        return sc_refuse(sc, e->len, "xattr", "%s: %.100s", why, xname);
    }
}

int sc_check_xattrs(struct scanner *sc, const struct sc_entry *e, struct sc_marks *m)
{
    _cleanup_free_ char *list = NULL;
    size_t len;

    *m = (struct sc_marks){0};
    if (wb_xattr_list(e->fd, e->dirfd, e->name, &list, &len, sc->err) < 0)
        return rr_wrap(sc->err, "%.*s", (int)e->len, sc->path);
    for (size_t i = 0; i < len; i += strlen(list + i) + 1)
        if (one_xattr(sc, e, list + i, m) < 0)
            return -1;
    return 0;
}

/* setgid on a directory is inherited from its parent (or copied up with the
 * checkout's directory): only a bit the agent set itself is refused. */
int sc_check_mode(struct scanner *sc, const struct sc_entry *e, bool inherited_sgid, bool *refused)
{
    mode_t m = e->st->st_mode;
    mode_t bad = m & (S_ISUID | S_ISGID | S_ISVTX);

    *refused = false;
    if (S_ISDIR(m) && inherited_sgid)
        bad &= ~(mode_t)S_ISGID;
    if (S_ISLNK(m) || bad == 0)
        return 0;
    *refused = true;
    return sc_refuse(sc, e->len, "mode-bits", "setuid, setgid or sticky bit (mode %04o)",
                     (unsigned)(m & 07777));
}

int sc_check_links(struct scanner *sc, const struct sc_entry *e, bool *refused)
{
    *refused = !S_ISDIR(e->st->st_mode) && e->st->st_nlink > 1;
    if (!*refused)
        return 0;
    return sc_refuse(sc, e->len, "hardlink", "hard link (%ju links)", (uintmax_t)e->st->st_nlink);
}

/* Whether the stage can read it is decided by its mode, not by who runs the
 * stage: the same upper gets the same verdict as root and rootless. */
int sc_check_readable(struct scanner *sc, const struct sc_entry *e, bool *refused)
{
    mode_t m = e->st->st_mode;

    *refused = (S_ISREG(m) && !(m & S_IRUSR)) ||
               (S_ISDIR(m) && (m & (S_IRUSR | S_IXUSR)) != (S_IRUSR | S_IXUSR));
    if (!*refused)
        return 0;
    return sc_refuse(sc, e->len, "unreadable", "its owner cannot read it (mode %04o)",
                     (unsigned)(m & 07777));
}
