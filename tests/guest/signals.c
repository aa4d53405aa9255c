/* Signals: synchronous faults with their siginfo and frame, handlers that
 * edit the ucontext, masks and pending signals, SA_* flags, the alternate
 * stack, sigsuspend/sigtimedwait/sigqueue, EINTR versus SA_RESTART, and
 * children killed by signals.  Run natively and under elfemu; the output
 * must be identical, so it prints facts, never addresses or pids. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* The same checks for x86_64 and -m32 builds: the register names and
 * where the FXSAVE image is (an i386 frame puts the 112-byte FSAVE
 * environment before it). */
#ifdef __i386__
#define GREG_IP REG_EIP
#define GREG_AX REG_EAX
#define UC_CS(uc) ((uc)->uc_mcontext.gregs[REG_CS] & 0xffff)
#define UC_SS(uc) ((uc)->uc_mcontext.gregs[REG_SS] & 0xffff)
#define UC_FX(uc) ((char *)(uc)->uc_mcontext.fpregs + 112)
#else
#define GREG_IP REG_RIP
#define GREG_AX REG_RAX
#define UC_CS(uc) ((uc)->uc_mcontext.gregs[REG_CSGSFS] & 0xffff)
#define UC_SS(uc) (((uc)->uc_mcontext.gregs[REG_CSGSFS] >> 48) & 0xffff)
#define UC_FX(uc) ((char *)(uc)->uc_mcontext.fpregs)
#endif

/* -m32 code does not use SSE unless asked: the functions with xmm asm do. */
#define WITH_SSE __attribute__((target("sse2")))

static sigjmp_buf jb;
static volatile sig_atomic_t got_sig, got_code, count;
static void *volatile got_addr;
static volatile long got_rip;
static volatile long got_err, got_trapno, got_flags, got_cs, got_ss, got_magic, got_aligned;

static void on(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, NULL) != 0)
        printf("sigaction(%d) failed: %s\n", sig, strerror(errno));
}

static void dfl(int sig)
{
    signal(sig, SIG_DFL);
}

/* ------------------------------------------------------------ faults */

static void fault_jump(int sig, siginfo_t *si, void *ucp)
{
    ucontext_t *uc = ucp;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    got_err = uc->uc_mcontext.gregs[REG_ERR];
    got_trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
    got_rip = uc->uc_mcontext.gregs[GREG_IP];
    got_flags = (long)uc->uc_flags;
    got_cs = UC_CS(uc);
    got_ss = UC_SS(uc);
    const uint32_t *sw = (const uint32_t *)(UC_FX(uc) + 464);
    got_magic = sw[0] == 0x46505853u;
    got_aligned = ((uintptr_t)__builtin_frame_address(0) & 15) == 0;
    siglongjmp(jb, 1);
}

static void test_segv(void)
{
    on(SIGSEGV, fault_jump, 0);
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + pg, pg);
    mprotect(p, pg, PROT_READ);
    if (sigsetjmp(jb, 1) == 0) {
        volatile char c = p[pg + 5];
        (void)c;
        printf("segv: no fault\n");
    } else {
        printf("segv read unmapped: sig=%d code=%s addr_ok=%d err=%ld trapno=%ld\n", got_sig,
               got_code == SEGV_MAPERR ? "SEGV_MAPERR" : "?", got_addr == p + pg + 5, got_err,
               got_trapno);
        printf("segv frame: uc_flags=%ld cs=%#lx ss=%#lx fpstate_magic=%ld aligned=%ld\n",
               got_flags, got_cs, got_ss, got_magic, got_aligned);
    }
    if (sigsetjmp(jb, 1) == 0) {
        *(volatile char *)(p + 17) = 1;
        printf("segv: no fault\n");
    } else {
        printf("segv write read-only: sig=%d code=%s addr_ok=%d err=%ld\n", got_sig,
               got_code == SEGV_ACCERR ? "SEGV_ACCERR" : "?", got_addr == p + 17, got_err);
    }
    mprotect(p, pg, PROT_NONE);
    if (sigsetjmp(jb, 1) == 0) {
        volatile char c = p[3];
        (void)c;
        printf("segv: no fault\n");
    } else {
        printf("segv read PROT_NONE: code=%s addr_ok=%d err=%ld\n",
               got_code == SEGV_ACCERR ? "SEGV_ACCERR" : "?", got_addr == p + 3, got_err);
    }
    /* The mask after siglongjmp(jb, 1) is the one sigsetjmp saved. */
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    printf("segv mask restored: %d\n", !sigismember(&cur, SIGSEGV));
    munmap(p, pg);
    if (sigsetjmp(jb, 1) == 0) {
        __asm__ volatile("hlt");
        printf("hlt: no fault\n");
    } else {
        printf("hlt: sig=%d code=%#x addr=%p trapno=%ld\n", got_sig, got_code, got_addr,
               got_trapno);
    }
    dfl(SIGSEGV);
}

