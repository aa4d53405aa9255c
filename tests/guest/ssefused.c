/* Scalar-double sequences the emulator runs as one handler (cpu/ops_sse_fp_arith.c):
 * a zeroing (PXOR/XORPD x,x) and CVTSI2SD from a register, the ADDSD/MULSD/
 * DIVSD/SUBSD after it, and chains of scalar-double instructions each reading
 * the one before's result, as compilers emit them in numeric loops.  Results
 * and MXCSR flags under each rounding mode; then the faults: the m64 operand
 * of the arithmetic after a conversion on an unmapped page (SIGSEGV at that
 * instruction with the zeroing and the conversion done: the handler resumes
 * after it and the rest of the chain runs on), and an unmasked precision
 * exception raised by the conversion (SIGFPE at the conversion, its register
 * already zeroed; x86_64 only: an ia32 conversion is exact).  The same for
 * SSE integer chains (MOVDQA, PMINUB, PCMPEQB, PAND, POR, PMOVMSKB ...
 * each reading the register the one before wrote): results, and a
 * misaligned PMINUB in one (#GP at it, the load before it done).
 * Compared with the native run. */
#pragma GCC target("sse2") /* the xmm registers in the asm of an i686 build */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <xmmintrin.h>

typedef struct {
    uint64_t lo, hi;
} v128;

static v128 out[4] __attribute__((aligned(16)));
static double konst[4] = { 0.5, 1e-3, 3.0, -2.25 };

static uint32_t stmxcsr(void)
{
    uint32_t v;
    __asm__ volatile("stmxcsr %0" : "=m"(v));
    return v;
}

static void ldmxcsr(uint32_t v) { __asm__ volatile("ldmxcsr %0" : : "m"(v)); }

/* One pass of the shapes: the integer i converted, then chains. */
static void shapes(long i, double h, double *acc)
{
    double one = 1.0;
    __asm__ volatile(
        "movsd %[acc], %%xmm2\n\t"
        /* zeroing, conversion, m64 arithmetic, then a chain of four */
        "pxor %%xmm0, %%xmm0\n\t"
        "cvtsi2sd %[i], %%xmm0\n\t"
        "addsd %[k0], %%xmm0\n\t"
        "mulsd %[h], %%xmm0\n\t"
        "mulsd %%xmm0, %%xmm0\n\t"
        "addsd %[one], %%xmm0\n\t"
        "movapd %[one], %%xmm3\n\t"
        "divsd %%xmm0, %%xmm3\n\t"
        "addsd %%xmm3, %%xmm2\n\t"
        /* xorpd zeroing, the conversion as the arithmetic's source */
        "xorpd %%xmm4, %%xmm4\n\t"
        "cvtsi2sd %[i], %%xmm4\n\t"
        "movsd %[k1], %%xmm5\n\t"
        "subsd %%xmm4, %%xmm5\n\t"
        "divsd %%xmm5, %%xmm5\n\t"
        "addsd %%xmm5, %%xmm2\n\t"
        /* no zeroing: the upper half kept; the conversion read as both */
        "movapd %%xmm2, %%xmm6\n\t"
        "cvtsi2sd %[i], %%xmm6\n\t"
        "mulsd %%xmm6, %%xmm6\n\t"
        "subsd %[k2], %%xmm6\n\t"
        "movdqu %%xmm6, %[o1]\n\t"
        "movdqu %%xmm2, %[o0]\n\t"
        : [o0] "=m"(out[0]), [o1] "=m"(out[1])
        : [i] "r"(i), [h] "x"(h), [k0] "m"(konst[0]), [k1] "m"(konst[1]), [k2] "m"(konst[2]),
          [one] "x"(one), [acc] "m"(*acc)
        : "xmm0", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "memory");
    memcpy(acc, &out[0].lo, 8);
}

static void values(void)
{
    static const uint32_t modes[] = { 0x1f80, 0x3f80, 0x5f80, 0x7f80, 0x9fc0 };
    static const long ints[] = { 0, 1, -7, 123456789, -2147483647 - 1, 2147483647,
#ifdef __x86_64__
                                 0x7fffffffffffffffL, 0x20000000000001L, -0x1fffffffffffffL,
#endif
    };
    for (unsigned m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        ldmxcsr(modes[m]);
        double acc = 0, h = 1.0 / 3.0;
        uint64_t mix = 0;
        for (unsigned k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
            shapes(ints[k], h, &acc);
            mix = mix * 31 + out[0].lo + out[0].hi * 7 + out[1].lo * 3 + out[1].hi;
        }
        /* a loop as fpdouble's: the conversions under a live MXCSR */
        for (long i = 0; i < 1000; i++)
            shapes(i, h, &acc);
        uint32_t flags = stmxcsr() & 0x3f;
        ldmxcsr(0x1f80);
        printf("mode %04x: acc %016llx mix %016llx flags %02x\n", modes[m],
               (unsigned long long)out[0].lo, (unsigned long long)mix, flags);
    }
}

