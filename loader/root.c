/* Path lookup inside a foreign root (-L DIR), component by component like
 * the kernel's link_path_walk() under a chroot: each component is looked at
 * with lstat() below root, `..` never leaves root, and a symlink's target is
 * spliced into the rest of the path (an absolute one restarting at root), so
 * the host never follows a link that could point outside DIR. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/root.h"

#define ROOT_MAX_LINKS 40 /* the kernel's MAXSYMLINKS */

/* Drop the last component of the resolved path res (length *n); "" is /. */
static void pop_component(char *res, size_t *n)
{
    while (*n > 0 && res[*n - 1] != '/')
        (*n)--;
    if (*n > 0)
        (*n)--; /* the slash before it */
    res[*n] = 0;
}

int ldr_root_lookup(const char *root, const char *path, bool follow, char *out, size_t size)
{
    if (path[0] != '/')
        return -EINVAL;
    size_t rootlen = strlen(root);
    /* rest: what is left to walk; res: the resolved part inside root,
     * "" for root itself, else "/a/b". */
    char rest[2 * PATH_MAX], res[PATH_MAX], full[2 * PATH_MAX], target[PATH_MAX];
    if (strlen(path) >= sizeof(rest) / 2)
        return -ENAMETOOLONG;
    strcpy(rest, path);
    size_t n = 0;
    res[0] = 0;
    const char *p = rest;
    int links = 0;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *end = strchrnul(p, '/');
        size_t len = (size_t)(end - p);
        const char *after = end;
        while (*after == '/')
            after++;
        bool last = !*after, trailing_slash = last && *end == '/';
        if (len == 1 && p[0] == '.') {
            p = end;
            continue;
        }
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            pop_component(res, &n); /* at root, `..` is root */
            p = end;
            continue;
        }
        if (len > NAME_MAX)
            return -ENAMETOOLONG;
        if (n + 1 + len >= sizeof(res))
            return -ENAMETOOLONG;
        size_t before = n;
        res[n++] = '/';
        memcpy(res + n, p, len);
        n += len;
        res[n] = 0;
        if (rootlen + n >= sizeof(full))
            return -ENAMETOOLONG;
        memcpy(full, root, rootlen);
        memcpy(full + rootlen, res, n + 1);
        struct stat st;
        if (lstat(full, &st) != 0)
            return -errno;
        if (S_ISLNK(st.st_mode) && (!last || follow || trailing_slash)) {
            if (++links > ROOT_MAX_LINKS)
                return -ELOOP;
            ssize_t tl = readlink(full, target, sizeof(target) - 1);
            if (tl < 0)
                return -errno;
            target[tl] = 0;
            /* The link's target replaces the component: relative to the
             * directory holding it, or to root when absolute. */
            n = target[0] == '/' ? 0 : before;
            res[n] = 0;
            char spliced[2 * PATH_MAX];
            int k = snprintf(spliced, sizeof(spliced), "%s%s", target, end);
            if (k < 0 || (size_t)k >= sizeof(rest))
                return -ENAMETOOLONG;
            memcpy(rest, spliced, (size_t)k + 1);
            p = rest;
            continue;
        }
        if (!S_ISDIR(st.st_mode) && (!last || trailing_slash))
            return -ENOTDIR;
        p = end;
    }
    int k = snprintf(out, size, "%s%s", root, n ? res : "/");
    if (k < 0 || (size_t)k >= size)
        return -ENAMETOOLONG;
    return 0;
}
