#ifndef REVRUN_CAPS_H
#define REVRUN_CAPS_H

#include "common/error.h"

/* Make the effective set equal the permitted set (after a uid change with
 * PR_SET_KEEPCAPS, which keeps permitted but clears effective). */
int caps_raise_effective(struct rr_error *err);

/* Empty every set: bounding (so nothing can be regained), ambient,
 * inheritable, permitted and effective. Checked afterwards, not trusted. */
int caps_drop_all(struct rr_error *err);

/* Set exactly these masks (bits by CAP_* number): sets[0] bounding, [1]
 * effective, [2] inheritable, [3] permitted, [4] ambient. Needs CAP_SETPCAP
 * effective on entry. Checked afterwards, not trusted. */
#include <stdint.h>
int caps_set_masks(const uint64_t sets[5], struct rr_error *err);

#endif
