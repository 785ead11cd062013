/* io.revrun.checkout: an engine container's bind mount made a reviewed
 * checkout (the lower read-only, the upper in revrun's store). */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "bundle/config_engine.h"
#include "runtime/confine/lower_credentials.h"

static uint32_t engine_host_of(const struct rr_id_mapping *m, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
            return m[i].host_id + (id - m[i].container_id);
    return UINT32_MAX;
}

/* Where the checkout's mount is, and that no other mount of the config
 * lands in it or covers it (the first would write into the overlay, the
 * second would hide it). */
static int checkout_mount(const struct rr_config *c, const struct profile *p, size_t *at,
                          struct rr_error *err)
{
    const char *dest = c->ann.checkout;

    *at = SIZE_MAX;
    for (size_t i = 0; i < p->n_mounts; i++) {
        const char *d = p->mounts[i].destination;
        if (pf_path_within(d, dest) && pf_path_within(dest, d)) {
            if (*at != SIZE_MAX)
                return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] and mounts[%zu] both "
                                       "have it as destination", dest, *at, i);
            *at = i;
        } else if (pf_path_within(d, dest)) {
            return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] at %s is inside the "
                                   "checkout (refused: it would land in the overlay)", dest, i, d);
        } else if (*at != SIZE_MAX && pf_path_within(dest, d)) {
            return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] at %s, after it, would "
                                   "cover the checkout", dest, i, d);
        }
    }
    if (*at == SIZE_MAX)
        return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: no mount of the config has it as "
                               "destination (name a bind mount's destination)", dest);
    if (p->mounts[*at].kind != MOUNT_BIND)
        return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] is not a bind mount (the "
                               "checkout is a host directory)", dest, *at);
    return 0;
}

/* The checkout's lower is idmapped from its owner to the container's user,
 * so the container reads there whatever that owner may read. The owner is
 * whoever owns the bind's source, a path the engine's tenant picks: root
 * (/, /etc, a volume root) would hand it root's files, shadow included,
 * through a read-only bind; a system user or group (below 1000, Debian's
 * SYS_UID_MAX + 1: shadow, adm, disk, a daemon's data) as much. Those are
 * never a checkout's owner or group; when the policy lists
 * "checkoutOwners", the owner must be one of them. */
#define CHECKOUT_OWNER_FLOOR 1000u
static int checkout_owner_ok(const struct rr_config *c, const struct rr_policy *pol, size_t at,
                             const char *src, const struct stat *st, struct rr_error *err)
{
    if (st->st_uid < CHECKOUT_OWNER_FLOOR || st->st_gid < CHECKOUT_OWNER_FLOOR)
        return rr_fail(err, EPERM, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s is owned by "
                                   "uid %u gid %u: a tree of root or of a system id (below "
                                   "1000) is never a checkout (its owner would be idmapped "
                                   "to the container's user)",
                       c->ann.checkout, at, src, (unsigned)st->st_uid, (unsigned)st->st_gid);
    if (pol->n_checkout_owners == 0)
        return 0;
    for (size_t i = 0; i < pol->n_checkout_owners; i++)
        if (pol->checkout_owners[i] == st->st_uid)
            return 0;
    return rr_fail(err, EPERM, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s is owned by uid %u, "
                               "not one of the policy's checkoutOwners",
                   c->ann.checkout, at, src, (unsigned)st->st_uid);
}

/* A pod's annotations reach every container of it, its sandbox (the pause
 * container, which no volume is given) included: there, with no mount at
 * the checkout's destination, there is nothing to overlay or export, and
 * the sandbox is not refused for it. Only that case: a sandbox with a mount
 * there is overlaid as any container, so the engine's mark (which a tenant
 * could forge through a wider pod_annotations) never spares a checkout the
 * container can reach. */
static bool checkout_absent_in_sandbox(const struct rr_config *c, const struct profile *p)
{
    if (!c->ann.pod_sandbox)
        return false;
    for (size_t i = 0; i < p->n_mounts; i++)
        if (pf_path_within(p->mounts[i].destination, c->ann.checkout))
            return false;
    return true;
}

