/* Conditions after memory operands and narrow operations, compared with the
 * native run (x86_64 and ia32).
 *
 * elfemu runs a flag-setting instruction with a memory operand (CMP, TEST,
 * SUB, ADD; AND, OR, XOR whose flags are dead) and the Jcc, SETcc or CMOVcc
 * that reads its flags as one op, once per form of the memory operand
 * (cpu/mem.h: [base + disp], [base + index * scale + disp] of each guest
 * bitness, and the generic form for FS/GS and the 0x67 prefix).  Here each
 * such pair runs in every addressing form over edge values: the branch
 * taken or not, the byte set, the register moved, the flags after the pair
 * (PUSHF), the memory.  Then faults at the pair's own load in each form:
 * the signal frame must show the instruction pointer of the first
 * instruction and the flags from before it.
 *
 * The same forms for CMOVcc r, m, SETcc m8 and INC/DEC/NEG/NOT m (handlers
 * per condition and form), and their faults: a load that faults whatever
 * the condition, a store or read-modify-write to a read-only page (the
 * memory, the register and the flags stay as they were).
 *
 * Last, conditions read apart from their writer (a MOV in between, so no
 * pair): all 16 after CMP, SUB, TEST and AND of 8 and 16 bits, after
 * shifts (whose CF, AF and OF are kept apart from their result), and after
 * BT and SAHF, which replace some flags of such a lazy record.
 *
 * Printed: checksums, flags and offsets, never an address. */
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

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */
#define AF 0x10ul

#ifdef __x86_64__
#define REDZONE_SKIP "lea -128(%%rsp), %%rsp\n\t"
#define REDZONE_BACK "\n\tlea 128(%%rsp), %%rsp"
#define SEG "%%fs:"
#define REG_PC REG_RIP
#else
#define REDZONE_SKIP
#define REDZONE_BACK
#define SEG "%%gs:"
#define REG_PC REG_EIP
#endif
#define READ_FLAGS REDZONE_SKIP "pushf\n\tpop %[fl]" REDZONE_BACK

/* The memory the operands address: 32 words, every 32-bit half holding
 * the same value, so that a load of any width at any multiple of 4 sees
 * it; base registers point at word 8. */
static uint64_t sbuf[32] __attribute__((aligned(64)));
static uint64_t *lowbuf;  /* below 4 GiB (x86_64: for the 0x67 prefix) */
static uintptr_t segbase; /* FS (x86_64) or GS (ia32) base */

enum base_kind { B_PLAIN, B_SEG, B_LOW };

static void fill(uint64_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 32; i++)
        p[i] = v | (uint64_t)v << 32;
}

static uint64_t sum_of(const uint64_t *p)
{
    uint64_t s = 0;
    for (unsigned i = 0; i < 32; i++)
        s = s * 31 + p[i];
    return s;
}

/* The addressing forms: X(name, operand, base kind). */
#ifdef __x86_64__
#define FORMS_WIDE(X)                                                                   \
    X(rip, "sbuf+64(%%rip)", B_PLAIN)                                                    \
    X(a32, "4(%k[b],%k[i],4)", B_LOW)
#elif !defined(__PIC__)
#define FORMS_WIDE(X) X(abs, "sbuf+64", B_PLAIN)
#else
#define FORMS_WIDE(X)
#endif
#define FORMS(X)                                                                        \
    X(base, "(%[b])", B_PLAIN)                                                          \
    X(disp, "-24(%[b])", B_PLAIN)                                                       \
    X(idx4, "8(%[b],%[i],4)", B_PLAIN)                                                  \
    X(idx8, "-16(%[b],%[i],8)", B_PLAIN)                                                \
    X(idxonly, "4(,%[b],1)", B_PLAIN)                                                   \
    X(seg, SEG "2(%[b],%[i],2)", B_SEG)                                                 \
    X(segb, SEG "(%[b])", B_SEG)                                                        \
    FORMS_WIDE(X)

