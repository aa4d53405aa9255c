/* rip where the guest can see it, in the middle of long runs of register
 * instructions (which the emulator runs without keeping rip up to date):
 * faults after 0 to 200 register instructions (before, at and after the
 * emulator's block cuts), loads, stores, #DE, #UD, INT3, a fused compare
 * and branch, a fused pair of scalar SSE instructions, a REP MOVSB that
 * faults part way; the signal frame's rip, si_addr and every register;
 * CALL's return address and rip-relative operands all along a long block
 * (x86_64); a timer signal lands on an instruction of a loop.  Printed
 * relative to the code, so the output is the native run's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>

/* The routines (below, in assembly) and their labels. */
#define ROUTINES(X)                                                                     \
    X(load_0) X(load_1) X(load_5) X(load_6) X(load_7) X(load_8) X(load_25)              \
    X(store_1) X(store_7) X(store_9) X(first_in_block)                                  \
    X(div_3) X(div_8) X(ud2_2) X(ud2_9) X(int3_4) X(int3_8)                             \
    X(fused_cmp_6) X(fused_test_8) X(sse_pair_7) X(push_7)
#define DECLARE(name) void t_##name(void); extern char t_##name##_at[];
ROUTINES(DECLARE)
void t_rep(void *dst, const void *src);
extern char t_rep_at[];
uintptr_t t_call(void);
extern char t_call_ret[];
void t_loop(volatile int *stop);
extern char t_loop_tail[], t_loop_end[];
#ifdef __x86_64__
extern char t_rip_data[];
extern uint64_t t_rip_out[];
uint64_t t_riprel(void);
#endif

/* A routine that faults at its label t_NAME_at, after UNITS units. */
#define ROUTINE_MACROS                                                                  \
    ".macro RBEGIN name, units\n .globl t_\\name, t_\\name\\()_at\n"                     \
    "t_\\name:\n ENTER\n SETREGS\n .rept \\units\n UNIT\n .endr\n"                      \
    "t_\\name\\()_at:\n.endm\n"                                                          \
    ".macro REND\n UNIT\n LEAVE\n.endm\n"

