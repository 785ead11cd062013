/* `revrun check`: what this host is, read once (the outer container's
 * seccomp mode and capabilities, masks over /proc, a read-only cgroupfs,
 * /dev/fuse, the LSMs present), so that a refused step can be pinned on
 * the layer that refused it and the remedy fits the host. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runtime/confine/libmnt.h"
#include "common/cleanup.h"
#include "runtime/confine/cgroup.h"
#include "runtime/check/check.h"
#include "runtime/confine/userns_ids.h"

static int read_small(const char *path, char *buf, size_t len)
{
    _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0 || (n = read(fd, buf, len - 1)) < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

static void read_status(struct check_facts *f)
{
    char buf[4096];
    const char *p;

    if (read_small("/proc/self/status", buf, sizeof(buf)) < 0)
        return;
    if ((p = strstr(buf, "\nSeccomp:")) != NULL)
        f->seccomp_mode = atoi(p + 9);
    if ((p = strstr(buf, "\nCapEff:")) != NULL)
        f->cap_eff = strtoull(p + 8, NULL, 16);
}

/* Mounts over paths below /proc (docker and podman mask /proc/kcore,
 * /proc/keys, /proc/acpi, ...). binfmt_misc sits on a directory that is
 * always empty and does not count for the kernel either. */
static void read_mounts(struct check_facts *f)
{
    struct libmnt_table *tb;
    struct libmnt_iter *it;
    struct libmnt_fs *fs;
    struct cgroup_host h;
    struct rr_error ignored;
    const char *cg;

    /* main() loaded it for `revrun check`; without it there is nothing to read */
    if (rr_libmnt_load(&ignored) < 0)
        return;
    tb = mnt_new_table_from_file("/proc/self/mountinfo");
    it = mnt_new_iter(MNT_ITER_FORWARD);
    cgroup_host_probe(&h, &ignored);
    cg = h.preferred == CG_V2 ? h.v2_mount : h.v1_mount[0][0] ? h.v1_mount[0] : h.v1_mount[1];
    while (tb != NULL && it != NULL && mnt_table_next_fs(tb, it, &fs) == 0) {
        const char *target = mnt_fs_get_target(fs);
        const char *vfs = mnt_fs_get_vfs_options(fs);
        if (target == NULL)
            continue;
        if (strncmp(target, "/proc/", 6) == 0 &&
            strcmp(target, "/proc/sys/fs/binfmt_misc") != 0 && !f->proc_masked) {
            f->proc_masked = true;
            snprintf(f->proc_mask, sizeof(f->proc_mask), "%s", target);
        }
        if (cg != NULL && cg[0] != '\0' && strcmp(target, cg) == 0 && vfs != NULL)
            f->cgroup_ro = mnt_optstr_get_option(vfs, "ro", NULL, NULL) == 0;
    }
    mnt_free_iter(it);
    mnt_unref_table(tb);
}

static void read_lsms(struct check_facts *f)
{
    char buf[256];
    struct stat st;

    f->apparmor = stat("/sys/kernel/security/apparmor", &st) == 0 ||
                  (read_small("/sys/module/apparmor/parameters/enabled", buf, sizeof(buf)) == 0 &&
                   buf[0] == 'Y');
    if (f->apparmor && (read_small("/proc/self/attr/apparmor/current", buf, sizeof(buf)) == 0 ||
                        read_small("/proc/self/attr/current", buf, sizeof(buf)) == 0)) {
        buf[strcspn(buf, "\n")] = '\0';
        for (char *c = buf; *c; c++)
            if (!isprint((unsigned char)*c))
                *c = '?';
        snprintf(f->aa_label, sizeof(f->aa_label), "%s", buf);
    }
    f->selinux = stat("/sys/fs/selinux", &st) == 0 && S_ISDIR(st.st_mode);
    f->selinux_enforcing = f->selinux && read_small("/sys/fs/selinux/enforce", buf, sizeof(buf)) == 0 &&
                           buf[0] == '1';
    f->aa_userns_sysctl =
        read_small("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", buf, sizeof(buf)) == 0 &&
        buf[0] == '1';
}

void check_read_facts(struct check_facts *f)
{
    struct utsname u;
    struct id_map m;
    struct rr_error ignored;
    struct stat st;

    memset(f, 0, sizeof(*f));
    read_status(f);
    if (id_map_read_self(true, &m, &ignored) == 0 && !id_map_is_initial(&m)) {
        f->in_userns = true;
        id_map_describe(&m, f->uid_map, sizeof(f->uid_map));
    }
    read_mounts(f);
    f->dev_fuse = stat("/dev/fuse", &st) == 0 && S_ISCHR(st.st_mode);
    read_lsms(f);
    if (uname(&u) == 0)
        sscanf(u.release, "%u.%u", &f->kernel_major, &f->kernel_minor);
    f->in_container = stat("/.dockerenv", &st) == 0 || stat("/run/.containerenv", &st) == 0 ||
                      getenv("container") != NULL || getenv("KUBERNETES_SERVICE_HOST") != NULL;
}
