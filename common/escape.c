#include "common/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpclass.h"

#define TRUNC_MARK "...[truncated]"

size_t rr_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
    size_t need;
    uint32_t v;

    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        need = 2;
        v = s[0] & 0x1f;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        need = 3;
        v = s[0] & 0x0f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        need = 4;
        v = s[0] & 0x07;
    } else {
        return 0;
    }
    if (avail < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if ((need == 3 && v < 0x800) || (need == 4 && v < 0x10000) || v > 0x10ffff ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return need;
}

/* Code points a terminal may act on or that disguise the text around them
 * (common/cpclass.h): C0/C1 controls, DEL, line/paragraph separators, bidi
 * formatting characters (the "Trojan Source" class), invisible format
 * characters and lookalikes of a slash, backslash, dot or space: shown as
 * \xHH, so what a person reads is the bytes. */
static bool shown_as_is(uint32_t cp)
{
    return rr_cp_class(cp) == RR_CP_OK;
}

size_t rr_escape_size(size_t len)
{
    /* rr_escape writes the whole text when it fits, so four bytes per
     * input byte and the NUL are enough. */
    return len * 4 + 1;
}

/* CI log commands: GitHub's runner acts on "##[name]" anywhere in a line
 * (the legacy form) and on "::name::" at the start of one, after blanks;
 * Azure Pipelines on "##vso[area.action]" and TeamCity on "##teamcity[...]"
 * anywhere in a line. Text escaped here cannot hold any of them: the first
 * '#' of "##" before '[' or a letter (every such form, and any later one
 * shaped alike) and the first ':' of a leading "::" are shown as \x23 and
 * \x3a. lead: only spaces came before p in this text (the caller may print
 * it at the start of a line). */
static bool log_command_at(const unsigned char *p, size_t avail, bool lead)
{
    if (avail >= 3 && p[0] == '#' && p[1] == '#' &&
        (p[2] == '[' || (p[2] >= 'a' && p[2] <= 'z') || (p[2] >= 'A' && p[2] <= 'Z')))
        return true;
    return lead && avail >= 2 && p[0] == ':' && p[1] == ':';
}

/* One escaped sequence: up to four bytes (the longest UTF-8 sequence) of
 * four characters each, and the NUL snprintf writes. */
#define PIECE_MAX (4 * 4 + 1)

/* The input sequence at p as it is shown, into piece (PIECE_MAX bytes);
 * *used is the input bytes it covers. */
static size_t piece_at(const unsigned char *p, size_t avail, bool lead, char *piece,
                       size_t *used)
{
    uint32_t cp = 0;
    size_t n = rr_utf8_decode(p, avail, &cp), plen = 0;

    if (log_command_at(p, avail, lead)) {
        plen = (size_t)snprintf(piece, PIECE_MAX, "\\x%02x", p[0]);
        n = 1;
    } else if (n > 0 && cp == '\\') {
        memcpy(piece, "\\\\", 2);
        plen = 2;
    } else if (n > 0 && shown_as_is(cp)) {
        memcpy(piece, p, n);
        plen = n;
    } else {
        n = n ? n : 1;
        for (size_t k = 0; k < n; k++)
            plen += (size_t)snprintf(piece + plen, PIECE_MAX - plen, "\\x%02x", p[k]);
    }
    *used = n;
    return plen;
}

static size_t escaped_len(const unsigned char *p, size_t len, bool lead)
{
    char piece[PIECE_MAX];
    size_t total = 0, n;

    for (size_t i = 0; i < len; i += n) {
        total += piece_at(p + i, len - i, lead, piece, &n);
        lead = lead && p[i] == ' ';
    }
    return total;
}

char *rr_escape_used(const char *s, size_t len, char *out, size_t outlen, size_t *used)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    const size_t mark = sizeof(TRUNC_MARK);
    bool rest_fits = false, lead = true;

    *used = 0;
    if (outlen == 0)
        return out;
    for (size_t i = 0; i < len;) {
        char piece[PIECE_MAX];
        size_t n;
        size_t plen = piece_at(p + i, len - i, lead, piece, &n);

        /* Keep room for the marker unless this is the last piece or all
         * that is left fits (looked at once, when the room runs short). */
        if (!rest_fits && i + n < len && o + plen + mark > outlen)
            rest_fits = o + escaped_len(p + i, len - i, lead) < outlen;
        size_t reserve = (rest_fits || i + n == len) ? 1 : mark;
        if (o + plen + reserve > outlen) {
            /* Every earlier piece left room for the marker, so it fits
             * unless nothing was written and out is smaller than it. */
            if (outlen >= mark + o)
                memcpy(out + o, TRUNC_MARK, mark);
            else
                out[o] = '\0';
            *used = i;
            return out;
        }
        memcpy(out + o, piece, plen);
        o += plen;
        lead = lead && p[i] == ' ';
        i += n;
    }
    out[o] = '\0';
    *used = len;
    return out;
}

char *rr_escape(const char *s, size_t len, char *out, size_t outlen)
{
    size_t used;

    return rr_escape_used(s, len, out, outlen, &used);
}

bool rr_is_escaped(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    bool lead = true;
    size_t n;

    for (size_t i = 0; i < len; i += n) {
        char piece[PIECE_MAX];
        size_t plen = piece_at(p + i, len - i, lead, piece, &n);

        /* a backslash starts one of the escaping's own sequences */
        if (p[i] == '\\') {
            n = 1;
        } else if (plen != n || memcmp(piece, p + i, n) != 0) {
            return false;
        }
        lead = lead && p[i] == ' ';
    }
    return true;
}

char *rr_escape_dup(const char *s, size_t len)
{
    size_t n = rr_escape_size(len);
    char *out = malloc(n);

    if (out == NULL)
        return NULL;
    return rr_escape(s, len, out, n);
}

int rr_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
