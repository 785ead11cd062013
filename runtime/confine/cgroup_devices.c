#include "runtime/confine/cgroup_devices.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/confine/cgroup.h"
#include "runtime/confine/libmnt.h"

bool cgroup_devices_v1_mount(char *out, size_t len)
{
    struct libmnt_table *tb;
    struct libmnt_iter *it;
    struct libmnt_fs *fs;
    struct rr_error err;
    bool found = false;

    if (rr_libmnt_load(&err) < 0)
        return false; /* main() loaded it for every command that gets here */
    tb = mnt_new_table_from_file("/proc/self/mountinfo");
    it = mnt_new_iter(MNT_ITER_FORWARD);

    while (!found && tb != NULL && it != NULL && mnt_table_next_fs(tb, it, &fs) == 0) {
        const char *type = mnt_fs_get_fstype(fs), *opts = mnt_fs_get_fs_options(fs);
        if (type != NULL && strcmp(type, "cgroup") == 0 && opts != NULL &&
            mnt_optstr_get_option(opts, "devices", NULL, NULL) == 0) {
            snprintf(out, len, "%s", mnt_fs_get_target(fs));
            found = true;
        }
    }
    mnt_free_iter(it);
    mnt_unref_table(tb);
    return found;
}

int cgroup_devices_v1_make(const char *path, const struct rr_strv *rules, bool *made,
                           struct rr_error *err)
{
    char mnt[PATH_MAX];
    _cleanup_close_ int fd = -1;

    *made = false;
    if (!cgroup_devices_v1_mount(mnt, sizeof(mnt)))
        return rr_fail(err, ENOENT, "linux.resources.devices: the v1 devices hierarchy is gone");
    /* mkdir decides: an existing one (EEXIST) is someone else's */
    fd = cg_mkdir_leaf(mnt, path, err);
    if (fd < 0)
        return rr_wrap(err, "linux.resources.devices");
    *made = true;
    for (size_t i = 0; i < rules->n; i++) {
        const char *r = rules->v[i];
        bool allow = strncmp(r, "allow ", 6) == 0;
        if (cg_write(fd, allow ? "devices.allow" : "devices.deny", r + (allow ? 6 : 5), err) < 0)
            return rr_wrap(err, "linux.resources.devices: %s", r);
    }
    return 0;
}

int cgroup_devices_v1_join(const char *path, pid_t pid, struct rr_error *err)
{
    char mnt[PATH_MAX], dir[PATH_MAX], txt[16];
    _cleanup_close_ int fd = -1;

    if (!cgroup_devices_v1_mount(mnt, sizeof(mnt)))
        return rr_fail(err, ENOENT, "linux.resources.devices: the v1 devices hierarchy is gone");
    if ((size_t)snprintf(dir, sizeof(dir), "%s%s", mnt, path) >= sizeof(dir))
        return rr_fail(err, ENAMETOOLONG, "linux.resources.devices: %s", path);
    fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "linux.resources.devices: %s", dir);
    snprintf(txt, sizeof(txt), "%d", (int)pid);
    if (cg_write(fd, "cgroup.procs", txt, err) < 0)
        return rr_wrap(err, "linux.resources.devices: join");
    return 0;
}

void cgroup_devices_v1_remove(const char *path)
{
    char mnt[PATH_MAX];
    struct rr_error ignored;

    if (path == NULL || !cgroup_devices_v1_mount(mnt, sizeof(mnt)))
        return;
    if (cg_kill_and_rmdir(mnt, path, false, &ignored) == 0)
        cg_remove_empty_parents(mnt, path);
}
