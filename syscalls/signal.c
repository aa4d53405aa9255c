/* Guest signals: dispositions, masks, the host handler and its queue,
 * delivery, and the signal syscalls (see syscalls/signal.h for the model).
 *
 * Host calls here are raw syscalls with 64-bit masks: glibc's wrappers
 * hide signals 32 and 33 (its own SIGCANCEL and SIGSETXID), which belong
 * to the guest's C library. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/strace.h"
#include "syscalls/syscalls.h"

/* The signals of synchronous faults: elfemu needs them itself, so they
 * are never blocked on the host and always have elfemu's handler. */
#define SYNC_SIGS (GSIG_BIT(SIGSEGV) | GSIG_BIT(SIGBUS) | GSIG_BIT(SIGILL) | GSIG_BIT(SIGFPE) | \
                   GSIG_BIT(SIGTRAP))
/* The kernel delivers these first when several are pending (SYNCHRONOUS_MASK). */
#define SYNC_FIRST (SYNC_SIGS | GSIG_BIT(SIGSYS))
#define UNBLOCKABLE (GSIG_BIT(SIGKILL) | GSIG_BIT(SIGSTOP))
#define KSIGRTMIN 32 /* the kernel's: 32 and above queue every instance */

/* The sa_flags the kernel keeps (UAPI_SA_FLAGS, x86: + SA_RESTORER). */
#define K_SA_RESTORER 0x04000000ull
#define K_SA_EXPOSE_TAGBITS 0x800ull
#define KEPT_SA_FLAGS                                                                   \
    ((uint64_t)(SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART |    \
                SA_NODEFER | SA_RESETHAND) |                                            \
     K_SA_EXPOSE_TAGBITS | K_SA_RESTORER)

#define GSIG_DFL 0ull
#define GSIG_IGN 1ull

/* The process's guest dispositions, shared by all its threads; a spin
 * lock because the section is short and a fork child must find it free. */
static struct gsigaction actions[GSIG_MAX + 1];
static int actions_lock;
/* The guest CPU running on this host thread, for the host handler. */
static __thread struct cpu *self;

static void lock_actions(void)
{
    while (__atomic_exchange_n(&actions_lock, 1, __ATOMIC_ACQUIRE))
        ;
}

static void unlock_actions(void)
{
    __atomic_store_n(&actions_lock, 0, __ATOMIC_RELEASE);
}

struct gsigaction sig_action(int sig)
{
    lock_actions();
    struct gsigaction a = actions[sig];
    unlock_actions();
    return a;
}

/* ------------------------------------------------------------ host side */

/* The host's struct kernel_sigaction, and a restorer for it. */
struct host_ksigaction {
    void *handler;
    uint64_t flags;
    void (*restorer)(void);
    uint64_t mask;
};
void elfemu_sig_restorer(void) __attribute__((visibility("hidden")));
__asm__(".pushsection .text\n"
        ".globl elfemu_sig_restorer\n"
        ".hidden elfemu_sig_restorer\n"
        ".type elfemu_sig_restorer,@function\n"
        "elfemu_sig_restorer:\n"
        "\tmov $15, %eax\n" /* rt_sigreturn */
        "\tsyscall\n"
        "\thlt\n"
        ".size elfemu_sig_restorer, .-elfemu_sig_restorer\n"
        ".popsection\n");

static void host_setmask(uint64_t m)
{
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, 8);
}

static uint64_t host_block_all(void)
{
    uint64_t all = ~0ull, old = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
    return old;
}

/* The host mask that mirrors guest mask m. */
static uint64_t host_mask_of(uint64_t m)
{
    return m & ~SYNC_SIGS;
}

