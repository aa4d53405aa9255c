/* elfemu-view: the guest's other threads while the viewer is stopped
 * (tools/view/park.c). */
#ifndef TOOLS_VIEW_PARK_H
#define TOOLS_VIEW_PARK_H

#include <stdbool.h>

#include "tools/view/session.h"

/* The guest forked and this is the child process (the syscall hook sees
 * it first): the window, its locks and the parked threads are the
 * parent's; the child runs on without them. */
void park_fork_child(void);
bool park_forked(void);
/* Set up the parking place (at load, on the runner). */
int park_init(struct session *s);
/* After a clone (any guest thread, from the syscall hook): once a second
 * thread exists, install the block hook that parks it. */
void park_thread_created(struct session *s);
/* May the other threads run (the viewer runs) or must they wait (it is
 * stopped, or steps the first thread)? */
void park_set_free(struct session *s, bool free);
/* Wait (a moment at most) until every other thread is parked or in a
 * host call: the viewer has just stopped, and a running thread parks at
 * its next block boundary.  Before a step, so that it is one instruction
 * of the first thread alone. */
void park_settle(struct session *s);
/* A thread other than the first enters (begins) or leaves a host call
 * (from the syscall hooks; exit, which does not come back, is not told). */
void park_call(struct session *s, bool begins);
/* The registers of parked thread tid into s->regs and s->fp; false when
 * no such thread is parked. */
bool park_show(struct session *s, int tid);
/* The parked thread after tid (0: after the first thread), 0 after the
 * last: the order the 't' key goes round in. */
int park_next(struct session *s, int tid);
/* How many guest threads are parked now. */
unsigned park_count(struct session *s);

#endif