static void test_fpe(void)
{
    on(SIGFPE, fault_jump, 0);
    volatile int a = 7, b = 0;
    if (sigsetjmp(jb, 1) == 0) {
        volatile int q = a / b;
        (void)q;
        printf("fpe: no fault\n");
    } else {
        printf("fpe: sig=%d code=%s trapno=%ld\n", got_sig,
               got_code == FPE_INTDIV ? "FPE_INTDIV" : "?", got_trapno);
    }
    /* The quotient does not fit: the same #DE, the same si_code. */
    volatile int m = INT_MIN, n1 = -1;
    if (sigsetjmp(jb, 1) == 0) {
        volatile int q = m / n1;
        (void)q;
        printf("fpe INT_MIN/-1: no fault\n");
    } else {
        printf("fpe INT_MIN/-1: sig=%d code=%s\n", got_sig,
               got_code == FPE_INTDIV ? "FPE_INTDIV" : "?");
    }
    volatile long lm = LONG_MIN, ln1 = -1;
    if (sigsetjmp(jb, 1) == 0) {
        volatile long q = lm % ln1;
        (void)q;
        printf("fpe LONG_MIN%%-1: no fault\n");
    } else {
        printf("fpe LONG_MIN%%-1: sig=%d code=%s\n", got_sig,
               got_code == FPE_INTDIV ? "FPE_INTDIV" : "?");
    }
    dfl(SIGFPE);
}

extern char ud2_here[], int3_after[];

static void test_ill_trap(void)
{
    on(SIGILL, fault_jump, 0);
    if (sigsetjmp(jb, 1) == 0) {
        __asm__ volatile(".globl ud2_here\nud2_here: ud2");
        printf("ill: no fault\n");
    } else {
        printf("ill: sig=%d code=%s addr_ok=%d trapno=%ld\n", got_sig,
               got_code == ILL_ILLOPN ? "ILL_ILLOPN" : "?", got_addr == (void *)ud2_here,
               got_trapno);
    }
    dfl(SIGILL);
    on(SIGTRAP, fault_jump, 0);
    if (sigsetjmp(jb, 1) == 0) {
        __asm__ volatile("int3\n.globl int3_after\nint3_after:");
        printf("trap: no fault\n");
    } else {
        printf("trap: sig=%d code=%#x trapno=%ld rip_after_int3=%d\n", got_sig, got_code,
               got_trapno, got_rip == (long)int3_after);
    }
    dfl(SIGTRAP);
}

