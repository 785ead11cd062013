#include "runtime/jobs/mail_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/container/log.h"
#include "runtime/jobs/apply_job.h"
#include "writeback/apply/gitcommit.h"
#include "writeback/changeset/commitmsg.h"
#include "writeback/changeset/manifest.h"
#include "writeback/export/export.h"
#include "writeback/patch/mbox.h"

/* --author, else git's user.name and user.email: 0, or -1 after saying so. */
static int author_of(const char *opt, char **name, char **email)
{
    struct rr_error err;
    int r;

    if (opt != NULL) {
        if (wb_ident_parse(opt, name, email))
            return 0;
        log_msg(LOG_ERROR, "--author %s: expected \"Name <email>\"", opt);
        return -1;
    }
    if ((r = wb_ident_default(name, email, &err)) == 1)
        return 0;
    if (r < 0)
        log_error(&err);
    log_msg(LOG_ERROR, "no author for the mail: pass --author \"Name <email>\", or set "
                       "user.name and user.email (git config --global)");
    return -1;
}

/* The mail of part (of the whole set, whose digest it carries). */
static int mail(const struct wb_changeset *whole, const struct wb_changeset *part, const bool *left,
                const struct wb_patch_src *src, const char *author)
{
    _cleanup_free_ char *name = NULL, *email = NULL, *msg = NULL;
    char hex[WB_SHA256_HEX];
    struct rr_error err;
    size_t len;

    if (author_of(author, &name, &email) < 0)
        return WB_JOB_ERROR;
    if (wb_changeset_digest_hex(whole, hex, &err) < 0 ||
        wb_commit_message(whole, left, hex, &msg, &len, &err) < 0) {
        log_error(&err);
        return WB_JOB_ERROR;
    }
    struct wb_mail m = {.name = name, .email = email, .when = time(NULL), .message = msg};
    if (wb_mbox_write(stdout, &m, part, src, &err) < 0) {
        rr_wrap(&err, "the mail");
        log_error(&err);
        return WB_JOB_ERROR;
    }
    return WB_JOB_ACCEPT;
}

int wb_job_mail_live(const struct wb_scan *s, const char *author)
{
    const struct wb_patch_src src = {.base_fd = s->lower_fd, .new_fd = s->upper_fd};

    return mail(&s->cs, &s->cs, NULL, &src, author);
}

int wb_job_mail_export(const char *dir, const char *author, const struct wb_subset_spec *part)
{
    struct wb_changeset cs = {0}, sub = {0};
    unsigned char digest[WB_SHA256_LEN];
    _cleanup_close_ int dfd = -1, blobs = -1;
    _cleanup_free_ bool *left = NULL;
    struct wb_patch_src src;
    int r = WB_JOB_ERROR;

    if (wb_job_load_export("export", dir, &cs, digest, &dfd) < 0)
        goto out;
    if ((blobs = openat(dfd, WB_BLOBS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        log_msg(LOG_ERROR, "export: %s/%s: %s", dir, WB_BLOBS_DIR, strerror(errno));
        goto out;
    }
    src = (struct wb_patch_src){.base_fd = blobs, .new_fd = blobs, .by_hash = true};
    if ((left = calloc(cs.n + 1, sizeof(bool))) == NULL)
        goto out;
    r = wb_job_take_part(&cs, part, &sub, left);
    if (r == WB_JOB_ACCEPT)
        r = mail(&cs, wb_subset_wanted(part) ? &sub : &cs, left, &src, author);
out:
    wb_changeset_free(&sub);
    wb_changeset_free(&cs);
    return r;
}
