/* The x87 state across what happens between x87 instructions, compared
 * with the native run.  While every exception is masked, elfemu keeps the
 * guest's x87 state in the host's x87 and runs the instructions there
 * (cpu/x87_host.h): this test puts values on the stack and then makes the
 * emulator do its own work in between -- a system call, a guest fault
 * with a handler that does x87 arithmetic of its own and reads the
 * interrupted state from its ucontext, a signal, another thread, MMX,
 * FNSAVE/FRSTOR and FXSAVE -- before it reads the stack back.  It also
 * runs the memory forms on edge values: FLD m32/m64 of denormals and
 * SNaNs, FST/FSTP m32/m64 under each rounding mode and precision control
 * (overflow, underflow, inexact), FILD/FIST/FISTTP out of range, FBLD/
 * FBSTP, FCOMI/FUCOMI with NaNs, FCMOVcc, stack overflow and underflow,
 * the status word after each. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

typedef struct {
    uint64_t m;
    uint16_t se;
} __attribute__((packed)) f80;

static void show80(const char *what, const f80 *v)
{
    printf("%s %04x:%016llx\n", what, v->se, (unsigned long long)v->m);
}

static uint16_t fnstsw(void)
{
    uint16_t sw;
    __asm__ volatile("fnstsw %0" : "=a"(sw));
    return sw;
}

/* Empty the stack (FNINIT) under control word cw. */
static void reset(uint16_t cw)
{
    __asm__ volatile("fninit\n\tfldcw %0" : : "m"(cw));
}

/* Pop the whole stack into out[8] (FSTP m80, empty registers give the
 * indefinite with IE) and the status word after each. */
static void drain(const char *what)
{
    f80 v;
    for (int i = 0; i < 8; i++) {
        __asm__ volatile("fstpt %0" : "=m"(v));
        uint16_t sw = fnstsw();
        printf("%s st%d sw=%04x ", what, i, sw);
        show80("", &v);
    }
}

static void push3(void)
{
    __asm__ volatile("fldpi\n\tfld1\n\tfldl2e\n\tfmul %%st(1), %%st\n\tfdivr %%st(2), %%st" ::: "memory");
}

/* ------------------------------------------------------------ memory forms */
static const uint32_t f32s[] = { 0, 0x80000000, 0x00000001, 0x807fffff, 0x7f800000, 0x7fc00001,
                                 0x7f800001, 0xff900000, 0x3eaaaaab, 0x7f7fffff };
static const uint64_t f64s[] = { 0x0000000000000001, 0x800fffffffffffff, 0x7ff0000000000001,
                                 0xfff4000000000000, 0x7ff8000000000000, 0x3fd5555555555555,
                                 0x7fefffffffffffff, 0x0010000000000000 };
/* 80-bit values to store: overflow, underflow, halfway cases, integers. */
static const f80 stores[] = {
    { 0x8000000000000000ull, 0x3fff }, { 0xaaaaaaaaaaaaaaabull, 0x3ffd }, { 0xffffffffffffffffull, 0x7ffe },
    { 0x8000000000000001ull, 0x3c00 }, { 0xc000000000000000ull, 0x3f6a }, { 0x8000000000000000ull, 0x0001 },
    { 0xc000000000000000ull, 0x407f }, { 0x8000008000000000ull, 0x3fff }, { 0x8000000000000400ull, 0x3fff },
    { 0xfffffffffffff800ull, 0x43fe }, { 0x8000000000000000ull, 0x400e }, { 0xffff000000000000ull, 0xc00d },
    { 0xc000000000000001ull, 0x7fff }, { 0xa000000000000000ull, 0x4003 }, { 0xde0b6b3a76400000ull, 0x403a },
};

