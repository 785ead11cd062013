/* The bases checked against the base commit, and the new tree built from
 * its tree in an in-memory index (never the repository's index file). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/apply/gitcommit_int.h"
#include "writeback/base/fsutil.h"
#include "writeback/base/hash.h"
#include "writeback/export/export.h"

int gc_fail(struct committer *c, const char *what)
{
    return rr_fail(c->err, EIO, "%s: %s", what, wb_git2_error(c->g2));
}

static int conflict(struct committer *c, const struct wb_change *ch, const char *why)
{
    return wb_note_add(&c->res->conflicts, ch->path, ch->path_len, "base", c->err,
                       "the base commit holds %s here", why);
}

/* The blob id's content against a file or symlink base. */
static int same_blob(struct committer *c, const git_oid *id, const struct wb_obj *want, bool *same)
{
    const struct wb_git2 *g2 = c->g2;
    unsigned char sha[WB_SHA256_LEN];
    git_blob *b = NULL;

    if (g2->git_blob_lookup(&b, c->repo, id) < 0)
        return gc_fail(c, "a blob of the base commit");
    *same = (uint64_t)g2->git_blob_rawsize(b) == want->size;
    if (*same) {
        wb_sha256(g2->git_blob_rawcontent(b), want->size, sha);
        *same = memcmp(sha, want->sha256, WB_SHA256_LEN) == 0;
    }
    g2->git_blob_free(b);
    return 0;
}

/* What the base tree holds at the change's path against its base. */
static int check_one(struct committer *c, const struct wb_change *ch)
{
    const struct wb_git2 *g2 = c->g2;
    const struct wb_obj *b = &ch->base;
    git_tree_entry *e = NULL;
    git_filemode_t mode;
    bool same = false;
    int r;

    if ((r = g2->git_tree_entry_bypath(&e, c->base_tree, ch->path)) == GIT_ENOTFOUND)
        /* a directory git does not hold is empty: nothing to hold */
        return b->type == WB_T_NONE || b->type == WB_T_DIR ? 0 : conflict(c, ch, "nothing");
    if (r < 0)
        return gc_fail(c, ch->path);
    mode = g2->git_tree_entry_filemode(e);
    if (b->type == WB_T_DIR)
        same = mode == GIT_FILEMODE_TREE;
    else if (b->type == WB_T_FILE &&
             mode == (b->exec ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB))
        r = same_blob(c, g2->git_tree_entry_id(e), b, &same);
    else if (b->type == WB_T_SYMLINK && mode == GIT_FILEMODE_LINK)
        r = same_blob(c, g2->git_tree_entry_id(e), b, &same);
    g2->git_tree_entry_free(e);
    if (r < 0)
        return -1;
    if (same)
        return 0;
    return conflict(c, ch,
                    mode == GIT_FILEMODE_TREE ? "a directory, not what the review's checkout had"
                    : mode == GIT_FILEMODE_COMMIT ? "a submodule"
                                                  : "other content or another mode than the "
                                                    "review's checkout had (uncommitted changes, "
                                                    "or a clean filter)");
}

int gc_check_bases(struct committer *c)
{
    for (size_t i = 0; i < c->cs->n; i++)
        if (check_one(c, &c->cs->v[i]) < 0)
            return -1;
    return c->res->conflicts.n > 0 ? 1 : 0;
}

/* ---- the new tree ---- */

#define BUF (64u << 10)

/* Open the new content of ch: the export's blob, or the upper's file. As
 * root, not as the repository's owner: the export is root's. */
