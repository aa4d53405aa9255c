/* The guest's view of the file system: every path a guest names goes
 * through path_resolve() (or path_openat/path_readlinkat/path_getcwd) before
 * a host call sees it.
 *
 * - With a foreign root (-L DIR): a path is looked up inside DIR first, as
 *   if DIR were "/" (`..` stops at DIR, absolute symlinks restart at DIR),
 *   and the host path is used when it does not exist there (qemu-user's -L).
 *   /proc, /dev and /sys always name the host's (and the emulator's /proc
 *   views).  Relative paths are the guest's view too while the current
 *   directory (or dirfd) lies inside DIR; getcwd() shows DIR's part only.
 * - /proc/self, /proc/<own pid>, /proc/thread-self, .../task/<tid>: exe,
 *   maps, auxv, cmdline, environ, stat and status describe the guest, not
 *   the emulator (syscalls/procfs.c serves them). */
#ifndef SYSCALLS_PATHS_H
#define SYSCALLS_PATHS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "syscalls/syscalls.h"

/* path_resolve() flags. */
#define PATH_NOFOLLOW 0x1 /* the final component's symlink is not followed */

struct host_path {
    int dirfd;          /* pass to the host *at() call together with path */
    const char *path;   /* the host path: the guest's own string or buf */
    int proc;           /* a /proc file the emulator serves (enum procfs_file), else 0 */
    int tid;            /* for proc: the task it names (0: the process) */
    char buf[PATH_MAX];
};

/* Once, before the guest runs: root is DIR of -L (canonical, no trailing
 * slash) or NULL.  The string must stay valid. */
void paths_init(const char *root);

/* The root (-L DIR) or NULL. */
const char *paths_root(void);

/* Translate the guest path guest (already checked with guest_str) relative
 * to dirfd into the host dirfd and path to use.  0 or -errno. */
int path_resolve(struct cpu *c, int dirfd, const char *guest, int flags, struct host_path *out);

/* openat() of a guest path: the emulator's /proc files are served here.
 * The new descriptor or -errno. */
int64_t path_openat(struct cpu *c, int dirfd, const char *guest, int flags, mode_t mode);

/* readlinkat() of a guest path into buf (size > 0 bytes, a host buffer the
 * caller checked): /proc/self/exe names the guest program, links in /proc
 * show the guest's view of host paths.  The length or -errno. */
int64_t path_readlinkat(struct cpu *c, int dirfd, const char *guest, char *buf, size_t size);

/* getcwd() as the guest sees it, into buf (size bytes, checked by the
 * caller): the length with the NUL, or -errno (-ERANGE). */
int64_t path_getcwd(char *buf, size_t size);

/* After the guest changed its current directory (chdir, fchdir). */
void path_cwd_changed(void);

/* AF_UNIX socket addresses hold guest paths too.  In: translate the path of
 * *ss (len bytes, updated) for bind (binding: a final symlink is not
 * followed) or connect/sendto/sendmsg; 0 or -errno (-ENAMETOOLONG when the
 * host path does not fit into sun_path).  Out: show a host path the kernel
 * returned (getsockname, accept, recvfrom...) in the guest's view. */
struct sockaddr_storage;
int path_sockaddr_in(struct cpu *c, struct sockaddr_storage *ss, int *len, bool binding);
void path_sockaddr_out(struct sockaddr_storage *ss, unsigned *len);

/* The guest's name for a host path: inside the root, the part below it. */
const char *path_guest_view(const char *host);

#endif
