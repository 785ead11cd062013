#include "runtime/container/home_store.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "runtime/container/statedir.h"

static int make_tmpfs(const struct profile *p, struct rr_error *err)
{
    const struct mount_plan *m = p->home;
    const char *opts[16];
    char o_uid[32], o_gid[32];
    size_t n = 0;

    for (size_t i = 0; i < m->fs_options.n && n < 14; i++)
        if (strncmp(m->fs_options.v[i], "uid=", 4) != 0 && strncmp(m->fs_options.v[i], "gid=", 4) != 0)
            opts[n++] = m->fs_options.v[i];
    if (!p->rootless) {
        /* The agent's host ids: its HOME's root is its own inside. */
        snprintf(o_uid, sizeof(o_uid), "uid=%u", (unsigned)p->host_uid);
        snprintf(o_gid, sizeof(o_gid), "gid=%u", (unsigned)p->host_gid);
        opts[n++] = o_uid;
        opts[n++] = o_gid;
    }
    return rr_make_fs("tmpfs", opts, n, (unsigned)m->attr, err);
}

/* mkdir -p of path's parent below root (fresh tree: each component is a
 * directory we made or copied, never a symlink: O_NOFOLLOW says so). */
static int open_parent(int root, const char *path, bool create, const struct rr_copy_limits *lim,
                       const char **leaf, struct rr_error *err)
{
    _cleanup_free_ char *copy = strdup(path);
    char *comp, *next;
    int dir;

    if (copy == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    dir = fcntl(root, F_DUPFD_CLOEXEC, 3);
    if (dir < 0)
        return rr_fail(err, errno, "%s", path);
    *leaf = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (comp = copy; (next = strchr(comp, '/')) != NULL; comp = next + 1) {
        int sub;
        *next = '\0';
        if (create && mkdirat(dir, comp, 0700) == 0 && lim->chown &&
            fchownat(dir, comp, lim->uid, lim->gid, AT_SYMLINK_NOFOLLOW) < 0) {
            close(dir);
            return rr_fail(err, errno, "chown %s", comp);
        }
        sub = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dir);
        if (sub < 0)
            return create ? rr_fail(err, errno, "%s: %s", path, comp) : -1;
        dir = sub;
    }
    return dir;
}

static int write_home_file(int root, const struct rr_home_file *f,
                           const struct rr_copy_limits *lim, struct rr_error *err)
{
    const char *leaf;
    _cleanup_close_ int dir = open_parent(root, f->path, true, lim, &leaf, err);
    _cleanup_close_ int fd = -1;

    if (dir < 0)
        return rr_wrap(err, "revrun.homeFiles");
    /* It replaces what the seed copied there, never through a symlink. */
    if (unlinkat(dir, leaf, 0) < 0 && errno != ENOENT)
        return rr_fail(err, errno, "revrun.homeFiles %s", f->path);
    fd = openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || rr_write_all(fd, f->content, strlen(f->content)) < 0 ||
        (lim->chown && fchown(fd, lim->uid, lim->gid) < 0))
        return rr_fail(err, errno, "revrun.homeFiles %s", f->path);
    return 0;
}

