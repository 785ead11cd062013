#include "writeback/rules/embedded.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/scan/merged.h"
#include "writeback/names/names.h"

enum wb_gitdir_part wb_gitdir_part(const char *name, size_t len, bool is_dir, bool is_link)
{
    unsigned char first = len ? (unsigned char)name[0] : 0;
    char c[16];

    /* An ASCII first byte is the canonical name's first (only non-ASCII
     * code points are ignorable, and no 8.3 alias stands for these names):
     * most names of a wide checkout directory end here. */
    if (first < 0x80) {
        switch (first | 0x20) {
        case 'h':
        case 'c':
        case 'o':
        case 'r':
            break;
        default:
            return WB_GD_NONE;
        }
    }
    if (!wb_name_canon(name, len, c, sizeof(c)))
        return WB_GD_NONE;
    if (strcmp(c, "head") == 0 && !is_dir)
        return WB_GD_HEAD;
    if (strcmp(c, "commondir") == 0 && !is_dir)
        return WB_GD_COMMONDIR;
    if (strcmp(c, "objects") == 0 && (is_dir || is_link))
        return WB_GD_OBJECTS;
    if (strcmp(c, "refs") == 0 && (is_dir || is_link))
        return WB_GD_REFS;
    return WB_GD_NONE;
}

bool wb_gitdir_complete(unsigned parts)
{
    if (!(parts & WB_GD_HEAD))
        return false;
    return (parts & WB_GD_COMMONDIR) ||
           (parts & (WB_GD_OBJECTS | WB_GD_REFS)) == (WB_GD_OBJECTS | WB_GD_REFS);
}

