/* elfemu-view: the guest under the viewer's control (see session.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "tools/disasm.h"
#include "tools/exit_like.h"
#include "tools/view/park.h"
#include "tools/view/runner.h"
#include "tools/view/session.h"

/* ------------------------------------------------------------ syscall hooks */

static bool named(const elfemu_syscall *call, const char *const *names)
{
    const char *name = elfemu_syscall_name(call->bits, call->nr);
    for (; name && *names; names++)
        if (!strcmp(name, *names))
            return true;
    return false;
}

/* The library's --strace lines, one at a time, on the guest thread whose
 * line it is: the syscall pane shows what `elfemu --strace` prints.  Not
 * in the child of a guest fork: the pane is the parent's, and the logs'
 * lock may have been held by the window's thread at the fork (the child's
 * first line comes before the hook that marks it, park_fork_child()). */
static void strace_line(const char *line, size_t len, void *user)
{
    struct session *s = user;
    if (park_forked() || getpid() != s->pid)
        return;
    pthread_mutex_lock(&s->log_lock);
    textlog_add(s->syslog, line, len);
    pthread_mutex_unlock(&s->log_lock);
}

/* What the guest wrote to its stdout or stderr, for the output pane (the
 * write itself went to the real descriptor, as natively). */
static void catch_output(struct session *s, const elfemu_syscall *call)
{
    static const char *const writes[] = { "write", "writev", NULL };
    uint64_t fd = call->args[0];
    if (call->result <= 0 || (fd != 1 && fd != 2) || !named(call, writes))
        return;
    char buf[4096];
    if (!strcmp(elfemu_syscall_name(call->bits, call->nr), "write")) {
        size_t len = (size_t)call->result < sizeof(buf) ? (size_t)call->result : sizeof(buf);
        if (elfemu_read(s->vm, call->args[1], buf, len) == 0)
            textlog_add(s->output, buf, len);
        return;
    }
    /* writev: the iovecs in the guest's layout, as far as the result goes. */
    uint64_t left = (uint64_t)call->result, w = call->bits / 8;
    for (uint64_t i = 0; i < call->args[2] && i < 1024 && left; i++) {
        uint64_t base = 0, len = 0;
        if (elfemu_read(s->vm, call->args[1] + i * 2 * w, &base, w) ||
            elfemu_read(s->vm, call->args[1] + i * 2 * w + w, &len, w))
            break;
        len = len < left ? len : left;
        left -= len;
        for (uint64_t off = 0; off < len; off += sizeof(buf)) {
            size_t n = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);
            if (elfemu_read(s->vm, base + off, buf, n))
                return;
            textlog_add(s->output, buf, n);
        }
    }
}

static void after_syscall(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    struct session *s = user;
    /* The child of a guest fork (a host fork, by fork() or a raw clone)
     * comes back here first.  The window's thread did not come along, and
     * a lock it held (the logs', while drawing them) stays held in the
     * child: from now on the child takes none of the viewer's locks. */
    static const char *const forks[] = { "fork", "vfork", "clone", "clone3", NULL };
    if (park_forked())
        return;
    if (call->result == 0 && named(call, forks) && getpid() != s->pid) {
        park_fork_child();
        return;
    }
    pthread_mutex_lock(&s->log_lock);
    catch_output(s, call);
    pthread_mutex_unlock(&s->log_lock);
    static const char *const remaps[] = { "mmap", "mmap2", "munmap", "mprotect", "mremap",
                                          "brk", "shmat", "shmdt", NULL };
    if (named(call, remaps)) {
        /* Any guest thread may be here: the symbols are told on the
         * viewer's thread (refresh()). */
        __atomic_add_fetch(&s->maps_gen, 1, __ATOMIC_RELAXED);
    }
    static const char *const clones[] = { "clone", "clone3", NULL };
    if (call->result > 0 && named(call, clones))
        park_thread_created(s);
    if (t == elfemu_main_thread(vm)) /* "the next syscall" is the stepped thread's */
        s->syscall_seen = true;
}

/* ------------------------------------------------------------ life cycle */

int session_init(struct session *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->log_lock, NULL);
    pthread_mutex_init(&s->run_lock, NULL);
    pthread_cond_init(&s->run_cond, NULL);
    s->syslog = calloc(1, sizeof(*s->syslog));
    s->output = calloc(1, sizeof(*s->output));
    return s->syslog && s->output ? 0 : -1;
}

