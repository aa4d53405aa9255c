/* The signal calls of 32-bit guests whose structures differ from the
 * x86_64 ones (kernel/signal.c and kernel/compat.c, the COMPAT_SYSCALL
 * versions): struct compat_sigaction and the old sigaction, the 32-bit
 * old_sigset_t calls, compat_stack_t, compat_siginfo_t, old_timespec32;
 * and the restart bookkeeping of interrupted i386 calls.  The dispositions,
 * masks and queue are the ones signal.c keeps for both ABIs. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/ia32_time.h"
#include "syscalls/syscalls.h"

#define UNBLOCKABLE (GSIG_BIT(SIGKILL) | GSIG_BIT(SIGSTOP))

/* ------------------------------------------------------------ siginfo */

/* siginfo_layout(): which union member a (signal, code) pair uses. */
enum layout { SIL_KILL, SIL_TIMER, SIL_POLL, SIL_FAULT, SIL_MCEERR, SIL_BNDERR, SIL_PKUERR,
              SIL_PERF, SIL_CHLD, SIL_RT, SIL_SYS };

static enum layout layout_of(int sig, int code)
{
    if (code > SI_USER && code < SI_KERNEL) {
        /* The signal-specific codes (the NSIG* of each), then SIGPOLL's. */
        static const struct {
            int sig, limit;
            enum layout l;
        } specific[] = {
            { SIGILL, 11, SIL_FAULT },  { SIGFPE, 15, SIL_FAULT }, { SIGSEGV, 10, SIL_FAULT },
            { SIGBUS, 5, SIL_FAULT },   { SIGTRAP, 6, SIL_FAULT }, { SIGCHLD, 6, SIL_CHLD },
            { SIGPOLL, 6, SIL_POLL },   { SIGSYS, 2, SIL_SYS },
        };
        for (size_t i = 0; i < sizeof(specific) / sizeof(specific[0]); i++) {
            if (specific[i].sig != sig || code > specific[i].limit)
                continue;
            if (sig == SIGBUS && (code == 4 || code == 5)) /* BUS_MCEERR_AR/AO */
                return SIL_MCEERR;
            if (sig == SIGSEGV && code == 3) /* SEGV_BNDERR */
                return SIL_BNDERR;
            if (sig == SIGSEGV && code == 4) /* SEGV_PKUERR */
                return SIL_PKUERR;
            if (sig == SIGTRAP && code == 6) /* TRAP_PERF */
                return SIL_PERF;
            return specific[i].l;
        }
        return code <= 6 /* NSIGPOLL */ ? SIL_POLL : SIL_KILL;
    }
    if (code == SI_TIMER)
        return SIL_TIMER;
    if (code == SI_SIGIO)
        return SIL_POLL;
    return code < 0 ? SIL_RT : SIL_KILL;
}

/* The two layouts as 32-bit words (x86_64: the union at byte 16, pointers
 * and longs 8 bytes; i386: the union at byte 12, everything 4 bytes). */
#define H32(si, off) (*(const uint32_t *)((const uint8_t *)(si) + (off)))
#define H64(si, off) (*(const uint64_t *)((const uint8_t *)(si) + (off)))

static void put32(uint8_t *out, unsigned off, uint32_t v)
{
    memcpy(out + off, &v, 4);
}

static uint32_t get32(const uint8_t *in, unsigned off)
{
    uint32_t v;
    memcpy(&v, in + off, 4);
    return v;
}

static void set32(siginfo_t *si, unsigned off, uint32_t v)
{
    memcpy((uint8_t *)si + off, &v, 4);
}

static void set64(siginfo_t *si, unsigned off, uint64_t v)
{
    memcpy((uint8_t *)si + off, &v, 8);
}