#ifdef __x86_64__
#define ASM_ROUTINES                                                                    \
    ".macro SETREGS\n"                                                                  \
    " movabs $0x0123456789abcdef, %rax\n movabs $0x1111111111111111, %rbx\n"            \
    " movabs $0x2222222222222222, %rcx\n movabs $0x3333333333333333, %rdx\n"            \
    " movabs $0x4444444444444444, %rsi\n movabs $0x5555555555555555, %rdi\n"            \
    " movabs $0x6666666666666666, %rbp\n movabs $0x7777777777777777, %r8\n"             \
    " movabs $0x8888888888888888, %r9\n movabs $0x9999999999999999, %r10\n"             \
    " movabs $0xaaaaaaaaaaaaaaaa, %r11\n movabs $0xbbbbbbbbbbbbbbbb, %r12\n"            \
    " movabs $0xcccccccccccccccc, %r13\n movabs $0xdddddddddddddddd, %r14\n"            \
    " movabs $0xeeeeeeeeeeeeeeee, %r15\n"                                               \
    ".endm\n"                                                                           \
    /* Eight register instructions, every one of them read later. */                   \
    ".macro UNIT\n"                                                                     \
    " add %rbx, %rax\n xor %rax, %rcx\n lea 0x13(%rcx,%rdx,4), %rsi\n rol $7, %rdx\n"   \
    " imul %rsi, %r8\n sub %r8, %r9\n mov %r9, %r10\n adc $3, %r12\n"                   \
    ".endm\n"                                                                           \
    ".macro ENTER\n push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n" \
    ".endm\n"                                                                           \
    ".macro LEAVE\n pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n ret\n" \
    ".endm\n"                                                                           \
    ROUTINE_MACROS                                                                      \
    "RBEGIN load_0, 0\n mov 0x18, %rax\n REND\n"                                        \
    "RBEGIN load_1, 1\n mov 0x18, %r13\n REND\n"                                        \
    "RBEGIN load_5, 5\n mov 0x18, %rax\n REND\n"                                        \
    "RBEGIN load_6, 6\n add 0x18, %rbx\n REND\n"                                        \
    "RBEGIN load_7, 7\n mov 0x18, %rax\n REND\n"                                        \
    "RBEGIN load_8, 8\n mov 0x18, %rax\n REND\n"                                        \
    "RBEGIN load_25, 25\n movzbl 0x18, %eax\n REND\n"                                   \
    "RBEGIN store_1, 1\n mov %rax, 0x20\n REND\n"                                       \
    "RBEGIN store_7, 7\n addl $5, 0x20\n REND\n"                                        \
    "RBEGIN store_9, 9\n mov %rax, 0x20\n REND\n"                                       \
    "RBEGIN first_in_block, 3\n jmp 1f; 1: mov 0x18, %rax\n REND\n"                     \
    "RBEGIN div_3, 3\n xor %ecx, %ecx; div %rcx\n REND\n"                               \
    "RBEGIN div_8, 8\n xor %ecx, %ecx; idiv %ecx\n REND\n"                              \
    "RBEGIN ud2_2, 2\n ud2\n REND\n"                                                    \
    "RBEGIN ud2_9, 9\n ud2\n REND\n"                                                    \
    "RBEGIN int3_4, 4\n int3\n REND\n"                                                  \
    "RBEGIN int3_8, 8\n int3\n REND\n"                                                  \
    "RBEGIN fused_cmp_6, 6\n cmp 0x18, %rax; jne 1f; 1:\n REND\n"                       \
    "RBEGIN fused_test_8, 8\n test %rax, 0x18; je 1f; 1:\n REND\n"                      \
    "RBEGIN sse_pair_7, 7\n addsd 0x18, %xmm0; mulsd %xmm0, %xmm1\n REND\n"             \
    "RBEGIN push_7, 7\n mov %rsp, %r14; mov $0x40, %rsp; push %rax\n REND\n"            \
    /* REP MOVSB from rsi to rdi (the page after rdi's is PROT_NONE). */               \
    ".globl t_rep, t_rep_at\n"                                                          \
    "t_rep:\n ENTER\n push %rdi\n push %rsi\n SETREGS\n .rept 4\n UNIT\n .endr\n"       \
    " pop %rsi\n pop %rdi\n mov $100, %ecx\n add %rbx, %rax\n xor %rax, %rdx\n"          \
    " rol $3, %rbx\n imul %rdx, %r8\n sub %r8, %r9\n"                                    \
    "t_rep_at:\n rep movsb\n UNIT\n LEAVE\n"                                            \
    /* CALL's return address after 9 units (past a block cut). */                      \
    ".globl t_call, t_call_ret\n"                                                       \
    "t_call:\n ENTER\n SETREGS\n .rept 9\n UNIT\n .endr\n call t_call_ret\n"            \
    "t_call_ret:\n pop %rax\n LEAVE\n"                                                  \
    /* rip-relative operands at every place of a long block: LEA, load, a    \
     * store, and a compare in a pair with a branch (which ends a block). */            \
    ".globl t_riprel, t_rip_data, t_rip_out\n"                                          \
    "t_riprel:\n ENTER\n SETREGS\n xor %r13d, %r13d\n"                                  \
    " .irp k, 0,1,2,3,4,5,6,7,8,9,10,11\n UNIT\n"                                       \
    "  lea t_rip_data(%rip), %r11\n mov %r11, t_rip_out+8*\\k(%rip)\n"                  \
    "  add t_rip_data+8*\\k(%rip), %r13\n .endr\n"                                      \
    " .irp k, 0,1,2,3,4,5,6,7,8,9,10,11\n"                                              \
    "  cmp t_rip_data+8*\\k(%rip), %r13\n je 1f\n 1: add t_rip_data+8*\\k(%rip), %r13\n" \
    " .endr\n mov %r13, %rax\n LEAVE\n"                                                 \
    /* A loop of 3-byte register instructions until *rdi != 0. */                     \
    ".globl t_loop, t_loop_tail, t_loop_end\n"                                          \
    "t_loop:\n ENTER\n mov %rdi, %r15\n"                                               \
    "1: .rept 10\n add %rbx, %rax\n xor %rax, %rcx\n sub %rcx, %rdx\n .endr\n"          \
    "t_loop_tail:\n cmpl $0, (%r15)\n je 1b\n"                                          \
    "t_loop_end:\n LEAVE\n"                                                             \
    ".data\n .balign 8\nt_rip_data:\n"                                                  \
    " .quad 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41\n"                              \
    "t_rip_out:\n .fill 12, 8, 0\n"
