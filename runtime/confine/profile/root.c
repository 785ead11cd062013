/* An engine's root.path: how the image is shown to the container.
 *
 * Idmapping the image through the container's mapping lets the
 * container's root use an image whose files belong to host root, as a
 * user-namespaced runc would. The same mapping runs the other way: what
 * the container's ids write through it lands on the host as the image's
 * owners (container root writes as host root, container uid N as host uid
 * N), so a chmod 4755 of a file it copied would leave a setuid-root file
 * in the image directory for any host user to run. Hence:
 *
 *  - A read-only root is idmapped: nothing is written through it.
 *  - A writable root on a filesystem revrun can idmap (a directory:
 *    podman --rootfs, ctr run --rootfs, the native and vfs snapshotters,
 *    runtime-tools bundles) is idmapped read-only and gets a private upper
 *    (a size-capped tmpfs in the container's state directory): the
 *    container writes there, as its own ids, and the directory itself is
 *    never written by it. Its writes are gone at delete.
 *  - A writable root that is an engine's own layer (overlayfs, FUSE: the
 *    overlay snapshotters and storage drivers, which cannot be idmapped)
 *    is written through as it is, with the container's own ids (its block),
 *    so commit and diff see the writes; not idmapped.
 *  - A root that is, holds, or lies in a host system directory (by
 *    identity: host_trees.h) is never idmapped, and always gets a private
 *    upper: nothing of the container's lands in the host's tree.
 * Every root not idmapped, or given an upper, is said in one note. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/confine/host_trees.h"

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

/* An engine's writable layer: a filesystem whose mounts cannot be idmapped
 * and that the engine reads back (commit, diff). */
static bool engine_layer(int fd)
{
    struct statfs sf;

    return fstatfs(fd, &sf) == 0 &&
           ((unsigned long)sf.f_type == OVERLAYFS_SUPER_MAGIC ||
            (unsigned long)sf.f_type == FUSE_SUPER_MAGIC);
}

static int say(struct profile *p, const char *root, const char *what, struct rr_error *err)
{
    if (pf_note(p, "root.path %s: %s", root, what) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return 0;
}

/* root (opened as fd) is the host's own: never idmapped, an upper always. */
static int host_root(const struct host_tree_verdict *v, const char *root, struct profile *p,
                     struct rr_error *err)
{
    char what[256];

    p->eng.idmap_root = false;
    p->eng.root_upper = true;
    snprintf(what, sizeof(what), "%s (told by what the directory is, not by its path): not "
                                 "idmapped (its files keep their host owners); the container's "
                                 "writes go to a private upper, never into it",
             host_tree_says(v));
    return say(p, root, what, err);
}

static int choose(int fd, const char *root, const struct rr_policy *pol, struct profile *p,
                  struct rr_error *err)
{
    struct host_tree_verdict v;
    char what[256];

    p->eng.root_upper_size = pol->upper_size;
    if (host_tree_judge(fd, &v, err) < 0)
        return rr_wrap(err, "root.path %s", root);
    if (v.kind != HOST_TREE_NOT)
        return host_root(&v, root, p, err);
    if (p->root_readonly) {
        p->eng.idmap_root = true;
        return 0;
    }
    if (engine_layer(fd)) {
        p->eng.idmap_root = false;
        return say(p, root, "an engine's writable layer (overlayfs, FUSE): written through as "
                            "the container's own ids, not idmapped (its files keep their host "
                            "owners)", err);
    }
    p->eng.idmap_root = true;
    p->eng.root_upper = true;
    snprintf(what, sizeof(what), "a writable directory: shown read-only through the "
                                 "container's mapping, its writes go to a private upper (at most "
                                 "%llu bytes, gone at delete); the directory is never written",
             (unsigned long long)p->eng.root_upper_size);
    return say(p, root, what, err);
}

int pf_engine_root(const struct rr_config *c, const char *bundle, const struct rr_policy *pol,
                   struct profile *p, struct rr_error *err)
{
    static char root[4096];
    _cleanup_close_ int fd = -1;
    struct stat st;

    if (c->root.path[0] == '/')
        snprintf(root, sizeof(root), "%s", c->root.path);
    else if ((size_t)snprintf(root, sizeof(root), "%s/%s", bundle, c->root.path) >= sizeof(root))
        return rr_fail(err, ENAMETOOLONG, "root.path");
    fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0)
        return rr_fail(err, errno, "root.path %s", root);
    p->eng.root_path = root;
    p->eng.root_dev = st.st_dev;
    p->eng.root_ino = st.st_ino;
    p->root_readonly = c->root.readonly;
    if (choose(fd, root, pol, p, err) < 0)
        return -1;
    /* Set on the container's / once every mount in its namespace is
     * private: "shared" links only mounts of that namespace, which revrun's
     * user namespace owns, so nothing propagates to the host's (the kernel
     * never propagates from a less privileged mount namespace, and the
     * container can neither mount nor make a namespace). */
    if (c->linux.rootfs_propagation != NULL &&
        pf_propagation_by_name(c->linux.rootfs_propagation, &p->eng.root_propagation,
                               &p->eng.root_propagation_rec) < 0)
        return rr_fail(err, 0, "linux.rootfsPropagation: \"%s\" is not a propagation type",
                       c->linux.rootfs_propagation);
    return 0;
}