void sig_siginfo_to32(const siginfo_t *si, uint8_t out[128])
{
    memset(out, 0, 128);
    put32(out, 0, (uint32_t)si->si_signo);
    put32(out, 4, (uint32_t)si->si_errno);
    put32(out, 8, (uint32_t)si->si_code);
    switch (layout_of(si->si_signo, si->si_code)) {
    case SIL_KILL: /* pid, uid */
        put32(out, 12, H32(si, 16));
        put32(out, 16, H32(si, 20));
        break;
    case SIL_TIMER: /* tid, overrun, sigval (its int) */
    case SIL_RT:    /* pid, uid, sigval */
        put32(out, 12, H32(si, 16));
        put32(out, 16, H32(si, 20));
        put32(out, 20, H32(si, 24));
        break;
    case SIL_POLL: /* band (long), fd */
        put32(out, 12, (uint32_t)H64(si, 16));
        put32(out, 16, H32(si, 24));
        break;
    case SIL_FAULT: put32(out, 12, (uint32_t)H64(si, 16)); break;
    case SIL_MCEERR: /* addr, addr_lsb (short) */
        put32(out, 12, (uint32_t)H64(si, 16));
        memcpy(out + 16, (const uint8_t *)si + 24, 2);
        break;
    case SIL_BNDERR: /* addr, lower, upper */
        put32(out, 12, (uint32_t)H64(si, 16));
        put32(out, 20, (uint32_t)H64(si, 32));
        put32(out, 24, (uint32_t)H64(si, 40));
        break;
    case SIL_PKUERR: /* addr, pkey */
        put32(out, 12, (uint32_t)H64(si, 16));
        put32(out, 20, H32(si, 32));
        break;
    case SIL_PERF: /* addr, data (long), type, flags */
        put32(out, 12, (uint32_t)H64(si, 16));
        put32(out, 16, (uint32_t)H64(si, 24));
        put32(out, 20, H32(si, 32));
        put32(out, 24, H32(si, 36));
        break;
    case SIL_CHLD: /* pid, uid, status, utime, stime (clock_t) */
        put32(out, 12, H32(si, 16));
        put32(out, 16, H32(si, 20));
        put32(out, 20, H32(si, 24));
        put32(out, 24, (uint32_t)H64(si, 32));
        put32(out, 28, (uint32_t)H64(si, 40));
        break;
    case SIL_SYS: /* call_addr, syscall, arch */
        put32(out, 12, (uint32_t)H64(si, 16));
        put32(out, 16, H32(si, 24));
        put32(out, 20, H32(si, 28));
        break;
    }
}

void sig_siginfo_from32(const uint8_t in[128], siginfo_t *si)
{
    memset(si, 0, sizeof(*si));
    si->si_signo = (int)get32(in, 0);
    si->si_errno = (int)get32(in, 4);
    si->si_code = (int)get32(in, 8);
    switch (layout_of(si->si_signo, si->si_code)) {
    case SIL_KILL:
        set32(si, 16, get32(in, 12));
        set32(si, 20, get32(in, 16));
        break;
    case SIL_TIMER:
    case SIL_RT:
        set32(si, 16, get32(in, 12));
        set32(si, 20, get32(in, 16));
        set32(si, 24, get32(in, 20));
        break;
    case SIL_POLL: /* the band is a signed compat_long_t */
        set64(si, 16, (uint64_t)(int64_t)(int32_t)get32(in, 12));
        set32(si, 24, get32(in, 16));
        break;
    case SIL_FAULT: set64(si, 16, get32(in, 12)); break;
    case SIL_MCEERR:
        set64(si, 16, get32(in, 12));
        memcpy((uint8_t *)si + 24, in + 16, 2);
        break;
    case SIL_BNDERR:
        set64(si, 16, get32(in, 12));
        set64(si, 32, get32(in, 20));
        set64(si, 40, get32(in, 24));
        break;
    case SIL_PKUERR:
        set64(si, 16, get32(in, 12));
        set32(si, 32, get32(in, 20));
        break;
    case SIL_PERF:
        set64(si, 16, get32(in, 12));
        set64(si, 24, get32(in, 16));
        set32(si, 32, get32(in, 20));
        set32(si, 36, get32(in, 24));
        break;
    case SIL_CHLD: /* utime and stime are signed compat_clock_t */
        set32(si, 16, get32(in, 12));
        set32(si, 20, get32(in, 16));
        set32(si, 24, get32(in, 20));
        set64(si, 32, (uint64_t)(int64_t)(int32_t)get32(in, 24));
        set64(si, 40, (uint64_t)(int64_t)(int32_t)get32(in, 28));
        break;
    case SIL_SYS:
        set64(si, 16, get32(in, 12));
        set32(si, 24, get32(in, 16));
        set32(si, 28, get32(in, 20));
        break;
    }
}

