/* Guest threads (syscalls/thread.c): the bookkeeping other areas call. */
#ifndef SYSCALLS_THREAD_H
#define SYSCALLS_THREAD_H

#include "cpu/cpu.h"

/* Live guest threads of this process (1 before any clone). */
int gthread_count(void);

/* Around a host fork (syscalls/fork.c): prepare holds the thread registry
 * and the space's lock so that the child gets them in a known state;
 * parent releases them; child makes the calling thread the only one (the
 * other threads did not come along) and resets the locks. */
void gthread_fork_prepare(void);
void gthread_fork_parent(void);
void gthread_fork_child(struct cpu *c);

/* The VM's own thread came back from cpu_run (api/vm.c): when a signal
 * stopped it while other guest threads run, the process dies of it now. */
void gthread_run_ended(struct cpu *c);

/* Instructions retired by the guest threads other than the VM's own
 * (live ones and ended ones), for elfemu_get_stats(). */
uint64_t gthread_icount_others(void);

/* The end of this program image, reported once to the hook the embedding
 * layer installs (api/hooks.c): the process exits (GTHREAD_END_EXIT, code
 * = status), dies of a signal (GTHREAD_END_SIGNAL, code = the signal) or
 * replaces itself by execve (GTHREAD_END_EXEC, once the execve can no
 * longer fail; a failed host execve rearms it).  c is the thread that ends
 * it, NULL when the last thread to exit is gone already. */
enum { GTHREAD_END_EXIT, GTHREAD_END_SIGNAL, GTHREAD_END_EXEC };
void gthread_set_end_hook(void (*fn)(struct cpu *c, int how, int code));
void gthread_end(struct cpu *c, int how, int code);
void gthread_end_rearm(void);

#endif
