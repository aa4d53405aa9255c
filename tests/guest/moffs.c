/* MOV between the accumulator and a 64-bit absolute address (opcodes A0-A3
 * with an 8-byte moffs), as JITs emit them (V8 does): the code is written at
 * run time into an mmap'd page, like a JIT's, with addresses of mmap'd data
 * that do not fit 32 bits. Loads and stores of each width, the zero- and
 * non-extension rules, the code page rewritten to another address, and
 * faults on an unmapped and a read-only page (si_code and si_addr). */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint8_t *code;
static sigjmp_buf env;
static volatile uintptr_t fault_addr;
static volatile int fault_code;

typedef uint64_t (*fn)(uint64_t);

/* Emits prefix bytes, the opcode and the 8-byte address, then RET; with
 * copy_arg the accumulator starts as the argument (mov rax, rdi). */
static fn emit(const char *prefix, size_t plen, uint8_t opcode, const void *addr, int copy_arg)
{
    mprotect(code, 4096, PROT_READ | PROT_WRITE);
    uint8_t *p = code;
    if (copy_arg) {
        static const uint8_t mov_rax_rdi[] = { 0x48, 0x89, 0xf8 };
        memcpy(p, mov_rax_rdi, 3);
        p += 3;
    } else {
        static const uint8_t mov_rax_m1[] = { 0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff };
        memcpy(p, mov_rax_m1, 7);
        p += 7;
    }
    memcpy(p, prefix, plen);
    p += plen;
    *p++ = opcode;
    uint64_t a = (uint64_t)(uintptr_t)addr;
    memcpy(p, &a, 8);
    p += 8;
    *p = 0xc3;
    mprotect(code, 4096, PROT_READ | PROT_EXEC);
    return (fn)(void *)code;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    fault_addr = (uintptr_t)si->si_addr;
    fault_code = si->si_code;
    siglongjmp(env, 1);
}

static void try_fault(const char *what, fn f, const void *addr)
{
    fault_addr = 0;
    if (sigsetjmp(env, 1) == 0) {
        f(0x55);
        printf("%s: no fault\n", what);
        return;
    }
    printf("%s: SIGSEGV si_code %s, si_addr %s\n", what,
           fault_code == SEGV_MAPERR ? "SEGV_MAPERR" : fault_code == SEGV_ACCERR ? "SEGV_ACCERR" : "other",
           fault_addr == (uintptr_t)addr ? "the moffs address" : "elsewhere");
}

int main(void)
{
    code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t *data = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED || data == MAP_FAILED)
        return 1;
    printf("data above 4 GiB: %s\n", (uintptr_t)data > 0xffffffffu ? "yes" : "no");
    data[0] = 0x1122334455667788ull;
    data[1] = 0x8877665544332211ull;

    printf("load 64:  %016llx\n", (unsigned long long)emit("\x48", 1, 0xa1, &data[0], 0)(0));
    printf("load 32:  %016llx (zero-extended)\n", (unsigned long long)emit("", 0, 0xa1, &data[1], 0)(0));
    printf("load 16:  %016llx (upper bits kept)\n",
           (unsigned long long)emit("\x66", 1, 0xa1, &data[0], 1)(0xaaaaaaaaaaaaaaaaull));
    printf("load 8:   %016llx (upper bits kept)\n",
           (unsigned long long)emit("", 0, 0xa0, (uint8_t *)&data[1] + 7, 1)(0xbbbbbbbbbbbbbbbbull));

    emit("\x48", 1, 0xa3, &data[2], 1)(0x0102030405060708ull);
    emit("", 0, 0xa3, &data[3], 1)(0xffffffffcafef00dull);
    emit("\x66", 1, 0xa3, &data[4], 1)(0x123456789abcdef0ull);
    emit("", 0, 0xa2, &data[5], 1)(0x77);
    for (int i = 2; i < 6; i++)
        printf("store %d: %016llx\n", i, (unsigned long long)data[i]);

    /* The same code page rewritten to load other addresses (a JIT patching
     * its code): each call must see the new address. */
    uint64_t sum = 0;
    for (int i = 0; i < 6; i++)
        sum += emit("\x48", 1, 0xa1, &data[i], 0)(0) * (uint64_t)(i + 1);
    printf("rewritten code, sum %016llx\n", (unsigned long long)sum);

    /* With an fs: prefix the address is relative to the thread pointer;
     * fs:[8] via moffs reads what the thread pointer points at + 8. */
    uint64_t tp8;
    __asm__ volatile("mov %%fs:8, %0" : "=r"(tp8));
    printf("fs: moffs: %s\n", emit("\x64\x48", 2, 0xa1, (void *)8, 0)(0) == tp8 ? "thread pointer + 8" : "wrong");

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    uint8_t *gone = (uint8_t *)data + 4096;
    munmap(gone, 4096);
    try_fault("load from an unmapped page", emit("\x48", 1, 0xa1, gone + 16, 0), gone + 16);
    uint8_t *ro = (uint8_t *)data + 2 * 4096;
    mprotect(ro, 4096, PROT_READ);
    try_fault("store to a read-only page", emit("\x48", 1, 0xa3, ro + 8, 1), ro + 8);
    printf("read-only page after the fault: %llu\n", (unsigned long long)*(uint64_t *)(ro + 8));
    return 0;
}
