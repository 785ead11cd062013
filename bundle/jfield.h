/* Typed, path-aware access to a parsed JSON tree, for the config parser.
 * Every error names the JSON path ("linux.resources.pids.limit") and what was
 * wrong, so that a bad config.json is fixed from the message alone. */
#ifndef REVRUN_JFIELD_H
#define REVRUN_JFIELD_H

#include <stdbool.h>
#include <stdint.h>

#include "bundle/config.h"
#include "bundle/json.h"

#define JPATH_MAX 256

/* parent + "." + key, or parent + "[i]". */
void jpath_key(char *out, const char *parent, const char *key);
void jpath_index(char *out, const char *parent, size_t i);

/* Refuse keys not in allowed (NULL-terminated). */
int jf_only_keys(const struct json_node *obj, const char *path, const char *const *allowed,
                 struct rr_error *err);

int jf_expect(const struct json_node *n, enum json_type t, const char *path, struct rr_error *err);

/* Members. `present` (may be NULL) tells whether the key was there; absent
 * optional members leave *out untouched. */
int jf_string(const struct json_node *obj, const char *key, const char *path, bool required,
              char **out, struct rr_error *err);
int jf_bool(const struct json_node *obj, const char *key, const char *path, bool *out,
            bool *present, struct rr_error *err);
int jf_u32(const struct json_node *obj, const char *key, const char *path, bool required,
           uint32_t *out, struct rr_error *err);
int jf_i64(const struct json_node *obj, const char *key, const char *path, int64_t min,
           int64_t *out, struct rr_error *err);
int jf_u64(const struct json_node *obj, const char *key, const char *path, uint64_t *out,
           bool *present, struct rr_error *err);
int jf_strv(const struct json_node *obj, const char *key, const char *path, struct rr_strv *out,
            struct rr_error *err);
/* A list of strings that may also be written as one string. */
int jf_strv_or_string(const struct json_node *obj, const char *key, const char *path,
                      struct rr_strv *out, struct rr_error *err);
/* A relative path below a directory revrun writes into (HOME): components
 * of printable bytes, none empty, "." or "..", at most 255 bytes each and
 * 1024 in all. */
int jf_check_rel_path(const char *value, const char *path, struct rr_error *err);
/* revrun.homeFiles and revrun.artifacts (also a preset's homeFiles and
 * artifacts: one rule for both). */
int config_parse_home_files(const struct json_node *hf, const char *path,
                            struct rr_home_file **out, size_t *n_out, struct rr_error *err);
int config_parse_artifacts(const struct json_node *obj, const char *parent, struct rr_strv *out,
                           struct rr_error *err);
/* A size: an integer of bytes or a string like "512M". */
int jf_size(const struct json_node *obj, const char *key, const char *path, uint64_t *out,
            struct rr_error *err);

/* An absolute path without "." or ".." components and without empty ones
 * other than a trailing slash: what a destination inside the container or a
 * host source must look like. */
int jf_check_abs_path(const char *value, const char *path, struct rr_error *err);

#endif
