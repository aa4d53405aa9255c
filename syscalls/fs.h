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
 * (-EFAULT, -ENAMETOOLONG, -ENOENT...). */
int fs_path_arg(struct cpu *c, int dirfd, uint64_t addr, int flags, struct host_path *hp);

/* The error for a guest buffer that failed guest_buf() in a call on fd: the
 * kernel looks at the descriptor before it touches the buffer, so a bad fd
 * (or one not open for the direction: want_write) gives -EBADF and a
 * directory read gives -EISDIR before -EFAULT. */
int64_t fs_buf_error(int fd, int want_write);

/* Translate a guest iovec array of n entries (n <= IOV_MAX, else -EINVAL)
 * into out[]; every element's buffer is checked for prot (-EFAULT), a
 * negative length gives -EINVAL as in the kernel's import_iovec(). */
int fs_iovec_arg(struct cpu *c, uint64_t addr, uint64_t n, int prot, struct iovec *out);

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
