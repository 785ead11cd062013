#include "writeback/apply/gitowner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

int wb_owner_of(const char *gitdir, struct wb_owner *o, struct rr_error *err)
{
    struct stat st;

    *o = (struct wb_owner){0};
    if (stat(gitdir, &st) < 0)
        return rr_fail(err, errno, "%s", gitdir);
    o->uid = st.st_uid;
    o->gid = st.st_gid;
    o->active = geteuid() == 0 && st.st_uid != 0;
    return 0;
}

int wb_owner_enter(const struct wb_owner *o, struct rr_error *err)
{
    if (!o->active)
        return 0;
    /* setfs*id answer the previous id, never an error: ask again to know */
    setfsgid(o->gid);
    setfsuid(o->uid);
    if ((uid_t)setfsuid((uid_t)-1) != o->uid || (gid_t)setfsgid((gid_t)-1) != o->gid) {
        wb_owner_leave(o);
        return rr_fail(err, EPERM, "writing as the repository's owner (uid %u)", (unsigned)o->uid);
    }
    return 0;
}

void wb_owner_leave(const struct wb_owner *o)
{
    if (!o->active)
        return;
    setfsuid(geteuid());
    setfsgid(getegid());
}

/* dirfd/path is of type (S_IFDIR, S_IFREG), or absent: 1; anything else:
 * 0 with why. */
static int is_or_absent(int dirfd, const char *path, mode_t type, char *why, size_t whylen,
                        struct rr_error *err)
{
    struct stat st;

    if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 1 : rr_fail(err, errno, "%s", path);
    if ((st.st_mode & S_IFMT) == type)
        return 1;
    snprintf(why, whylen,
             "%s in the git directory is %s, not a %s: revrun writes no object or "
             "ref through it",
             path, S_ISLNK(st.st_mode) ? "a symlink" : "something else",
             type == S_IFDIR ? "directory" : "regular file");
    return 0;
}

static int dir_or_absent(int dirfd, const char *path, char *why, size_t whylen,
                         struct rr_error *err)
{
    return is_or_absent(dirfd, path, S_IFDIR, why, whylen, err);
}

/* objects/ and every two-hex-digit directory in it. */
static int objects_ok(int gfd, char *why, size_t whylen, struct rr_error *err)
{
    static const char hex[] = "0123456789abcdef";
    char path[16];
    int r;

    if ((r = dir_or_absent(gfd, "objects", why, whylen, err)) <= 0)
        return r;
    for (int i = 0; i < 256; i++) {
        snprintf(path, sizeof(path), "objects/%c%c", hex[i >> 4], hex[i & 15]);
        if ((r = dir_or_absent(gfd, path, why, whylen, err)) <= 0)
            return r;
    }
    return 1;
}

/* prefix/refname's directories, top down: refs, refs/heads, ... */
static int ref_dirs_ok(int gfd, const char *prefix, const char *refname, char *why, size_t whylen,
                       struct rr_error *err)
{
    char path[512];
    int n = snprintf(path, sizeof(path), "%s%s", prefix, refname), r;

    if (n < 0 || (size_t)n >= sizeof(path))
        return rr_fail(err, ENAMETOOLONG, "%s", refname);
    if (prefix[0] != '\0') {
        path[strlen(prefix) - 1] = '\0';
        if ((r = dir_or_absent(gfd, path, why, whylen, err)) <= 0)
            return r;
        path[strlen(prefix) - 1] = '/';
    }
    for (char *s = strchr(path + strlen(prefix), '/'); s != NULL; s = strchr(s + 1, '/')) {
        *s = '\0';
        r = dir_or_absent(gfd, path, why, whylen, err);
        *s = '/';
        if (r <= 0)
            return r;
    }
    /* the reflog is appended to: not through a symlink either */
    return prefix[0] != '\0' ? is_or_absent(gfd, path, S_IFREG, why, whylen, err) : 1;
}

int wb_commit_dirs_ok(const char *commondir, const char *refname, char *why, size_t whylen,
                      struct rr_error *err)
{
    _cleanup_close_ int gfd = open(commondir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int r;

    if (gfd < 0)
        return rr_fail(err, errno, "%s", commondir);
    if ((r = objects_ok(gfd, why, whylen, err)) <= 0 ||
        (r = ref_dirs_ok(gfd, "", refname, why, whylen, err)) <= 0)
        return r;
    return ref_dirs_ok(gfd, "logs/", refname, why, whylen, err);
}
