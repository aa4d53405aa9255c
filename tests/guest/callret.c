/* CALL and RET in the shapes that return-address prediction (cpu/ras.h)
 * must get right, compared with the native run: a function returning to
 * many call sites in turn, recursion deeper than the prediction ring,
 * indirect calls through registers and memory, longjmp out of nested
 * calls, a callee that changes its return address, RET used as a jump,
 * RET imm16, a CALL whose push faults, code after a CALL rewritten between
 * runs (on the CALL's page and alone on the next page), a signal handler
 * that calls, and threads calling at the same time. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "segv_altstack.h"

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE static int leaf(int x)
{
    sink = x;
    return x * 3 + 1;
}

/* One callee, eight call sites run in turn: its RET's two successor links
 * cannot hold them all. */
static long many_sites(void)
{
    long s = 0;
    for (int i = 0; i < 2000; i++) {
        s += leaf(i);
        s ^= leaf(i + 1) << 1;
        s += leaf(i + 2) * 3;
        s -= leaf(i + 3);
        s += leaf(i + 4) >> 1;
        s ^= leaf(i + 5);
        s += leaf(i + 6) * 7;
        s -= leaf(i + 7) * 2;
    }
    return s;
}

/* Recursion far deeper than the 32-entry ring, with work after each call. */
NOINLINE static unsigned long deep(int n)
{
    if (n == 0)
        return 1;
    unsigned long r = deep(n - 1);
    sink = n;
    return r * 31 + n;
}

NOINLINE static long ackermann(long m, long n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

/* Indirect calls: through a register (a pointer in a local) and through
 * memory (a table indexed in the call instruction). */
NOINLINE static int f0(int x) { return x + 1; }
NOINLINE static int f1(int x) { return x * 2; }
NOINLINE static int f2(int x) { return x - 3; }
NOINLINE static int f3(int x) { return x ^ 0x55; }
static int (*volatile table[4])(int) = { f0, f1, f2, f3 };

static long indirect(void)
{
    long s = 0;
    for (int i = 0; i < 4000; i++) {
        int (*volatile p)(int) = table[(i * 7) % 4];
        s += p(i);
        s += table[i % 4](i); /* call [table + i*8] */
    }
    return s;
}

/* longjmp out of nested calls, then calls and returns go on. */
static jmp_buf jb;
NOINLINE static void nest(int n)
{
    if (n == 0)
        longjmp(jb, 7);
    nest(n - 1);
    sink = n;
}

static long jumps(void)
{
    long s = 0;
    for (int i = 0; i < 50; i++) {
        int r = setjmp(jb);
        if (r == 0)
            nest(i % 40);
        s += r + leaf(i) + deep(i % 5);
    }
    return s;
}

/* A callee that adds 5 to its return address (skipping a 5-byte mov), a
 * RET used as a jump (push target; ret), and RET imm16. */
#if defined(__x86_64__)
#define SP "rsp"
#define CX "rcx"
#define ADDW "addq"
/* Calls from inline asm must not write over the red zone below rsp. */
#define RZ_IN "sub $128, %%rsp\n"
#define RZ_OUT "add $128, %%rsp\n"
#else
#define SP "esp"
#define CX "ecx"
#define ADDW "addl"
#define RZ_IN ""
#define RZ_OUT ""
#endif

__asm__(".text\n"
        "skip5:\n"
        "  " ADDW " $5, (%" SP ")\n"
        "  ret\n"
        "ret_imm:\n"
        "  mov $40, %eax\n"
        "  ret $16\n");

NOINLINE static long ret_tricks(int i)
{
    long a, b, c;
    /* skip5 returns past "mov $1, %eax" (5 bytes): eax stays 2. */
    __asm__ volatile(RZ_IN
                     "mov $2, %%eax\n"
                     "call skip5\n"
                     "mov $1, %%eax\n"
                     RZ_OUT
                     : "=a"(a) : : "memory", "cc");
    /* push label; ret: a RET to an address no CALL pushed (found by a
     * CALL whose return address is popped, position-independently). */
    __asm__ volatile(RZ_IN
                     "call 2f\n"
                     "2: pop %%" CX "\n"
                     "add $(1f - 2b), %%" CX "\n"
                     "push %%" CX "\n"
                     "ret\n"
                     "mov $9, %%eax\n"
                     "1: mov %1, %%eax\n"
                     RZ_OUT
                     : "=a"(b) : "r"(i) : "ecx", "memory", "cc");
    /* RET 16 drops 16 bytes of arguments pushed before the call. */
    __asm__ volatile(RZ_IN
                     "sub $16, %%" SP "\n"
                     "call ret_imm\n"
                     "add %1, %%eax\n"
                     RZ_OUT
                     : "=&a"(c) : "r"(i) : "memory", "cc");
    return a * 1000000 + b * 1000 + c;
}

/* A CALL whose push faults (rsp at the top of a PROT_NONE page): the
 * handler (on the alternate stack) jumps back; calls go on after it. */
static sigjmp_buf fault_jb;
static volatile uintptr_t fault_addr;
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    fault_addr = (uintptr_t)si->si_addr;
    siglongjmp(fault_jb, 1);
}