int session_open(struct session *s, const char *path, char *const argv[], char *const envp[],
                 const elfemu_config *cfg, char *why, size_t why_size, int *status)
{
    s->path = path, s->argv = argv, s->envp = envp, s->cfg = cfg;
    s->why = why, s->why_size = why_size;
    s->load_status = 1;
    if (runner_open(s) != 0) {
        *status = s->load_status;
        return -1;
    }
    elfemu_get_regs(s->vm, &s->regs);
    elfemu_get_fpstate(s->vm, s->fp);
    s->prev = s->regs;
    memcpy(s->prev_fp, s->fp, sizeof(s->fp));
    snprintf(s->status, sizeof(s->status), "loaded: at the %s's entry point",
             s->li->has_interp ? "interpreter" : "program");
    return 0;
}

/* On the runner: create the VM, load the program, install the hooks. */
int session_load(struct session *s)
{
    /* The syscall pane's lines are the library's --strace lines. */
    elfemu_config traced = *s->cfg;
    traced.strace = true;
    traced.strace_line = strace_line;
    traced.strace_line_user = s;
    s->vm = elfemu_create(&traced);
    if (!s->vm) {
        snprintf(s->why, s->why_size, "out of memory");
        return -1;
    }
    elfemu_error err;
    if (elfemu_load(s->vm, s->path, s->argv, s->envp, &err) != 0) {
        snprintf(s->why, s->why_size, "%s", err.message);
        s->load_status = err.status;
        return -1;
    }
    s->li = elfemu_get_load_info(s->vm);
    s->bits = elfemu_bits(s->vm);
    s->syms = syms_new(s->vm);
    s->pid = getpid();
    s->hook_id = s->syms ? elfemu_hook_syscall(s->vm, NULL, after_syscall, s) : -1;
    if (s->hook_id < 0 || runner_hooks(s) != 0 || park_init(s) != 0) {
        snprintf(s->why, s->why_size, "out of memory");
        return -1;
    }
    return 0;
}

/* On the runner, the VM's own thread: free what session_load() made. */
void session_unload(struct session *s)
{
    if (s->syms)
        syms_free(s->syms);
    s->syms = NULL;
    if (s->vm)
        elfemu_destroy(s->vm);
    s->vm = NULL;
}

bool session_close(struct session *s)
{
    if (!runner_stop(s))
        return false;
    free(s->syslog);
    free(s->output);
    memset(s, 0, sizeof(*s));
    return true;
}

void session_mark(struct session *s)
{
    if (s->posted)
        return; /* the state is not ours to read while the runner works */
    s->prev = s->regs;
    memcpy(s->prev_fp, s->fp, sizeof(s->fp));
}

/* ------------------------------------------------------------ on the runner */

/* A guest fork is a host fork: the child process is a copy of the viewer
 * whose window belongs to the parent.  The child runs its guest on to the
 * end without a window and ends as it does, as elfemu would. */
static __attribute__((noreturn)) void child_runs_on(struct session *s, int stepped)
{
    elfemu_hook_remove(s->vm, s->hook_id);
    elfemu_exit x = s->run_exit;
    if (stepped == 0 && elfemu_run(s->vm, &x) != 0)
        _exit(127);
    /* No exit(): the host's atexit handlers and destructors are the
     * window's (SDL's, the renderer's threads), which the child has not. */
    if (!x.signaled)
        _exit(x.code);
    exit_like(&x);
}

static void step_once(struct session *s)
{
    s->syscall_seen = false;
    int r = elfemu_step(s->vm, &s->run_exit);
    if (getpid() != s->pid)
        child_runs_on(s, r);
    if (r < 0) {
        s->run_exited = true;
        snprintf(s->run_status, sizeof(s->run_status), "emulator error: the guest cannot go on");
    } else if (r > 0) {
        session_ended(s, &s->run_exit);
    }
}

void session_ended(struct session *s, const elfemu_exit *x)
{
    s->run_exited = true;
    s->run_exit = *x;
    if (x->signaled)
        snprintf(s->run_status, sizeof(s->run_status), "the program was killed by signal %d (%s)",
                 x->code, sigabbrev_np(x->code) ? sigabbrev_np(x->code) : "?");
    else
        snprintf(s->run_status, sizeof(s->run_status), "the program exited with status %d",
                 x->code);
}

void session_do_step(struct session *s)
{
    s->run_status[0] = 0;
    s->run_reached = false;
    park_settle(s); /* one instruction of this thread alone */
    step_once(s);
    if (!s->run_exited)
        snprintf(s->run_status, sizeof(s->run_status), "stepped one instruction");
}

