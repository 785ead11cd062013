/* OUT handed to the sudo user (review_out.h). */
#include "runtime/jobs/review_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writeback/base/fsutil.h"

#define WALK_DEPTH_MAX 64       /* OUT/artifacts keeps the agent's tree: bounded */
#define WALK_NAMES_MAX 1000000u /* per directory */

void review_out_note_before(int out_fd, bool created, struct review_out *o)
{
    struct rr_error ignored;

    *o = (struct review_out){.created = created};
    o->listed = wb_read_names(out_fd, WALK_NAMES_MAX, &o->before, &o->n_before, &ignored) == 0;
}

void review_out_free(struct review_out *o)
{
    wb_free_names(o->before, o->n_before);
    o->before = NULL;
    o->n_before = 0;
}

static bool parse_id(const char *s, unsigned long *out)
{
    char *end;

    if (s == NULL || *s < '0' || *s > '9')
        return false;
    errno = 0;
    *out = strtoul(s, &end, 10);
    return errno == 0 && *end == '\0' && *out < 0xffffffffUL;
}

int review_out_sudo_user(uid_t *uid, gid_t *gid)
{
    unsigned long u, g;

    if (geteuid() != 0 || !parse_id(getenv("SUDO_UID"), &u) || !parse_id(getenv("SUDO_GID"), &g))
        return 0;
    if (u == 0)
        return 0;
    *uid = (uid_t)u;
    *gid = (gid_t)g;
    return 1;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool was_there(const struct review_out *o, const char *name)
{
    /* an OUT that was empty (or absent) has no list: bsearch wants one */
    return o->n_before > 0 &&
           bsearch(&name, o->before, o->n_before, sizeof(char *), cmp_name) != NULL;
}

/* One level of the walk: a directory revrun wrote, its names, where we are. */
struct level {
    int fd;
    char **names;
    size_t n, next;
};

static int push(struct level *st, size_t *depth, int fd, struct rr_error *err)
{
    struct level *l = &st[*depth];

    if (*depth == WALK_DEPTH_MAX) {
        close(fd);
        return rr_fail(err, ELOOP, "deeper than %d directories", WALK_DEPTH_MAX);
    }
    *l = (struct level){.fd = fd};
    if (wb_read_names(fd, WALK_NAMES_MAX, &l->names, &l->n, err) < 0) {
        close(fd);
        return -1;
    }
    (*depth)++;
    return 0;
}

static void pop(struct level *st, size_t *depth)
{
    struct level *l = &st[--(*depth)];

    wb_free_names(l->names, l->n);
    close(l->fd);
}

/* The entry name in dirfd, opened without following a symlink and judged
 * by what the fd is: only a directory or a single-linked regular file that
 * revrun's euid owns is revrun's (an OUT the user owns could gain, during
 * the run, a hard link to some file of root's: that one stays root's). A
 * directory is handed on to be walked (*sub). */
static int hand_one(int dirfd, const char *name, uid_t uid, gid_t gid, int *sub,
                    struct rr_error *err)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;

    *sub = -1;
    if (fd < 0)
        return errno == ELOOP || errno == ENXIO ? 0 : rr_fail(err, errno, "%s", name);
    if (fstat(fd, &st) < 0) {
        close(fd);
        return rr_fail(err, errno, "%s", name);
    }
    if (st.st_uid != geteuid() ||
        !(S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_nlink == 1))) {
        close(fd);
        return 0;
    }
    if (fchown(fd, uid, gid) < 0) {
        close(fd);
        return rr_fail(err, errno, "chown %s", name);
    }
    if (S_ISDIR(st.st_mode))
        *sub = fd;
    else
        close(fd);
    return 0;
}

static int walk(struct level *st, size_t *depth, const struct review_out *o, uid_t uid, gid_t gid,
                struct rr_error *err)
{
    while (*depth > 0) {
        struct level *l = &st[*depth - 1];
        const char *name;
        int sub;
        if (l->next == l->n) {
            pop(st, depth);
            continue;
        }
        name = l->names[l->next++];
        if (*depth == 1 && was_there(o, name))
            continue; /* OUT's own, from before the run */
        if (hand_one(l->fd, name, uid, gid, &sub, err) < 0)
            return rr_wrap(err, "OUT");
        if (sub >= 0 && push(st, depth, sub, err) < 0)
            return rr_wrap(err, "OUT/%s", name);
    }
    return 0;
}

int review_out_hand_over(int out_fd, const struct review_out *o, uid_t uid, gid_t gid,
                         struct rr_error *err)
{
    struct level st[WALK_DEPTH_MAX];
    size_t depth = 0;
    int top, rc;

    if (!o->listed)
        return rr_fail(err, E2BIG, "OUT's names before the run were not listed");
    top = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
    if (top < 0)
        return rr_fail(err, errno, "OUT");
    if (push(st, &depth, top, err) < 0)
        return rr_wrap(err, "OUT");
    rc = walk(st, &depth, o, uid, gid, err);
    while (depth > 0)
        pop(st, &depth);
    /* OUT last: until then the user cannot reach into what is chowned */
    if (rc == 0 && o->created && fchown(out_fd, uid, gid) < 0)
        return rr_fail(err, errno, "chown OUT");
    return rc;
}