/* ------------------------------------------------------------ sigaction */

/* struct compat_sigaction: handler, flags, restorer, then a 64-bit mask. */
struct sigaction32 {
    uint32_t handler, flags, restorer, mask[2];
};
_Static_assert(sizeof(struct sigaction32) == 20, "compat_sigaction layout");

/* struct compat_old_sigaction: the mask (32 bits) comes second. */
struct old_sigaction32 {
    uint32_t handler, mask, flags, restorer;
};

/* rt_sigaction(sig, act, oact, sigsetsize) */
int64_t sys_rt_sigaction_ia32(struct cpu *c, const uint64_t a[6])
{
    if (a[3] != 8)
        return -EINVAL;
    struct sigaction32 k;
    struct gsigaction act, old;
    if (a[1]) {
        if (copy_from_guest(c, &k, a[1], sizeof(k)) != 0)
            return -EFAULT;
        act.handler = k.handler;
        act.flags = k.flags;
        act.restorer = k.restorer;
        act.mask = k.mask[0] | (uint64_t)k.mask[1] << 32;
    }
    int r = sig_do_action(c, (int32_t)a[0], a[1] ? &act : NULL, &old);
    if (r)
        return r;
    if (a[2]) {
        k.handler = (uint32_t)old.handler;
        k.flags = (uint32_t)old.flags;
        k.restorer = (uint32_t)old.restorer;
        k.mask[0] = (uint32_t)old.mask;
        k.mask[1] = (uint32_t)(old.mask >> 32);
        if (copy_to_guest(c, a[2], &k, sizeof(k)) != 0)
            return -EFAULT;
    }
    return 0;
}

/* sigaction(sig, act, oact) of the old ABI: a 32-bit mask that only sets
 * the first 32 signals (the others are cleared, siginitset()). */
int64_t sys_sigaction_ia32(struct cpu *c, const uint64_t a[6])
{
    struct old_sigaction32 k;
    struct gsigaction act, old;
    if (a[1]) {
        if (copy_from_guest(c, &k, a[1], sizeof(k)) != 0)
            return -EFAULT;
        act.handler = k.handler;
        act.flags = k.flags;
        act.restorer = k.restorer;
        act.mask = k.mask;
    }
    int r = sig_do_action(c, (int32_t)a[0], a[1] ? &act : NULL, &old);
    if (r)
        return r;
    if (a[2]) {
        k.handler = (uint32_t)old.handler;
        k.mask = (uint32_t)old.mask;
        k.flags = (uint32_t)old.flags;
        k.restorer = (uint32_t)old.restorer;
        if (copy_to_guest(c, a[2], &k, sizeof(k)) != 0)
            return -EFAULT;
    }
    return 0;
}

/* signal(sig, handler): SA_RESETHAND | SA_NODEFER, no mask; the old
 * handler is the result. */
int64_t sys_signal_ia32(struct cpu *c, const uint64_t a[6])
{
    struct gsigaction act = { .handler = (uint32_t)a[1], .flags = SA_RESETHAND | SA_NODEFER },
                      old;
    int r = sig_do_action(c, (int32_t)a[0], &act, &old);
    return r ? r : (int64_t)(uint32_t)old.handler;
}

/* ------------------------------------------------------------ masks */

/* sigprocmask(how, set, oset) with 32-bit sets: SIG_SETMASK replaces the
 * first 32 signals only. */
int64_t sys_sigprocmask_ia32(struct cpu *c, const uint64_t a[6])
{
    uint64_t old = c->sig_blocked;
    if (a[1]) {
        uint32_t set;
        if (copy_from_guest(c, &set, a[1], 4) != 0)
            return -EFAULT;
        switch ((int32_t)a[0]) {
        case SIG_BLOCK: sig_set_mask(c, old | set); break;
        case SIG_UNBLOCK: sig_set_mask(c, old & ~(uint64_t)set); break;
        case SIG_SETMASK: sig_set_mask(c, (old & ~0xffffffffull) | set); break;
        default: return -EINVAL;
        }
    }
    uint32_t o = (uint32_t)old;
    if (a[2] && copy_to_guest(c, a[2], &o, 4) != 0)
        return -EFAULT;
    return 0;
}