/* The first instruction of a pair: X(name, text with the operand M, logical). */
#ifdef __x86_64__
#define WRITERS_WIDE(X, F, M)                                                           \
    X(F, M, cmp_rm64, "cmp " M ", %q[r]", 0)                                            \
    X(F, M, cmp_mi64, "cmpq $-2, " M, 0)                                                \
    X(F, M, test_mr64, "test %q[r], " M, 1)                                             \
    X(F, M, sub_rm64_nf, "sub " M ", %q[r]\n\tcmp $3, %q[r]", 0)
#else
#define WRITERS_WIDE(X, F, M)
#endif
#define WRITERS(X, F, M)                                                                \
    X(F, M, cmp_rm8, "cmp " M ", %b[r]", 0)                                             \
    X(F, M, cmp_rm16, "cmp " M ", %w[r]", 0)                                            \
    X(F, M, cmp_rm32, "cmp " M ", %k[r]", 0)                                            \
    X(F, M, cmp_mr8, "cmp %b[r], " M, 0)                                                \
    X(F, M, cmp_mr32, "cmp %k[r], " M, 0)                                               \
    X(F, M, cmp_mi8, "cmpb $0x80, " M, 0)                                               \
    X(F, M, cmp_mi16, "cmpw $-2, " M, 0)                                                \
    X(F, M, cmp_mi32, "cmpl $0x7fffffff, " M, 0)                                        \
    X(F, M, test_mr16, "test %w[r], " M, 1)                                             \
    X(F, M, test_mi8, "testb $0x81, " M, 1)                                             \
    X(F, M, test_mi32, "testl $0x80000001, " M, 1)                                      \
    X(F, M, sub_rm32, "sub " M ", %k[r]", 0)                                            \
    X(F, M, add_rm8, "add " M ", %b[r]", 0)                                             \
    X(F, M, add_rm16, "add " M ", %w[r]", 0)                                            \
    X(F, M, and_rm32_nf, "and " M ", %k[r]\n\tcmp $3, %k[r]", 0)                        \
    X(F, M, or_rm16_nf, "or " M ", %w[r]\n\tcmp $3, %w[r]", 0)                          \
    X(F, M, xor_rm8_nf, "xor " M ", %b[r]\n\tcmp $3, %b[r]", 0)                         \
    X(F, M, add_rm32_nf, "add " M ", %k[r]\n\tcmp $3, %k[r]", 0)                        \
    WRITERS_WIDE(X, F, M)

/* The second: a branch over an instruction, SETcc, CMOVcc. */
#define READERS(X, F, M, W, T, L)                                                       \
    X(F, M, W, T, L, jle, "jle 1f\n\tmov $1, %k[t]\n1:")                                \
    X(F, M, W, T, L, jnbe, "jnbe 1f\n\tmov $2, %k[t]\n1:")                              \
    X(F, M, W, T, L, setb, "setb %b[t]")                                                \
    X(F, M, W, T, L, cmovge, "cmovge %k[s], %k[t]")

typedef void pair_fn(unsigned long *r, unsigned long b, unsigned long *t, unsigned long *fl);

/* A case: r (rAX) and t in and out, b (rCX) the base, i (rDX) = 3 the
 * index, s a source register; the flags after it. */
#define GEN_CASE(fname, text)                                                           \
    static void fname(unsigned long *r, unsigned long b, unsigned long *t, unsigned long *fl) \
    {                                                                                   \
        asm volatile(text "\n\t" READ_FLAGS                                             \
                     : [r] "+a"(*r), [t] "+q"(*t), [fl] "=&r"(*fl)                      \
                     : [b] "c"(b), [i] "d"(3l), [s] "r"(0x77777777ul)                   \
                     : "memory", "cc");                                                 \
    }
#define GEN_PAIR(F, M, W, T, L, R, RT) GEN_CASE(F##_##W##_##R, T "\n\t" RT)
#define GEN_WRITER(F, M, W, T, L) READERS(GEN_PAIR, F, M, W, T, L)
#define GEN_FORM(F, M, K) WRITERS(GEN_WRITER, F, M)
FORMS(GEN_FORM)

