#include <stdbool.h>
#include <stdint.h>

#include "bundle/config.h"

/* Decimal digits with an optional binary unit (K, M, G, T; "KiB" spellings
 * too). Overflow and anything else is refused rather than clamped. */
bool parse_size(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    const char *p = s;

    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    switch (*p) {
    case '\0':
        break;
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default:
        return false;
    }
    if (shift != 0 && (p[0] == 'i' && p[1] == 'B'))
        p += 2;
    else if (shift != 0 && p[0] == 'B')
        p++;
    if (*p != '\0')
        return false;
    if (shift != 0 && v > (UINT64_MAX >> shift))
        return false;
    *out = v << shift;
    return true;
}