#define INSN_STEP 3 /* the loop's register instructions are 3 bytes each */
#define CMP_LEN 4   /* cmpl $0, (%r15) */
#else
#define ASM_ROUTINES                                                                    \
    ".macro SETREGS\n"                                                                  \
    " mov $0x01234567, %eax\n mov $0x11111111, %ebx\n mov $0x22222222, %ecx\n"          \
    " mov $0x33333333, %edx\n mov $0x44444444, %esi\n mov $0x55555555, %edi\n"          \
    " mov $0x66666666, %ebp\n"                                                          \
    ".endm\n"                                                                           \
    ".macro UNIT\n"                                                                     \
    " add %ebx, %eax\n xor %eax, %ecx\n lea 0x13(%ecx,%edx,4), %esi\n rol $7, %edx\n"   \
    " imul %esi, %edi\n sub %edi, %ebp\n mov %ebp, %ebx\n adc $3, %ebx\n"               \
    ".endm\n"                                                                           \
    ".macro ENTER\n push %ebx\n push %ebp\n push %esi\n push %edi\n.endm\n"             \
    ".macro LEAVE\n pop %edi\n pop %esi\n pop %ebp\n pop %ebx\n ret\n.endm\n"           \
    ROUTINE_MACROS                                                                      \
    "RBEGIN load_0, 0\n mov 0x18, %eax\n REND\n"                                        \
    "RBEGIN load_1, 1\n mov 0x18, %ebp\n REND\n"                                        \
    "RBEGIN load_5, 5\n mov 0x18, %eax\n REND\n"                                        \
    "RBEGIN load_6, 6\n add 0x18, %ebx\n REND\n"                                        \
    "RBEGIN load_7, 7\n mov 0x18, %eax\n REND\n"                                        \
    "RBEGIN load_8, 8\n mov 0x18, %eax\n REND\n"                                        \
    "RBEGIN load_25, 25\n movzbl 0x18, %eax\n REND\n"                                   \
    "RBEGIN store_1, 1\n mov %eax, 0x20\n REND\n"                                       \
    "RBEGIN store_7, 7\n addl $5, 0x20\n REND\n"                                        \
    "RBEGIN store_9, 9\n mov %eax, 0x20\n REND\n"                                       \
    "RBEGIN first_in_block, 3\n jmp 1f; 1: mov 0x18, %eax\n REND\n"                     \
    "RBEGIN div_3, 3\n xor %ecx, %ecx; div %ecx\n REND\n"                               \
    "RBEGIN div_8, 8\n xor %ecx, %ecx; idiv %ecx\n REND\n"                              \
    "RBEGIN ud2_2, 2\n ud2\n REND\n"                                                    \
    "RBEGIN ud2_9, 9\n ud2\n REND\n"                                                    \
    "RBEGIN int3_4, 4\n int3\n REND\n"                                                  \
    "RBEGIN int3_8, 8\n int3\n REND\n"                                                  \
    "RBEGIN fused_cmp_6, 6\n cmp 0x18, %eax; jne 1f; 1:\n REND\n"                       \
    "RBEGIN fused_test_8, 8\n test %eax, 0x18; je 1f; 1:\n REND\n"                      \
    "RBEGIN sse_pair_7, 7\n addsd 0x18, %xmm0; mulsd %xmm0, %xmm1\n REND\n"             \
    "RBEGIN push_7, 7\n movd %esp, %xmm7; mov $0x40, %esp; push %eax\n REND\n"            \
    ".globl t_rep, t_rep_at\n"                                                          \
    "t_rep:\n ENTER\n SETREGS\n .rept 4\n UNIT\n .endr\n"                               \
    " mov 20(%esp), %edi\n mov 24(%esp), %esi\n mov $100, %ecx\n add %ebx, %eax\n"       \
    " xor %eax, %edx\n rol $3, %ebx\n imul %edx, %ebp\n sub %ebp, %eax\n"               \
    "t_rep_at:\n rep movsb\n UNIT\n LEAVE\n"                                            \
    ".globl t_call, t_call_ret\n"                                                       \
    "t_call:\n ENTER\n SETREGS\n .rept 9\n UNIT\n .endr\n call t_call_ret\n"            \
    "t_call_ret:\n pop %eax\n LEAVE\n"                                                  \
    /* A loop of 2-byte register instructions until *stop != 0. */                    \
    ".globl t_loop, t_loop_tail, t_loop_end\n"                                          \
    "t_loop:\n ENTER\n mov 20(%esp), %edi\n"                                            \
    "1: .rept 10\n add %ebx, %eax\n xor %eax, %ecx\n sub %ecx, %edx\n .endr\n"          \
    "t_loop_tail:\n cmpl $0, (%edi)\n je 1b\n"                                          \
    "t_loop_end:\n LEAVE\n"
#define INSN_STEP 2
#define CMP_LEN 3   /* cmpl $0, (%edi) */
#endif
__asm__(".text\n" ASM_ROUTINES ".text\n");

static sigjmp_buf back;

/* Where a fault left the guest, relative to the routine running. */
static const char *routine_name;
static uintptr_t routine_start, routine_at;

/* The REP MOVSB's buffers (mmap'd: not at the same place natively). */
static uint8_t *rep_dst, *rep_src;

/* A value, relative to the buffers when it points into them. */
static void print_value(uintptr_t v)
{
    if (rep_dst && v - (uintptr_t)rep_dst < 8192)
        printf(" dst+%lu", (unsigned long)(v - (uintptr_t)rep_dst));
    else if (rep_src && v - (uintptr_t)rep_src < 4096)
        printf(" src+%lu", (unsigned long)(v - (uintptr_t)rep_src));
    else
        printf(" %llx", (unsigned long long)v);
}