/* sigpending(set): the first 32 signals of rt_sigpending's set. */
int64_t sys_sigpending_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], 4 };
    return sys_rt_sigpending(c, b);
}

/* sigsuspend(unused, unused, mask): the mask replaces the whole set (the
 * upper 32 signals unblocked). */
int64_t sys_sigsuspend_ia32(struct cpu *c, const uint64_t a[6])
{
    return sig_suspend(c, (uint32_t)a[2]);
}

/* sgetmask(): the first word of the mask (a long: all 64 bits, of which
 * eax keeps 32). */
int64_t sys_sgetmask_ia32(struct cpu *c, const uint64_t a[6])
{
    return (int64_t)c->sig_blocked;
}

/* ssetmask(newmask): the int is widened to the kernel's unsigned long
 * sig[0] with its sign, so bit 31 blocks signals 32..64 too. */
int64_t sys_ssetmask_ia32(struct cpu *c, const uint64_t a[6])
{
    int32_t old = (int32_t)c->sig_blocked;
    sig_set_mask(c, (uint64_t)(int64_t)(int32_t)a[0]);
    return old;
}

/* ------------------------------------------------------------ altstack */

/* compat_stack_t <-> the 24-byte stack_t image signal.c takes. */
static void stack_from32(const uint32_t in[3], uint8_t out[24])
{
    uint64_t sp = in[0], size = in[2];
    int32_t flags = (int32_t)in[1], pad = 0;
    memcpy(out, &sp, 8);
    memcpy(out + 8, &flags, 4);
    memcpy(out + 12, &pad, 4);
    memcpy(out + 16, &size, 8);
}

/* sigaltstack(ss, old_ss) with the 12-byte compat_stack_t. */
int64_t sys_sigaltstack_ia32(struct cpu *c, const uint64_t a[6])
{
    uint32_t in[3];
    uint8_t st[24], old[24];
    if (a[0]) {
        if (copy_from_guest(c, in, a[0], sizeof(in)) != 0)
            return -EFAULT;
        stack_from32(in, st);
    }
    uint64_t sp = (uint32_t)c->r[R_SP];
    sig_altstack_save(c, old, sp);
    if (a[0]) {
        int r = sig_altstack_set(c, st, sp);
        if (r)
            return r;
    }
    if (a[1]) {
        uint64_t osp, osize;
        int32_t oflags;
        memcpy(&osp, old, 8);
        memcpy(&oflags, old + 8, 4);
        memcpy(&osize, old + 16, 8);
        uint32_t out[3] = { (uint32_t)osp, (uint32_t)oflags, (uint32_t)osize };
        if (copy_to_guest(c, a[1], out, sizeof(out)) != 0)
            return -EFAULT;
    }
    return 0;
}

/* ------------------------------------------------------------ siginfo calls */

static int64_t timedwait(struct cpu *c, const uint64_t a[6], bool time64)
{
    if (a[3] != 8)
        return -EINVAL;
    uint64_t set;
    struct timespec ts;
    if (copy_from_guest(c, &set, a[0], 8) != 0)
        return -EFAULT;
    if (a[2] && ia32_get_ts(c, a[2], time64, &ts) != 0)
        return -EFAULT;
    siginfo_t si;
    int64_t r = sig_timedwait(c, set, &si, a[2] ? &ts : NULL);
    if (r > 0 && a[1]) {
        uint8_t out[128];
        sig_siginfo_to32(&si, out);
        if (copy_to_guest(c, a[1], out, sizeof(out)) != 0)
            return -EFAULT;
    }
    return r;
}

/* rt_sigtimedwait(set, info, timeout, sigsetsize), old_timespec32 */
int64_t sys_rt_sigtimedwait_ia32(struct cpu *c, const uint64_t a[6])
{
    return timedwait(c, a, false);
}

/* rt_sigtimedwait_time64: the same with a 64-bit timespec */
int64_t sys_rt_sigtimedwait_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return timedwait(c, a, true);
}

