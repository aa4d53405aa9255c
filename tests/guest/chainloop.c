/* Tight loops of short blocks, which the emulator runs chained (a block's
 * end jumps into the next block without its dispatch loop, cpu/chain.h):
 *  - a timer signal must still land in a loop that never leaves its
 *    blocks (no syscall, no memory access) and in one that polls a flag;
 *  - a loop that rewrites its own code every iteration (an immediate and a
 *    branch's condition) must run the new code on the next iteration;
 *  - a loop that walks into a PROT_NONE page after thousands of chained
 *    iterations (through a block cut short too) faults with rip, si_addr
 *    and every register exact;
 *  - calls and returns in a loop (CALL rel, RET) count the same.
 * Printed relative to the code and buffers, so the output is the native
 * run's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "guarded_words.h"

/* spin(): for ever, three blocks a round, registers only.
 * walk(p): sums the 64-bit (ia32: 32-bit) words from p on, with a branch
 * and a run of 80 register instructions (longer than a decoded block: cut
 * in two) on every word, until it faults at walk_at.
 * callloop(n): n rounds of a call to a leaf that adds to a register. */
void spin(void);
uintptr_t walk(const uintptr_t *p);
extern char walk_at[];
unsigned long callloop(unsigned long n);

/* The same bytes in both modes. */
__asm__(".text\n"
        ".globl spin\nspin:\n"
        " xor %eax, %eax\n xor %ecx, %ecx\n"
        "1: add $3, %eax\n test $1, %al\n jz 2f\n inc %ecx\n"
        "2: rol $5, %eax\n cmp $7, %ecx\n jne 1b\n xor %ecx, %ecx\n jmp 1b\n");
#ifdef __x86_64__
__asm__(".text\n"
        ".globl walk, walk_at, walk_top\nwalk:\n"
        " push %rbx\n push %rbp\n xor %eax, %eax\n xor %ecx, %ecx\n mov $0x5a5a, %edx\n"
        " mov $0x1234, %ebx\n mov $7, %ebp\n mov %rdi, %rsi\n"
        "walk_top:\n"
        " inc %rcx\n test $3, %cl\n jnz 1f\n add %rdx, %rbx\n"
        "1: xor %rcx, %rdx\n"
        " .rept 40\n rol $3, %ebp\n add %ecx, %ebp\n .endr\n"
        "walk_at:\n add (%rsi), %rax\n add $8, %rsi\n jmp walk_top\n"
        ".globl callloop\ncallloop:\n"
        " xor %eax, %eax\n"
        "1: call 2f\n dec %rdi\n jnz 1b\n ret\n"
        "2: add %rdi, %rax\n ret\n");
#else
__asm__(".text\n"
        ".globl walk, walk_at, walk_top\nwalk:\n"
        " push %ebx\n push %ebp\n push %esi\n xor %eax, %eax\n xor %ecx, %ecx\n"
        " mov $0x5a5a, %edx\n mov $0x1234, %ebx\n mov $7, %ebp\n mov 16(%esp), %esi\n"
        "walk_top:\n"
        " inc %ecx\n test $3, %cl\n jnz 1f\n add %edx, %ebx\n"
        "1: xor %ecx, %edx\n"
        " .rept 40\n rol $3, %ebp\n add %ecx, %ebp\n .endr\n"
        "walk_at:\n add (%esi), %eax\n add $4, %esi\n jmp walk_top\n"
        ".globl callloop\ncallloop:\n"
        " push %edi\n mov 8(%esp), %edi\n xor %eax, %eax\n"
        "1: call 2f\n dec %edi\n jnz 1b\n pop %edi\n ret\n"
        "2: add %edi, %eax\n ret\n");
#endif

static sigjmp_buf back;
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
    siglongjmp(back, 1);
}

static void on_alarm_flag(int sig)
{
    (void)sig;
    alarms++;
}

/* The walk's buffer: 16 pages of words, then a PROT_NONE page. */
static uintptr_t *buf;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    const ucontext_t *uc = ctx;
#ifdef __x86_64__
    const greg_t *g = uc->uc_mcontext.gregs;
    printf("walk: SIGSEGV at walk_at%+ld, si_addr buf+%ld, rax %llx rbx %llx rcx %llx rdx %llx "
           "rbp %llx rsi buf+%ld\n",
           (long)((uintptr_t)g[REG_RIP] - (uintptr_t)walk_at),
           (long)((uintptr_t)si->si_addr - (uintptr_t)buf), (unsigned long long)g[REG_RAX],
           (unsigned long long)g[REG_RBX], (unsigned long long)g[REG_RCX],
           (unsigned long long)g[REG_RDX], (unsigned long long)g[REG_RBP],
           (long)((uintptr_t)g[REG_RSI] - (uintptr_t)buf));
