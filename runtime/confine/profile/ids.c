/* Whose ids the container runs as: a review's one mapped uid and gid
 * (judge_identity), an engine container's mappings and the rest of its
 * process identity (engine_identity). */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/confine/userns_ids.h"

/* The first id of the range, or where this user namespace does not map it
 * (a user-namespaced container), the one id_map_pick chooses (0 when
 * nothing but root is mapped: main.c then runs rootless). */
static uint32_t host_id_here(bool uid, const struct rr_id_range *r)
{
    struct id_map m;
    struct rr_error ignored;
    uint32_t id = 0;

    if (id_map_read_self(uid, &m, &ignored) < 0 || id_map_has(&m, r->first))
        return r->first;
    return id_map_pick(&m, &id) ? id : r->first;
}

/* Every id of the range is mapped where revrun runs, for uids and gids. */
static bool range_mapped_here(const struct rr_id_range *r)
{
    struct id_map m;
    struct rr_error ignored;

    for (int uid = 0; uid < 2; uid++)
        if (id_map_read_self(uid, &m, &ignored) < 0 || !id_map_covers(&m, r->first, r->count))
            return false;
    return true;
}

/* As root inside a user namespace, an id it does not map cannot own the
 * exec fifo nor be written to a child's map: said here, not as EINVAL. */
static int judge_mapped(uint32_t id, const char *what, struct rr_error *err)
{
    struct id_map m;
    char desc[256];
    uint32_t pick = 0;

    if (id_map_read_self(what[0] == 'u', &m, err) < 0)
        return -1;
    if (id_map_has(&m, id))
        return 0;
    id_map_describe(&m, desc, sizeof(desc));
    if (id_map_pick(&m, &pick))
        return rr_fail(err, 0,
                       "linux.%sMappings: host id %u is not mapped in the user namespace revrun "
                       "runs in (this is a user-namespaced container: %s); use one that is, "
                       "such as %u, or `revrun spec` here, which picks it",
                       what, id, desc, pick);
    return rr_fail(err, 0,
                   "linux.%sMappings: host id %u is not mapped in the user namespace revrun runs "
                   "in (it maps %s)",
                   what, id, desc);
}

static int judge_map(const struct rr_id_mapping *m, size_t n, uint32_t inside, uint32_t own,
                     bool rootless, const struct rr_id_range *r, const char *what,
                     uint32_t *host, struct rr_error *err)
{
    if (n == 0) {
        *host = rootless ? own : host_id_here(what[0] == 'u', r);
        return rootless ? 0 : judge_mapped(*host, what, err);
    }
    if (n != 1 || m[0].size != 1 || m[0].container_id != inside)
        return rr_fail(err, 0,
                       "linux.%sMappings: exactly one mapping of size 1 for the process's "
                       "%s (%u) is supported",
                       what, what, inside);
    if (rootless && m[0].host_id != own)
        return rr_fail(err, 0,
                       "linux.%sMappings: running without root, the host id must be your own "
                       "(%u), not %u",
                       what, own, m[0].host_id);
    if (!rootless && m[0].host_id == 0)
        return rr_fail(err, 0, "linux.%sMappings: the container user must not be host root",
                       what);
    *host = m[0].host_id;
    return rootless ? 0 : judge_mapped(*host, what, err);
}

static bool in_range(const struct rr_id_range *r, uint32_t id)
{
    return id >= r->first && id - r->first < r->count;
}

/* As root, containers never share a host id of the range: no mapping in
 * the config takes a free one at create (HOST_IDS_ANY), a mapping into the
 * range claims exactly that one (HOST_IDS_EXACT, refused while another
 * container holds it). Ids outside the range, rootless, and a user
 * namespace that does not map the range: as judged (HOST_IDS_FIXED). */
