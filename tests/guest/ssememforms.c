/* SSE integer and move instructions with a 16-byte memory operand, through
 * every address form the emulator has a handler for (cpu/mem.h): [base +
 * disp], [base + index * scale + disp], [rip + disp] and FS/GS-relative on
 * x86_64, the 0x67 address size, and on ia32 [disp32] alone and GS; then
 * the faults: a misaligned MOVDQA/MOVAPS/PCMPEQB (#GP: SIGSEGV, SI_KERNEL,
 * address 0) and an operand on an unmapped page (SEGV_MAPERR at its
 * address), with the destination register left unchanged.  Compared with
 * the native run. */
#pragma GCC target("sse2") /* the xmm registers in the asm of an i686 build */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

typedef struct {
    uint64_t lo, hi;
} v128;

static v128 data[8] __attribute__((aligned(16)));
static v128 out[4] __attribute__((aligned(16)));

static uint64_t mix(uint64_t h, v128 v)
{
    h = (h ^ v.lo) * 1099511628211ull;
    return (h ^ v.hi) * 1099511628211ull;
}

/* xmm0 <- data[0]; OP xmm0, MEM; then xmm0 -> out[0] */
#define WITH_XMM0(OPS, ...)                                                             \
    __asm__ volatile("movdqu %[d0], %%xmm0\n\t" OPS "\n\tmovdqu %%xmm0, %[o0]"          \
                     : [o0] "=m"(out[0])                                                \
                     : [d0] "m"(data[0]), ##__VA_ARGS__                                 \
                     : "xmm0", "xmm1", "memory")

static void forms(void)
{
    for (int i = 0; i < 8; i++) {
        data[i].lo = 0x0102030405060708ull * (uint64_t)(i + 1) ^ 0x00ff00ff00ff00ffull * (uint64_t)i;
        data[i].hi = 0x1111111111111111ull * (uint64_t)(7 - i) ^ 0x8000000080000000ull;
    }
    uint64_t h = 1469598103934665603ull;
    uintptr_t base = (uintptr_t)data;
    uintptr_t idx = 2;
    WITH_XMM0("pcmpeqb 16(%[b]), %%xmm0\n\tpminub 32(%[b]), %%xmm0", [b] "r"(base));
    h = mix(h, out[0]);
    WITH_XMM0("pxor -16(%[b],%[i],8), %%xmm0\n\tpand 24(%[b],%[i],4), %%xmm0\n\tpor (%[b],%[i],8), %%xmm0",
              [b] "r"(base + 32), [i] "r"(idx));
    h = mix(h, out[0]);
    /* static data: rip-relative on x86_64, [disp32] or [ebx + disp] on ia32 */
    WITH_XMM0("paddb %[m3], %%xmm0\n\tpcmpgtb %[m4], %%xmm0\n\tmovdqa %[m5], %%xmm1\n\tpsubw %%xmm1, %%xmm0",
              [m3] "m"(data[3]), [m4] "m"(data[4]), [m5] "m"(data[5]));
    h = mix(h, out[0]);
    WITH_XMM0("movdqu 5(%[b]), %%xmm0\n\tmovups 9(%[b],%[i],4), %%xmm1\n\tpmaxub %%xmm1, %%xmm0\n\t"
              "movaps 96(%[b]), %%xmm1\n\tpsadbw %%xmm1, %%xmm0",
              [b] "r"(base), [i] "r"(idx));
    h = mix(h, out[0]);
    /* negative displacements: the sum wraps (at 4 GiB on ia32) */
    WITH_XMM0("pminub -64(%[w]), %%xmm0\n\tmovdqu -61(%[w]), %%xmm1\n\tpxor %%xmm1, %%xmm0",
              [w] "r"(base + 64));
    h = mix(h, out[0]);
    /* FS (x86_64) or GS (ia32): the TLS block's first word is its own address */
    uintptr_t tls;
#ifdef __x86_64__
#define TLS_SEG "%%fs:"
#else
#define TLS_SEG "%%gs:"
#endif
    __asm__("mov " TLS_SEG "0, %0" : "=r"(tls));
    WITH_XMM0("pcmpeqd " TLS_SEG "(%[o]), %%xmm0\n\tmovdqa " TLS_SEG "16(%[o]), %%xmm1\n\t"
              "pandn %%xmm1, %%xmm0",
              [o] "r"(base + 32 - tls));
    h = mix(h, out[0]);
#ifdef __x86_64__
    /* 0x67: the address computed in 32 bits (low memory, junk above) */
    v128 *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    memcpy(low, data, 8 * sizeof(v128));
    uint64_t junk = 0xabcd000000000000ull | (uint32_t)(uintptr_t)low;
    WITH_XMM0("pminub 16(%k[l]), %%xmm0\n\tmovdqu 37(%k[l]), %%xmm1\n\tpxor %%xmm1, %%xmm0\n\t"
              "movdqa %%xmm0, 64(%k[l])\n\tmovups %%xmm0, 81(%k[l])",
              [l] "r"(junk));
    h = mix(h, out[0]);
    h = mix(h, low[4]);
    memcpy(&out[1], (char *)low + 81, 16);
    h = mix(h, out[1]);
    munmap(low, 4096);
#endif
    /* stores through every form */
    __asm__ volatile("movdqu %[d], %%xmm1\n\tmovdqa %%xmm1, 16(%[b])\n\tmovdqu %%xmm1, 33(%[b],%[i],1)\n\t"
                     "movaps %%xmm1, %[o3]\n\tmovups %%xmm1, (%[b],%[i],8)"
                     : [o3] "=m"(out[3])
                     : [d] "m"(data[5]), [b] "r"((uintptr_t)out), [i] "r"(idx)
                     : "xmm1", "memory");
    for (int i = 0; i < 4; i++)
        h = mix(h, out[i]);
    printf("forms: %016llx\n", (unsigned long long)h);
}

