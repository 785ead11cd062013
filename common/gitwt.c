/* A worktree checkout's git directories (see gitwt.h). */
#include "common/gitwt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"

struct resolver {
    uid_t uid; /* the checkout's owner */
    char *why;
    size_t wl;
};

/* Not followed: why, and 0. */
__attribute__((format(printf, 2, 3))) static int refuse(struct resolver *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->why, r->wl, fmt, ap);
    va_end(ap);
    return 0;
}

static const char *open_problem(int e)
{
    switch (e) {
    case ELOOP:
        return "a symlink on the way";
    case ENOENT:
        return "it does not exist";
    case ENOTDIR:
        return "a component is not a directory";
    case EXDEV:
        return "it leaves the directory";
    default:
        return strerror(e);
    }
}

/* openat2 without a symlink anywhere (beneath dirfd when beneath; else an
 * absolute path is taken as it is, a relative one from dirfd). */
static int open_nolinks(int dirfd, const char *path, int flags, bool beneath)
{
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW | ((flags & O_PATH) ? 0 : O_NOCTTY)),
        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | (beneath ? RESOLVE_BENEATH : 0),
    };
    int fd;

    do
        fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
    while (fd < 0 && errno == EAGAIN);
    return fd;
}

const char *rr_gitwt_path_problem(const char *p, size_t len)
{
    if (len == 0)
        return "an empty path";
    if (len >= PATH_MAX)
        return "a path of 4096 bytes or more";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
            return "a control byte in the path";
    return NULL;
}

int rr_gitwt_owned(uid_t uid, const char *what, const struct stat *st, mode_t type, char *why,
                   size_t whylen)
{
    struct resolver r = {.uid = uid, .why = why, .wl = whylen};

    if ((st->st_mode & S_IFMT) != type)
        return refuse(&r, "%s is not a %s", what, type == S_IFDIR ? "directory" : "regular file");
    if (st->st_uid != uid)
        return refuse(&r, "%s is owned by uid %u, not by the checkout's owner (uid %u)", what,
                      (unsigned)st->st_uid, (unsigned)uid);
    if (type == S_IFDIR && (st->st_mode & S_IWOTH))
        return refuse(&r, "%s may be written by anyone", what);
    return 1;
}

static int owned(struct resolver *r, const char *what, const struct stat *st, mode_t type)
{
    return rr_gitwt_owned(r->uid, what, st, type, r->why, r->wl);
}

/* dirfd/path (O_PATH for a directory, O_RDONLY for a file): 1 with *fd and
 * *st, 0 when it may not be followed. */
static int open_owned(struct resolver *r, int dirfd, const char *path, bool beneath, mode_t type,
                      const char *what, int *fd, struct stat *st)
{
    int k;

    *fd = open_nolinks(dirfd, path, type == S_IFDIR ? O_PATH | O_DIRECTORY : O_RDONLY | O_NONBLOCK,
                       beneath); /* O_NONBLOCK: a fifo planted there must not hang us */
    if (*fd < 0)
        return refuse(r, "%s: %s", what, open_problem(errno));
    k = fstat(*fd, st) < 0 ? refuse(r, "%s: %s", what, strerror(errno)) : owned(r, what, st, type);
    if (k == 0) {
        close(*fd);
        *fd = -1;
    }
    return k;
}

/* One of git's small files beneath dir, as a path: at most RR_GITFILE_MAX
 * bytes (counted while reading), trailing CR and LF dropped as git does,
 * then checked. */
static int read_path(struct resolver *r, int dir, const char *name, const char *what,
                     struct stat *st, char *out, size_t outlen)
{
    _cleanup_close_ int fd = -1;
    char buf[RR_GITFILE_MAX + 1];
    size_t len = 0;
    const char *why;
    ssize_t n;
    int k = open_owned(r, dir, name, true, S_IFREG, what, &fd, st);

    if (k <= 0)
        return k;
    while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return refuse(r, "%s: %s", what, strerror(errno));
        len += (size_t)n;
    }
    if (len > RR_GITFILE_MAX)
        return refuse(r, "%s: over %u bytes", what, RR_GITFILE_MAX);
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    if ((why = rr_gitwt_path_problem(buf, len)) != NULL || len >= outlen)
        return refuse(r, "%s holds %s", what, why ? why : "a path too long");
    memcpy(out, buf, len);
    out[len] = '\0';
    return 1;
}

/* The checkout's .git file and the directory G it names (a relative path
 * is the checkout's, as git takes it). */
static int open_gitdir(struct resolver *r, int lower_fd, struct rr_gitwt *w)
{
    char text[PATH_MAX];
    int k = read_path(r, lower_fd, ".git", "the checkout's .git", &w->dotgit_st, text,
                      sizeof(text));

    if (k <= 0)
        return k;
    if (strncmp(text, "gitdir: ", 8) != 0)
        return refuse(r, "the checkout's .git does not start with \"gitdir: \"");
    if (text[8] == '\0')
        return refuse(r, "the checkout's .git holds an empty path");
    snprintf(w->gitdir_text, sizeof(w->gitdir_text), "%s", text + 8);
    return open_owned(r, lower_fd, w->gitdir_text, false, S_IFDIR, "the git directory it names",
                      &w->gitdir_fd, &w->gitdir_st);
}

