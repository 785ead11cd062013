/* A review run with sudo hands OUT to the user who ran sudo: everything
 * revrun wrote there (and OUT itself when revrun made it) is chowned to
 * SUDO_UID:SUDO_GID, so that `revrun apply OUT` and the CI's artifact
 * upload need no sudo. Only what revrun wrote: OUT's names from before the
 * run are left as they were. Done through directory fds, with no symlink
 * followed (a symlink is left alone: revrun writes none), with an explicit,
 * capped stack. */
#ifndef REVRUN_REVIEW_OUT_H
#define REVRUN_REVIEW_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

struct review_out {
    bool created;  /* revrun made OUT */
    bool listed;   /* before could be read: without it nothing is handed over */
    char **before; /* OUT's names before the run, sorted */
    size_t n_before;
};

/* Before anything is written into OUT. */
void review_out_note_before(int out_fd, bool created, struct review_out *o);

/* SUDO_UID and SUDO_GID when revrun runs as root under sudo: 1 and the ids,
 * or 0 (not under sudo, or the invoking user is root). */
int review_out_sudo_user(uid_t *uid, gid_t *gid);

/* Chown what revrun wrote in OUT to uid:gid. */
int review_out_hand_over(int out_fd, const struct review_out *o, uid_t uid, gid_t gid,
                         struct rr_error *err);

void review_out_free(struct review_out *o);

#endif