/* Index of the first upper entry below dir[0..len) (all of them for the top). */
static size_t first_below(const struct wb_scan *s, const char *dir, size_t len)
{
    size_t lo = 0, hi = s->n_idx;

    if (len == 0)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wb_path_cmp(s->idx[mid].path, s->idx[mid].len, dir, len) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static unsigned upper_parts(const struct wb_scan *s, const char *dir, size_t len)
{
    size_t skip = len ? len + 1 : 0;
    unsigned parts = 0;

    for (size_t i = first_below(s, dir, len); i < s->n_idx; i++) {
        const struct wb_upper_entry *e = &s->idx[i];
        if (len && (e->len <= len || memcmp(e->path, dir, len) != 0 || e->path[len] != '/'))
            break;
        if (memchr(e->path + skip, '/', e->len - skip) != NULL || e->kind == WB_U_WHITEOUT)
            continue;
        parts |= wb_gitdir_part(e->path + skip, e->len - skip, e->kind == WB_U_DIR,
                                e->kind == WB_U_SYMLINK);
    }
    return parts;
}

/* Is the lower's dir/name shadowed by an upper entry (or a whiteout)? */
static bool shadowed(const struct wb_scan *s, char *buf, const char *dir, size_t len,
                     const char *name)
{
    size_t nl = strlen(name), pl = len ? len + 1 + nl : nl;

    memcpy(buf, dir, len);
    if (len)
        buf[len] = '/';
    memcpy(buf + (len ? len + 1 : 0), name, nl);
    return wb_scan_find(s, buf, pl) != NULL;
}

/* One entry of the checkout's dir: its part, unless the upper shadows it. */
static unsigned lower_entry(const struct wb_scan *s, int fd, char *buf, const char *dir, size_t len,
                            const struct dirent64 *de)
{
    const char *name = de->d_name;
    unsigned char t = de->d_type;
    size_t nl = strlen(name);
    enum wb_gitdir_part p;
    struct stat st;

    if (nl > 256 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    if (t == DT_UNKNOWN && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        t = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
    p = wb_gitdir_part(name, nl, t == DT_DIR, t == DT_LNK);
    return p != WB_GD_NONE && !shadowed(s, buf, dir, len, name) ? (unsigned)p : 0;
}

/* The checkout's entries of dir the merged view still shows; streamed, so
 * a wide directory costs time, not memory, and no more than the walk cap.
 * getdents64 straight into one buffer: a checkout directory of thousands of
 * names is read in a call or two, with no stdio-like DIR around it. */
static int lower_parts(const struct wb_scan *s, const char *dir, size_t len, unsigned *parts,
                       struct rr_error *err)
{
    enum { DENTS = 32768 };
    /* the entries first, where malloc aligns them; the path buffer after */
    _cleanup_free_ char *dents = malloc(DENTS + len + 258);
    _cleanup_close_ int fd = -1;
    size_t cap = (size_t)s->pol->max_files * WB_WALK_FACTOR + 64, seen = 0;
    ssize_t got;

    if (wb_merged_hides_lower(s, dir, len) || (fd = wb_lower_dir(s, dir, len, O_RDONLY)) < 0)
        return 0; /* hidden, or not a directory of the checkout */
    if (dents == NULL)
        return rr_fail(err, ENOMEM, "embedded repositories");
    while ((got = getdents64(fd, dents, DENTS)) > 0)
        for (ssize_t off = 0; off < got;) {
            const struct dirent64 *de = (const struct dirent64 *)(dents + off);
            off += de->d_reclen;
            if (++seen > cap)
                return rr_fail(err, E2BIG, "a checkout directory holds more than %zu entries", cap);
            *parts |= lower_entry(s, fd, dents + DENTS, dir, len, de);
        }
    if (got < 0)
        return rr_fail(err, errno, "embedded repositories: reading the checkout");
    return 0;
}

static int looks_like_gitdir(const struct wb_scan *s, const char *dir, size_t len, bool *yes,
                             struct rr_error *err)
{
    unsigned parts = upper_parts(s, dir, len);

    *yes = false;
    if (lower_parts(s, dir, len, &parts, err) < 0)
        return -1;
    *yes = wb_gitdir_complete(parts);
    return 0;
}

/* The ancestors of the change being looked at (the top first), with their
 * verdicts: changes come sorted, so a directory's subtree is one run and
 * each directory is looked at once. */
struct anc {
    size_t len;
    bool gitdir, noted;
};

struct chain {
    struct anc *v;
    size_t n, cap;
    const char *prev; /* the path the entries are ancestors of */
};

/* Is prev[0..dlen) a directory above path[0..plen)? */
static bool is_above(const char *prev, size_t dlen, const char *path, size_t plen)
{
    return dlen == 0 || (dlen < plen && memcmp(prev, path, dlen) == 0 && path[dlen] == '/');
}

static int push(struct wb_scan *s, struct chain *ch, const char *path, size_t len,
                struct rr_error *err)
{
    struct anc a = {.len = len};

    if (ch->n == ch->cap) {
        size_t ncap = ch->cap ? ch->cap * 2 : 16;
        struct anc *nv = realloc(ch->v, ncap * sizeof(*nv));
        if (nv == NULL)
            return rr_fail(err, ENOMEM, "embedded repositories");
        ch->v = nv;
        ch->cap = ncap;
    }
    /* the agent's scratch under a .git is not a repository of the tree */
    if (!wb_path_has_dotgit(path, len) && looks_like_gitdir(s, path, len, &a.gitdir, err) < 0)
        return -1;
    ch->v[ch->n++] = a;
    return 0;
}

static int note(struct wb_scan *s, struct anc *a, const char *path, struct rr_error *err)
{
    if (!a->gitdir || a->noted)
        return 0;
    a->noted = true;
    return wb_note_add(&s->cs.refused, a->len ? path : NULL, a->len, "embedded-repo", err,
                       "%s like a git directory (HEAD with objects/ and refs/, or commondir): "
                       "git would take it for a repository and run its config",
                       a->len ? "looks" : "the top looks");
}

static int one_change(struct wb_scan *s, struct chain *ch, const char *path, size_t len,
                      struct rr_error *err)
{
    size_t pos = 0, n;
    const char *c;

    while (ch->n > 0 && !is_above(ch->prev, ch->v[ch->n - 1].len, path, len))
        ch->n--;
    ch->prev = path;
    if (ch->n == 0 && push(s, ch, path, 0, err) < 0)
        return -1;
    while (wb_next_component(path, len, &pos, &c, &n)) {
        size_t end = (size_t)(c - path) + n;
        if (end == len)
            break;
        if (end > ch->v[ch->n - 1].len && push(s, ch, path, end, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < ch->n; i++)
        if (note(s, &ch->v[i], path, err) < 0)
            return -1;
    return 0;
}

int wb_rules_embedded(struct wb_scan *s, struct rr_error *err)
{
    struct chain ch = {0};
    int r = 0;

    for (size_t i = 0; i < s->cs.n && r == 0; i++)
        r = one_change(s, &ch, s->cs.v[i].path, s->cs.v[i].path_len, err);
    free(ch.v);
    return r;
}
