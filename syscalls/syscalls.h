/* The syscall layer: one list (syscalls/list.h) generates the handler
 * declarations and both dispatch tables (x86_64 and i386 numbering).
 * Handlers are split by area: fs.c, mem.c, proc.c, time.c. */
#ifndef SYSCALLS_SYSCALLS_H
#define SYSCALLS_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"

#define SYS_TABLE_SIZE 512

/* Every handler: the guest's six arguments (zero-extended for ia32);
 * returns the result or -errno, as the kernel does. */
typedef int64_t (*sys_handler)(struct cpu *c, const uint64_t a[6]);

#define SYSCALL(name, nr64, nr32, spec) int64_t sys_##name(struct cpu *c, const uint64_t a[6]);
#include "syscalls/list.h"
#undef SYSCALL

extern const char *const sys_names_64[SYS_TABLE_SIZE];
extern const char *const sys_names_32[SYS_TABLE_SIZE];
/* The argument descriptions of list.h by number (NULL: not served). */
extern const char *sys_spec_64[SYS_TABLE_SIZE], *sys_spec_32[SYS_TABLE_SIZE];

/* ------------------------------------------------------------ guest memory
 * Every guest pointer goes through these before the host sees it: a bad
 * pointer gives -EFAULT, never a host fault and never a host address. */

/* Host pointer for len bytes at guest addr with prot (PROT_READ for data
 * the host reads, PROT_WRITE for data it writes); NULL when not accessible.
 * A writable buffer on a page holding decoded code is released first. */
void *guest_buf(struct cpu *c, uint64_t addr, uint64_t len, int prot);

/* Host pointer for a buffer that only the HOST KERNEL touches (read(2)'s
 * buffer, the struct stat of fstat(2)...), never elfemu itself.  The host's
 * mapping of the guest space carries the guest's protections, so the host
 * kernel finds the bad pages and answers exactly as Linux answers the guest:
 * -EFAULT, a short count at the first bad page, and its own order of checks
 * (flags and descriptors before buffers).  A range not inside the guest
 * space becomes an address in the host kernel's half, which every host call
 * refuses with -EFAULT.  With PROT_WRITE, decoded code in the range is
 * released first, as guest_buf does.  Never dereference the result. */
void *guest_ptr(struct cpu *c, uint64_t addr, uint64_t len, int prot);

/* The address guest_ptr() gives for what is not in the guest space: in the
 * kernel half of every x86_64 host, so access_ok() refuses it (-EFAULT). */
#define HOST_FAULT_ADDR ((void *)0xffff800000000000ull)

/* Validate the NUL-terminated guest string at addr (at most max bytes with
 * the NUL) and return its host address, or NULL (-EFAULT; -ENAMETOOLONG is
 * reported through *err when it is too long). */
const char *guest_str(struct cpu *c, uint64_t addr, uint64_t max, int *err);

/* Copy to / from the guest; 0 or -EFAULT. */
int copy_to_guest(struct cpu *c, uint64_t addr, const void *src, uint64_t len);
int copy_from_guest(struct cpu *c, void *dst, uint64_t addr, uint64_t len);

/* -errno from a host call's return value. */
static inline int64_t host_ret(int64_t r);
#include <errno.h>
static inline int64_t host_ret(int64_t r) { return r < 0 ? -errno : r; }

/* A thread-like clone (CLONE_VM|CLONE_THREAD...) on a new host thread
 * (syscalls/thread.c); sys_clone and sys_clone3 (fork.c) hand those to it.
 * Returns the new thread's tid or -errno. */
int64_t thread_clone(struct cpu *c, uint64_t flags, uint64_t stack, uint64_t ptid,
                     uint64_t ctid, uint64_t tls);

/* futex of both ABIs (thread.c); ts_kind says what the timeout of the ops
 * that have one is: the host's struct timespec (x86_64), an i386 guest's
 * old_timespec32 (futex_time32), or the __kernel_timespec of i386's
 * futex_time64, whose tv_nsec counts only in its low 32 bits. */
