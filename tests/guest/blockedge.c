/* The edges of decoded blocks: straight-line code longer than a block
 * (the emulator cuts it into blocks of at most 64 instructions, the flags
 * live across each cut), and code that runs into bytes it may not execute
 * (a block cut before a page without PROT_EXEC: the fault is at the first
 * instruction there, or at one that straddles into it).  Each fault is
 * caught and reported: signal, si_code, the fault address and rip
 * relative to the code page. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

/* 300 ADCs in a row: CF carries through every block boundary. */
static unsigned adc_chain(unsigned a, unsigned b)
{
    __asm__ volatile("stc\n\t"
                     ".rept 300\n\t"
                     "adc %1, %0\n\t"
                     ".endr"
                     : "+r"(a)
                     : "r"(b)
                     : "cc");
    return a;
}

/* 200 instructions, then the flags of the last one read after the cuts. */
static unsigned add_then_setc(unsigned a)
{
    unsigned char cf;
    __asm__ volatile(".rept 200\n\t"
                     "add $0x1357, %0\n\t"
                     ".endr\n\t"
                     "setc %1"
                     : "+r"(a), "=q"(cf)
                     :
                     : "cc");
    return a * 2 + cf;
}

static sigjmp_buf back;
static uint8_t *code;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
#if defined(__x86_64__)
    uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#else
    uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#endif
    printf("  signal %d code %d addr %+ld ip %+ld\n", sig, si->si_code,
           (long)((uint8_t *)si->si_addr - code), (long)(ip - (uintptr_t)code));
    siglongjmp(back, 1);
}

typedef unsigned (*fn_t)(void);

/* Run code at offset start of the two pages: the first executable, the
 * second readable only; bytes [start, 4096 + tail) were written. */
static void run_into_second_page(const char *what, size_t start)
{
    printf("%s:\n", what);
    if (sigsetjmp(back, 1) == 0) {
        unsigned r = ((fn_t)(code + start))();
        printf("  returned %u\n", r);
    }
}

int main(void)
{
    unsigned sum = 0;
    for (unsigned i = 0; i < 1000; i++)
        sum += adc_chain(i * 0x9e3779b9u, 0x7fffffffu + i);
    printf("adc chain %u\n", sum);
    sum = 0;
    for (unsigned i = 0; i < 1000; i++)
        sum += add_then_setc(i * 0x10001u);
    printf("add then setc %u\n", sum);

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    code = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED)
        return 1;

    /* xor eax, eax; then 100 x "add eax, 1" (83 c0 01) ending exactly at
     * the page boundary: the code falls through into the second page. */
    size_t start = 4096 - 2 - 300;
    memset(code, 0xcc, 8192);
    code[start] = 0x31;
    code[start + 1] = 0xc0;
    for (size_t i = 0; i < 100; i++)
        memcpy(code + start + 2 + 3 * i, "\x83\xc0\x01", 3);
    memcpy(code + 4096, "\xc3", 1); /* a ret there: readable, never executable */
    mprotect(code, 4096, PROT_READ | PROT_EXEC);
    mprotect(code + 4096, 4096, PROT_READ);
    run_into_second_page("fall through into a page without exec", start);

    /* The same, but the last instruction, "mov eax, imm32" (5 bytes),
     * straddles the boundary: its first two bytes are executable. */
    mprotect(code, 8192, PROT_READ | PROT_WRITE);
    memset(code, 0xcc, 8192);
    start = 4096 - 2 - 60 - 2;
    code[start] = 0x31;
    code[start + 1] = 0xc0;
    for (size_t i = 0; i < 20; i++)
        memcpy(code + start + 2 + 3 * i, "\x83\xc0\x01", 3);
    memcpy(code + 4094, "\xb8\x07\x00\x00\x00\xc3", 6);
    mprotect(code, 4096, PROT_READ | PROT_EXEC);
    mprotect(code + 4096, 4096, PROT_READ);
    run_into_second_page("an instruction across into a page without exec", start);

    /* Made executable, the same bytes run to the end. */
    mprotect(code + 4096, 4096, PROT_READ | PROT_EXEC);
    run_into_second_page("the second page executable", start);
    return 0;
}
