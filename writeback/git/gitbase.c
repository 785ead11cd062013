#include "writeback/git/gitbase.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/gitwt.h"
#include "writeback/base/fsutil.h"
#include "writeback/base/hash.h"
#include "writeback/git/gitfile.h"
#include "writeback/git/gitinflate.h"
#include "writeback/git/gitlog.h"
#include "writeback/git/gitpackdir.h"

bool wb_oid_hex_ok(const char *s, size_t len)
{
    if (len != WB_OID_HEX - 1)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

bool wb_commit_tree(const char *body, size_t len, char tree[WB_OID_HEX])
{
    if (len < 5 + 40 + 1 || memcmp(body, "tree ", 5) != 0 || body[45] != '\n' ||
        !wb_oid_hex_ok(body + 5, 40))
        return false;
    memcpy(tree, body + 5, 40);
    tree[40] = '\0';
    return true;
}

void wb_git_object_id(const char *type, const void *body, size_t len, char hex[WB_OID_HEX])
{
    char hdr[48];
    unsigned char id[WB_SHA1_LEN];
    struct wb_sha1 c;
    int n = snprintf(hdr, sizeof(hdr), "%s %zu", type, len);

    wb_sha1_init(&c);
    wb_sha1_update(&c, hdr, (size_t)n + 1); /* with the NUL */
    wb_sha1_update(&c, body, len);
    wb_sha1_final(&c, id);
    wb_hex(id, sizeof(id), hex);
}

/* The loose object hex: 1 and its body when it is a commit of the declared
 * length; 0 when there is no loose file (*absent) or it is not one. */
static int read_loose(int git_fd, const char *hex, char **body, size_t *len, bool *absent,
                      struct rr_error *err)
{
    char path[64];
    _cleanup_free_ char *z = NULL, *raw = NULL;
    size_t zlen, rawlen, hlen;
    unsigned long long n;
    int r;

    snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
    *absent = false;
    if ((r = wb_git_read(git_fd, path, WB_LOOSE_MAX, &z, &zlen, err)) <= 0) {
        *absent = r == 0;
        return r < 0 && err->errnum != E2BIG ? -1 : 0;
    }
    if ((r = wb_git_inflate(z, zlen, WB_COMMIT_MAX + 32, &raw, &rawlen, err)) <= 0)
        return r;
    hlen = strnlen(raw, rawlen);
    if (hlen == rawlen || sscanf(raw, "commit %llu", &n) != 1 || n != rawlen - hlen - 1)
        return 0;
    if ((*body = malloc(n + 1)) == NULL)
        return rr_fail(err, ENOMEM, "base commit");
    memcpy(*body, raw + hlen + 1, n);
    (*body)[n] = '\0';
    *len = n;
    return 1;
}

/* The commit hex out of the git directory's packs (gitpack.h bounds). */
static int read_packed(int git_fd, const char *hex, char **body, size_t *len, const char **why,
                       struct rr_error *err)
{
    struct wb_packdir *d = calloc(1, sizeof(*d));
    struct wb_packset set;
    enum wb_obj_type type;
    unsigned char id[WB_OID_LEN];
    int r;

    if (d == NULL)
        return rr_fail(err, ENOMEM, "packs");
    if ((r = wb_packdir_open(git_fd, d, err)) == 0) {
        set = (struct wb_packset){.p = d->p, .n = d->n};
        wb_unhex(hex, id, sizeof(id));
        r = wb_packset_read(&set, id, WB_COMMIT_MAX, &type, body, len, why, err);
        if (r == 1 && type != WB_OBJ_COMMIT) {
            *why = "HEAD names an object that is not a commit";
            free(*body);
            *body = NULL;
            r = 0;
        } else if (r == 0 && *why == NULL) {
            *why = d->skipped[0] != '\0' ? "a pack of the checkout was not read"
                                         : "the checkout does not hold its HEAD commit";
        }
        wb_packdir_close(d);
    }
    free(d);
    return r;
}

/* The commit hex in git_fd, checked against its id, its tree into at. */
static int read_commit(int git_fd, const char *hex, struct wb_git_at *at, char *why, size_t whylen,
                       struct rr_error *err)
{
    _cleanup_free_ char *body = NULL;
    const char *pwhy = "the HEAD commit is not a commit object revrun can read";
    char id[WB_OID_HEX];
    size_t len = 0;
    bool absent;
    int r = read_loose(git_fd, hex, &body, &len, &absent, err);

    if (r == 0 && absent)
        r = read_packed(git_fd, hex, &body, &len, &pwhy, err);
    if (r < 0)
        return -1;
    if (r == 1)
        wb_git_object_id("commit", body, len, id);
    if (r == 1 && strcmp(id, hex) != 0)
        pwhy = "the HEAD commit's content does not hash to its id";
    else if (r == 1 && !wb_commit_tree(body, len, at->tree))
        pwhy = "the HEAD commit names no tree";
    else if (r == 1)
        return 1;
    snprintf(why, whylen, "%s", pwhy);
    return 0;
}

/* The git directory of the checkout and its HEAD's path in it: 1, or 0
 * with why (not a checkout, or a worktree whose directories are not
 * followed). *fd is an fd we own. */
static int git_dir(int dir_fd, int *fd, char *head, size_t headlen, char *why, size_t whylen,
                   struct rr_error *err)
{
    struct rr_gitwt w;
    char wwhy[512];
    int k;

    if (wb_git_is_repo(dir_fd)) {
        if ((*fd = wb_openat_beneath(dir_fd, ".git", O_RDONLY | O_DIRECTORY, 0)) < 0)
            return rr_fail(err, errno, ".git");
        snprintf(head, headlen, "HEAD");
        return 1;
    }
    if (!wb_git_is_gitfile(dir_fd)) {
        snprintf(why, whylen, "not a git checkout");
        return 0;
    }
    if ((k = rr_gitwt_open(dir_fd, &w, wwhy, sizeof(wwhy), err)) <= 0) {
        snprintf(why, whylen, "a worktree checkout whose git directories are not followed: %s",
                 wwhy);
        return k;
    }
    *fd = openat(w.common_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(head, headlen, "worktrees/%s/HEAD", w.name);
    rr_gitwt_close(&w);
    return *fd < 0 ? rr_fail(err, errno, "the worktree's git directory") : 1;
}

int wb_git_base(int dir_fd, struct wb_git_at *at, char *why, size_t whylen, struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    char head[NAME_MAX + 32];
    int r;

    memset(at, 0, sizeof(*at));
    if ((r = git_dir(dir_fd, &fd, head, sizeof(head), why, whylen, err)) <= 0)
        return r;
    if ((r = wb_git_head(fd, head, at->commit, err)) < 0)
        return -1;
    if (r == 0) {
        snprintf(why, whylen,
                 "HEAD names no commit revrun can read (an unborn branch, or refs "
                 "beyond revrun's bounds)");
        return 0;
    }
    if ((r = read_commit(fd, at->commit, at, why, whylen, err)) <= 0)
        memset(at, 0, sizeof(*at));
    return r;
}
