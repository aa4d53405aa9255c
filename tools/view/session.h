/* elfemu-view: the guest under the viewer's control (tools/view/session.c):
 * loading, stepping, running towards a goal (a breakpoint, the next
 * syscall, main, the return of a call) in slices so the window stays
 * live, the syscall log and the program's output caught by the syscall
 * hooks.  No drawing here. */
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

/* Where a run is going. */
enum run_goal {
    GOAL_NONE,          /* stopped */
    GOAL_FREE,          /* until a breakpoint or the end (run) */
    GOAL_SYSCALL,       /* until a syscall has been made */
    GOAL_ADDRESS,       /* until rip == goal_addr with rsp >= goal_sp (main, step over) */
};

struct session {
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
    struct textlog *syslog;     /* "write(1, 0x4020, 6) = 6" */
    struct textlog *output;     /* what the guest wrote to fds 1 and 2 */
    char status[160];           /* the last thing that happened, for the status line */
};

/* Create the VM and load the program; 0, or -1 with the loader's error in
 * why (and *status the exit status a shell would give). */
int session_open(struct session *s, const char *path, char *const argv[], char *const envp[],
                 const elfemu_config *cfg, char *why, size_t why_size, int *status);
void session_close(struct session *s);

/* Before a command: the current state becomes "the stop before". */
void session_mark(struct session *s);

/* One instruction (nothing once the guest has ended). */
void session_step(struct session *s);

/* Start a run towards a goal; session_advance() makes the progress. */
void session_run_free(struct session *s);
void session_run_to_syscall(struct session *s);
/* A call instruction at rip: run until it returns; else one step. */
void session_step_over(struct session *s);
/* false (and a status) when the program has no symbol main. */
bool session_run_to_main(struct session *s);
void session_pause(struct session *s);

/* Run up to @p budget instructions towards the goal; true while it is
 * still going. */
bool session_advance(struct session *s, uint64_t budget);

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
