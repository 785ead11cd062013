#include "runtime/container/warm.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Is this entry a directory to descend into? readdir's type when it gives
 * one (ext4, tmpfs and overlayfs do), else a stat, which warms it too. */
static bool is_dir(int dfd, const struct dirent *de, bool *stated)
{
    struct stat st;

    *stated = false;
    if (de->d_type != DT_UNKNOWN)
        return de->d_type == DT_DIR;
    *stated = true;
    return fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* One directory stream per level: an explicit stack, no recursion. Every
 * worker opens every directory (directories are few beside the files in
 * them) and numbers them in the order it meets them; it stats the entries
 * of its own share only. The walks agree on that order because each
 * directory is read the same way by all of them; if one did not, a file
 * would only be warmed twice or not at all, never mis-stated. */
size_t warm_tree(int top, size_t max_entries, unsigned max_depth, unsigned worker,
                 unsigned workers)
{
    DIR **stack = calloc(max_depth + 1, sizeof(*stack));
    bool *mine = calloc(max_depth + 1, sizeof(*mine));
    unsigned depth = 0;
    size_t n = 0, stated_n = 0, dirs = 0;
    struct dirent *de;
    struct stat st;

    if (workers == 0)
        workers = 1;
    if (stack == NULL || mine == NULL || (stack[0] = fdopendir(top)) == NULL) {
        free(stack);
        free(mine);
        close(top);
        return 0;
    }
    mine[0] = dirs++ % workers == worker;
    depth = 1;
    while (depth > 0 && n < max_entries) {
        DIR *d = stack[depth - 1];
        bool stated, dir;
        int fd;
        if ((de = readdir(d)) == NULL) {
            closedir(d);
            depth--;
            continue;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        n++;
        dir = is_dir(dirfd(d), de, &stated);
        if (mine[depth - 1]) {
            if (!stated)
                (void)fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW);
            stated_n++;
        }
        if (!dir || depth > max_depth)
            continue;
        fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && (stack[depth] = fdopendir(fd)) == NULL) {
            close(fd);
        } else if (fd >= 0) {
            mine[depth] = dirs++ % workers == worker;
            depth++;
        }
    }
    while (depth > 0)
        closedir(stack[--depth]);
    free(stack);
    free(mine);
    return stated_n;
}
