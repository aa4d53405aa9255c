/* The i386 signal frames and the signal calls only the i386 ABI has (built
 * with -m32 only): the old frame of a handler without SA_SIGINFO (its
 * sigcontext read and edited in place, extramask), the rt frame's
 * ucontext (eip, eax, eflags, the mask), the x87 state across a handler
 * and the FSAVE environment in front of the FXSAVE image, the old
 * sigaction/signal/sigprocmask/sigpending/sigsuspend calls, the compat
 * siginfo of rt_sigqueueinfo/rt_sigtimedwait/waitid, and ebp after a call
 * made through __kernel_vsyscall.  Compared with the native run: it prints
 * facts, never addresses or pids. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef __i386__
#error "an i386 test"
#endif

/* The kernel's struct sigcontext_32 (the old frame puts it right after the
 * signal number). */
struct sc32 {
    uint16_t gs, gsh, fs, fsh, es, esh, ds, dsh;
    uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax, trapno, err, eip;
    uint16_t cs, csh;
    uint32_t eflags, esp_at_signal;
    uint16_t ss, ssh;
    uint32_t fpstate, oldmask, cr2;
};

static volatile int hits;
static volatile uint32_t seen_trapno, seen_sig, seen_cs, seen_ds, seen_ss, seen_extra;

/* ------------------------------------------------------------ the old frame */

/* An old-style handler: the sigcontext follows its argument on the stack,
 * and edits to it are what sigreturn restores.  The entry is asm so that
 * the body gets the address of the argument itself (a compiler may work on
 * a copy). */
void old_handler(int sig);
__attribute__((visibility("hidden"))) void old_body(volatile uint32_t *arg);
__asm__(".text\n"
        ".globl old_handler\n"
        "old_handler:\n\t"
        "lea 4(%esp), %eax\n\t"
        "push %eax\n\t"
        "call old_body\n\t"
        "add $4, %esp\n\t"
        "ret\n");

void old_body(volatile uint32_t *arg)
{
    int sig = (int)arg[0];
    volatile struct sc32 *sc = (volatile struct sc32 *)(arg + 1);
    volatile uint32_t *extramask = (volatile uint32_t *)((volatile char *)sc + 88 + 624);
    seen_sig = (uint32_t)sig;
    seen_trapno = sc->trapno;
    seen_cs = sc->cs;
    seen_ds = sc->ds;
    seen_ss = sc->ss;
    seen_extra = *extramask;
    hits++;
    if (sig == SIGILL) {
        sc->eip += 2;          /* past the ud2 */
        sc->eax = 0x5150;      /* what the interrupted code sees */
        sc->eflags |= 1;       /* CF */
        *extramask |= 1u << 7; /* block signal 40 after the return */
    }
}

static void test_old_frame(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = old_handler;
    sigaction(SIGILL, &sa, NULL);
    uint32_t eax = 1;
    uint8_t cf = 0;
    __asm__ volatile("clc\n\tud2\n\tsetc %1" : "+a"(eax), "=q"(cf));
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    printf("old frame: hits=%d sig=%u trapno=%u cs=%#x ds=%#x ss=%#x extramask=%#x\n", hits,
           seen_sig, seen_trapno, seen_cs, seen_ds, seen_ss, seen_extra);
    printf("old frame edits: eax=%#x cf=%d sig40 blocked=%d\n", eax, cf, sigismember(&cur, 40));
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* signal(): a handler reset after one delivery (SA_RESETHAND). */
    hits = 0;
    signal(SIGUSR1, old_handler);
    raise(SIGUSR1);
    struct sigaction old;
    sigaction(SIGUSR1, NULL, &old);
    printf("signal(): hits=%d trapno=%u now %s\n", hits, seen_trapno,
           old.sa_handler == SIG_DFL ? "SIG_DFL" : "handler");
    sa.sa_handler = SIG_DFL;
    sigaction(SIGILL, &sa, NULL);
}

/* ------------------------------------------------------------ the rt frame */

