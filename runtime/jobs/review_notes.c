/* The agent's leftovers in review's outputs (review_notes.h). */
#include "runtime/jobs/review_notes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/escape.h"
#include "writeback/changeset/report.h"
#include "writeback/patch/patch.h"

void review_notes_upper(struct review_notes *n, int upper_fd, uint64_t cap)
{
    struct statfs st;

    n->upper_size = cap;
    if (upper_fd < 0 || fstatfs(upper_fd, &st) < 0)
        return;
    /* tmpfs fills to the last page before a write fails with ENOSPC; the
     * monitor's looks while the agent ran count too (SYNC_EXIT_UPPER_*) */
    n->upper_full = n->upper_full || (st.f_blocks > 0 && st.f_bfree == 0);
    n->inodes_full = n->inodes_full || (st.f_files > 0 && st.f_ffree == 0);
}

void review_notes_leftover_text(const struct review_notes *n, char *buf, size_t len)
{
    const char *p = n->leftover_names;
    size_t used;
    uint64_t shown = 0;

    buf[0] = '\0';
    if (n->leftover == 0)
        return;
    used = (size_t)snprintf(buf, len,
                            "the agent left %llu process%s running; revrun killed %s "
                            "at its exit:",
                            (unsigned long long)n->leftover, n->leftover == 1 ? "" : "es",
                            n->leftover == 1 ? "it" : "them");
    for (; *p != '\0' && used + 1 < len; shown++) {
        size_t l = strcspn(p, "\n");
        char esc[256];
        rr_escape(p, l, esc, sizeof(esc));
        used += (size_t)snprintf(buf + used, len - used, "%s %s", shown ? "," : "", esc);
        p += l + (p[l] == '\n');
    }
    if (used + 1 < len && n->leftover > shown)
        snprintf(buf + used, len - used, " and %llu more",
                 (unsigned long long)(n->leftover - shown));
}

static void put_notes(FILE *f, const struct review_notes *n)
{
    char line[SYNC_TEXT_MAX * 4 + 256];
    bool any = n->unfinished[0] || n->leftover || n->upper_full || n->inodes_full;

    if (!any)
        return;
    fputc('\n', f);
    if (n->unfinished[0] != '\0')
        fprintf(f, "%s\n", n->unfinished);
    review_notes_leftover_text(n, line, sizeof(line));
    if (line[0] != '\0')
        fprintf(f, "%s\n", line);
    if (n->upper_full)
        fprintf(f,
                "the agent filled the upper to its size cap (%llu bytes): writes past it "
                "failed, so files may be cut short\n",
                (unsigned long long)n->upper_size);
    if (n->inodes_full)
        fprintf(f, "the agent used every inode the upper allows: creating more files failed\n");
}

static FILE *create_in(int out_fd, const char *name, struct rr_error *err)
{
    int fd = openat(out_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    FILE *f;

    if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
        rr_fail(err, errno, "write %s", name);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    return f;
}

static int finish(FILE *f, const char *name, int rc, struct rr_error *err)
{
    if (fclose(f) != 0 && rc == 0)
        return rr_fail(err, errno, "write %s", name);
    return rc;
}

int review_notes_summary(int out_fd, const struct wb_changeset *cs, const struct review_notes *n,
                         struct rr_error *err)
{
    FILE *f = create_in(out_fd, "summary.txt", err);
    int rc;

    if (f == NULL)
        return -1;
    rc = wb_report_text_body(f, cs, err);
    if (rc == 0)
        put_notes(f, n);
    if (rc == 0)
        rc = wb_report_text_verdict(f, cs, err);
    return finish(f, "summary.txt", rc, err);
}

int review_notes_patch(int out_fd, const struct wb_scan *scan, struct rr_error *err)
{
    FILE *f = create_in(out_fd, REVIEW_PATCH_FILE, err);

    if (f == NULL)
        return -1;
    return finish(f, REVIEW_PATCH_FILE, wb_patch_write(f, scan, err), err);
}

void review_notes_limits_json(struct json_writer *w, const struct review_notes *n)
{
    if (n->upper_full)
        json_w_string(w, "upperSize");
    if (n->inodes_full)
        json_w_string(w, "upperInodes");
}

void review_notes_json(struct json_writer *w, const struct review_notes *n)
{
    const char *p = n->leftover_names;

    if (n->leftover == 0)
        return;
    json_w_key(w, "leftoverProcesses");
    json_w_begin_object(w);
    json_w_kv_uint(w, "killed", n->leftover);
    json_w_key(w, "names");
    json_w_begin_array(w);
    while (*p != '\0') {
        size_t l = strcspn(p, "\n");
        char esc[256];
        json_w_string(w, rr_escape(p, l, esc, sizeof(esc)));
        p += l + (p[l] == '\n');
    }
    json_w_end_array(w);
    json_w_end_object(w);
}
