/* Collision keys for names (CVE-2021-21300 class: two names that are
 * distinct on Linux land on the same file on macOS or Windows).
 *
 * Coverage, kept compact on purpose (no ICU): canonical decomposition (NFD)
 * of every precomposed letter in Latin-1 Supplement, Latin Extended-A/B,
 * Latin Extended Additional, Greek, Greek Extended, Cyrillic and the three
 * letter-like singletons (Ohm, Kelvin, Angstrom); simple case folding of
 * ASCII and those blocks; canonical ordering of combining marks; and the
 * code points HFS+ ignores (zero-width joiners, bidi embeddings, BOM).
 * Outside those blocks a code point is its own key, so e.g. two Hangul
 * spellings or compatibility forms (fullwidth letters) are not caught.
 *
 * Windows adds its own aliasing: the Win32 layer drops trailing dots and
 * spaces ("run.sh." is "run.sh") and "run.sh:x" is a stream of "run.sh".
 * Names ending in a dot or a space are refused outright (wb_name_problem);
 * the key still cuts a ":stream" suffix, because ':' is an ordinary byte on
 * Linux and refusing it would refuse real names, and strips trailing dots
 * and spaces left in front of the ':' or behind an ignorable code point. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/escape.h"
#include "writeback/names/names.h"

struct fold_decomp {
    uint16_t cp;
    uint16_t seq[4];
};

struct fold_pair {
    uint16_t from;
    uint16_t to;
};

#include "writeback/names/fold_table.h"

static int cmp_decomp(const void *k, const void *e)
{
    return (int)*(const uint32_t *)k - (int)((const struct fold_decomp *)e)->cp;
}

static int cmp_pair(const void *k, const void *e)
{
    return (int)*(const uint32_t *)k - (int)((const struct fold_pair *)e)->from;
}

static const struct fold_pair *find_pair(const struct fold_pair *t, size_t n, uint32_t cp)
{
    if (cp > 0xffff)
        return NULL;
    return bsearch(&cp, t, n, sizeof(*t), cmp_pair);
}

bool wb_cp_ignorable(uint32_t cp)
{
    return (cp >= 0x200c && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff;
}

static uint32_t fold_case(uint32_t cp)
{
    const struct fold_pair *p;

    if (cp >= 'A' && cp <= 'Z')
        return cp + 32;
    p = find_pair(fold_cases, RR_ARRAY_SIZE(fold_cases), cp);
    return p ? p->to : cp;
}

static unsigned ccc(uint32_t cp)
{
    const struct fold_pair *p;

    if (cp < 0x300 || cp > 0x36f) {
        p = find_pair(fold_ccc, RR_ARRAY_SIZE(fold_ccc), cp);
        return p ? p->to : 0;
    }
    p = find_pair(fold_ccc, RR_ARRAY_SIZE(fold_ccc), cp);
    return p ? p->to : 230; /* the table lists only the marks of this block that are not 230 */
}

/* Full decomposition of one code point, case-folded: at most 4 code points. */
static size_t decompose(uint32_t cp, uint32_t out[4])
{
    const struct fold_decomp *d = NULL;
    size_t n = 0;

    if (cp <= 0xffff)
        d = bsearch(&cp, fold_decomps, RR_ARRAY_SIZE(fold_decomps), sizeof(*d), cmp_decomp);
    if (d == NULL) {
        uint32_t f = fold_case(cp);
        if (f != cp)
            return decompose(f, out); /* a folded letter may decompose (one level) */
        out[0] = cp;
        return 1;
    }
    for (; n < 4 && d->seq[n] != 0; n++)
        out[n] = fold_case(d->seq[n]);
    return n;
}

/* Canonical ordering: a stable insertion sort of each run of marks by class. */
static void order_marks(uint32_t *cps, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t c = cps[i];
        unsigned k = ccc(c);
        size_t j = i;
        if (k == 0)
            continue;
        while (j > 0 && ccc(cps[j - 1]) > k) {
            cps[j] = cps[j - 1];
            j--;
        }
        cps[j] = c;
    }
}

static size_t utf8_put(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

char *wb_fold_key(const char *name, size_t len, size_t *keylen)
{
    const unsigned char *p = (const unsigned char *)name;
    /* Each input byte yields at most 4 code points (a 2-byte letter decomposes
     * to at most 4), so 4 per byte bounds the array. */
    _cleanup_free_ uint32_t *cps = malloc((len + 1) * 4 * sizeof(uint32_t));
    char *key;
    size_t n = 0, o = 0;

    if (cps == NULL)
        return NULL;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t k = rr_utf8_decode(p + i, len - i, &cp);
        if (k == 0)
            return NULL;
        i += k;
        if (cp == ':')
            break; /* NTFS: a stream of the name before it */
        if (!wb_cp_ignorable(cp))
            n += decompose(cp, cps + n);
    }
    while (n > 0 && (cps[n - 1] == '.' || cps[n - 1] == ' '))
        n--; /* Win32 drops them */
    order_marks(cps, n);
    key = malloc(n * 4 + 1);
    if (key == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        o += utf8_put(cps[i], key + o);
    key[o] = '\0';
    *keylen = o;
    return key;
}