static void memory_forms(void)
{
    static const uint16_t cws[] = { 0x037f, 0x077f, 0x0b7f, 0x0f7f, 0x007f, 0x027f };
    for (unsigned i = 0; i < sizeof(f32s) / sizeof(f32s[0]); i++) {
        f80 v;
        reset(0x37f);
        __asm__ volatile("flds %1\n\tfstpt %0" : "=m"(v) : "m"(f32s[i]));
        printf("fld m32 %08x sw=%04x", f32s[i], fnstsw());
        show80(" ->", &v);
    }
    for (unsigned i = 0; i < sizeof(f64s) / sizeof(f64s[0]); i++) {
        f80 v;
        reset(0x37f);
        __asm__ volatile("fldl %1\n\tfstpt %0" : "=m"(v) : "m"(f64s[i]));
        printf("fld m64 %016llx sw=%04x", (unsigned long long)f64s[i], fnstsw());
        show80(" ->", &v);
    }
    for (unsigned k = 0; k < sizeof(cws) / sizeof(cws[0]); k++)
        for (unsigned i = 0; i < sizeof(stores) / sizeof(stores[0]); i++) {
            uint32_t s32;
            uint64_t s64, i64;
            uint32_t i32;
            uint16_t i16, t16;
            uint8_t bcd[10];
            uint16_t sw[8];
            reset(cws[k]);
            __asm__ volatile("fldt %1\n\tfsts %0" : "=m"(s32) : "m"(stores[i]));
            sw[0] = fnstsw();
            __asm__ volatile("fstl %0" : "=m"(s64));
            sw[1] = fnstsw();
            __asm__ volatile("fistl %0" : "=m"(i32));
            sw[2] = fnstsw();
            __asm__ volatile("fists %0" : "=m"(i16));
            sw[3] = fnstsw();
            __asm__ volatile("fld %%st(0)\n\tfisttps %0" : "=m"(t16));
            sw[4] = fnstsw();
            __asm__ volatile("fld %%st(0)\n\tfbstp %0" : "=m"(bcd));
            sw[5] = fnstsw();
            __asm__ volatile("fld %%st(0)\n\tfistpll %0" : "=m"(i64));
            sw[6] = fnstsw();
            f80 back;
            __asm__ volatile("fbld %1\n\tfaddp\n\tfstpt %0" : "=m"(back) : "m"(bcd));
            sw[7] = fnstsw();
            printf("store cw=%04x %04x:%016llx: m32 %08x m64 %016llx i32 %08x i16 %04x tt16 %04x "
                   "i64 %016llx bcd %02x%02x..%02x%02x",
                   cws[k], stores[i].se, (unsigned long long)stores[i].m, s32, (unsigned long long)s64,
                   i32, i16, t16, (unsigned long long)i64, bcd[9], bcd[8], bcd[1], bcd[0]);
            for (int j = 0; j < 8; j++)
                printf(" %04x", sw[j]);
            show80(" sum", &back);
        }
}

/* ------------------------------------------------------------ compares, moves */
static void compares(void)
{
    static const uint64_t vals[] = { 0x3ff0000000000000, 0x4000000000000000, 0x7ff8000000000000,
                                     0x7ff0000000000001, 0x8000000000000000, 0 };
    for (unsigned i = 0; i < 6; i++)
        for (unsigned j = 0; j < 6; j++) {
            unsigned char fl[4];
            uint16_t sw[3];
            reset(0x37f);
            __asm__ volatile("fldl %5\n\tfldl %4\n\t"
                             "fcomi %%st(1), %%st\n\tsetz %0\n\tsetp %1\n\tsetc %2\n\tseta %3"
                             : "=m"(fl[0]), "=m"(fl[1]), "=m"(fl[2]), "=m"(fl[3])
                             : "m"(vals[i]), "m"(vals[j]));
            sw[0] = fnstsw();
            unsigned char u[3];
            __asm__ volatile("fucomip %%st(1), %%st\n\tsetz %0\n\tsetp %1\n\tsetc %2"
                             : "=m"(u[0]), "=m"(u[1]), "=m"(u[2]));
            sw[1] = fnstsw();
            uint16_t ax;
            __asm__ volatile("fldz\n\tfcompp\n\tfnstsw %0" : "=a"(ax));
            sw[2] = ax;
            printf("cmp %u %u: fcomi z%u p%u c%u a%u fucomip z%u p%u c%u sw %04x %04x %04x\n", i, j,
                   fl[0], fl[1], fl[2], fl[3], u[0], u[1], u[2], sw[0], sw[1], sw[2]);
        }
    /* FCMOVcc after an integer compare, both ways. */
    for (int a = 0; a < 3; a++) {
        f80 r[4];
        reset(0x37f);
        __asm__ volatile("fld1\n\tfldz\n\tcmp $1, %4\n\t"
                         "fcmovb %%st(1), %%st\n\tfstpt %0\n\tfldz\n\tfcmovnbe %%st(1), %%st\n\tfstpt %1\n\t"
                         "fldz\n\tfcmove %%st(1), %%st\n\tfstpt %2\n\tfldz\n\tfcmovnu %%st(1), %%st\n\tfstpt %3"
                         : "=m"(r[0]), "=m"(r[1]), "=m"(r[2]), "=m"(r[3])
                         : "r"(a)
                         : "cc");
        printf("fcmov %d: %04x %04x %04x %04x sw=%04x\n", a, r[0].se, r[1].se, r[2].se, r[3].se, fnstsw());
    }
}