/* io.revrun.checkout: the bind mount it names becomes the review profile's
 * checkout: its source the read-only lower (checked as revrun.lower is:
 * a directory holding no credential), a size-capped upper in revrun's
 * store, kernel overlayfs mounted by the container's init. The sizes are
 * the policy's at most; the export, a fresh name under its exportRoot. */
int pf_engine_checkout(const struct rr_config *c, const struct rr_policy *pol,
                           struct profile *p, struct rr_error *err)
{
    struct mount_plan *m;
    struct stat st;
    size_t at;

    if (c->ann.checkout == NULL)
        return 0;
    if (checkout_absent_in_sandbox(c, p))
        return pf_note(p, RR_ANN_CHECKOUT " %s: the pod's sandbox has no mount there (its "
                          "containers' mounts are overlaid and exported, not this one)",
                       c->ann.checkout) < 0
                   ? rr_fail(err, ENOMEM, "notes")
                   : 0;
    if (checkout_mount(c, p, &at, err) < 0)
        return -1;
    /* The upper is vetted once everything in the container has stopped,
     * which its init's end says only in a pid namespace of its own. */
    if (p->eng.join_flags & CLONE_NEWPID)
        return rr_fail(err, 0, RR_ANN_CHECKOUT ": refused with a joined pid namespace (a process "
                               "of the container could outlive its init and keep writing)");
    m = &p->mounts[at];
    m->kind = MOUNT_CHECKOUT;
    p->lower = m->source;
    p->checkout_path = m->destination;
    if (stat(p->lower, &st) < 0)
        return rr_fail(err, errno, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s",
                       c->ann.checkout, at, p->lower);
    if (!S_ISDIR(st.st_mode))
        return rr_fail(err, ENOTDIR, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s",
                       c->ann.checkout, at, p->lower);
    if (checkout_owner_ok(c, pol, at, p->lower, &st, err) < 0)
        return -1;
    p->lower_owner = st.st_uid;
    p->lower_group = st.st_gid;
    p->lower_mode = st.st_mode & 0777;
    p->idmap_lower = true;
    p->eng.lower_as_uid = engine_host_of(p->eng.uid_map, p->eng.n_uid_map, p->uid);
    p->eng.lower_as_gid = engine_host_of(p->eng.gid_map, p->eng.n_gid_map, p->gid);
    /* the store's owner: the container's root, who mounts the overlay */
    p->host_uid = engine_host_of(p->eng.uid_map, p->eng.n_uid_map, 0);
    p->host_gid = engine_host_of(p->eng.gid_map, p->eng.n_gid_map, 0);
    if (p->host_uid == UINT32_MAX || p->host_gid == UINT32_MAX)
        return rr_fail(err, 0, RR_ANN_CHECKOUT ": the container's root (id 0) is not mapped");
    p->upper_size = c->ann.upper_size != 0 ? c->ann.upper_size : pol->upper_size;
    if (p->upper_size > pol->upper_size) {
        if (pf_note(p, RR_ANN_UPPER_SIZE ": %llu bytes tightened to the policy's %llu",
                    (unsigned long long)p->upper_size, (unsigned long long)pol->upper_size) < 0)
            return rr_fail(err, ENOMEM, "notes");
        p->upper_size = pol->upper_size;
    }
    /* as revrun.overlay: auto (native when the kernel mounts it over this
     * checkout, else fuse-overlayfs), native, fuse */
    p->backend = c->ann.overlay < 0 ? RR_BACKEND_AUTO : (enum rr_backend)c->ann.overlay;
    if (c->ann.export_name != NULL) {
        snprintf(p->eng.export_root, sizeof(p->eng.export_root), "%s", pol->export_root);
        if ((size_t)snprintf(p->eng.export_dir, sizeof(p->eng.export_dir), "%s/%s",
                             pol->export_root, c->ann.export_name) >= sizeof(p->eng.export_dir))
            return rr_fail(err, ENAMETOOLONG, RR_ANN_EXPORT);
    }
    return lower_refuse_credentials(
        p->lower,
        &(struct lower_view){.checkout_inside = p->checkout_path,
                             .home = pf_env_value(&c->process.env, "HOME"),
                             .checkout_host = p->lower},
        err);
}