/* A shared file mapping past the end of a truncated file. */
static void test_bus(void)
{
    char name[] = "/tmp/elfemu-sigbus-XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0)
        return;
    unlink(name);
    long pg = sysconf(_SC_PAGESIZE);
    if (ftruncate(fd, 2 * pg) != 0)
        return;
    char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    p[pg + 8] = 1;
    if (ftruncate(fd, pg) != 0)
        return;
    on(SIGBUS, fault_jump, 0);
    if (sigsetjmp(jb, 1) == 0) {
        p[pg + 8] = 2;
        printf("bus: no fault\n");
    } else {
        printf("bus past EOF: sig=%d code=%s addr_ok=%d\n", got_sig,
               got_code == BUS_ADRERR ? "BUS_ADRERR" : "?", got_addr == p + pg + 8);
    }
    if (sigsetjmp(jb, 1) == 0) {
        volatile char c = p[2 * pg - 1];
        (void)c;
        printf("bus: no fault\n");
    } else {
        printf("bus read past EOF: sig=%d code=%s addr_ok=%d\n", got_sig,
               got_code == BUS_ADRERR ? "BUS_ADRERR" : "?", got_addr == p + 2 * pg - 1);
    }
    p[5] = 'k'; /* the page inside the file still works */
    printf("bus: inside ok %d\n", p[5] == 'k');
    dfl(SIGBUS);
    munmap(p, 2 * pg);
    close(fd);
}

/* ------------------------------------------------------------ editing the ucontext */

WITH_SSE static void skip_ud2(int sig, siginfo_t *si, void *ucp)
{
    ucontext_t *uc = ucp;
    uc->uc_mcontext.gregs[GREG_IP] += 2;   /* past the ud2 */
    uc->uc_mcontext.gregs[GREG_AX] = 4242; /* what the interrupted code sees */
    /* Clobber the live SSE and x87 state: the frame holds the interrupted one. */
    __asm__ volatile("pcmpeqb %%xmm0, %%xmm0\n\tfldpi\n\tfstp %%st(0)" ::: "xmm0");
    /* And edit the saved xmm1. */
    *(uint32_t *)(UC_FX(uc) + 160 + 16) = 0x1234;
    /* Block SIGUSR2 after the return. */
    sigaddset(&uc->uc_sigmask, SIGUSR2);
    count++;
}

WITH_SSE static void test_ucontext_edit(void)
{
    on(SIGILL, skip_ud2, 0);
    long rax = 1;
    uint32_t x0 = 0, x1 = 0;
    __asm__ volatile("movl $0x55, %%ecx\n\t"
                     "movd %%ecx, %%xmm0\n\t"
                     "movd %%ecx, %%xmm1\n\t"
                     "ud2\n\t"
                     "movd %%xmm0, %1\n\t"
                     "movd %%xmm1, %2"
                     : "+a"(rax), "=r"(x0), "=r"(x1)
                     :
                     : "cx", "xmm0", "xmm1");
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    printf("ucontext edit: handler=%d rax=%ld xmm0=%#x xmm1=%#x usr2_blocked=%d\n", (int)count,
           rax, x0, x1, sigismember(&cur, SIGUSR2));
    sigprocmask(SIG_UNBLOCK, &cur, NULL);
    dfl(SIGILL);
}

/* ------------------------------------------------------------ masks, flags */

static volatile int order[16], vals[16], norder;
static volatile int got_uid;
static volatile int depth, maxdepth;

static void record(int sig, siginfo_t *si, void *ucp)
{
    if (norder < 16) {
        vals[norder] = si->si_value.sival_int;
        order[norder++] = sig;
    }
    got_code = si->si_code;
    got_sig = si->si_pid == getpid();
    got_uid = si->si_uid == getuid();
}

static void print_order(const char *what)
{
    printf("%s:", what);
    for (int i = 0; i < norder; i++)
        printf(" %d", order[i]);
    printf("\n");
    norder = 0;
}

