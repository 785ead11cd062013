#include "writeback/gitclass.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/fsutil.h"
#include "writeback/gitfile.h"
#include "writeback/names.h"
#include "writeback/rmtree.h"

/* The shadow's own config: nothing of the checkout's, and no core.ignoreCase
 * guess (Linux compares names by bytes, as the apply does). */
static const char shadow_config[] = "[core]\n"
                                    "\trepositoryformatversion = 0\n"
                                    "\tbare = false\n"
                                    "\tignorecase = false\n"
                                    "\tfilemode = true\n"
                                    "\tsymlinks = true\n";

struct wb_git {
    int lower_fd, upper_fd; /* borrowed */
    enum wb_format fmt;
    char shadow[PATH_MAX];
    int shadow_fd;
    bool shadow_made;
    git_repository *repo;
    bool lib;
    size_t n_files; /* ignore files copied into the shadow */
    size_t bytes;
    bool exclude; /* .git/info/exclude holds something */
    bool indexes_read;
    git_index *lower_idx, *upper_idx;
    bool index_failed;
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

/* libgit2 reads no system, global or XDG config and no ~/.gitconfig: only
 * the shadow's. The settings are process-wide; only write-back uses libgit2. */
static int lib_init(struct wb_git *g, struct rr_error *err)
{
    static const int levels[] = {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
                                 GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA};

    if (git_libgit2_init() < 0)
        return rr_fail(err, 0, "libgit2: init failed");
    g->lib = true;
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if (git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, levels[i], "") < 0)
            return rr_fail(err, 0, "libgit2: clearing the config search path failed");
    return 0;
}