static int judge_host_ids(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_id_range *r = &p->host_range;
    bool u_in = in_range(r, p->host_uid), g_in = in_range(r, p->host_gid);

    p->host_ids = HOST_IDS_FIXED;
    if (p->rootless)
        return 0;
    if (c->linux.n_uid_mappings == 0 && c->linux.n_gid_mappings == 0) {
        if (range_mapped_here(r))
            p->host_ids = HOST_IDS_ANY;
        return 0;
    }
    if (u_in && g_in && p->host_uid != p->host_gid)
        return rr_fail(err, 0,
                       "linux.gidMappings: inside revrun's host id range %u-%u a container's "
                       "host gid is its host uid (%u), not %u; or remove both mappings and "
                       "revrun gives the container an id of its own",
                       r->first, r->first + (r->count - 1), (unsigned)p->host_uid,
                       (unsigned)p->host_gid);
    if (u_in || g_in)
        p->host_ids = HOST_IDS_EXACT;
    return 0;
}

int pf_judge_identity(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    uint32_t hu, hg;

    if (c->process.has_no_new_privileges && !c->process.no_new_privileges)
        return rr_fail(err, 0, "process.noNewPrivileges: revrun always sets it; remove false");
    p->host_range = (struct rr_id_range){POLICY_HOST_IDS_FIRST, POLICY_HOST_IDS_COUNT};
    if (!p->rootless && policy_load_host_ids(PROFILE_POLICY_FILE, &p->host_range, err) < 0)
        return -1;
    if (judge_map(c->linux.uid_mappings, c->linux.n_uid_mappings, c->process.uid,
                  (uint32_t)getuid(), p->rootless, &p->host_range, "uid", &hu, err) < 0 ||
        judge_map(c->linux.gid_mappings, c->linux.n_gid_mappings, c->process.gid,
                  (uint32_t)getgid(), p->rootless, &p->host_range, "gid", &hg, err) < 0)
        return -1;
    p->uid = c->process.uid;
    p->gid = c->process.gid;
    p->host_uid = hu;
    p->host_gid = hg;
    return judge_host_ids(c, p, err);
}
static bool ranges_meet(uint32_t a, uint32_t na, const struct rr_id_range *r)
{
    return (uint64_t)a < (uint64_t)r->first + r->count && r->first < (uint64_t)a + na;
}

/* An engine's own mappings may name host ids the engine manages (subuid
 * ranges), never a real or system user's (below the floor), a review's
 * (hostIds) or another engine container's block (engineIds): review2 F9. */
static int engine_map(const struct rr_id_mapping *m, size_t n, const char *what,
                      const struct rr_id_range ranges[2], struct rr_id_mapping *out,
                      size_t *n_out, struct profile *p, struct rr_error *err)
{
    static const char *const range_name[2] = {"hostIds (reviews' ids)",
                                              "engineIds (engine containers' blocks)"};
    uint32_t base = p->eng.host_base;

    if (n == 0) {
        out[0] = (struct rr_id_mapping){0, base, PROFILE_ENGINE_MAP_SIZE};
        *n_out = 1;
        if (pf_note(p, "linux.%sMappings: none given; container %ss 0-%u are host %ss %u-%u", what,
                    what, PROFILE_ENGINE_MAP_SIZE - 1, what, base,
                    base + (PROFILE_ENGINE_MAP_SIZE - 1)) < 0)
            return rr_fail(err, ENOMEM, "notes");
        return 0;
    }
    if (n > 8)
        return rr_fail(err, 0, "linux.%sMappings: at most 8 mappings", what);
    for (size_t i = 0; i < n; i++) {
        if (m[i].host_id == 0)
            return rr_fail(err, 0, "linux.%sMappings[%zu]: host %s 0 is never mapped into a "
                                   "container", what, i, what);
        if (m[i].host_id < POLICY_HOST_IDS_FLOOR)
            return rr_fail(err, 0, "linux.%sMappings[%zu]: host %s %u is below %u (real and "
                                   "system users' ids are never mapped into a container)",
                           what, i, what, m[i].host_id, POLICY_HOST_IDS_FLOOR);
        for (int k = 0; k < 2; k++)
            if (ranges_meet(m[i].host_id, m[i].size, &ranges[k]))
                return rr_fail(err, 0, "linux.%sMappings[%zu]: host %ss %u-%u meet the policy's "
                                       "%s %u-%u",
                               what, i, what, m[i].host_id, m[i].host_id + (m[i].size - 1),
                               range_name[k], ranges[k].first,
                               ranges[k].first + (ranges[k].count - 1));
        out[i] = m[i];
    }
    *n_out = n;
    return 0;
}

