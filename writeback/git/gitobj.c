#include "writeback/git/gitobj.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/gitfile.h"
#include "writeback/git/gitlog.h"

/* dirfd's packs into a new *d (once): -1 (ENOMEM) or 0. */
static int packs_once(int dirfd, struct wb_packdir **d, struct rr_error *err)
{
    if (*d != NULL)
        return 0;
    if ((*d = calloc(1, sizeof(**d))) == NULL)
        return rr_fail(err, ENOMEM, "packs");
    return wb_packdir_open(dirfd, *d, err);
}

/* The commit body the agent's store gave for hex, parsed by libgit2 once
 * the id of "commit <len>\0<body>" is checked to be hex: 1 and *c, or 0. */
static int parse_commit(struct wb_gitobj *rd, const char *hex, const char *body, size_t len,
                        git_commit **c)
{
    git_oid want, got;

    if (rd->g2->git_oid_fromstr(&want, hex) < 0 ||
        rd->g2->git_odb_write(&got, rd->odb, body, len, GIT_OBJECT_COMMIT) < 0 ||
        !rd->g2->git_oid_equal(&want, &got) || rd->g2->git_commit_lookup(c, rd->repo, &got) < 0)
        return 0;
    return 1;
}

/* The agent's loose commit hex, parsed by libgit2 once its id is checked.
 * 1 and *c, or 0 when it is not there as one (*loose: whether a loose file
 * was there at all; malformed, or packed or absent). */
static int read_commit(struct wb_gitobj *rd, const char *hex, git_commit **c, bool *loose,
                       struct rr_error *err)
{
    char path[64];
    _cleanup_free_ char *z = NULL, *raw = NULL;
    size_t zlen, rawlen, hlen;
    unsigned long long n;
    int r;

    snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
    *loose = false;
    if ((r = wb_git_read(rd->upper_git, path, WB_LOOSE_MAX, &z, &zlen, err)) <= 0) {
        *loose = r < 0 && err->errnum == E2BIG;
        return r < 0 && err->errnum != E2BIG ? -1 : 0;
    }
    *loose = true;
    if ((r = wb_git_inflate(z, zlen, WB_COMMIT_MAX + 32, &raw, &rawlen, err)) <= 0)
        return r;
    hlen = strnlen(raw, rawlen);
    if (hlen == rawlen || sscanf(raw, "commit %llu", &n) != 1 || n != rawlen - hlen - 1)
        return 0;
    return parse_commit(rd, hex, raw + hlen + 1, rawlen - hlen - 1, c);
}

/* The agent's commit hex out of the packs it wrote (gitpack.h: every cost
 * capped, the budget shared by the whole walk), its id checked as a loose
 * one's is: 1 and *c; 0 and *why when a pack holds it (or may: one was left
 * out) but it is not listed; 0 and *why NULL when no pack holds it. */
static int read_packed(struct wb_gitobj *rd, const char *hex, git_commit **c, const char **why,
                       struct rr_error *err)
{
    _cleanup_free_ char *body = NULL;
    enum wb_obj_type type;
    git_oid id;
    size_t len;
    int r;

    *why = NULL;
    if (rd->packs == NULL) {
        if (packs_once(rd->upper_git, &rd->packs, err) < 0)
            return rr_wrap(err, "upper .git/objects/pack");
        rd->set = (struct wb_packset){.p = rd->packs->p, .n = rd->packs->n};
    }
    if (rd->g2->git_oid_fromstr(&id, hex) < 0)
        return 0;
    if ((r = wb_packset_read(&rd->set, id.id, WB_COMMIT_MAX, &type, &body, &len, why, err)) <= 0) {
        if (r == 0 && *why == NULL && rd->packs->skipped[0] != '\0')
            *why = rd->packs->skipped;
        return r;
    }
    if (type != WB_OBJ_COMMIT)
        *why = "an object that is not a commit";
    else if (parse_commit(rd, hex, body, len, c) == 0)
        *why = "a packed commit whose content does not hash to its id";
    return *why == NULL ? 1 : 0;
}

int wb_gitobj_open(struct wb_gitobj *rd, int upper_git, int lower_git, struct rr_error *err)
{
    git_odb_backend *be = NULL;

    *rd = (struct wb_gitobj){.upper_git = upper_git, .lower_git = lower_git};
    if ((rd->g2 = wb_git2_acquire(err)) == NULL)
        return -1;
    if (rd->g2->git_odb_new(&rd->odb) < 0 || rd->g2->git_mempack_new(&be) < 0 ||
        rd->g2->git_odb_add_backend(rd->odb, be, 1) < 0 ||
        rd->g2->git_repository_wrap_odb(&rd->repo, rd->odb) < 0)
        return rr_fail(err, 0, "libgit2: an in-memory object store: %s", wb_git2_error(rd->g2));
    return 0;
}

void wb_gitobj_close(struct wb_gitobj *rd)
{
    for (int i = 0; i < 2; i++) {
        struct wb_packdir *d = i == 0 ? rd->packs : rd->lpacks;
        if (d != NULL)
            wb_packdir_close(d);
        free(d);
    }
    if (rd->g2 == NULL)
        return;
    rd->g2->git_repository_free(rd->repo);
    rd->g2->git_odb_free(rd->odb);
    wb_git2_release(rd->g2);
}

/* One commit of the walk, loose or packed: 1 and *c, or 0 with the reason
 * it is not listed noted in gi. */
int wb_gitobj_commit(struct wb_gitobj *rd, const char *hex, git_commit **c, struct wb_gitinfo *gi,
                     struct rr_error *err)
{
    const char *why = NULL;
    bool loose;
    int r;

    if ((r = read_commit(rd, hex, c, &loose, err)) == 0 && !loose)
        r = read_packed(rd, hex, c, &why, err);
    if (r != 0)
        return r;
    if (why != NULL) {
        gi->commits_packed = true;
        snprintf(gi->packed_why, sizeof(gi->packed_why), "%s", why);
    } else {
        gi->commits_off_base = true; /* a commit the agent did not write */
    }
    return 0;
}

/* Does the checkout's own object store hold hex (a loose file there, or an
 * entry of one of its packs' indexes)? Then the agent did not make it:
 * once its pack holds the whole history (git gc repacks everything into
 * the upper), a HEAD moved onto an older checkout commit must not list the
 * checkout's history as the agent's work. */
int wb_gitobj_checkout_has(struct wb_gitobj *rd, const char *hex, bool *has,
                           struct rr_error *err)
{
    char path[64];
    _cleanup_close_ int fd = -1;
    git_oid id;
    uint64_t off;
    const char *why;

    snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
    if ((fd = wb_openat_beneath(rd->lower_git, path, O_PATH, 0)) >= 0) {
        *has = true;
        return 0;
    }
    *has = false;
    if (packs_once(rd->lower_git, &rd->lpacks, err) < 0)
        return rr_wrap(err, "checkout .git/objects/pack");
    if (rd->g2->git_oid_fromstr(&id, hex) < 0)
        return 0;
    for (size_t i = 0; i < rd->lpacks->n && !*has; i++)
        *has = wb_packidx_find(&rd->lpacks->p[i].ix, id.id, &off, &why) == 1;
    return 0;
}

bool wb_gitobj_checkout_lacks(const struct wb_gitobj *rd, const char *hex)
{
    char path[64];
    _cleanup_close_ int fd = -1;

    if (rd->lpacks == NULL || rd->lpacks->skipped[0] == '\0')
        return true;
    snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
    fd = wb_openat_beneath(rd->upper_git, path, O_PATH, 0);
    return fd >= 0;
}
