/* A credential in the checkout's git configuration (see lower_credentials.h). */
#include "runtime/confine/lower_credentials.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

#define CONFIG_MAX ((size_t)4 << 20)
/* .git/modules/<name>/...: submodule names may hold slashes, and nested
 * submodules add modules/ levels; bounded, and failing closed past them. */
#define MODULES_DEPTH 12
#define MODULES_DIRS 4096

/* git's own include depth limit (config.c MAX_INCLUDE_DEPTH): past it git
 * stops with an error, and so does this check (fail closed). */
#define INCLUDE_DEPTH 10
/* included files checked for one configuration, every one counted once */
#define INCLUDE_FILES 64

/* A tree the agent sees: its dir fd on the host, the host path (for the
 * messages) and its place inside. */
struct root {
    int fd;
    const char *host;
    const char *inside; /* NULL: not known, nothing is mapped into it */
};

/* One file to read: roots[root]/path, reached through an include of
 * work[from] at line `line` (from < 0: a configuration git reads itself). */
struct item {
    char path[PATH_MAX];
    unsigned root, depth, line;
    int from;
    dev_t dev;
    ino_t ino;
};

struct scan {
    const char *lower;
    char path[4096]; /* relative to roots[0], for the message */
    unsigned dirs;
    struct root roots[2];
    unsigned n_roots;
    const char *home; /* the agent's HOME inside, or NULL */
    struct lower_view view; /* where a path value leads (all NULL: nowhere) */
    struct item *work; /* INCLUDE_FILES + 1 of them, reused per configuration */
};

/* roots[r]/path, as the messages show it */
static const char *shown(const struct scan *s, const struct item *it, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", s->roots[it->root].host, it->path[0] ? "/" : "", it->path);
    return buf;
}

/* openat2 beneath the root: a symlink (or "..") is followed while it stays
 * in the tree, EXDEV when it leads out; magic links never. */
