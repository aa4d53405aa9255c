/* Runs of PUSH r / POP r (run as one handler by elfemu, cpu/ops_stack.c)
 * compared with the native run: a run inside one page, across two mapped
 * pages, faulting at its first slot, faulting midway (the slots before the
 * fault written, rip and rsp at the faulting instruction), and a POP run
 * that loads one register twice.  The faults are reported by a SIGSEGV
 * handler on the alternate stack, which prints the faulting instruction's
 * offset in the run, rsp, si_addr and the registers popped so far. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* REG_RIP */
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "segv_altstack.h"

/* push_run(sp): rsp = sp, then push five registers (0x1111 ... 0x5555);
 * returns the final rsp.  pop_run(sp, out): rsp = sp, pop five registers
 * (the second one twice), out[0..4] = them, returns the final rsp. */
uintptr_t push_run(uintptr_t sp);
uintptr_t pop_run(uintptr_t sp, uintptr_t *out);
extern char push_run_first[], pop_run_first[];

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl push_run, pop_run, push_run_first, pop_run_first\n"
        "push_run:\n"
        "  mov %rsp, %r11\n"
        "  mov %rdi, %rsp\n"
        "  mov $0x1111, %eax\n"
        "  mov $0x2222, %ecx\n"
        "  mov $0x3333, %edx\n"
        "  mov $0x4444, %esi\n"
        "  mov $0x5555, %r8d\n"
        "push_run_first:\n"
        "  push %rax\n"
        "  push %rcx\n"
        "  push %rdx\n"
        "  push %rsi\n"
        "  push %r8\n"
        "  mov %rsp, %rax\n"
        "  mov %r11, %rsp\n"
        "  ret\n"
        "pop_run:\n"
        "  mov %rsp, %r11\n"
        "  mov %rsi, %r10\n"
        "  mov %rdi, %rsp\n"
        "  xor %eax, %eax\n"
        "  xor %ecx, %ecx\n"
        "  xor %edx, %edx\n"
        "  xor %r8d, %r8d\n"
        "  xor %r9d, %r9d\n"
        "pop_run_first:\n"
        "  pop %rax\n"
        "  pop %rcx\n"
        "  pop %rdx\n"
        "  pop %rcx\n"
        "  pop %r8\n"
        "  mov %rax, (%r10)\n"
        "  mov %rcx, 8(%r10)\n"
        "  mov %rdx, 16(%r10)\n"
        "  mov %r8, 24(%r10)\n"
        "  mov %rsp, 32(%r10)\n"
        "  mov %rsp, %rax\n"
        "  mov %r11, %rsp\n"
        "  ret\n");
#define WORD 8
#define UC_IP REG_RIP
#define UC_SP REG_RSP
#define UC_A REG_RAX
#define UC_C REG_RCX
#else
/* cdecl: arguments on the stack; the old esp is kept in ebp (saved). */
__asm__(".text\n"
        ".globl push_run, pop_run, push_run_first, pop_run_first\n"
        "push_run:\n"
        "  push %ebp\n"
        "  push %esi\n"
        "  push %edi\n"
        "  mov %esp, %ebp\n"
        "  mov 16(%esp), %esp\n"
        "  mov $0x1111, %eax\n"
        "  mov $0x2222, %ecx\n"
        "  mov $0x3333, %edx\n"
        "  mov $0x4444, %esi\n"
        "  mov $0x5555, %edi\n"
        "push_run_first:\n"
        "  push %eax\n"
        "  push %ecx\n"
        "  push %edx\n"
        "  push %esi\n"
        "  push %edi\n"
        "  mov %esp, %eax\n"
        "  mov %ebp, %esp\n"
        "  pop %edi\n"
        "  pop %esi\n"
        "  pop %ebp\n"
        "  ret\n"
        "pop_run:\n"
        "  push %ebp\n"
        "  push %esi\n"
        "  push %edi\n"
        "  mov %esp, %ebp\n"
        "  mov 20(%esp), %esi\n"
        "  mov 16(%esp), %esp\n"
        "  xor %eax, %eax\n"
        "  xor %ecx, %ecx\n"
        "  xor %edx, %edx\n"
        "  xor %edi, %edi\n"
        "pop_run_first:\n"
        "  pop %eax\n"
        "  pop %ecx\n"
        "  pop %edx\n"
        "  pop %ecx\n"
        "  pop %edi\n"
        "  mov %eax, (%esi)\n"
        "  mov %ecx, 4(%esi)\n"
        "  mov %edx, 8(%esi)\n"
        "  mov %edi, 12(%esi)\n"
        "  mov %esp, 16(%esi)\n"
        "  mov %esp, %eax\n"
        "  mov %ebp, %esp\n"
        "  pop %edi\n"
        "  pop %esi\n"
        "  pop %ebp\n"
        "  ret\n");
