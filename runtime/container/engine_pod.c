/* Which pod, if any, an engine container's joined namespaces are (see
 * engine_pod.h). */
#include "runtime/container/engine_pod.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "runtime/container/engine.h"
#include "runtime/container/statedir.h"

struct ns_id {
    dev_t dev;
    ino_t ino;
};

struct scan {
    const struct engine_joins *joins;
    struct ns_id userns; /* the pod's, as the joined namespaces name it */
    bool matched[4];
    int owner_dir; /* /proc/PID of the first container of the pod found */
    struct engine_pod *pod;
};

static bool same(const struct ns_id *a, const struct ns_id *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

static int id_of_fd(int fd, struct ns_id *id)
{
    struct stat st;

    if (fstat(fd, &st) < 0)
        return -1;
    *id = (struct ns_id){st.st_dev, st.st_ino};
    return 0;
}

static int id_at(int dirfd, const char *name, struct ns_id *id)
{
    _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

    return fd < 0 ? -1 : id_of_fd(fd, id);
}

/* The user namespace owning a namespace file. */
static int owner_of(int fd, struct ns_id *id)
{
    _cleanup_close_ int user = ioctl(fd, NS_GET_USERNS);

    return user < 0 ? -1 : id_of_fd(user, id);
}

static const char *ns_name(int flag)
{
    switch (flag) {
    case CLONE_NEWNET:
        return "ns/net";
    case CLONE_NEWIPC:
        return "ns/ipc";
    case CLONE_NEWUTS:
        return "ns/uts";
    default:
        return "ns/pid";
    }
}

/* /proc/PID of a container's init, or -1 when it is not the process the
 * state recorded (gone, or its pid reused): opened first, then checked, so
 * the directory cannot belong to a later process of that pid. */
static int open_init(const struct rr_state *s)
{
    struct proc_ref ref = {(pid_t)s->pid, s->pid_start};
    char path[32];
    int dir, pidfd;

    if (s->pid <= 0 || s->pid > INT32_MAX)
        return -1;
    snprintf(path, sizeof(path), "/proc/%d", (int)s->pid);
    dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return -1;
    pidfd = proc_ref_pidfd(&ref);
    if (pidfd < 0) {
        close(dir);
        return -1;
    }
    close(pidfd);
    return dir;
}

/* One container of the state root: of the pod when its user namespace is
 * the pod's; then each joined namespace it has is matched. */
static void look_at(struct scan *sc, int root_fd, const char *cid)
{
    _cleanup_close_ int sdir =
        openat(root_fd, cid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct rr_state s = {0};
    struct rr_error ignored;
    struct ns_id user, ns;
    int dir;

    if (sdir < 0 || statedir_read_state(sdir, &s, &ignored) < 0)
        return;
    dir = engine_state_is_engine(&s) ? open_init(&s) : -1;
    state_free(&s);
    if (dir < 0)
        return;
    if (id_at(dir, "ns/user", &user) < 0 || !same(&user, &sc->userns)) {
        close(dir);
        return;
    }
    for (size_t i = 0; i < sc->joins->n; i++) {
        struct ns_id want;
        if (!sc->matched[i] && id_of_fd(sc->joins->fd[i], &want) == 0 &&
            id_at(dir, ns_name(sc->joins->flag[i]), &ns) == 0 && same(&ns, &want))
            sc->matched[i] = true;
    }
    if (sc->owner_dir < 0) {
        sc->owner_dir = dir;
        snprintf(sc->pod->owner, sizeof(sc->pod->owner), "%s", cid);
        return;
    }
    close(dir);
}

static int scan_root(struct scan *sc, int root_fd, const char *self, struct rr_error *err)
{
    int copy = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
    struct dirent *de;
    DIR *d;

    if (copy < 0 || (d = fdopendir(copy)) == NULL) {
        int e = errno;
        if (copy >= 0)
            close(copy);
        return rr_fail(err, e, "read the state root");
    }
    while ((de = readdir(d)) != NULL)
        if (rr_id_valid(de->d_name) && strcmp(de->d_name, self) != 0)
            look_at(sc, root_fd, de->d_name);
    closedir(d);
    return 0;
}

/* "0 2100000000 65536\n..." as the kernel shows a process's id map. */
static int read_map(int dir, const char *name, struct rr_id_mapping *m, size_t *n,
                    struct rr_error *err)
{
    _cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
    char text[1024], *line, *save = NULL;
    ssize_t len;

    *n = 0;
    if (fd < 0 || (len = read(fd, text, sizeof(text) - 1)) < 0)
        return rr_fail(err, errno, "the pod's %s", name);
    text[len] = '\0';
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        if (*n == 8)
            return rr_fail(err, E2BIG, "the pod's %s: more than 8 ranges", name);
        if (sscanf(line, "%u %u %u", &m[*n].container_id, &m[*n].host_id, &m[*n].size) != 3)
            return rr_fail(err, EINVAL, "the pod's %s: \"%s\"", name, line);
        (*n)++;
    }
    return *n > 0 ? 0 : rr_fail(err, EINVAL, "the pod's %s is empty", name);
}

/* The joined namespaces not owned by the host's user namespace all owned
 * by one (1, *pod_user: it); none (0); refused when two differ. Which are
 * the host's own goes to host_owned[]: in a pod too, one may be (a CNI's
 * network namespace, made by the engine and joined by the pod's first
 * container), and is then the pod's only if a container of the pod has it. */
static int classify(const struct engine_joins *j, struct ns_id *pod_user, bool host_owned[],
                    struct rr_error *err)
{
    struct ns_id host, owner;
    bool have_pod = false;

    if (id_at(AT_FDCWD, "/proc/self/ns/user", &host) < 0)
        return rr_fail(err, errno, "/proc/self/ns/user");
    for (size_t i = 0; i < j->n; i++) {
        if (owner_of(j->fd[i], &owner) < 0)
            return rr_fail(err, errno, "linux.namespaces: the owner of %s", j->path[i]);
        host_owned[i] = same(&owner, &host);
        if (host_owned[i])
            continue;
        if (have_pod && !same(&owner, pod_user))
            return rr_fail(err, EPERM,
                           "linux.namespaces: %s belongs to another user namespace "
                           "than the others named (a container joins the "
                           "namespaces of one pod)",
                           j->path[i]);
        *pod_user = owner;
        have_pod = true;
    }
    return have_pod ? 1 : 0;
}

int engine_pod_resolve(int root_fd, const char *self, const struct engine_joins *joins,
                       struct engine_pod *pod, struct rr_error *err)
{
    struct scan sc = {.joins = joins, .owner_dir = -1, .pod = pod};
    bool host_owned[4] = {false};
    int r;

    *pod = (struct engine_pod){.userns_fd = -1};
    if (joins->n == 0 || (r = classify(joins, &sc.userns, host_owned, err)) == 0)
        return 0;
    if (r < 0 || scan_root(&sc, root_fd, self, err) < 0)
        return -1;
    if (sc.owner_dir < 0)
        return rr_fail(err, EPERM,
                       "linux.namespaces: %s belongs to a user namespace that no "
                       "live revrun container of this state root has (revrun joins "
                       "the namespaces of the host or of its own containers' pod)",
                       joins->path[0]);
    for (size_t i = 0; i < joins->n; i++) {
        if (!sc.matched[i]) {
            close(sc.owner_dir);
            return rr_fail(err, EPERM,
                           "linux.namespaces: %s is not a namespace of a revrun "
                           "container of the pod (container %s's): %s",
                           joins->path[i], pod->owner,
                           host_owned[i] ? "the host's namespaces are joined with a pod's only "
                                           "when the pod has them"
                                         : "a namespace a process of the pod made is never "
                                           "joined");
        }
        if (host_owned[i] && joins->flag[i] == CLONE_NEWNET)
            pod->net_host_owned = true;
    }
    pod->userns_fd = openat(sc.owner_dir, "ns/user", O_RDONLY | O_CLOEXEC);
    if (pod->userns_fd < 0)
        r = rr_fail(err, errno, "the user namespace of container %s", pod->owner);
    else if (read_map(sc.owner_dir, "uid_map", pod->uid_map, &pod->n_uid_map, err) < 0 ||
             read_map(sc.owner_dir, "gid_map", pod->gid_map, &pod->n_gid_map, err) < 0)
        r = -1;
    close(sc.owner_dir);
    if (r < 0) {
        engine_pod_close(pod);
        return -1;
    }
    pod->joined = true;
    return 0;
}

void engine_pod_close(struct engine_pod *pod)
{
    if (pod->userns_fd >= 0)
        close(pod->userns_fd);
    pod->userns_fd = -1;
}
