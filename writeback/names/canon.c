/* A name as macOS and Windows resolve it, for the rules that must recognise a
 * name in every spelling (.git, the protect and warn globs). After git's own
 * is_hfs_dot* and is_ntfs_dot* (git's utf8.c and path.c):
 *   - HFS+ ignores some code points in names (wb_cp_ignorable) and, like
 *     NTFS, compares ASCII without case;
 *   - the Win32 layer drops trailing dots and spaces, and "name:stream"
 *     (also "name::$DATA") opens a stream of "name";
 *   - NTFS gives long names an 8.3 alias: "gitmod~1" is ".gitmodules" when
 *     it is the first such name, and a fall-back form with a hash of the
 *     name ("gi7eba~1") when ~1..~4 are taken.
 * Only the aliases of the names git itself guards are known: an alias
 * depends on the directory's other names, so no other can be predicted. */
#include <string.h>

#include "common/escape.h"
#include "writeback/names/names.h"

struct ntfs_alias {
    const char *name;   /* what the alias stands for */
    const char *short6; /* the regular 8.3 alias: these 6 letters, "~", 1..4 */
    const char *hashed; /* the fall-back alias's letters (git's table) */
};

static const struct ntfs_alias aliases[] = {
    {".gitmodules", "gitmod", "gi7eba"},
    {".gitattributes", "gitatt", "gi7d29"},
    {".gitignore", "gitign", "gi250a"},
    {".mailmap", "mailma", "maba30"},
};

/* The fall-back 8.3 form: a prefix of hashed, "~", a digit 1..9, digits, 8
 * characters in all (git's is_ntfs_dot_generic). */
static bool ntfs_hashed(const char *s, const char *hashed)
{
    size_t i = 0;

    if (strlen(s) != 8)
        return false;
    while (i < 6 && s[i] != '~' && s[i] == hashed[i])
        i++;
    if (s[i] != '~' || s[i + 1] < '1' || s[i + 1] > '9')
        return false;
    for (i += 2; i < 8; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* The long name an 8.3 alias in s stands for, or NULL. */
static const char *ntfs_long_name(const char *s)
{
    if (strchr(s, '~') == NULL) /* every alias has one; most names have none */
        return NULL;
    if (strcmp(s, "git~1") == 0) /* ".git" is short enough: ~1 is all git guards */
        return ".git";
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        const struct ntfs_alias *a = &aliases[i];
        if (strlen(s) == 8 && strncmp(s, a->short6, 6) == 0 && s[6] == '~' && s[7] >= '1' &&
            s[7] <= '4')
            return a->name;
        if (ntfs_hashed(s, a->hashed))
            return a->name;
    }
    return NULL;
}

/* Case, ignorable code points, the stream suffix and trailing dots and
 * spaces. Dots and spaces are written on trust and cut at the end; one that
 * does not fit only matters if something other than a dot or a space
 * follows, so a long trailing run cannot hide a short name. */
static bool strip(const char *name, size_t len, char *out, size_t outlen)
{
    const unsigned char *p = (const unsigned char *)name;
    size_t o = 0, keep = 0;
    bool spilled = false;

    for (size_t i = 0; i < len;) {
        uint32_t cp = p[i];
        size_t n = 1;
        bool trail;
        /* ASCII is never ignorable: only other code points are decoded
         * (every name of a wide checkout directory passes here) */
        if (cp >= 0x80 && (n = rr_utf8_decode(p + i, len - i, &cp)) == 0)
            n = 1, cp = 0x80; /* not UTF-8: the byte as it is */
        if (cp == ':')
            break;
        trail = cp == '.' || cp == ' ';
        i += n;
        if (cp >= 0x80 && wb_cp_ignorable(cp))
            continue;
        if (o + n >= outlen || spilled) {
            if (!trail)
                return false; /* longer than out, whatever is cut at the end */
            spilled = true;
            continue;
        }
        if (cp < 0x80) {
            out[o++] = (char)(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
        } else {
            memcpy(out + o, name + i - n, n);
            o += n;
        }
        if (!trail)
            keep = o;
    }
    out[keep] = '\0';
    return true;
}

bool wb_name_canon(const char *name, size_t len, char *out, size_t outlen)
{
    const char *alias;

    if (outlen == 0 || !strip(name, len, out, outlen))
        return false;
    if ((alias = ntfs_long_name(out)) == NULL)
        return true;
    if (strlen(alias) >= outlen)
        return false;
    memcpy(out, alias, strlen(alias) + 1);
    return true;
}