/* Stack overflow and underflow with IE masked, FXCH of an empty register,
 * FFREE, FINCSTP/FDECSTP, precision control on arithmetic. */
static void stack_edges(void)
{
    reset(0x37f);
    for (int i = 0; i < 9; i++)
        __asm__ volatile("fldpi");
    printf("9 pushes sw=%04x\n", fnstsw());
    drain("overflow");
    reset(0x37f);
    __asm__ volatile("fld1\n\tfadd %st(3), %st\n\tfxch %st(5)\n\tffree %st(2)\n\tfincstp\n\tfdecstp");
    printf("underflow sw=%04x\n", fnstsw());
    drain("underflow");
    static const uint16_t pcs[] = { 0x007f, 0x027f, 0x037f, 0x0c7f, 0x087f };
    for (unsigned k = 0; k < 5; k++) {
        reset(pcs[k]);
        __asm__ volatile("fld1\n\tfldpi\n\tfdivrp\n\tfld1\n\tfldl2t\n\tfmulp\n\tfsqrt\n\tfldlg2\n\tfsubrp");
        printf("pc cw=%04x sw=%04x\n", pcs[k], fnstsw());
        drain("pc");
    }
}

/* ------------------------------------------------------------ across the emulator's own work */
static void syscall_between(void)
{
    long pid;
    reset(0x37f);
    push3();
    __asm__ volatile("fld1\n\tfldz\n\tfdivr %st(1), %st"); /* ZE, 5 registers */
#ifdef __x86_64__
    __asm__ volatile("syscall" : "=a"(pid) : "a"(39L) : "rcx", "r11", "memory");
#else
    __asm__ volatile("int $0x80" : "=a"(pid) : "a"(20L) : "memory");
#endif
    printf("after getpid (%s) sw=%04x\n", pid == getpid() ? "ok" : "bad", fnstsw());
    drain("syscall");
}

static sigjmp_buf jump;
static volatile f80 handler_sum;

static void show_ucontext_fpu(const char *what, const ucontext_t *uc)
{
#ifdef __x86_64__
    const struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
    printf("%s: cw=%04x sw=%04x ftw=%02x\n", what, fp->cwd, fp->swd, fp->ftw);
    for (int i = 0; i < 8; i++)
        printf("%s: st%d %04x:%016llx\n", what, i, fp->_st[i].exponent,
               *(const unsigned long long *)fp->_st[i].significand);
#else
    const struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
    printf("%s: cw=%04lx sw=%04lx tag=%04lx\n", what, fp->cw & 0xffff, fp->sw & 0xffff, fp->tag & 0xffff);
    for (int i = 0; i < 8; i++)
        printf("%s: st%d %04x:%016llx\n", what, i, fp->_st[i].exponent,
               *(const unsigned long long *)fp->_st[i].significand);
#endif
}

/* A handler with x87 work of its own: it starts with a fresh x87 state. */
static void own_x87_work(void)
{
    f80 v;
    uint16_t cw;
    __asm__ volatile("fnstcw %1\n\tfldl2t\n\tfld1\n\tfdivp\n\tfstpt %0" : "=m"(v), "=m"(cw));
    printf("handler: own cw=%04x sw=%04x", cw, fnstsw());
    show80(" value", &v);
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    printf("handler: signal %d\n", sig);
    show_ucontext_fpu("handler: interrupted", uc);
    own_x87_work();
    /* Skip the faulting 2-byte load (mov (%reg), %eax). */
#ifdef __x86_64__
    uc->uc_mcontext.gregs[REG_RIP] += 2;
#else
    uc->uc_mcontext.gregs[REG_EIP] += 2;
#endif
}

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
    printf("handler: signal %d\n", sig);
    show_ucontext_fpu("handler: usr1", ucv);
    own_x87_work();
}

