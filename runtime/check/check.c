#include "runtime/check/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void check_add(struct check_report *r, enum check_status st, bool needed, const char *name,
               const char *remedy, const char *fmt, ...)
{
    struct check_item *it;
    va_list ap;

    if (r->n == CHECK_MAX_ITEMS)
        return;
    it = &r->items[r->n++];
    it->status = st;
    snprintf(it->name, sizeof(it->name), "%s", name);
    va_start(ap, fmt);
    vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
    va_end(ap);
    snprintf(it->remedy, sizeof(it->remedy), "%s", remedy ? remedy : "");
    if (st == CHECK_FAIL && needed)
        r->needed_missing = true;
}