enum { FUTEX_TS_HOST, FUTEX_TS_OLD32, FUTEX_TS_COMPAT64 };
int64_t futex_call(struct cpu *c, const uint64_t a[6], int ts_kind);

/* CLONE_SETTLS of a 32-bit guest (syscalls/ia32.c): tls is a struct
 * user_desc * for the child's GDT TLS entry, as set_thread_area takes it
 * but without picking a free entry (copy_thread() -> do_set_thread_area(p,
 * -1, tls, 0)).  ia32_clone_tls reads and checks it in the parent (0 or
 * -EFAULT/-EINVAL: the clone fails); ia32_clone_tls_install gives the new
 * thread or child process its own copy of the entry (and reloads a segment
 * register that holds its selector). */
struct ia32_tls {
    int idx;
    struct cpu_tls_desc desc;
};
int ia32_clone_tls(struct cpu *c, uint64_t uaddr, struct ia32_tls *out);
void ia32_clone_tls_install(struct cpu *child, const struct ia32_tls *t);

/* How execve re-enters elfemu (elfemu_config.reexec_argv) and the sysroot
 * the new program is looked up under; copied, process-wide.  0 or -ENOMEM. */
int sys_set_exec_config(const char *const *reexec_argv, const char *sysroot);

/* The host thread's name (comm) as the kernel sets it when it executes
 * path: its last component (proc.c); set by the VM when it loads. */
void sys_set_comm(const char *path);

/* The emulated RLIMIT_AS and RLIMIT_DATA (resource.c): the guest's value
 * of a limit (rlim_cur) for mmap/brk to enforce, and their text form
 * "ascur:asmax:datacur:datamax" as execve passes them on (--exec-rlimits)
 * and the new process takes them back (0 or -EINVAL). */
uint64_t sys_guest_rlimit(int resource);
uint64_t sys_guest_rlimit_max(int resource); /* its rlim_max */
/* do_prlimit() for the calling process (resource.c): the old value into
 * *old (if any), then the new one (if any) applied; 0 or -errno. */
struct rlimit;
int rlimit_self(int resource, const struct rlimit *new, struct rlimit *old);

/* struct rusage of an i386 guest stored at addr (wait.c): two 32-bit
 * timevals, fourteen 32-bit longs; 0 or -EFAULT. */
struct rusage;
int ia32_put_rusage(struct cpu *c, uint64_t addr, const struct rusage *ru);
void sys_exec_rlimits(char *buf, size_t size);
/* Whether capability cap is in the calling thread's effective set
 * (resource.c): raising a hard limit needs CAP_SYS_RESOURCE, lowering
 * one's nice value past RLIMIT_NICE CAP_SYS_NICE. */
bool sys_capable(int cap);

/* A host descriptor of elfemu's own (--strace's file, the embedder's through
 * elfemu_reserve_fd) that the guest must not close: close() answers EBADF
 * as for a descriptor that is not open, close_range() closes around it.
 * (dup2/dup3 onto one are not refused: Linux would let a guest use that
 * number; it is moved high, out of the way.)  0, -EBADF or -ENOSPC. */
int sys_reserve_fd(int fd);
bool sys_fd_reserved(int fd);
int sys_set_exec_rlimits(const char *text);

#include "syscalls/signal.h"

/* The guest's own executable (for /proc/self/exe); set by the VM. */
void sys_set_exe(const char *path);
const char *sys_exe(void);

/* Syscall hooks of the embedding API (api/hooks.c installs them).  Only
 * when sys_hooks_on is set does dispatch take the hooked path: before()
 * may change the number and arguments, or return true to skip the call
 * with *result as its result; after() may change the result. */
struct sys_hook_ops {
    bool (*before)(struct cpu *c, uint64_t *nr, uint64_t a[6], int64_t *result);
    void (*after)(struct cpu *c, uint64_t nr, const uint64_t a[6], int64_t *result);
};
extern bool sys_hooks_on;
void sys_hooks_init(const struct sys_hook_ops *ops);
void sys_hooks_switch(bool on);

#endif
