/* The shadow repository libgit2 reads: a fresh directory of revrun's own
 * (mode 0700, locked while in use) holding a config revrun writes and the
 * ignore files the walk met, never a path the checkout or the agent chose
 * (gitclass.h says why). */
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
#include "writeback/base/rmtree.h"
#include "writeback/git/gitclass_int.h"
#include "writeback/git/gitshadow.h"
#include "writeback/names/names.h"

/* The shadow's own config: nothing of the checkout's, and no core.ignoreCase
 * guess (Linux compares names by bytes, as the apply does). */
static const char shadow_config[] = "[core]\n"
                                    "\trepositoryformatversion = 0\n"
                                    "\tbare = false\n"
                                    "\tignorecase = false\n";

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

void gc_remove_shadow(struct rules *rs)
{
    struct rr_error ignored;
    char *slash = strrchr(rs->shadow, '/');
    int parent;

    *slash = '\0';
    parent = open(rs->shadow[0] ? rs->shadow : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent >= 0) {
        /* revrun's own tree, as deep as the walk went at most (256) */
        wb_rmtree_at(parent, slash + 1, WB_SHADOW_DEPTH, &ignored);
        close(parent);
    }
}

static int make_shadow(struct rules *rs, struct rr_error *err)
{
    _cleanup_close_ int gd = -1, info = -1;

    snprintf(rs->shadow, sizeof(rs->shadow), "%s/" WB_SHADOW_PREFIX "XXXXXX", wb_shadow_parent());
    if (mkdtemp(rs->shadow) == NULL)
        return rr_fail(err, errno, "git shadow: mkdtemp %s", rs->shadow);
    rs->shadow_made = true;
    /* Locked while in use: `revrun sweep` removes only unlocked ones, the
     * leftovers of a vet that crashed or was killed (gitshadow.h). */
    if ((rs->shadow_fd = open(rs->shadow, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
        flock(rs->shadow_fd, LOCK_EX) < 0 || mkdirat(rs->shadow_fd, ".git", 0700) < 0 ||
        (gd = openat(rs->shadow_fd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
        mkdirat(gd, "objects", 0700) < 0 || mkdirat(gd, "refs", 0700) < 0 ||
        mkdirat(gd, "info", 0700) < 0 ||
        (info = openat(gd, "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return rr_fail(err, errno, "git shadow %s", rs->shadow);
    if (write_at(gd, "HEAD", "ref: refs/heads/main\n", 21, err) < 0 ||
        write_at(gd, "config", shadow_config, sizeof(shadow_config) - 1, err) < 0 ||
        (rs->exclude && write_at(info, "exclude", rs->exclude, rs->exclude_len, err) < 0))
        return -1;
    return 0;
}

/* mkdir -p dir[0..len) inside the shadow; returns the directory's fd. */
static int shadow_dir(struct rules *rs, const char *dir, size_t len, struct rr_error *err)
{
    int fd = dup(rs->shadow_fd), next;
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
static int flush_files(struct rules *rs, struct rr_error *err)
{
    for (size_t i = 0; i < rs->n_files; i++) {
        struct ignore_file *f = &rs->files[i];
        int fd, r;
        if (f->written)
            continue;
        if ((fd = shadow_dir(rs, f->dir, f->dlen, err)) < 0)
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
int gc_need_lib(struct wb_git *g, struct rules *rs, struct rr_error *err)
{
    if (rs->repo != NULL)
        return flush_files(rs, err);
    if (g->g2 == NULL && (g->g2 = wb_git2_acquire(err)) == NULL)
        return -1;
    if (!rs->shadow_made && make_shadow(rs, err) < 0)
        return -1;
    if (flush_files(rs, err) < 0)
        return -1;
    if (g->g2->git_repository_open_ext(&rs->repo, rs->shadow, GIT_REPOSITORY_OPEN_NO_SEARCH,
                                       NULL) < 0)
        return rr_fail(err, 0, "libgit2: opening the shadow repository: %s",
                       wb_git2_error(g->g2));
    crash_point("vet:git-shadow"); /* the shadow is left behind: sweep's to clean */
    return 0;
}