static void rt_handler(int sig, siginfo_t *si, void *ucp)
{
    ucontext_t *uc = ucp;
    greg_t *g = uc->uc_mcontext.gregs;
    seen_trapno = (uint32_t)g[REG_TRAPNO];
    seen_sig = (uint32_t)si->si_signo;
    hits++;
    g[REG_EIP] += 2;
    g[REG_EAX] = 0x6160;
    g[REG_EFL] &= ~1; /* CF clear */
    sigaddset(&uc->uc_sigmask, 41);
}

static void test_rt_frame(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = rt_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGILL, &sa, NULL);
    hits = 0;
    uint32_t eax = 1;
    uint8_t cf = 0;
    __asm__ volatile("stc\n\tud2\n\tsetc %1" : "+a"(eax), "=q"(cf));
    sigset_t cur, none;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    printf("rt frame: hits=%d sig=%u trapno=%u eax=%#x cf=%d sig41 blocked=%d\n", hits, seen_sig,
           seen_trapno, eax, cf, sigismember(&cur, 41));
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = 0;
    sigaction(SIGILL, &sa, NULL);
}

/* ------------------------------------------------------------ x87 state */

static volatile uint32_t h_cw, h_sw, h_tag, h_status, h_magic, h_fcw, h_ftw;
static volatile int fp_edit;

static void fp_handler(int sig, siginfo_t *si, void *ucp)
{
    ucontext_t *uc = ucp;
    uint32_t *env = (uint32_t *)uc->uc_mcontext.fpregs;
    uint8_t *fx = (uint8_t *)env + 112;
    h_cw = env[0];
    h_sw = env[1];
    h_tag = env[2];
    h_status = ((uint16_t *)env)[54];
    h_magic = ((uint16_t *)env)[55];
    h_fcw = *(uint16_t *)fx;
    h_ftw = fx[4];
    /* Clobber the live x87 state: the frame holds the interrupted one. */
    __asm__ volatile("fninit\n\tfldz\n\tfldz\n\tfldz\n\tfldz\n\t"
                     "fstp %%st(0)\n\tfstp %%st(0)\n\tfstp %%st(0)\n\tfstp %%st(0)" ::: "memory");
    if (fp_edit) {
        /* ST(0) of the legacy area is what comes back (long double 2.5);
         * the FXSAVE image's copy of the registers is ignored. */
        long double v = 2.5L;
        memcpy((char *)env + 28, &v, 10);
        long double w = 99.0L;
        memcpy(fx + 32 + 16, &w, 10); /* ST(1) in the FXSAVE image */
        env[0] = 0xffff0c7f;          /* round toward zero */
    }
}

/* Three values on the x87 stack and rounding down across a signal sent by
 * kill() from inside the same asm block. */
static void x87_round(int edit)
{
    long double out[3];
    uint16_t cw_before = 0x077f, cw_after = 0; /* round down */
    fp_edit = edit;
    int pid = getpid();
    __asm__ volatile("fldcw %[cwb]\n\t"
                     "fld1\n\t"
                     "fldpi\n\t"
                     "fldl2e\n\t"
                     "push %%ebx\n\t"
                     "mov %[pid], %%ebx\n\t"
                     "mov $37, %%eax\n\t" /* kill */
                     "mov $10, %%ecx\n\t" /* SIGUSR1 */
                     "int $0x80\n\t"
                     "pop %%ebx\n\t"
                     "fnstcw %[cwa]\n\t"
                     "fstpt %[o0]\n\t"
                     "fstpt %[o1]\n\t"
                     "fstpt %[o2]\n\t"
                     "fldcw %[cwd]"
                     : [o0] "=m"(out[0]), [o1] "=m"(out[1]), [o2] "=m"(out[2]), [cwa] "=m"(cw_after)
                     : [cwb] "m"(cw_before), [pid] "r"(pid), [cwd] "m"((uint16_t){ 0x037f })
                     : "eax", "ecx", "edx", "memory", "cc");
    printf("x87%s: cw %#x sw %#x tag %#x status %#x magic %#x fx fcw %#x ftw %#x\n",
           edit ? " edited" : "", h_cw, h_sw, h_tag, h_status, h_magic,
           h_fcw, h_ftw);
    printf("x87%s after: cw %#x values %.20Lg %.20Lg %.20Lg\n", edit ? " edited" : "",
           cw_after, out[0], out[1], out[2]);
}

