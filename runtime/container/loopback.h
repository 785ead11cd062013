/* Bring up the loopback interface of the network namespace the caller is
 * in: a new network namespace starts with lo down. */
#ifndef REVRUN_LOOPBACK_H
#define REVRUN_LOOPBACK_H

#include "common/error.h"

int loopback_up(struct rr_error *err);

#endif
