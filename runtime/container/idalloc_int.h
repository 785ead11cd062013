/* Shared by idalloc.c (records of taken ids) and idalloc_claim.c (a pod's
 * later containers as holders of its block): the record directory's
 * helpers. Not for use outside those two files. */
#ifndef REVRUN_IDALLOC_INT_H
#define REVRUN_IDALLOC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

#define RECORD_MAX 8192
#define TMP_PREFIX ".tmp."

struct record {
    char cid[128];
    char root[4096];
    char text[RECORD_MAX + 1]; /* the whole record, for its init lines */
};

enum init_state { INIT_NONE, INIT_GONE, INIT_ALIVE, INIT_UNKNOWN };

int ida_open_dir(bool create, struct rr_error *err);
int ida_lock_dir(int dfd, struct rr_error *err);
bool ida_name_id(const char *name, uint32_t *id);
int ida_record_read(int fd, struct record *rec);
int ida_write_all(int fd, const char *text, size_t len);
/* fn(dfd, name, ctx) for each entry of the (locked) directory. */
int ida_each_entry(int dfd, int (*fn)(int, const char *, void *), void *ctx,
                   struct rr_error *err);
/* The "init PID START DEV:INO" lines of text: ALIVE when one lives, ... */
enum init_state ida_record_init(const char *text);
/* root/cid is a directory (seen from here). */
bool ida_state_present(const char *root, const char *cid);

/* ---- claims (idalloc_claim.c): "ID.CID" beside the record "ID" ---- */

struct claims {
    unsigned n;   /* claims of the block */
    bool busy;    /* one is held (flock): its create is under way */
    bool alive;   /* one's init lives */
    bool unknown; /* one's init was recorded in another pid namespace */
    bool state;   /* one's container state directory is there */
};

/* What the claims of block id say (the directory locked). */
void ida_claims_of(int dfd, uint32_t id, struct claims *c);
/* Unlink every claim of block id (the directory locked). */
void ida_claims_drop(int dfd, uint32_t id);
/* The block's first holder is gone (its release or its failed create):
 * the record goes unless claims remain; then it is marked released. */
void ida_creator_gone(int dfd, const char *name, uint32_t id);
/* name is a claim ("ID.CID"): *id and cid filled. */
bool ida_claim_name(const char *name, uint32_t *id, char *cid, size_t len);
/* The claim file name (the directory locked): released when it names
 * root/cid (then the record goes if it was the last holder), or removed
 * when its block has no record and nothing holds it. */
void ida_claim_release(int dfd, const char *name, const char *root, const char *cid);
void ida_claim_orphan(int dfd, const char *name);

#endif