static long faulting_call(void)
{
    segv_on_altstack(on_segv);
    char *m = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(m, 4096, PROT_NONE);
    long s = 0;
    for (int i = 0; i < 3; i++) {
        if (sigsetjmp(fault_jb, 1) == 0) {
            char *top = m + 4096;
            __asm__ volatile("mov %0, %%" SP "\n"
                             "call ret_imm\n" /* the push of the return address faults */
                             : : "r"(top) : "memory");
            puts("not reached");
        }
        s += (long)(fault_addr - (uintptr_t)m) + deep(10) % 1000 + leaf(i);
    }
    signal(SIGSEGV, SIG_DFL);
    munmap(m, 2 * 4096);
    return s;
}

/* Code written at run time:
 *   caller: call callee; mov eax, imm32; ret      callee: ret
 * the mov after the call is rewritten between runs, first on the CALL's
 * own page, then with the CALL's last byte the last of a page so that
 * only the code after it (the next page) is rewritten. */
static unsigned long rewritten(void)
{
    uint8_t *rwx = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned long s = 0;
    unsigned offsets[2] = { 100, 4096 - 5 };
    for (unsigned k = 0; k < 2; k++) {
        uint8_t *call = rwx + offsets[k], *callee = rwx + 2 * 4096 + 64 * k;
        int32_t rel = (int32_t)(callee - (call + 5));
        call[0] = 0xe8;
        memcpy(call + 1, &rel, 4);
        callee[0] = 0xc3;
        for (int i = 0; i < 20; i++) {
            int32_t v = 1000 * (int)k + i;
            call[5] = 0xb8;
            memcpy(call + 6, &v, 4);
            call[10] = 0xc3;
            for (int j = 0; j < 3; j++)
                s = s * 3 + ((int (*)(void))call)();
        }
    }
    munmap(rwx, 3 * 4096);
    return s;
}

/* A signal handler that calls (its frame's return is a RET no CALL pushed). */
static volatile long handler_sum;
static void on_usr1(int sig)
{
    handler_sum += deep(20) % 997 + leaf(sig);
}

static long signal_calls(void)
{
    signal(SIGUSR1, on_usr1);
    long s = 0;
    for (int i = 0; i < 20; i++) {
        s += leaf(i);
        raise(SIGUSR1);
        s += deep(i) % 1000;
    }
    signal(SIGUSR1, SIG_DFL);
    return s + handler_sum;
}

static void *thread_main(void *arg)
{
    long k = (long)(intptr_t)arg, s = 0;
    for (int i = 0; i < 60; i++)
        s += deep(50 + (int)k) % 10007 + indirect() % 101 + ackermann(1, i % 7);
    return (void *)(intptr_t)s;
}

static long threads(void)
{
    pthread_t t[3];
    for (long k = 0; k < 3; k++)
        pthread_create(&t[k], NULL, thread_main, (void *)(intptr_t)k);
    long s = 0;
    for (int k = 0; k < 3; k++) {
        void *r;
        pthread_join(t[k], &r);
        s += (long)(intptr_t)r;
    }
    return s;
}

int main(void)
{
    printf("many sites %ld\n", many_sites());
    printf("deep %lu\n", deep(3000));
    printf("ackermann %ld\n", ackermann(2, 300));
    printf("indirect %ld\n", indirect());
    printf("longjmp %ld\n", jumps());
    long t = 0;
    for (int i = 0; i < 5; i++)
        t += ret_tricks(i);
    printf("ret tricks %ld\n", t);
    printf("faulting call %ld\n", faulting_call());
    printf("rewritten %lu\n", rewritten());
    printf("signal calls %ld\n", signal_calls());
    printf("threads %ld\n", threads());
    return 0;
}