static void test_x87(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fp_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR1, &sa, NULL);
    x87_round(0);
    x87_round(1);
    signal(SIGUSR1, SIG_DFL);
}

/* ------------------------------------------------------------ the old calls */

struct old_sigaction32 {
    uint32_t handler, mask, flags, restorer;
};

static void counting(int sig)
{
    hits++;
}

static void test_old_calls(void)
{
    struct old_sigaction32 act = { (uint32_t)(uintptr_t)counting, 1u << (SIGUSR2 - 1), 0, 0 },
                           old;
    memset(&old, 0x55, sizeof(old));
    long r = syscall(SYS_sigaction, SIGUSR1, &act, &old);
    printf("sigaction: %ld old handler %#x mask %#x\n", r, old.handler, old.mask);
    r = syscall(SYS_sigaction, SIGUSR1, NULL, &old);
    printf("sigaction read: %ld handler ok %d mask %#x flags %#x\n", r,
           old.handler == (uint32_t)(uintptr_t)counting, old.mask, old.flags);
    struct sigaction full;
    sigaction(SIGUSR1, NULL, &full);
    printf("as rt_sigaction: usr2 in mask %d\n", sigismember(&full.sa_mask, SIGUSR2));
    errno = 0;
    r = syscall(SYS_sigaction, SIGKILL, &act, NULL);
    printf("sigaction SIGKILL: %ld %s\n", r, strerror(errno));
    errno = 0;
    r = syscall(SYS_sigaction, 65, NULL, &old);
    printf("sigaction 65: %ld %s\n", r, strerror(errno));
    errno = 0;
    r = syscall(SYS_sigaction, SIGUSR1, (void *)16, NULL);
    printf("sigaction bad act: %ld %s\n", r, strerror(errno));
    errno = 0;
    r = syscall(SYS_sigaction, SIGUSR1, NULL, (void *)16);
    printf("sigaction bad oact: %ld %s\n", r, strerror(errno));
    hits = 0;
    raise(SIGUSR1);
    printf("handler via old sigaction: %d\n", hits);

    /* signal(48) itself: the old handler comes back. */
    r = syscall(SYS_signal, SIGUSR1, SIG_IGN);
    printf("signal: old handler ok %d\n", r == (long)(uintptr_t)counting);
    r = syscall(SYS_signal, SIGUSR1, SIG_DFL);
    printf("signal: old %ld\n", r);
    errno = 0;
    r = syscall(SYS_signal, SIGSTOP, SIG_IGN);
    printf("signal SIGSTOP: %ld %s\n", r, strerror(errno));

    /* sigprocmask(126): 32-bit sets; SIG_SETMASK keeps signals 33..64. */
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, 40);
    sigprocmask(SIG_SETMASK, &s, NULL);
    uint32_t m = (1u << (SIGUSR1 - 1)) | (1u << (SIGKILL - 1)), om = 0;
    r = syscall(SYS_sigprocmask, SIG_SETMASK, &m, &om);
    sigprocmask(SIG_BLOCK, NULL, &s);
    printf("sigprocmask: %ld old %#x usr1 %d kill %d sig40 %d\n", r, om, sigismember(&s, SIGUSR1),
           sigismember(&s, SIGKILL), sigismember(&s, 40));
    errno = 0;
    r = syscall(SYS_sigprocmask, 7, &m, NULL);
    printf("sigprocmask bad how: %ld %s\n", r, strerror(errno));
    errno = 0;
    r = syscall(SYS_sigprocmask, SIG_BLOCK, (void *)16, NULL);
    printf("sigprocmask bad set: %ld %s\n", r, strerror(errno));

    /* sigpending(73) */
    signal(SIGUSR1, counting);
    hits = 0;
    raise(SIGUSR1);
    uint32_t pend = 0;
    r = syscall(SYS_sigpending, &pend);
    printf("sigpending: %ld %#x hits %d\n", r, pend, hits);
    errno = 0;
    r = syscall(SYS_sigpending, (void *)16);
    printf("sigpending bad: %ld %s\n", r, strerror(errno));

    /* sigsuspend(72): the old mask word replaces the whole mask. */
    r = syscall(SYS_sigsuspend, 0, 0, 0);
    int e = errno;
    sigprocmask(SIG_BLOCK, NULL, &s);
    printf("sigsuspend: %ld %s hits %d usr1 blocked again %d sig40 %d\n", r, strerror(e), hits,
           sigismember(&s, SIGUSR1), sigismember(&s, 40));
    sigemptyset(&s);
    sigprocmask(SIG_SETMASK, &s, NULL);
    signal(SIGUSR1, SIG_DFL);

    /* sgetmask/ssetmask: the int mask is widened with its sign, so bit 31
     * (signal 32) blocks 33..64 as well. */
    r = syscall(SYS_ssetmask, 0x80000400);
    long g = syscall(SYS_sgetmask);
    sigprocmask(SIG_BLOCK, NULL, &s);
    printf("ssetmask: old %#lx now %#lx sig11 %d sig33 %d sig64 %d\n", r, g, sigismember(&s, 11),
           sigismember(&s, 33), sigismember(&s, 64));
    r = syscall(SYS_ssetmask, 1u << (SIGKILL - 1));
    g = syscall(SYS_sgetmask);
    printf("ssetmask SIGKILL: old %#lx now %#lx\n", r, g);
    sigemptyset(&s);
    sigprocmask(SIG_SETMASK, &s, NULL);
}