static bool default_ignores(int sig)
{
    return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

static bool default_stops(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void host_handler(int sig, siginfo_t *si, void *uc);

/* Give sig the host disposition that serves guest action g: ignored
 * signals are ignored by the host kernel (which then also reaps children
 * for an ignored SIGCHLD), signals whose default is to be ignored or to
 * stop keep the host default (the kernel stops the process itself), and
 * all others come to host_handler.  SIGSEGV and SIGBUS belong to
 * mm/fault.c, which hands the sent ones to us. */
static void host_install(int sig, const struct gsigaction *g)
{
    if (sig == SIGKILL || sig == SIGSTOP || sig == SIGSEGV || sig == SIGBUS)
        return;
    struct host_ksigaction k = { 0 };
    bool sync = GSIG_BIT(sig) & SYNC_SIGS;
    /* Under --strace every signal comes to us, so that ignored ones are
     * shown as strace shows them (deliver_one() then drops them). */
    if (!sync && g->handler == GSIG_IGN && !strace_on)
        k.handler = SIG_IGN;
    else if (!sync && g->handler == GSIG_DFL && (default_ignores(sig) || default_stops(sig)) &&
             !strace_on)
        k.handler = SIG_DFL;
    else {
        k.handler = (void *)host_handler;
        k.flags = SA_SIGINFO | K_SA_RESTORER;
        k.restorer = elfemu_sig_restorer;
        k.mask = ~0ull;
    }
    if (sig == SIGCHLD)
        k.flags |= g->flags & (SA_NOCLDSTOP | SA_NOCLDWAIT);
    syscall(SYS_rt_sigaction, sig, &k, NULL, 8);
}

/* ------------------------------------------------------------ the queue
 * Filled by the host handler on this thread; taken from by this thread
 * with all host signals blocked. */

static void enqueue(struct sig_thread *t, const siginfo_t *si)
{
    int sig = si->si_signo;
    unsigned n = t->nq;
    /* A standard signal is pending once at most; real-time ones queue. */
    if (sig < KSIGRTMIN)
        for (unsigned i = 0; i < n; i++)
            if (t->q[i].si_signo == sig)
                return;
    if (n == SIGQ_MAX)
        return;
    t->q[n] = *si;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->nq = n + 1;
}

static uint64_t queued_set(const struct sig_thread *t)
{
    uint64_t s = 0;
    unsigned n = __atomic_load_n(&t->nq, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        s |= GSIG_BIT(t->q[i].si_signo);
    return s;
}

/* Take the signal to deliver next among those not in blocked: synchronous
 * ones first, then the lowest number, each in arrival order. */
static bool dequeue(struct sig_thread *t, uint64_t blocked, siginfo_t *out)
{
    uint64_t ok = queued_set(t) & ~blocked;
    if (!ok)
        return false;
    if (ok & SYNC_FIRST)
        ok &= SYNC_FIRST;
    int sig = __builtin_ctzll(ok) + 1;
    for (unsigned i = 0; i < t->nq; i++) {
        if (t->q[i].si_signo != sig)
            continue;
        *out = t->q[i];
        memmove(&t->q[i], &t->q[i + 1], (t->nq - i - 1) * sizeof(t->q[0]));
        t->nq--;
        return true;
    }
    return false;
}

static void raise_attention(struct cpu *c)
{
    cpu_attention_raise(c, CPU_ATTN_SIGNAL);
}

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

/* Every caught host signal: queue it for this thread's guest.  Runs with
 * all host signals blocked (k.mask above). */
static void host_handler(int sig, siginfo_t *si, void *uc)
{
    if ((GSIG_BIT(sig) & SYNC_SIGS) && si->si_code > 0) {
        /* A fault of elfemu itself (the guest's are raised by the
         * interpreter, never by the host CPU): die of it loudly. */
        say("elfemu: internal error: host ");
        say(sig == SIGILL ? "SIGILL" : sig == SIGFPE ? "SIGFPE" : "SIGTRAP");
        say(" (an emulator bug; please report it)\n");
        signal(sig, SIG_DFL);
        return;
    }
    struct cpu *c = self;
    if (!c || !c->sigt)
        return; /* no guest on this thread (any more) */
    enqueue(c->sigt, si);
    raise_attention(c);
}

/* mm/fault.c's hook for a sent SIGSEGV/SIGBUS (its handler does not block
 * other signals, so we do). */
static void async_fault_hook(int sig, siginfo_t *si, void *uc)
{
    uint64_t old = host_block_all();
    host_handler(sig, si, uc);
    host_setmask(old);
}

/* ------------------------------------------------------------ masks */

/* Set the guest mask and its host mirror; a queued signal it unblocks is
 * delivered at the next block boundary. */
void sig_set_mask(struct cpu *c, uint64_t m)
{
    m &= ~UNBLOCKABLE;
    c->sig_blocked = m;
    host_setmask(host_mask_of(m));
    if (queued_set(c->sigt) & ~m)
        raise_attention(c);
}

/* ------------------------------------------------------------ lifecycle */

static struct sig_thread *new_thread_state(void)
{
    struct sig_thread *t = calloc(1, sizeof(*t));
    if (!t) {
        say("elfemu: out of memory for signal state\n");
        abort();
    }
    t->ss_flags = SS_DISABLE;
    return t;
}

void sig_init(struct cpu *c)
{
    uint64_t old = host_block_all();
    free(c->sigt);
    c->sigt = new_thread_state();
    /* A process's first thread keeps the flags it inherited, 0 from init
     * (only a new thread gets SS_DISABLE, sas_ss_reset()): sigaltstack()
     * with {0, 0, 0} is then "no change" and succeeds, as natively. */
    c->sigt->ss_flags = 0;
    self = c;
    /* What we inherited is the guest's: an ignored signal stays ignored
     * (nohup, a shell's background job) and the mask is the guest's mask. */
    lock_actions();
    for (int sig = 1; sig <= GSIG_MAX; sig++) {
        struct host_ksigaction k;
        memset(&actions[sig], 0, sizeof(actions[sig]));
        if (syscall(SYS_rt_sigaction, sig, NULL, &k, 8) == 0 && k.handler == SIG_IGN)
            actions[sig].handler = GSIG_IGN;
        host_install(sig, &actions[sig]);
    }
    unlock_actions();
    mm_fault_install();
    mm_fault_set_async_hook(async_fault_hook);
    c->sig_blocked = old & ~UNBLOCKABLE;
    host_setmask(host_mask_of(c->sig_blocked));
}

void sig_thread_start(struct cpu *child, struct cpu *parent)
{
    host_block_all();
    child->sigt = new_thread_state(); /* copy_process(): no altstack for a CLONE_VM child */
    __atomic_and_fetch(&child->attention, ~CPU_ATTN_SIGNAL, __ATOMIC_SEQ_CST);
    child->sys_restart = RESTART_NONE;
    self = child;
    sig_set_mask(child, parent->sig_blocked);
}

/* elfemu_destroy() and a reload: the VM's thread state goes; a host signal
 * on this thread then reaches no guest (host_handler drops it). */
void sig_release(struct cpu *c)
{
    uint64_t old = host_block_all();
    if (self == c)
        self = NULL;
    free(c->sigt);
    c->sigt = NULL;
    host_setmask(old);
}

void sig_thread_exit(struct cpu *c)
{
    host_block_all(); /* process-directed signals go to the other threads */
    self = NULL;
    free(c->sigt);
    c->sigt = NULL;
}

void sig_fork_prepare(struct cpu *c)
{
    (void)c;
    host_block_all();
}

void sig_fork_parent(struct cpu *c)
{
    host_setmask(host_mask_of(c->sig_blocked));
}

void sig_fork_child(struct cpu *c)
{
    /* The child starts with no pending signals; what the parent had
     * queued stays the parent's.  Signals sent to the child since the
     * fork wait blocked on the host until the queue is emptied. */
    actions_lock = 0;
    c->sigt->nq = 0;
    c->attention &= ~CPU_ATTN_SIGNAL;
    c->sys_restart = RESTART_NONE;
    host_setmask(host_mask_of(c->sig_blocked));
}

/* clone3(CLONE_CLEAR_SIGHAND) in the new process: the kernel's
 * flush_signal_handlers(p, 0): handlers become SIG_DFL, ignored signals
 * stay ignored, and every flag, mask and restorer is cleared. */
void sig_clear_handlers(struct cpu *c)
{
    (void)c;
    lock_actions();
    for (int sig = 1; sig <= GSIG_MAX; sig++) {
        if (actions[sig].handler != GSIG_IGN)
            actions[sig].handler = GSIG_DFL;
        actions[sig].flags = actions[sig].restorer = actions[sig].mask = 0;
        host_install(sig, &actions[sig]);
    }
    unlock_actions();
}

void sig_prepare_exec(struct cpu *c)
{
    host_block_all();
    /* Signals queued here and not yet delivered stay pending across exec
     * (they are blocked now): hand them back to the host kernel. */
    struct sig_thread *t = c->sigt;
    pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
    for (unsigned i = 0; i < t->nq; i++)
        syscall(SYS_rt_tgsigqueueinfo, pid, tid, t->q[i].si_signo, &t->q[i]);
    t->nq = 0;
    /* Until the execve, a signal with the default action gets it from the
     * host kernel (the new program will have no handler either); ignored
     * signals stay ignored through the exec, as POSIX wants. */
    lock_actions();
    for (int sig = 1; sig <= GSIG_MAX; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP || sig == SIGSEGV || sig == SIGBUS)
            continue;
        if (actions[sig].handler == GSIG_DFL) {
            struct host_ksigaction k = { .handler = SIG_DFL };
            syscall(SYS_rt_sigaction, sig, &k, NULL, 8);
        } else if (actions[sig].handler == GSIG_IGN) {
            /* (under --strace it may be our handler until now) */
            struct host_ksigaction k = { .handler = SIG_IGN };
            syscall(SYS_rt_sigaction, sig, &k, NULL, 8);
        }
    }
    unlock_actions();
    /* The new program inherits the guest's mask, all of it. */
    host_setmask(c->sig_blocked);
}

void sig_exec_failed(struct cpu *c)
{
    host_block_all();
    lock_actions();
    for (int sig = 1; sig <= GSIG_MAX; sig++)
        host_install(sig, &actions[sig]);
    unlock_actions();
    sig_set_mask(c, c->sig_blocked); /* what we requeued comes back to the handler */
}

int sig_mask_swap(struct cpu *c, uint64_t guest_mask, sigset_t *saved, uint64_t *host_wait)
{
    memset(saved, 0, sizeof(*saved));
    memcpy(saved, &c->sig_blocked, sizeof(uint64_t));
    host_block_all();
    uint64_t m = guest_mask & ~UNBLOCKABLE;
    c->sig_blocked = m;
    *host_wait = host_mask_of(m);
    /* A signal already waiting under the new mask: no need to block. */
    if (queued_set(c->sigt) & ~m) {
        host_setmask(*host_wait);
        raise_attention(c);
        return -EINTR;
    }
    return 0;
}

void sig_mask_restore(struct cpu *c, const sigset_t *saved)
{
    uint64_t orig;
    memcpy(&orig, saved, sizeof(orig));
    /* Interrupted by a signal: the temporary mask stays until its handler
     * is set up, whose frame then holds the original one (the kernel's
     * set_restore_sigmask()). */
    if (queued_set(c->sigt) & ~c->sig_blocked) {
        c->sigt->restore_mask = true;
        c->sigt->saved_mask = orig;
        host_setmask(host_mask_of(c->sig_blocked));
        raise_attention(c);
        return;
    }
    sig_set_mask(c, orig);
}

/* ------------------------------------------------------------ delivery */

static void terminate(struct cpu *c, int sig)
{
    /* WIRE(thread): with several guest threads, the whole process dies
     * here (exit_like of tools/elfemu.c runs on the main thread only). */
    c->stop = CPU_SIGNALED;
    c->stop_code = sig;
}

/* A default stop for a signal that reached our handler (its host
 * disposition is ours only in a race with rt_sigaction): let the host
 * kernel stop us with the very signal. */
static void stop_self(int sig)
{
    struct host_ksigaction dfl = { .handler = SIG_DFL }, ours;
    uint64_t m = host_block_all(), one = GSIG_BIT(sig);
    syscall(SYS_rt_sigaction, sig, &dfl, &ours, 8);
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &one, NULL, 8);
    syscall(SYS_rt_sigaction, sig, &ours, NULL, 8);
    host_setmask(m);
}

/* handle_signal()'s syscall restart: the interrupted call fails with EINTR
 * or runs again (rax = its number, rip back on the syscall instruction). */
static void apply_restart(struct cpu *c, bool handler, uint64_t sa_flags)
{
    int kind = c->sys_restart;
    c->sys_restart = RESTART_NONE;
    bool again;
    switch (kind) {
    case RESTART_SYS: again = !handler || (sa_flags & SA_RESTART); break;
    case RESTART_NOINTR: again = true; break;
    case RESTART_NOHAND:
    case RESTART_BLOCK: again = !handler; break;
    default: return;
    }
    if (again) {
        c->r[R_AX] = c->sys_nr;
        c->rip -= 2; /* the length of SYSCALL */
    }
}

/* Act on one signal taken from the queue (or raised by a fault). */
static void deliver_one(struct cpu *c, const siginfo_t *si)
{
    int sig = si->si_signo;
    /* As strace shows every signal its tracee stops for, ignored ones too. */
    if (UNLIKELY(strace_on))
        strace_signal(c, si);
    lock_actions();
    struct gsigaction act = actions[sig];
    if (act.handler > GSIG_IGN && (act.flags & SA_RESETHAND)) {
        /* SA_RESETHAND: this delivery is the handler's last. */
        actions[sig].handler = GSIG_DFL;
        host_install(sig, &actions[sig]);
    }
    unlock_actions();
    if (act.handler == GSIG_IGN)
        return;
    if (act.handler == GSIG_DFL) {
        if (default_ignores(sig))
            return;
        if (default_stops(sig)) {
            stop_self(sig);
            return;
        }
        terminate(c, sig);
        return;
    }
    apply_restart(c, true, act.flags);
    struct sig_thread *t = c->sigt;
    uint64_t old = t->restore_mask ? t->saved_mask : c->sig_blocked;
    t->restore_mask = false;
    if (!(c->bits == 64 ? sig_push_frame(c, si, &act, old) : sig_push_frame32(c, si, &act, old))) {
        /* force_sigsegv(): no frame, no handler. */
        terminate(c, SIGSEGV);
        return;
    }
    uint64_t m = c->sig_blocked | act.mask;
    if (!(act.flags & SA_NODEFER))
        m |= GSIG_BIT(sig);
    sig_set_mask(c, m);
}

void sig_deliver(struct cpu *c)
{
    __atomic_and_fetch(&c->attention, ~CPU_ATTN_SIGNAL, __ATOMIC_SEQ_CST);
    struct sig_thread *t = c->sigt;
    if (!t)
        return;
    for (;;) {
        siginfo_t si;
        uint64_t old = host_block_all();
        bool got = dequeue(t, c->sig_blocked, &si);
        host_setmask(old);
        if (!got)
            break;
        deliver_one(c, &si);
        if (c->stop != CPU_RUNNING)
            return;
    }
    /* No handler ran: an interrupted call starts again and a temporary
     * mask ends (rt_sigsuspend, ppoll...). */
    apply_restart(c, false, 0);
    if (t->restore_mask) {
        t->restore_mask = false;
        sig_set_mask(c, t->saved_mask);
    }
}

/* The trap number and error code a fault's sigcontext shows (the
 * thread's trap_nr, error_code and cr2 in the kernel). */
static void note_trap(struct cpu *c)
{
    struct sig_thread *t = c->sigt;
    uint64_t addr = c->fault_addr;
    t->err = 0;
    if (c->fault_trap >= 0) {
        t->trapno = (uint64_t)c->fault_trap;
        c->fault_trap = -1;
        return;
    }
    switch (c->fault_sig) {
    case SIGSEGV:
    case SIGBUS:
        if (c->fault_code == SI_KERNEL) {
            t->trapno = 13; /* #GP */
            break;
        }
        t->trapno = 14;
        t->cr2 = addr;
        if (c->fault_err >= 0) { /* the host MMU's own */
            t->err = (uint64_t)c->fault_err;
            break;
        }
        t->err = 4; /* #PF: user, write, present, instruction fetch */
        if (c->fault_write)
            t->err |= 2;
        const struct mm_vma *v = mm_find_vma(c->mm, addr);
        if (v && v->prot != PROT_NONE)
            t->err |= 1;
        if (addr - c->rip < 16 && !c->fault_write)
            t->err |= 0x10;
        break;
    case SIGFPE: t->trapno = c->fault_code <= 2 ? 0 : 16; break; /* #DE, else #MF */
    case SIGILL: t->trapno = 6; break;
    case SIGTRAP: t->trapno = 3; break;
    default: break;
    }
}

bool sig_fault(struct cpu *c)
{
    int sig = c->fault_sig;
    if (!c->sigt) {
        cpu_raise(c, sig);
        return false;
    }
    note_trap(c);
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    si.si_signo = sig;
    si.si_code = c->fault_code;
    if (c->fault_code != SI_KERNEL)
        si.si_addr = (void *)(uintptr_t)c->fault_addr;
    /* force_sig_fault(): a blocked or ignored fault signal kills. */
    struct gsigaction act = sig_action(sig);
    if (act.handler <= GSIG_IGN || (c->sig_blocked & GSIG_BIT(sig))) {
        if (UNLIKELY(strace_on))
            strace_signal(c, &si);
        terminate(c, sig);
        return false;
    }
    deliver_one(c, &si);
    return c->stop == CPU_RUNNING;
}

/* Which restart an interrupted call gets (the -ERESTART* code the kernel's
 * implementation returns, see signal(7) "Interruption of system calls"). */
int sig_restart_kind(uint64_t nr, const uint64_t a[6])
{
    switch (nr) {
    case 15:  /* rt_sigreturn: its result is the restored rax */
    case 128: /* rt_sigtimedwait */
    case 232: /* epoll_wait */
    case 281: /* epoll_pwait */
    case 441: /* epoll_pwait2 */
    case 65:  /* semop */
    case 220: /* semtimedop */
    case 69:  /* msgsnd */
    case 70:  /* msgrcv */
    case 208: /* io_getevents */
        return RESTART_NONE;
    case 34:  /* pause */
    case 130: /* rt_sigsuspend */
    case 23:  /* select */
    case 270: /* pselect6 */
    case 271: /* ppoll */
        return RESTART_NOHAND;
    case 35:  /* nanosleep */
    case 230: /* clock_nanosleep */
    case 7:   /* poll */
        return RESTART_BLOCK;
    case 202: /* futex: a wait with a timeout restarts through restart_syscall */
        return a[3] ? RESTART_BLOCK : RESTART_SYS;
    default:
        return RESTART_SYS;
    }
}

void sig_interrupted(struct cpu *c, uint64_t nr, const uint64_t a[6])
{
    c->sys_nr = nr;
    c->sys_restart = sig_restart_kind(nr, a);
}

/* ------------------------------------------------------------ syscalls */

/* The signals a fault raises: with a handler for one, the guest sees the
 * registers and flags at a fault (cpu/block.c "Flags at a fault"). */
#define FAULT_SIGNALS (GSIG_BIT(SIGSEGV) | GSIG_BIT(SIGBUS) | GSIG_BIT(SIGFPE) | GSIG_BIT(SIGILL) | GSIG_BIT(SIGTRAP))

int sig_do_action(struct cpu *c, int sig, const struct gsigaction *act, struct gsigaction *old)
{
    if (sig < 1 || sig > GSIG_MAX || (act && (sig == SIGKILL || sig == SIGSTOP)))
        return -EINVAL;
    lock_actions();
    if (old)
        *old = actions[sig];
    if (act) {
        struct gsigaction k = *act;
        k.flags &= KEPT_SA_FLAGS;
        k.mask &= ~UNBLOCKABLE;
        actions[sig] = k;
        host_install(sig, &k);
    }
    unlock_actions();
    if (act && act->handler > GSIG_IGN && (GSIG_BIT(sig) & FAULT_SIGNALS))
        cpu_faults_observed(c->mm);
    return 0;
}

/* rt_sigaction(sig, act, oact, sigsetsize) */
int64_t sys_rt_sigaction(struct cpu *c, const uint64_t a[6])
{
    if (a[3] != 8)
        return -EINVAL;
    struct gsigaction act, old;
    if (a[1] && copy_from_guest(c, &act, a[1], sizeof(act)) != 0)
        return -EFAULT;
    if (a[0] < 1 || a[0] > GSIG_MAX)
        return -EINVAL;
    int r = sig_do_action(c, (int)a[0], a[1] ? &act : NULL, &old);
    if (r)
        return r;
    if (a[2] && copy_to_guest(c, a[2], &old, sizeof(old)) != 0)
        return -EFAULT;
    return 0;
}

/* rt_sigprocmask(how, set, oset, sigsetsize) */
int64_t sys_rt_sigprocmask(struct cpu *c, const uint64_t a[6])
{
    if (a[3] != 8)
        return -EINVAL;
    uint64_t old = c->sig_blocked, set;
    if (a[1]) {
        if (copy_from_guest(c, &set, a[1], 8) != 0)
            return -EFAULT;
        switch (a[0]) {
        case SIG_BLOCK: sig_set_mask(c, old | set); break;
        case SIG_UNBLOCK: sig_set_mask(c, old & ~set); break;
        case SIG_SETMASK: sig_set_mask(c, set); break;
        default: return -EINVAL;
        }
    }
    if (a[2] && copy_to_guest(c, a[2], &old, 8) != 0)
        return -EFAULT;
    return 0;
}

/* rt_sigpending(set, sigsetsize): what the host holds blocked for us and
 * what we hold queued, both as far as the guest blocks them. */
int64_t sys_rt_sigpending(struct cpu *c, const uint64_t a[6])
{
    if (a[1] > 8)
        return -EINVAL;
    uint64_t host = 0;
    syscall(SYS_rt_sigpending, &host, 8);
    uint64_t p = (host | queued_set(c->sigt)) & c->sig_blocked;
    return copy_to_guest(c, a[0], &p, a[1]);
}

/* Sleep with guest mask m until a signal for the guest arrives; returns
 * -EINTR with the original mask to be put back after the handler. */
int64_t sig_suspend(struct cpu *c, uint64_t m)
{
    uint64_t orig = c->sig_blocked;
    m &= ~UNBLOCKABLE;
    host_block_all();
    c->sig_blocked = m;
    /* With every host signal blocked, a signal is either queued already
     * or will wake the host sigsuspend: none is missed. */
    if (!(queued_set(c->sigt) & ~m)) {
        uint64_t hm = host_mask_of(m);
        syscall(SYS_rt_sigsuspend, &hm, 8);
    }
    host_setmask(host_mask_of(m));
    c->sigt->restore_mask = true;
    c->sigt->saved_mask = orig;
    raise_attention(c);
    return -EINTR;
}

/* rt_sigsuspend(mask, sigsetsize) */
int64_t sys_rt_sigsuspend(struct cpu *c, const uint64_t a[6])
{
    if (a[1] != 8)
        return -EINVAL;
    uint64_t m;
    if (copy_from_guest(c, &m, a[0], 8) != 0)
        return -EFAULT;
    return sig_suspend(c, m);
}

int64_t sys_pause(struct cpu *c, const uint64_t a[6])
{
    return sig_suspend(c, c->sig_blocked);
}

int64_t sig_timedwait(struct cpu *c, uint64_t set, siginfo_t *si, const struct timespec *ts)
{
    set &= ~UNBLOCKABLE;
    memset(si, 0, sizeof(*si));
    /* One we hold already (a signal of the set the guest does not block). */
    uint64_t old = host_block_all();
    bool got = dequeue(c->sigt, ~set, si);
    host_setmask(old);
    if (got)
        return si->si_signo;
    return host_ret(syscall(SYS_rt_sigtimedwait, &set, si, ts, 8));
}

/* rt_sigtimedwait(set, info, timeout, sigsetsize) */
int64_t sys_rt_sigtimedwait(struct cpu *c, const uint64_t a[6])
{
    if (a[3] != 8)
        return -EINVAL;
    uint64_t set;
    struct timespec ts;
    if (copy_from_guest(c, &set, a[0], 8) != 0)
        return -EFAULT;
    if (a[2] && copy_from_guest(c, &ts, a[2], sizeof(ts)) != 0)
        return -EFAULT;
    siginfo_t si;
    int64_t r = sig_timedwait(c, set, &si, a[2] ? &ts : NULL);
    if (r > 0 && a[1] && copy_to_guest(c, a[1], &si, sizeof(si)) != 0)
        return -EFAULT;
    return r;
}

/* rt_sigqueueinfo(tgid, sig, info) and rt_tgsigqueueinfo(tgid, tid, sig,
 * info): the guest's siginfo has the host's layout. */
int64_t sys_rt_sigqueueinfo(struct cpu *c, const uint64_t a[6])
{
    siginfo_t si;
    if (copy_from_guest(c, &si, a[2], sizeof(si)) != 0)
        return -EFAULT;
    return host_ret(syscall(SYS_rt_sigqueueinfo, (pid_t)a[0], (int)a[1], &si));
}

int64_t sys_rt_tgsigqueueinfo(struct cpu *c, const uint64_t a[6])
{
    siginfo_t si;
    if (copy_from_guest(c, &si, a[3], sizeof(si)) != 0)
        return -EFAULT;
    return host_ret(syscall(SYS_rt_tgsigqueueinfo, (pid_t)a[0], (pid_t)a[1], (int)a[2], &si));
}

/* The guest's stack_t. */
struct gstack {
    uint64_t ss_sp;
    int32_t ss_flags, pad;
    uint64_t ss_size;
};
_Static_assert(sizeof(struct gstack) == 24, "stack_t layout");

#define K_SS_AUTODISARM (1u << 31)
#define K_MINSIGSTKSZ 2048

bool sig_on_altstack(const struct cpu *c, uint64_t sp)
{
    const struct sig_thread *t = c->sigt;
    if (t->ss_flags & K_SS_AUTODISARM)
        return false;
    return sp > t->ss_sp && sp - t->ss_sp <= t->ss_size;
}

int sig_altstack_flags(const struct cpu *c, uint64_t sp)
{
    if (!c->sigt->ss_size)
        return SS_DISABLE;
    return sig_on_altstack(c, sp) ? SS_ONSTACK : 0;
}

void sig_altstack_save(struct cpu *c, void *out, uint64_t sp)
{
    struct sig_thread *t = c->sigt;
    struct gstack g = { .ss_sp = t->ss_sp, .ss_size = t->ss_size };
    g.ss_flags = sig_altstack_flags(c, sp) | (int32_t)(t->ss_flags & K_SS_AUTODISARM);
    memcpy(out, &g, sizeof(g));
}

/* do_sigaltstack() for a stack_t read from the guest, at stack pointer sp. */
int sig_altstack_set(struct cpu *c, const void *in, uint64_t sp)
{
    struct sig_thread *t = c->sigt;
    struct gstack g;
    memcpy(&g, in, sizeof(g));
    if (sig_on_altstack(c, sp))
        return -EPERM;
    uint32_t mode = (uint32_t)g.ss_flags & ~K_SS_AUTODISARM;
    if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
        return -EINVAL;
    if (t->ss_sp == g.ss_sp && t->ss_size == g.ss_size && t->ss_flags == g.ss_flags)
        return 0;
    if (mode == SS_DISABLE) {
        g.ss_sp = g.ss_size = 0;
    } else if (g.ss_size < K_MINSIGSTKSZ) {
        return -ENOMEM;
    }
    t->ss_sp = g.ss_sp;
    t->ss_size = g.ss_size;
    t->ss_flags = g.ss_flags;
    return 0;
}

/* sigaltstack(ss, old_ss) */
int64_t sys_sigaltstack(struct cpu *c, const uint64_t a[6])
{
    struct gstack g, old;
    if (a[0] && copy_from_guest(c, &g, a[0], sizeof(g)) != 0)
        return -EFAULT;
    sig_altstack_save(c, &old, c->r[R_SP]);
    if (a[0]) {
        int r = sig_altstack_set(c, &g, c->r[R_SP]);
        if (r)
            return r;
    }
    if (a[1] && copy_to_guest(c, a[1], &old, sizeof(old)) != 0)
        return -EFAULT;
    return 0;
}
