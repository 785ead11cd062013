/* Syscall helpers for walking hostile trees: everything relative to a
 * directory fd, no symlink followed, no mount crossed, sizes checked while
 * reading. */
#ifndef REVRUN_WB_FSUTIL_H
#define REVRUN_WB_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/error.h"
#include "writeback/base/deny.h"
#include "writeback/base/hash.h"

/* openat2 beneath dirfd with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV; O_CLOEXEC | O_NOFOLLOW (and
 * O_NOCTTY unless O_PATH) are always added. path may hold several components. Returns the fd or -1
 * with errno set (ELOOP: a symlink on the way, or where a directory was
 * asked for; EXDEV: a mount). */
int wb_openat_beneath(int dirfd, const char *path, int flags, mode_t mode);

/* The names in an open directory (not . and ..), sorted with strcmp, in a
 * new array of new strings. Fails with E2BIG past max_names. */
int wb_read_names(int dirfd, size_t max_names, char ***names, size_t *n, struct rr_error *err);
void wb_free_names(char **names, size_t n);

/* Extended attributes of dirfd/name (fd: the object itself when open, or
 * -1: then read through the *xattrat syscalls or /proc/self/fd, never
 * following a symlink). list: NUL-separated names, caller frees. */
int wb_xattr_list(int fd, int dirfd, const char *name, char **list, size_t *len,
                  struct rr_error *err);
/* The value, at most cap bytes into buf; *vlen = SIZE_MAX when larger. */
int wb_xattr_get(int fd, int dirfd, const char *name, const char *xname, void *buf, size_t cap,
                 size_t *vlen, struct rr_error *err);

struct wb_content {
    unsigned char sha256[WB_SHA256_LEN];
    uint64_t size;
    bool over_cap; /* more than cap bytes: reading stopped there */
    bool secret;   /* the deny list matched */
    const char *unsafe; /* why it may not be printed as text (textclass.h), or NULL */
};

/* Hash an open regular file, reading at most cap+1 bytes; the size read must
 * equal expect (ESTALE otherwise: it changed under us). deny may be NULL. */
int wb_hash_fd(int fd, uint64_t expect, uint64_t cap, const struct wb_deny *deny,
               struct wb_content *out, struct rr_error *err);

/* Read a symlink's target (NUL-terminated, new allocation). ENAMETOOLONG
 * past max bytes. */
int wb_readlink(int dirfd, const char *name, size_t max, char **out, size_t *len,
                struct rr_error *err);

/* Read the regular file rootfd/path (beneath rootfd) whole into a new
 * buffer, and check it is size bytes with this sha256 (ESTALE if not: it
 * changed since it was vetted). */
int wb_read_verified(int rootfd, const char *path, uint64_t size,
                     const unsigned char sha256[WB_SHA256_LEN], char **buf, struct rr_error *err);

/* Copy src to dst (both open), checking while copying that src is exactly
 * size bytes with this sha256 (ESTALE if not); dst is fsync'ed. */
int wb_copy_verified(int src, int dst, uint64_t size, const unsigned char sha256[WB_SHA256_LEN],
                     struct rr_error *err);


#endif
