#include "writeback/git/gitpackdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/gitfile.h"

static void skip(struct wb_packdir *d, const char *why)
{
    if (d->skipped[0] == '\0')
        snprintf(d->skipped, sizeof(d->skipped), "%s", why);
}

/* "pack-" then 40 or 64 lower-case hex digits then ext: the names git gives. */
static bool pack_name(const char *name, const char *ext)
{
    size_t len = strlen(name), elen = strlen(ext), hex;

    if (len < 5 + elen || strncmp(name, "pack-", 5) != 0 || strcmp(name + len - elen, ext) != 0)
        return false;
    hex = len - 5 - elen;
    if (hex != 40 && hex != 64)
        return false;
    for (size_t i = 5; i < 5 + hex; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    return true;
}

/* dfd/name as a span: 1, or 0 and a reason left in *why; -1 (ENOMEM). */
static int open_span(int dfd, const char *name, uint64_t max, struct wb_span *sp, const char **why,
                     struct rr_error *err)
{
    struct stat st;
    int fd = -1, r = wb_git_open_file(dfd, name, &fd, &st, err);

    if (r < 0 && err->errnum == ENOMEM)
        return -1;
    if (r <= 0) {
        *why = "a pack or index that is not a regular file that can be opened";
        return 0;
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        *why = "a pack or index over its size cap (1 GiB an index, 64 GiB a pack)";
        return 0;
    }
    *sp = (struct wb_span){.fd = fd, .size = (uint64_t)st.st_size};
    return 1;
}

/* The pair named by idx (pack-<hex>.idx) into the next slot. */
static int add_pair(struct wb_packdir *d, int dfd, const char *idx, struct rr_error *err)
{
    struct wb_pack *p = &d->p[d->n];
    struct wb_span is, ps;
    char pack[128];
    const char *why = NULL;
    int r;

    snprintf(pack, sizeof(pack), "%.*s.pack", (int)(strlen(idx) - 4), idx);
    if ((r = open_span(dfd, idx, WB_PACKIDX_FILE_MAX, &is, &why, err)) <= 0) {
        if (r == 0)
            skip(d, why);
        return r;
    }
    if ((why = wb_packidx_load(&p->ix, &is)) == NULL &&
        (r = open_span(dfd, pack, WB_PACK_FILE_MAX, &ps, &why, err)) == 1) {
        if ((why = wb_pack_check(&p->ix, &ps)) == NULL) {
            p->pack = ps;
            d->n++;
            return 0;
        }
        close(ps.fd);
    }
    close(is.fd);
    if (r < 0)
        return -1;
    skip(d, why);
    return 0;
}

/* A pack git would not read, or one without its index: its objects are not
 * looked at, so a miss proves nothing. */
static void pack_alone(struct wb_packdir *d, int dfd, const char *name)
{
    char idx[128];
    struct stat st;

    if (!pack_name(name, ".pack")) {
        skip(d, "a pack not named as git names them");
        return;
    }
    snprintf(idx, sizeof(idx), "%.*s.idx", (int)(strlen(name) - 5), name);
    if (fstatat(dfd, idx, &st, AT_SYMLINK_NOFOLLOW) < 0)
        skip(d, "a pack without its index");
}

static int add_pairs(struct wb_packdir *d, int dfd, char **names, size_t n, struct rr_error *err)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        if (len > 5 && strcmp(names[i] + len - 5, ".pack") == 0)
            pack_alone(d, dfd, names[i]);
        if (!pack_name(names[i], ".idx"))
            continue;
        if (d->n == WB_PACKS_MAX) {
            skip(d, "more packs than are read (32)");
            return 0;
        }
        if (add_pair(d, dfd, names[i], err) < 0)
            return -1;
    }
    return 0;
}

int wb_packdir_open(int git_fd, struct wb_packdir *d, struct rr_error *err)
{
    _cleanup_close_ int dfd = wb_openat_beneath(git_fd, "objects/pack", O_RDONLY | O_DIRECTORY, 0);
    char **names = NULL;
    size_t n = 0;
    int r;

    memset(d, 0, sizeof(*d));
    if (dfd < 0) {
        if (errno != ENOENT)
            skip(d, "an objects/pack that cannot be opened as a directory");
        return 0;
    }
    if (wb_read_names(dfd, WB_PACKDIR_NAMES_MAX, &names, &n, err) < 0) {
        if (err->errnum == ENOMEM)
            return -1;
        skip(d, "an objects/pack that cannot be listed (over 4096 entries, or unreadable)");
        return 0;
    }
    r = add_pairs(d, dfd, names, n, err);
    wb_free_names(names, n);
    return r;
}

void wb_packdir_close(struct wb_packdir *d)
{
    for (size_t i = 0; i < d->n; i++) {
        close(d->p[i].ix.f.fd);
        close(d->p[i].pack.fd);
    }
    d->n = 0;
}
