/* Descriptors for x86_64 guests: fcntl (every command), dup/dup2/dup3,
 * pipe/pipe2, close_range, flock, memfd_create.
 *
 * fcntl's argument is an integer for most commands and a pointer for the
 * lock and owner commands: each pointer command copies its structure
 * through an explicit guest layout, and a command we do not know is
 * refused (-EINVAL, as the kernel answers unknown commands) rather than
 * handed to the host with a possibly unchecked pointer. */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/strace.h"

#ifndef F_LINUX_SPECIFIC_BASE
#define F_LINUX_SPECIFIC_BASE 1024
#endif
#ifndef F_GETOWNER_UIDS
#define F_GETOWNER_UIDS 17
#endif
#ifndef F_DUPFD_QUERY
#define F_DUPFD_QUERY (F_LINUX_SPECIFIC_BASE + 3)
#endif
#ifndef F_CREATED_QUERY
#define F_CREATED_QUERY (F_LINUX_SPECIFIC_BASE + 4)
#endif

/* struct flock as an x86_64 guest lays it out (include/uapi/asm-generic/fcntl.h). */
struct guest_flock {
    int16_t l_type, l_whence;
    int64_t l_start, l_len;
    int32_t l_pid;
};
_Static_assert(sizeof(struct guest_flock) == 32, "x86_64 struct flock");
_Static_assert(offsetof(struct guest_flock, l_start) == 8, "x86_64 struct flock");
_Static_assert(offsetof(struct guest_flock, l_pid) == 24, "x86_64 struct flock");

/* struct f_owner_ex: { int type; pid_t pid; } */
struct guest_owner_ex {
    int32_t type, pid;
};

static int64_t fcntl_lock(struct cpu *c, int fd, int cmd, uint64_t arg)
{
    struct guest_flock g;
    if (copy_from_guest(c, &g, arg, sizeof(g)))
        return -EFAULT;
    struct flock h = { .l_type = g.l_type, .l_whence = g.l_whence, .l_start = g.l_start,
                       .l_len = g.l_len, .l_pid = g.l_pid };
    if (syscall(SYS_fcntl, fd, cmd, &h) != 0)
        return -errno;
    if (cmd != F_GETLK && cmd != F_OFD_GETLK)
        return 0;
    /* F_GETLK reports the conflicting lock (its owner's pid is the guest's
     * view too: guest pids are host pids) or F_UNLCK. */
    g = (struct guest_flock){ .l_type = h.l_type, .l_whence = h.l_whence,
                              .l_start = h.l_start, .l_len = h.l_len, .l_pid = h.l_pid };
    return copy_to_guest(c, arg, &g, sizeof(g));
}

int64_t sys_fcntl(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], cmd = (int)a[1];
    uint64_t arg = a[2];
    switch (cmd) {
    /* Integer argument (or none). */
    case F_DUPFD: case F_DUPFD_CLOEXEC: case F_GETFD: case F_SETFD: case F_GETFL:
    case F_SETFL: case F_GETOWN: case F_SETOWN: case F_GETSIG: case F_SETSIG:
    case F_GETLEASE: case F_SETLEASE: case F_NOTIFY: case F_GETPIPE_SZ: case F_SETPIPE_SZ:
    case F_ADD_SEALS: case F_GET_SEALS: case F_DUPFD_QUERY: case F_CREATED_QUERY:
        return host_ret(syscall(SYS_fcntl, fd, cmd, arg));
    }
    /* The pointer commands look at the descriptor first (fdget_raw()): an
     * O_PATH one allows none of them (check_fcntl_cmd()). */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_PATH))
        return -EBADF;
    switch (cmd) {
    case F_GETLK: case F_SETLK: case F_SETLKW:
    case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
        return fcntl_lock(c, fd, cmd, arg);
    case F_GETOWN_EX: {
        struct f_owner_ex h;
        if (syscall(SYS_fcntl, fd, cmd, &h) != 0)
            return -errno;
        struct guest_owner_ex g = { .type = h.type, .pid = h.pid };
        return copy_to_guest(c, arg, &g, sizeof(g));
    }
    case F_SETOWN_EX: {
        struct guest_owner_ex g;
        if (copy_from_guest(c, &g, arg, sizeof(g)))
            return -EFAULT;
        struct f_owner_ex h = { .type = (enum __pid_type)g.type, .pid = g.pid };
        return host_ret(syscall(SYS_fcntl, fd, cmd, &h));
    }
    case F_GETOWNER_UIDS: {
        uint32_t uids[2];
        if (syscall(SYS_fcntl, fd, cmd, uids) != 0)
            return -errno;
        return copy_to_guest(c, arg, uids, sizeof(uids));
    }
    case F_GET_RW_HINT: case F_GET_FILE_RW_HINT: {
        uint64_t hint;
        if (syscall(SYS_fcntl, fd, cmd, &hint) != 0)
            return -errno;
        return copy_to_guest(c, arg, &hint, sizeof(hint));
    }
    case F_SET_RW_HINT: case F_SET_FILE_RW_HINT: {
        uint64_t hint;
        if (copy_from_guest(c, &hint, arg, sizeof(hint)))
            return -EFAULT;
        return host_ret(syscall(SYS_fcntl, fd, cmd, &hint));
    }
    default:
        fs_log_once(c, "fcntl command (-EINVAL)", (uint64_t)(unsigned)cmd);
        return -EINVAL;
    }
}

