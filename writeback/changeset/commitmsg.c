#include "writeback/changeset/commitmsg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/escape.h"

static void put_indented(FILE *f, const char *text)
{
    while (*text != '\0') {
        const char *nl = strchr(text, '\n');
        size_t l = nl ? (size_t)(nl - text) : strlen(text);
        if (l > 0)
            fprintf(f, "    %.*s", (int)l, text);
        fputc('\n', f);
        text += l + (nl != NULL);
    }
}

static const char *subject_of(const struct wb_agent_commit *c)
{
    return c->subject[0] != '\0' ? c->subject : "(no subject)";
}

/* The changes kept (left_out NULL) or left out, one a line. */
static size_t put_changes(FILE *f, const struct wb_changeset *set, const bool *left_out,
                          bool want_left)
{
    size_t shown = 0, all = 0;

    for (size_t i = 0; i < set->n; i++) {
        const struct wb_change *c = &set->v[i];
        if ((left_out != NULL && left_out[i]) != want_left)
            continue;
        if (all++ >= WB_MSG_PATHS_SHOWN)
            continue;
        _cleanup_free_ char *p = rr_escape_dup(c->path, c->path_len);
        fprintf(f, "    %-10s %s%s\n", wb_kind_name(c->kind), p ? p : "?",
                c->new.type == WB_T_DIR ? "/" : "");
        shown++;
    }
    if (all > shown)
        fprintf(f, "    ... and %zu more\n", all - shown);
    return all;
}

static size_t count_kept(const struct wb_changeset *set, const bool *left_out)
{
    size_t n = 0;

    for (size_t i = 0; i < set->n; i++)
        n += left_out == NULL || !left_out[i];
    return n;
}

static void put_story(FILE *f, const struct wb_changeset *set, const bool *left_out)
{
    const struct wb_origin *o = &set->origin;
    size_t n = o->n_commits, kept = count_kept(set, left_out);

    if (n == 0) {
        fprintf(f, "Apply the agent's change set (%zu change%s)\n\n", kept, kept == 1 ? "" : "s");
        fputs("The agent made no commit; its change, as the review's summary lists it:\n\n", f);
        put_changes(f, set, left_out, false);
        return;
    }
    fprintf(f, "%s\n", subject_of(&o->commits[n - 1])); /* newest first: the oldest */
    if (n == 1) {
        if (o->commits[0].body[0] != '\0') {
            fputc('\n', f);
            put_indented(f, o->commits[0].body);
        }
        return;
    }
    fprintf(f, "\nThe agent's %zu commits, oldest first:\n", n);
    for (size_t i = n; i-- > 0;) {
        fprintf(f, "\n* %s\n", subject_of(&o->commits[i]));
        if (o->commits[i].body[0] != '\0') {
            fputc('\n', f);
            put_indented(f, o->commits[i].body);
        }
    }
}

int wb_commit_message(const struct wb_changeset *set, const bool *left_out, const char *digest_hex,
                      char **msg, size_t *len, struct rr_error *err)
{
    size_t left = set->n - count_kept(set, left_out);
    FILE *f = open_memstream(msg, len);

    if (f == NULL)
        return rr_fail(err, errno, "commit message");
    put_story(f, set, left_out);
    if (left > 0) {
        fprintf(f, "\nLeft out of this commit (approved with the set, not applied): %zu change%s\n",
                left, left == 1 ? "" : "s");
        put_changes(f, set, left_out, true);
    }
    fprintf(f, "\nRevrun-Digest: sha256:%s\n", digest_hex);
    if (set->origin.review != NULL)
        fprintf(f, "Revrun-Review: %s\n", set->origin.review);
    if (fclose(f) != 0) {
        free(*msg);
        *msg = NULL;
        return rr_fail(err, ENOMEM, "commit message");
    }
    return 0;
}

char *wb_commit_subject(const char *msg)
{
    return strndup(msg, strcspn(msg, "\n"));
}
