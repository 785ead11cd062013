/* linux.sysctl of an engine config: only what a namespace of the
 * container's holds. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

/* A sysctl is honoured only in a namespace of the container's (net.*: its
 * network namespace; kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*: its
 * IPC namespace; kernel.hostname/domainname: its UTS namespace); the rest
 * would change the host and is refused. Written by the container's init in
 * namespaces of its own, by revrun on the host side in joined ones. */
int pf_engine_sysctl_one(const char *kv, struct profile *p, struct rr_error *err)
{
    static const struct {
        const char *prefix;
        unsigned flag;
    } ns_of[] = {{"net.", CLONE_NEWNET},          {"kernel.shm", CLONE_NEWIPC},
                 {"kernel.msg", CLONE_NEWIPC},    {"kernel.sem", CLONE_NEWIPC},
                 {"fs.mqueue.", CLONE_NEWIPC},    {"kernel.hostname", CLONE_NEWUTS},
                 {"kernel.domainname", CLONE_NEWUTS}};
    const char *eq = strchr(kv, '=');
    char key[128], value[128];
    size_t k;

    snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
    snprintf(value, sizeof(value), "%s", eq + 1);
    for (k = 0; k < sizeof(ns_of) / sizeof(ns_of[0]); k++)
        if (strncmp(key, ns_of[k].prefix, strlen(ns_of[k].prefix)) == 0)
            break;
    if (k == sizeof(ns_of) / sizeof(ns_of[0]) || strncmp(key, "net.core.", 9) == 0)
        return rr_fail(err, 0, "linux.sysctl.%s: refused: not in a namespace of the container's "
                               "(it would change the host)", key);
    /* The ping range is in group ids as the writer sees them: kept within
     * the container's mapped groups (inside) or their host ids (joined). */
    if (strcmp(key, "net.ipv4.ping_group_range") == 0) {
        unsigned long lo = 0, hi = 0;
        uint32_t size = p->eng.gid_map[0].size, base = p->eng.gid_map[0].container_id;
        bool joined = (p->eng.join_flags & CLONE_NEWNET) != 0;
        if (sscanf(value, "%lu %lu", &lo, &hi) != 2 || lo > hi)
            return rr_fail(err, 0, "linux.sysctl.%s: expected two group ids", key);
        if (lo < base || hi >= (unsigned long)base + size) {
            unsigned long nlo = lo < base ? base : lo, nhi = hi >= (unsigned long)base + size
                                                                 ? (unsigned long)base + size - 1
                                                                 : hi;
            if (nlo > nhi)
                nlo = nhi = (unsigned long)base + size - 1;
            if (pf_note(p, "linux.sysctl.%s: \"%s\" tightened to the mapped groups %lu-%lu", key,
                        value, nlo, nhi) < 0)
                return rr_fail(err, ENOMEM, "notes");
            lo = nlo;
            hi = nhi;
        }
        if (joined) {
            lo = lo - base + p->eng.gid_map[0].host_id;
            hi = hi - base + p->eng.gid_map[0].host_id;
        }
        snprintf(value, sizeof(value), "%lu %lu", lo, hi);
    }
    char line[300];
    snprintf(line, sizeof(line), "%s=%s", key, value);
    if (strv_push((p->eng.join_flags & ns_of[k].flag) ? &p->eng.sysctl_joined
                                                       : &p->eng.sysctl_inside,
                  line) < 0)
        return rr_fail(err, ENOMEM, "sysctl");
    return 0;
}
