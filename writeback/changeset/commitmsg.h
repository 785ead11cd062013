/* The message of the commit `apply --commit` writes, which the mail of
 * `export --format mbox` carries too. Made from the set's origin
 * (origin.h): the agent's commits on top of the base (one: its subject and
 * body; several: the oldest's subject, then each subject and body, oldest
 * first), or, when it made none, the changes as the summary lists them;
 * then what a partial apply left out; then the trailers
 *
 *   Revrun-Digest: sha256:HEX    the digest the operator approved
 *   Revrun-Review: ID            the review the set comes from (when known)
 *
 * as the last paragraph, where git's trailer parsing looks. The agent's
 * text is escaped already (origin.h); each of its body lines is indented
 * four spaces, so none can start a line git am would read as the end of
 * the message ("---", "diff -", "Index: "), an in-body header ("From:",
 * "Subject:") or an mbox separator ("From "), nor pass for a trailer.
 * Paths are escaped as everywhere. Pure. */
#ifndef REVRUN_WB_COMMITMSG_H
#define REVRUN_WB_COMMITMSG_H

#include <stdbool.h>
#include <stddef.h>

#include "writeback/changeset/changeset.h"

#define WB_MSG_PATHS_SHOWN 100 /* changes listed in a message, each list */

/* set: the whole approved set; left_out[i] (NULL: none) marks its changes
 * this commit leaves out; digest_hex: the set's digest. A new
 * NUL-terminated message ending in a newline. */
int wb_commit_message(const struct wb_changeset *set, const bool *left_out, const char *digest_hex,
                      char **msg, size_t *len, struct rr_error *err);

/* The message's first line, as a new string. */
char *wb_commit_subject(const char *msg);

#endif
