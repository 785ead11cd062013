/* The ids the user namespace revrun runs in maps (/proc/self/uid_map and
 * gid_map). As root on a host every id is; as root inside a user-namespaced
 * container (rootless podman, --userns=auto, docker's userns-remap,
 * Kubernetes hostUsers: false) only the container's range is, and revrun's
 * dedicated host id (PROFILE_DEFAULT_HOST_ID) usually is not. */
#ifndef REVRUN_USERNS_IDS_H
#define REVRUN_USERNS_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define ID_MAP_MAX 340 /* the kernel's own limit of lines in a map */

struct id_map {
    struct {
        uint32_t inside, outside, count;
    } r[ID_MAP_MAX];
    size_t n;
};

/* Parse a map's text ("inside outside count" lines); junk is an error. */
int id_map_parse(const char *text, struct id_map *m, struct rr_error *err);
/* Read /proc/self/uid_map (uid) or gid_map. */
int id_map_read_self(bool uid, struct id_map *m, struct rr_error *err);

/* The whole 32-bit range, one to one: the initial user namespace. */
bool id_map_is_initial(const struct id_map *m);
bool id_map_has(const struct id_map *m, uint32_t id);
/* first..first+count-1 all mapped, by one line of the map. */
bool id_map_covers(const struct id_map *m, uint32_t first, uint32_t count);
/* An id for the container user in place of the dedicated one: the highest
 * id mapped here other than 0 and the overflow id 65534 (nobody), i.e. the
 * end of the container's range, the id least likely to own anything.
 * false when only 0 (or nothing else) is mapped. */
bool id_map_pick(const struct id_map *m, uint32_t *id);
/* "0-65535 (host 100000-165535), ..." for messages. */
void id_map_describe(const struct id_map *m, char *buf, size_t len);

#endif
