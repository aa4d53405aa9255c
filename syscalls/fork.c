/* New processes: fork, vfork, clone and clone3 (the fork-like kinds;
 * thread-like clones go to thread_clone() in thread.c).
 *
 * A guest process is a host process and guest memory is private host
 * memory, so a fork-like clone is a host fork: the child gets a copy of
 * the guest space, of the CPU state and of elfemu itself, and returns 0
 * from this very handler.
 *
 * The plain case (exit signal SIGCHLD, none of the sharing or namespace
 * flags) uses glibc's fork(), which leaves the child's C library sane
 * (its locks, its idea of the thread id).  Anything else is a raw host
 * clone/clone3 with the guest's flags, minus those elfemu must emulate:
 *   CLONE_SETTLS          the child's FS base is the guest's TLS pointer
 *   CLONE_PARENT_SETTID   the parent writes the child's pid to guest memory
 *   CLONE_CHILD_SETTID    the child writes its pid to (its copy of) guest memory
 *   CLONE_CHILD_CLEARTID  recorded as set_tid_address() would
 *   CLONE_VM, CLONE_SIGHAND (without CLONE_THREAD), CLONE_CLEAR_SIGHAND
 *                         see below
 *
 * vfork and CLONE_VM without CLONE_THREAD (glibc's posix_spawn, system()
 * and popen use CLONE_VM|CLONE_VFORK) get fork semantics: the child works
 * on a COPY of the guest space, and with CLONE_VFORK the parent is
 * suspended until the child execs or exits, as with a real vfork.  The one
 * visible difference: what the child writes to memory before it execs is
 * not seen by the parent.  glibc's posix_spawn reports a failed exec that
 * way, so under elfemu it returns success and the child exits with status
 * 127 -- the behaviour POSIX also allows and older glibc had.  Running the
 * child on the parent's memory would need a second interpreter on the
 * shared elfemu state, which a vfork child could corrupt. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscalls/strace.h"
#include "syscalls/syscalls.h"
#include "syscalls/thread.h"

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ull
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ull
#endif

/* struct clone_args as the guest passes it (include/uapi/linux/sched.h);
 * every field is a __u64, so the layout is the same for every ABI. */
struct guest_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
    uint64_t set_tid, set_tid_size; /* CLONE_ARGS_SIZE_VER1 */
    uint64_t cgroup;                /* CLONE_ARGS_SIZE_VER2 */
};
#define CLONE_ARGS_SIZE_VER0 64
#define CLONE_ARGS_SIZE_VER2 88
_Static_assert(sizeof(struct guest_clone_args) == CLONE_ARGS_SIZE_VER2, "clone_args layout");
#define MAX_PID_NS_LEVEL 32

/* The flags legacy clone() knows (CLONE_LEGACY_FLAGS of kernel/fork.c). */
#define CLONE_LEGACY_FLAGS 0xffffffffull

/* What the guest asked for, from either entry point. */
struct clone_req {
    uint64_t flags;     /* without the exit signal */
    int exit_signal;
    uint64_t stack;     /* the child's stack pointer (0: the parent's) */
    uint64_t ptid, ctid, tls, pidfd;
    uint64_t set_tid, set_tid_size, cgroup;
    bool v3;            /* clone3 */
};

/* The flag combinations copy_process() refuses, checked here because the
 * host never sees some of these flags. */