/* SSE integer chains (cpu/ops_sse_int.c): each instruction reads the
 * register the one before wrote, as in glibc's strlen, memchr and memcmp. */
static unsigned char buf[256] __attribute__((aligned(16)));

static void int_chains(void)
{
    for (unsigned i = 0; i < sizeof(buf); i++)
        buf[i] = (unsigned char)(i * 37 + 11);
    buf[77] = 0;
    buf[200] = 'x';
    uint64_t mix = 0;
    for (unsigned off = 0; off + 64 <= sizeof(buf); off += 16) {
        unsigned z, e, m;
        const unsigned char *p = buf + off;
        __asm__ volatile("pxor %%xmm3, %%xmm3\n\t"
                         "movdqa (%[p]), %%xmm0\n\t"
                         "pminub 16(%[p]), %%xmm0\n\t"
                         "pminub 32(%[p]), %%xmm0\n\t"
                         "pcmpeqb %%xmm3, %%xmm0\n\t"
                         "pmovmskb %%xmm0, %[z]\n\t"
                         "movdqu 1(%[p]), %%xmm1\n\t"
                         "movdqa 32(%[p]), %%xmm2\n\t"
                         "pcmpeqb (%[p]), %%xmm1\n\t"
                         "pcmpeqb 16(%[p]), %%xmm2\n\t"
                         "pand %%xmm1, %%xmm2\n\t"
                         "por %%xmm0, %%xmm2\n\t"
                         "pmovmskb %%xmm2, %[e]\n\t"
                         "movd %[c], %%xmm4\n\t"
                         "punpcklbw %%xmm4, %%xmm4\n\t"
                         "pshuflw $0, %%xmm4, %%xmm4\n\t"
                         "punpcklqdq %%xmm4, %%xmm4\n\t"
                         "movdqa 48(%[p]), %%xmm5\n\t"
                         "pcmpeqb %%xmm4, %%xmm5\n\t"
                         "psubb %%xmm5, %%xmm5\n\t"
                         "pxor %%xmm4, %%xmm5\n\t"
                         "pmaxub %%xmm5, %%xmm5\n\t"
                         "pmovmskb %%xmm5, %[m]\n\t"
                         : [z] "=&r"(z), [e] "=&r"(e), [m] "=&r"(m)
                         : [p] "r"(p), [c] "r"((unsigned)'x')
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "memory");
        mix = mix * 1000003 + z * 65537u + e * 257u + m;
    }
    printf("int chains: %016llx\n", (unsigned long long)mix);
}

/* ------------------------------------------------------------ faults */
extern char fz_segv_at[], fz_segv_resume[], fz_fpe_at[], fz_fpe_resume[];
extern char fz_gp_at[], fz_gp_resume[];
static volatile int f_sig, f_code, f_at, f_addr_ok;
static uintptr_t f_page;

#ifdef __x86_64__
#define UC_IP(uc) ((uc)->uc_mcontext.gregs[REG_RIP])
#else
#define UC_IP(uc) ((uc)->uc_mcontext.gregs[REG_EIP])
#endif

static void on_fault(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    f_sig = sig;
    f_code = si->si_code;
    if (sig == SIGSEGV && si->si_code == 0x80 /* SI_KERNEL: #GP */) {
        f_at = UC_IP(uc) == (uintptr_t)fz_gp_at;
        f_addr_ok = si->si_addr == NULL;
        UC_IP(uc) = (uintptr_t)fz_gp_resume;
    } else if (sig == SIGSEGV) {
        f_at = UC_IP(uc) == (uintptr_t)fz_segv_at;
        f_addr_ok = (uintptr_t)si->si_addr == f_page + 8;
        UC_IP(uc) = (uintptr_t)fz_segv_resume;
    } else {
        f_at = UC_IP(uc) == (uintptr_t)fz_fpe_at;
        f_addr_ok = 1;
        UC_IP(uc) = (uintptr_t)fz_fpe_resume;
    }
}