static sigjmp_buf jmp;
static volatile int f_code;
static volatile uintptr_t f_addr;
static volatile int f_xmm0_kept = -1; /* -1: not looked at (ia32's frame) */

/* The interrupted xmm0 is in the frame (the handler itself may run with
 * a fresh FPU state): on x86_64 it must still be data[0]. */
static void on_segv(int sig, siginfo_t *si, void *uc_)
{
    (void)sig;
    f_code = si->si_code;
    f_addr = (uintptr_t)si->si_addr;
#ifdef __x86_64__
    ucontext_t *uc = uc_;
    f_xmm0_kept = memcmp(&uc->uc_mcontext.fpregs->_xmm[0], &data[0], 16) == 0;
#else
    (void)uc_;
#endif
    siglongjmp(jmp, 1);
}

#define FAULT(what, OPS, ...)                                                           \
    do {                                                                                \
        out[0] = data[7];                                                               \
        if (sigsetjmp(jmp, 1) == 0) {                                                   \
            WITH_XMM0(OPS, ##__VA_ARGS__);                                              \
            printf("%s: no fault\n", what);                                             \
        } else {                                                                        \
            printf("%s: code %d addr %s, xmm0 %s\n", what, f_code,                      \
                   f_addr == 0 ? "0" : f_addr == (uintptr_t)gap ? "the page" : "other", \
                   f_xmm0_kept < 0 ? "-" : f_xmm0_kept ? "unchanged" : "changed");      \
        }                                                                               \
    } while (0)

static void faults(void)
{
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(page + 4096, 4096);
    char *gap = page + 4096;
    uintptr_t b = (uintptr_t)data;
    FAULT("movdqa misaligned", "movdqa 8(%[b]), %%xmm0", [b] "r"(b));
    FAULT("movaps misaligned, indexed", "movaps 4(%[b],%[i],4), %%xmm0", [b] "r"(b), [i] "r"((uintptr_t)1));
    FAULT("pcmpeqb misaligned", "pcmpeqb 1(%[b]), %%xmm0", [b] "r"(b));
    FAULT("movdqa store misaligned", "movdqa %%xmm0, 24(%[b])", [b] "r"(b));
    FAULT("movdqu on an unmapped page", "movdqu -8(%[p]), %%xmm1\n\tmovdqu (%[p]), %%xmm0",
          [p] "r"(gap));
    FAULT("pminub indexed on an unmapped page", "pminub -4096(%[p],%[i],2), %%xmm0", [p] "r"(gap),
          [i] "r"((uintptr_t)2048));
    FAULT("movups store on an unmapped page", "movups %%xmm0, (%[p])", [p] "r"(gap));
    FAULT("movaps misaligned on an unmapped page", "movaps 8(%[p]), %%xmm0", [p] "r"(gap));
    munmap(page, 4096);
}

int main(void)
{
    forms();
    faults();
    return 0;
}