struct pair_case {
    const char *name;
    pair_fn *fn;
    int logical;
    enum base_kind kind;
};
#define ROW_PAIR(F, M, W, T, L, R, RT) { #F " " #W " " #R, F##_##W##_##R, L, K_##F },
#define ROW_WRITER(F, M, W, T, L) READERS(ROW_PAIR, F, M, W, T, L)
#define ROW_FORM(F, M, K) WRITERS(ROW_WRITER, F, M)
#define KIND_OF(F, M, K) K_##F = K,
enum { FORMS(KIND_OF) };
static const struct pair_case pairs[] = { FORMS(ROW_FORM) };

/* Conditional moves and stores, read-modify-write: X(F, M, name, text,
 * logical), after a CMP or TEST that sets the flags they read or keep. */
#ifdef __x86_64__
#define SINGLES_WIDE(X, F, M)                                                           \
    X(F, M, cmovs_m64, "cmp %k[s], %k[r]\n\tcmovs " M ", %q[t]", 0)                    \
    X(F, M, cmovae_m64, "cmp %q[s], %q[r]\n\tcmovae " M ", %q[t]", 0)                  \
    X(F, M, incq_m, "cmp %k[s], %k[r]\n\tincq " M, 0)                                   \
    X(F, M, negq_m, "negq " M, 0)
#else
#define SINGLES_WIDE(X, F, M)
#endif
#define SINGLES(X, F, M)                                                                \
    X(F, M, cmovl_m32, "cmp %k[s], %k[r]\n\tcmovl " M ", %k[t]", 0)                    \
    X(F, M, cmovnbe_m32, "cmp %k[s], %k[r]\n\tcmovnbe " M ", %k[t]", 0)                \
    X(F, M, cmovp_m32, "cmp %k[s], %k[r]\n\tcmovp " M ", %k[t]", 0)                    \
    X(F, M, cmove_m32, "test %k[r], %k[r]\n\tcmove " M ", %k[t]", 1)                   \
    X(F, M, cmovo_m16, "cmp %k[s], %k[r]\n\tcmovo " M ", %w[t]", 0)                    \
    X(F, M, setg_m, "cmp %k[s], %k[r]\n\tsetg " M, 0)                                  \
    X(F, M, setbe_m, "cmp $0x40, %b[r]\n\tsetbe " M, 0)                                \
    X(F, M, setnp_m, "cmp %k[s], %k[r]\n\tsetnp " M, 0)                                \
    X(F, M, incb_m, "cmp %k[s], %k[r]\n\tincb " M, 0)                                   \
    X(F, M, decw_m, "cmp %k[s], %k[r]\n\tdecw " M, 0)                                   \
    X(F, M, negl_m, "negl " M, 0)                                                       \
    X(F, M, notl_m, "cmp %k[s], %k[r]\n\tnotl " M, 0)                                   \
    SINGLES_WIDE(X, F, M)
#define GEN_SINGLE(F, M, W, T, L) GEN_CASE(F##_##W, T)
#define GEN_SINGLES(F, M, K) SINGLES(GEN_SINGLE, F, M)
FORMS(GEN_SINGLES)
#define ROW_SINGLE(F, M, W, T, L) { #F " " #W, F##_##W, L, K_##F },
#define ROW_SINGLES(F, M, K) SINGLES(ROW_SINGLE, F, M)
static const struct pair_case singles[] = { FORMS(ROW_SINGLES) };

static const uint32_t edge[] = { 0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xfffe,
                                 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x12345678 };
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

static unsigned long base_for(enum base_kind k)
{
    switch (k) {
    case B_SEG: return (unsigned long)((uintptr_t)&sbuf[8] - segbase);
#ifdef __x86_64__
    case B_LOW: return (uintptr_t)&lowbuf[8] | 0x1234567800000000ul; /* high half ignored */
#endif
    default: return (uintptr_t)&sbuf[8];
    }
}

