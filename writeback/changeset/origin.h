/* Where a change set comes from, bound into its digest with the changes
 * (manifest.h): the commit and tree the review ran on (the checkout's
 * HEAD), the review's id, and the agent's commits on top of that commit
 * (subjects and bodies), which `apply --commit` turns into the commit
 * message. The agent's text is kept escaped (common/escape.h): what the
 * manifest holds, a log shows and a commit message carries cannot drive a
 * terminal, reorder text or issue a CI log command. Pure. */
#ifndef REVRUN_WB_ORIGIN_H
#define REVRUN_WB_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "writeback/git/gitbase.h"
#include "writeback/git/gitinfo.h"

#define WB_ORIGIN_COMMITS WB_COMMITS_SHOWN       /* the agent's commits kept */
#define WB_SUBJECT_TEXT_MAX (4 * WB_SUBJECT_MAX) /* bytes of an escaped subject */
#define WB_BODY_TEXT_MAX 4096u                   /* bytes of an escaped body */

struct wb_agent_commit {
    char *subject; /* escaped, one line */
    char *body;    /* escaped lines joined by '\n', "" when none */
};

struct wb_origin {
    struct wb_git_at base; /* "" and "" when the review did not run on a commit */
    char *review;          /* the review's id (rr_id_valid), or NULL */
    struct wb_agent_commit commits[WB_ORIGIN_COMMITS]; /* newest first */
    size_t n_commits;
};

static inline bool wb_origin_has_base(const struct wb_origin *o)
{
    return o->base.commit[0] != '\0';
}

/* Keep a copy of id (which must be rr_id_valid). */
int wb_origin_set_review(struct wb_origin *o, const char *id, struct rr_error *err);

/* Keep one commit of the agent's (raw, hostile bytes), escaped: the subject
 * as one line, the body line by line, trailing blank lines dropped, cut at
 * WB_BODY_TEXT_MAX with a visible marker. Beyond WB_ORIGIN_COMMITS: -1. */
int wb_origin_add_commit(struct wb_origin *o, const char *subject, size_t slen, const char *body,
                         size_t blen, struct rr_error *err);

/* Keep text already escaped (a loaded manifest's), once wb_origin_text_ok. */
int wb_origin_add_escaped(struct wb_origin *o, const char *subject, const char *body,
                          struct rr_error *err);

/* Is s what escaping leaves: no byte rr_escape would change but a
 * backslash, no CR, and no newline unless multiline; within max bytes? */
bool wb_origin_text_ok(const char *s, size_t len, bool multiline, size_t max);

/* dst (empty) becomes a copy of src. */
int wb_origin_copy(struct wb_origin *dst, const struct wb_origin *src, struct rr_error *err);

void wb_origin_free(struct wb_origin *o);

#endif
