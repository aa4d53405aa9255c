/* elfemu-view: the guest under the viewer's control (tools/view/session.c):
 * loading, stepping, running towards a goal (a breakpoint, the next
 * syscall, main, the return of a call) in slices so the window stays
 * live, the syscall log (the library's --strace lines) and the program's
 * output (caught by a syscall hook).  The guest runs on the main thread,
 * the runner (runner.c), the window on a thread of its own; other guest
 * threads are parked while the viewer is stopped (park.c).
 * No drawing here. */
#ifndef TOOLS_VIEW_SESSION_H
#define TOOLS_VIEW_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "elfemu.h"
#include "tools/symbols.h"
#include "tools/view/textlog.h"

#define SESSION_MAX_BREAKPOINTS 64
#define SESSION_MAX_PARKED 64

/* What the UI thread asks the runner to do (one request at a time). */
enum run_request { REQ_NONE, REQ_OPEN, REQ_STEP, REQ_ADVANCE, REQ_QUIT };

/* A guest thread other than the first, waiting in the block hook (park.c). */
struct parked {
    elfemu_thread *t;
    int tid;
};

/* Where a run is going. */
enum run_goal {
    GOAL_NONE,          /* stopped */
    GOAL_FREE,          /* until a breakpoint or the end (run) */
    GOAL_SYSCALL,       /* until a syscall has been made */
    GOAL_ADDRESS,       /* until rip == goal_addr with rsp >= goal_sp (main, step over) */
};

struct session {
    /* What session_open() was asked to load (the runner loads it). */
    const char *path;
    char *const *argv, *const *envp;
    const elfemu_config *cfg;
    char *why;
    size_t why_size;
    int load_status;            /* the shell's exit status when the load failed */
    elfemu *vm;
    pid_t pid;                  /* the viewer's: a guest fork's child is another */
    int hook_id;
    const elfemu_load_info *li;
    int bits;
    struct syms *syms;
    elfemu_regs regs;           /* now */
    elfemu_regs prev;           /* at the stop before (the pane highlights changes) */
    uint8_t fp[512], prev_fp[512];
    bool exited;
    elfemu_exit exit;
    enum run_goal goal;
    uint64_t goal_addr, goal_sp;
    uint64_t bp[SESSION_MAX_BREAKPOINTS];
    unsigned nbp;
    bool syscall_seen;          /* a syscall happened in the last step */
    unsigned maps_gen;          /* bumped when a syscall may have changed the mappings */
    unsigned syms_gen;          /* the maps_gen the symbols were last told of */
    /* The hooks run on every guest thread: the logs are added to under this. */
    pthread_mutex_t log_lock;
    struct textlog *syslog;     /* the --strace lines (elfemu_config::strace_line) */
    struct textlog *output;     /* what the guest wrote to fds 1 and 2 */
    char status[160];           /* the last thing that happened, for the status line */
    char goal_what[64];         /* what the run in progress is doing ("running to main") */

    /* The runner (runner.c): the main thread, which creates, loads, steps
     * and destroys the VM, so that a guest blocked in a host call (a read
     * of a terminal or a pipe) blocks it and not the window's thread.
     * Under run_lock: req (REQ_NONE when idle), done, loaded, served. */
    pthread_mutex_t run_lock;
    pthread_cond_t run_cond;
    enum run_request req;
    bool done;                  /* a request finished: session_poll() collects it */
    int loaded;                 /* 1 loaded, -1 the load failed, 0 not yet */
    bool served;                /* runner_serve() has returned */
    bool ending;                /* the process ends in the end hook (runner.c) */
    bool posted;                /* UI thread: a request is out (until collected) */
    int pause_req;              /* atomic: the UI asks a run in progress to stop */
    int in_call;                /* atomic: syscall number + 1 the first thread is in, 0 */
    /* The request's copy of the goal (taken when posted: the UI may change
     * the breakpoints meanwhile). */
    enum run_goal req_goal;
    uint64_t req_addr, req_sp, req_budget;
    uint64_t req_bp[SESSION_MAX_BREAKPOINTS];
    unsigned req_nbp;
    /* The runner's results, read by the UI thread once the request is done. */
    bool run_exited, run_reached;
    bool run_breakpoint;        /* reached: a breakpoint */
    elfemu_exit run_exit;
    uint64_t run_rip;
    char run_status[160];

    /* Other guest threads (park.c): while the viewer is stopped they wait
     * at their next block boundary; threads_free says they may run. */
    pthread_mutex_t park_lock;
    pthread_cond_t park_cond;
    bool threads_free;
    int block_hook;             /* the parking hook's id once a thread exists, else 0 */
    struct parked parked[SESSION_MAX_PARKED];
    unsigned nparked;
    unsigned in_calls;          /* other threads in a host call (they park after it) */
    int shown_tid;              /* the thread the registers show (0: the first) */
    uint64_t shown_icount;      /* its instructions retired */
};

/* Set up the session (on the main thread, before the window's thread
 * starts); 0, or -1 when out of memory. */
int session_init(struct session *s);
/* On the window's thread: have the runner create the VM and load the
 * program; 0, or -1 with the loader's error in why (and *status the exit
 * status a shell would give). */
int session_open(struct session *s, const char *path, char *const argv[], char *const envp[],
                 const elfemu_config *cfg, char *why, size_t why_size, int *status);
/* Stop the runner (it frees the VM and runner_serve() returns) and free
 * the session.  false when that cannot be done: the guest is blocked in a
 * host call, other guest threads exist (freeing the space under them is not
 * safe), or the process is ending; the caller then ends the process. */
bool session_close(struct session *s);

/* Before a command: the current state becomes "the stop before". */
void session_mark(struct session *s);

/* One instruction (nothing once the guest has ended, or while the runner
 * is busy); session_poll() collects it. */
void session_step(struct session *s);

/* Start a run towards a goal; session_poll() makes the progress. */
void session_run_free(struct session *s);
void session_run_to_syscall(struct session *s);
/* A call instruction at rip: run until it returns; else one step. */
void session_step_over(struct session *s);
/* false (and a status) when the program has no symbol main. */
bool session_run_to_main(struct session *s);
void session_pause(struct session *s);

/* Drive the runner: wait up to wait_ms (-1: until it is idle) for the
 * request out, collect its result, post the next slice of a run.  true
 * while a request is out or a run goes on. */
bool session_poll(struct session *s, int wait_ms);

/* The runner's side (runner.c calls these on its thread). */
int session_load(struct session *s);
void session_unload(struct session *s);
void session_do_step(struct session *s);
void session_do_advance(struct session *s);
/* The program ended this way (run_exited, run_exit and run_status). */
void session_ended(struct session *s, const elfemu_exit *x);

/* Breakpoints: an address (0x... or decimal) or a symbol; 0, or -1 with
 * the reason in status.  session_toggle_breakpoint() adds or removes. */
int session_add_breakpoint(struct session *s, const char *where);
void session_toggle_breakpoint(struct session *s, uint64_t addr);
bool session_is_breakpoint(const struct session *s, uint64_t addr);

/* Decode the instruction at addr into text (Intel syntax) and its length;
 * false when the bytes cannot be read or decoded. */
bool session_disasm(struct session *s, uint64_t addr, char *text, size_t size, unsigned *len,
                    bool *is_call);

/* The address of main (the program's own symbol), or 0. */
uint64_t session_main(struct session *s);

#endif