static bool in_map(const struct rr_id_mapping *m, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
            return true;
    return false;
}

static bool host_flag(const char *path, char want)
{
    char c = 0;
    FILE *f = fopen(path, "re");

    if (f == NULL)
        return false;
    if (fread(&c, 1, 1, f) != 1)
        c = 0;
    fclose(f);
    return c == want;
}

int pf_engine_identity(const struct rr_config *c, const char *policy_file, struct profile *p,
                           struct rr_error *err)
{
    struct engine_plan *e = &p->eng;
    struct rr_id_range ranges[2];

    if (p->rootless)
        return rr_fail(err, EPERM, "an engine's config needs revrun running as root (rootless "
                                   "engines are not supported yet)");
    if (policy_load_host_ids(policy_file, &ranges[0], err) < 0 ||
        policy_load_engine_ids(policy_file, &ranges[1], err) < 0)
        return -1;
    if (engine_map(c->linux.uid_mappings, c->linux.n_uid_mappings, "uid", ranges, e->uid_map,
                   &e->n_uid_map, p, err) < 0 ||
        engine_map(c->linux.gid_mappings, c->linux.n_gid_mappings, "gid", ranges, e->gid_map,
                   &e->n_gid_map, p, err) < 0)
        return -1;
    /* The namespace's owner: the container root's host uid, else the first
     * mapped (never 0: engine_map refuses it) */
    e->ns_owner = e->uid_map[0].host_id;
    for (size_t i = 0; i < e->n_uid_map; i++)
        if (e->uid_map[i].container_id == 0)
            e->ns_owner = e->uid_map[i].host_id;
    if (!in_map(e->uid_map, e->n_uid_map, c->process.uid) ||
        !in_map(e->gid_map, e->n_gid_map, c->process.gid))
        return rr_fail(err, 0, "process.user: uid %u / gid %u is not mapped in the user namespace",
                       c->process.uid, c->process.gid);
    p->uid = c->process.uid;
    p->gid = c->process.gid;
    p->host_uid = e->uid_map[0].host_id;
    p->host_gid = e->gid_map[0].host_id;
    for (size_t i = 0; i < c->process.n_additional_gids; i++) {
        if (!in_map(e->gid_map, e->n_gid_map, c->process.additional_gids[i]))
            return rr_fail(err, 0, "process.user.additionalGids[%zu]: gid %u is not mapped", i,
                           c->process.additional_gids[i]);
        e->groups[e->n_groups++] = c->process.additional_gids[i];
    }
    e->umask = c->process.has_umask ? (mode_t)c->process.umask : 022;
    e->has_oom_score_adj = c->process.has_oom_score_adj;
    e->oom_score_adj = (int)c->process.oom_score_adj;
    if (e->oom_score_adj < 0) {
        e->oom_score_adj = 0;
        if (pf_note(p, "process.oomScoreAdj: %lld tightened to 0 (a container is never preferred "
                       "over the host's processes)", (long long)c->process.oom_score_adj) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    /* As runc: a label for a security module this host does not run has
     * nothing to apply to; one it runs but revrun cannot apply refuses. */
    if (c->process.apparmor_profile != NULL && c->process.apparmor_profile[0] != '\0') {
        if (host_flag("/sys/module/apparmor/parameters/enabled", 'Y'))
            e->apparmor_profile = c->process.apparmor_profile;
        else if (pf_note(p, "process.apparmorProfile: AppArmor is not enabled on this host; not "
                            "applied") < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    if ((c->process.selinux_label != NULL || c->linux.mount_label != NULL)) {
        if (access("/sys/fs/selinux/enforce", F_OK) == 0)
            return rr_fail(err, 0, "process.selinuxLabel: refused: revrun does not apply SELinux "
                                   "labels and this host enforces SELinux");
        if (pf_note(p, "process.selinuxLabel/linux.mountLabel: SELinux is not enabled on this "
                       "host; not applied") < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    return 0;
}
