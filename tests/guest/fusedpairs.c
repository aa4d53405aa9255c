/* Fused instruction pairs (cpu/ops_fused.c), compared with the native run
 * in both ABIs: every fused operation form followed by Jcc, SETcc or
 * CMOVcc with each of the 16 conditions, the flags read afterwards by
 * PUSHF (one checksum line per pair over edge values, CF set and clear
 * before it); faults between a pair's flag write and the next reader, at
 * the pair's own memory operand, right after a fused branch, and between
 * an ALU instruction and the one that replaces its flags (the flags and
 * the instruction pointer in the signal frame); and a jump to the second
 * instruction of a pair alone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#ifdef __x86_64__
#define GREG_IP REG_RIP
#define GREG_CX REG_RCX
#else
#define GREG_IP REG_EIP
#define GREG_CX REG_ECX
#endif

#define ARITH 0x8d5u /* CF PF AF ZF SF OF */
#define AF 0x10u

/* The first instruction of a pair: name, text, logical (AF undefined). */
#define WRITERS(X, R, cc)                                                               \
    X(cmp_rr32, "cmp %[b], %[a]", 0, R, cc)                                             \
    X(cmp_rr16, "cmp %w[b], %w[a]", 0, R, cc)                                           \
    X(cmp_rr8, "cmp %b[b], %b[a]", 0, R, cc)                                            \
    X(cmp_ri32, "cmp $0x7fffffff, %[a]", 0, R, cc)                                      \
    X(cmp_ri8, "cmp $0x80, %b[a]", 0, R, cc)                                            \
    X(cmp_rm32, "cmp %[m], %[a]", 0, R, cc)                                             \
    X(cmp_mr32, "cmp %[a], %[m]", 0, R, cc)                                             \
    X(cmp_mi8, "cmpb $0x80, %[m]", 0, R, cc)                                            \
    X(cmp_mi16, "cmpw $-2, %[m]", 0, R, cc)                                             \
    X(test_rr32, "test %[b], %[a]", 1, R, cc)                                           \
    X(test_ri8, "test $0x81, %b[a]", 1, R, cc)                                          \
    X(test_mr32, "test %[a], %[m]", 1, R, cc)                                           \
    X(test_mi32, "testl $0x80000001, %[m]", 1, R, cc)                                   \
    X(sub_rr32, "sub %[b], %[a]", 0, R, cc)                                             \
    X(sub_ri32, "sub $1, %[a]", 0, R, cc)                                               \
    X(sub_rm32, "sub %[m], %[a]", 0, R, cc)                                             \
    X(add_rr32, "add %[b], %[a]", 0, R, cc)                                             \
    X(add_ri8, "add $0x80, %b[a]", 0, R, cc)                                            \
    X(add_rm32, "add %[m], %[a]", 0, R, cc)                                             \
    X(and_ri32, "and $-16, %[a]", 1, R, cc)                                             \
    X(or_rr16, "or %w[b], %w[a]", 1, R, cc)                                             \
    X(inc_r32, "inc %[a]", 0, R, cc)                                                    \
    X(dec_r16, "dec %w[a]", 0, R, cc)                                                   \
    X(dec_r8, "dec %b[a]", 0, R, cc)                                                    \
    X(xor_rr32, "xor %[b], %[a]", 1, R, cc)                                             \
    X(xor_ri8, "xor $0x81, %b[a]", 1, R, cc)                                            \
    WRITERS64(X, R, cc)

/* 64-bit writers (a logic record is the result alone, a CMP/SUB record the
 * operands alone): the value sign-extended first, so that the upper half
 * is known and SF/ZF differ from those of 32 bits. */
#ifdef __x86_64__
#define WRITERS64(X, R, cc)                                                             \
    X(test_rr64, "movslq %k[a], %q[a]\n\ttest %q[a], %q[a]", 1, R, cc)                   \
    X(and_ri64, "movslq %k[a], %q[a]\n\tand $-16, %q[a]", 1, R, cc)                      \
    X(or_ri64, "movslq %k[a], %q[a]\n\tor $1, %q[a]", 1, R, cc)                          \
    X(cmp_ri64, "movslq %k[a], %q[a]\n\tcmp $0x7fffffff, %q[a]", 0, R, cc)                \
    X(sub_ri64, "movslq %k[a], %q[a]\n\tsub $-1, %q[a]", 0, R, cc)
#else
#define WRITERS64(X, R, cc)
#endif

#define CONDITIONS(X, R)                                                                \
    X(R, o) X(R, no) X(R, b) X(R, ae) X(R, e) X(R, ne) X(R, be) X(R, a)                 \
    X(R, s) X(R, ns) X(R, p) X(R, np) X(R, l) X(R, ge) X(R, le) X(R, g)

/* The second instruction: a branch over an instruction of the next
 * block, a SETcc, a CMOVcc. */
