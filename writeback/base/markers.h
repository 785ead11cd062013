/* What the overlay formats write into an upper, and what is planted.
 *
 * Each format has its own markers; only the producing format's are honoured
 * (the bundle knows its backend, a bare pair names it with --format):
 *
 *   overlay (root mount)        trusted.overlay.*, whiteouts as char 0/0
 *   overlay-userxattr           user.overlay.*,    whiteouts as char 0/0
 *   fuse-overlayfs              char 0/0 or ".wh.NAME" files, opaque as
 *   (an unprivileged daemon,    user.fuseoverlayfs.opaque plus a
 *   overlay/fuse.c)             ".wh..wh..opq" file, user.fuseoverlayfs.origin
 *                               (never trusted.*: it may not set them)
 *
 * Of the kernel's xattrs, only those a mount with redirect_dir=nofollow,
 * metacopy=off, index=off writes are accepted, with the values it writes:
 * opaque "y" and impure "y" on directories, origin (empty under userxattr;
 * empty or a well-formed file handle under trusted) and uuid (16 bytes) on
 * the top directory only. Refused as planted (WB_XA_PLANTED): what the
 * producer never writes, even in its own spelling: xattr whiteouts
 * (overlay.whiteout, overlay.whiteouts) and opaque "x", which overlayfs
 * reads only in lower layers userspace made and never writes; redirect,
 * metacopy, nlink, upper, protattr, escaped "overlay.overlay.*"; a known
 * marker out of place or with another value; trusted.overlay.* in a fuse
 * upper. Refused as foreign (WB_XA_FOREIGN): a marker of another format
 * (user.overlay.* in a trusted upper or a fuse one, trusted.overlay.* in a
 * userxattr one, user.fuseoverlayfs.* in a kernel one).
 * Other xattrs: security.* and trusted.* are refused, user.* and POSIX ACLs
 * are dropped (never applied). */
#ifndef REVRUN_WB_MARKERS_H
#define REVRUN_WB_MARKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "writeback/base/format.h"

enum wb_xattr_verdict {
    WB_XA_IGNORE,     /* the format's own bookkeeping: harmless, not carried */
    WB_XA_OPAQUE,  /* the directory hides the lower one */
    WB_XA_DROP,    /* a user xattr or ACL: dropped, noted */
    WB_XA_PLANTED, /* a marker of this format its producer never writes so */
    WB_XA_FOREIGN, /* a marker of another overlay format */
    WB_XA_REFUSE,  /* an xattr write-back does not carry: security., trusted. */
};

struct wb_xattr_subject {
    enum wb_format format;
    mode_t type; /* S_IFREG, S_IFDIR, S_IFLNK, ... */
    off_t size;
    bool is_top; /* the upper's top directory */
};

/* Classify one xattr; *why says why it is refused (and what on DROP). */
enum wb_xattr_verdict wb_xattr_classify(const struct wb_xattr_subject *s, const char *name,
                                        const void *value, size_t vlen, const char **why);

/* fuse-overlayfs names in the upper. */
#define WB_WH_PREFIX ".wh."
#define WB_FUSE_OPAQUE_FILE ".wh..wh..opq"
#define WB_FUSE_OPAQUE_WHITEOUT ".wh..opq"

bool wb_name_is_wh_marker(const char *name);

#endif