static void test_masks(void)
{
    on(SIGUSR1, record, 0);
    sigset_t s, p;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigprocmask(SIG_BLOCK, &s, NULL);
    kill(getpid(), SIGUSR1);
    sigpending(&p);
    printf("blocked: delivered=%d pending=%d\n", norder, sigismember(&p, SIGUSR1));
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    sigpending(&p);
    printf("unblocked: delivered=%d code=%s own_pid=%d own_uid=%d pending=%d\n", norder,
           got_code == SI_USER ? "SI_USER" : "?", (int)got_sig, (int)got_uid,
           sigismember(&p, SIGUSR1));
    norder = 0;
    int r = sigprocmask(12345, &s, NULL);
    printf("bad how: %d %s\n", r, strerror(errno));
    r = sigaction(SIGKILL, &(struct sigaction){ 0 }, NULL);
    printf("sigaction SIGKILL: %d %s\n", r, strerror(errno));
    /* Several blocked: standard signals once each, lowest first. */
    sigaddset(&s, SIGUSR2);
    sigaddset(&s, SIGHUP);
    on(SIGUSR2, record, 0);
    on(SIGHUP, record, 0);
    sigprocmask(SIG_BLOCK, &s, NULL);
    raise(SIGUSR2);
    raise(SIGUSR1);
    raise(SIGUSR2);
    raise(SIGHUP);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    print_order("unblock order");
    /* Real-time signals queue every instance, in order, with their values. */
    int rt = SIGRTMIN + 2;
    on(rt, record, 0);
    sigemptyset(&s);
    sigaddset(&s, rt);
    sigprocmask(SIG_BLOCK, &s, NULL);
    for (int i = 0; i < 3; i++)
        sigqueue(getpid(), rt, (union sigval){ .sival_int = 10 + i });
    on(rt - 1, record, 0);
    sigaddset(&s, rt - 1);
    sigaddset(&s, SIGUSR1);
    sigprocmask(SIG_BLOCK, &s, NULL);
    sigqueue(getpid(), rt - 1, (union sigval){ .sival_int = 7 });
    raise(SIGUSR1);
    sigpending(&p);
    printf("rt pending: %d %d\n", sigismember(&p, rt), sigismember(&p, rt - 1));
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    printf("rt queued: %d deliveries code=%s own_pid=%d own_uid=%d values", norder,
           got_code == SI_QUEUE ? "SI_QUEUE" : "?", (int)got_sig, (int)got_uid);
    for (int i = 0; i < norder; i++)
        printf(" %d:%d", order[i], vals[i]);
    printf("\n");
    norder = 0;
    dfl(SIGUSR1);
    dfl(SIGUSR2);
    dfl(SIGHUP);
    dfl(rt);
    dfl(rt - 1);
}

static void nested(int sig, siginfo_t *si, void *ucp)
{
    depth++;
    if (depth > maxdepth)
        maxdepth = depth;
    if (norder < 16)
        order[norder++] = depth;
    if (norder == 1)
        raise(sig);
    depth--;
}

static void test_flags(void)
{
    on(SIGUSR1, nested, 0);
    raise(SIGUSR1);
    printf("deferred: max depth %d, %d calls\n", maxdepth, norder);
    norder = maxdepth = 0;
    on(SIGUSR1, nested, SA_NODEFER);
    raise(SIGUSR1);
    printf("SA_NODEFER: max depth %d, %d calls\n", maxdepth, norder);
    norder = maxdepth = 0;
    on(SIGUSR2, record, SA_RESETHAND);
    raise(SIGUSR2);
    struct sigaction old;
    sigaction(SIGUSR2, NULL, &old);
    printf("SA_RESETHAND: %d call(s), now %s\n", norder,
           old.sa_handler == SIG_DFL ? "SIG_DFL" : "handler");
    norder = 0;
    /* Ignored: nothing happens. */
    signal(SIGUSR1, SIG_IGN);
    raise(SIGUSR1);
    printf("SIG_IGN: survived\n");
    dfl(SIGUSR1);
    /* sa_mask blocks during the handler. */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = record;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    sa.sa_sigaction = nested;
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaction(SIGHUP, &sa, NULL);
    printf("flags kept: %d\n", sigaction(SIGHUP, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO) &&
                                   sigismember(&old.sa_mask, SIGUSR2));
    dfl(SIGUSR2);
    dfl(SIGHUP);
}