static int open_content(struct committer *c, const struct wb_change *ch)
{
    char p[sizeof(WB_BLOBS_DIR) + WB_SHA256_HEX + 1];
    const char *path = ch->path;
    int fd;

    if (c->src->blobs) {
        memcpy(p, WB_BLOBS_DIR "/", sizeof(WB_BLOBS_DIR));
        wb_hex(ch->new.sha256, WB_SHA256_LEN, p + sizeof(WB_BLOBS_DIR));
        path = p;
    }
    wb_owner_leave(&c->owner);
    fd = wb_openat_beneath(c->src->rootfd, path, O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0)
        rr_fail(c->err, errno, "open %s", path);
    if (wb_owner_enter(&c->owner, c->err) < 0 && fd >= 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Stream fd into a blob, hashing it: it must be exactly the approved
 * content, or nothing is finalised. */
static int stream_blob(struct committer *c, int fd, const struct wb_obj *o, git_oid *id)
{
    const struct wb_git2 *g2 = c->g2;
    git_odb *odb = NULL;
    git_odb_stream *st = NULL;
    struct wb_sha256 h;
    unsigned char sha[WB_SHA256_LEN];
    _cleanup_free_ char *buf = malloc(BUF);
    uint64_t done = 0;
    int r = -1;

    wb_sha256_init(&h);
    if (buf == NULL) {
        rr_fail(c->err, ENOMEM, "writing a blob");
        goto out;
    }
    if (g2->git_repository_odb(&odb, c->repo) < 0 ||
        g2->git_odb_open_wstream(&st, odb, o->size, GIT_OBJECT_BLOB) < 0) {
        gc_fail(c, "writing a blob");
        goto out;
    }
    while (done < o->size) {
        size_t want = o->size - done < BUF ? (size_t)(o->size - done) : BUF;
        ssize_t n = read(fd, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rr_fail(c->err, n < 0 ? errno : ESTALE, "reading the new content");
            goto out;
        }
        wb_sha256_update(&h, buf, (size_t)n);
        if (g2->git_odb_stream_write(st, buf, (size_t)n) < 0) {
            gc_fail(c, "writing a blob");
            goto out;
        }
        done += (size_t)n;
    }
    wb_sha256_final(&h, sha);
    if (memcmp(sha, o->sha256, WB_SHA256_LEN) != 0 || read(fd, buf, 1) != 0)
        rr_fail(c->err, ESTALE, "the new content is not what was approved");
    else if ((r = g2->git_odb_stream_finalize_write(id, st)) < 0)
        gc_fail(c, "writing a blob");
out:
    g2->git_odb_stream_free(st);
    g2->git_odb_free(odb);
    return r;
}

static int add_entry(struct committer *c, git_index *ix, const struct wb_change *ch)
{
    const struct wb_git2 *g2 = c->g2;
    git_index_entry e;
    int fd;

    memset(&e, 0, sizeof(e));
    e.path = ch->path;
    if (ch->new.type == WB_T_SYMLINK) {
        e.mode = GIT_FILEMODE_LINK;
        if (g2->git_blob_create_from_buffer(&e.id, c->repo, ch->new.target, ch->new.size) < 0)
            return gc_fail(c, ch->path);
    } else {
        e.mode = ch->new.exec ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
        if ((fd = open_content(c, ch)) < 0)
            return -1;
        c->res->objects_written = true;
        int r = stream_blob(c, fd, &ch->new, &e.id);
        close(fd);
        if (r < 0)
            return rr_wrap(c->err, "%s", ch->path);
    }
    c->res->objects_written = true;
    return g2->git_index_add(ix, &e) < 0 ? gc_fail(c, ch->path) : 0;
}

/* Removals first (a directory replaced by a file: its paths leave before
 * the file comes), then what the set places. */
static int edit(struct committer *c, git_index *ix)
{
    const struct wb_git2 *g2 = c->g2;

    for (size_t i = 0; i < c->cs->n; i++) {
        const struct wb_change *ch = &c->cs->v[i];
        int r = 0;
        if (ch->base.type == WB_T_FILE || ch->base.type == WB_T_SYMLINK)
            r = g2->git_index_remove(ix, ch->path, 0);
        else if (ch->base.type == WB_T_DIR && ch->new.type != WB_T_DIR)
            r = g2->git_index_remove_directory(ix, ch->path, 0);
        if (r < 0 && r != GIT_ENOTFOUND)
            return gc_fail(c, ch->path);
    }
    for (size_t i = 0; i < c->cs->n; i++) {
        const struct wb_change *ch = &c->cs->v[i];
        if (ch->new.type == WB_T_FILE || ch->new.type == WB_T_SYMLINK) {
            if (add_entry(c, ix, ch) < 0)
                return -1;
        } else if (ch->kind == WB_DIR_ADD || (ch->kind == WB_REPLACE && ch->new.type == WB_T_DIR)) {
            bool holds = i + 1 < c->cs->n && c->cs->v[i + 1].path_len > ch->path_len &&
                         c->cs->v[i + 1].path[ch->path_len] == '/' &&
                         memcmp(c->cs->v[i + 1].path, ch->path, ch->path_len) == 0;
            c->res->empty_dirs += !holds;
        }
    }
    return 0;
}

int gc_build_tree(struct committer *c, git_oid *tree)
{
    const struct wb_git2 *g2 = c->g2;
    git_index *ix = NULL;
    int r = -1;

    if (g2->git_index_new(&ix) < 0 || g2->git_index_read_tree(ix, c->base_tree) < 0)
        gc_fail(c, "an in-memory index of the base tree");
    else if (edit(c, ix) == 0) {
        r = g2->git_index_write_tree_to(tree, ix, c->repo);
        if (r < 0)
            gc_fail(c, "writing the trees");
    }
    g2->git_index_free(ix);
    return r < 0 ? -1 : 0;
}
