/* Loops that are one block each, whose branch goes back to its own
 * block's start: the emulator goes round them without the rest of a hop
 * (cpu/chain.h chain_taken), so these check that such a loop still
 *  - counts and computes exactly, through a fused DEC + JNZ that is a side
 *    exit (the block goes on past it) and through a JMP back;
 *  - takes a timer signal that leaves it (siglongjmp), and timer signals
 *    that return into it while it polls a flag in memory;
 *  - faults with rip, si_addr and every register exact when it walks into
 *    a PROT_NONE page after thousands of rounds;
 *  - sees its own code rewritten by a signal handler and by another
 *    thread while it runs (the new instruction runs on a later round).
 * Printed relative to the code and buffers, so the output is the native
 * run's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "guarded_words.h"

/* mix(n): n rounds of add, rol, and a fused dec + jnz back, then more
 * instructions in the same block; returns the mix.
 * spin(): for ever, a JMP back.
 * poll(flag): until *flag reaches 5.
 * sum(p): adds the words from p on until it faults at sum_at. */
unsigned mix(unsigned n);
void spin(void);
void poll(volatile int *flag);
uintptr_t sum(const uintptr_t *p);
extern char sum_at[];

#ifdef __x86_64__
__asm__(".text\n"
        ".globl mix\nmix:\n"
        " mov %edi, %ecx\n mov $0x1234, %eax\n"
        "1: add %ecx, %eax\n rol $3, %eax\n dec %ecx\n jnz 1b\n"
        " xor $0x55, %eax\n add $7, %eax\n ret\n"
        ".globl poll\npoll:\n"
        " xor %ecx, %ecx\n"
        "1: inc %ecx\n cmpl $5, (%rdi)\n jb 1b\n ret\n"
        ".globl sum, sum_at\nsum:\n"
        " xor %eax, %eax\n xor %ecx, %ecx\n mov $0x77, %edx\n mov %rdi, %rsi\n"
        "sum_at:\n add (%rsi), %rax\n add $8, %rsi\n inc %ecx\n xor %ecx, %edx\n jmp sum_at\n");
#else
__asm__(".text\n"
        ".globl mix\nmix:\n"
        " mov 4(%esp), %ecx\n mov $0x1234, %eax\n"
        "1: add %ecx, %eax\n rol $3, %eax\n dec %ecx\n jnz 1b\n"
        " xor $0x55, %eax\n add $7, %eax\n ret\n"
        ".globl poll\npoll:\n"
        " mov 4(%esp), %edx\n xor %ecx, %ecx\n"
        "1: inc %ecx\n cmpl $5, (%edx)\n jb 1b\n ret\n"
        ".globl sum, sum_at\nsum:\n"
        " push %esi\n xor %eax, %eax\n xor %ecx, %ecx\n mov $0x77, %edx\n mov 8(%esp), %esi\n"
        "sum_at:\n add (%esi), %eax\n add $4, %esi\n inc %ecx\n xor %ecx, %edx\n jmp sum_at\n");
#endif
__asm__(".text\n"
        ".globl spin\nspin:\n"
        " xor %eax, %eax\n"
        "1: add $3, %eax\n rol $5, %eax\n jmp 1b\n");

static sigjmp_buf back;
static volatile int alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
    siglongjmp(back, 1);
}

static void on_alarm_count(int sig)
{
    (void)sig;
    alarms++;
}

static void timer_in_loops(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval once = { { 0, 0 }, { 0, 20000 } };
    if (sigsetjmp(back, 1) == 0) {
        setitimer(ITIMER_REAL, &once, NULL);
        spin();
    }
    printf("spin: left by SIGALRM (%d)\n", alarms);

    sa.sa_handler = on_alarm_count;
    sigaction(SIGALRM, &sa, NULL);
    alarms = 0;
    struct itimerval every = { { 0, 5000 }, { 0, 5000 } };
    setitimer(ITIMER_REAL, &every, NULL);
    poll(&alarms);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("poll: left after %d alarms\n", alarms >= 5 ? 5 : -1);
}

