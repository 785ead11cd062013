/* The commit `apply --commit` would write, as a mail `git am` applies on
 * any clone at the base, giving the same tree: git format-patch's layout
 * (an mbox "From " line, From/Date/Subject headers, the message, "---",
 * the patch of patch.h, a base-commit line). The message is the one of
 * changeset/commitmsg.h, whose lines can neither end the message early
 * nor pass for a header in the body (the agent's are indented). Non-ASCII
 * in a header is an RFC 2047 encoded word; the body is declared UTF-8,
 * 8bit. Binary and unsafe content travels as "GIT binary patch" literals
 * with full index lines, which git am requires (a carriage return is
 * unsafe: mail would strip it from a text hunk). */
#ifndef REVRUN_WB_MBOX_H
#define REVRUN_WB_MBOX_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "writeback/changeset/changeset.h"
#include "writeback/patch/patch.h"

struct wb_mail {
    const char *name, *email; /* the author */
    time_t when;
    const char *message; /* subject line, blank line, body (commitmsg.h) */
};

/* The mail of cs (the part to carry) read from src. */
int wb_mbox_write(FILE *out, const struct wb_mail *m, const struct wb_changeset *cs,
                  const struct wb_patch_src *src, struct rr_error *err);

/* A header's text as it may stand in a mail: as it is when it is printable
 * ASCII without "=?" (and, a phrase such as From:'s name, without a
 * special: ()<>[]:;@\,."), else one RFC 2047 encoded word (UTF-8, Q). Pure. */
void wb_mail_header_text(FILE *out, const char *s, bool phrase);

#endif
