#include "writeback/markers.h"

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

static enum wb_xattr_verdict kernel_origin(const struct wb_xattr_subject *s, const void *v,
                                           size_t len, const char **why)
{
    if (s->type != S_IFREG && s->type != S_IFDIR && s->type != S_IFLNK)
        return refuse(why, "overlay origin on a special file");
    if (len == 0)
        return WB_XA_IGNORE;
    if (s->format == WB_FORMAT_OVERLAY && well_formed_fh(v, len))
        return WB_XA_IGNORE;
    return refuse(why, "overlay origin with a value the hardened mount does not write");
}

static enum wb_xattr_verdict kernel_opaque(const struct wb_xattr_subject *s, const void *v,
                                           size_t len, const char **why)
{
    if (s->type != S_IFDIR)
        return refuse(why, "opaque marker on a non-directory");
    if (s->is_top)
        return refuse(why, "opaque marker on the top directory");
    if (value_is(v, len, "y"))
        return WB_XA_OPAQUE;
    if (value_is(v, len, "x"))
        return WB_XA_XWHITEOUTS;
    return refuse(why, "opaque marker with an unknown value");
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
        return refuse(why, "impure marker out of place");
    }
    if (strcmp(suffix, "origin") == 0)
        return kernel_origin(s, v, len, why);
    if (strcmp(suffix, "uuid") == 0) {
        if (s->is_top && len == 16)
            return WB_XA_IGNORE;
        return refuse(why, "overlay uuid out of place");
    }
    if (strcmp(suffix, "whiteout") == 0) {
        if (s->type == S_IFREG && s->size == 0)
            return WB_XA_WHITEOUT;
        return refuse(why, "xattr whiteout on something other than an empty file");
    }
    return refuse(why, "overlay xattr the hardened mount never writes (redirect, metacopy, "
                       "nlink, ...)");
}

static enum wb_xattr_verdict fuse_xattr(const struct wb_xattr_subject *s, const char *name,
                                        const void *v, size_t len, const char **why)
{
    if (strcmp(name, "user.fuseoverlayfs.origin") == 0)
        return WB_XA_IGNORE;
    if (strcmp(name, "user.fuseoverlayfs.opaque") == 0 ||
        strcmp(name, "trusted.overlay.opaque") == 0) {
        if (s->type == S_IFDIR && !s->is_top && value_is(v, len, "y"))
            return WB_XA_OPAQUE;
        return refuse(why, "opaque marker out of place");
    }
    return refuse(why, "fuse-overlayfs never writes this marker");
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
        return refuse(why, "overlay marker of another format (planted)");
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