static int open_beneath(int rootfd, const char *path)
{
    struct open_how how = {
        .flags = O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    int fd;

    do
        fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
    while (fd < 0 && errno == EAGAIN);
    return fd;
}

/* Read a regular file from fd, at most CONFIG_MAX bytes. 0, 1 when it is no
 * regular file (a FIFO or a device holds no configuration git keeps), or -1
 * with errno. */
static int read_config(int fd, struct stat *st, char **out, size_t *len)
{
    _cleanup_free_ char *buf = NULL;
    size_t used = 0;

    if (fstat(fd, st) < 0)
        return -1;
    if (!S_ISREG(st->st_mode))
        return 1;
    if ((buf = malloc(CONFIG_MAX + 1)) == NULL)
        return -1;
    for (;;) {
        ssize_t n = read(fd, buf + used, CONFIG_MAX + 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        used += (size_t)n;
        if (used > CONFIG_MAX)
            return errno = EFBIG, -1;
    }
    buf[used] = '\0';
    *out = rr_steal_ptr(&buf);
    *len = used;
    return 0;
}

/* Queue roots[root]/path, reached from work[from] (through an include at
 * `line`, or, line 0, a symlink), `depth` includes deep. */
static int queue(struct scan *s, unsigned *n, unsigned from, unsigned root, const char *dir,
                 const char *path, unsigned depth, unsigned line, struct rr_error *err)
{
    char buf[PATH_MAX + 64];
    struct item *it;

    if (*n > INCLUDE_FILES)
        return rr_fail(err, E2BIG, "revrun.lower: %s leads to more than %u included or linked "
                       "files to check for a credential (includes and symlinks counted)",
                       shown(s, &s->work[0], buf, sizeof(buf)), INCLUDE_FILES);
    it = &s->work[*n];
    memset(it, 0, sizeof(*it));
    if ((size_t)snprintf(it->path, sizeof(it->path), "%s%s%s", dir, dir[0] ? "/" : "", path) >=
        sizeof(it->path))
        return 0; /* longer than a path: git cannot open it either */
    it->root = root;
    it->depth = depth;
    it->line = line;
    it->from = (int)from;
    (*n)++;
    return 0;
}

/* An absolute path inside (an include's, or a symlink's target): in a tree
 * the agent sees, queued there; outside them nothing (0): what lies there
 * inside is the container's own tree (its root and the mounts its config
 * names, which the agent reads with or without this path), never the host
 * file of that name. With ".." revrun cannot tell where it leads: refused. */
static int queue_absolute(struct scan *s, unsigned *n, unsigned from, char *abs, unsigned depth,
                          unsigned line, struct rr_error *err)
{
    char buf[PATH_MAX + 64], *o = abs;

    /* repeated slashes and "." components go; ".." stays for openat2 */
    for (const char *p = abs; *p != '\0';) {
        if (*p == '/' && (p[1] == '/' || (p[1] == '.' && (p[2] == '/' || p[2] == '\0')))) {
            p += p[1] == '/' ? 1 : 2;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    for (unsigned r = 0; r < s->n_roots; r++) {
        const char *in = s->roots[r].inside;
        size_t k = in ? strlen(in) : 0;
        while (k > 1 && in[k - 1] == '/')
            k--;
        if (in == NULL || strncmp(abs, in, k) != 0 || (abs[k] != '\0' && abs[k] != '/'))
            continue;
        return queue(s, n, from, r, "", abs[k] == '/' ? abs + k + 1 : abs + k, depth, line, err);
    }
    for (const char *p = strstr(abs, "/.."); p != NULL; p = strstr(p + 1, "/.."))
        if (p[3] == '/' || p[3] == '\0')
            return rr_fail(err, EACCES, "revrun.lower: %s%s leads to %s, whose \"..\" revrun "
                           "cannot tell leads outside what the agent sees; name it without \"..\"",
                           shown(s, &s->work[from], buf, sizeof(buf)),
                           line ? " (an include)" : "", abs);
    return 0;
}

/* Where an include's value leads, as git inside resolves it: relative to
 * the including file's directory (beneath the same tree: ".." or a symlink
 * leading out of it is judged when it is opened), "~/" in the agent's HOME,
 * an absolute path as it is (queue_absolute). */
static int queue_include(struct scan *s, unsigned *n, unsigned at, const char *v, unsigned line,
                         struct rr_error *err)
{
    const struct item *cur = &s->work[at];
    char abs[PATH_MAX];
    const char *slash;

    if (v[0] == '\0' || strncmp(v, "%(prefix)/", 10) == 0)
        return 0; /* git's own install, in the container */
    if (v[0] != '/' && v[0] != '~') {
        slash = strrchr(cur->path, '/');
        snprintf(abs, sizeof(abs), "%.*s", slash ? (int)(slash - cur->path) : 0, cur->path);
        return queue(s, n, at, cur->root, abs, v, cur->depth + 1, line, err);
    }
    if (v[0] == '~') {
        if (v[1] != '/' || s->home == NULL)
            return 0; /* ~user/, or no HOME inside: a home outside the checkout */
        if ((size_t)snprintf(abs, sizeof(abs), "%s%s", s->home, v + 1) >= sizeof(abs))
            return 0;
    } else if ((size_t)snprintf(abs, sizeof(abs), "%s", v) >= sizeof(abs)) {
        return 0;
    }
    return queue_absolute(s, n, at, abs, cur->depth + 1, line, err);
}

/* work[at] leads out of its tree (EXDEV from openat2). Its directory must
 * not (else refused); its last component is then a symlink, followed as
 * git inside would: a relative target beneath the same directory (queued:
 * leaving the tree is refused when it is opened), an absolute one by
 * queue_absolute. Symlink chains count against INCLUDE_FILES. */
static int follow_out(struct scan *s, unsigned *n, unsigned at, struct rr_error *err)
{
    struct item *it = &s->work[at];
    struct open_how how = {
        .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    char dir[PATH_MAX], target[PATH_MAX], buf[PATH_MAX + 64];
    const char *slash = strrchr(it->path, '/'), *base = slash ? slash + 1 : it->path;
    _cleanup_close_ int dfd = -1;
    ssize_t len;

    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - it->path) : 0, it->path);
    do
        dfd = (int)syscall(SYS_openat2, s->roots[it->root].fd, dir[0] ? dir : ".", &how,
                           sizeof(how));
    while (dfd < 0 && errno == EAGAIN);
    if (dfd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return 0;
    if (dfd < 0 && errno != EXDEV)
        return rr_fail(err, errno, "revrun.lower: %s", shown(s, it, buf, sizeof(buf)));
    if (dfd < 0 || (len = readlinkat(dfd, base, target, sizeof(target) - 1)) < 0 ||
        (size_t)len >= sizeof(target) - 1)
        return rr_fail(err, EACCES, "revrun.lower: %s: a symlink or \"..\" on its path leads out "
                       "of %s, which revrun does not follow to check it for a credential; make "
                       "it a regular file inside", shown(s, it, buf, sizeof(buf)),
                       s->roots[it->root].host);
    target[len] = '\0';
    if (target[0] == '/')
        return queue_absolute(s, n, at, target, it->depth, 0, err);
    return queue(s, n, at, it->root, dir, target, it->depth, 0, err);
}

/* The refusal for a credential at work[at] line `line`, with the includes
 * that led there. */
static int refuse_credential(struct scan *s, unsigned at, unsigned line, const char *what,
                             struct rr_error *err)
{
    char file[PATH_MAX + 64], via[1024] = "", b[PATH_MAX + 64];
    size_t o = 0;

    shown(s, &s->work[at], file, sizeof(file));
    for (int i = (int)at; s->work[i].from >= 0 && o < sizeof(via); i = s->work[i].from) {
        const struct item *up = &s->work[s->work[i].from];
        int k = s->work[i].line ? snprintf(via + o, sizeof(via) - o, " (included from %s line %u)",
                                           shown(s, up, b, sizeof(b)), s->work[i].line)
                                : snprintf(via + o, sizeof(via) - o, " (linked from %s)",
                                           shown(s, up, b, sizeof(b)));
        o = k < 0 ? sizeof(via) : o + (size_t)k;
    }
    return rr_fail(err, EACCES,
                   "revrun.lower: %s line %u holds %s%s, which the agent could read; check "
                   "out without persisting credentials (actions/checkout: persist-credentials: "
                   "false) or remove it (git config --unset-all KEY)",
                   file, line, what, via);
}

/* One configuration file git reads (roots[0]/s->path/name), and every file
 * it includes, through an explicit worklist: each file read once (a cycle
 * ends), INCLUDE_DEPTH deep and INCLUDE_FILES many at most. */
static int check_file(struct scan *s, int dirfd, const char *name, struct rr_error *err)
{
    char buf[PATH_MAX + 64];
    unsigned n = 1;

    (void)dirfd; /* opened again beneath the root, so that a symlink is judged there */
    memset(&s->work[0], 0, sizeof(s->work[0]));
    s->work[0].from = -1;
    if ((size_t)snprintf(s->work[0].path, sizeof(s->work[0].path), "%s%s%s", s->path,
                         s->path[0] ? "/" : "", name) >= sizeof(s->work[0].path))
        return rr_fail(err, ENAMETOOLONG, "revrun.lower: %s/%s", s->lower, s->path);
    for (unsigned at = 0; at < n; at++) {
        struct item *it = &s->work[at];
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1;
        struct lgc_include_cursor cur = {0};
        size_t len;
        char value[PATH_MAX], what[600];
        unsigned line;
        struct stat st;
        bool seen = false;
        int k;

        fd = open_beneath(s->roots[it->root].fd, it->path[0] ? it->path : ".");
        if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
            continue; /* none: git skips a missing include too */
        if (fd < 0 && errno == EXDEV) {
            if (follow_out(s, &n, at, err) < 0)
                return -1;
            continue;
        }
        if (fd < 0)
            return rr_fail(err, errno, "revrun.lower: %s", shown(s, it, buf, sizeof(buf)));
        k = read_config(fd, &st, &text, &len);
        if (k < 0)
            return rr_fail(err, errno, "revrun.lower: %s", shown(s, it, buf, sizeof(buf)));
        if (k > 0)
            continue; /* not a regular file */
        it->dev = st.st_dev;
        it->ino = st.st_ino;
        for (unsigned j = 0; j < at && !seen; j++)
            seen = s->work[j].dev == st.st_dev && s->work[j].ino == st.st_ino;
        if (seen)
            continue; /* read already (an include cycle, or two names of one file) */
        if (it->depth > INCLUDE_DEPTH)
            return rr_fail(err, ELOOP, "revrun.lower: %s line %u: includes nest deeper than %u "
                           "(git's own limit), not checked further for a credential",
                           shown(s, &s->work[it->from], buf, sizeof(buf)), it->line,
                           INCLUDE_DEPTH);
        if (lgc_has_credential(text, len, &s->view, &line, what, sizeof(what)))
            return refuse_credential(s, at, line, what, err);
        while ((k = lgc_next_include(text, len, &cur, &line, value, sizeof(value))) != 0)
            if (k > 0 && queue_include(s, &n, at, value, line, err) < 0)
                return -1;
    }
    return 0;
}

/* config and config.worktree of one git directory */
static int check_gitdir(struct scan *s, int dirfd, struct rr_error *err)
{
    if (check_file(s, dirfd, "config", err) < 0 || check_file(s, dirfd, "config.worktree", err) < 0)
        return -1;
    return 0;
}

/* The git directories of submodules below modules/: one holding HEAD is a
 * submodule's (only its own modules/ is entered below it: objects, refs and
 * logs are not configuration); any other is part of a submodule's name,
 * which may hold slashes. Every directory visited has its configs read. Depth- and count-bounded,
 * failing closed past the bounds. */
static int check_modules(struct scan *s, int dirfd, unsigned depth, struct rr_error *err)
{
    size_t plen = strlen(s->path);
    struct dirent *de;
    DIR *d;
    int fd, r = 0;

    if (depth > MODULES_DEPTH || ++s->dirs > MODULES_DIRS)
        return rr_fail(err, E2BIG, "revrun.lower: %s/%s: too many submodules to check", s->lower,
                       s->path);
    /* configs are read wherever they are: git would not take one without
     * HEAD beside it, but the agent reads it all the same */
    if (check_gitdir(s, dirfd, err) < 0)
        return -1;
    if (faccessat(dirfd, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
        fd = openat(dirfd, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return 0;
        snprintf(s->path + plen, sizeof(s->path) - plen, "/modules");
        r = check_modules(s, fd, depth + 1, err);
        s->path[plen] = '\0';
        close(fd);
        return r;
    }
    fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || (d = fdopendir(fd)) == NULL) {
        if (fd >= 0)
            close(fd);
        return rr_fail(err, errno, "revrun.lower: %s/%s", s->lower, s->path);
    }
    while (r == 0 && (de = readdir(d)) != NULL) {
        int sub;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
            continue;
        sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            continue;
        snprintf(s->path + plen, sizeof(s->path) - plen, "/%s", de->d_name);
        r = check_modules(s, sub, depth + 1, err);
        s->path[plen] = '\0';
        close(sub);
    }
    closedir(d);
    return r;
}

/* A scan over roots[0] (and roots[1], where an absolute include may lead),
 * with its worklist. */
static int scan_begin(struct scan *s, const char *lower, const struct lower_view *v,
                      struct rr_error *err)
{
    memset(s, 0, sizeof(*s));
    s->lower = lower;
    s->home = v != NULL ? v->home : NULL;
    if (v != NULL)
        s->view = *v;
    s->roots[0].fd = s->roots[1].fd = -1;
    s->work = calloc(INCLUDE_FILES + 1, sizeof(*s->work));
    if (s->work == NULL)
        return rr_fail(err, ENOMEM, "revrun.lower: %s", lower);
    return 0;
}

static void scan_end(struct scan *s)
{
    free(s->work);
    s->work = NULL;
}

int lower_refuse_credentials(const char *lower, const struct lower_view *v, struct rr_error *err)
{
    _cleanup_close_ int root = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_close_ int git = -1, modules = -1;
    struct scan s;
    int r;

    if (root < 0)
        return rr_fail(err, errno, "revrun.lower: %s", lower);
    /* A symlinked .git is followed as far as it stays in the checkout: what
     * it points to there the agent reads too. */
    git = rr_open_in_root(root, ".git", O_RDONLY | O_DIRECTORY | O_CLOEXEC, false);
    if (git < 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? 0 /* no repository here, or .git is a file (a worktree's pointer) */
                   : rr_fail(err, errno, "revrun.lower: %s/.git", lower);
    if (scan_begin(&s, lower, v, err) < 0)
        return -1;
    s.roots[0] = (struct root){root, lower, v != NULL ? v->checkout_inside : NULL};
    s.n_roots = 1;
    snprintf(s.path, sizeof(s.path), ".git");
    r = check_gitdir(&s, git, err);
    if (r == 0) {
        modules = openat(git, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (modules < 0)
            r = errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                    ? 0
                    : rr_fail(err, errno, "revrun.lower: %s/.git/modules", lower);
        else {
            snprintf(s.path, sizeof(s.path), ".git/modules");
            r = check_modules(&s, modules, 0, err);
        }
    }
    scan_end(&s);
    return r;
}

/* dirfd/modules, when there: every submodule's configs below it. */
static int check_modules_of(struct scan *s, int dirfd, struct rr_error *err)
{
    size_t plen = strlen(s->path);
    _cleanup_close_ int modules = openat(dirfd, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                               O_CLOEXEC);
    int r;

    if (modules < 0)
        return errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                   ? 0
                   : rr_fail(err, errno, "revrun.lower: %s/%s/modules", s->lower, s->path);
    snprintf(s->path + plen, sizeof(s->path) - plen, "%smodules", plen ? "/" : "");
    r = check_modules(s, modules, 0, err);
    s->path[plen] = '\0';
    return r;
}

/* Each worktree's directory, C/worktrees/NAME: its config.worktree (and a
 * config, should one be there) and its submodules'. The agent reads every
 * one of them through C, not only its own checkout's. */
static int check_worktrees(struct scan *s, int common, struct rr_error *err)
{
    _cleanup_close_ int fd = openat(common, "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                             O_CLOEXEC);
    struct dirent *de;
    DIR *d;
    int r = 0;

    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                   ? 0
                   : rr_fail(err, errno, "revrun.lower: %s/worktrees", s->lower);
    if ((d = fdopendir(fd)) == NULL)
        return rr_fail(err, errno, "revrun.lower: %s/worktrees", s->lower);
    fd = -1; /* d holds it */
    while (r == 0 && (de = readdir(d)) != NULL) {
        int sub;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (++s->dirs > MODULES_DIRS) {
            r = rr_fail(err, E2BIG, "revrun.lower: %s/worktrees: too many to check", s->lower);
            break;
        }
        sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            continue;
        snprintf(s->path, sizeof(s->path), "worktrees/%s", de->d_name);
        r = check_gitdir(s, sub, err);
        if (r == 0)
            r = check_modules_of(s, sub, err);
        close(sub);
    }
    closedir(d);
    return r;
}

int lower_refuse_git_common(const char *common_path, int common_fd, const char *lower,
                            const struct lower_view *v, struct rr_error *err)
{
    _cleanup_close_ int c = openat(common_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_close_ int l = -1;
    struct scan s;
    int r;

    if (c < 0)
        return rr_fail(err, errno, "revrun.lower: %s", common_path);
    if (scan_begin(&s, common_path, v, err) < 0)
        return -1;
    s.roots[0] = (struct root){c, common_path, v != NULL ? v->common_inside : NULL};
    s.n_roots = 1;
    /* an absolute include in C may name a file of the checkout inside */
    if (lower != NULL && (l = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
        s.roots[s.n_roots++] = (struct root){l, lower, v != NULL ? v->checkout_inside : NULL};
    else if (lower != NULL)
        r = rr_fail(err, errno, "revrun.lower: %s", lower);
    if (lower == NULL || l >= 0)
        r = check_gitdir(&s, c, err) < 0 || check_modules_of(&s, c, err) < 0
                ? -1
                : check_worktrees(&s, c, err);
    scan_end(&s);
    return r;
}
