#include <errno.h>

#include "bundle/config.h"

/* The defaults: generous for a real review, bounded for a hostile one. */
int writeback_policy_defaults(struct rr_writeback_policy *p, struct rr_error *err)
{
    static const char *const protect[] = {".git/**", ".gitmodules"};
    static const char *const warn[] = {".gitattributes", ".github/workflows/**", ".gitignore"};

    *p = (struct rr_writeback_policy){
        .max_files = 10000,
        .max_file_bytes = 100ULL << 20,
        .max_total_bytes = 1ULL << 30,
        .max_depth = 64,
        .max_name_bytes = 255,
        .max_path_bytes = 4096,
    };
    for (size_t i = 0; i < sizeof(protect) / sizeof(protect[0]); i++)
        if (strv_push(&p->protect, protect[i]) < 0)
            goto oom;
    for (size_t i = 0; i < sizeof(warn) / sizeof(warn[0]); i++)
        if (strv_push(&p->warn, warn[i]) < 0)
            goto oom;
    return 0;
oom:
    writeback_policy_free(p);
    return rr_fail(err, ENOMEM, "write-back policy defaults");
}

void writeback_policy_free(struct rr_writeback_policy *p)
{
    strv_free(&p->protect);
    strv_free(&p->warn);
}