static void over_edges(const struct pair_case *cases, size_t count)
{
    for (size_t n = 0; n < count; n++) {
        const struct pair_case *p = &cases[n];
        uint64_t *buf = p->kind == B_LOW ? lowbuf : sbuf;
        unsigned long mask = p->logical ? ARITH & ~AF : ARITH;
        uint64_t sum = 0;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++) {
                fill(buf, edge[y]);
                unsigned long r = edge[x], t = 0x5a5a5a5a, fl;
                if (sizeof(long) == 8)
                    r |= (unsigned long)(edge[(x + 5) % NEDGE] ^ edge[y]) << 16 << 16;
                p->fn(&r, base_for(p->kind), &t, &fl);
                sum = sum * 1000003 + (fl & mask);
                sum = sum * 1000003 + r;
                sum = sum * 1000003 + t;
                sum = sum * 1000003 + sum_of(buf);
            }
        printf("%-32s %016llx\n", p->name, (unsigned long long)sum);
    }
}

/* ------------------------------------------------------------ faults */
static sigjmp_buf back;
static uintptr_t fault_ip, fault_flags, fault_addr;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    (void)sig;
    fault_ip = (uintptr_t)uc->uc_mcontext.gregs[REG_PC];
    fault_flags = (uintptr_t)uc->uc_mcontext.gregs[REG_EFL];
    fault_addr = (uintptr_t)si->si_addr;
    siglongjmp(back, 1);
}

/* ADD sets known flags, then the pair's load (or the store) faults: the
 * frame shows ADD's flags and the faulting instruction; the register and
 * the memory are unchanged. */
#define GEN_FAULT(name, text)                                                           \
    __attribute__((noinline)) static unsigned long name(unsigned long b, unsigned long a) \
    {                                                                                   \
        unsigned long r = a, t = 0;                                                     \
        asm volatile("add %[a], %[r]\n\t" text                                          \
                     : [r] "+a"(r), [t] "+q"(t)                                         \
                     : [a] "r"(a), [b] "c"(b), [i] "d"(5l), [s] "r"(1ul)               \
                     : "memory", "cc");                                                 \
        return r + t;                                                                   \
    }
#ifdef __x86_64__
#define FAULTS_WIDE(X)                                                                  \
    X(f_addr32, "cmp 4(%k[b],%k[i],4), %k[r]\n\tjl 1f\n\tinc %[t]\n1:", B_LOW, 0)        \
    X(f_cmp_mi64, "cmpq $1, 8(%[b],%[i],8)\n\tcmovne %k[s], %k[t]", B_PLAIN, 0)        \
    X(f_cmovs_m64, "cmovs 8(%[b]), %q[r]", B_PLAIN, 0)                                  \
    X(f_negq_ro_a32, "negq 4(%k[b],%k[i],4)", B_LOW, 1)
#else
#define FAULTS_WIDE(X)
#endif
#define FAULTS(X)                                                                       \
    X(f_cmp_rm_base, "cmp 8(%[b]), %k[r]\n\tjl 1f\n\tinc %[t]\n1:", B_PLAIN, 0)         \
    X(f_cmp_mr_idx, "cmp %b[r], -4(%[b],%[i],4)\n\tjne 1f\n\tinc %[t]\n1:", B_PLAIN, 0) \
    X(f_cmp_mi_idxonly, "cmpw $7, 2(,%[b],1)\n\tsetg %b[t]", B_PLAIN, 0)                \
    X(f_test_mi_base, "testl $1, (%[b])\n\tcmovs %k[s], %k[t]", B_PLAIN, 0)             \
    X(f_sub_rm_idx, "sub (%[b],%[i],2), %k[r]\n\tjbe 1f\n\tinc %[t]\n1:", B_PLAIN, 0)   \
    X(f_add_rm_nf, "add 4(%[b]), %w[r]\n\tcmp $3, %w[r]\n\tsetb %b[t]", B_PLAIN, 0)     \
    X(f_seg, "cmp " SEG "4(%[b],%[i],2), %k[r]\n\tjg 1f\n\tinc %[t]\n1:", B_SEG, 0)      \
    X(f_cmovg_m_idx, "cmovg -4(%[b],%[i],4), %k[r]", B_PLAIN, 0)                        \
    X(f_cmovl_m_seg, "cmovl " SEG "(%[b]), %k[r]", B_SEG, 0)                            \
    X(f_setl_m_ro, "setl 4(%[b])", B_PLAIN, 1)                                          \
    X(f_setne_m_ro_idx, "setne 1(%[b],%[i],1)", B_PLAIN, 1)                             \
    X(f_incl_m_ro_seg, "incl " SEG "4(%[b],%[i],2)", B_SEG, 1)                          \
    X(f_decb_m_ro, "decb 7(%[b])", B_PLAIN, 1)                                          \
    X(f_notw_m_ro_idxonly, "notw 2(,%[b],1)", B_PLAIN, 1)                               \
    X(f_incl_m_none, "incl 8(%[b],%[i],8)", B_PLAIN, 0)                                 \
    FAULTS_WIDE(X)
