/* revrun check: what this host can enforce, found without running anything
 * untrusted. Each probe adds lines to a report: what it found, and for a
 * failure its cause and its remedy. With a config, the command exits non-zero
 * when something the config needs is missing. */
#ifndef REVRUN_CHECK_H
#define REVRUN_CHECK_H

#include <stdbool.h>

#include "bundle/config.h"
#include "runtime/confine/profile.h"

enum check_status { CHECK_OK, CHECK_WARN, CHECK_FAIL, CHECK_INFO };

#define CHECK_MAX_ITEMS 64

struct check_item {
    enum check_status status;
    char name[64];
    char detail[512];
    char remedy[1024];
};

struct check_report {
    bool rootless;
    const struct profile *profile; /* NULL without --bundle */
    struct check_item items[CHECK_MAX_ITEMS];
    size_t n;
    bool needed_missing; /* a FAIL on something the config needs */
};

/* Add a line. `needed`: the config (if any) depends on it, so a FAIL makes
 * the command fail. Format strings are for the detail. */
void check_add(struct check_report *r, enum check_status st, bool needed, const char *name,
               const char *remedy, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* In a child: a user namespace with our uid mapped to 0, and a mount
 * namespace in it. Returns 0, or an errno with the failing step in msg. */
int check_enter_userns(char *msg, size_t len);

/* Probes: one function per subsystem, each in the file of its subsystem. */
void check_kernel(struct check_report *r);
void check_userns(struct check_report *r);
void check_overlay(struct check_report *r);
void check_seccomp(struct check_report *r);
void check_cgroups(struct check_report *r);
void check_egress(struct check_report *r);
void check_landlock(struct check_report *r);
void check_fuse(struct check_report *r);

#endif
