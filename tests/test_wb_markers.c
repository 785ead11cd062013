#include <string.h>
#include <sys/stat.h>

#include "tests/tap.h"
#include "writeback/base/markers.h"

static enum wb_xattr_verdict cls(enum wb_format f, mode_t type, const char *name, const char *v,
                                 size_t len)
{
    struct wb_xattr_subject s = {.format = f, .type = type};
    const char *why = NULL;

    return wb_xattr_classify(&s, name, v, len, &why);
}

#define U WB_FORMAT_OVERLAY_USERXATTR
#define T WB_FORMAT_OVERLAY
#define F WB_FORMAT_FUSE_OVERLAYFS

TEST(kernel_markers_of_the_own_format_are_honoured)
{
    CHECK(cls(U, S_IFDIR, "user.overlay.opaque", "y", 1) == WB_XA_OPAQUE);
    CHECK(cls(U, S_IFDIR, "user.overlay.impure", "y", 1) == WB_XA_IGNORE);
    CHECK(cls(U, S_IFREG, "user.overlay.origin", "", 0) == WB_XA_IGNORE);
    CHECK(cls(T, S_IFDIR, "trusted.overlay.opaque", "y", 1) == WB_XA_OPAQUE);
}

TEST(xattr_whiteouts_are_never_written_by_overlayfs)
{
    /* overlayfs reads them in lower layers userspace made; it never writes
     * them into an upper, in either spelling */
    CHECK(cls(U, S_IFDIR, "user.overlay.opaque", "x", 1) == WB_XA_PLANTED);
    CHECK(cls(T, S_IFDIR, "trusted.overlay.opaque", "x", 1) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFREG, "user.overlay.whiteout", "", 0) == WB_XA_PLANTED);
    CHECK(cls(T, S_IFREG, "trusted.overlay.whiteout", "", 0) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFDIR, "user.overlay.whiteouts", "", 0) == WB_XA_PLANTED);
    CHECK(cls(F, S_IFDIR, "user.overlay.opaque", "x", 1) == WB_XA_FOREIGN);
    CHECK(cls(F, S_IFREG, "trusted.overlay.whiteout", "", 0) == WB_XA_PLANTED);
}

TEST(planted_markers_of_another_format_are_refused)
{
    /* the agent can set user.* through a root mount */
    CHECK(cls(T, S_IFDIR, "user.overlay.opaque", "y", 1) == WB_XA_FOREIGN);
    CHECK(cls(T, S_IFDIR, "user.fuseoverlayfs.opaque", "y", 1) == WB_XA_FOREIGN);
    CHECK(cls(U, S_IFDIR, "trusted.overlay.opaque", "y", 1) == WB_XA_FOREIGN);
    CHECK(cls(U, S_IFREG, "user.fuseoverlayfs.origin", "a", 1) == WB_XA_FOREIGN);
    CHECK(cls(U, S_IFREG, "user.containers.override_stat", "0:0:4755", 8) == WB_XA_FOREIGN);
    CHECK(cls(F, S_IFDIR, "user.overlay.opaque", "y", 1) == WB_XA_FOREIGN);
}

TEST(overlay_xattrs_the_hardened_mount_never_writes_are_refused)
{
    const char fh[29] = {0, (char)0xfb, 29, 0, 1};

    CHECK(cls(U, S_IFDIR, "user.overlay.redirect", "/x", 2) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFREG, "user.overlay.metacopy", "", 0) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFREG, "user.overlay.nlink", "U+1", 3) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFREG, "user.overlay.overlay.opaque", "y", 1) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFREG, "user.overlay.origin", fh, sizeof(fh)) == WB_XA_PLANTED);
    CHECK(cls(T, S_IFREG, "trusted.overlay.origin", fh, sizeof(fh)) == WB_XA_IGNORE);
    CHECK(cls(T, S_IFREG, "trusted.overlay.origin", fh, 20) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFDIR, "user.overlay.opaque", "n", 1) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFREG, "user.overlay.opaque", "y", 1) == WB_XA_PLANTED);
    CHECK(cls(U, S_IFDIR, "user.overlay.uuid", "0123456789abcdef", 16) == WB_XA_PLANTED);
}

TEST(top_directory_markers)
{
    struct wb_xattr_subject top = {.format = U, .type = S_IFDIR, .is_top = true};
    const char *why;

    CHECK(wb_xattr_classify(&top, "user.overlay.uuid", "0123456789abcdef", 16, &why) ==
          WB_XA_IGNORE);
    CHECK(wb_xattr_classify(&top, "user.overlay.opaque", "y", 1, &why) == WB_XA_PLANTED);
}

TEST(fuse_markers)
{
    CHECK(cls(F, S_IFDIR, "user.fuseoverlayfs.opaque", "y", 1) == WB_XA_OPAQUE);
    /* revrun's daemon is unprivileged: it cannot have written trusted.* */
    CHECK(cls(F, S_IFDIR, "trusted.overlay.opaque", "y", 1) == WB_XA_PLANTED);
    CHECK(cls(F, S_IFDIR, "user.fuseoverlayfs.opaque", "x", 1) == WB_XA_PLANTED);
    CHECK(cls(F, S_IFREG, "user.fuseoverlayfs.origin", "a/b", 4) == WB_XA_IGNORE);
    CHECK(cls(F, S_IFREG, "user.fuseoverlayfs.override_stat", "0:0:4755", 8) == WB_XA_PLANTED);
    CHECK(cls(F, S_IFREG, "user.containers.override_stat", "0:0:4755", 8) == WB_XA_PLANTED);
}

TEST(other_xattrs)
{
    CHECK(cls(U, S_IFREG, "security.capability", "x", 1) == WB_XA_REFUSE);
    CHECK(cls(U, S_IFREG, "security.selinux", "x", 1) == WB_XA_REFUSE);
    CHECK(cls(T, S_IFREG, "trusted.foo", "x", 1) == WB_XA_REFUSE);
    CHECK(cls(U, S_IFREG, "user.mime_type", "x", 1) == WB_XA_DROP);
    CHECK(cls(U, S_IFREG, "system.posix_acl_access", "x", 1) == WB_XA_DROP);
    CHECK(cls(U, S_IFREG, "system.nfs4_acl", "x", 1) == WB_XA_REFUSE);
}
