/* elfemu-view: a guest's execve starts the viewer again on the new
 * program (tools/view/relaunch.c). */
#ifndef TOOLS_VIEW_RELAUNCH_H
#define TOOLS_VIEW_RELAUNCH_H

#include <stdbool.h>

#include "tools/view/options.h"

/* The options only a guest's execve passes (--execve, --exec-rlimits,
 * --close-fd, --view-pid, --view-env, and --strace/--trace-pids from the
 * library): 1 taken (*i moved past its value), 0 not one of them, -1 bad
 * (said). */
int relaunch_option(struct view_options *o, const char *a, const char *val, int *i);
/* After parsing: the viewer's own environment back in place, and the words
 * a guest's execve starts elfemu-view with (o->cfg.reexec_argv); 0 or -1
 * when out of memory. */
int relaunch_prepare(struct view_options *o);
/* Started by the execve of a process that is not the viewed one (the
 * child of a guest's fork): no window, the program runs as under elfemu. */
bool relaunch_detached(const struct view_options *o);
/* That run: load, run, end as the guest ended.  Returns only on a load
 * failure or an emulator error (the status to exit with). */
int relaunch_run_windowless(struct view_options *o, const char *path, char **argv);

#endif
