/* `revrun export`: an accepted change set as a directory that outlives the
 * bundle: manifest.json (with its digest) and blobs/<sha256> for every file
 * content it places and every base file content it changes or removes (so
 * `revrun diff --patch DIR` can show the change), each verified against the
 * vetted hash while copied. Only the new content is ever applied. A CI job
 * exports; an operator approves the digest later, elsewhere. */
#ifndef REVRUN_WB_EXPORT_H
#define REVRUN_WB_EXPORT_H

#include "writeback/base/hash.h"
#include "writeback/scan/scan.h"

#define WB_BLOBS_DIR "blobs"

/* dir must not exist; it is created 0700. On failure nothing is left. */
int wb_export(const struct wb_scan *s, const char *dir, unsigned char digest[WB_SHA256_LEN],
              struct rr_error *err);

#endif
