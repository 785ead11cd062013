/* A worktree checkout's main git directory (where it is shown inside, or
 * why not) and the git settings every checkout gets inside. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/gitwt.h"
#include "runtime/confine/lower_credentials.h"

/* ---- a worktree's git directories ---- */

/* Where C may be shown inside: a place no other part of the container
 * holds. Its mount points are made in the container's own root or in a
 * tmpfs of the config (never in a bound host directory, which would be a
 * write to the host), away from the checkout, HOME and the trees revrun
 * builds itself. NULL when it may go there, or why not. */
static const char *git_common_place(const struct rr_config *c, const struct profile *p,
                                    const char *dest)
{
    static const char *const reserved[] = {"/proc", "/sys", "/dev", "/etc", "/out"};
    static char why[PATH_MAX + 128];
    const char *home = pf_env_value(&c->process.env, "HOME");

    if (strcmp(dest, "/") == 0)
        return "it would be the container's root";
    if (pf_path_within(dest, p->checkout_path) || pf_path_within(p->checkout_path, dest))
        return "it would overlap the checkout's place inside";
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
        if (pf_path_within(dest, reserved[i]) || pf_path_within(reserved[i], dest)) {
            snprintf(why, sizeof(why), "it would lie in %s, which revrun builds itself",
                     reserved[i]);
            return why;
        }
    for (size_t i = 0; i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        if (pf_path_within(m->destination, dest)) {
            snprintf(why, sizeof(why), "it would cover mounts[%zu] (%s)", i, m->destination);
            return why;
        }
        if (!pf_path_within(dest, m->destination))
            continue;
        if (m->kind != MOUNT_TMPFS || m->is_dev ||
            (home != NULL && strcmp(m->destination, home) == 0)) {
            snprintf(why, sizeof(why),
                     "it would lie under mounts[%zu] (%s), where revrun makes no mount point",
                     i, m->destination);
            return why;
        }
    }
    return NULL;
}

/* dest: C's place inside; host: on the host. The .git file's path names
 * G (relative: to the checkout, which is checkout_path inside and lower
 * outside); C is G's grandparent, as git makes it (C/worktrees/NAME), and
 * G's commondir must lead there inside too. 1, or 0 with why. */
static int git_common_paths(struct profile *p, const struct rr_gitwt *w)
{
    char gin[PATH_MAX], gout[PATH_MAX], cd[PATH_MAX];
    char *why = p->git_common.why;
    size_t wl = sizeof(p->git_common.why), n;

    if (rr_path_join_norm(p->checkout_path, w->gitdir_text, gin, sizeof(gin)) < 0 ||
        rr_path_join_norm(p->lower, w->gitdir_text, gout, sizeof(gout)) < 0)
        return snprintf(why, wl, "the path its .git names is too long"), 0;
    /* both end in /worktrees/NAME (check_beneath made NAME the last one) */
    for (int k = 0; k < 2; k++) {
        char *g = k == 0 ? gin : gout, *s = strrchr(g, '/');
        *s = '\0';
        s = strrchr(g, '/');
        if (s == NULL || strcmp(s, "/worktrees") != 0 || s == g)
            return snprintf(why, wl, "the path its .git names does not end in "
                                     "worktrees/%s", w->name), 0;
        *s = '\0';
    }
    snprintf(p->git_common.dest, sizeof(p->git_common.dest), "%s", gin);
    snprintf(p->git_common.host, sizeof(p->git_common.host), "%s", gout);
    n = strlen(gin);
    if (snprintf(gin + n, sizeof(gin) - n, "/worktrees/%s", w->name) >= (int)(sizeof(gin) - n) ||
        rr_path_join_norm(gin, w->commondir_text, cd, sizeof(cd)) < 0 ||
        strcmp(cd, p->git_common.dest) != 0)
        return snprintf(why, wl, "its commondir (%s) does not lead to the worktrees/ parent git "
                                 "itself would find inside", w->commondir_text), 0;
    return 1;
}

/* The host path is C itself (a bind or a hard link could show G elsewhere). */
static int git_common_same(struct profile *p, const struct rr_gitwt *w)
{
    _cleanup_close_ int fd = open(p->git_common.host, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;

    if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != w->common_st.st_dev ||
        st.st_ino != w->common_st.st_ino) {
        snprintf(p->git_common.why, sizeof(p->git_common.why),
                 "%s is not the common git directory its commondir names", p->git_common.host);
        return 0;
    }
    p->git_common.dev = st.st_dev;
    p->git_common.ino = st.st_ino;
    p->git_common.mode = st.st_mode & 07777;
    return 1;
}