#define WORD 4
#define UC_IP REG_EIP
#define UC_SP REG_ESP
#define UC_A REG_EAX
#define UC_C REG_ECX
#endif

#define PAGE 4096
static uint8_t *m;        /* pages: 0 PROT_NONE, 1 and 2 read-write, 3 PROT_NONE */
static sigjmp_buf jb;
static const char *run_first;

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    printf("  fault: insn +%ld, rsp page1%+ld, addr page1%+ld, a %#lx, c %#lx\n",
           (long)((char *)g[UC_IP] - run_first), (long)((uint8_t *)g[UC_SP] - (m + PAGE)),
           (long)((uint8_t *)si->si_addr - (m + PAGE)), (unsigned long)g[UC_A],
           (unsigned long)g[UC_C]);
    siglongjmp(jb, 1);
}

static void dump(const char *what, uintptr_t from, unsigned words)
{
    printf("  %s:", what);
    for (unsigned i = 0; i < words; i++) {
        uintptr_t v = 0;
        memcpy(&v, (void *)(from + i * WORD), WORD);
        printf(" %lx", (unsigned long)v);
    }
    printf("\n");
}

/* PUSH run with rsp at page 1 + off. */
static void push_case(const char *name, long off)
{
    uintptr_t sp = (uintptr_t)(m + PAGE + off);
    memset(m + PAGE, 0xee, 2 * PAGE);
    printf("%s\n", name);
    run_first = push_run_first;
    if (sigsetjmp(jb, 1) == 0) {
        uintptr_t end = push_run(sp);
        printf("  done: rsp page1%+ld\n", (long)((uint8_t *)end - (m + PAGE)));
    }
    uintptr_t lo = sp - 5 * WORD;
    if (lo < (uintptr_t)(m + PAGE))
        lo = (uintptr_t)(m + PAGE);
    dump("stack", lo, (unsigned)((sp - lo) / WORD));
}

/* POP run with rsp at page 1 + off over the words 0x10, 0x20, ... */
static void pop_case(const char *name, long off)
{
    uintptr_t sp = (uintptr_t)(m + PAGE + off);
    for (unsigned i = 0; i < 2 * PAGE / WORD; i++) {
        uintptr_t v = 0x10 * (i + 1);
        memcpy(m + PAGE + i * WORD, &v, WORD);
    }
    printf("%s\n", name);
    run_first = pop_run_first;
    uintptr_t out[5] = { 0 };
    if (sigsetjmp(jb, 1) == 0) {
        pop_run(sp, out);
        printf("  done: %lx %lx %lx %lx, rsp page1%+ld\n", (unsigned long)out[0],
               (unsigned long)out[1], (unsigned long)out[2], (unsigned long)out[3],
               (long)((uint8_t *)out[4] - (m + PAGE)));
    }
}

int main(void)
{
    segv_on_altstack(on_segv);
    m = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 1;
    mprotect(m, PAGE, PROT_NONE);
    mprotect(m + 3 * PAGE, PAGE, PROT_NONE);

    push_case("push: one page", 200);
    push_case("push: fills the page's first words", 5 * WORD);
    push_case("push: across two mapped pages", PAGE + 2 * WORD);
    push_case("push: first slot unmapped", 0);
    push_case("push: third slot unmapped", 2 * WORD);
    push_case("push: last slot unmapped", 4 * WORD);

    pop_case("pop: one page", 64);
    pop_case("pop: the page's last words", PAGE - 5 * WORD);
    pop_case("pop: across two mapped pages", PAGE - 2 * WORD);
    pop_case("pop: first slot unmapped", 2 * PAGE);
    pop_case("pop: third slot unmapped", 2 * PAGE - 2 * WORD);
    pop_case("pop: last slot unmapped", 2 * PAGE - 4 * WORD);
    return 0;
}
