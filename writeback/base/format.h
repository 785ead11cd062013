/* Which overlay implementation produced an upper. The write-back stage honours
 * only that format's whiteout and opaque markers; markers of any other format
 * found in the upper were planted and are refused. */
#ifndef REVRUN_WRITEBACK_FORMAT_H
#define REVRUN_WRITEBACK_FORMAT_H

enum wb_format {
    WB_FORMAT_OVERLAY,           /* kernel overlayfs, trusted.overlay.* (mounted by real root) */
    WB_FORMAT_OVERLAY_USERXATTR, /* kernel overlayfs with userxattr: user.overlay.* */
    WB_FORMAT_FUSE_OVERLAYFS,    /* fuse-overlayfs: .wh. files and user.fuseoverlayfs.* */
};

#endif
