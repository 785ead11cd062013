/* Pure checks on names and paths from the upper, the checkout or a manifest:
 * which names are refused, which count as ".git", and the key under which two
 * names clobber each other on a case-insensitive or normalising filesystem. */
#ifndef REVRUN_WB_NAMES_H
#define REVRUN_WB_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bundle/config.h"

/* Walk the components of path[0..len): from *pos (start at 0), the next one
 * is *c[0..*clen) (possibly empty); false past the last. The prefix ending
 * with it is path[0..*c - path + *clen). */
bool wb_next_component(const char *path, size_t len, size_t *pos, const char **c, size_t *clen);

/* Why one path component is refused, or NULL: empty, "." or "..", a slash
 * or a backslash, invalid UTF-8, a C0/C1 control or DEL (newlines
 * included), a Unicode line or paragraph separator, a bidirectional
 * control, an invisible format character, a lookalike of a slash,
 * backslash, dot or space (common/cpclass.h), a trailing dot or space
 * (Windows drops them), or longer than max_bytes. */
const char *wb_name_problem(const char *name, size_t len, size_t max_bytes);

/* Why a relative path is refused, or NULL: a leading or doubled slash, a
 * component refused above, more than max_depth components or more than
 * max_path_bytes bytes. */
const char *wb_path_problem(const char *path, size_t len, const struct rr_writeback_policy *pol);

/* Why a symlink target is refused, or NULL: empty, longer than the path
 * cap, a backslash anywhere, or a component (other than ".", ".." and empty)
 * refused as a name. */
const char *wb_target_problem(const char *target, size_t len,
                              const struct rr_writeback_policy *pol);

/* The refusal code for a reason the three functions above gave: "backslash",
 * "bidi", "invisible" and "confusable" are classes of their own; code
 * otherwise. */
const char *wb_problem_code(const char *why, const char *code);

/* True when git, or a checkout of it on macOS or Windows, would take this
 * name as ".git": any case, HFS+-ignorable code points anywhere, trailing
 * dots, spaces or a ":stream" suffix (NTFS), and the 8.3 short name "git~1". */
bool wb_name_is_dotgit(const char *name, size_t len);

/* True when any component of path is a .git name (see above). */
bool wb_path_has_dotgit(const char *path, size_t len);

/* name as macOS and Windows resolve it (writeback/names/canon.c): ASCII
 * lower-cased, HFS+-ignorable code points dropped, a ":stream" suffix cut,
 * trailing dots and spaces stripped, and the NTFS 8.3 aliases of the names
 * git guards spelled out ("gitmod~1" and "gi7eba~1" are ".gitmodules",
 * "git~1" is ".git"). Other bytes are kept. NUL-terminated into out; false
 * when it does not fit in outlen - 1 bytes. */
bool wb_name_canon(const char *name, size_t len, char *out, size_t outlen);

/* The name's comparison key on case-insensitive, normalisation-insensitive
 * filesystems (NFD of the Latin, Greek and Cyrillic blocks, simple case
 * folding, HFS+-ignorable code points dropped) and on NTFS (a ":stream"
 * suffix cut, trailing dots and spaces stripped), as UTF-8 in a new
 * allocation of *keylen bytes. NULL on ENOMEM or when name is not valid
 * UTF-8. */
char *wb_fold_key(const char *name, size_t len, size_t *keylen);

/* Code points HFS+ ignores in names (zero-width joiners, bidi embeddings and
 * overrides, the BOM): ".g\u200cit" is ".git" there. */
bool wb_cp_ignorable(uint32_t cp);

#endif