/* ------------------------------------------------------------ the alternate stack */

static char *alt;
static size_t altsize = 65536;
static volatile int on_alt, ss_flags_in, eperm;

static void alt_handler(int sig, siginfo_t *si, void *ucp)
{
    char here;
    on_alt = &here > alt && &here < alt + altsize;
    stack_t cur, ns = { .ss_sp = alt, .ss_size = altsize };
    sigaltstack(NULL, &cur);
    ss_flags_in = cur.ss_flags;
    eperm = sigaltstack(&ns, NULL) == -1 && errno == EPERM;
    ucontext_t *uc = ucp;
    got_flags = uc->uc_stack.ss_flags;
}

static void test_altstack(void)
{
    stack_t ss = { .ss_size = altsize }, old;
    alt = ss.ss_sp = malloc(altsize);
    sigaltstack(NULL, &old);
    printf("altstack initially: %s\n", old.ss_flags == SS_DISABLE ? "SS_DISABLE" : "?");
    stack_t small = { .ss_sp = alt, .ss_size = 100 };
    int r = sigaltstack(&small, NULL);
    printf("too small: %d %s\n", r, strerror(errno));
    stack_t bad = { .ss_sp = alt, .ss_size = altsize, .ss_flags = 77 };
    r = sigaltstack(&bad, NULL);
    printf("bad flags: %d %s\n", r, strerror(errno));
    sigaltstack(&ss, NULL);
    on(SIGUSR1, alt_handler, SA_ONSTACK);
    raise(SIGUSR1);
    printf("SA_ONSTACK: on alt stack %d, ss_flags %s, change EPERM %d, uc_stack flags %ld\n",
           on_alt, ss_flags_in == SS_ONSTACK ? "SS_ONSTACK" : "?", eperm, got_flags);
    on(SIGUSR1, alt_handler, 0);
    raise(SIGUSR1);
    printf("without SA_ONSTACK: on alt stack %d\n", on_alt);
    sigaltstack(NULL, &old);
    printf("outside: flags %d size_ok %d\n", old.ss_flags, old.ss_size == altsize);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    sigaltstack(NULL, &old);
    printf("disabled: %s\n", old.ss_flags == SS_DISABLE ? "SS_DISABLE" : "?");
    dfl(SIGUSR1);
    free(alt);
}

/* A stack overflow: the handler can only run on the alternate stack. */
static char *small_stack;
static ucontext_t main_uc, deep_uc;
static volatile int overflow_on_alt, overflow_in_guard;

static void overflow_handler(int sig, siginfo_t *si, void *ucp)
{
    char here;
    overflow_on_alt = &here > alt && &here < alt + altsize;
    overflow_in_guard = (char *)si->si_addr < small_stack + 4096 &&
                        (char *)si->si_addr >= small_stack;
    siglongjmp(jb, 1);
}

static int recurse(int n)
{
    volatile char pad[512];
    pad[0] = (char)n;
    return recurse(n + 1) + pad[0];
}

static void deep(void)
{
    if (sigsetjmp(jb, 1) == 0)
        recurse(0);
    else
        printf("overflow: handled on alt stack %d, si_addr in guard %d\n", overflow_on_alt,
               overflow_in_guard);
}

static void test_overflow(void)
{
    size_t sz = 16 * 4096;
    small_stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(small_stack, 4096, PROT_NONE); /* the guard page */
    alt = malloc(altsize);
    stack_t ss = { .ss_sp = alt, .ss_size = altsize };
    sigaltstack(&ss, NULL);
    on(SIGSEGV, overflow_handler, SA_ONSTACK);
    getcontext(&deep_uc);
    deep_uc.uc_stack.ss_sp = small_stack;
    deep_uc.uc_stack.ss_size = sz;
    deep_uc.uc_link = &main_uc;
    makecontext(&deep_uc, deep, 0);
    swapcontext(&main_uc, &deep_uc);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    dfl(SIGSEGV);
    free(alt);
    munmap(small_stack, sz);
}

