#include "common/cpclass.h"

#include <stdbool.h>

struct range {
    uint32_t lo, hi;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct range bidi[] = {
    {0x061C, 0x061C}, /* ARABIC LETTER MARK */
    {0x200E, 0x200F}, /* LRM, RLM */
    {0x202A, 0x202E}, /* LRE, RLE, PDF, LRO, RLO */
    {0x2066, 0x2069}, /* LRI, RLI, FSI, PDI */
};

/* Cf (Unicode 15.1) less the bidi controls above, then the default
 * ignorables that are not Cf. */
static const struct range invisible[] = {
    {0x00AD, 0x00AD},   /* SOFT HYPHEN */
    {0x034F, 0x034F},   /* COMBINING GRAPHEME JOINER */
    {0x0600, 0x0605},   /* Arabic number signs */
    {0x06DD, 0x06DD},   /* ARABIC END OF AYAH */
    {0x070F, 0x070F},   /* SYRIAC ABBREVIATION MARK */
    {0x0890, 0x0891},   /* Arabic pound/piastre marks above */
    {0x08E2, 0x08E2},   /* ARABIC DISPUTED END OF AYAH */
    {0x115F, 0x1160},   /* HANGUL CHOSEONG/JUNGSEONG FILLER */
    {0x17B4, 0x17B5},   /* KHMER VOWEL INHERENT AQ/AA */
    {0x180B, 0x180F},   /* Mongolian free variation selectors, vowel separator */
    {0x200B, 0x200D},   /* ZWSP, ZWNJ, ZWJ */
    {0x2060, 0x2065},   /* WORD JOINER, invisible operators */
    {0x206A, 0x206F},   /* deprecated format characters */
    {0x3164, 0x3164},   /* HANGUL FILLER */
    {0xFE00, 0xFE0F},   /* variation selectors */
    {0xFEFF, 0xFEFF},   /* ZERO WIDTH NO-BREAK SPACE (BOM) */
    {0xFFA0, 0xFFA0},   /* HALFWIDTH HANGUL FILLER */
    {0xFFF0, 0xFFFB},   /* interlinear annotation */
    {0x110BD, 0x110BD}, /* KAITHI NUMBER SIGN */
    {0x110CD, 0x110CD}, /* KAITHI NUMBER SIGN ABOVE */
    {0x13430, 0x1345F}, /* Egyptian hieroglyph format controls */
    {0x1BCA0, 0x1BCA3}, /* shorthand format controls */
    {0x1D173, 0x1D17A}, /* musical symbol format controls */
    {0xE0000, 0xE0FFF}, /* tags, variation selectors supplement */
};

static const struct range confusable[] = {
    {0x00A0, 0x00A0},   /* NO-BREAK SPACE */
    {0x0701, 0x0702},   /* SYRIAC SUPRALINEAR/SUBLINEAR FULL STOP */
    {0x1680, 0x1680},   /* OGHAM SPACE MARK */
    {0x1735, 0x1735},   /* PHILIPPINE SINGLE PUNCTUATION (a slash) */
    {0x2000, 0x200A},   /* EN QUAD .. HAIR SPACE */
    {0x2024, 0x2026},   /* ONE DOT LEADER, TWO DOT LEADER, ELLIPSIS */
    {0x202F, 0x202F},   /* NARROW NO-BREAK SPACE */
    {0x2041, 0x2041},   /* CARET INSERTION POINT (a slash) */
    {0x2044, 0x2044},   /* FRACTION SLASH */
    {0x205F, 0x205F},   /* MEDIUM MATHEMATICAL SPACE */
    {0x2215, 0x2216},   /* DIVISION SLASH, SET MINUS (a backslash) */
    {0x2571, 0x2572},   /* box drawings diagonals */
    {0x27CB, 0x27CB},   /* MATHEMATICAL RISING DIAGONAL */
    {0x27CD, 0x27CD},   /* MATHEMATICAL FALLING DIAGONAL */
    {0x29F5, 0x29F5},   /* REVERSE SOLIDUS OPERATOR */
    {0x29F8, 0x29F9},   /* BIG SOLIDUS, BIG REVERSE SOLIDUS */
    {0x3000, 0x3000},   /* IDEOGRAPHIC SPACE */
    {0xA60E, 0xA60E},   /* VAI FULL STOP */
    {0xFE52, 0xFE52},   /* SMALL FULL STOP */
    {0xFE68, 0xFE68},   /* SMALL REVERSE SOLIDUS */
    {0xFF0E, 0xFF0F},   /* FULLWIDTH FULL STOP, FULLWIDTH SOLIDUS */
    {0xFF3C, 0xFF3C},   /* FULLWIDTH REVERSE SOLIDUS */
    {0xFF61, 0xFF61},   /* HALFWIDTH IDEOGRAPHIC FULL STOP */
    {0x10A50, 0x10A50}, /* KHAROSHTHI PUNCTUATION DOT */
    {0x1D16D, 0x1D16D}, /* MUSICAL SYMBOL COMBINING AUGMENTATION DOT */
    {0x1D20F, 0x1D20F}, /* GREEK VOCAL NOTATION SYMBOL-16 (a backslash) */
    {0x1D23A, 0x1D23B}, /* GREEK INSTRUMENTAL NOTATION SYMBOL-47/48 (slashes) */
};

static bool in(const struct range *r, size_t n, uint32_t cp)
{
    for (size_t i = 0; i < n && r[i].lo <= cp; i++)
        if (cp <= r[i].hi)
            return true;
    return false;
}

enum rr_cp_class rr_cp_class(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
        return RR_CP_CONTROL;
    if (cp < 0xA0)
        return RR_CP_OK;
    if (in(bidi, N(bidi), cp))
        return RR_CP_BIDI;
    if (in(invisible, N(invisible), cp))
        return RR_CP_INVISIBLE;
    if (in(confusable, N(confusable), cp))
        return RR_CP_CONFUSABLE;
    return RR_CP_OK;
}
