/* io.revrun.checkout in engine mode: the host side of the overlaid
 * checkout. No revrun process outlives an engine's create, so the upper's
 * store (the same size-capped tmpfs as a review's, overlay/store.c) is
 * mounted on the container's state directory in create's own mount
 * namespace (the shim's or conmon's: the one their delete runs in), and
 * unmounted by delete. Once the container has stopped, `revrun diff` and
 * `export` read it there; io.revrun.export has delete export the vetted
 * change set into a fresh directory under the policy's exportRoot. */
#ifndef REVRUN_ENGINE_CHECKOUT_H
#define REVRUN_ENGINE_CHECKOUT_H

#include <stddef.h>

#include "common/error.h"
#include "overlay/overlay.h"
#include "runtime/confine/cgroup.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/confine/seccomp.h"
#include "runtime/container/backend.h"

#define ENGINE_EXPORT_FILE "export-dir"      /* where delete exports, one line */
#define ENGINE_FORMAT_FILE "checkout-backend" /* "native" or "fuse": the upper's format */
#define ENGINE_LOWER_FILE "checkout-lower"    /* "dev ino": the lower create overlaid */

struct engine_checkout {
    struct overlay_store store; /* upper/ and work/ */
    int lower_mfd;              /* native: the bind's source, idmapped, read-only */
    struct backend backend;     /* fuse: the daemon serving the view (backend_view) */
    struct seccomp_progs helper; /* the helpers' floor, the daemon's */
    bool have_backend;
};

void engine_checkout_init(struct engine_checkout *ck);

/* Mount the store on state_dir/STORE_DIR, choose the backend as a review
 * does (auto: native when the kernel mounts it over this checkout, else
 * fuse-overlayfs, its daemon in cg), open the lower or the view, check the
 * export root and record the export directory. Nothing without a checkout. */
int engine_checkout_open(const struct profile *p, int state_dir, const char *id,
                         const struct cgroup_plan *cg, struct engine_checkout *ck,
                         struct rr_error *err);
/* The view for the container's init, or -1 (native: it mounts the overlay). */
int engine_checkout_view(const struct engine_checkout *ck);
/* ok: the container holds what it needs, a fuse daemon is left serving it;
 * otherwise the daemon is stopped. */
void engine_checkout_close(struct engine_checkout *ck, bool ok);

/* The upper's format recorded at create ("fuse" or "native"), or NULL. */
const char *engine_checkout_backend(int state_dir, char *buf, size_t len);

/* Unmount the store when it is mounted there (delete, a failed create). */
int engine_checkout_unmount(int state_dir, struct rr_error *err);

/* The upper (O_PATH) of a container's store, once checked to be the
 * store's own tmpfs mounted there. */
int engine_checkout_open_upper(int state_dir, struct rr_error *err);

/* lower_fd (the checkout re-opened by path) is the tree create recorded,
 * or ESTALE. */
int engine_checkout_check_lower(int state_dir, int lower_fd, struct rr_error *err);

/* The export directory recorded at create; 0 and "" when there is none. */
int engine_checkout_export_dir(int state_dir, char *out, size_t len, struct rr_error *err);

/* The export's name is claimed at create (EXPORTROOT/NAME holding the
 * container's id; a second holder is refused naming the first). At delete:
 * stage gives tmp, a fresh path beside it to export into, once the claim
 * is checked to be id's; publish writes tmp/origin ("container ID") and
 * swaps tmp in for the claim atomically; release drops id's claim when
 * nothing is exported (a failed create, a refusal to vet). */
int engine_export_stage(const char *dir, const char *id, char *tmp, size_t len,
                        struct rr_error *err);
int engine_export_publish(const char *dir, const char *id, const char *tmp,
                          struct rr_error *err);
void engine_export_release(const char *dir, const char *id);

#endif
