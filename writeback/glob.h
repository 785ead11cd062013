/* The operator's protect and warn globs, with gitignore's meaning:
 *   - a pattern without a slash matches a name at any depth ("*.pem");
 *   - a pattern with a slash is anchored at the top (a leading "/" is allowed);
 *   - "*", "?" and "[...]" match within one name, "**" as a whole component
 *     matches any number of components, so ".git" + "/" + "**" is everything
 *     in .git;
 *   - a pattern that matches a directory matches everything under it, so
 *     "secrets" protects "secrets/key"; the .git pattern above also covers
 *     ".git" itself (replacing it). */
#ifndef REVRUN_WB_GLOB_H
#define REVRUN_WB_GLOB_H

#include <stdbool.h>
#include <stddef.h>

bool wb_glob_match(const char *pattern, const char *path, size_t len);

#endif