/* ------------------------------------------------------------ waiting for signals */

static void test_wait(void)
{
    on(SIGUSR1, record, 0);
    sigset_t s, empty;
    sigemptyset(&s);
    sigemptyset(&empty);
    sigaddset(&s, SIGUSR1);
    sigprocmask(SIG_BLOCK, &s, NULL);
    raise(SIGUSR1);
    int r = sigsuspend(&empty);
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    printf("sigsuspend: %d %s, handled %d, mask back %d\n", r, strerror(errno), norder,
           sigismember(&cur, SIGUSR1));
    norder = 0;
    /* A signal from another process while suspended. */
    pid_t pid = fork();
    if (pid == 0) {
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        kill(getppid(), SIGUSR1);
        _exit(0);
    }
    r = sigsuspend(&empty);
    printf("sigsuspend (other process): %d %s, handled %d\n", r, strerror(errno), norder);
    waitpid(pid, NULL, 0);
    norder = 0;
    dfl(SIGUSR1);

    sigaddset(&s, SIGUSR2);
    sigprocmask(SIG_BLOCK, &s, NULL);
    raise(SIGUSR2);
    siginfo_t si;
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    r = sigtimedwait(&s, &si, &ts);
    printf("sigtimedwait: %d code=%d\n", r, si.si_code);
    errno = 0;
    r = sigtimedwait(&s, &si, &ts);
    printf("sigtimedwait timeout: %d %s\n", r, strerror(errno));
    sigqueue(getpid(), SIGUSR1, (union sigval){ .sival_int = 99 });
    r = sigwaitinfo(&s, &si);
    printf("sigwaitinfo: %d code=%s value=%d\n", r, si.si_code == SI_QUEUE ? "SI_QUEUE" : "?",
           si.si_value.sival_int);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
}

/* ------------------------------------------------------------ EINTR and SA_RESTART */

static int pfd[2];

static void alrm(int sig, siginfo_t *si, void *ucp)
{
    count++;
    if (count == 1) {
        ssize_t w = write(pfd[1], "x", 1);
        (void)w;
    }
}

/* A child that sends SIGALRM every 100 ms until it is killed. */
static pid_t ticker(void)
{
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        for (;;) {
            struct timespec ts = { 0, 100 * 1000 * 1000 };
            nanosleep(&ts, NULL);
            kill(parent, SIGALRM);
        }
    }
    return pid;
}

static void stop_ticker(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void test_restart(void)
{
    if (pipe(pfd) != 0)
        return;
    char buf[4];
    count = 0;
    on(SIGALRM, alrm, 0);
    pid_t t = ticker();
    ssize_t r = read(pfd[0], buf, 1);
    int e = errno;
    stop_ticker(t);
    printf("read without SA_RESTART: %zd %s\n", r, r < 0 ? strerror(e) : "data");
    r = read(pfd[0], buf, 1); /* the handler's byte */
    count = 0;
    on(SIGALRM, alrm, SA_RESTART);
    t = ticker();
    r = read(pfd[0], buf, 1);
    stop_ticker(t);
    printf("read with SA_RESTART: %zd '%c'\n", r, r == 1 ? buf[0] : '?');
    /* nanosleep fails with EINTR even with SA_RESTART. */
    t = ticker();
    struct timespec ts = { 5, 0 }, rem;
    int n = nanosleep(&ts, &rem);
    e = errno;
    stop_ticker(t);
    printf("nanosleep with SA_RESTART: %d %s rem_ok %d\n", n, strerror(e),
           rem.tv_sec < 5 && rem.tv_sec >= 3);
    dfl(SIGALRM);
    close(pfd[0]);
    close(pfd[1]);
}

/* ------------------------------------------------------------ deaths */

static void child_dies(const char *what, void (*how)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit no = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no);
        how();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("%s: signaled %d sig %d core %d\n", what, WIFSIGNALED(st), WTERMSIG(st),
           WCOREDUMP(st) ? 1 : 0);
}

