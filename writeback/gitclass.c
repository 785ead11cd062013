#include "writeback/gitclass.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/crashpoint.h"
#include "writeback/fsutil.h"
#include "writeback/git2.h"
#include "writeback/gitfile.h"
#include "writeback/gitmatch.h"
#include "writeback/gitshadow.h"
#include "writeback/names.h"
#include "writeback/rmtree.h"

/* The shadow's own config: nothing of the checkout's, and no core.ignoreCase
 * guess (Linux compares names by bytes, as the apply does). */
static const char shadow_config[] = "[core]\n"
                                    "\trepositoryformatversion = 0\n"
                                    "\tbare = false\n"
                                    "\tignorecase = false\n";

/* An ignore file of the merged view, kept until the shadow needs it. */
struct ignore_file {
    char *dir; /* "" for the top */
    size_t dlen;
    char *text;
    size_t len;
    bool written; /* copied into the shadow */
};

struct wb_git {
    int lower_fd, upper_fd; /* borrowed */
    enum wb_format fmt;
    struct ignore_file *files;
    size_t n_files, cap_files, bytes;
    size_t *stack; /* per directory the walk is in: its file, or SIZE_MAX */
    size_t depth, cap_stack;
    char *exclude; /* the merged .git/info/exclude, or NULL */
    size_t exclude_len;
    const struct wb_git2 *g2; /* loaded on the first question a rule may answer */
    char shadow[PATH_MAX];
    int shadow_fd;
    bool shadow_made;
    git_repository *repo;
    bool indexes_read, index_failed;
    git_index *lower_idx, *upper_idx;
    char problem[200];
};

static int write_at(int dirfd, const char *name, const char *buf, size_t len, struct rr_error *err)
{
    _cleanup_close_ int fd =
        openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t off = 0;
    ssize_t w;

    if (fd < 0)
        return rr_fail(err, errno, "git shadow: create %s", name);
    while (off < len) {
        if ((w = write(fd, buf + off, len - off)) < 0)
            return rr_fail(err, errno, "git shadow: write %s", name);
        off += (size_t)w;
    }
    return 0;
}

/* The merged view's .git/info/exclude, kept in memory. */
static int read_exclude(struct wb_git *g, struct rr_error *err)
{
    _cleanup_close_ int u = wb_openat_beneath(g->upper_fd, ".git/info", O_RDONLY | O_DIRECTORY, 0);
    _cleanup_close_ int l = wb_openat_beneath(g->lower_fd, ".git/info", O_RDONLY | O_DIRECTORY, 0);
    int r = wb_git_read_merged(u, l, g->fmt, "exclude", WB_GITIGNORE_MAX, &g->exclude,
                               &g->exclude_len, err);

    if (r < 0 && err->errnum == E2BIG) {
        snprintf(g->problem, sizeof(g->problem), ".git/info/exclude over %u bytes was not read",
                 WB_GITIGNORE_MAX);
        return 0;
    }
    if (r < 0)
        return rr_wrap(err, ".git/info/exclude");
    g->bytes += g->exclude_len;
    return 0;
}

int wb_git_open(int lower_fd, int upper_fd, enum wb_format fmt, bool gitfile, struct wb_git **out,
                struct rr_error *err)
{
    struct wb_git *g = calloc(1, sizeof(*g));

