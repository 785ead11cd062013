#include "writeback/apply/apply_same.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"

/* The name is opened again after the fstatat that judged it; whoever
 * shares TARGET with us can swap it in between, and then the hash would be
 * another file's. So the opened fd must be the very inode, at the very
 * size, and stay that size while it is read. */
static bool same_inode(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size;
}

int ap_same_file(int pfd, const char *name, const struct stat *st, const struct wb_obj *base,
                 struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    struct wb_content got;
    struct stat fst;

    if (!S_ISREG(st->st_mode) || (uint64_t)st->st_size != base->size)
        return AP_DIFFERENT;
    if ((fd = wb_openat_beneath(pfd, name, O_RDONLY | O_NONBLOCK, 0)) < 0)
        return errno == ENOENT || errno == ELOOP ? AP_MOVED : rr_fail(err, errno, "open");
    if (fstat(fd, &fst) < 0)
        return rr_fail(err, errno, "fstat");
    if (!same_inode(&fst, st))
        return AP_MOVED;
    if (wb_hash_fd(fd, base->size, base->size, NULL, &got, err) < 0)
        return err->errnum == ESTALE ? AP_MOVED : -1; /* shrank while read */
    if (got.over_cap)
        return AP_MOVED; /* grew while read */
    return memcmp(got.sha256, base->sha256, WB_SHA256_LEN) == 0 ? AP_SAME : AP_DIFFERENT;
}
