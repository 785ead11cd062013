/* The operator's protect and warn globs, with gitignore's meaning:
 *   - a pattern without a slash matches a name at any depth ("*.pem");
 *   - a pattern with a slash is anchored at the top (a leading "/" is allowed);
 *   - "*", "?" and "[...]" match within one name, "**" as a whole component
 *     matches any number of components, so ".git" + "/" + "**" is everything
 *     in .git;
 *   - a pattern that matches a directory matches everything under it, so
 *     "secrets" protects "secrets/key"; the .git pattern above also covers
 *     ".git" itself (replacing it);
 *   - a path matches if it matches as it is, or with every name as macOS
 *     and Windows resolve it (wb_name_canon) and without ASCII case, so
 *     ".GitModules", ".gitmodules.", ".gitmodules::$DATA" and "gitmod~1"
 *     match ".gitmodules", and ".GitHub/Workflows/x.yml" matches
 *     ".github/workflows/" + "**". */
#ifndef REVRUN_WB_GLOB_H
#define REVRUN_WB_GLOB_H

#include <stdbool.h>
#include <stddef.h>

bool wb_glob_match(const char *pattern, const char *path, size_t len);

#endif