#define GEN_FAULT_ROW(name, text, kind, ro) GEN_FAULT(name, text)
FAULTS(GEN_FAULT_ROW)

static void faults(void)
{
    static const struct {
        const char *name;
        unsigned long (*fn)(unsigned long, unsigned long);
        enum base_kind kind;
        int ro; /* on the read-only page, else on the inaccessible one */
    } cases[] = {
#define FAULT_ROW(name, text, kind, ro) { #name, name, kind, ro },
        FAULTS(FAULT_ROW)
    };
    char *page = mmap(NULL, 2 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS
#ifdef __x86_64__
                                                 | MAP_32BIT
#endif
                      , -1, 0);
    if (page == MAP_FAILED) {
        printf("mmap failed\n");
        return;
    }
    mprotect(page, 4096, PROT_NONE);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (unsigned x = 0; x < NEDGE; x += 4) {
            uintptr_t b = (uintptr_t)page + 64 + (cases[k].ro ? 4096 : 0);
            if (cases[k].kind == B_SEG)
                b -= segbase;
#ifdef __x86_64__
            if (cases[k].kind == B_LOW)
                b |= 0xff00000000000000ul;
#endif
            fault_ip = fault_flags = fault_addr = 0;
            if (sigsetjmp(back, 1) == 0) {
                unsigned long v = cases[k].fn(b, edge[x]);
                printf("%s: no fault (%#lx)\n", cases[k].name, v);
                continue;
            }
            printf("%s (%#x): ip +%lu flags %#lx at page+%lu, ro page %s\n", cases[k].name,
                   edge[x], (unsigned long)(fault_ip - (uintptr_t)cases[k].fn),
                   (unsigned long)(fault_flags & ARITH),
                   (unsigned long)(fault_addr - (uintptr_t)page),
                   memchr(page + 4096, 0, 4096) == page + 4096 &&
                           !memcmp(page + 4096, page + 4097, 4095) ? "zero" : "CHANGED");
        }
#ifdef __x86_64__
    /* Beyond elfemu's guest space (canonical, unmapped): the bound check. */
    if (sigsetjmp(back, 1) == 0) {
        f_cmp_rm_base(0x500000000000ul, 1);
        printf("far: no fault\n");
    } else {
        printf("far: ip +%lu flags %#lx\n", (unsigned long)(fault_ip - (uintptr_t)f_cmp_rm_base),
               (unsigned long)(fault_flags & ARITH));
    }
#endif
    signal(SIGSEGV, SIG_DFL);
    munmap(page, 2 * 4096);
}

/* ------------------------------------------------------------ conditions apart */
#define CONDITIONS(X, W, T, L)                                                          \
    X(W, T, L, o) X(W, T, L, no) X(W, T, L, b) X(W, T, L, ae) X(W, T, L, e)             \
    X(W, T, L, ne) X(W, T, L, be) X(W, T, L, a) X(W, T, L, s) X(W, T, L, ns)            \
    X(W, T, L, p) X(W, T, L, np) X(W, T, L, l) X(W, T, L, ge) X(W, T, L, le)            \
    X(W, T, L, g)