static int check_flags(const struct clone_req *r)
{
    uint64_t f = r->flags;
    if ((f & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS) ||
        (f & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
        return -EINVAL;
    if ((f & CLONE_THREAD) && !(f & CLONE_SIGHAND))
        return -EINVAL;
    if ((f & CLONE_SIGHAND) && !(f & CLONE_VM))
        return -EINVAL;
    if ((f & CLONE_PIDFD) && (f & (CLONE_DETACHED | CLONE_THREAD)))
        return -EINVAL;
    /* kernel_clone(): one location cannot receive both the pidfd and the tid. */
    if ((f & CLONE_PIDFD) && (f & CLONE_PARENT_SETTID) && r->pidfd == r->ptid)
        return -EINVAL;
    return 0;
}

/* The vfork wait: the child holds the write end of a close-on-exec pipe,
 * which closes when it execs or exits; the parent reads until then. */
static void vfork_wait(int fd)
{
    char b;
    while (read(fd, &b, 1) < 0 && errno == EINTR)
        ;
    close(fd);
}

/* The host half: returns the child's pid in the parent, 0 in the child,
 * or -errno.  *pidfd_out receives the pidfd with CLONE_PIDFD; *vfork_fd the
 * descriptor the parent of a plain vfork waits on (after it let go of the
 * thread registry's locks: the other guest threads go on meanwhile). */
static int64_t host_clone(struct cpu *c, const struct clone_req *r, int *pidfd_out,
                          int *vfork_fd)
{
    uint64_t host_flags = r->flags & ~(uint64_t)(CLONE_SETTLS | CLONE_PARENT_SETTID |
                                                 CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID |
                                                 CLONE_VM | CLONE_SIGHAND | CLONE_CLEAR_SIGHAND);
    bool vfork_like = host_flags & CLONE_VFORK;
    bool plain = (host_flags & ~(uint64_t)CLONE_VFORK) == 0 && r->exit_signal == SIGCHLD &&
                 !r->set_tid_size && !(r->flags & CLONE_INTO_CGROUP);
    if (plain) {
        int vp[2] = { -1, -1 };
        if (vfork_like && pipe2(vp, O_CLOEXEC) != 0)
            return -errno;
        pid_t pid = fork();
        if (pid < 0) {
            int e = errno;
            if (vfork_like)
                close(vp[0]), close(vp[1]);
            return -e;
        }
        if (vfork_like) {
            close(pid == 0 ? vp[0] : vp[1]);
            if (pid > 0)
                *vfork_fd = vp[0];
        }
        return pid;
    }
    /* The raw host call; the kernel does CLONE_VFORK's wait itself. */
    if (r->v3) {
        pid_t set_tid[MAX_PID_NS_LEVEL];
        if (r->set_tid_size &&
            copy_from_guest(c, set_tid, r->set_tid, r->set_tid_size * sizeof(pid_t)) != 0)
            return -EFAULT;
        struct clone_args ha;
        memset(&ha, 0, sizeof(ha));
        ha.flags = host_flags;
        ha.pidfd = (uint64_t)(uintptr_t)pidfd_out;
        ha.exit_signal = (uint64_t)r->exit_signal;
        ha.set_tid = r->set_tid_size ? (uint64_t)(uintptr_t)set_tid : 0;
        ha.set_tid_size = r->set_tid_size;
        ha.cgroup = r->cgroup;
        return host_ret(syscall(SYS_clone3, &ha, CLONE_ARGS_SIZE_VER2));
    }
    /* Legacy clone: the pidfd comes back through the parent_tid argument. */
    return host_ret(syscall(SYS_clone, host_flags | (uint64_t)r->exit_signal, NULL,
                            pidfd_out, NULL, 0));
}

/* Both entry points end here once the request is decoded. */
static int64_t do_clone(struct cpu *c, const struct clone_req *r)
{
    int e = check_flags(r);
    if (e)
        return e;
    /* A guest thread is a host thread made by pthread_create(): its tid
     * cannot be chosen (set_tid needs CAP_CHECKPOINT_RESTORE natively; an
     * honest refusal here, documented in thread.c). */
    if ((r->flags & CLONE_THREAD) && r->set_tid_size)
        return -EPERM;
    if (r->flags & CLONE_THREAD)
        return thread_clone(c, r->flags | (uint64_t)r->exit_signal, r->stack, r->ptid, r->ctid,
                            r->tls);
    /* copy_thread(): a 64-bit guest's tls is the FS base, which must be a
     * user address (do_set_thread_area_64()); a 32-bit guest's a struct
     * user_desc * for one of its GDT TLS entries. */
    struct ia32_tls tls32;
    if ((r->flags & CLONE_SETTLS) && c->bits == 32 && (e = ia32_clone_tls(c, r->tls, &tls32)))
        return e;
    if ((r->flags & CLONE_SETTLS) && c->bits != 32 && r->tls >= c->mm->size)
        return -EPERM;
    /* copy_process() stores the pidfd before the child runs: a bad address
     * fails the whole call. */
    if ((r->flags & CLONE_PIDFD) && !guest_buf(c, r->pidfd, sizeof(int), PROT_WRITE))
        return -EFAULT;

    fflush(NULL); /* nothing elfemu buffered may be written twice */
    gthread_fork_prepare();
    sig_fork_prepare(c);
    int pidfd = -1, vfork_fd = -1;
    int64_t pid = host_clone(c, r, &pidfd, &vfork_fd);
    if (pid != 0) {
        sig_fork_parent(c);
        gthread_fork_parent();
        if (vfork_fd >= 0)
            vfork_wait(vfork_fd);
        if (pid > 0 && UNLIKELY(strace_on))
            strace_forked(false);
        if (pid < 0)
            return pid;
        if (UNLIKELY(strace_on))
            strace_forked(false);
        /* kernel_clone(): the parent's copy of the tid; errors are ignored. */
        if (r->flags & CLONE_PARENT_SETTID) {
            int32_t v = (int32_t)pid;
            (void)copy_to_guest(c, r->ptid, &v, sizeof(v));
        }
        if (r->flags & CLONE_PIDFD)
            (void)copy_to_guest(c, r->pidfd, &pidfd, sizeof(pidfd));
        return pid;
    }
    /* The child. */
    gthread_fork_child(c);
    sig_fork_child(c);
    /* CLONE_CLEAR_SIGHAND is not passed to the host (its handlers are
     * elfemu's own): the guest's are reset here. */
    if (r->flags & CLONE_CLEAR_SIGHAND)
        sig_clear_handlers(c);
    if (UNLIKELY(strace_on))
        strace_forked(true);
    if ((r->flags & CLONE_SETTLS) && c->bits == 32)
        ia32_clone_tls_install(c, &tls32);
    else if (r->flags & CLONE_SETTLS)
        c->seg_base[SEG_FS] = r->tls;
    if (r->stack)
        c->r[R_SP] = r->stack;
    /* schedule_tail(): the child stores its own id; errors are ignored. */
    if (r->flags & CLONE_CHILD_SETTID) {
        int32_t v = (int32_t)getpid();
        (void)copy_to_guest(c, r->ctid, &v, sizeof(v));
    }
    if (r->flags & CLONE_CHILD_CLEARTID) {
        const uint64_t a[6] = { r->ctid };
        (void)sys_set_tid_address(c, a);
    }
    return 0;
}

int64_t sys_fork(struct cpu *c, const uint64_t a[6])
{
    const struct clone_req r = { .exit_signal = SIGCHLD };
    return do_clone(c, &r);
}

int64_t sys_vfork(struct cpu *c, const uint64_t a[6])
{
    const struct clone_req r = { .flags = CLONE_VM | CLONE_VFORK, .exit_signal = SIGCHLD };
    return do_clone(c, &r);
}

/* x86_64: clone(flags, newsp, parent_tid, child_tid, tls). */
int64_t sys_clone(struct cpu *c, const uint64_t a[6])
{
    struct clone_req r = {
        .flags = a[0] & CLONE_LEGACY_FLAGS & ~(uint64_t)CSIGNAL,
        .exit_signal = (int)(a[0] & CSIGNAL),
        .stack = a[1],
        .ptid = a[2],
        .ctid = a[3],
        .tls = a[4],
        .pidfd = a[2], /* CLONE_PIDFD reuses parent_tid */
    };
    return do_clone(c, &r);
}

/* clone3(struct clone_args *, size): copy_clone_args_from_user() and
 * clone3_args_valid(), in the kernel's order. */
int64_t sys_clone3(struct cpu *c, const uint64_t a[6])
{
    uint64_t size = a[1];
    if (size > 4096)
        return -E2BIG;
    if (size < CLONE_ARGS_SIZE_VER0)
        return -EINVAL;
    struct guest_clone_args g;
    memset(&g, 0, sizeof(g));
    const uint8_t *src = guest_buf(c, a[0], size, PROT_READ);
    if (!src)
        return -EFAULT;
    memcpy(&g, src, size < sizeof(g) ? size : sizeof(g));
    /* copy_struct_from_user(): a larger struct is fine if the rest is zero. */
    for (uint64_t i = sizeof(g); i < size; i++)
        if (src[i])
            return -E2BIG;
    if (g.set_tid_size > MAX_PID_NS_LEVEL || (!g.set_tid && g.set_tid_size) ||
        (g.set_tid && !g.set_tid_size))
        return -EINVAL;
    if ((g.exit_signal & ~(uint64_t)CSIGNAL) || g.exit_signal > 64)
        return -EINVAL;
    if ((g.flags & CLONE_INTO_CGROUP) && (g.cgroup > 0x7fffffff || size < CLONE_ARGS_SIZE_VER2))
        return -EINVAL;
    if (g.flags & ~(CLONE_LEGACY_FLAGS | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
        return -EINVAL;
    /* clone3 keeps CLONE_DETACHED and the exit-signal byte (but
     * CLONE_NEWTIME) for later use. */
    if (g.flags & (CLONE_DETACHED | (CSIGNAL & ~(uint64_t)CLONE_NEWTIME)))
        return -EINVAL;
    if ((g.flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND)) == (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND))
        return -EINVAL;
    if ((g.flags & (CLONE_THREAD | CLONE_PARENT)) && g.exit_signal)
        return -EINVAL;
    /* clone3_stack_valid(): the stack is given as base and size. */
    uint64_t sp = 0;
    if (g.stack == 0) {
        if (g.stack_size)
            return -EINVAL;
    } else {
        if (!g.stack_size || g.stack_size > c->mm->size || g.stack > c->mm->size - g.stack_size)
            return -EINVAL;
        sp = g.stack + g.stack_size;
    }
    struct clone_req r = {
        .flags = g.flags,
        .exit_signal = (int)g.exit_signal,
        .stack = sp,
        .ptid = g.parent_tid,
        .ctid = g.child_tid,
        .tls = g.tls,
        .pidfd = g.pidfd,
        .set_tid = g.set_tid,
        .set_tid_size = g.set_tid_size,
        .cgroup = g.cgroup,
        .v3 = true,
    };
    return do_clone(c, &r);
}
