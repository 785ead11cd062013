/* `revrun check`: can this host use fuse-overlayfs, and which overlay
 * backends does that leave (after check_overlay has judged the native one).
 * The fuse probe is the real thing: the daemon started by the same code the
 * monitor uses, sandboxed the same way, on scratch layers, in a child. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountapi.h"
#include "runtime/container/backend.h"
#include "runtime/check/check.h"
#include "runtime/confine/seccomp.h"

#define DEV_FUSE_REMEDY                                                                            \
    "unprivileged, revrun needs /dev/fuse readable and writable by you (most distributions "       \
    "ship it 0666): sudo chmod 0666 /dev/fuse, and to keep it: echo 'KERNEL==\"fuse\", "           \
    "MODE=\"0666\"' | sudo tee /etc/udev/rules.d/60-fuse.rules"

struct fuse_probe {
    const struct overlay_fuse_bin *bin;
    bool rootless;
};

/* This process as the monitor would be: rootless in a user namespace of its
 * own; a mount namespace either way. */
static int as_monitor(bool rootless, struct rr_error *err)
{
    char msg[256];
    int e;

    if (!rootless)
        return unshare(CLONE_NEWNS) < 0 ? rr_fail(err, errno, "mount namespace") : 0;
    e = check_enter_userns(msg, sizeof(msg));
    return e == 0 ? 0 : rr_fail(err, e, "%s", msg);
}

/* A lower with one file, and a store as the monitor makes it. */
static int scratch_layers(uid_t uid, gid_t gid, int *lower, int *store, struct rr_error *err)
{
    static const char *const opts[] = {"size=64k", "mode=0755"};
    struct overlay_store s;
    _cleanup_close_ int root = -1;
    _cleanup_close_ int dir = -1;

    *lower = rr_make_fs("tmpfs", opts, RR_ARRAY_SIZE(opts), MOUNT_ATTR_RDONLY, err);
    if (*lower < 0)
        return -1;
    /* Attached over "/" of this throwaway namespace: reached by fd only. */
    root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return rr_fail(err, errno, "open /");
    if (overlay_store_mount(root, ".", 1 << 20, 0755, uid, gid, &s, err) < 0)
        return -1;
    *store = openat(s.upper_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    overlay_store_close(&s);
    return *store < 0 ? rr_fail(err, errno, "open the store") : 0;
}

static int probe_fuse_child(void *arg, struct rr_error *err)
{
    const struct fuse_probe *fp = arg;
    struct fuse_spec s = {.bin = fp->bin};
    struct fuse_daemon d;
    struct seccomp_progs helper_floor;
    _cleanup_close_ int lower = -1, store = -1;
    int r;

    /* The identity the daemon takes for a container of the default spec. */
    s.uid = fp->rootless ? 0 : PROFILE_DEFAULT_HOST_ID;
    s.gid = fp->rootless ? 0 : PROFILE_DEFAULT_HOST_ID;
    if (as_monitor(fp->rootless, err) < 0 || scratch_layers(s.uid, s.gid, &lower, &store, err) < 0)
        return -1;
    s.lower_mfd = lower;
    s.store_fd = store;
    /* The daemon is confined as in a container, its seccomp floor too. */
    if (seccomp_compile_helper(&helper_floor, err) < 0)
        return -1;
    s.seccomp = &helper_floor;
    r = fuse_daemon_start(&s, &d, err);
    if (r == 0)
        fuse_daemon_stop(&d);
    seccomp_progs_free(&helper_floor);
    return r;
}

static bool needs_fuse(const struct check_report *r)
{
    return r->profile != NULL && r->profile->backend == RR_BACKEND_FUSE;
}

static void check_dev_fuse(struct check_report *r)
{
    bool ok = access("/dev/fuse", R_OK | W_OK) == 0;
    struct stat st;
    int e = errno;

    if (stat("/dev/fuse", &st) < 0) {
        int e2 = errno;
        /* inside a container, the engine did not pass the device */
        if (r->facts.in_container)
            check_add_step(r, needs_fuse(r) ? CHECK_FAIL : CHECK_WARN, needs_fuse(r),
                           "/dev/fuse", CAUSE_NO_FUSE, "%s", strerror(e2));
        else
            check_add(r, needs_fuse(r) ? CHECK_FAIL : CHECK_WARN, needs_fuse(r), "/dev/fuse",
                      "load the fuse module (sudo modprobe fuse)", "%s", strerror(e2));
        return;
    }
    check_add(r, ok ? CHECK_OK : (needs_fuse(r) ? CHECK_FAIL : CHECK_WARN), needs_fuse(r),
              "/dev/fuse", ok ? NULL : DEV_FUSE_REMEDY, "mode %04o%s%s", st.st_mode & 07777,
              ok ? ", usable" : ": ", ok ? "" : strerror(e));
}

static const struct check_item *find_item(const struct check_report *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->items[i].name, name) == 0)
            return &r->items[i];
    return NULL;
}

