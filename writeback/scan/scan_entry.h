/* Per-entry checks of the walk (scan_entry.c). */
#ifndef REVRUN_WB_SCAN_ENTRY_H
#define REVRUN_WB_SCAN_ENTRY_H

#include <stdbool.h>
#include <sys/stat.h>

#include "writeback/scan/scan_int.h"

struct sc_entry {
    int fd;    /* the entry itself when open, else -1 */
    int dirfd; /* its directory in the upper */
    const char *name;
    const struct stat *st;
    size_t len; /* its path is sc->path[0..len); 0 for the top */
};

struct sc_marks {
    bool opaque; /* directory hides the lower one */
    bool refused;
};

int sc_check_xattrs(struct scanner *sc, const struct sc_entry *e, struct sc_marks *m);
int sc_check_mode(struct scanner *sc, const struct sc_entry *e, bool inherited_sgid, bool *refused);
int sc_check_links(struct scanner *sc, const struct sc_entry *e, bool *refused);
int sc_check_readable(struct scanner *sc, const struct sc_entry *e, bool *refused);

#endif
