/* Exported change sets by the operator's name for them (changeset_dir.h). */
#include "runtime/jobs/changeset_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/container/log.h"
#include "runtime/jobs/writeback_job.h"
#include "writeback/changeset/manifest.h"
#include "writeback/changeset/report.h"
#include "writeback/export/export.h"
#include "writeback/patch/patch.h"
#include "writeback/rules/rules.h"

static bool holds_manifest(int dfd)
{
    return faccessat(dfd, WB_MANIFEST_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int changeset_dir_open(const char *path, struct rr_error *err)
{
    _cleanup_close_ int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int sub;

    if (dfd < 0)
        return rr_fail(err, errno, "%s", path);
    if (holds_manifest(dfd))
        return rr_steal_fd(&dfd);
    sub = openat(dfd, REVIEW_CHANGESET_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (sub >= 0 && holds_manifest(sub))
        return sub;
    if (sub >= 0)
        close(sub);
    return rr_fail(err, ENOENT, "%s holds no change set (no %s, no %s/%s)", path, WB_MANIFEST_NAME,
                   REVIEW_CHANGESET_DIR, WB_MANIFEST_NAME);
}

bool changeset_dir_named(const char *operand)
{
    struct rr_error ignored;
    int fd;

    if (strchr(operand, '/') != NULL)
        return true;
    fd = changeset_dir_open(operand, &ignored);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

int changeset_dir_load(int dfd, struct wb_changeset *cs, unsigned char digest[WB_SHA256_LEN],
                       struct rr_error *err)
{
    struct rr_writeback_policy pol;
    int r;

    if (writeback_policy_defaults(&pol, err) < 0)
        return -1;
    r = wb_manifest_load(dfd, &pol, cs, digest, err);
    if (r == 0)
        r = wb_rules_recheck(cs, &pol, err);
    writeback_policy_free(&pol);
    return r;
}

static int print_patch(int dfd, const struct wb_changeset *cs, struct rr_error *err)
{
    _cleanup_close_ int blobs =
        openat(dfd, WB_BLOBS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    struct wb_patch_src src = {.base_fd = blobs, .new_fd = blobs, .by_hash = true};

    if (blobs < 0)
        return rr_fail(err, errno, "%s", WB_BLOBS_DIR);
    if (wb_patch_write_src(stdout, cs, &src, err) < 0)
        return rr_wrap(err, "(an export made before exports kept the base's content cannot "
                            "show its patch)");
    return 0;
}

static int print(int dfd, const struct wb_changeset *cs, enum changeset_view view,
                 struct rr_error *err)
{
    if (view == CHANGESET_PATCH)
        return print_patch(dfd, cs, err);
    if (view == CHANGESET_JSON)
        return wb_report_json(stdout, cs, err);
    return wb_report_text(stdout, cs, err);
}

int changeset_dir_diff(const char *path, enum changeset_view view)
{
    struct wb_changeset cs = {0};
    unsigned char digest[WB_SHA256_LEN];
    _cleanup_close_ int dfd = -1;
    struct rr_error err;
    int r = -1;

    dfd = changeset_dir_open(path, &err);
    if (dfd >= 0 && changeset_dir_load(dfd, &cs, digest, &err) == 0)
        r = print(dfd, &cs, view, &err);
    if (r == 0 && fflush(stdout) != 0)
        r = rr_fail(&err, errno, "writing the output");
    wb_changeset_free(&cs);
    if (r < 0) {
        rr_wrap(&err, "diff: %s", path);
        log_error(&err);
        return WB_JOB_ERROR;
    }
    return WB_JOB_ACCEPT;
}
