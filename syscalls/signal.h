/* Guest signals (syscalls/signal.c, syscalls/sigframe.c).
 *
 * The host kernel does the queueing: every guest thread is a host thread
 * whose host signal mask mirrors the guest's mask (but for the signals of
 * synchronous faults, which elfemu itself needs), guest dispositions
 * "ignore" are host SIG_IGN, and every other catchable signal has elfemu's
 * host handler.  That handler only records the signal in the thread's
 * queue and raises CPU_ATTN_SIGNAL; the dispatch loop delivers it at the
 * next block boundary (a blocking host call it interrupted returns EINTR
 * first, and the syscall is then restarted or fails with EINTR by the
 * kernel's rules).  Synchronous faults are delivered at the faulting
 * instruction (sig_fault).  Frames are the kernel's rt_sigframe. */
#ifndef SYSCALLS_SIGNAL_H
#define SYSCALLS_SIGNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cpu/cpu.h"

#define GSIG_MAX 64                   /* signals 1..64 */
#define GSIG_BIT(s) (1ull << ((s) - 1))

/* A guest sigaction (struct sigaction of the x86_64 kernel ABI). */
struct gsigaction {
    uint64_t handler, flags, restorer, mask;
};

/* One queued, not yet delivered signal (the host's siginfo; its layout is
 * the x86_64 guest's). */
#define SIGQ_MAX 64

/* Per guest thread (c->sigt). */
struct sig_thread {
    siginfo_t q[SIGQ_MAX];    /* in arrival order; only this thread touches it */
    unsigned nq;
    uint64_t ss_sp, ss_size;  /* sigaltstack */
    int ss_flags;             /* SS_DISABLE or 0 (+ SS_AUTODISARM) */
    /* rt_sigsuspend/ppoll/pselect: the mask to put back after the handler. */
    bool restore_mask;
    uint64_t saved_mask;
    /* The last fault's details (sigcontext err, trapno, cr2). */
    uint64_t err, trapno, cr2;
};

/* Lifecycle (names shared with the other areas). */
void sig_init(struct cpu *c);                               /* VM start, main thread */
void sig_thread_start(struct cpu *child, struct cpu *parent); /* on the new host thread */
void sig_thread_exit(struct cpu *c);                         /* before a guest thread ends */
void sig_release(struct cpu *c);                             /* the VM goes (elfemu_destroy) */
void sig_prepare_exec(struct cpu *c);                        /* right before the host execve */
void sig_exec_failed(struct cpu *c);                         /* it returned */
/* Around a host fork: sig_fork_prepare() holds host signals back so that
 * none is queued into the child's copy of the parent's queue (which the
 * child empties) and lost; sig_fork_parent() and sig_fork_child() (which
 * also empties the queue) let them through again. */
void sig_fork_prepare(struct cpu *c);
void sig_fork_parent(struct cpu *c);
void sig_fork_child(struct cpu *c);                          /* in a fork child */
/* clone3(CLONE_CLEAR_SIGHAND), in the child after sig_fork_child(). */
void sig_clear_handlers(struct cpu *c);
/* A temporary guest mask for a blocking host call (ppoll, pselect6,
 * epoll_pwait).  sig_mask_swap() makes guest_mask the guest's mask and
 * returns 0 with EVERY host signal blocked and *host_wait the host mask the
 * wait must apply atomically (the sigmask argument of the host's ppoll,
 * pselect6 or epoll_pwait), so that a signal pending on the host or
 * arriving now interrupts the wait instead of being taken just before it;
 * or -EINTR when a signal the mask lets through is queued already.  After
 * the call (and after -EINTR), sig_mask_restore(); when the call was
 * interrupted, the guest mask stays the temporary one until the handler
 * ran (the kernel's set_restore_sigmask()). */
int sig_mask_swap(struct cpu *c, uint64_t guest_mask, sigset_t *saved, uint64_t *host_wait);
void sig_mask_restore(struct cpu *c, const sigset_t *saved);