/* What revrun.overlay can be on this host. */
static void summarize(struct check_report *r, bool fuse_ok)
{
    const struct check_item *n = find_item(r, "native overlay");
    bool native_ok = n != NULL && n->status == CHECK_OK;
    bool auto_needed = r->profile != NULL && r->profile->backend == RR_BACKEND_AUTO;

    if (native_ok && fuse_ok)
        check_add(r, CHECK_INFO, false, "backends", NULL,
                  "native and fuse: \"auto\" uses native overlayfs");
    else if (native_ok)
        check_add(r, CHECK_INFO, false, "backends", NULL,
                  "native only: \"auto\" uses native overlayfs; \"fuse\" cannot mount here");
    else if (fuse_ok)
        check_add(r, CHECK_INFO, false, "backends", NULL,
                  "fuse only: \"auto\" falls back to fuse-overlayfs (slower: see README, "
                  "\"Backends and host shapes\"); \"native\" cannot mount here");
    else
        check_add(r, CHECK_FAIL, auto_needed, "backends",
                  r->facts.kernel_major > 6 ||
                          (r->facts.kernel_major == 6 && r->facts.kernel_minor >= 6)
                      ? "install fuse-overlayfs and make /dev/fuse usable, or lift what refuses "
                        "the native overlay (the lines above)"
                      : "install fuse-overlayfs and make /dev/fuse usable (above), or run on "
                        "Linux 6.6+ where overlayfs mounts in user namespaces over tmpfs",
                  "none: neither overlay can mount here");
}

/* The real thing, in a child: true when fuse-overlayfs mounts and serves. */
static bool check_mount(struct check_report *r, const struct overlay_fuse_bin *bin)
{
    struct fuse_probe fp = {.bin = bin, .rootless = r->rootless};
    bool need = needs_fuse(r);
    char text[RR_ERROR_MSG_MAX + 64];
    const char *remedy = "see the error; revrun.overlay \"native\" does not need it";
    struct rr_error err;

    if (backend_in_child(probe_fuse_child, &fp, &err) == 0) {
        check_add(r, CHECK_OK, need, "fuse overlay", NULL,
                  "fuse-overlayfs mounts and serves, sandboxed as the container user");
        return true;
    }
    if (r->rootless && err.errnum == EACCES)
        remedy = DEV_FUSE_REMEDY;
    unsigned causes = check_cause_of(r, strstr(err.msg, "mount namespace") ? STEP_MOUNT_NS
                                                                           : STEP_FUSE,
                                     err.errnum);
    if (causes != 0)
        check_add_step(r, need ? CHECK_FAIL : CHECK_WARN, need, "fuse overlay", causes, "%s",
                       rr_error_text(&err, text, sizeof(text)));
    else
        check_add(r, need ? CHECK_FAIL : CHECK_WARN, need, "fuse overlay", remedy, "%s",
                  rr_error_text(&err, text, sizeof(text)));
    return false;
}

void check_fuse(struct check_report *r)
{
    struct overlay_fuse_bin bin;
    struct rr_error err;
    const char *override = getenv(BACKEND_FUSE_ENV);
    bool need = needs_fuse(r);
    char text[RR_ERROR_MSG_MAX + 64];

    if (overlay_fuse_find(override, &bin, &err) < 0) {
        check_add(r, need ? CHECK_FAIL : CHECK_WARN, need, "fuse-overlayfs",
                  "sudo apt-get install fuse-overlayfs (needed only where native overlay cannot "
                  "mount)",
                  "%s", rr_error_text(&err, text, sizeof(text)));
        summarize(r, false);
        return;
    }
    check_add(r, CHECK_OK, need, "fuse-overlayfs", NULL, "%s%s", bin.path,
              override != NULL ? " (from " BACKEND_FUSE_ENV ")" : "");
    check_dev_fuse(r);
    summarize(r, check_mount(r, &bin));
    close(bin.fd);
}