static void print_addr(const char *what, uintptr_t a)
{
    printf(" %s=", what);
    if (a == routine_at)
        printf("at");
    else if (a >= routine_start && a < routine_at + 64)
        printf("start+%ld", (long)(a - routine_start));
    else
        print_value(a);
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    printf("%-15s sig %d code %d", routine_name, sig, si->si_code);
#ifdef __x86_64__
    const greg_t *g = uc->uc_mcontext.gregs;
    print_addr("rip", (uintptr_t)g[REG_RIP]);
    print_addr("addr", (uintptr_t)si->si_addr);
    printf(" flags %#llx\n", (unsigned long long)g[REG_EFL] & 0x8d5);
    static const int regs[] = { REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP,
                                REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13 };
    printf("   ");
    for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
        print_value((uintptr_t)g[regs[i]]);
    printf("\n");
#else
    const greg_t *g = uc->uc_mcontext.gregs;
    print_addr("eip", (uintptr_t)(uint32_t)g[REG_EIP]);
    print_addr("addr", (uintptr_t)si->si_addr);
    printf(" flags %#x\n", (unsigned)g[REG_EFL] & 0x8d5);
    static const int regs[] = { REG_EAX, REG_EBX, REG_ECX, REG_EDX, REG_ESI, REG_EDI, REG_EBP };
    printf("   ");
    for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
        print_value((uint32_t)g[regs[i]]);
    printf("\n");
#endif
    siglongjmp(back, 1);
}

/* Run a routine that must fault at its label. */
static void run(const char *name, void (*fn)(void), char *at)
{
    routine_name = name;
    routine_start = (uintptr_t)fn;
    routine_at = (uintptr_t)at;
    if (sigsetjmp(back, 1) == 0) {
        fn();
        printf("%-15s no fault\n", name);
    }
}

static void rep_case(void)
{
    t_rep(rep_dst + 4096 - 40, rep_src);
}

/* The timer test: signals counted on an instruction of the loop, and
 * elsewhere on something that is no instruction start of it. */
static volatile int loop_stop, loop_hits, loop_bad;

static void on_alarm(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ctx;
#ifdef __x86_64__
    uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#else
    uintptr_t ip = (uintptr_t)(uint32_t)uc->uc_mcontext.gregs[REG_EIP];
#endif
    uintptr_t body = (uintptr_t)t_loop_tail - 30 * INSN_STEP;
    if (ip >= body && ip < (uintptr_t)t_loop_end) {
        bool on = ip < (uintptr_t)t_loop_tail ? (ip - body) % INSN_STEP == 0
                  : ip == (uintptr_t)t_loop_tail || ip == (uintptr_t)t_loop_tail + CMP_LEN;
        if (on)
            loop_hits++;
        else
            loop_bad++;
    }
    if (loop_hits >= 10)
        loop_stop = 1;
}

int main(void)
{
    /* push_7 faults with rsp at 0x40: its handler runs on another stack. */
    static char altstack[65536];
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGTRAP, &sa, NULL);

#define RUN(name) run(#name, t_##name, t_##name##_at);
    ROUTINES(RUN)

    /* REP MOVSB into a page followed by an inaccessible one: 40 bytes are
     * copied, the registers say so, rip stays at the instruction. */
    rep_dst = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    rep_src = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rep_dst == MAP_FAILED || rep_src == MAP_FAILED ||
        mprotect(rep_dst + 4096, 4096, PROT_NONE) != 0)
        return 1;
    for (int i = 0; i < 100; i++)
        rep_src[i] = (uint8_t)(i * 7 + 1);
    routine_name = "rep_movsb";
    routine_start = (uintptr_t)t_rep;
    routine_at = (uintptr_t)t_rep_at;
    if (sigsetjmp(back, 1) == 0) {
        rep_case();
        printf("rep_movsb       no fault\n");
    }
    int same = memcmp(rep_dst + 4096 - 40, rep_src, 40) == 0;
    printf("rep_movsb: the 40 bytes before the fault copied: %s\n", same ? "yes" : "no");

    printf("call: return address at the label after it: %s\n",
           t_call() == (uintptr_t)t_call_ret ? "yes" : "no");

#ifdef __x86_64__
    uint64_t sum = t_riprel();
    unsigned good = 0;
    for (int k = 0; k < 12; k++)
        good += t_rip_out[k] == (uintptr_t)t_rip_data;
    printf("riprel: %u of 12 LEAs right, sum %llu\n", good, (unsigned long long)sum);
#endif

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_alarm;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    t_loop(&loop_stop);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("timer: signals in the loop on an instruction: %s, elsewhere in it: %d\n",
           loop_hits >= 10 ? "yes" : "no", loop_bad);
    return 0;
}
