/* The checkout and the directory results go to, checked on the command
 * line before anything is made: a mistake there is a bad command line
 * (exit 2), never a sandbox that could not be set up. */
#ifndef REVRUN_CLI_PATHS_H
#define REVRUN_CLI_PATHS_H

#include <stdbool.h>

/* --lower is an existing directory; OUT (the value of --out, flag names
 * it in messages) is neither inside it nor holds it, by device and inode
 * up the parents (a symlink or a second path to the same directory counts
 * as the same), so the agent never reads what revrun writes there while
 * it runs (its own log, the results), and what revrun copies to OUT never
 * lands in the checkout. A directory not made yet is judged by its nearest
 * existing parent. results: OUT must not hold a review's result.json.
 * Reports and returns false. */
bool cli_paths_apart(const char *cmd, const char *lower, const char *flag, const char *out,
                     bool results);

#endif