static uintptr_t *buf;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    const ucontext_t *uc = ctx;
    const greg_t *g = uc->uc_mcontext.gregs;
#ifdef __x86_64__
    printf("sum: SIGSEGV at sum_at%+ld, si_addr buf+%ld, rax %llx rcx %llx rdx %llx rsi buf+%ld\n",
           (long)((uintptr_t)g[REG_RIP] - (uintptr_t)sum_at),
           (long)((uintptr_t)si->si_addr - (uintptr_t)buf), (unsigned long long)g[REG_RAX],
           (unsigned long long)g[REG_RCX], (unsigned long long)g[REG_RDX],
           (long)((uintptr_t)g[REG_RSI] - (uintptr_t)buf));
#else
    printf("sum: SIGSEGV at sum_at%+ld, si_addr buf+%ld, eax %lx ecx %lx edx %lx esi buf+%ld\n",
           (long)((uintptr_t)g[REG_EIP] - (uintptr_t)sum_at),
           (long)((uintptr_t)si->si_addr - (uintptr_t)buf), (unsigned long)g[REG_EAX],
           (unsigned long)g[REG_ECX], (unsigned long)g[REG_EDX],
           (long)((uintptr_t)g[REG_ESI] - (uintptr_t)buf));
#endif
    siglongjmp(back, 1);
}

static void fault_after_many_rounds(void)
{
    buf = guarded_words(16);
    if (!buf) {
        printf("sum: mmap failed\n");
        return;
    }
    segv_to(on_segv);
    if (sigsetjmp(back, 1) == 0) {
        sum(buf);
        printf("sum: no fault\n");
    }
    segv_to(NULL);
    guarded_words_free(buf, 16);
}

/* A loop that waits for its own immediate to change (the same bytes in
 * both modes):
 *   0 top: mov edx, imm32      (0 until patched to 1)
 *   5      inc ecx
 *   7      test edx, edx
 *   9      jz top
 *  11      mov eax, edx
 *  13      ret */
static const uint8_t wait_code[] = { 0xba, 0x00, 0x00, 0x00, 0x00, 0xff, 0xc1, 0x85,
                                     0xd2, 0x74, 0xf5, 0x89, 0xd0, 0xc3 };
static volatile uint8_t *patch_at;

static unsigned run_wait(void *code)
{
    uintptr_t f = (uintptr_t)code, cnt = 0;
#ifdef __x86_64__
    /* Below the red zone: the call pushes a return address. */
    __asm__ volatile("sub $128, %%rsp\n call *%%rax\n add $128, %%rsp"
                     : "+a"(f), "+c"(cnt)
                     :
                     : "rdx", "memory", "cc");
#else
    __asm__ volatile("call *%%eax" : "+a"(f), "+c"(cnt) : : "edx", "memory", "cc");
#endif
    return (unsigned)f;
}

static void on_alarm_patch(int sig)
{
    (void)sig;
    *patch_at = 1;
}

static void *patcher(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    *patch_at = 1;
    return NULL;
}

static void code_rewritten_while_looping(void)
{
    uint8_t *code = mmap(NULL, GUARD_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        printf("wait: mmap failed\n");
        return;
    }
    patch_at = code + 1;

    memcpy(code, wait_code, sizeof(wait_code));
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm_patch;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval once = { { 0, 0 }, { 0, 20000 } };
    setitimer(ITIMER_REAL, &once, NULL);
    printf("wait, patched by a signal handler: %u\n", run_wait(code));

    memcpy(code, wait_code, sizeof(wait_code));
    pthread_t t;
    if (pthread_create(&t, NULL, patcher, NULL) != 0) {
        printf("wait: pthread_create failed\n");
        return;
    }
    printf("wait, patched by another thread: %u\n", run_wait(code));
    pthread_join(t, NULL);
    munmap(code, GUARD_PAGE);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("mix: %u %u %u\n", mix(1), mix(1000), mix(300000));
    timer_in_loops();
    fault_after_many_rounds();
    code_rewritten_while_looping();
    return 0;
}