static int seed(int root, const struct profile *p, struct rr_error *err)
{
    const struct rr_copy_limits lim = {
        .max_files = HOME_SEED_MAX_FILES, .max_bytes = HOME_SEED_MAX_BYTES,
        .max_depth = HOME_SEED_MAX_DEPTH, .keep_mode = true, .chown = !p->rootless,
        .uid = p->host_uid, .gid = p->host_gid};
    struct rr_copy_report rep;

    if (p->home_seed != NULL) {
        _cleanup_close_ int src = open(p->home_seed, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int r;
        if (src < 0)
            return rr_fail(err, errno, "revrun.home %s", p->home_seed);
        r = rr_copy_tree(src, root, &lim, &rep, err);
        rr_copy_report_free(&rep);
        if (r < 0)
            return rr_wrap(err, "revrun.home %s", p->home_seed);
        /* A seed that does not fit is an operator's mistake: refused, not
         * half-copied without a word. */
        if (rep.capped)
            return rr_fail(err, EFBIG,
                           "revrun.home %s: over %u files and directories or %llu bytes",
                           p->home_seed, HOME_SEED_MAX_FILES,
                           (unsigned long long)HOME_SEED_MAX_BYTES);
    }
    for (size_t i = 0; i < p->n_home_files; i++)
        if (write_home_file(root, &p->home_files[i], &lim, err) < 0)
            return -1;
    return 0;
}

int home_store_make(int state_dir, const struct profile *p, struct rr_error *err)
{
    _cleanup_close_ int mfd = -1;
    _cleanup_close_ int target = -1;
    _cleanup_close_ int root = -1;

    if (p->home == NULL)
        return 0;
    if (mkdirat(state_dir, HOME_DIR, 0700) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "HOME store: mkdir");
    target = openat(state_dir, HOME_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (target < 0)
        return rr_fail(err, errno, "HOME store: open");
    mfd = make_tmpfs(p, err);
    if (mfd < 0 || rr_attach(mfd, target, err) < 0)
        return rr_wrap(err, "HOME store");
    root = openat(mfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return rr_fail(err, errno, "HOME store: open");
    return seed(root, p, err);
}

/* ---- artifacts ---- */

static void add_report(struct rr_copy_report *sum, struct rr_copy_report *one)
{
    sum->files += one->files;
    sum->dirs += one->dirs;
    sum->bytes += one->bytes;
    sum->skipped += one->skipped;
    sum->capped = sum->capped || one->capped;
    for (size_t i = 0; i < one->n_skipped_names; i++) {
        if (sum->n_skipped_names < RR_COPY_SKIPPED_NAMES)
            sum->skipped_names[sum->n_skipped_names++] = one->skipped_names[i];
        else
            free(one->skipped_names[i]);
    }
    one->n_skipped_names = 0;
}

/* One artifact: a directory is copied below out/path, a regular file as
 * out/path; anything else (a symlink the agent put there) is skipped. */
static int copy_one(int home_fd, const char *rel, int out_dir, struct rr_copy_limits *lim,
                    struct artifacts_report *rep, struct rr_error *err)
{
    struct open_how how = {.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                                      RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV};
    _cleanup_close_ int src = (int)syscall(SYS_openat2, home_fd, rel, &how, sizeof(how));
    _cleanup_close_ int dst = -1;
    struct rr_copy_report one = {0};
    const char *leaf;
    struct stat st;
    int r = 0;

    if (src < 0 || fstat(src, &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
        rep->n_missing++;
        return 0;
    }
    dst = open_parent(out_dir, rel, true, lim, &leaf, err);
    if (dst < 0)
        return -1;
    if (S_ISDIR(st.st_mode)) {
        _cleanup_close_ int sub = -1;
        if (mkdirat(dst, leaf, 0700) < 0 && errno != EEXIST)
            return rr_fail(err, errno, "artifacts/%s", rel);
        sub = openat(dst, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            return rr_fail(err, errno, "artifacts/%s", rel);
        r = rr_copy_tree(src, sub, lim, &one, err);
    } else {
        r = rr_copy_tree_file(src, dst, leaf, lim, &one, err);
    }
    /* Names as the operator will look for them: below the artifact's path. */
    for (size_t i = 0; i < one.n_skipped_names; i++) {
        char *full;
        if (asprintf(&full, "%s/%s", rel, one.skipped_names[i]) >= 0) {
            free(one.skipped_names[i]);
            one.skipped_names[i] = full;
        }
    }
    add_report(&rep->copy, &one);
    rr_copy_report_free(&one);
    /* The caps are for all paths together. */
    lim->max_files -= one.files + one.dirs < lim->max_files ? one.files + one.dirs : lim->max_files;
    lim->max_bytes -= one.bytes < lim->max_bytes ? one.bytes : lim->max_bytes;
    return r;
}

int home_copy_artifacts(int home_fd, const struct rr_strv *artifacts, int out_dir,
                        struct artifacts_report *rep, struct rr_error *err)
{
    struct rr_copy_limits lim = {.max_files = ARTIFACTS_MAX_FILES,
                                 .max_bytes = ARTIFACTS_MAX_BYTES,
                                 .max_depth = ARTIFACTS_MAX_DEPTH};

    memset(rep, 0, sizeof(*rep));
    for (size_t i = 0; i < artifacts->n; i++)
        if (copy_one(home_fd, artifacts->v[i] + 2, out_dir, &lim, rep, err) < 0)
            return -1;
    return 0;
}
