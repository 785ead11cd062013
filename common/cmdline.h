/* /proc/PID/cmdline shows the memory where the kernel put argv. The
 * container's pid 1 is a clone of revrun, so without care the agent could
 * read revrun's command line there (/proc/1/cmdline is readable even from a
 * non-dumpable process): the state root, the bundle and checkout paths, the
 * operator's home. main() moves argv to the heap first thing, so nothing
 * points into that area any more; pid 1 then overwrites it. */
#ifndef REVRUN_CMDLINE_H
#define REVRUN_CMDLINE_H

/* Copy argv's strings to the heap (argv[i] then points there) and remember
 * the original area. Returns -1 when out of memory. */
int rr_cmdline_take(int argc, char **argv);

/* Overwrite the original area with name and NULs. */
void rr_cmdline_hide(const char *name);

#endif
