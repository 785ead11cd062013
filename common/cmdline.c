#include "common/cmdline.h"

#include <stdlib.h>
#include <string.h>

static char *area;
static size_t area_len;

int rr_cmdline_take(int argc, char **argv)
{
    char *end;

    if (argc <= 0)
        return 0;
    area = argv[0];
    end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
    area_len = (size_t)(end - area);
    for (int i = 0; i < argc; i++)
        if ((argv[i] = strdup(argv[i])) == NULL)
            return -1;
    return 0;
}

void rr_cmdline_hide(const char *name)
{
    size_t n = strlen(name);

    if (area == NULL)
        return;
    memset(area, 0, area_len);
    /* the area's last byte stays NUL: the kernel then shows no more than it */
    if (area_len > 1)
        memcpy(area, name, n < area_len - 1 ? n : area_len - 1);
}
