#include "writeback/export/export.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/crashpoint.h"
#include "common/fsutil.h"
#include "writeback/base/fsutil.h"
#include "writeback/changeset/manifest.h"
#include "writeback/base/rmtree.h"

/* The object o of c's path under rootfd (the upper for new content, the
 * lower for the base's) as blobs/<sha256>, hashed while copied. */
static int put_blob(int rootfd, const struct wb_change *c, const struct wb_obj *o, int blobs,
                    struct rr_error *err)
{
    char hex[WB_SHA256_HEX], tmp[WB_SHA256_HEX + 8];
    _cleanup_close_ int src = -1, dst = -1;
    struct stat st;

    wb_hex(o->sha256, WB_SHA256_LEN, hex);
    if (fstatat(blobs, hex, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return 0; /* the same content twice: already copied and verified */
    snprintf(tmp, sizeof(tmp), ".tmp-%s", hex);
    src = wb_openat_beneath(rootfd, c->path, O_RDONLY | O_NONBLOCK, 0);
    if (src < 0)
        return rr_fail(err, errno, "open %s", c->path);
    dst = openat(blobs, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (dst < 0)
        return rr_fail(err, errno, "create blob %s", hex);
    if (wb_copy_verified(src, dst, o->size, o->sha256, err) < 0)
        return rr_wrap(err, "%s", c->path);
    if (renameat(blobs, tmp, blobs, hex) < 0)
        return rr_fail(err, errno, "blob %s", hex);
    return 0;
}

static int put_manifest(const struct wb_scan *s, int dfd, unsigned char digest[WB_SHA256_LEN],
                        struct rr_error *err)
{
    _cleanup_free_ char *doc = NULL;
    _cleanup_close_ int fd = -1;
    size_t len;

    if (wb_manifest_render(&s->cs, &doc, &len, digest, err) < 0)
        return -1;
    fd = openat(dfd, ".tmp-" WB_MANIFEST_NAME, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                0600);
    if (fd < 0 || rr_write_all(fd, doc, len) < 0 || rr_write_all(fd, "\n", 1) < 0 || fsync(fd) < 0)
        return rr_fail(err, errno, "write %s", WB_MANIFEST_NAME);
    if (renameat(dfd, ".tmp-" WB_MANIFEST_NAME, dfd, WB_MANIFEST_NAME) < 0)
        return rr_fail(err, errno, "write %s", WB_MANIFEST_NAME);
    return 0;
}

static int fill(const struct wb_scan *s, int dfd, unsigned char digest[WB_SHA256_LEN],
                struct rr_error *err)
{
    _cleanup_close_ int blobs = -1;

    if (mkdirat(dfd, WB_BLOBS_DIR, 0700) < 0 ||
        (blobs = openat(dfd, WB_BLOBS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) < 0)
        return rr_fail(err, errno, "create %s", WB_BLOBS_DIR);
    for (size_t i = 0; i < s->cs.n; i++) {
        const struct wb_change *c = &s->cs.v[i];
        if (c->new.type == WB_T_FILE && put_blob(s->upper_fd, c, &c->new, blobs, err) < 0)
            return -1;
        /* the base's content too, so the patch can be read from the export */
        if (c->base.type == WB_T_FILE && put_blob(s->lower_fd, c, &c->base, blobs, err) < 0)
            return -1;
    }
    if (fsync(blobs) < 0)
        return rr_fail(err, errno, "fsync %s", WB_BLOBS_DIR);
    crash_point("export:blobs");
    if (put_manifest(s, dfd, digest, err) < 0)
        return -1;
    if (fsync(dfd) < 0)
        return rr_fail(err, errno, "fsync");
    return 0;
}

int wb_export(const struct wb_scan *s, const char *dir, unsigned char digest[WB_SHA256_LEN],
              struct rr_error *err)
{
    _cleanup_free_ char *copy = strdup(dir);
    _cleanup_close_ int pfd = -1, dfd = -1;
    struct rr_error ignored;
    char *slash, *base;

    if (copy == NULL)
        return rr_fail(err, ENOMEM, "export");
    while ((slash = strrchr(copy, '/')) != NULL && slash[1] == '\0' && slash != copy)
        *slash = '\0'; /* "out/" is "out" */
    slash = strrchr(copy, '/');
    base = slash ? slash + 1 : copy;
    if (slash)
        *slash = '\0';
    pfd = open(slash ? (copy[0] ? copy : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0 || mkdirat(pfd, base, 0700) < 0)
        return rr_fail(err, errno, "export into %s (it must not exist yet)", dir);
    dfd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (dfd >= 0 && fill(s, dfd, digest, err) == 0)
        return 0;
    if (dfd < 0)
        rr_fail(err, errno, "open %s", dir);
    /* Nothing half-exported stays behind to be approved by mistake. */
    if (wb_rmtree_at(pfd, base, 4, &ignored) < 0)
        return rr_wrap(err, "export into %s (left behind: remove it)", dir);
    return rr_wrap(err, "export into %s", dir);
}
