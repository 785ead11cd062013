#include "writeback/patch/patch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/patch/binpatch.h"
#include "writeback/base/fsutil.h"
#include "writeback/patch/linediff.h"
#include "writeback/base/textclass.h"

#define CONTEXT 3

struct side {
    const struct wb_obj *o; /* type NONE or DIR: empty */
    int fd;                 /* files: open for the whole diff */
    const char *data;       /* symlinks: the target */
    uint64_t len;
    struct stat st; /* as first read: a later change is refused */
    struct wb_textclass tc;
    char blob_id[WB_SHA1_HEX];
};

static bool needs_quote(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\' || c == ' ' || c < 0x20 || c >= 0x7f)
            return true;
    }
    return false;
}

void wb_patch_put_path(FILE *out, const char *prefix, const char *path, size_t len)
{
    if (!needs_quote(path, len)) {
        fprintf(out, "%s%.*s", prefix, (int)len, path);
        return;
    }
    fprintf(out, "\"%s", prefix);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\%03o", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static const char *mode_of(const struct wb_obj *o)
{
    if (o->type == WB_T_SYMLINK)
        return "120000";
    return o->exec ? "100755" : "100644";
}

static bool present(const struct wb_obj *o)
{
    return o->type == WB_T_FILE || o->type == WB_T_SYMLINK;
}

static void side_free(struct side *sd)
{
    if (sd->fd >= 0)
        close(sd->fd);
    sd->fd = -1;
}

/* One pass over a file: its size and SHA-256 must be what was vetted; on
 * the way, git's blob id and whether it may be printed. */
static int read_file(struct side *sd, int rootfd, const char *path, struct rr_error *err)
{
    char hdr[32], buf[WB_LD_BUF];
    unsigned char sha[WB_SHA256_LEN], id[WB_SHA1_LEN];
    struct wb_sha256 c256;
    struct wb_sha1 c1;
    uint64_t done = 0;
    int n = snprintf(hdr, sizeof(hdr), "blob %ju", (uintmax_t)sd->o->size);

    sd->fd = wb_openat_beneath(rootfd, path, O_RDONLY | O_NONBLOCK, 0);
    if (sd->fd < 0 || fstat(sd->fd, &sd->st) < 0)
        return rr_fail(err, errno, "open %s", path);
    if (!S_ISREG(sd->st.st_mode) || (uint64_t)sd->st.st_size != sd->o->size)
        return rr_fail(err, ESTALE, "%s changed since it was vetted", path);
    sd->len = sd->o->size;
    wb_sha256_init(&c256);
    wb_sha1_init(&c1);
    wb_sha1_update(&c1, hdr, (size_t)n + 1); /* with the NUL */
    while (done < sd->len) {
        size_t want = sd->len - done < sizeof(buf) ? (size_t)(sd->len - done) : sizeof(buf);
        ssize_t got = pread(sd->fd, buf, want, (off_t)done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? rr_fail(err, errno, "read %s", path)
                           : rr_fail(err, ESTALE, "%s changed since it was vetted", path);
        wb_sha256_update(&c256, buf, (size_t)got);
        wb_sha1_update(&c1, buf, (size_t)got);
        wb_textclass_feed(&sd->tc, buf, (size_t)got);
        done += (size_t)got;
    }
    wb_sha256_final(&c256, sha);
    if (memcmp(sha, sd->o->sha256, WB_SHA256_LEN) != 0)
        return rr_fail(err, ESTALE, "%s changed since it was vetted", path);
    wb_sha1_final(&c1, id);
    wb_hex(id, sizeof(id), sd->blob_id);
    return 0;
}

static void blob_id_of(const char *data, size_t len, char out[WB_SHA1_HEX])
{
    char hdr[32];
    unsigned char d[WB_SHA1_LEN];
    struct wb_sha1 c;
    int n = snprintf(hdr, sizeof(hdr), "blob %zu", len);

    wb_sha1_init(&c);
    wb_sha1_update(&c, hdr, (size_t)n + 1); /* with the NUL */
    wb_sha1_update(&c, data, len);
    wb_sha1_final(&c, d);
    wb_hex(d, sizeof(d), out);
}

static int load(struct side *sd, int rootfd, bool by_hash, const char *path, struct rr_error *err)
{
    const struct wb_obj *o = sd->o;
    char hex[WB_SHA256_HEX];

    sd->fd = -1;
    wb_textclass_init(&sd->tc);
    if (o->type == WB_T_FILE) {
        if (by_hash) {
            wb_hex(o->sha256, WB_SHA256_LEN, hex);
            path = hex;
        }
        if (read_file(sd, rootfd, path, err) < 0)
            return -1;
    } else if (o->type == WB_T_SYMLINK) {
        sd->data = o->target;
        sd->len = o->size;
        wb_textclass_feed(&sd->tc, sd->data, sd->len);
        blob_id_of(sd->data, sd->len, sd->blob_id);
    } else {
        memset(sd->blob_id, '0', WB_SHA1_HEX - 1), sd->blob_id[WB_SHA1_HEX - 1] = '\0';
    }
    wb_textclass_finish(&sd->tc);
    return 0;
}

/* Still the file that was read first (nothing may change it while the
 * container is stopped; a bare pair is the operator's to keep still). */
static int unchanged(const struct side *sd, const char *path, struct rr_error *err)
{
    struct stat st;

    if (sd->fd < 0)
        return 0;
    if (fstat(sd->fd, &st) < 0)
        return rr_fail(err, errno, "%s", path);
    if (st.st_size != sd->st.st_size || st.st_ino != sd->st.st_ino ||
        st.st_mtim.tv_sec != sd->st.st_mtim.tv_sec ||
        st.st_mtim.tv_nsec != sd->st.st_mtim.tv_nsec ||
        st.st_ctim.tv_sec != sd->st.st_ctim.tv_sec || st.st_ctim.tv_nsec != sd->st.st_ctim.tv_nsec)
        return rr_fail(err, ESTALE, "%s changed while the patch was written", path);
    return 0;
}

static bool as_binary(const struct side *sd)
{
    return sd->tc.binary || sd->tc.unsafe != NULL;
}

/* Reading a side's bytes for printing: a buffer that follows the offsets
 * asked for (they only grow), so a line of any length is printed in chunks. */
struct cursor {
    const struct side *sd;
    uint64_t off;
    size_t len;
    char buf[WB_LD_BUF];
};

static int side_read(void *ctx, uint64_t off, void *buf, size_t n, struct rr_error *err)
{
    const struct side *sd = ctx;

    if (sd->fd < 0) {
        memcpy(buf, sd->data + off, n);
        return 0;
    }
    for (size_t done = 0; done < n;) {
        ssize_t got = pread(sd->fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return rr_fail(err, got < 0 ? errno : ESTALE, "reading for the patch");
        done += (size_t)got;
    }
    return 0;
}

static int cursor_put(struct cursor *c, FILE *out, uint64_t off, uint64_t len,
                      struct rr_error *err)
{
    while (len > 0) {
        if (off < c->off || off >= c->off + c->len) {
            uint64_t left = c->sd->len - off;
            c->len = left < sizeof(c->buf) ? (size_t)left : sizeof(c->buf);
            c->off = off;
            if (c->len == 0 || side_read((void *)c->sd, off, c->buf, c->len, err) < 0)
                return c->len == 0 ? rr_fail(err, ESTALE, "reading for the patch") : -1;
        }
        size_t at = (size_t)(off - c->off), n = c->len - at < len ? c->len - at : (size_t)len;
        fwrite(c->buf + at, 1, n, out);
        off += n;
        len -= n;
    }
    return 0;
}

/* A line as a hunk shows it: its mark, its bytes, git's marker when it is
 * the last one and has no newline. */
static int put_line(FILE *out, char mark, struct cursor *c, uint64_t off, uint64_t len,
                    struct rr_error *err)
{
    fputc(mark, out);
    if (cursor_put(c, out, off, len, err) < 0)
        return -1;
    if (off + len == c->sd->len && !c->sd->tc.last_nl)
        fputs("\n\\ No newline at end of file\n", out);
    return 0;
}

/* A file created or deleted: one hunk of all its lines, in one pass of
 * chunks (each line's mark written where one starts). */
static int put_whole(FILE *out, const struct side *sd, char mark, struct rr_error *err)
{
    _cleanup_free_ char *buf = malloc(WB_LD_BUF);
    bool line_start = true;

    if (buf == NULL)
        return rr_fail(err, ENOMEM, "patch");
    if (mark == '+')
        fprintf(out, "@@ -0,0 +1,%ju @@\n", (uintmax_t)sd->tc.lines);
    else
        fprintf(out, "@@ -1,%ju +0,0 @@\n", (uintmax_t)sd->tc.lines);
    for (uint64_t off = 0; off < sd->len;) {
        size_t n = sd->len - off < WB_LD_BUF ? (size_t)(sd->len - off) : WB_LD_BUF;
        if (side_read((void *)sd, off, buf, n, err) < 0)
            return -1;
        for (const char *p = buf, *end = buf + n; p < end;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t seg = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
            if (line_start)
                fputc_unlocked(mark, out);
            fwrite_unlocked(p, 1, seg, out);
            line_start = nl != NULL;
            p += seg;
        }
        off += n;
    }
    if (!line_start)
        fputs("\n\\ No newline at end of file\n", out);
    return 0;
}

/* Hunks (CONTEXT lines around changes; changes at most 2*CONTEXT lines
 * apart share one) are found by one pass of the diff and printed by a
 * second, identical one: a hunk's header needs its line counts before its
 * lines, and keeping the lines would cost memory the file decides. */
struct hunk {
    uint64_t sa, sb, ca, cb;
};

struct planner {
    struct wb_ldiff d;
    bool in, end;
    uint64_t eq; /* EQ lines since the last change */
    struct hunk h;
};

static int plan_next(struct planner *p, struct hunk *h, bool *got, struct rr_error *err)
{
    struct wb_ld_edit e;

    *got = false;
    while (!p->end) {
        if (wb_ldiff_next(&p->d, &e, &p->end, err) < 0)
            return -1;
        if (p->end)
            break;
        if (e.op == WB_EQ) {
            if (++p->eq > 2 * CONTEXT && p->in) {
                *h = p->h;
                h->ca += CONTEXT;
                h->cb += CONTEXT;
                p->in = false;
                *got = true;
                return 0;
            }
            continue;
        }
        if (!p->in) {
            uint64_t lead = p->eq < CONTEXT ? p->eq : CONTEXT;
            p->h = (struct hunk){e.ia - lead, e.ib - lead, lead, lead};
            p->in = true;
        } else {
            p->h.ca += p->eq;
            p->h.cb += p->eq;
        }
        p->eq = 0;
        p->h.ca += e.op == WB_DEL;
        p->h.cb += e.op == WB_INS;
    }
    if (p->in) {
        uint64_t tail = p->eq < CONTEXT ? p->eq : CONTEXT;
        *h = p->h;
        h->ca += tail;
        h->cb += tail;
        p->in = false;
        *got = true;
    }
    return 0;
}

struct emitter {
    struct wb_ldiff d;
    struct cursor a, b;
    struct wb_ld_edit next;
    bool have, end;
};

static int peek(struct emitter *m, struct rr_error *err)
{
    if (m->have || m->end)
        return 0;
    if (wb_ldiff_next(&m->d, &m->next, &m->end, err) < 0)
        return -1;
    m->have = !m->end;
    return 0;
}

static int put_hunk(FILE *out, struct emitter *m, const struct hunk *h, struct rr_error *err)
{
    fprintf(out, "@@ -%ju,%ju +%ju,%ju @@\n", (uintmax_t)(h->ca ? h->sa + 1 : h->sa),
            (uintmax_t)h->ca, (uintmax_t)(h->cb ? h->sb + 1 : h->sb), (uintmax_t)h->cb);
    for (;;) {
        if (peek(m, err) < 0)
            return -1;
        if (!m->have)
            return 0;
        const struct wb_ld_edit *e = &m->next;
        if (e->ia < h->sa || e->ib < h->sb) { /* before the hunk */
            m->have = false;
            continue;
        }
        if (e->ia >= h->sa + h->ca && e->ib >= h->sb + h->cb)
            return 0; /* past it */
        m->have = false;
        if (put_line(out, e->op == WB_EQ ? ' ' : e->op == WB_DEL ? '-' : '+',
                     e->op == WB_INS ? &m->b : &m->a, e->off, e->len, err) < 0)
            return -1;
    }
}

static int put_text(FILE *out, const struct side *old, const struct side *new, struct rr_error *err)
{
    uint64_t key[2];
    struct planner *p = calloc(1, sizeof(*p));
    struct emitter *m = calloc(1, sizeof(*m));
    int r = -1;

    if (p == NULL || m == NULL) {
        free(p);
        free(m);
        return rr_fail(err, ENOMEM, "patch");
    }
    if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
        r = rr_fail(err, errno, "getrandom");
    } else if (wb_ldiff_init(&p->d, old->fd, old->len, new->fd, new->len, key, err) == 0 &&
               wb_ldiff_init(&m->d, old->fd, old->len, new->fd, new->len, key, err) == 0) {
        m->a.sd = old;
        m->b.sd = new;
        for (;;) {
            struct hunk h;
            bool got;
            if ((r = plan_next(p, &h, &got, err)) < 0 || !got)
                break;
            if ((r = put_hunk(out, m, &h, err)) < 0)
                break;
        }
    }
    wb_ldiff_free(&p->d);
    wb_ldiff_free(&m->d);
    free(p);
    free(m);
    return r;
}

static void put_header(FILE *out, const char *path, size_t len, const struct side *old,
                       const struct side *new)
{
    bool same_mode =
        present(old->o) && present(new->o) && strcmp(mode_of(old->o), mode_of(new->o)) == 0;

    fputs("diff --git ", out);
    wb_patch_put_path(out, "a/", path, len);
    fputc(' ', out);
    wb_patch_put_path(out, "b/", path, len);
    fputc('\n', out);
    if (!present(old->o))
        fprintf(out, "new file mode %s\n", mode_of(new->o));
    else if (!present(new->o))
        fprintf(out, "deleted file mode %s\n", mode_of(old->o));
    else if (!same_mode)
        fprintf(out, "old mode %s\nnew mode %s\n", mode_of(old->o), mode_of(new->o));
    if (strcmp(old->blob_id, new->blob_id) != 0 || !present(old->o) || !present(new->o))
        fprintf(out, "index %s..%s%s%s\n", old->blob_id, new->blob_id, same_mode ? " " : "",
                same_mode ? mode_of(new->o) : "");
}

static int put_retarget(FILE *out, const struct side *old, const struct side *new,
                        struct rr_error *err)
{
    struct cursor *c = calloc(1, sizeof(*c));
    int r;

    if (c == NULL)
        return rr_fail(err, ENOMEM, "patch");
    fputs("@@ -1,1 +1,1 @@\n", out);
    c->sd = old;
    r = put_line(out, '-', c, 0, old->len, err);
    *c = (struct cursor){.sd = new};
    if (r == 0)
        r = put_line(out, '+', c, 0, new->len, err);
    free(c);
    return r;
}

/* Why a side is shown as a binary patch though git would print it. */
static void put_unsafe(FILE *out, const char *path, size_t len, const char *which,
                       const struct side *sd)
{
    if (sd->tc.unsafe == NULL || sd->tc.binary)
        return;
    fputs("# revrun: ", out);
    wb_patch_put_path(out, "", path, len);
    fprintf(out, ": the %s content holds %s: unsafe to print, shown as a binary patch\n", which,
            sd->tc.unsafe);
}

static int put_body(FILE *out, const char *path, size_t len, const struct side *old,
                    const struct side *new, struct rr_error *err)
{
    if (strcmp(old->blob_id, new->blob_id) == 0 || (old->len == 0 && new->len == 0))
        return 0; /* a mode change, or an empty file created or deleted */
    if (as_binary(old) || as_binary(new)) {
        fputs("GIT binary patch\n", out);
        return wb_binpatch_literal_from(out, new->len, side_read, (void *)new, err);
    }
    fputs("--- ", out);
    present(old->o) ? wb_patch_put_path(out, "a/", path, len) : (void)fputs("/dev/null", out);
    fputs("\n+++ ", out);
    present(new->o) ? wb_patch_put_path(out, "b/", path, len) : (void)fputs("/dev/null", out);
    fputc('\n', out);
    if (old->len == 0)
        return put_whole(out, new, '+', err);
    if (new->len == 0)
        return put_whole(out, old, '-', err);
    if (old->fd < 0 || new->fd < 0) /* a symlink retargeted: one line each */
        return put_retarget(out, old, new, err);
    return put_text(out, old, new, err);
}

/* One git diff: base -> new, either of which may be absent (NONE or DIR). */
static int put_diff(FILE *out, const struct wb_patch_src *s, const struct wb_change *c,
                    const struct wb_obj *base, const struct wb_obj *new, struct rr_error *err)
{
    struct side o = {.o = base, .fd = -1}, n = {.o = new, .fd = -1};
    int r = -1;

    if (load(&o, s->base_fd, s->by_hash, c->path, err) == 0 &&
        load(&n, s->new_fd, s->by_hash, c->path, err) == 0) {
        put_unsafe(out, c->path, c->path_len, "old", &o);
        put_unsafe(out, c->path, c->path_len, "new", &n);
        put_header(out, c->path, c->path_len, &o, &n);
        r = put_body(out, c->path, c->path_len, &o, &n, err);
        if (r == 0 && (unchanged(&o, c->path, err) < 0 || unchanged(&n, c->path, err) < 0))
            r = -1;
    }
    side_free(&o);
    side_free(&n);
    return r < 0 ? rr_wrap(err, "patch of %s", c->path) : 0;
}

int wb_patch_write(FILE *out, const struct wb_scan *s, struct rr_error *err)
{
    const struct wb_patch_src src = {.base_fd = s->lower_fd, .new_fd = s->upper_fd};

    return wb_patch_write_src(out, &s->cs, &src, err);
}

int wb_patch_write_src(FILE *out, const struct wb_changeset *cs, const struct wb_patch_src *s,
                        struct rr_error *err)
{
    static const struct wb_obj none = {.type = WB_T_NONE};

    for (size_t i = 0; i < cs->n; i++) {
        const struct wb_change *c = &cs->v[i];
        int r = 0;
        if (c->kind == WB_REPLACE) {
            /* git has no type change: the old one goes, the new one comes */
            if (present(&c->base))
                r = put_diff(out, s, c, &c->base, &none, err);
            if (r == 0 && present(&c->new))
                r = put_diff(out, s, c, &none, &c->new, err);
        } else if (present(&c->base) || present(&c->new)) {
            r = put_diff(out, s, c, &c->base, &c->new, err);
        }
        if (r < 0)
            return -1;
    }
    return 0;
}
