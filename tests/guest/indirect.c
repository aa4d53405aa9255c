/* Indirect JMP and CALL whose target changes, compared with the native run:
 * whatever elfemu remembers of the blocks a branch went to (the dispatch
 * loop's successor links, chained blocks' links), a different target, code
 * rewritten at a target gone to before, and a fault at the branch's memory
 * operand or at its target must all behave as natively.  Also: a switch's
 * jump table (JMP through memory or a register, by build), calls through
 * the PLT (a lazily bound GOT slot changes its target after the first
 * call), one call site's targets in patterns (cpu/chain.h chain_indirect
 * keeps the last two), a computed-goto bytecode loop, and a called page
 * mapped again with other code. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#define NOINLINE __attribute__((noinline))

/* ------------------------------------------------------------ jump tables */

NOINLINE static unsigned dispatch(unsigned op, unsigned acc)
{
    switch (op) {
    case 0: return acc + 1;
    case 1: return acc * 3;
    case 2: return acc ^ 0x5a5a;
    case 3: return acc - 7;
    case 4: return acc << 1;
    case 5: return acc >> 1;
    case 6: return acc | 0x100;
    case 7: return acc & 0xfffff;
    case 8: return acc + op * 11;
    case 9: return ~acc;
    default: return acc;
    }
}

static unsigned switches(void)
{
    unsigned acc = 1, seed = 12345;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        /* runs of one case, then changing ones */
        unsigned op = (i & 0x100) ? (seed >> 16) % 10 : (unsigned)(i >> 9) % 10;
        acc = dispatch(op, acc);
    }
    return acc;
}

/* ------------------------------------------------------------ the PLT */

static long plt_calls(void)
{
    char buf[32];
    long sum = 0;
    for (int i = 0; i < 2000; i++) {
        snprintf(buf, sizeof(buf), "%d", i * 7);
        sum += strtol(buf, NULL, 10) + (long)strlen(buf);
    }
    return sum;
}

/* ------------------------------------------------------------ rewritten targets */

