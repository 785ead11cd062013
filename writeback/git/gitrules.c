#include "writeback/git/gitrules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writeback/git/gitmatch.h"

#define NONE UINT32_MAX

enum kind { K_NAME = 1, K_EXT, K_FIRST, K_GENERAL };

struct rule {
    uint32_t off, len;   /* the pattern in the text */
    uint32_t koff, klen; /* its key in the text (indexed kinds) */
    uint32_t next;       /* the next rule of its bucket, or NONE */
    uint8_t kind;
    bool slash;
};

struct wb_rules {
    const char *text;
    struct rule *v;
    uint32_t n, lines;
    uint32_t *heads, mask; /* buckets of the indexed rules */
    uint32_t *general, n_general;
};

static bool special(char c)
{
    return c == '*' || c == '?' || c == '[' || c == '\\';
}

static bool literal(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (special(s[i]))
            return false;
    return true;
}

/* FNV-1a, the kind mixed in first. A collision costs steps, never an answer:
 * the agent can make many (they end in the budget), a real tree has few. */
static uint32_t hash(enum kind k, const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)k;

    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* Which kind pattern p[0..plen) is, and its key. */
static enum kind classify(const char *p, size_t plen, bool slash, size_t *koff, size_t *klen)
{
    if (!slash) {
        if (literal(p, plen)) {
            *koff = 0;
            *klen = plen;
            return K_NAME;
        }
        if (plen >= 2 && p[0] == '*' && literal(p + 1, plen - 1)) {
            /* a name ending in p+1 has its last dot where p+1 has its own */
            const char *dot = memrchr(p + 1, '.', plen - 1);
            if (dot != NULL) {
                *koff = (size_t)(dot - p);
                *klen = plen - *koff;
                return K_EXT;
            }
        }
        return K_GENERAL;
    }
    {
        const char *sl = memchr(p, '/', plen);
        size_t n = sl ? (size_t)(sl - p) : plen;
        if (n > 0 && literal(p, n)) {
            *koff = 0;
            *klen = n;
            return K_FIRST;
        }
    }
    return K_GENERAL;
}

/* A rule line as git reads one: not blank (trailing blanks aside), not a
 * comment. */
static bool is_rule(const char *line, size_t len)
{
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r' || line[len - 1] == '\t'))
        len--;
    return len > 0 && line[0] != '#';
}

static uint32_t lines_of(const char *text, size_t len, uint32_t cap, bool *over)
{
    uint32_t n = 0;
    size_t pos = 0;

    *over = false;
    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t llen = nl ? (size_t)(nl - line) : len - pos;
        pos += llen + 1;
        if (is_rule(line, llen) && ++n > cap) {
            *over = true;
            break;
        }
    }
    return n;
}

int wb_rules_parse(const char *text, size_t len, uint32_t max_rules, struct wb_rules **out,
                   struct rr_error *err)
{
    struct wb_rules *r;
    uint32_t nb = 16;
    size_t pos = 0;
    bool over;
    uint32_t lines = lines_of(text, len, max_rules, &over);

    *out = NULL;
    if (over)
        return rr_fail(err, E2BIG, "more than %u rules", max_rules);
    if (len > UINT32_MAX)
        return rr_fail(err, E2BIG, "ignore file too large");
    while (nb < 2 * lines)
        nb *= 2;
    if ((r = calloc(1, sizeof(*r))) == NULL)
        return rr_fail(err, ENOMEM, "ignore rules");
    r->text = text;
    r->lines = lines;
    r->mask = nb - 1;
    r->v = calloc(lines ? lines : 1, sizeof(*r->v));
    r->general = calloc(lines ? lines : 1, sizeof(*r->general));
    r->heads = malloc(nb * sizeof(*r->heads));
    if (r->v == NULL || r->general == NULL || r->heads == NULL) {
        wb_rules_free(r);
        return rr_fail(err, ENOMEM, "ignore rules");
    }
    memset(r->heads, 0xff, nb * sizeof(*r->heads)); /* NONE */
    while (pos < len && r->n < lines) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *p;
        size_t llen = nl ? (size_t)(nl - line) : len - pos, plen, koff = 0, klen = 0;
        bool slash;
        struct rule *ru;
        pos += llen + 1;
        if (!wb_ignore_pattern(line, llen, &p, &plen, &slash))
            continue;
        ru = &r->v[r->n];
        *ru = (struct rule){.off = (uint32_t)(p - text), .len = (uint32_t)plen, .slash = slash,
                            .next = NONE};
        ru->kind = (uint8_t)classify(p, plen, slash, &koff, &klen);
        if (ru->kind == K_GENERAL) {
            r->general[r->n_general++] = r->n;
        } else {
            uint32_t h = hash(ru->kind, p + koff, klen) & r->mask;
            ru->koff = ru->off + (uint32_t)koff;
            ru->klen = (uint32_t)klen;
            ru->next = r->heads[h];
            r->heads[h] = r->n;
        }
        r->n++;
    }
    *out = r;
    return 0;
}

void wb_rules_free(struct wb_rules *r)
{
    if (r == NULL)
        return;
    free(r->v);
    free(r->heads);
    free(r->general);
    free(r);
}

uint32_t wb_rules_count(const struct wb_rules *r)
{
    return r->lines;
}

static bool pattern(const struct wb_rules *r, const struct rule *ru, const char *rel, size_t rlen,
                    uint64_t *steps)
{
    return wb_pattern_may_match(r->text + ru->off, ru->len, ru->slash, rel, rlen, steps);
}

/* The rules of kind k keyed s[0..n): does one match? For a name only rel's
 * component c[0..clen) is tried, for a first component the whole of rel. */
static bool lookup(const struct wb_rules *r, enum kind k, const char *s, size_t n, const char *rel,
                   size_t rlen, const struct wb_ignore_budget *b, uint64_t *steps)
{
    uint32_t i = r->heads[hash(k, s, n) & r->mask];

    *steps += n + 1;
    for (; i != NONE; i = r->v[i].next) {
        const struct rule *ru = &r->v[i];
        if (++*steps + b->used > b->max)
            return true; /* spent: the caller sees it */
        if (ru->kind != k || ru->klen != n || memcmp(r->text + ru->koff, s, n) != 0)
            continue;
        if (k == K_NAME)
            return true; /* a literal name equal to a component */
        if (pattern(r, ru, rel, rlen, steps))
            return true;
    }
    return false;
}

bool wb_rules_may_match(const struct wb_rules *r, const char *rel, size_t rlen,
                        struct wb_ignore_budget *b)
{
    uint64_t steps = 0;
    size_t start = 0;
    bool hit = false;

    for (size_t i = 0; i <= rlen && !hit; i++) {
        const char *c = rel + start, *dot;
        size_t clen = i - start;
        if (i < rlen && rel[i] != '/')
            continue;
        start = i + 1;
        if (clen == 0)
            continue;
        if (c == rel && lookup(r, K_FIRST, c, clen, rel, rlen, b, &steps))
            hit = true;
        else if (lookup(r, K_NAME, c, clen, c, clen, b, &steps))
            hit = true;
        else if ((dot = memrchr(c, '.', clen)) != NULL &&
                 lookup(r, K_EXT, dot, clen - (size_t)(dot - c), c, clen, b, &steps))
            hit = true; /* an ext rule has no slash: matched against the component alone */
    }
    for (uint32_t j = 0; j < r->n_general && !hit; j++) {
        hit = pattern(r, &r->v[r->general[j]], rel, rlen, &steps);
        if (b->used + steps > b->max)
            break;
    }
    b->used += steps;
    return hit || wb_ignore_over(b);
}