#define READ_jcc(cc) "j" #cc " 1f\n\tmov $1, %[t]\n1:\n\t"
#define READ_setcc(cc) "set" #cc " %b[t]\n\t"
#define READ_cmovcc(cc) "cmov" #cc " %[b], %[t]\n\t"

struct pair_case {
    const char *name;
    int logical;
    unsigned long (*fn)(unsigned *a, unsigned b, unsigned *m, unsigned cf, unsigned *t);
};

#define GEN_PAIR(wname, text, logical, R, cc)                                           \
    static unsigned long wname##_##R##_##cc(unsigned *a, unsigned b, unsigned *m, unsigned cf, \
                                           unsigned *t)                                 \
    {                                                                                   \
        unsigned long fl;                                                               \
        asm volatile("btl $0, %[cf]\n\t" text "\n\t" READ_##R(cc) "pushf\n\tpop %[fl]"   \
                     : [fl] "=&r"(fl), [a] "+q"(*a), [t] "+q"(*t), [m] "+m"(*m)         \
                     : [b] "q"(b), [cf] "rm"(cf)                                        \
                     : "cc");                                                           \
        return fl;                                                                      \
    }
#define GEN_COND(R, cc) WRITERS(GEN_PAIR, R, cc)
CONDITIONS(GEN_COND, jcc)
CONDITIONS(GEN_COND, setcc)
CONDITIONS(GEN_COND, cmovcc)

#define ROW_PAIR(wname, text, logical, R, cc) { #wname " " #R " " #cc, logical, wname##_##R##_##cc },
#define ROW_COND(R, cc) WRITERS(ROW_PAIR, R, cc)
static const struct pair_case pairs[] = {
    CONDITIONS(ROW_COND, jcc) CONDITIONS(ROW_COND, setcc) CONDITIONS(ROW_COND, cmovcc)
};

static const unsigned edge[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xfffe,
                                 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x12345678 };
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

static void pairs_over_edges(void)
{
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        uint64_t sum = 0;
        unsigned mask = pairs[i].logical ? ARITH & ~AF : ARITH;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++)
                for (unsigned cf = 0; cf < 2; cf++) {
                    unsigned a = edge[x], m = edge[y], t = 0x5a5a5a5a;
                    unsigned long fl = pairs[i].fn(&a, edge[y], &m, cf, &t);
                    sum = sum * 1000003 + (fl & mask);
                    sum = sum * 1000003 + a;
                    sum = sum * 1000003 + t;
                    sum = sum * 1000003 + m;
                }
        printf("%s: %016llx\n", pairs[i].name, (unsigned long long)sum);
    }
}

/* ------------------------------------------------------------ faults */
static sigjmp_buf back;
static uintptr_t fault_ip, fault_flags, fault_cx;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    fault_ip = (uintptr_t)uc->uc_mcontext.gregs[GREG_IP];
    fault_flags = (uintptr_t)uc->uc_mcontext.gregs[REG_EFL];
    fault_cx = (uintptr_t)uc->uc_mcontext.gregs[GREG_CX];
    siglongjmp(back, 1);
}

static unsigned *volatile bad; /* NULL: every access through it faults */

/* cmp; setl (fused), then a load that faults before XOR replaces the
 * flags: the frame holds CMP's flags and SETL's result. */
__attribute__((noinline)) static void fault_after_setcc(unsigned a, unsigned b)
{
    unsigned *p = bad;
    asm volatile("mov $0x1111, %%ecx\n\t"
                 "cmp %[b], %[a]\n\tsetl %%cl\n\tmov (%[p]), %[a]\n\txor %[a], %[a]"
                 : [a] "+r"(a) : [b] "r"(b), [p] "r"(p) : "ecx", "cc", "memory");
}

/* The fused CMP's own load faults: nothing of the pair happened, the
 * flags are ADD's, the instruction pointer is CMP's. */
__attribute__((noinline)) static void fault_at_fused_load(unsigned a, unsigned b)
{
    unsigned *p = bad;
    asm volatile("add %[b], %[a]\n\tcmp (%[p]), %[b]\n\tjl 1f\n\tinc %[a]\n1:"
                 : [a] "+r"(a), [b] "+r"(b) : [p] "r"(p) : "cc", "memory");
}

/* CMOVcc from memory (loads, so faults, whatever the condition): the
 * frame holds the CMP's flags. */
__attribute__((noinline)) static void fault_at_cmov_load(unsigned a, unsigned b)
{
    unsigned *p = bad;
    asm volatile("cmp %[b], %[a]\n\tcmovg (%[p]), %[a]"
                 : [a] "+r"(a) : [b] "r"(b), [p] "r"(p) : "cc", "memory");
}

/* A fused branch, then a fault at the first instruction of either
 * successor block, before any flag writer. */