/* A page for code (fixed: at that address), or NULL. */
static unsigned char *rwx_page(void *fixed)
{
    void *p = mmap(fixed, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS | (fixed ? MAP_FIXED : 0), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* A function returning imm: B8 imm32 C3 (mov $imm, %eax; ret) in both modes. */
static void put_return(unsigned char *page, int imm)
{
    page[0] = 0xb8;
    memcpy(page + 1, &imm, 4);
    page[5] = 0xc3;
    __builtin___clear_cache((char *)page, (char *)page + 6);
}

/* Such a function on a writable page, called through a pointer in memory
 * and in a register and rewritten between calls. */
static long rewritten_target(void)
{
    unsigned char *page = rwx_page(NULL);
    if (!page)
        return -1;
    static int (*volatile fp)(void);
    fp = (int (*)(void))page;
    long sum = 0;
    for (int i = 0; i < 300; i++) {
        put_return(page, i);
        for (int k = 0; k < 5; k++)
            sum += fp();
    }
    munmap(page, 4096);
    return sum;
}

/* ------------------------------------------------------------ target patterns
 * One call site, whose last two targets elfemu keeps: the same target
 * again, two in turn, three in turn (never one of the last two), and a
 * pattern that mixes them. */
NOINLINE static long add_one(long x) { return x + 1; }
NOINLINE static long times_three(long x) { return x * 3; }
NOINLINE static long flip(long x) { return x ^ 0x5555; }

static long call_patterns(void)
{
    static long (*const fns[3])(long) = { add_one, times_three, flip };
    static const char *const patterns[] = { "000000", "010101", "012012", "0010220112" };
    long (*volatile fp)(long);
    long sum = 0;
    for (unsigned p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++)
        for (int round = 0; round < 400; round++)
            for (const char *c = patterns[p]; *c; c++) {
                fp = fns[*c - '0'];
                sum = fp(sum) & 0xffffffff;
            }
    return sum;
}

/* A bytecode loop dispatched by computed gotos: each handler ends with its
 * own JMP through a register, whose next target depends on the program. */
static long threaded_code(void)
{
    static const unsigned char prog[] = { 0, 1, 0, 2, 1, 3, 0, 0, 2, 4 };
    static void *const labels[] = { &&inc, &&dbl, &&sub, &&mix, &&end };
    long acc = 1, sum = 0;
    for (int round = 0; round < 3000; round++) {
        const unsigned char *pc = prog;
        goto *labels[*pc];
    inc:
        acc++;
        goto *labels[*++pc];
    dbl:
        acc = (acc * 2) & 0xffffff;
        goto *labels[*++pc];
    sub:
        acc -= 3;
        goto *labels[*++pc];
    mix:
        acc ^= round;
        goto *labels[*++pc];
    end:
        sum += acc;
    }
    return sum;
}

/* A called page unmapped and mapped again at the same address with other
 * code: the call site's remembered target block is of the old mapping. */
static long remapped_target(void)
{
    unsigned char *page = rwx_page(NULL);
    if (!page)
        return -1;
    static int (*volatile fp)(void);
    fp = (int (*)(void))page;
    long sum = 0;
    for (int i = 1; i <= 50; i++) {
        put_return(page, i);
        mprotect(page, 4096, PROT_READ | PROT_EXEC);
        for (int k = 0; k < 4; k++)
            sum += fp();
        munmap(page, 4096);
        if (rwx_page(page) != page)
            return -2;
    }
    munmap(page, 4096);
    return sum;
}

/* ------------------------------------------------------------ faults */

/* CALL and JMP through a pointer at (first argument): the load of the
 * target faults when it points at nothing; rip must be the branch's. */
#ifdef __x86_64__
__asm__(".text\n"
        ".globl icall_mem\n icall_mem:\n"
        ".globl icall_site\n icall_site:\n call *(%rdi)\n ret\n"
        ".globl ijmp_mem\n ijmp_mem:\n"
        ".globl ijmp_site\n ijmp_site:\n jmp *(%rdi)\n");
#define UC_IP REG_RIP
#else
__asm__(".text\n"
        ".globl icall_mem\n icall_mem:\n mov 4(%esp), %eax\n"
        ".globl icall_site\n icall_site:\n call *(%eax)\n ret\n"
        ".globl ijmp_mem\n ijmp_mem:\n mov 4(%esp), %eax\n"
        ".globl ijmp_site\n ijmp_site:\n jmp *(%eax)\n");
#define UC_IP REG_EIP
#endif
extern int icall_mem(int (**p)(void));
extern int ijmp_mem(int (**p)(void));
extern char icall_site[], ijmp_site[];

NOINLINE static int forty_two(void) { return 42; }
NOINLINE static int seven(void) { return 7; }

static sigjmp_buf back;
static volatile uintptr_t fault_ip, fault_addr;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    fault_ip = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[UC_IP];
    fault_addr = (uintptr_t)si->si_addr;
    siglongjmp(back, 1);
}

static void faults(void)
{
    int (*good)(void) = forty_two, (*other)(void) = seven;
    long sum = 0;
    /* The same target many times (remembered), then another, then none. */
    for (int i = 0; i < 1000; i++)
        sum += icall_mem(&good) + ijmp_mem(&good);
    for (int i = 0; i < 10; i++)
        sum += icall_mem(i & 1 ? &good : &other) + ijmp_mem(i & 1 ? &other : &good);
    printf("indirect through memory: %ld\n", sum);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    int (**bad)(void) = (int (**)(void))(uintptr_t)64;
    if (!sigsetjmp(back, 1)) {
        icall_mem(bad);
        printf("call: no fault\n");
    } else
        printf("call: fault at the call %s, address %#lx\n",
               fault_ip == (uintptr_t)icall_site ? "yes" : "NO", (unsigned long)fault_addr);
    if (!sigsetjmp(back, 1)) {
        ijmp_mem(bad);
        printf("jmp: no fault\n");
    } else
        printf("jmp: fault at the jmp %s, address %#lx\n",
               fault_ip == (uintptr_t)ijmp_site ? "yes" : "NO", (unsigned long)fault_addr);
    /* A target that is not mapped: the fault is at the target. */
    int (*nowhere)(void) = (int (*)(void))(uintptr_t)0x1000;
    if (!sigsetjmp(back, 1)) {
        ijmp_mem(&nowhere);
        printf("jmp to nowhere: no fault\n");
    } else
        printf("jmp to nowhere: ip %#lx, address %#lx\n", (unsigned long)fault_ip,
               (unsigned long)fault_addr);
    signal(SIGSEGV, SIG_DFL);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("switches: %u\n", switches());
    printf("plt: %ld\n", plt_calls());
    printf("rewritten: %ld\n", rewritten_target());
    printf("call patterns: %ld\n", call_patterns());
    printf("threaded code: %ld\n", threaded_code());
    printf("remapped: %ld\n", remapped_target());
    faults();
    return 0;
}
