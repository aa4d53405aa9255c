/* elfemu-view: the runner, the host thread that owns the guest
 * (tools/view/runner.c). */
#ifndef TOOLS_VIEW_RUNNER_H
#define TOOLS_VIEW_RUNNER_H

#include <signal.h>
#include <stdbool.h>

#include "tools/view/session.h"

/* On the main thread: wait for the window's thread to ask for the load
 * (session_open()), load, then serve its requests until REQ_QUIT. */
void runner_serve(struct session *s);
/* On the window's thread: have the program loaded; 0, or -1 (s->why). */
int runner_open(struct session *s);
/* Block the asynchronous signals on the calling thread (*old: the mask
 * before): for the window's thread. */
void runner_block_signals(sigset_t *old);
/* Hand the runner a request (it must be idle). */
void runner_post(struct session *s, enum run_request req);
/* Wait up to wait_ms (-1: as long as it takes) for the request out;
 * true when the runner is idle. */
bool runner_wait(struct session *s, int wait_ms);
/* Have the runner free the VM and return from runner_serve(); false
 * (nothing done) while it is busy in spite of a pause asked for, or while
 * other guest threads exist. */
bool runner_stop(struct session *s);
/* The syscall hooks that tell the UI which call the first thread is in. */
int runner_hooks(struct session *s);

#endif
