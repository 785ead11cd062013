#include "runtime/container/warm.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One directory stream per level: an explicit stack, no recursion. */
size_t warm_tree(int top, size_t max_entries, unsigned max_depth)
{
    DIR **stack = calloc(max_depth + 1, sizeof(*stack));
    unsigned depth = 0;
    size_t n = 0;
    struct dirent *de;
    struct stat st;

    if (stack == NULL || (stack[0] = fdopendir(top)) == NULL) {
        free(stack);
        close(top);
        return 0;
    }
    depth = 1;
    while (depth > 0 && n < max_entries) {
        DIR *d = stack[depth - 1];
        int fd;
        if ((de = readdir(d)) == NULL) {
            closedir(d);
            depth--;
            continue;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        n++;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            depth > max_depth)
            continue;
        fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && (stack[depth] = fdopendir(fd)) == NULL)
            close(fd);
        else if (fd >= 0)
            depth++;
    }
    while (depth > 0)
        closedir(stack[--depth]);
    free(stack);
    return n;
}
