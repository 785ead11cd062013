/* Reading an exec's path and argv out of the calling process's memory, as
 * the monitor does while the call waits for its answer
 * (process_vm_readv). Bounded whatever the process put there: each string
 * is kept up to a cap and scanned for its end at most up to the kernel's
 * own limit on one argument; the argv array is counted up to
 * ACT_ARGC_SCAN_MAX entries. */
#ifndef REVRUN_ACTIVITY_MEM_H
#define REVRUN_ACTIVITY_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/container/activity.h"

/* The kernel refuses an argument longer than this (MAX_ARG_STRLEN); a
 * string is scanned for its end no further. */
#define ACT_STRING_SCAN_MAX (32u * 4096u)
#define ACT_ARGC_SCAN_MAX (1u << 20)

struct act_argv {
    struct act_text argv[ACT_MAX_ARGS];
    size_t n;
    uint64_t argc;      /* entries before the NULL (up to ACT_ARGC_SCAN_MAX) */
    uint64_t bytes_cut; /* of the kept ones, bytes past ACT_MAX_ARG_BYTES */
    char buf[ACT_MAX_ARGS][ACT_MAX_ARG_BYTES];
};

/* The string at addr, up to cap bytes into buf (not NUL-terminated): *len
 * is what was kept, *cut how many bytes more it has (up to the scan
 * limit). -1 when not even its first byte can be read. */
int act_read_string(pid_t pid, uint64_t addr, char *buf, size_t cap, size_t *len,
                    uint64_t *cut);

/* argv at addr, entries of ptr_size bytes (8, or 4 for a 32-bit caller). A
 * NULL argv is an empty one; -1 when the array cannot be read at all. */
int act_read_argv(pid_t pid, uint64_t addr, unsigned ptr_size, struct act_argv *out);

#endif