/* __copy_siginfo_from_user32(): the signal argument overrides si_signo. */
static int read_siginfo32(struct cpu *c, uint64_t addr, int sig, siginfo_t *si)
{
    uint8_t in[128];
    if (copy_from_guest(c, in, addr, sizeof(in)) != 0)
        return -EFAULT;
    uint32_t s = (uint32_t)sig;
    memcpy(in, &s, 4);
    sig_siginfo_from32(in, si);
    return 0;
}

/* rt_sigqueueinfo(tgid, sig, info) */
int64_t sys_rt_sigqueueinfo_ia32(struct cpu *c, const uint64_t a[6])
{
    siginfo_t si;
    int r = read_siginfo32(c, a[2], (int32_t)a[1], &si);
    if (r)
        return r;
    return host_ret(syscall(SYS_rt_sigqueueinfo, (pid_t)a[0], (int32_t)a[1], &si));
}

/* rt_tgsigqueueinfo(tgid, tid, sig, info) */
int64_t sys_rt_tgsigqueueinfo_ia32(struct cpu *c, const uint64_t a[6])
{
    siginfo_t si;
    int r = read_siginfo32(c, a[3], (int32_t)a[2], &si);
    if (r)
        return r;
    return host_ret(
        syscall(SYS_rt_tgsigqueueinfo, (pid_t)a[0], (pid_t)a[1], (int32_t)a[2], &si));
}

/* pidfd_send_signal(pidfd, sig, info, flags): a compat siginfo when given;
 * one that cannot be read goes to the host as an unreadable pointer so that
 * its checks come in their own order. */
int64_t sys_pidfd_send_signal_ia32(struct cpu *c, const uint64_t a[6])
{
    siginfo_t si, *p = NULL;
    if (a[2]) {
        p = &si;
        if (read_siginfo32(c, a[2], (int32_t)a[1], &si) != 0)
            p = HOST_FAULT_ADDR;
    }
    return host_ret(syscall(SYS_pidfd_send_signal, (int32_t)a[0], (int32_t)a[1], p, (unsigned)a[3]));
}

/* ------------------------------------------------------------ restarts */

/* The x86_64 number of the i386 calls whose restart is not the plain
 * "restart with SA_RESTART" (sig_restart_kind() knows them by their
 * x86_64 numbers); any other call maps to one that restarts that way. */
static uint64_t nr_to_64(uint64_t nr32, const uint64_t a[6])
{
    switch (nr32) {
    case 119: /* sigreturn */
    case 173: return 15;  /* rt_sigreturn */
    case 177:             /* rt_sigtimedwait */
    case 421: return 128; /* rt_sigtimedwait_time64 */
    case 256: return 232; /* epoll_wait */
    case 319: return 281; /* epoll_pwait */
    case 441: return 441; /* epoll_pwait2 */
    case 420: return 220; /* semtimedop_time64 */
    case 400: return 69;  /* msgsnd */
    case 401: return 70;  /* msgrcv */
    case 247: return 208; /* io_getevents */
    case 29: return 34;   /* pause */
    case 72:              /* sigsuspend */
    case 179: return 130; /* rt_sigsuspend */
    case 82:              /* select */
    case 142: return 23;  /* _newselect */
    case 308:             /* pselect6 */
    case 413: return 270; /* pselect6_time64 */
    case 309:             /* ppoll */
    case 414: return 271; /* ppoll_time64 */
    case 162: return 35;  /* nanosleep */
    case 267:             /* clock_nanosleep */
    case 407: return 230; /* clock_nanosleep_time64 */
    case 168: return 7;   /* poll */
    case 240:             /* futex */
    case 422: return 202; /* futex_time64 */
    case 117:             /* ipc: SEMOP, SEMTIMEDOP, MSGSND, MSGRCV */
        switch (a[0] & 0xffff) {
        case 1: return 65;
        case 4: return 220;
        case 11: return 69;
        case 12: return 70;
        default: return 0;
        }
    default: return 0; /* read: restarted by SA_RESTART */
    }
}

void sig_interrupted32(struct cpu *c, uint64_t nr32, const uint64_t a[6])
{
    c->sys_nr = nr32;
    c->sys_restart = sig_restart_kind(nr_to_64(nr32, a), a);
}