/* X(name, text, logical): u and v are the operands; AH holds a SAHF value. */
#define APART(X)                                                                        \
    X(cmp8, "cmp %b[v], %b[u]", 0)                                                      \
    X(cmp16, "cmp %w[v], %w[u]", 0)                                                     \
    X(sub8, "sub %b[v], %b[u]", 0)                                                      \
    X(sub16, "sub %w[v], %w[u]", 0)                                                     \
    X(test8, "test %b[v], %b[u]", 1)                                                    \
    X(test16, "test %w[v], %w[u]", 1)                                                   \
    X(and16, "and %w[v], %w[u]", 1)                                                     \
    X(cmp32, "cmp %k[v], %k[u]", 0)                                                     \
    X(shl8, "shl $3, %b[u]", 1)                                                         \
    X(sar16, "sar $1, %w[u]", 1)                                                        \
    X(shr32, "shr $7, %k[u]", 1)                                                        \
    X(shl_bt, "shl $1, %k[u]\n\tbt $5, %k[v]", 1)                                       \
    X(shr_sahf, "shr $2, %w[u]\n\tsahf", 1)                                             \
    X(test_sahf, "test %k[v], %k[u]\n\tsahf", 1)

/* SETcc and CMOVcc, a MOV between the writer and each. */
#define GEN_APART(W, T, L, cc)                                                          \
    static unsigned long apart_##W##_##cc(unsigned long u, unsigned long v, unsigned ah, \
                                          unsigned long *fl)                            \
    {                                                                                   \
        unsigned long t = 0, m = 0x1234, a = (unsigned long)ah << 8;                    \
        asm volatile(T "\n\tmov %[u], %[m]\n\tset" #cc " %b[t]\n\tmov %[v], %[m]\n\t"    \
                     "cmov" #cc " %[u], %[m]\n\t" READ_FLAGS                            \
                     : [u] "+q"(u), [t] "+q"(t), [m] "+r"(m), [fl] "=&r"(*fl), "+a"(a)   \
                     : [v] "q"(v)                                                       \
                     : "cc");                                                           \
        return t ^ m * 3;                                                               \
    }
#define GEN_APARTS(W, T, L) CONDITIONS(GEN_APART, W, T, L)
APART(GEN_APARTS)

struct apart_case {
    const char *name;
    unsigned long (*fn)(unsigned long, unsigned long, unsigned, unsigned long *);
    int logical;
};
#define ROW_APART(W, T, L, cc) { #W " " #cc, apart_##W##_##cc, L },
#define ROW_APARTS(W, T, L) CONDITIONS(ROW_APART, W, T, L)
static const struct apart_case aparts[] = { APART(ROW_APARTS) };

static void conditions_apart(void)
{
    static const unsigned ahs[] = { 0x00, 0x40, 0x80, 0xc1, 0x45 };
    for (size_t n = 0; n < sizeof(aparts) / sizeof(aparts[0]); n++) {
        uint64_t sum = 0;
        unsigned long mask = aparts[n].logical ? ARITH & ~AF : ARITH;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++) {
                unsigned long fl;
                unsigned long r = aparts[n].fn(edge[x], edge[y], ahs[(x + y) % 5], &fl);
                sum = sum * 1000003 + r;
                sum = sum * 1000003 + (fl & mask);
            }
        printf("%-20s %016llx\n", aparts[n].name, (unsigned long long)sum);
    }
}

int main(void)
{
#ifdef __x86_64__
    asm("mov %%fs:0, %0" : "=r"(segbase));
    lowbuf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (lowbuf == MAP_FAILED) {
        printf("mmap MAP_32BIT failed\n");
        return 1;
    }
#else
    asm("mov %%gs:0, %0" : "=r"(segbase));
    lowbuf = sbuf;
#endif
    over_edges(pairs, sizeof(pairs) / sizeof(pairs[0]));
    over_edges(singles, sizeof(singles) / sizeof(singles[0]));
    faults();
    conditions_apart();
    printf("memconds done\n");
    return 0;
}