static void fault_between(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sa.sa_sigaction = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);

    /* A fault of an integer load, then of an x87 load and an x87 store
     * (each skipped by the handler: FLDS/FSTPS (%reg) are 2 bytes too). */
    reset(0x37f);
    push3();
    __asm__ volatile("fld1\n\tfldz\n\tfdivr %st(1), %st"); /* flags: ZE */
    long zero = 0;
    int out;
    __asm__ volatile(".byte 0x8b, 0x00" : "=a"(out) : "a"(zero) : "memory"); /* mov (%eax/%rax), %eax */
    printf("after integer fault sw=%04x\n", fnstsw());
    __asm__ volatile(".byte 0xd9, 0x00" : : "a"(zero) : "memory"); /* flds (%eax/%rax) */
    printf("after fld fault sw=%04x\n", fnstsw());
    __asm__ volatile(".byte 0xd9, 0x18" : : "a"(zero) : "memory"); /* fstps (%eax/%rax) */
    printf("after fstp fault sw=%04x\n", fnstsw());
    drain("fault");

    /* A signal queued by a system call, delivered with 6 registers full. */
    reset(0x0f7f);
    push3();
    push3();
#ifdef __x86_64__
    long pid, r;
    __asm__ volatile("syscall" : "=a"(pid) : "a"(39L) : "rcx", "r11", "memory");
    __asm__ volatile("syscall" : "=a"(r) : "a"(62L), "D"(pid), "S"((long)SIGUSR1) : "rcx", "r11", "memory");
#else
    long pid, r;
    __asm__ volatile("int $0x80" : "=a"(pid) : "a"(20L) : "memory");
    __asm__ volatile("push %%ebx\n\tmov %2, %%ebx\n\tint $0x80\n\tpop %%ebx"
                     : "=a"(r) : "a"(37L), "r"(pid), "c"((long)SIGUSR1) : "memory");
#endif
    printf("after kill %ld sw=%04x\n", r, fnstsw());
    drain("signal");
}

/* ------------------------------------------------------------ threads */
struct job {
    uint16_t cw;
    f80 result;
    uint16_t sw;
};

static void *thread_body(void *arg)
{
    struct job *j = arg;
    reset(j->cw);
    __asm__ volatile("fldz");
    for (int i = 1; i <= 2000; i++) {
        int n = i;
        __asm__ volatile("fld1\n\tfidivl %0\n\tfaddp\n\tfld %%st(0)\n\tfsqrt\n\tfstp %%st(0)" : : "m"(n));
        if (i % 500 == 0)
            sched_yield(); /* a system call with the sum on the stack */
    }
    __asm__ volatile("fstpt %0" : "=m"(j->result));
    j->sw = fnstsw();
    return NULL;
}

static void threads(void)
{
    struct job jobs[3] = { { 0x037f }, { 0x0c7f }, { 0x007f } };
    pthread_t t[3];
    reset(0x0b7f);
    push3();
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, thread_body, &jobs[i]);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 3; i++) {
        printf("thread cw=%04x sw=%04x", jobs[i].cw, jobs[i].sw);
        show80(" sum", &jobs[i].result);
    }
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    printf("main cw=%04x after threads sw=%04x\n", cw, fnstsw());
    drain("main");
}

/* ------------------------------------------------------------ state instructions */
static void state_between(void)
{
    uint8_t save[108], fx[512] __attribute__((aligned(16)));
    reset(0x037f);
    push3();
    __asm__ volatile("fnsave %0" : "=m"(save));
    printf("fnsave: cw=%02x%02x sw=%02x%02x tw=%02x%02x after sw=%04x\n", save[1], save[0], save[5], save[4],
           save[9], save[8], fnstsw());
    __asm__ volatile("fld1\n\tfrstor %0" : : "m"(save));
    printf("frstor sw=%04x\n", fnstsw());
    __asm__ volatile("fxsave %0" : "=m"(fx));
    printf("fxsave: cw=%02x%02x sw=%02x%02x ftw=%02x\n", fx[1], fx[0], fx[3], fx[2], fx[4]);
    /* MMX makes every register valid and TOP 0; EMMS empties them. */
    uint64_t mm = 0x0123456789abcdefull;
    __asm__ volatile("movq %0, %%mm2\n\tpaddd %%mm2, %%mm2\n\tmovq %%mm2, %0" : "+m"(mm));
    __asm__ volatile("fxsave %0" : "=m"(fx));
    printf("mmx %016llx: sw=%02x%02x ftw=%02x\n", (unsigned long long)mm, fx[3], fx[2], fx[4]);
    __asm__ volatile("emms\n\tfld1\n\tfldpi");
    printf("after emms sw=%04x\n", fnstsw());
    drain("state");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    memory_forms();
    compares();
    stack_edges();
    syscall_between();
    fault_between();
    threads();
    state_between();
    reset(0x37f);
    return 0;
}
