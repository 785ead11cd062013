/* libFuzzer harness for revrun's index reader (writeback/git/gitindex.c): the
 * bytes the agent can leave in .git/index. Each input is parsed; when it is
 * read, the paths cut from the input itself (every prefix of its last 64
 * bytes, and a few fixed ones) are looked up. Beyond ASan and UBSan
 * (memory, and no recursion: the stack stays flat), it aborts when:
 *   - a refusal leaves no reason, or an index read holds more entries than
 *     its bytes can (64 each);
 *   - a path is an entry while nothing is said to lie below its directory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writeback/git/gitindex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "gitindex_fuzz: %s\n", what);
        abort();
    }
}

static void ask(const struct wb_gitindex *ix, const char *p, size_t len)
{
    const char *slash = len ? memrchr(p, '/', len) : NULL;

    if (wb_gitindex_has(ix, p, len) && slash != NULL && slash > p)
        must(wb_gitindex_has_below(ix, p, (size_t)(slash - p)), "an entry below no directory");
    (void)wb_gitindex_has_below(ix, p, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const fixed[] = {"a", "a/b", "d/", "x.o", "forced.o"};
    struct rr_error err = {0};
    struct wb_gitindex *ix = NULL;
    char why[200];
    char *buf = malloc(size ? size : 1);
    size_t tail = size < 64 ? size : 64;
    int r;

    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    r = wb_gitindex_parse(buf, size, &ix, why, sizeof(why), &err);
    if (r == 0)
        must(why[0] != '\0', "a refusal without a reason");
    if (r != 1)
        return 0;
    must(wb_gitindex_count(ix) <= size / 64, "more entries than the bytes hold");
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        ask(ix, fixed[i], strlen(fixed[i]));
    for (size_t n = 1; n <= tail; n++)
        ask(ix, (const char *)data + size - tail, n);
    wb_gitindex_free(ix);
    return 0;
}
