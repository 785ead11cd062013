/* The change set as JSON: the canonical manifest whose SHA-256 is the digest
 * an operator approves, manifest.json of an export, and the objects of
 * `revrun diff --json`.
 *
 * Canonical manifest: {"version":1,["review":ID,]["base":{"commit":HEX,
 * "tree":HEX},]["commits":[{"subject":S,"body":B},...],]"changes":[...]}
 * written compactly by bundle/json.h (the origin, origin.h: present only
 * when known), changes sorted by path (wb_path_cmp), keys in one fixed
 * order, and only the keys that apply to each object's type:
 *   path, kind, type, [mode], [size, sha256 | target, sha256],
 *   base_type, [base_mode], [base_size, base_sha256 | base_target, base_sha256]
 * so the digest binds every path, kind, mode, content hash, base hash and
 * symlink target that apply acts on, and the commit, branch name and
 * message `apply --commit` writes. A loaded manifest is re-serialised from
 * the parsed values and hashed again: bytes that do not round-trip, unknown
 * keys or inconsistent kinds are refused, never interpreted. */
#ifndef REVRUN_WB_MANIFEST_H
#define REVRUN_WB_MANIFEST_H

#include "bundle/config.h"
#include "bundle/json.h"
#include "writeback/changeset/changeset.h"

#define WB_MANIFEST_VERSION 1
#define WB_MANIFEST_NAME "manifest.json"

/* Write one change as a JSON object (keys as above). */
void wb_json_change(struct json_writer *w, const struct wb_change *c);

/* A string from the tree: exact when it is valid UTF-8, otherwise in
 * json_w_bytes' escaped form (only refused sets hold such strings: vetting
 * refuses every name and target, new or base, that is not exact). */
void wb_json_text(struct json_writer *w, const char *s, size_t len);

/* Does wb_json_text write s as it is (so a loaded manifest gets it back)? */
bool wb_json_text_exact(const char *s, size_t len);

/* "review", "base", "commits": what of the origin is known. */
void wb_json_origin(struct json_writer *w, const struct wb_origin *o);

/* "changes": [every change of cs]. */
void wb_json_changes(struct json_writer *w, const struct wb_changeset *cs);

/* sha256 of the canonical manifest of cs (which must be sorted). */
int wb_changeset_digest(const struct wb_changeset *cs, unsigned char out[WB_SHA256_LEN],
                        struct rr_error *err);
/* The same as lower-case hex. */
int wb_changeset_digest_hex(const struct wb_changeset *cs, char hex[WB_SHA256_HEX],
                            struct rr_error *err);

/* manifest.json (pretty, with a "digest" member) into *out; the digest to
 * digest. */
int wb_manifest_render(const struct wb_changeset *cs, char **out, size_t *len,
                       unsigned char digest[WB_SHA256_LEN], struct rr_error *err);

/* Parse dirfd/manifest.json into cs (sorted), check that each change is
 * well-formed and within pol's caps, and that the recorded digest is the
 * digest of what was parsed; the digest goes to out. */
int wb_manifest_load(int dirfd, const struct rr_writeback_policy *pol, struct wb_changeset *cs,
                     unsigned char out[WB_SHA256_LEN], struct rr_error *err);

/* "sha256:HEX" or "HEX" (64 hex digits) into out; false otherwise. */
bool wb_digest_parse(const char *s, unsigned char out[WB_SHA256_LEN]);

#endif
