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

#endif
