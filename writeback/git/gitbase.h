/* The commit a checkout is at, and its tree: the base a change set is made
 * on (manifest.h binds it into the digest), and, read the same way, the
 * commit an apply TARGET is at. The checkout's .git is hostile: HEAD is
 * read by gitlog's bounded ref reading (a few symbolic hops, packed-refs
 * capped); the commit object loose (WB_LOOSE_MAX compressed, WB_COMMIT_MAX
 * inflated) or out of the checkout's packs (gitpack.h: every cost capped),
 * and its SHA-1 checked against the id before its tree line is believed. A
 * worktree checkout (.git a gitfile) is followed only as common/gitwt.h
 * allows. No libgit2: nothing here needs more than a hash and a line. */
#ifndef REVRUN_WB_GITBASE_H
#define REVRUN_WB_GITBASE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define WB_OID_HEX 41 /* 40 lower-case hex digits and a NUL */

struct wb_git_at {
    char commit[WB_OID_HEX];
    char tree[WB_OID_HEX];
};

/* The commit and tree of the checkout at dir_fd (any fd of the directory,
 * O_PATH will do): 1 and *at; 0 when there is none to be had, why[] saying
 * why in an operator's words (not a git checkout, an unborn HEAD, a commit
 * not read within the bounds); -1 on an error (ENOMEM, EIO). */
int wb_git_base(int dir_fd, struct wb_git_at *at, char *why, size_t whylen, struct rr_error *err);

/* The tree a commit object's body names on its first line ("tree HEX\n"),
 * into tree: true, or false when the body does not start so. Pure. */
bool wb_commit_tree(const char *body, size_t len, char tree[WB_OID_HEX]);

/* git's id of an object: SHA-1 of "TYPE LEN\0" and the body, as hex. Pure. */
void wb_git_object_id(const char *type, const void *body, size_t len, char hex[WB_OID_HEX]);

/* 40 lower-case hex digits and nothing else. Pure. */
bool wb_oid_hex_ok(const char *s, size_t len);

#endif