    if (g == NULL)
        return rr_fail(err, ENOMEM, "git");
    *g = (struct wb_git){.lower_fd = lower_fd, .upper_fd = upper_fd, .fmt = fmt, .shadow_fd = -1};
    if (gitfile) {
        /* No index to ask (in_lower then counts as tracked), no exclude. */
        g->indexes_read = g->index_failed = true;
        snprintf(g->problem, sizeof(g->problem),
                 "the checkout's .git is a gitfile (a worktree's): its git directory, outside "
                 "the checkout, was not read, so every changed checkout file counts");
        *out = g;
        return 0;
    }
    if (read_exclude(g, err) < 0) {
        wb_git_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

static void remove_shadow(struct wb_git *g)
{
    struct rr_error ignored;
    char *slash = strrchr(g->shadow, '/');
    int parent;

    *slash = '\0';
    parent = open(g->shadow[0] ? g->shadow : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent >= 0) {
        /* revrun's own tree, as deep as the walk went at most (256) */
        wb_rmtree_at(parent, slash + 1, WB_SHADOW_DEPTH, &ignored);
        close(parent);
    }
}

void wb_git_close(struct wb_git *g)
{
    if (g == NULL)
        return;
    if (g->g2 != NULL) {
        g->g2->git_index_free(g->lower_idx);
        g->g2->git_index_free(g->upper_idx);
        g->g2->git_repository_free(g->repo);
        wb_git2_release(g->g2);
    }
    if (g->shadow_fd >= 0)
        close(g->shadow_fd);
    if (g->shadow_made)
        remove_shadow(g);
    for (size_t i = 0; i < g->n_files; i++) {
        free(g->files[i].dir);
        free(g->files[i].text);
    }
    free(g->files);
    free(g->stack);
    free(g->exclude);
    free(g);
}

/* ---- the shadow repository libgit2 reads ---- */

static int make_shadow(struct wb_git *g, struct rr_error *err)
{
    _cleanup_close_ int gd = -1, info = -1;

    snprintf(g->shadow, sizeof(g->shadow), "%s/" WB_SHADOW_PREFIX "XXXXXX", wb_shadow_parent());
    if (mkdtemp(g->shadow) == NULL)
        return rr_fail(err, errno, "git shadow: mkdtemp %s", g->shadow);
    g->shadow_made = true;
    /* Locked while in use: `revrun sweep` removes only unlocked ones, the
     * leftovers of a vet that crashed or was killed (gitshadow.h). */
    if ((g->shadow_fd = open(g->shadow, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
        flock(g->shadow_fd, LOCK_EX) < 0 ||
        mkdirat(g->shadow_fd, ".git", 0700) < 0 ||
        (gd = openat(g->shadow_fd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
        mkdirat(gd, "objects", 0700) < 0 || mkdirat(gd, "refs", 0700) < 0 ||
        mkdirat(gd, "info", 0700) < 0 ||
        (info = openat(gd, "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return rr_fail(err, errno, "git shadow %s", g->shadow);
    if (write_at(gd, "HEAD", "ref: refs/heads/main\n", 21, err) < 0 ||
        write_at(gd, "config", shadow_config, sizeof(shadow_config) - 1, err) < 0 ||
        (g->exclude && write_at(info, "exclude", g->exclude, g->exclude_len, err) < 0))
        return -1;
    return 0;
}

/* mkdir -p dir[0..len) inside the shadow; returns the directory's fd. */
static int shadow_dir(struct wb_git *g, const char *dir, size_t len, struct rr_error *err)
{
    int fd = dup(g->shadow_fd), next;
    size_t pos = 0, n;
    const char *c;
    char name[NAME_MAX + 1];

    if (fd < 0)
        return rr_fail(err, errno, "git shadow");
    while (len > 0 && wb_next_component(dir, len, &pos, &c, &n)) {
        if (n > NAME_MAX) {
            close(fd);
            return rr_fail(err, ENAMETOOLONG, "git shadow");
        }
        memcpy(name, c, n);
        name[n] = '\0';
        if (mkdirat(fd, name, 0700) < 0 && errno != EEXIST) {
            close(fd);
            return rr_fail(err, errno, "git shadow: mkdir");
        }
        next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        if ((fd = next) < 0)
            return rr_fail(err, errno, "git shadow: open");
    }
    return fd;
}

/* The ignore files met since the last question, into the shadow. */
static int flush_files(struct wb_git *g, struct rr_error *err)
{
    for (size_t i = 0; i < g->n_files; i++) {
        struct ignore_file *f = &g->files[i];
        int fd, r;
        if (f->written)
            continue;
        if ((fd = shadow_dir(g, f->dir, f->dlen, err)) < 0)
            return -1;
        r = write_at(fd, ".gitignore", f->text, f->len, err);
        close(fd);
        if (r < 0)
            return -1;
        f->written = true;
    }
    return 0;
}

/* libgit2 and the shadow, the first time a rule may answer. */
static int need_lib(struct wb_git *g, struct rr_error *err)
{
    if (g->repo != NULL)
        return flush_files(g, err);
    if (g->g2 == NULL && (g->g2 = wb_git2_acquire(err)) == NULL)
        return -1;
    if (!g->shadow_made && make_shadow(g, err) < 0)
        return -1;
    if (flush_files(g, err) < 0)
        return -1;
    if (g->g2->git_repository_open_ext(&g->repo, g->shadow, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) <
        0)
        return rr_fail(err, 0, "libgit2: opening the shadow repository: %s",
                       wb_git2_error(g->g2));
    crash_point("vet:git-shadow"); /* the shadow is left behind: sweep's to clean */
    return 0;
}

/* ---- the walk's directories ---- */

static int push(struct wb_git *g, size_t file, struct rr_error *err)
{
    if (g->depth == g->cap_stack) {
        size_t ncap = g->cap_stack ? g->cap_stack * 2 : 64;
        size_t *nv = realloc(g->stack, ncap * sizeof(*nv));
        if (nv == NULL)
            return rr_fail(err, ENOMEM, "git");
        g->stack = nv;
        g->cap_stack = ncap;
    }
    g->stack[g->depth++] = file;
    return 0;
}

/* On failure nothing is kept: the caller still owns text. */
static int keep_file(struct wb_git *g, const char *dir, size_t len, char *text, size_t tlen,
                     struct rr_error *err)
{
    struct ignore_file f = {.dlen = len, .text = text, .len = tlen};

    if (g->n_files == g->cap_files) {
        size_t ncap = g->cap_files ? g->cap_files * 2 : 16;
        struct ignore_file *nv = realloc(g->files, ncap * sizeof(*nv));
        if (nv == NULL)
            return rr_fail(err, ENOMEM, "git");
        g->files = nv;
        g->cap_files = ncap;
    }
    if ((f.dir = strndup(dir, len)) == NULL)
        return rr_fail(err, ENOMEM, "git");
    if (push(g, g->n_files, err) < 0) {
        free(f.dir);
        return -1;
    }
    g->files[g->n_files++] = f;
    return 0;
}

int wb_git_enter(struct wb_git *g, const char *dir, size_t len, int ufd, int lfd,
                 struct rr_error *err)
{
    char *buf = NULL;
    size_t blen;
    int r;

    if (wb_path_has_dotgit(dir, len) || g->n_files >= WB_GITIGNORE_FILES)
        return push(g, SIZE_MAX, err); /* a nested .git is refused anyway; past the cap: fewer rules */
    if ((r = wb_git_read_merged(ufd, lfd, g->fmt, ".gitignore", WB_GITIGNORE_MAX, &buf, &blen,
                                err)) < 0) {
        if (err->errnum != E2BIG)
            return rr_wrap(err, "%.*s/.gitignore", (int)len, dir);
        snprintf(g->problem, sizeof(g->problem), "an ignore file over %u bytes was not read",
                 WB_GITIGNORE_MAX);
        return push(g, SIZE_MAX, err);
    }
    if (r == 0 || blen == 0 || g->bytes + blen > WB_GITIGNORE_TOTAL) {
        if (r == 1 && blen > 0)
            snprintf(g->problem, sizeof(g->problem),
                     "ignore files over %u bytes in all: the rest were not read",
                     WB_GITIGNORE_TOTAL);
        free(buf);
        return push(g, SIZE_MAX, err);
    }
    g->bytes += blen;
    if (keep_file(g, dir, len, buf, blen, err) < 0) {
        free(buf);
        return -1;
    }
    return 0;
}

void wb_git_leave(struct wb_git *g)
{
    if (g->depth > 0)
        g->depth--;
}

/* Could any rule on the way down to path ignore it? The walk's stack holds
 * exactly the directories above it. */
static bool may_be_ignored(const struct wb_git *g, const char *path, size_t len)
{
    if (g->exclude && wb_ignore_may_match(g->exclude, g->exclude_len, path, len))
        return true;
    for (size_t i = 0; i < g->depth; i++) {
        const struct ignore_file *f;
        size_t skip;
        if (g->stack[i] == SIZE_MAX)
            continue;
        f = &g->files[g->stack[i]];
        skip = f->dlen ? f->dlen + 1 : 0;
        if (len > skip && wb_ignore_may_match(f->text, f->len, path + skip, len - skip))
            return true;
    }
    return false;
}

/* ---- the indexes ---- */

static void set_problem(struct wb_git *g, const char *which, const char *why)
{
    g->index_failed = true;
    if (g->problem[0] == '\0')
        snprintf(g->problem, sizeof(g->problem), "%s index could not be read (%s)", which, why);
}

/* root/.git/index into *out; a tree without one (or, in the upper, with the
 * whiteout of one) leaves *out NULL. */
static void load_index(struct wb_git *g, int root, const char *which, git_index **out)
{
    _cleanup_close_ int fd = wb_openat_beneath(root, ".git/index", O_PATH, 0);
    char proc[64];
    struct stat st;

    if (fd < 0) {
        if (errno != ENOENT)
            set_problem(g, which, strerror(errno));
        return;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        return;
    if ((uint64_t)st.st_size > WB_GIT_INDEX_MAX) {
        set_problem(g, which, "larger than 256 MiB");
        return;
    }
    /* The inode opened beneath the tree, not a path libgit2 would resolve. */
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    if (g->g2->git_index_open(out, proc) < 0) {
        *out = NULL;
        set_problem(g, which, wb_git2_error(g->g2));
    }
}

static bool in_index(const struct wb_git *g, git_index *idx, const char *q, bool dir)
{
    size_t pos;

    if (idx == NULL)
        return false;
    return dir ? g->g2->git_index_find_prefix(&pos, idx, q) == 0
               : g->g2->git_index_find(&pos, idx, q) == 0;
}

int wb_git_ignored(struct wb_git *g, const char *path, size_t len, bool dir, bool in_lower,
                   bool *ignored, struct rr_error *err)
{
    _cleanup_free_ char *q = NULL;
    int ign = 0;

    *ignored = false;
    if (len == 0 || wb_path_has_dotgit(path, len) || !may_be_ignored(g, path, len))
        return 0;
    if (need_lib(g, err) < 0)
        return rr_wrap(err, "the checkout's ignore rules");
    if ((q = malloc(len + 2)) == NULL)
        return rr_fail(err, ENOMEM, "git");
    memcpy(q, path, len);
    if (dir)
        q[len++] = '/';
    q[len] = '\0';
    if (g->g2->git_ignore_path_is_ignored(&ign, g->repo, q) < 0)
        return rr_fail(err, 0, "libgit2: ignore rules for %s: %s", q, wb_git2_error(g->g2));
    if (!ign)
        return 0;
    if (!g->indexes_read) {
        g->indexes_read = true;
        load_index(g, g->lower_fd, "the checkout's", &g->lower_idx);
        load_index(g, g->upper_fd, "the agent's", &g->upper_idx);
    }
    if (g->index_failed && in_lower)
        return 0; /* no index to ask: a changed checkout file counts */
    *ignored = !in_index(g, g->lower_idx, q, dir) && !in_index(g, g->upper_idx, q, dir);
    return 0;
}

const char *wb_git_problem(const struct wb_git *g)
{
    return g->problem;
}
