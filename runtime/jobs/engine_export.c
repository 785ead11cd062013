#include "runtime/jobs/engine_export.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/container/container.h"
#include "runtime/container/engine.h"
#include "runtime/container/engine_checkout.h"
#include "runtime/container/log.h"
#include "runtime/jobs/writeback_job.h"
#include "writeback/export/export.h"
#include "writeback/changeset/report.h"

/* A refused set: the directory holds the reasons, so the job that reads
 * the exports sees why there is no manifest. */
static void write_refusal(const char *dir, const struct wb_changeset *cs)
{
    struct rr_error err;
    int dfd, fd;
    FILE *f;

    if (mkdir(dir, 0700) < 0 ||
        (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        log_msg(LOG_ERROR, "io.revrun.export: %s: %s", dir, strerror(errno));
        return;
    }
    fd = openat(dfd, "refused.txt", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    close(dfd);
    if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
        log_msg(LOG_ERROR, "io.revrun.export: %s/refused.txt: %s", dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    if (wb_report_text(f, cs, &err) < 0)
        log_error(&err);
    if (fclose(f) != 0)
        log_msg(LOG_ERROR, "io.revrun.export: %s/refused.txt: %s", dir, strerror(errno));
}

static void export_now(struct rr_ctx *ctx, const char *id, const char *dir)
{
    struct wb_job run;
    struct wb_job_source none = {0};
    unsigned char digest[WB_SHA256_LEN];
    char hex[WB_SHA256_HEX], tmp[4096];
    struct rr_error err;
    bool done = false;

    /* into a fresh directory beside the name's claim, swapped in for it */
    if (engine_export_stage(dir, id, tmp, sizeof(tmp), &err) < 0) {
        log_error(&err);
        log_msg(LOG_ERROR, "io.revrun.export: %s: not exported", dir);
        return;
    }
    if (wb_job_vet(ctx, "io.revrun.export", &none, id, &run) != 0) {
        log_msg(LOG_ERROR, "io.revrun.export: %s: not exported", dir);
        engine_export_release(dir, id);
        return;
    }
    if (wb_changeset_refused(&run.scan.cs)) {
        wb_job_print_refusal(&run.scan.cs);
        write_refusal(tmp, &run.scan.cs);
        if (engine_export_publish(dir, id, tmp, &err) < 0)
            log_error(&err);
        log_msg(LOG_ERROR, "io.revrun.export: the change set is refused (reasons in "
                           "%s/refused.txt)", dir);
        done = true;
    } else if (wb_export(&run.scan, tmp, digest, &err) < 0 ||
               engine_export_publish(dir, id, tmp, &err) < 0) {
        log_error(&err);
        log_msg(LOG_ERROR, "io.revrun.export: %s: not exported", dir);
    } else {
        wb_hex(digest, sizeof(digest), hex);
        log_msg(LOG_INFO, "io.revrun.export: change set exported to %s (digest %s)", dir, hex);
        done = true;
    }
    if (!done)
        engine_export_release(dir, id);
    wb_job_release(&run);
}

void engine_export_at_delete(struct rr_ctx *ctx, const char *id)
{
    struct opened o;
    struct rr_error err;
    char dir[4096] = "";
    enum container_status st = STATUS_CREATING;
    int r = 0;

    if (open_container(ctx, id, false, &o, &err) < 0) {
        opened_close(&o);
        return; /* delete says what is wrong */
    }
    if (o.have_state && engine_state_is_engine(&o.state)) {
        r = engine_checkout_export_dir(o.dir, dir, sizeof(dir), &err);
        st = container_status_of(o.dir, &o.state);
    }
    opened_close(&o);
    if (r < 0) {
        log_error(&err);
        return;
    }
    if (dir[0] == '\0')
        return;
    if (st != STATUS_STOPPED) {
        log_msg(LOG_WARN, "io.revrun.export: %s: not exported (the container is deleted while %s; "
                          "the upper is vetted only once everything in it has stopped)",
                dir, container_status_name(st));
        engine_export_release(dir, id);
        return;
    }
    export_now(ctx, id, dir);
}
