/* Helpers shared by the file-syscall handlers (fs.c, fs_io.c, fs_fd.c,
 * fs_meta.c, fs_paths.c, ioctl.c, poll.c). */
#ifndef SYSCALLS_FS_H
#define SYSCALLS_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "syscalls/paths.h"
#include "syscalls/syscalls.h"

#define GUEST_PATH_MAX 4096

/* Fetch a guest path argument and translate it for the host relative to
 * dirfd (syscalls/paths.c: the -L root, the /proc views; flags
 * PATH_NOFOLLOW); then call the host with hp->dirfd, hp->path.  0 or -errno
 * of the translation (-ENOENT...).  An unreadable or overlong path gives 0
 * and the guest's own address in hp->path: the host call then fails on it
 * in the kernel's order, so hp->path may only be handed to host calls. */
int fs_path_arg(struct cpu *c, int dirfd, uint64_t addr, int flags, struct host_path *hp);

/* Translate a guest iovec array of n entries into out[] (IOV_MAX entries)
 * for a host call: each base through guest_ptr(), lengths unchanged.  The
 * vector to hand to the host: out, or HOST_FAULT_ADDR when the array cannot
 * be read or n is over IOV_MAX, so that the host fails the call (-EFAULT,
 * -EINVAL) after checking the descriptor, as the kernel does. */
const struct iovec *fs_iovec_arg(struct cpu *c, uint64_t addr, uint64_t n, int prot,
                                struct iovec *out);

/* Guest timespec / timeval (x86_64 layout: two 64-bit fields). */
struct guest_timespec {
    int64_t tv_sec, tv_nsec;
};
struct guest_timeval {
    int64_t tv_sec, tv_usec;
};
_Static_assert(sizeof(struct guest_timespec) == 16, "x86_64 timespec");
_Static_assert(sizeof(struct guest_timeval) == 16, "x86_64 timeval");

/* Log an unsupported request of a call once per thread (like unknown syscalls). */
void fs_log_once(struct cpu *c, const char *what, uint64_t value);

#endif