/* ------------------------------------------------------------ compat siginfo */

static volatile int qi_val, qi_code, qi_pid;

static void qinfo(int sig, siginfo_t *si, void *uc)
{
    qi_val = si->si_value.sival_int;
    qi_code = si->si_code;
    qi_pid = si->si_pid == getpid();
}

static void test_siginfo(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = qinfo;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGUSR2, &sa, NULL);
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    si.si_signo = SIGUSR1; /* the call's signal wins */
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = 4321;
    long r = syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, &si);
    printf("rt_sigqueueinfo: %ld value %d code %d own pid %d\n", r, qi_val, qi_code, qi_pid);
    si.si_value.sival_int = 8765;
    r = syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGUSR2, &si);
    printf("rt_tgsigqueueinfo: %ld value %d\n", r, qi_val);
    errno = 0;
    r = syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, (void *)16);
    printf("rt_sigqueueinfo bad: %ld %s\n", r, strerror(errno));

    /* rt_sigtimedwait with the 32-bit timespec (177). */
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR2);
    sigprocmask(SIG_BLOCK, &s, NULL);
    si.si_value.sival_int = 55;
    syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, &si);
    siginfo_t got;
    memset(&got, 0x77, sizeof(got));
    int32_t ts32[2] = { 0, 1000000 };
    r = syscall(SYS_rt_sigtimedwait, &s, &got, ts32, 8);
    printf("rt_sigtimedwait: %ld signo %d code %d value %d tail %#x\n", r, got.si_signo,
           got.si_code, got.si_value.sival_int, ((uint32_t *)&got)[20]);
    errno = 0;
    r = syscall(SYS_rt_sigtimedwait, &s, &got, ts32, 8);
    printf("rt_sigtimedwait timeout: %ld %s\n", r, strerror(errno));
    ts32[1] = -1;
    errno = 0;
    r = syscall(SYS_rt_sigtimedwait, &s, &got, ts32, 8);
    printf("rt_sigtimedwait bad timespec: %ld %s\n", r, strerror(errno));
    /* rt_sigtimedwait_time64 (421): the padding above tv_nsec is ignored
     * for a 32-bit task. */
    int32_t ts64[4] = { 0, 0, 1000000, -1 };
    errno = 0;
    r = syscall(SYS_rt_sigtimedwait_time64, &s, &got, ts64, 8);
    printf("rt_sigtimedwait_time64 padding: %ld %s\n", r, strerror(errno));
    /* The glibc wrapper (time64 first). */
    si.si_value.sival_int = 56;
    syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, &si);
    struct timespec ts = { 0, 1000000 };
    r = sigtimedwait(&s, &got, &ts);
    printf("sigtimedwait: %ld value %d\n", r, got.si_value.sival_int);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    signal(SIGUSR2, SIG_DFL);

    /* waitid: the compat siginfo of a child's exit. */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(7);
    memset(&got, 0x66, sizeof(got));
    r = waitid(P_PID, pid, &got, WEXITED);
    printf("waitid: %ld signo %d code %d status %d pid ok %d tail %#x\n", r, got.si_signo,
           got.si_code, got.si_status, got.si_pid == pid, ((uint32_t *)&got)[10]);
}

