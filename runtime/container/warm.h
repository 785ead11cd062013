/* Warming the checkout's overlay before the agent looks at it.
 *
 * The first walk of a fresh overlay mount is slow even when the checkout
 * is in the page and dentry caches: every path looked up for the first
 * time through the overlay builds its overlay dentry and inode (looking in
 * the upper, then the lower). Measured on 100,000 files: the first `git
 * status` inside spends 1.0 s in the kernel against 0.39 s for the second,
 * all of it in the lstat of each tracked file (strace -c: same 102,118
 * newfstatat calls, 290 against 216 us each; bench/gitstatus.sh).
 *
 * So pid 1 forks a warmer beside the agent: confined exactly like it (the
 * same rlimits, Landlock, seccomp; it holds nothing but the checkout's
 * directory), at SCHED_IDLE so it only ever takes CPU the agent leaves
 * idle (an agent spends its first seconds starting up and waiting on its
 * model), it walks the checkout once, stating each entry, and exits. The
 * walk never follows a symlink, is bounded in entries and depth, and holds
 * one directory stream per level. One warmer per CPU the agent may run on
 * (at most WARM_MAX_WORKERS) shares the walk by directory, so an idle
 * start-up on a many-core runner warms that much sooner. */
#ifndef REVRUN_CONTAINER_WARM_H
#define REVRUN_CONTAINER_WARM_H

#include <stdbool.h>
#include <stddef.h>

#define WARM_MAX_ENTRIES 2000000u /* entries stated at most */
#define WARM_MAX_DEPTH 64u        /* directories deep */
#define WARM_MAX_WORKERS 8u       /* warmers at once */

/* Walk the tree beneath the directory top (taken), at most max_entries
 * entries and max_depth directories deep, and stat the entries of worker's
 * share of its directories (worker of workers); returns how many it
 * stated. The shares of 0..workers-1 together are every entry once. */
size_t warm_tree(int top, size_t max_entries, unsigned max_depth, unsigned worker,
                 unsigned workers);

#endif