/* A worktree checkout: git inside works as in a plain clone only if it
 * finds the main repository's git directory C. It is shown (read-only,
 * writes to scratch) when common/gitwt.h proves it this checkout's, it
 * fits a place of its own inside, kernel overlayfs serves the views, and
 * no credential is in its configuration (a token there refuses the
 * review, as in a plain checkout's .git). Not shown: the container is made
 * as before, and why says why git will not work inside. */
int pf_judge_git_common(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    _cleanup_close_ int lower = -1;
    struct rr_gitwt w;
    const char *place;
    int k;

    memset(&p->git_common, 0, sizeof(p->git_common));
    lower = open(p->lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (lower < 0)
        return rr_fail(err, errno, "revrun.lower: %s", p->lower);
    if (!rr_gitwt_is_gitfile(lower))
        return 0;
    if (c->revrun.git_worktree_hide) {
        snprintf(p->git_common.why, sizeof(p->git_common.why),
                 "revrun.git.worktree is \"hide\"");
        return 0;
    }
    k = rr_gitwt_open(lower, &w, p->git_common.why, sizeof(p->git_common.why), err);
    if (k < 0)
        return -1;
    if (k > 0) {
        k = git_common_paths(p, &w) && git_common_same(p, &w);
        if (k && (place = git_common_place(c, p, p->git_common.dest)) != NULL) {
            snprintf(p->git_common.why, sizeof(p->git_common.why), "its git directory %s: %s",
                     p->git_common.dest, place);
            k = 0;
        }
        if (k && p->backend == RR_BACKEND_FUSE) {
            snprintf(p->git_common.why, sizeof(p->git_common.why),
                     "revrun.overlay \"fuse\": the git directories are shown through kernel "
                     "overlayfs only");
            k = 0;
        }
        if (k && lower_refuse_git_common(
                     p->git_common.host, w.common_fd, p->lower,
                     &(struct lower_view){.checkout_inside = p->checkout_path,
                                          .common_inside = p->git_common.dest,
                                          .home = pf_env_value(&c->process.env, "HOME"),
                                          .checkout_host = p->lower,
                                          .common_host = p->git_common.host},
                     err) < 0) {
            rr_gitwt_close(&w);
            return -1;
        }
        snprintf(p->git_common.keep, sizeof(p->git_common.keep), "%s", w.name);
        p->git_common.hidden = rr_gitwt_hidden; /* common/gitwt.h says why */
        rr_gitwt_close(&w);
    }
    p->git_common.shown = k > 0;
    if (!p->git_common.shown)
        p->git_common.dest[0] = p->git_common.host[0] = '\0';
    return 0;
}

/* ---- git inside ---- */

/* git inside sees the checkout through the idmapped lower (root) or a user
 * namespace: owners, inode numbers and the device differ from what the
 * checkout's index recorded, so the first `git status` would re-hash every
 * file and rewrite the index (a change under .git for nothing, and seconds
 * on a big tree). Comparing only mtime and size is git's own setting for
 * such views (core.checkStat=minimal, core.trustctime=false): an edit still
 * shows, since writing a file sets its mtime. Given as command-line-level
 * config (GIT_CONFIG_COUNT), which the checkout's .git/config cannot
 * override; a process.env that sets GIT_CONFIG_COUNT itself keeps its own.
 * The same settings are also the sandbox's system configuration
 * (/etc/gitconfig, written by rootfs.c): agents and tools that run git with
 * a cleaned environment (dropping every GIT_CONFIG_* variable, as Claude
 * Code does for some of its own git calls) still get them. */
static const char *const git_env[] = {
    "GIT_CONFIG_COUNT=2",
    "GIT_CONFIG_KEY_0=core.checkStat",
    "GIT_CONFIG_VALUE_0=minimal",
    "GIT_CONFIG_KEY_1=core.trustctime",
    "GIT_CONFIG_VALUE_1=false",
};

static const char git_system_config[] =
    "# revrun: the checkout is seen through an idmap or a user namespace, so\n"
    "# owners, inodes and the device differ from what its index recorded:\n"
    "# compare mtime and size only (runtime/confine/profile/gitdirs.c)\n"
    "[core]\n"
    "\tcheckStat = minimal\n"
    "\ttrustctime = false\n";

int pf_judge_git_env(struct profile *p, struct rr_error *err)
{
    if (p->lower == NULL)
        return 0;
    p->git_system_config = git_system_config;
    if (pf_env_has(p->env, "GIT_CONFIG_COUNT"))
        return 0;
    if (p->env != &p->env_owned)
        for (size_t i = 0; i < p->env->n; i++)
            if (strv_push(&p->env_owned, p->env->v[i]) < 0)
                return rr_fail(err, ENOMEM, "environment");
    for (size_t i = 0; i < sizeof(git_env) / sizeof(git_env[0]); i++)
        if (strv_push(&p->env_owned, git_env[i]) < 0)
            return rr_fail(err, ENOMEM, "environment");
    p->env = &p->env_owned;
    return 0;
}