/* ------------------------------------------------------------ trapno and err */

#include <setjmp.h>
static sigjmp_buf fjb;
static volatile int f_sig, f_code;
static volatile uint32_t f_trapno, f_err, f_eip;

static void fault_handler(int sig, siginfo_t *si, void *ucp)
{
    ucontext_t *uc = ucp;
    f_sig = sig;
    f_code = si->si_code;
    f_trapno = (uint32_t)uc->uc_mcontext.gregs[REG_TRAPNO];
    f_err = (uint32_t)uc->uc_mcontext.gregs[REG_ERR];
    f_eip = (uint32_t)uc->uc_mcontext.gregs[REG_EIP];
    siglongjmp(fjb, 1);
}

extern char fl_div[], fl_ud2[], fl_int3[], fl_int3_end[], fl_hlt[], fl_bound[], fl_into[],
    fl_into_end[], fl_aam[], fl_rd[], fl_wr[];
static const int32_t bounds[2] = { 0, 10 };
static const char ro_page[4096] __attribute__((aligned(4096))) = { 1 };

static void fault(const char *what, int n, const char *at)
{
    f_sig = 0;
    if (sigsetjmp(fjb, 1) == 0) {
        switch (n) {
        case 0: __asm__ volatile("xor %%edx, %%edx\n\tmov $7, %%eax\n\txor %%ecx, %%ecx\n"
                                 ".globl fl_div\nfl_div: div %%ecx" ::: "eax", "ecx", "edx");
            break;
        case 1: __asm__ volatile(".globl fl_ud2\nfl_ud2: ud2"); break;
        case 2: __asm__ volatile(".globl fl_int3\nfl_int3: int3\n.globl fl_int3_end\nfl_int3_end:");
            break;
        case 3: __asm__ volatile(".globl fl_hlt\nfl_hlt: hlt"); break;
        case 4: __asm__ volatile("mov $20, %%eax\n.globl fl_bound\nfl_bound: bound %%eax, %0"
                                 :: "m"(bounds) : "eax");
            break;
        case 5: __asm__ volatile("mov $0x7fffffff, %%eax\n\tadd $1, %%eax\n"
                                 ".globl fl_into\nfl_into: into\n.globl fl_into_end\nfl_into_end:"
                                 ::: "eax", "cc");
            break;
        case 6: __asm__ volatile("mov $7, %%eax\n.globl fl_aam\nfl_aam: .byte 0xd4, 0x00"
                                 ::: "eax", "cc");
            break;
        case 7: __asm__ volatile("mov $16, %%ecx\n.globl fl_rd\nfl_rd: mov (%%ecx), %%eax"
                                 ::: "eax", "ecx");
            break;
        case 8: __asm__ volatile("lea %0, %%ecx\n.globl fl_wr\nfl_wr: movb $2, (%%ecx)"
                                 :: "m"(ro_page) : "ecx", "memory");
            break;
        }
        printf("%s: no fault\n", what);
        return;
    }
    printf("%s: sig %d code %d trapno %u err %#x eip ok %d\n", what, f_sig, f_code, f_trapno,
           f_err, f_eip == (uint32_t)(uintptr_t)at);
}

