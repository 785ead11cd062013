#include "egress/log_limit.h"

#include <stdio.h>

void eg_log_limit_init(struct eg_log_limit *l, uint64_t max_bytes, uint64_t burst,
                       uint64_t per_sec)
{
    *l = (struct eg_log_limit){.max_bytes = max_bytes, .burst = burst, .per_sec = per_sec,
                               .tokens_ms = burst * 1000};
}

static void refill(struct eg_log_limit *l, uint64_t now_ns)
{
    uint64_t elapsed_ms;

    if (!l->started || now_ns < l->last_ns) {
        l->started = true;
        l->last_ns = now_ns;
        return;
    }
    elapsed_ms = (now_ns - l->last_ns) / 1000000u;
    if (elapsed_ms == 0)
        return;
    /* per_sec credits a second = per_sec thousandths a millisecond */
    l->tokens_ms += elapsed_ms * l->per_sec;
    if (l->tokens_ms > l->burst * 1000)
        l->tokens_ms = l->burst * 1000;
    l->last_ns += elapsed_ms * 1000000u;
}

/* Put text in note if it fits under max_bytes; count it. */
static void note_put(struct eg_log_limit *l, char *note, size_t size, const char *text)
{
    int n = snprintf(note, size, "%s", text);

    if (n < 0 || (size_t)n >= size || l->written + (uint64_t)n > l->max_bytes) {
        note[0] = '\0';
        return;
    }
    l->written += (uint64_t)n;
}

bool eg_log_limit_admit(struct eg_log_limit *l, uint64_t now_ns, size_t len, char *note,
                        size_t note_size)
{
    char text[160];

    note[0] = '\0';
    if (l->full) {
        l->dropped_total++;
        return false;
    }
    refill(l, now_ns);
    if (l->written + len + EG_LOG_NOTE_RESERVE > l->max_bytes) {
        l->full = true;
        l->dropped_total++;
        snprintf(text, sizeof(text),
                 "egress log: %llu bytes reached; the broker logs no more requests\n",
                 (unsigned long long)l->max_bytes);
        note_put(l, note, note_size, text);
        return false;
    }
    if (l->tokens_ms < 1000) {
        l->dropped++;
        l->dropped_total++;
        return false;
    }
    l->tokens_ms -= 1000;
    if (l->dropped > 0) {
        snprintf(text, sizeof(text),
                 "egress log: %llu request lines dropped (over %llu a second)\n",
                 (unsigned long long)l->dropped, (unsigned long long)l->per_sec);
        note_put(l, note, note_size, text);
        l->dropped = 0;
    }
    l->written += len;
    return true;
}

void eg_log_limit_summary(struct eg_log_limit *l, char *note, size_t note_size)
{
    char text[160];

    note[0] = '\0';
    if (l->dropped_total == 0)
        return;
    snprintf(text, sizeof(text), "egress log: %llu request lines dropped in all\n",
             (unsigned long long)l->dropped_total);
    note_put(l, note, note_size, text);
}
