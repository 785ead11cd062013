/* The monotonic clock in milliseconds: deadlines and periodic looks. */
#ifndef REVRUN_COMMON_CLOCK_H
#define REVRUN_COMMON_CLOCK_H

#include <stdint.h>

int64_t rr_mono_ms(void);

#endif
