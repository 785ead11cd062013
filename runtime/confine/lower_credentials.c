/* A credential in the checkout's git configuration (see lower_credentials.h). */
#include "runtime/confine/lower_credentials.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

#define CONFIG_MAX ((size_t)4 << 20)
/* .git/modules/<name>/...: submodule names may hold slashes, and nested
 * submodules add modules/ levels; bounded, and failing closed past them. */
#define MODULES_DEPTH 12
#define MODULES_DIRS 4096

/* A logical line as git reads it: continued lines joined, quotes and the
 * backslashes of escapes dropped (so "https://user:tok"@host is seen whole),
 * a section header at its start skipped (a key may follow it on the line). */
static size_t logical_line(const char *p, const char *end, char *out, size_t cap,
                           const char **next, unsigned *lines)
{
    size_t o = 0;

    *lines = 1;
    while (p < end && *p != '\n') {
        if (*p == '\\' && p + 1 < end && p[1] == '\n') { /* continued */
            p += 2;
            (*lines)++;
            continue;
        }
        if (*p == '\\' && p + 1 < end) { /* an escape: keep what it stands for */
            p++;
        } else if (*p == '"') {
            p++;
            continue;
        }
        if (o + 1 < cap)
            out[o++] = *p;
        p++;
    }
    *next = p < end ? p + 1 : end;
    out[o] = '\0';
    return o;
}

/* The key of "key = value" (or a bare key), lowercase, after an optional
 * [section] at the start; *value points after the '=' (or at ""). */
static void split_key(char *line, char **key, char **value)
{
    char *p = line, *k, *e;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '[' && (e = strchr(p, ']')) != NULL)
        p = e + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    k = p;
    while (*p != '\0' && *p != '=' && *p != ' ' && *p != '\t')
        p++;
    e = p;
    while (*p == ' ' || *p == '\t')
        p++;
    *value = *p == '=' ? p + 1 : p + strlen(p);
    *e = '\0';
    for (char *c = k; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    *key = k;
}

/* A user part that is a token: the forges' token prefixes, or something
 * as long as one (an organisation or account name is short). */
static bool token_like(const char *user, size_t n)
{
    static const char *const prefixes[] = {"ghp_", "gho_", "ghs_", "ghu_", "ghr_",
                                           "github_pat_", "glpat-", "x-access-token"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (n >= strlen(prefixes[i]) && strncasecmp(user, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return n >= 32;
}

/* A URL's userinfo holding a secret: user:password anywhere, or, for
 * http(s), a user part that is a token (https://org@dev.azure.com and
 * ssh://git@host are ordinary remotes). */
static bool url_has_secret(const char *s)
{
    for (const char *p = strstr(s, "://"); p != NULL; p = strstr(p + 3, "://")) {
        const char *scheme = p, *q;
        bool http, colon = false;
        while (scheme > s && (isalnum((unsigned char)scheme[-1]) || scheme[-1] == '+' ||
                              scheme[-1] == '.' || scheme[-1] == '-'))
            scheme--;
        http = (size_t)(p - scheme) >= 4 && strncasecmp(scheme, "http", 4) == 0;
        for (q = p + 3; *q != '\0' && !strchr("/ \t?#", *q); q++) {
            if (*q == ':')
                colon = true;
            if (*q == '@')
                return colon || (http && token_like(p + 3, (size_t)(q - p - 3)));
        }
    }
    return false;
}

/* credential.helper: an inline script that prints a password, or the store
 * helper keeping its plaintext file at a relative path (in the checkout). */
static const char *helper_secret(const char *value)
{
    const char *file;

    while (*value == ' ' || *value == '\t')
        value++;
    if (strcasestr(value, "password=") != NULL)
        return "a credential helper that hands out a password";
    if (strncmp(value, "store", 5) == 0 && (file = strstr(value, "--file")) != NULL) {
        file += 6;
        while (*file == ' ' || *file == '\t' || *file == '=')
            file++;
        if (*file != '/' && *file != '~' && *file != '$')
            return "a credential store file inside the checkout";
    }
    return NULL;
}

bool git_config_has_credential(const char *text, size_t len, unsigned *line, const char **what)
{
    const char *p = text, *end = text + len, *next;
    char *buf = malloc(len + 1);
    unsigned at = 1, n;
    bool found = false;

    if (buf == NULL) { /* fail closed: the caller refuses */
        *line = 0;
        *what = "a configuration too large to check";
        return true;
    }
    while (p < end && !found) {
        char *key, *value;
        logical_line(p, end, buf, len + 1, &next, &n);
        *line = at;
        if (url_has_secret(buf)) {
            *what = "a URL with a user or password in it";
            found = true;
        }
        split_key(buf, &key, &value);
        if (!found && strcmp(key, "extraheader") == 0) {
            *what = "an http.extraheader (actions/checkout persists the job's token there)";
            found = true;
        }
        if (!found && strcmp(key, "helper") == 0 && (*what = helper_secret(value)) != NULL)
            found = true;
        at += n;
        p = next;
    }
    free(buf);
    return found;
}

struct scan {
    const char *lower;
    char path[4096]; /* relative to the lower, for the message */
    unsigned dirs;
};

static int check_file(struct scan *s, int dirfd, const char *name, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;
    struct rr_error why;
    const char *what;
    unsigned line;
    size_t len;

    if (rr_read_file(dirfd, name, CONFIG_MAX, &text, &len, &why) < 0) {
        if (why.errnum == ENOENT || why.errnum == ELOOP || why.errnum == EINVAL)
            return 0; /* none, a symlink, not a regular file */
        return rr_fail(err, why.errnum, "revrun.lower: %s/%s%s%s (%s)", s->lower, s->path,
                       s->path[0] ? "/" : "", name, why.msg);
    }
    if (!git_config_has_credential(text, len, &line, &what))
        return 0;
    return rr_fail(err, EACCES,
                   "revrun.lower: %s/%s%s%s line %u holds %s, which the agent could read; check "
                   "out without persisting credentials (actions/checkout: persist-credentials: "
                   "false) or remove it (git config --unset-all KEY)",
                   s->lower, s->path, s->path[0] ? "/" : "", name, line, what);
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

int lower_refuse_credentials(const char *lower, struct rr_error *err)
{
    _cleanup_close_ int root = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_close_ int git = -1, modules = -1;
    struct scan s = {.lower = lower, .path = ".git"};

    if (root < 0)
        return rr_fail(err, errno, "revrun.lower: %s", lower);
    /* A symlinked .git is followed as far as it stays in the checkout: what
     * it points to there the agent reads too. */
    git = rr_open_in_root(root, ".git", O_RDONLY | O_DIRECTORY | O_CLOEXEC, false);
    if (git < 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? 0 /* no repository here, or .git is a file (a worktree's pointer) */
                   : rr_fail(err, errno, "revrun.lower: %s/.git", lower);
    if (check_gitdir(&s, git, err) < 0)
        return -1;
    modules = openat(git, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (modules < 0)
        return errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                   ? 0
                   : rr_fail(err, errno, "revrun.lower: %s/.git/modules", lower);
    snprintf(s.path, sizeof(s.path), ".git/modules");
    return check_modules(&s, modules, 0, err);
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

int lower_refuse_git_common(const char *common_path, int common_fd, struct rr_error *err)
{
    _cleanup_close_ int c = openat(common_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct scan s = {.lower = common_path, .path = ""};

    if (c < 0)
        return rr_fail(err, errno, "revrun.lower: %s", common_path);
    if (check_gitdir(&s, c, err) < 0 || check_modules_of(&s, c, err) < 0)
        return -1;
    return check_worktrees(&s, c, err);
}
