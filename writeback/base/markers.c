#include "writeback/base/markers.h"

#include <string.h>
#include <sys/stat.h>

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

bool wb_name_is_wh_marker(const char *name)
{
    return has_prefix(name, WB_WH_PREFIX);
}

static bool value_is(const void *v, size_t len, const char *want)
{
    return len == strlen(want) && memcmp(v, want, len) == 0;
}

/* struct ovl_fb as the kernel stores it: version 0, magic 0xfb, the total
 * length, known flag bits only, a 16-byte uuid and a non-empty fid. */
static bool well_formed_fh(const unsigned char *v, size_t len)
{
    return len > 21 && len <= 255 && v[0] == 0 && v[1] == 0xfb && v[2] == len && (v[3] & ~7u) == 0;
}

static enum wb_xattr_verdict refuse(const char **why, const char *text)
{
    *why = text;
    return WB_XA_REFUSE;
}

/* A marker of the producing format that the producer never writes (or not
 * there, or not with that value): planted in the upper. */
static enum wb_xattr_verdict planted(const char **why, const char *text)
{
    *why = text;
    return WB_XA_PLANTED;
}

/* A marker of another overlay format: the producer never writes it at all. */
static enum wb_xattr_verdict foreign(const char **why, const char *text)
{
    *why = text;
    return WB_XA_FOREIGN;
}

static enum wb_xattr_verdict kernel_origin(const struct wb_xattr_subject *s, const void *v,
                                           size_t len, const char **why)
{
    if (s->type != S_IFREG && s->type != S_IFDIR && s->type != S_IFLNK)
        return planted(why, "overlay origin on a special file");
    if (len == 0)
        return WB_XA_IGNORE;
    if (s->format == WB_FORMAT_OVERLAY && well_formed_fh(v, len))
        return WB_XA_IGNORE;
    return planted(why, "overlay origin with a value the hardened mount does not write");
}

/* Opaque "x" marks a directory holding xattr whiteouts: overlayfs reads
 * them in lower layers that userspace tools made, and never writes either
 * itself (Documentation/filesystems/overlayfs.rst, "Whiteouts and opaque
 * directories"). Honoured, they would delete checkout files. */
static enum wb_xattr_verdict kernel_opaque(const struct wb_xattr_subject *s, const void *v,
                                           size_t len, const char **why)
{
    if (s->type != S_IFDIR)
        return planted(why, "opaque marker on a non-directory");
    if (s->is_top)
        return planted(why, "opaque marker on the top directory");
    if (value_is(v, len, "y"))
        return WB_XA_OPAQUE;
    if (value_is(v, len, "x"))
        return planted(why, "opaque \"x\" (xattr whiteouts inside): overlayfs never writes it");
    return planted(why, "opaque marker with an unknown value");
}

/* suffix: what follows "trusted.overlay." or "user.overlay.". */
static enum wb_xattr_verdict kernel_xattr(const struct wb_xattr_subject *s, const char *suffix,
                                          const void *v, size_t len, const char **why)
{
    if (strcmp(suffix, "opaque") == 0)
        return kernel_opaque(s, v, len, why);
    if (strcmp(suffix, "impure") == 0) {
        if (s->type == S_IFDIR && value_is(v, len, "y"))
            return WB_XA_IGNORE;
        return planted(why, "impure marker out of place");
    }
    if (strcmp(suffix, "origin") == 0)
        return kernel_origin(s, v, len, why);
    if (strcmp(suffix, "uuid") == 0) {
        if (s->is_top && len == 16)
            return WB_XA_IGNORE;
        return planted(why, "overlay uuid out of place");
    }
    if (strcmp(suffix, "whiteout") == 0 || strcmp(suffix, "whiteouts") == 0)
        return planted(why, "xattr whiteout: overlayfs never writes one");
    return planted(why, "overlay xattr the hardened mount never writes (redirect, metacopy, "
                       "nlink, ...)");
}

/* fuse-overlayfs as revrun runs it (overlay/fuse.c): an unprivileged
 * daemon, which cannot set trusted.* and so writes user.fuseoverlayfs.opaque
 * (trusted.overlay.opaque only when it could: never here) and
 * user.fuseoverlayfs.origin. It reads user.overlay.* of lower layers but
 * never writes one. */
static enum wb_xattr_verdict fuse_xattr(const struct wb_xattr_subject *s, const char *name,
                                        const void *v, size_t len, const char **why)
{
    if (strcmp(name, "user.fuseoverlayfs.origin") == 0)
        return WB_XA_IGNORE;
    if (strcmp(name, "user.fuseoverlayfs.opaque") == 0) {
        if (s->type == S_IFDIR && !s->is_top && value_is(v, len, "y"))
            return WB_XA_OPAQUE;
        return planted(why, "opaque marker out of place");
    }
    if (has_prefix(name, "trusted.overlay."))
        return planted(why, "trusted.overlay.* in a fuse-overlayfs upper: its unprivileged daemon "
                            "cannot write one");
    if (has_prefix(name, "user.overlay."))
        return foreign(why, "kernel overlayfs (userxattr) marker in a fuse-overlayfs upper");
    return planted(why, "fuse-overlayfs never writes this marker");
}

/* Markers of any overlay format, checked against the producing format. */
static bool is_marker_name(const char *name)
{
    return has_prefix(name, "trusted.overlay.") || has_prefix(name, "user.overlay.") ||
           has_prefix(name, "user.fuseoverlayfs.") || has_prefix(name, "user.containers.") ||
           has_prefix(name, "security.fuseoverlayfs.");
}

enum wb_xattr_verdict wb_xattr_classify(const struct wb_xattr_subject *s, const char *name,
                                        const void *value, size_t vlen, const char **why)
{
    const char *own = s->format == WB_FORMAT_OVERLAY ? "trusted.overlay." : "user.overlay.";

    if (is_marker_name(name)) {
        if (s->format == WB_FORMAT_FUSE_OVERLAYFS)
            return fuse_xattr(s, name, value, vlen, why);
        if (has_prefix(name, own))
            return kernel_xattr(s, name + strlen(own), value, vlen, why);
        return foreign(why, "overlay marker of another format (planted)");
    }
    if (strcmp(name, "system.posix_acl_access") == 0 ||
        strcmp(name, "system.posix_acl_default") == 0) {
        *why = "ACL dropped (not applied)";
        return WB_XA_DROP;
    }
    if (has_prefix(name, "user.")) {
        *why = "user xattr dropped (not applied)";
        return WB_XA_DROP;
    }
    if (strcmp(name, "security.capability") == 0)
        return refuse(why, "file capability (security.capability)");
    return refuse(why, "security./trusted./system. xattr");
}
