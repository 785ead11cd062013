#include "runtime/jobs/review_activity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/container/activity.h"
#include "runtime/container/log.h"
#include "runtime/jobs/activity_summary.h"

/* report.json (the change set's report) is small next to this cap. */
#define REPORT_MAX (64u << 20)

static int append_summary(int out_fd, const struct act_summary *s, struct rr_error *err)
{
    int fd = openat(out_fd, "summary.txt",
                    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    FILE *f;

    if (fd < 0 || (f = fdopen(fd, "a")) == NULL) {
        if (fd >= 0)
            close(fd);
        return rr_fail(err, errno, "summary.txt");
    }
    act_summary_text(f, s);
    if (fclose(f) != 0)
        return rr_fail(err, errno, "summary.txt");
    return 0;
}

/* report.json is one JSON object revrun wrote: the member goes in before
 * its closing brace. */
static int add_to_report(int out_fd, const struct act_summary *s, struct rr_error *err)
{
    _cleanup_free_ char *report = NULL;
    _cleanup_free_ char *member = NULL;
    _cleanup_free_ char *joined = NULL;
    struct json_writer *w;
    size_t len, mlen, end;
    int r;

    if (rr_read_file(out_fd, "report.json", REPORT_MAX, &report, &len, err) < 0)
        return err->errnum == ENOENT ? 0 : -1; /* not vetted: nothing to add to */
    for (end = len; end > 0 && report[end - 1] != '}'; end--)
        ;
    if (end < 2)
        return rr_fail(err, EINVAL, "report.json: not an object");
    w = json_writer_new(false);
    if (w == NULL)
        return rr_fail(err, ENOMEM, "report.json");
    act_summary_json(w, s);
    r = json_writer_finish(w, &member, &mlen, err);
    json_writer_free(w);
    if (r < 0)
        return -1;
    joined = malloc(end + mlen + 32);
    if (joined == NULL)
        return rr_fail(err, ENOMEM, "report.json");
    len = (size_t)snprintf(joined, end + mlen + 32, "%.*s,\"activity\":%s}\n", (int)(end - 1),
                           report, member);
    return rr_write_atomic(out_fd, "report.json", joined, len, 0600, err);
}

/* revrun.activity "off": said, so nobody takes the missing file for an
 * agent that ran nothing. */
static void note_off(int out_fd)
{
    static const char line[] = "activity: not recorded (revrun.activity is \"off\")\n";
    int fd = openat(out_fd, "summary.txt",
                    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);

    if (fd >= 0) {
        (void)rr_write_all(fd, line, sizeof(line) - 1);
        close(fd);
    }
}

void review_keep_activity(const struct rr_ctx *ctx, const char *id, int out_fd)
{
    _cleanup_free_ char *text = NULL;
    struct act_summary s;
    struct rr_error err;
    size_t len;

    if (container_read_activity(ctx, id, &text, &len, &err) < 0) {
        if (err.errnum != ENOENT)
            log_error(&err);
        else
            note_off(out_fd);
        return;
    }
    if (rr_write_atomic(out_fd, ACTIVITY_FILE, text, len, 0600, &err) < 0 ||
        act_summary_load(text, len, &s, &err) < 0) {
        log_error(&err);
        return;
    }
    if (append_summary(out_fd, &s, &err) < 0 || add_to_report(out_fd, &s, &err) < 0)
        log_error(&err);
    act_summary_free(&s);
}