static bool req_breakpoint(const struct session *s, uint64_t addr)
{
    for (unsigned i = 0; i < s->req_nbp; i++)
        if (s->req_bp[i] == addr)
            return true;
    return false;
}

/* Up to req_budget instructions towards req_goal; run_reached when there.
 * The status of an address reached is made by the UI thread (it names the
 * symbol: the symbols are the UI thread's). */
void session_do_advance(struct session *s)
{
    s->run_status[0] = 0;
    s->run_reached = s->run_breakpoint = false;
    for (uint64_t i = 0; i < s->req_budget && !s->run_exited; i++) {
        if (__atomic_load_n(&s->pause_req, __ATOMIC_ACQUIRE))
            break;
        step_once(s);
        if (s->run_exited)
            break;
        elfemu_regs r;
        elfemu_get_regs(s->vm, &r);
        uint64_t rip = r.rip, rsp = r.gpr[ELFEMU_RSP];
        s->run_rip = rip;
        if (s->req_goal == GOAL_SYSCALL && s->syscall_seen) {
            s->run_reached = true;
            snprintf(s->run_status, sizeof(s->run_status), "stopped after a syscall");
        } else if (s->req_goal == GOAL_ADDRESS && rip == s->req_addr && rsp >= s->req_sp) {
            s->run_reached = true;
        } else if (req_breakpoint(s, rip)) {
            s->run_reached = s->run_breakpoint = true; /* the UI names it (collect()) */
        }
        if (s->run_reached) {
            park_set_free(s, false); /* the others stop with us, not when the UI looks */
            break;
        }
    }
}

/* ------------------------------------------------------------ on the UI thread */

static void refresh(struct session *s)
{
    unsigned gen = __atomic_load_n(&s->maps_gen, __ATOMIC_RELAXED);
    if (gen != s->syms_gen) {
        syms_changed(s->syms);
        s->syms_gen = gen;
    }
    if (s->shown_tid && park_show(s, s->shown_tid))
        return;
    s->shown_tid = 0;
    elfemu_get_regs(s->vm, &s->regs);
    elfemu_get_fpstate(s->vm, s->fp);
}

static void set_goal(struct session *s, enum run_goal goal)
{
    s->goal = goal;
    park_set_free(s, goal != GOAL_NONE);
}

/* A request finished: its results become the session's. */
static void collect(struct session *s)
{
    s->posted = false;
    __atomic_store_n(&s->pause_req, 0, __ATOMIC_RELEASE);
    s->exited = s->run_exited;
    s->exit = s->run_exit;
    if (s->run_exited || s->run_reached)
        set_goal(s, GOAL_NONE);
    s->shown_tid = 0; /* a command shows the first thread again */
    refresh(s);
    char sym[128];
    bool named = s->run_reached && syms_format(s->syms, s->run_rip, sym, sizeof(sym));
    if (s->run_status[0])
        snprintf(s->status, sizeof(s->status), "%s", s->run_status);
    else if (s->run_breakpoint)
        snprintf(s->status, sizeof(s->status), "breakpoint at %#" PRIx64 "%s%s%s", s->run_rip,
                 named ? " <" : "", named ? sym : "", named ? ">" : "");
    else if (named)
        snprintf(s->status, sizeof(s->status), "stopped at %s", sym);
    else if (s->run_reached)
        snprintf(s->status, sizeof(s->status), "stopped at %#" PRIx64, s->run_rip);
    else if (s->goal != GOAL_NONE)
        snprintf(s->status, sizeof(s->status), "%s", s->goal_what);
}

static void post(struct session *s, enum run_request req)
{
    s->req_goal = s->goal;
    s->req_addr = s->goal_addr;
    s->req_sp = s->goal_sp;
    s->req_budget = 50000;
    memcpy(s->req_bp, s->bp, sizeof(s->bp));
    s->req_nbp = s->nbp;
    s->posted = true;
    runner_post(s, req);
}

bool session_poll(struct session *s, int wait_ms)
{
    if (s->posted) {
        if (!runner_wait(s, wait_ms)) {
            int nr = __atomic_load_n(&s->in_call, __ATOMIC_ACQUIRE) - 1;
            const char *name = nr >= 0 ? elfemu_syscall_name(s->bits, (uint64_t)nr) : NULL;
            if (name)
                snprintf(s->status, sizeof(s->status),
                         "the program waits in %s() (c or space pauses when it returns; q quits)",
                         name);
            return true;
        }
        collect(s);
    }
    if (s->goal != GOAL_NONE && !s->exited) {
        post(s, REQ_ADVANCE);
        return true;
    }
    return false;
}

