/* One ignore file's rules, parsed once per vet, and the quick "could a rule
 * of it ignore this path?" (gitmatch.h) answered from them with the cost
 * bounded: the agent writes both the merged view's ignore files and the
 * paths, so the rules x paths x depth product is its to choose, and only a
 * budget on the product (not on bytes or counts alone) bounds the vet.
 *
 * Parsing indexes the patterns whose matches a hash lookup finds: a literal
 * name ("node_modules", "Makefile.in"), "*" and a literal tail holding a dot
 * ("*.o", "*.tar.gz": found by the name's last dot), and a pattern with a
 * slash whose first component is literal ("build/x", "docs/api/v1": found by
 * the path's first component). The rest are tried one by one. The answer is
 * the reference scan's (wb_ignore_may_match) exactly: an index lookup only
 * skips the patterns that provably cannot match, and every candidate is
 * still matched by the same glob. */
#ifndef REVRUN_WB_GITRULES_H
#define REVRUN_WB_GITRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define WB_IGNORE_RULES_FILE 10000u  /* rules (non-blank, non-comment lines) of one ignore file */
#define WB_IGNORE_RULES_TOTAL 50000u /* of all of one rule set's */

/* Steps (gitmatch.h: a glob call and its turns; a byte hashed; a bucket
 * entry looked at) one vet may spend on the quick answers and, charged
 * WB_GIT2_RULE_STEPS a rule per component, on libgit2's: about a second of
 * CPU at most, where a realistic tree takes a few percent of it. */
#define WB_IGNORE_BUDGET (1ull << 27)
#define WB_GIT2_RULE_STEPS 8u

struct wb_ignore_budget {
    uint64_t used, max;
};

static inline bool wb_ignore_over(const struct wb_ignore_budget *b)
{
    return b->used > b->max;
}

struct wb_rules;

/* The rules of text[0..len) (borrowed: it must outlive them). E2BIG when it
 * holds more than max_rules rules. */
int wb_rules_parse(const char *text, size_t len, uint32_t max_rules, struct wb_rules **out,
                   struct rr_error *err);
void wb_rules_free(struct wb_rules *r);

/* How many rules libgit2 will evaluate (negations included). */
uint32_t wb_rules_count(const struct wb_rules *r);

/* Could a rule ignore rel[0..rlen) (relative to the file's directory) or a
 * directory above it? The steps spent are added to b; once past its max the
 * answer is true and meaningless: the caller checks wb_ignore_over. */
bool wb_rules_may_match(const struct wb_rules *r, const char *rel, size_t rlen,
                        struct wb_ignore_budget *b);

#endif