static bool has(int dfd, const char *name, mode_t type)
{
    struct stat st;

    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

/* C, as G's commondir names it. */
static int open_common(struct resolver *r, struct rr_gitwt *w)
{
    struct stat st;
    int k;

    if (!has(w->gitdir_fd, "commondir", S_IFREG))
        return refuse(r, "the git directory it names is not a worktree's (no commondir file)");
    if ((k = read_path(r, w->gitdir_fd, "commondir", "its commondir", &st, w->commondir_text,
                       sizeof(w->commondir_text))) <= 0 ||
        (k = open_owned(r, w->gitdir_fd, w->commondir_text, false, S_IFDIR,
                        "the common git directory", &w->common_fd, &w->common_st)) <= 0)
        return k;
    if (!has(w->common_fd, "HEAD", S_IFREG) || !has(w->common_fd, "objects", S_IFDIR) ||
        !has(w->common_fd, "refs", S_IFDIR))
        return refuse(r, "the common git directory holds no HEAD, objects/ and refs/");
    return 1;
}

/* G is C/worktrees/NAME, NAME the last component of the path the .git file
 * names: what git itself makes, and what lets C's view show G. */
static int check_beneath(struct resolver *r, struct rr_gitwt *w)
{
    char path[PATH_MAX];
    const char *base;
    size_t n = strlen(w->gitdir_text);
    _cleanup_close_ int wt = -1;
    struct stat st;
    int k;

    while (n > 1 && w->gitdir_text[n - 1] == '/')
        n--;
    snprintf(path, sizeof(path), "%.*s", (int)n, w->gitdir_text);
    base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
    if (strlen(base) > NAME_MAX || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
        base[0] == '\0')
        return refuse(r, "the git directory it names does not end in a plain name");
    snprintf(w->name, sizeof(w->name), "%s", base);
    if ((k = open_owned(r, w->common_fd, "worktrees", true, S_IFDIR,
                        "the common git directory's worktrees/", &wt, &st)) <= 0)
        return k;
    if (fstatat(wt, w->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != w->gitdir_st.st_dev ||
        st.st_ino != w->gitdir_st.st_ino)
        return refuse(r, "the git directory it names is not the common git directory's "
                         "worktrees/%s", w->name);
    return 1;
}

/* G's back-link (gitdir) must lead to this checkout's .git itself. */
static int check_backlink(struct resolver *r, struct rr_gitwt *w)
{
    char path[PATH_MAX];
    _cleanup_close_ int fd = -1;
    struct stat st;
    int k;

    if ((k = read_path(r, w->gitdir_fd, "gitdir", "its back-link (gitdir)", &st, path,
                       sizeof(path))) <= 0)
        return k;
    if ((fd = open_nolinks(w->gitdir_fd, path, O_PATH, false)) < 0)
        return refuse(r, "its back-link (gitdir) cannot be followed: %s", open_problem(errno));
    if (fstat(fd, &st) < 0)
        return refuse(r, "its back-link (gitdir): %s", strerror(errno));
    if (st.st_dev != w->dotgit_st.st_dev || st.st_ino != w->dotgit_st.st_ino)
        return refuse(r, "its back-link (gitdir) names another .git than the checkout's");
    return 1;
}

bool rr_gitwt_is_gitfile(int lower_fd)
{
    _cleanup_close_ int fd = open_nolinks(lower_fd, ".git", O_RDONLY | O_NONBLOCK, true);
    struct stat st;
    char head[8];
    ssize_t n;

    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > RR_GITFILE_MAX)
        return false;
    do
        n = pread(fd, head, sizeof(head), 0);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(head) && memcmp(head, "gitdir: ", sizeof(head)) == 0;
}

int rr_gitwt_open(int lower_fd, struct rr_gitwt *out, char *why, size_t whylen,
                  struct rr_error *err)
{
    struct resolver r = {.why = why, .wl = whylen};
    struct stat top;
    int k;

    (void)err; /* nothing here allocates */
    *out = (struct rr_gitwt){.gitdir_fd = -1, .common_fd = -1};
    why[0] = '\0';
    if (fstat(lower_fd, &top) < 0)
        return refuse(&r, "the checkout: %s", strerror(errno));
    r.uid = top.st_uid;
    if ((k = open_gitdir(&r, lower_fd, out)) <= 0 || (k = open_common(&r, out)) <= 0 ||
        (k = check_beneath(&r, out)) <= 0 || (k = check_backlink(&r, out)) <= 0)
        rr_gitwt_close(out);
    return k;
}

void rr_gitwt_close(struct rr_gitwt *w)
{
    if (w->gitdir_fd >= 0)
        close(w->gitdir_fd);
    if (w->common_fd >= 0)
        close(w->common_fd);
    w->gitdir_fd = w->common_fd = -1;
}

int rr_path_join_norm(const char *base, const char *path, char *out, size_t len)
{
    char buf[2 * PATH_MAX + 2];
    size_t o = 0;
    const char *p;

    if (snprintf(buf, sizeof(buf), "%s/%s", path[0] == '/' ? "" : base, path) >=
        (int)sizeof(buf))
        return -1;
    if (len < 2)
        return -1;
    out[o++] = '/';
    for (p = buf; *p != '\0';) {
        size_t n;
        while (*p == '/')
            p++;
        n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.')) {
            p += n;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 1 && out[o - 1] != '/')
                o--;
            if (o > 1)
                o--; /* the slash before the dropped component */
            p += n;
            continue;
        }
        if (o > 1)
            out[o++] = '/';
        if (o + n + 1 > len)
            return -1;
        memcpy(out + o, p, n);
        o += n;
        p += n;
        if (o + 1 > len)
            return -1;
    }
    out[o] = '\0';
    return 0;
}

const char *const rr_gitwt_hidden[] = {"index", "refs/stash", "logs/refs/stash", NULL};
