/* linux.resources.devices where cgroups allow: the v1 devices controller
 * (hybrid hosts). The profile turns the engine's rules into the lines
 * written here (profile/devices.c, engine_device_rules); this file only
 * makes the cgroup, writes them in order and moves the process in. A v2-only host
 * (no BPF device program is loaded by revrun) keeps the floor without
 * them: every mount nodev and the fixed node set, said in one line. */
#ifndef REVRUN_CGROUP_DEVICES_H
#define REVRUN_CGROUP_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "common/error.h"

/* The mount point of the v1 devices hierarchy; false when there is none. */
bool cgroup_devices_v1_mount(char *out, size_t len);

/* DEVICES/path made (parents too), each of rules written ("allow c 1:3 rwm",
 * "deny a"). *made: this call made the directory (then it is the caller's to
 * remove, even on failure); an existing one is refused (EEXIST) and stays
 * untouched: it is another container's. */
int cgroup_devices_v1_make(const char *path, const struct rr_strv *rules, bool *made,
                           struct rr_error *err);

/* pid moved into DEVICES/path (made by cgroup_devices_v1_make). */
int cgroup_devices_v1_join(const char *path, pid_t pid, struct rr_error *err);

/* Kill what is left in DEVICES/path and remove it (and the empty parents
 * revrun made); missing is success. */
void cgroup_devices_v1_remove(const char *path);

#endif