/* The process's guest disposition of sig (a copy). */
struct gsigaction sig_action(int sig);

/* Set the guest mask (SIGKILL and SIGSTOP stay unblocked) and its host
 * mirror. */
void sig_set_mask(struct cpu *c, uint64_t m);

/* The alternate stack (do_sigaltstack() and friends): on it at sp?  its
 * ss_flags as seen at sp; save it to / set it from a guest stack_t image
 * (24 bytes; set returns 0 or -errno). */
bool sig_on_altstack(const struct cpu *c, uint64_t sp);
int sig_altstack_flags(const struct cpu *c, uint64_t sp);
void sig_altstack_save(struct cpu *c, void *out, uint64_t sp);
int sig_altstack_set(struct cpu *c, const void *in, uint64_t sp);

/* The frame code (sigframe.c): push a frame for sig with handler action
 * act; false when the frame cannot be written (the caller then kills the
 * guest with SIGSEGV). */
bool sig_push_frame(struct cpu *c, const siginfo_t *si, const struct gsigaction *act,
                    uint64_t oldmask);

/* The i386 frames (sigframe32.c): the old frame for a handler without
 * SA_SIGINFO, the rt frame with it; false as for sig_push_frame(). */
bool sig_push_frame32(struct cpu *c, const siginfo_t *si, const struct gsigaction *act,
                      uint64_t oldmask);
/* Shared by both frame builders (sigframe.c): the XSAVE image of the
 * guest's x87/SSE state as a signal frame holds it (extra: the bytes the
 * frame puts before it, counted in its extended_size), its size, and the
 * state a handler starts with. */
#define SIG_XSTATE_MAX 1024
void sig_build_xstate(const struct cpu *c, uint8_t *img, uint32_t extra);
uint32_t sig_xstate_size(void);
void sig_init_fpu(struct cpu *c);
#define SA_RESTORER_FLAG 0x04000000ull

/* The kernel's do_sigaction(): validate sig, swap in act (when not NULL,
 * its flags and mask cleaned as the kernel keeps them) and return the old
 * action in *old (when not NULL); 0 or -EINVAL.  A handler for a fault
 * signal makes the flags at faults observable (cpu_faults_observed()). */
int sig_do_action(struct cpu *c, int sig, const struct gsigaction *act, struct gsigaction *old);
/* Sleep with guest mask m until a signal comes (rt_sigsuspend, pause,
 * sigsuspend): always -EINTR. */
int64_t sig_suspend(struct cpu *c, uint64_t m);
/* rt_sigtimedwait() for the guest set (a signal we hold first, else the
 * host waits with ts, NULL: forever): the signal number with *si filled,
 * or -errno. */
int64_t sig_timedwait(struct cpu *c, uint64_t set, siginfo_t *si, const struct timespec *ts);

/* siginfo of a 32-bit guest (ia32_signal.c): the kernel's
 * copy_siginfo_to_external32() and post_copy_siginfo_from_user32(), the
 * fields the signal's layout uses converted, the rest zero. */
void sig_siginfo_to32(const siginfo_t *si, uint8_t out[128]);
void sig_siginfo_from32(const uint8_t in[128], siginfo_t *si);

/* A syscall ended with -EINTR: the kinds of restart the kernel knows. */
enum sig_restart { RESTART_NONE, RESTART_SYS, RESTART_NOINTR, RESTART_NOHAND, RESTART_BLOCK };
/* Record that syscall nr (arguments a) was interrupted (dispatch.c). */
void sig_interrupted(struct cpu *c, uint64_t nr, const uint64_t a[6]);
/* The same for an i386 call (its number is mapped to the x86_64 call's
 * for the kind of restart; ia32_signal.c). */
void sig_interrupted32(struct cpu *c, uint64_t nr32, const uint64_t a[6]);
/* The restart kind of x86_64 call nr (signal.c). */
int sig_restart_kind(uint64_t nr, const uint64_t a[6]);

#endif
