#include "runtime/confine/userns_ids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"

#define NOBODY 65534u

static int parse_u32(const char **p, uint32_t *out)
{
    char *end;
    unsigned long long v;

    while (**p == ' ' || **p == '\t')
        (*p)++;
    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    v = strtoull(*p, &end, 10);
    if (errno != 0 || v > UINT32_MAX)
        return -1;
    *p = end;
    *out = (uint32_t)v;
    return 0;
}

int id_map_parse(const char *text, struct id_map *m, struct rr_error *err)
{
    const char *p = text;

    m->n = 0;
    while (*p != '\0') {
        uint32_t in, out, count;
        if (*p == '\n') {
            p++;
            continue;
        }
        if (m->n == ID_MAP_MAX)
            return rr_fail(err, E2BIG, "id map: more than %d lines", ID_MAP_MAX);
        if (parse_u32(&p, &in) < 0 || parse_u32(&p, &out) < 0 || parse_u32(&p, &count) < 0 ||
            count == 0 || (uint64_t)in + count - 1 > UINT32_MAX)
            return rr_fail(err, EINVAL, "id map: line %zu is not \"inside outside count\"",
                           m->n + 1);
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '\n' && *p != '\0')
            return rr_fail(err, EINVAL, "id map: junk after line %zu", m->n + 1);
        m->r[m->n].inside = in;
        m->r[m->n].outside = out;
        m->r[m->n].count = count;
        m->n++;
    }
    return 0;
}

int id_map_read_self(bool uid, struct id_map *m, struct rr_error *err)
{
    const char *path = uid ? "/proc/self/uid_map" : "/proc/self/gid_map";
    _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
    char buf[ID_MAP_MAX * 36 + 1];
    size_t used = 0;
    ssize_t n;

    if (fd < 0)
        return rr_fail(err, errno, "open %s", path);
    while (used < sizeof(buf) - 1 && (n = read(fd, buf + used, sizeof(buf) - 1 - used)) != 0) {
        if (n < 0)
            return rr_fail(err, errno, "read %s", path);
        used += (size_t)n;
    }
    buf[used] = '\0';
    if (id_map_parse(buf, m, err) < 0)
        return rr_wrap(err, "%s", path);
    return 0;
}

bool id_map_is_initial(const struct id_map *m)
{
    return m->n == 1 && m->r[0].inside == 0 && m->r[0].outside == 0 &&
           m->r[0].count == UINT32_MAX;
}

bool id_map_has(const struct id_map *m, uint32_t id)
{
    for (size_t i = 0; i < m->n; i++)
        if (id >= m->r[i].inside && id - m->r[i].inside < m->r[i].count)
            return true;
    return false;
}

bool id_map_covers(const struct id_map *m, uint32_t first, uint32_t count)
{
    for (size_t i = 0; i < m->n; i++)
        if (first >= m->r[i].inside && (uint64_t)first - m->r[i].inside + count <= m->r[i].count)
            return true;
    return false;
}

bool id_map_pick(const struct id_map *m, uint32_t *id)
{
    bool found = false;

    for (size_t i = 0; i < m->n; i++) {
        uint32_t top = m->r[i].inside + (m->r[i].count - 1);
        /* the top of this range, stepping over nobody and root */
        for (uint32_t k = 0; k < 2 && top >= m->r[i].inside; k++, top--) {
            if (top != 0 && top != NOBODY) {
                if (!found || top > *id)
                    *id = top;
                found = true;
                break;
            }
            if (top == m->r[i].inside)
                break;
        }
    }
    return found;
}

void id_map_describe(const struct id_map *m, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < m->n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%u-%u (outside %u-%u)", i ? ", " : "",
                         m->r[i].inside, m->r[i].inside + (m->r[i].count - 1), m->r[i].outside,
                         m->r[i].outside + (m->r[i].count - 1));
        if (w < 0)
            return;
        used += (size_t)w;
    }
    if (m->n == 0)
        snprintf(buf, len, "nothing");
}