static void __attribute__((noinline)) segv_in_chain(long i, const double *p)
{
    double two = 2.0;
    __asm__ volatile("movapd %[two], %%xmm0\n\t"
                     "movapd %[two], %%xmm1\n\t"
                     "mulsd %%xmm1, %%xmm1\n\t" /* the MXCSR live */
                     "pxor %%xmm0, %%xmm0\n\t"
                     "cvtsi2sd %[i], %%xmm0\n\t"
                     ".globl fz_segv_at\n"
                     "fz_segv_at:\n\t"
                     "addsd (%[p]), %%xmm0\n\t"
                     ".globl fz_segv_resume\n"
                     "fz_segv_resume:\n\t"
                     "mulsd %%xmm0, %%xmm0\n\t"
                     "addsd %%xmm0, %%xmm1\n\t"
                     "movdqu %%xmm0, %[o0]\n\t"
                     "movdqu %%xmm1, %[o1]\n\t"
                     : [o0] "=m"(out[0]), [o1] "=m"(out[1])
                     : [i] "r"(i), [p] "r"(p), [two] "x"(two)
                     : "xmm0", "xmm1", "memory");
}

/* x86_64: 2^53 + 1 is no double (PE); an ia32 CVTSI2SD of a 32-bit
 * integer is always exact and does not fault. */
static void __attribute__((noinline)) fpe_in_conversion(long i)
{
    double two = 2.0;
    __asm__ volatile("movapd %[two], %%xmm0\n\t"
                     "movapd %[two], %%xmm1\n\t"
                     "pxor %%xmm0, %%xmm0\n\t"
                     ".globl fz_fpe_at\n"
                     "fz_fpe_at:\n\t"
                     "cvtsi2sd %[i], %%xmm0\n\t"
                     ".globl fz_fpe_resume\n"
                     "fz_fpe_resume:\n\t"
                     "addsd %%xmm1, %%xmm0\n\t"
                     "movdqu %%xmm0, %[o0]\n\t"
                     : [o0] "=m"(out[0])
                     : [i] "r"(i), [two] "x"(two)
                     : "xmm0", "xmm1", "memory");
}

/* A misaligned PMINUB inside a chain: #GP at it, the load before it done. */
static void __attribute__((noinline)) gp_in_chain(const unsigned char *p)
{
    __asm__ volatile("movdqa (%[p]), %%xmm0\n\t"
                     ".globl fz_gp_at\n"
                     "fz_gp_at:\n\t"
                     "pminub 8(%[p]), %%xmm0\n\t"
                     ".globl fz_gp_resume\n"
                     "fz_gp_resume:\n\t"
                     "movdqu %%xmm0, %[o0]\n\t"
                     : [o0] "=m"(out[0])
                     : [p] "r"(p)
                     : "xmm0", "memory");
}

static void faults(void)
{
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return;
    f_page = (uintptr_t)page;
    for (long i = -3; i < 3; i++) {
        f_sig = 0;
        f_code = 0;
        segv_in_chain(i * 5 + 1, (const double *)(page + 8));
        printf("segv %ld: sig %d code %d at the addsd %d addr %d, xmm0 %016llx %016llx xmm1 %016llx\n",
               i, f_sig, f_code, f_at, f_addr_ok, (unsigned long long)out[0].lo,
               (unsigned long long)out[0].hi, (unsigned long long)out[1].lo);
    }
    munmap(page, 4096);
    for (unsigned k = 0; k < 2; k++) {
        f_sig = 0;
        f_code = 0;
        buf[16 + k] = 0x55;
        gp_in_chain(buf + 32 * k);
        printf("gp %u: sig %d code %d at the pminub %d addr %d, xmm0 %016llx %016llx\n", k, f_sig,
               f_code, f_at, f_addr_ok, (unsigned long long)out[0].lo, (unsigned long long)out[0].hi);
    }
    /* PE unmasked */
    static const long ints[] = { 16777217, -33554435,
#ifdef __x86_64__
                                 0x20000000000001L, 0x20000000000002L, -0x7fffffffffffffffL,
#endif
    };
    for (unsigned k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
        f_sig = 0;
        f_code = 0;
        ldmxcsr(0x1f80 & ~0x1000u);
        fpe_in_conversion(ints[k]);
        uint32_t m = stmxcsr();
        ldmxcsr(0x1f80);
        printf("fpe %ld: sig %d code %d at the cvtsi2sd %d, xmm0 %016llx %016llx mxcsr %04x\n",
               ints[k], f_sig, f_code, f_at, (unsigned long long)out[0].lo,
               (unsigned long long)out[0].hi, m);
    }
}

int main(void)
{
    values();
    int_chains();
    faults();
    return 0;
}