static int make_shadow(struct wb_git *g, struct rr_error *err)
{
    const char *tmp = getenv("TMPDIR");
    _cleanup_close_ int gd = -1, info = -1;

    snprintf(g->shadow, sizeof(g->shadow), "%s/revrun-gitignore.XXXXXX",
             tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(g->shadow) == NULL)
        return rr_fail(err, errno, "git shadow: mkdtemp %s", g->shadow);
    g->shadow_made = true;
    if ((g->shadow_fd = open(g->shadow, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
        mkdirat(g->shadow_fd, ".git", 0700) < 0 ||
        (gd = openat(g->shadow_fd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
        mkdirat(gd, "objects", 0700) < 0 || mkdirat(gd, "refs", 0700) < 0 ||
        mkdirat(gd, "info", 0700) < 0 ||
        (info = openat(gd, "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return rr_fail(err, errno, "git shadow %s", g->shadow);
    if (write_at(gd, "HEAD", "ref: refs/heads/main\n", 21, err) < 0 ||
        write_at(gd, "config", shadow_config, sizeof(shadow_config) - 1, err) < 0)
        return -1;
    return 0;
}

/* The merged view's .git/info/exclude, into the shadow's. */
static int copy_exclude(struct wb_git *g, struct rr_error *err)
{
    _cleanup_close_ int u = wb_openat_beneath(g->upper_fd, ".git/info", O_RDONLY | O_DIRECTORY, 0);
    _cleanup_close_ int l = wb_openat_beneath(g->lower_fd, ".git/info", O_RDONLY | O_DIRECTORY, 0);
    _cleanup_close_ int info = -1;
    _cleanup_free_ char *buf = NULL;
    size_t len;
    int r = wb_git_read_merged(u, l, g->fmt, "exclude", WB_GITIGNORE_MAX, &buf, &len, err);

    if (r < 0)
        return rr_wrap(err, ".git/info/exclude");
    if (r == 0 || len == 0)
        return 0;
    g->exclude = true;
    g->bytes += len;
    if ((info = openat(g->shadow_fd, ".git/info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                     O_CLOEXEC)) < 0)
        return rr_fail(err, errno, "git shadow");
    return write_at(info, "exclude", buf, len, err);
}

int wb_git_open(int lower_fd, int upper_fd, enum wb_format fmt, struct wb_git **out,
                struct rr_error *err)
{
    struct wb_git *g = calloc(1, sizeof(*g));
    int r;

    if (g == NULL)
        return rr_fail(err, ENOMEM, "git");
    *g = (struct wb_git){.lower_fd = lower_fd, .upper_fd = upper_fd, .fmt = fmt, .shadow_fd = -1};
    r = lib_init(g, err);
    if (r == 0)
        r = make_shadow(g, err);
    if (r == 0)
        r = copy_exclude(g, err);
    if (r == 0 && git_repository_open_ext(&g->repo, g->shadow, GIT_REPOSITORY_OPEN_NO_SEARCH,
                                          NULL) < 0)
        r = rr_fail(err, 0, "libgit2: opening the shadow repository: %s",
                    git_error_last() ? git_error_last()->message : "?");
    if (r < 0) {
        wb_git_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

void wb_git_close(struct wb_git *g)
{
    struct rr_error ignored;

    if (g == NULL)
        return;
    git_index_free(g->lower_idx);
    git_index_free(g->upper_idx);
    git_repository_free(g->repo);
    if (g->shadow_fd >= 0)
        close(g->shadow_fd);
    if (g->shadow_made) {
        /* Revrun's own tree, as deep as the walk went at most. */
        char *slash = strrchr(g->shadow, '/');
        int parent;
        *slash = '\0';
        parent = open(g->shadow[0] ? g->shadow : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (parent >= 0) {
            wb_rmtree_at(parent, slash + 1, 300, &ignored); /* the walk stops at 256 */
            close(parent);
        }
    }
    if (g->lib)
        git_libgit2_shutdown();
    free(g);
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

int wb_git_enter(struct wb_git *g, const char *dir, size_t len, int ufd, int lfd,
                 struct rr_error *err)
{
    _cleanup_free_ char *buf = NULL;
    _cleanup_close_ int sfd = -1;
    size_t blen;
    int r;

    if (wb_path_has_dotgit(dir, len) || g->n_files >= WB_GITIGNORE_FILES)
        return 0; /* a nested .git is refused anyway; past the cap: fewer rules, more exported */
    if ((r = wb_git_read_merged(ufd, lfd, g->fmt, ".gitignore", WB_GITIGNORE_MAX, &buf, &blen,
                                err)) < 0) {
        if (err->errnum != E2BIG)
            return rr_wrap(err, "%.*s/.gitignore", (int)len, dir);
        snprintf(g->problem, sizeof(g->problem), "an ignore file over %u bytes was not read",
                 WB_GITIGNORE_MAX);
        return 0;
    }
    if (r == 0 || blen == 0)
        return 0;
    if (g->bytes + blen > WB_GITIGNORE_TOTAL) {
        snprintf(g->problem, sizeof(g->problem),
                 "ignore files over %u bytes in all: the rest were not read", WB_GITIGNORE_TOTAL);
        return 0;
    }
    g->bytes += blen;
    g->n_files++;
    if ((sfd = shadow_dir(g, dir, len, err)) < 0)
        return -1;
    return write_at(sfd, ".gitignore", buf, blen, err);
}

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
        return; /* the upper's whiteout, or something that is not an index */
    if ((uint64_t)st.st_size > WB_GIT_INDEX_MAX) {
        set_problem(g, which, "larger than 256 MiB");
        return;
    }
    /* The inode opened beneath the tree, not a path libgit2 would resolve. */
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    if (git_index_open(out, proc) < 0) {
        *out = NULL;
        set_problem(g, which, git_error_last() ? git_error_last()->message : "?");
    }
}

static void read_indexes(struct wb_git *g)
{
    g->indexes_read = true;
    load_index(g, g->lower_fd, "the checkout's", &g->lower_idx);
    load_index(g, g->upper_fd, "the agent's", &g->upper_idx);
}

static bool in_index(git_index *idx, const char *q, bool dir)
{
    size_t pos;

    if (idx == NULL)
        return false;
    return dir ? git_index_find_prefix(&pos, idx, q) == 0 : git_index_find(&pos, idx, q) == 0;
}

int wb_git_ignored(struct wb_git *g, const char *path, size_t len, bool dir, bool in_lower,
                   bool *ignored, struct rr_error *err)
{
    _cleanup_free_ char *q = NULL;
    int ign = 0;

    *ignored = false;
    if ((g->n_files == 0 && !g->exclude) || len == 0 || wb_path_has_dotgit(path, len))
        return 0;
    if ((q = malloc(len + 2)) == NULL)
        return rr_fail(err, ENOMEM, "git");
    memcpy(q, path, len);
    if (dir)
        q[len++] = '/';
    q[len] = '\0';
    if (git_ignore_path_is_ignored(&ign, g->repo, q) < 0)
        return rr_fail(err, 0, "libgit2: ignore rules for %s: %s", q,
                       git_error_last() ? git_error_last()->message : "?");
    if (!ign)
        return 0;
    if (!g->indexes_read)
        read_indexes(g);
    if (g->index_failed && in_lower)
        return 0; /* no index to ask: a changed checkout file counts */
    *ignored = !in_index(g->lower_idx, q, dir) && !in_index(g->upper_idx, q, dir);
    return 0;
}

const char *wb_git_problem(const struct wb_git *g)
{
    return g->problem;
}
