/* linux.resources of an engine config: the device rules, and a line for
 * each limit revrun does not apply. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "runtime/confine/cgroup_devices.h"

/* The runtime spec's default devices (and the container's ptys): what
 * runc allows after any rules, and revrun's fixed node set. */
static const struct {
    int64_t major, minor;
} default_devices[] = {{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 1}, {5, 2}, {136, -1}};

/* Does the last rule naming exactly c major:minor deny it? */
static bool denied_by_name(const struct rr_resources *r, int64_t major, int64_t minor)
{
    bool denied = false;

    for (size_t i = 0; i < r->n_devices; i++) {
        const struct rr_device_rule *d = &r->devices[i];
        if (d->type == 'c' && d->major == major && d->minor == minor)
            denied = !d->allow;
    }
    return denied;
}

static void device_text(char *out, size_t len, char type, int64_t major, int64_t minor,
                        const char *access)
{
    char ma[24] = "*", mi[24] = "*";

    if (type == 'a') {
        snprintf(out, len, "a");
        return;
    }
    if (major >= 0)
        snprintf(ma, sizeof(ma), "%lld", (long long)major);
    if (minor >= 0)
        snprintf(mi, sizeof(mi), "%lld", (long long)minor);
    snprintf(out, len, "%c %s:%s %s", type, ma, mi, access);
}

/* Device rules. The floor holds whatever they say: every mount but
 * revrun's own device binds and the container's devpts is nodev (the
 * image's root too), so the only reachable nodes are the fixed set, the
 * runtime spec's default devices. Where the host has the v1 devices
 * controller the rules are applied there as well, in order, after a deny
 * of everything; then, as runc does, the default devices are allowed again
 * (engines send a blanket deny, podman nothing else) unless a rule denies
 * one by its exact number: that one is denied (EPERM on open) though its
 * node is there. An allow of a wildcard is tightened away. Elsewhere one
 * line says the rules are not applied by a cgroup. */
static int engine_device_rules(const struct rr_resources *r, struct profile *p,
                               struct rr_error *err)
{
    struct rr_strv *out = &p->eng.device_rules;
    char line[64], denied[160] = "", mnt[PATH_MAX];

    if (r->n_devices == 0)
        return 0;
    for (size_t d = 0; d < sizeof(default_devices) / sizeof(default_devices[0]); d++)
        if (denied_by_name(r, default_devices[d].major, default_devices[d].minor))
            device_text(denied + strlen(denied), sizeof(denied) - strlen(denied), 'c',
                        default_devices[d].major, default_devices[d].minor, "");
    if (!cgroup_devices_v1_mount(mnt, sizeof(mnt))) {
        if (pf_note(p, "linux.resources.devices: not applied by a cgroup (this host has no v1 "
                       "devices controller and revrun loads no BPF device program): every mount "
                       "is nodev and only the default devices are there%s%s",
                    denied[0] ? "; denied by the rules but reachable: " : "", denied) < 0)
            return rr_fail(err, ENOMEM, "notes");
        return 0;
    }
    if (strv_push(out, "deny a") < 0)
        return rr_fail(err, ENOMEM, "device rules");
    for (size_t i = 0; i < r->n_devices; i++) {
        const struct rr_device_rule *d = &r->devices[i];
        char text[48];
        device_text(text, sizeof(text), d->type, d->major, d->minor, d->access);
        if (d->allow && (d->type == 'a' || d->major < 0)) {
            if (pf_note(p, "linux.resources.devices[%zu]: allow \"%s\" not applied (a wildcard: "
                           "revrun allows devices by number only)", i, text) < 0)
                return rr_fail(err, ENOMEM, "notes");
            continue;
        }
        snprintf(line, sizeof(line), "%s %s", d->allow ? "allow" : "deny", text);
        if (strv_push(out, line) < 0)
            return rr_fail(err, ENOMEM, "device rules");
    }
    for (size_t d = 0; d < sizeof(default_devices) / sizeof(default_devices[0]); d++) {
        if (denied_by_name(r, default_devices[d].major, default_devices[d].minor))
            continue;
        snprintf(line, sizeof(line), "allow ");
        device_text(line + 6, sizeof(line) - 6, 'c', default_devices[d].major,
                    default_devices[d].minor, "rwm");
        if (strv_push(out, line) < 0)
            return rr_fail(err, ENOMEM, "device rules");
    }
    if (denied[0] != '\0' &&
        pf_note(p, "linux.resources.devices: denied by the rules (the v1 devices controller): %s"
                   "(the nodes are there, opening one fails with EPERM)", denied) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return 0;
}

int pf_engine_resources(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_resources *r = &c->linux.resources;

    for (size_t i = 0; i < c->linux.sysctl.n; i++)
        if (pf_engine_sysctl_one(c->linux.sysctl.v[i], p, err) < 0)
            return -1;
    /* cpu.shares and disableOOMKiller: written by cgroup_create where the
     * controller is had (cgroup v1 memory.oom_control, cpu.shares; v2
     * cpu.weight), one line where not; v2 has no OOM-killer switch. */
    if (r->disable_oom_killer && pf_host_cgroup_v2() &&
        pf_note(p, "linux.resources.memory.disableOOMKiller: not applied on cgroup v2 (no such "
                   "switch; the kernel's OOM killer stays on)") < 0)
        return rr_fail(err, ENOMEM, "notes");
    if (r->blkio_weight > 0 &&
        pf_note(p, "linux.resources.blockIO.weight: %lld not applied (a relative weight)",
                (long long)r->blkio_weight) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return engine_device_rules(r, p, err);
}
