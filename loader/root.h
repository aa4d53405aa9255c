/* Looking a path up inside a foreign root directory (-L DIR), as the kernel
 * would inside a chroot to DIR: `..` stops at DIR, absolute symlinks start
 * again at DIR.  Both the loader (PT_INTERP, #! interpreters) and the
 * syscall layer (syscalls/paths.c) resolve guest paths through it. */
#ifndef LOADER_ROOT_H
#define LOADER_ROOT_H

#include <stdbool.h>
#include <stddef.h>

/* Resolve the absolute path inside root (an absolute host directory path
 * without a trailing slash).  follow: the final component's symlink is
 * followed too (a trailing slash always follows).  On success out (size
 * bytes) receives the host path root + resolved path, whose every
 * component exists inside root and holds no symlink except possibly the
 * last (when !follow), and 0 is returned; else -errno (-ENOENT, -ENOTDIR,
 * -ELOOP, -ENAMETOOLONG, -EACCES...) and the caller decides what to do. */
int ldr_root_lookup(const char *root, const char *path, bool follow, char *out, size_t size);

#endif