__attribute__((noinline)) static void fault_after_branch(unsigned a, unsigned b)
{
    unsigned *p = bad;
    asm volatile("sub %[b], %[a]\n\tjbe 1f\n\tmov (%[p]), %[b]\n1:\tmov 4(%[p]), %[b]"
                 : [a] "+r"(a), [b] "+r"(b) : [p] "r"(p) : "cc", "memory");
}

/* INC keeps CF: the flags in the frame mix INC's with the CF before it. */
__attribute__((noinline)) static void fault_after_inc_cmov(unsigned a, unsigned b)
{
    unsigned *p = bad;
    asm volatile("mov %[b], %%ecx\n\tbt $0, %[b]\n\tinc %[a]\n\tcmovs %[b], %%ecx\n\tmov (%[p]), %[a]"
                 : [a] "+r"(a) : [b] "r"(b), [p] "r"(p) : "ecx", "cc", "memory");
}

/* ADD's flags replaced by XOR, but a load that faults comes between:
 * ADD must leave its flags for the frame. */
__attribute__((noinline)) static void fault_before_flags_replaced(unsigned a, unsigned b)
{
    unsigned *p = bad;
    asm volatile("add %[b], %[a]\n\tmov (%[p]), %[b]\n\txor %[b], %[b]"
                 : [a] "+r"(a), [b] "+r"(b) : [p] "r"(p) : "cc", "memory");
}

/* The same with DEC, which keeps the CF BT set. */
__attribute__((noinline)) static void fault_before_dec_replaced(unsigned a, unsigned b)
{
    unsigned *p = bad;
    asm volatile("bt $0, %[b]\n\tdec %[a]\n\tmov (%[p]), %[b]\n\tsub %[a], %[b]"
                 : [a] "+r"(a), [b] "+r"(b) : [p] "r"(p) : "cc", "memory");
}

static void faults(void)
{
    static const struct {
        const char *name;
        void (*fn)(unsigned, unsigned);
        int sets_cx; /* else rcx holds whatever the compiler left there */
    } cases[] = {
        { "fault after cmp; setl", fault_after_setcc, 1 },
        { "fault at the fused cmp's load", fault_at_fused_load, 0 },
        { "fault at cmovg's load", fault_at_cmov_load, 0 },
        { "fault after sub; jbe", fault_after_branch, 0 },
        { "fault after inc; cmovs", fault_after_inc_cmov, 1 },
        { "fault between add and xor", fault_before_flags_replaced, 0 },
        { "fault between dec and sub", fault_before_dec_replaced, 0 },
    };
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (unsigned x = 0; x < NEDGE; x += 3)
            for (unsigned y = 1; y < NEDGE; y += 4) {
                fault_ip = fault_flags = fault_cx = 0;
                if (sigsetjmp(back, 1) == 0) {
                    cases[k].fn(edge[x], edge[y]);
                    printf("%s: no fault\n", cases[k].name);
                    continue;
                }
                printf("%s (%#x, %#x): ip +%lu flags %#lx cx %#lx\n", cases[k].name, edge[x], edge[y],
                       (unsigned long)(fault_ip - (uintptr_t)cases[k].fn),
                       (unsigned long)(fault_flags & ARITH),
                       cases[k].sets_cx ? (unsigned long)fault_cx : 0ul);
            }
    signal(SIGSEGV, SIG_DFL);
}

/* ------------------------------------------------------------ a jump into a pair */
/* The first pass runs cmp; jl as a pair, the second jumps to the jl alone
 * after a different comparison. */
__attribute__((noinline)) static unsigned jump_into_pair(unsigned a, unsigned b, unsigned c)
{
    unsigned taken = 0, n, t = 0;
    asm volatile("xor %[n], %[n]\n\t"
                 "cmp %[b], %[a]\n"
                 "5:\tjl 6f\n\t"
                 "inc %[taken]\n"
                 "6:\tsetg %b[t]\n\t"
                 "shl $1, %[t]\n\t"
                 "inc %[n]\n\t"
                 "cmp $2, %[n]\n\t"
                 "jae 7f\n\t"
                 "cmp %[c], %[a]\n\t"
                 "jmp 5b\n"
                 "7:"
                 : [taken] "+r"(taken), [n] "=&r"(n), [t] "+q"(t)
                 : [a] "r"(a), [b] "r"(b), [c] "r"(c)
                 : "cc");
    return taken << 8 | t;
}

int main(void)
{
    pairs_over_edges();
    faults();
    for (unsigned x = 0; x < NEDGE; x++)
        for (unsigned y = 0; y < NEDGE; y += 2)
            printf("jump into cmp; jl (%#x, %#x, %#x): %#x\n", edge[x], edge[y], edge[(x + y) % NEDGE],
                   jump_into_pair(edge[x], edge[y], edge[(x + y) % NEDGE]));
    return 0;
}