int64_t sys_dup(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_dup, (int)a[0]));
}

int64_t sys_dup2(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_dup2, (int)a[0], (int)a[1]));
}

int64_t sys_dup3(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_dup3, (int)a[0], (int)a[1], (int)a[2]));
}

/* pipe2: like do_pipe2(), the descriptors exist only if they reach the
 * guest: a bad pointer closes them again and gives -EFAULT. */
int64_t sys_pipe2(struct cpu *c, const uint64_t a[6])
{
    int fds[2];
    if (syscall(SYS_pipe2, fds, (int)a[1]) != 0)
        return -errno;
    if (copy_to_guest(c, a[0], fds, sizeof(fds))) {
        close(fds[0]);
        close(fds[1]);
        return -EFAULT;
    }
    return 0;
}

int64_t sys_pipe(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], 0, 0, 0, 0, 0 };
    return sys_pipe2(c, b);
}

/* Descriptors the guest does not own: --strace's file and the embedder's
 * (elfemu_reserve_fd: --trace-file, --stats-file).  They are few and set
 * before the guest runs (or by its first thread), so a small sorted array
 * read without a lock serves. */
#define RESERVED_MAX 8
static int reserved_fds[RESERVED_MAX];
static int nreserved;

int sys_reserve_fd(int fd)
{
    if (fd < 0)
        return -EBADF;
    if (sys_fd_reserved(fd))
        return 0;
    if (nreserved == RESERVED_MAX)
        return -ENOSPC;
    int i = nreserved;
    for (; i > 0 && reserved_fds[i - 1] > fd; i--)
        reserved_fds[i] = reserved_fds[i - 1];
    reserved_fds[i] = fd;
    nreserved++;
    return 0;
}

bool sys_fd_reserved(int fd)
{
    for (int i = 0; i < nreserved; i++)
        if (reserved_fds[i] == fd)
            return true;
    return false;
}

/* A range that covers reserved descriptors (closefrom(3), Python's
 * subprocess children) is closed around them, so the traces and reports
 * go on until exec. */
int64_t sys_close_range(struct cpu *c, const uint64_t a[6])
{
    unsigned lo = (unsigned)a[0], hi = (unsigned)a[1], flags = (unsigned)a[2];
    bool covers = false;
    for (int i = 0; i < nreserved; i++)
        covers |= (unsigned)reserved_fds[i] >= lo && (unsigned)reserved_fds[i] <= hi;
    if (!covers)
        return host_ret(syscall(SYS_close_range, lo, hi, flags));
    if (flags & ~(unsigned)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
        return -EINVAL;
    unsigned from = lo; /* the first descriptor not dealt with yet */
    for (int i = 0; i < nreserved; i++) {
        unsigned r = (unsigned)reserved_fds[i]; /* ascending, < INT_MAX */
        if (r < from)
            continue;
        if (r > hi)
            break;
        if (r > from && syscall(SYS_close_range, from, r - 1, flags) != 0)
            return -errno;
        from = r + 1;
    }
    if (from <= hi && syscall(SYS_close_range, from, hi, flags) != 0)
        return -errno;
    return 0;
}

int64_t sys_flock(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_flock, (int)a[0], (int)a[1]));
}

/* memfd_create(name, flags): the flags are checked before the name; a name
 * longer than the kernel's limit is -EINVAL, which the host reports for
 * any name we can fetch. */
int64_t sys_memfd_create(struct cpu *c, const uint64_t a[6])
{
    int err;
    const char *name = guest_str(c, a[0], GUEST_PATH_MAX, &err);
    if (!name) {
        /* Let the host judge the flags first (a bad flag wins over a bad name). */
        long r = syscall(SYS_memfd_create, "", (unsigned)a[1]);
        if (r < 0)
            return -errno;
        close((int)r);
        return err == -ENAMETOOLONG ? -EINVAL : err;
    }
    return host_ret(syscall(SYS_memfd_create, name, (unsigned)a[1]));
}
