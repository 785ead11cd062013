#include "runtime/container/activity_mem.h"

#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE 4096u
#define PTR_CHUNK 512u /* pointers read at once */

/* Up to len bytes from addr, never across into a page that may not be
 * mapped before the one before it was read: the count read (a fault ends
 * it early). */
static size_t read_remote(pid_t pid, void *dst, uint64_t addr, size_t len)
{
    size_t done = 0;

    while (done < len) {
        uint64_t at = addr + done;
        size_t piece = PAGE - (size_t)(at % PAGE);
        struct iovec local, remote;
        ssize_t n;

        if (piece > len - done)
            piece = len - done;
        local = (struct iovec){(char *)dst + done, piece};
        remote = (struct iovec){(void *)(uintptr_t)at, piece};
        n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n <= 0)
            break;
        done += (size_t)n;
        if ((size_t)n < piece)
            break;
    }
    return done;
}

/* How many bytes from addr before a NUL, scanning at most max: max when
 * none was found (or the memory ended). */
static uint64_t scan_to_nul(pid_t pid, uint64_t addr, uint64_t max)
{
    char chunk[PAGE];
    uint64_t seen = 0;

    while (seen < max) {
        size_t want = PAGE - (size_t)((addr + seen) % PAGE), got;
        const char *nul;

        if (want > max - seen)
            want = (size_t)(max - seen);
        got = read_remote(pid, chunk, addr + seen, want);
        nul = memchr(chunk, '\0', got);
        if (nul != NULL)
            return seen + (uint64_t)(nul - chunk);
        seen += got;
        if (got < want)
            break;
    }
    return seen;
}

int act_read_string(pid_t pid, uint64_t addr, char *buf, size_t cap, size_t *len,
                    uint64_t *cut)
{
    size_t got = 0;
    const char *nul;

    *len = 0;
    *cut = 0;
    /* page by page, so a short string at the end of a mapping reads */
    while (got < cap) {
        size_t want = PAGE - (size_t)((addr + got) % PAGE), n;
        if (want > cap - got)
            want = cap - got;
        n = read_remote(pid, buf + got, addr + got, want);
        nul = memchr(buf + got, '\0', n);
        if (nul != NULL) {
            *len = (size_t)(nul - buf);
            return 0;
        }
        got += n;
        if (n < want)
            break;
    }
    if (got == 0)
        return -1;
    *len = got;
    if (got == cap)
        *cut = scan_to_nul(pid, addr + got, ACT_STRING_SCAN_MAX - cap);
    return 0;
}

static uint64_t ptr_at(const unsigned char *p, unsigned size)
{
    uint64_t v = 0;

    if (size == 8) {
        memcpy(&v, p, 8);
    } else {
        uint32_t v32;
        memcpy(&v32, p, 4);
        v = v32;
    }
    return v;
}

/* Read the pointers, keeping the first ACT_MAX_ARGS in keep[]. A first
 * small read covers most commands; longer arrays are counted in chunks. */
static int read_pointers(pid_t pid, uint64_t addr, unsigned size, uint64_t *keep,
                         struct act_argv *out)
{
    unsigned char chunk[PTR_CHUNK * 8];
    size_t want = ACT_MAX_ARGS;

    while (out->argc < ACT_ARGC_SCAN_MAX) {
        size_t got = read_remote(pid, chunk, addr + out->argc * size, want * size);
        size_t n = got / size;

        if (n == 0)
            return out->argc == 0 ? -1 : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = ptr_at(chunk + i * size, size);
            if (v == 0)
                return 0;
            if (out->argc < ACT_MAX_ARGS)
                keep[out->argc] = v;
            out->argc++;
        }
        if (n < want)
            return 0; /* the array ran into unmapped memory: execve will fail */
        want = PTR_CHUNK;
    }
    return 0;
}

/* The kept strings in one call, each up to its page's end (a string that
 * goes on, or one the call could not reach, is read again on its own). */
static void read_strings(pid_t pid, const uint64_t *ptrs, struct act_argv *out)
{
    struct iovec local[ACT_MAX_ARGS], remote[ACT_MAX_ARGS];
    size_t k = out->argc < ACT_MAX_ARGS ? (size_t)out->argc : ACT_MAX_ARGS;
    ssize_t got;

    for (size_t i = 0; i < k; i++) {
        size_t len = PAGE - (size_t)(ptrs[i] % PAGE);
        if (len > ACT_MAX_ARG_BYTES)
            len = ACT_MAX_ARG_BYTES;
        local[i] = (struct iovec){out->buf[i], len};
        remote[i] = (struct iovec){(void *)(uintptr_t)ptrs[i], len};
    }
    got = k > 0 ? process_vm_readv(pid, local, k, remote, k, 0) : 0;
    for (size_t i = 0; i < k; i++) {
        size_t have = got > 0 ? ((size_t)got < local[i].iov_len ? (size_t)got : local[i].iov_len)
                              : 0;
        const char *nul = memchr(out->buf[i], '\0', have);
        size_t len = 0;
        uint64_t cut = 0;

        got -= got > 0 ? (ssize_t)have : 0;
        if (nul != NULL)
            len = (size_t)(nul - out->buf[i]);
        else if (act_read_string(pid, ptrs[i], out->buf[i], ACT_MAX_ARG_BYTES, &len, &cut) < 0)
            len = 0, cut = 0; /* unreadable: shown empty (execve fails with EFAULT) */
        out->argv[out->n++] = (struct act_text){out->buf[i], len};
        out->bytes_cut += cut;
    }
}

int act_read_argv(pid_t pid, uint64_t addr, unsigned ptr_size, struct act_argv *out)
{
    uint64_t ptrs[ACT_MAX_ARGS];

    out->n = 0;
    out->argc = 0;
    out->bytes_cut = 0;
    if (addr == 0)
        return 0;
    if (read_pointers(pid, addr, ptr_size, ptrs, out) < 0)
        return -1;
    read_strings(pid, ptrs, out);
    return 0;
}