static void die_term(void) { kill(getpid(), SIGTERM); pause(); }
static void die_segv(void) { *(volatile int *)8 = 1; }
static void die_abort(void) { abort(); }
static void die_blocked_segv(void)
{
    /* A fault with its signal blocked kills even with a handler. */
    on(SIGSEGV, fault_jump, 0);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGSEGV);
    sigprocmask(SIG_BLOCK, &s, NULL);
    *(volatile int *)16 = 1;
}
static void die_pipe(void)
{
    int p[2];
    if (pipe(p) == 0) {
        close(p[0]);
        ssize_t w = write(p[1], "x", 1);
        (void)w;
    }
}
static void survive_ignored_term(void)
{
    signal(SIGTERM, SIG_IGN);
    kill(getpid(), SIGTERM);
    _exit(3);
}

static void test_deaths(void)
{
    child_dies("SIGTERM", die_term);
    child_dies("SIGSEGV", die_segv);
    child_dies("abort", die_abort);
    child_dies("blocked SIGSEGV", die_blocked_segv);
    child_dies("SIGPIPE", die_pipe);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        survive_ignored_term();
    int st;
    waitpid(pid, &st, 0);
    printf("ignored SIGTERM: exited %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));
}

/* ------------------------------------------------------------ clone3(CLONE_CLEAR_SIGHAND) */

struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};
#define CLEAR_SIGHAND 0x100000000ull

static void test_clear_sighand(void)
{
    on(SIGUSR1, record, SA_RESTART);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = SA_RESTART;
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(SIGUSR2, &sa, NULL);
    fflush(stdout);
    struct clone3_args ca = { .flags = CLEAR_SIGHAND, .exit_signal = SIGCHLD };
    long pid = syscall(SYS_clone3, &ca, sizeof(ca));
    if (pid == 0) {
        struct sigaction o1, o2;
        sigaction(SIGUSR1, NULL, &o1);
        sigaction(SIGUSR2, NULL, &o2);
        int bits = (o1.sa_handler == SIG_DFL) | (o1.sa_flags == 0) << 1 |
                   (o2.sa_handler == SIG_IGN) << 2 | (o2.sa_flags == 0) << 3 |
                   !sigismember(&o2.sa_mask, SIGHUP) << 4;
        kill(getpid(), SIGUSR2); /* still ignored */
        if (bits == 31)
            kill(getpid(), SIGUSR1); /* now the default action: death */
        _exit(bits);
    }
    int st = 0;
    waitpid((pid_t)pid, &st, 0);
    printf("CLONE_CLEAR_SIGHAND: %s %d\n", WIFSIGNALED(st) ? "killed by" : "exited",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    struct sigaction o;
    sigaction(SIGUSR1, NULL, &o);
    printf("parent keeps its handler: %d\n", o.sa_sigaction == record);
    ca.flags = CLEAR_SIGHAND | 0x800 | 0x100; /* CLONE_SIGHAND | CLONE_VM */
    errno = 0;
    long r = syscall(SYS_clone3, &ca, sizeof(ca));
    printf("with CLONE_SIGHAND: %ld %s\n", r, strerror(errno));
    dfl(SIGUSR1);
    dfl(SIGUSR2);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_segv();
    test_fpe();
    test_ill_trap();
    test_bus();
    test_ucontext_edit();
    test_masks();
    test_flags();
    test_altstack();
    test_overflow();
    test_wait();
    test_restart();
    test_deaths();
    test_clear_sighand();
    printf("done\n");
    return 0;
}