static void test_traps(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    int sigs[] = { SIGSEGV, SIGFPE, SIGILL, SIGTRAP };
    for (int i = 0; i < 4; i++)
        sigaction(sigs[i], &sa, NULL);
    fault("div by zero", 0, fl_div);
    fault("ud2", 1, fl_ud2);
    fault("int3", 2, fl_int3_end);
    fault("hlt", 3, fl_hlt);
    fault("bound", 4, fl_bound);
    fault("into", 5, fl_into_end);
    fault("aam 0", 6, fl_aam);
    fault("read unmapped", 7, fl_rd);
    fault("write read-only", 8, fl_wr);
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = 0;
    for (int i = 0; i < 4; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* ------------------------------------------------------------ ebp after __kernel_vsyscall */

/* read(fd, buf, 1) through the vDSO entry with ebp = magic (the sixth
 * argument slot); a signal handler sees the registers of the call. */
uint32_t vsys_read(int fd, void *buf, uint32_t magic);
__asm__(".text\n"
        ".globl vsys_read\n"
        "vsys_read:\n\t"
        "push %ebp\n\t"
        "push %ebx\n\t"
        "mov 12(%esp), %ebx\n\t"
        "mov 16(%esp), %ecx\n\t"
        "mov $1, %edx\n\t"
        "mov 20(%esp), %ebp\n\t"
        "mov $3, %eax\n\t"
        "call *%gs:0x10\n\t"
        "pop %ebx\n\t"
        "pop %ebp\n\t"
        "ret\n");

static volatile uint32_t seen_ebp;
static int vpipe[2], last_hit;
static uint32_t vsyscall_entry;

static void ebp_handler(int sig, siginfo_t *si, void *ucp)
{
    ucontext_t *uc = ucp;
    uint32_t eip = (uint32_t)uc->uc_mcontext.gregs[REG_EIP];
    uint32_t eax = (uint32_t)uc->uc_mcontext.gregs[REG_EAX];
    /* Only a signal that interrupted the read counts: eip inside
     * __kernel_vsyscall and eax the call's -EINTR (or, rewound for
     * SA_RESTART, its number). The child signals every 50 ms, so under
     * load one may also land before the call. */
    if (eip - vsyscall_entry >= 32 || (eax != (uint32_t)-EINTR && eax != SYS_read))
        return;
    seen_ebp = (uint32_t)uc->uc_mcontext.gregs[REG_EBP];
    if (++hits < last_hit)
        return;
    if (hits == 2) {
        ssize_t w = write(vpipe[1], "z", 1);
        (void)w;
    }
    /* None after the last one: SIGALRM stays blocked when the handler
     * returns, until the child is gone. */
    sigaddset(&uc->uc_sigmask, SIGALRM);
}

static void test_vsyscall_ebp(int restart)
{
    if (pipe(vpipe) != 0)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = ebp_handler;
    sa.sa_flags = SA_SIGINFO | (restart ? SA_RESTART : 0);
    sigaction(SIGALRM, &sa, NULL);
    hits = 0;
    last_hit = restart ? 2 : 1;
    seen_ebp = 0;
    vsyscall_entry = (uint32_t)getauxval(AT_SYSINFO);
    pid_t parent = getpid();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        for (;;) {
            int64_t t[2] = { 0, 50 * 1000 * 1000 }; /* a struct __kernel_timespec */
            syscall(SYS_clock_nanosleep_time64, CLOCK_MONOTONIC, 0, t, NULL);
            kill(parent, SIGALRM);
        }
    }
    char c = 0;
    uint32_t r = vsys_read(vpipe[0], &c, 0x1badcafe);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (restart)
        printf("vsyscall read SA_RESTART: %d '%c' signals in the call %d ebp %#x\n", (int)r, c,
               hits, seen_ebp);
    else
        printf("vsyscall read EINTR: %d signals in the call %d ebp %#x\n", (int)r, hits, seen_ebp);
    signal(SIGALRM, SIG_IGN); /* drops one still pending */
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &alrm, NULL);
    signal(SIGALRM, SIG_DFL);
    close(vpipe[0]);
    close(vpipe[1]);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_old_frame();
    test_rt_frame();
    test_x87();
    test_old_calls();
    test_siginfo();
    test_traps();
    test_vsyscall_ebp(0);
    test_vsyscall_ebp(1);
    printf("done\n");
    return 0;
}
