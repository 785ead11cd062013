#ifndef REVRUN_CAPS_H
#define REVRUN_CAPS_H

#include "common/error.h"

/* Make the effective set equal the permitted set (after a uid change with
 * PR_SET_KEEPCAPS, which keeps permitted but clears effective). */
int caps_raise_effective(struct rr_error *err);

/* Empty every set: bounding (so nothing can be regained), ambient,
 * inheritable, permitted and effective. Checked afterwards, not trusted. */
int caps_drop_all(struct rr_error *err);

#endif