void session_step(struct session *s)
{
    if (s->exited || s->posted)
        return;
    post(s, REQ_STEP);
}

static void start(struct session *s, enum run_goal goal, const char *what)
{
    if (s->exited)
        return;
    set_goal(s, goal);
    snprintf(s->goal_what, sizeof(s->goal_what), "%s", what);
    snprintf(s->status, sizeof(s->status), "%s", what);
}

void session_run_free(struct session *s) { start(s, GOAL_FREE, "running"); }

void session_run_to_syscall(struct session *s)
{
    start(s, GOAL_SYSCALL, "running to the next syscall");
}

void session_pause(struct session *s)
{
    if (s->goal != GOAL_NONE)
        snprintf(s->status, sizeof(s->status), "paused");
    set_goal(s, GOAL_NONE);
    __atomic_store_n(&s->pause_req, 1, __ATOMIC_RELEASE);
}

void session_step_over(struct session *s)
{
    char text[96];
    unsigned len;
    bool is_call = false;
    if (s->posted)
        return;
    if (s->exited || !session_disasm(s, s->regs.rip, text, sizeof(text), &len, &is_call) ||
        !is_call) {
        session_step(s);
        return;
    }
    /* Back at the next instruction with the stack as it was: the call
     * returned (a recursive call passes the address deeper down). */
    s->goal_addr = s->regs.rip + len;
    s->goal_sp = s->regs.gpr[ELFEMU_RSP];
    start(s, GOAL_ADDRESS, "stepping over the call");
}

uint64_t session_main(struct session *s)
{
    uint64_t a[8];
    size_t n = syms_addresses(s->syms, "main", a, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        if (a[i] >= s->li->program.start && a[i] < s->li->program.end)
            return a[i];
    return 0;
}

bool session_run_to_main(struct session *s)
{
    uint64_t m = session_main(s);
    if (!m) {
        snprintf(s->status, sizeof(s->status), "the program has no symbol main");
        return false;
    }
    s->goal_addr = m;
    s->goal_sp = 0;
    start(s, GOAL_ADDRESS, "running to main");
    return true;
}

bool session_is_breakpoint(const struct session *s, uint64_t addr)
{
    for (unsigned i = 0; i < s->nbp; i++)
        if (s->bp[i] == addr)
            return true;
    return false;
}

/* ------------------------------------------------------------ breakpoints */

void session_toggle_breakpoint(struct session *s, uint64_t addr)
{
    for (unsigned i = 0; i < s->nbp; i++)
        if (s->bp[i] == addr) {
            s->bp[i] = s->bp[--s->nbp];
            snprintf(s->status, sizeof(s->status), "breakpoint at %#" PRIx64 " removed", addr);
            return;
        }
    if (s->nbp == SESSION_MAX_BREAKPOINTS) {
        snprintf(s->status, sizeof(s->status), "too many breakpoints (at most %d)",
                 SESSION_MAX_BREAKPOINTS);
        return;
    }
    s->bp[s->nbp++] = addr;
    snprintf(s->status, sizeof(s->status), "breakpoint at %#" PRIx64, addr);
}

int session_add_breakpoint(struct session *s, const char *where)
{
    uint64_t addr = 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(where, &end, 0);
    if (where[0] >= '0' && where[0] <= '9' && !*end && !errno) {
        addr = v;
    } else if (!syms_addresses(s->syms, where, &addr, 1)) {
        snprintf(s->status, sizeof(s->status), "no symbol %.100s", where);
        return -1;
    }
    if (!session_is_breakpoint(s, addr))
        session_toggle_breakpoint(s, addr);
    return 0;
}

/* ------------------------------------------------------------ disassembly */

bool session_disasm(struct session *s, uint64_t addr, char *text, size_t size, unsigned *len,
                    bool *is_call)
{
    uint8_t bytes[15];
    unsigned n = sizeof(bytes);
    /* The instruction may end just before an unreadable page. */
    while (n > 0 && elfemu_read(s->vm, addr, bytes, n) != 0)
        n--;
    struct disasm d;
    if (n == 0 || !disasm_one(s->bits, false, addr, bytes, n, &d))
        return false;
    *len = d.len;
    if (is_call)
        *is_call = d.is_call;
    size_t k = (size_t)snprintf(text, size, "%s", d.text);
    /* Name the target of a direct call or jump. */
    char sym[128];
    if (d.has_target && k < size && syms_format(s->syms, d.target, sym, sizeof(sym)))
        snprintf(text + k, size - k, " <%s>", sym);
    return true;
}
