/* The rules that look at the change set as a whole (rules.c, collide.c),
 * run after the walk: caps on the number of changes, .git and the
 * operator's protect and warn globs, symlinks resolved through the merged
 * tree, parents that are symlinks, embedded repositories (embedded.c),
 * and names that collide on a
 * case-insensitive or normalising checkout. Refusals and warnings are added
 * to s->cs. */
#ifndef REVRUN_WB_RULES_H
#define REVRUN_WB_RULES_H

#include "writeback/scan/scan.h"

int wb_rules_run(struct wb_scan *s, struct rr_error *err);

/* Name collisions among the merged directories that gain a new name. */
int wb_rules_collisions(struct wb_scan *s, struct rr_error *err);

/* The net under the rules, last step of wb_vet: a set the rules let through
 * that wb_rules_recheck (what apply runs) would refuse is refused here
 * ("apply-recheck"), so diff/export never accept what apply refuses. */
int wb_rules_apply_net(struct wb_scan *s, struct rr_error *err);

/* Scan + rules, notes sorted: the whole vetting of an upper. */
int wb_vet(const struct wb_scan_input *in, struct wb_scan *out, struct rr_error *err);

/* The rules that need no tree (apply's re-check of a loaded manifest): paths,
 * .git, caps, symlink targets judged on their own text. */
int wb_rules_recheck(struct wb_changeset *cs, const struct rr_writeback_policy *pol,
                     struct rr_error *err);

#endif