#else
    const greg_t *g = uc->uc_mcontext.gregs;
    printf("walk: SIGSEGV at walk_at%+ld, si_addr buf+%ld, eax %lx ebx %lx ecx %lx edx %lx "
           "ebp %lx esi buf+%ld\n",
           (long)((uintptr_t)g[REG_EIP] - (uintptr_t)walk_at),
           (long)((uintptr_t)si->si_addr - (uintptr_t)buf), (unsigned long)g[REG_EAX],
           (unsigned long)g[REG_EBX], (unsigned long)g[REG_ECX], (unsigned long)g[REG_EDX],
           (unsigned long)g[REG_EBP], (long)((uintptr_t)g[REG_ESI] - (uintptr_t)buf));
#endif
    siglongjmp(back, 1);
}

static void timer_in_loops(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 0 }, { 0, 20000 } };
    if (sigsetjmp(back, 1) == 0) {
        setitimer(ITIMER_REAL, &it, NULL);
        spin();
    }
    printf("spin: left by SIGALRM (%d)\n", (int)alarms);

    /* Several timer signals, each delivered into the polling loop, which
     * goes on until the fifth. */
    sa.sa_handler = on_alarm_flag;
    sigaction(SIGALRM, &sa, NULL);
    alarms = 0;
    struct itimerval every = { { 0, 5000 }, { 0, 5000 } };
    setitimer(ITIMER_REAL, &every, NULL);
    while (alarms < 5)
        ;
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("poll: %d alarms\n", (int)alarms);
}

/* The loop rewritten as it runs (the same bytes in both modes, no REX):
 *   0 top:  mov eax, imm32          (imm patched: the counter)
 *   5       add edx, eax
 *   7       test cl, 1
 *  10       jz skip                 (toggled with jnz every round)
 *  12       add edx, 3
 *  15 skip: inc ecx
 *  17       mov [edi+1], ecx        (the immediate at top)
 *  20       xor byte [edi+10], 1    (jz <-> jnz)
 *  24       dec esi
 *  26       jnz top
 *  28       mov eax, edx
 *  30       ret */
static const uint8_t smc_code[] = {
    0xb8, 0x05, 0x00, 0x00, 0x00, 0x01, 0xc2, 0xf6, 0xc1, 0x01, 0x74, 0x03, 0x83, 0xc2, 0x03,
    0xff, 0xc1, 0x89, 0x4f, 0x01, 0x80, 0x77, 0x0a, 0x01, 0xff, 0xce, 0x75, 0xe4, 0x89, 0xd0,
    0xc3,
};

static unsigned run_smc(void *code, unsigned rounds)
{
    uintptr_t f = (uintptr_t)code, base = f, n = rounds, cnt = 0, acc = 0;
#ifdef __x86_64__
    /* Below the red zone: the call pushes a return address. */
    __asm__ volatile("sub $128, %%rsp\n call *%%rax\n add $128, %%rsp"
                     : "+a"(f), "+D"(base), "+S"(n), "+c"(cnt), "+d"(acc)
                     :
                     : "memory", "cc");
#else
    __asm__ volatile("call *%%eax"
                     : "+a"(f), "+D"(base), "+S"(n), "+c"(cnt), "+d"(acc)
                     :
                     : "memory", "cc");
#endif
    return (unsigned)f;
}

static void self_modifying_loop(void)
{
    uint8_t *code = mmap(NULL, GUARD_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        printf("smc: mmap failed\n");
        return;
    }
    for (unsigned rounds = 1; rounds <= 300; rounds += 37) {
        memcpy(code, smc_code, sizeof(smc_code));
        unsigned r = run_smc(code, rounds);
        printf("smc: %u rounds: %u, jcc now %02x, imm %u\n", rounds, r, code[10],
               (unsigned)code[1] | (unsigned)code[2] << 8);
    }
    munmap(code, GUARD_PAGE);
}

static void fault_after_many_rounds(void)
{
    buf = guarded_words(16);
    if (!buf) {
        printf("walk: mmap failed\n");
        return;
    }
    segv_to(on_segv);
    if (sigsetjmp(back, 1) == 0) {
        walk(buf);
        printf("walk: no fault\n");
    }
    segv_to(NULL);
    guarded_words_free(buf, 16);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    timer_in_loops();
    self_modifying_loop();
    fault_after_many_rounds();
    printf("callloop: %lu %lu\n", callloop(1), callloop(100000));
    return 0;
}
