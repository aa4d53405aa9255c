/* Side exits (cpu/chain.h): a conditional branch that does not end its
 * block, compared with the native run in both ABIs.
 * - Flags at a side exit's target: a flag writer (or a compare and a store:
 *   one op, cpu/ops_fused.c), a Jcc of each condition
 *   that leaves the block when taken, and a fall-through that replaces the
 *   flags at once (so the flags are dead there, but not at the target,
 *   which reads them all with PUSHF), over edge values.
 * - Two conditions read from one compare, the second at the first's target.
 * - LOOP, JrCXZ and parity branches as side exits, untaken and taken.
 * - A fault after an untaken side exit in the same block: the signal frame's
 *   instruction pointer and flags.
 * - A block of many untaken side exits, run in a loop. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "edge_values.h"

#ifdef __x86_64__
#define GREG_IP REG_RIP
#define GREG_FL REG_EFL
#else
#define GREG_IP REG_EIP
#define GREG_FL REG_EFL
#endif

#define ARITH 0x8d5u /* CF PF AF ZF SF OF */
#define AF 0x10u

typedef unsigned long word;

/* The first instruction: name, text, AF undefined. */
#define WRITERS(X, cc)                                                                  \
    X(cmp_rr, "cmp %[b], %[a]", 0, cc)                                                  \
    X(cmp_rr8, "cmp %b[b], %b[a]", 0, cc)                                               \
    X(cmp_ri, "cmp $0x7f, %[a]", 0, cc)                                                 \
    X(cmp_mi, "cmpl $-2, %[m]", 0, cc)                                                  \
    X(cmp_mi_st, "cmpl $-2, %[m]\n\tmov %k[b], %[m]", 0, cc)                         \
    X(test_rr, "test %[b], %[a]", 1, cc)                                                \
    X(sub_rr, "sub %[b], %[a]", 0, cc)                                                  \
    X(add_rr16, "add %w[b], %w[a]", 0, cc)                                              \
    X(and_ri, "and $-16, %[a]", 1, cc)                                                  \
    X(or_rr, "or %[b], %[a]", 1, cc)                                                    \
    X(xor_rr8, "xor %b[b], %b[a]", 1, cc)                                               \
    X(inc_r, "inc %[a]", 0, cc)                                                         \
    X(dec_r8, "dec %b[a]", 0, cc)                                                       \
    X(neg_r, "neg %[a]", 0, cc)                                                         \
    X(shl1_r, "shl $1, %[a]", 1, cc)                                                    \
    X(sar1_r, "sar $1, %[a]", 1, cc)

/* One probe per writer and condition: returns the flags the target saw
 * (with bit 16 set), or 0 when the branch was not taken.  The fall-through
 * replaces the flags with its XOR before anything reads them. */
#define PROBE(name, text, undef_af, cc)                                                 \
    static word probe_##name##_##cc(word a, word b, unsigned *m)                        \
    {                                                                                   \
        word f = 0, seen = 0;                                                           \
        __asm__ volatile(text "\n\t"                                                    \
                         "j" #cc " 1f\n\t"                                              \
                         "xor %k[seen], %k[seen]\n\t"                                   \
                         "jmp 2f\n"                                                     \
                         "1:\n\t"                                                       \
                         "pushf\n\t"                                                    \
                         "pop %[f]\n\t"                                                 \
                         "mov $1, %k[seen]\n"                                           \
                         "2:"                                                           \
                         : [f] "+r"(f), [seen] "+r"(seen), [a] "+q"(a), [m] "+m"(*m)    \
                         : [b] "q"(b)                                                   \
                         : "cc");                                                       \
        return seen ? ((f & ARITH & ~(undef_af ? AF : 0u)) | 0x10000) : 0;              \
    }
#define DEF_PROBES(name, text, undef_af, unused)                                        \
    PROBE(name, text, undef_af, o) PROBE(name, text, undef_af, no)                      \
    PROBE(name, text, undef_af, b) PROBE(name, text, undef_af, ae)                      \
    PROBE(name, text, undef_af, e) PROBE(name, text, undef_af, ne)                      \
    PROBE(name, text, undef_af, be) PROBE(name, text, undef_af, a)                      \
    PROBE(name, text, undef_af, s) PROBE(name, text, undef_af, ns)                      \
    PROBE(name, text, undef_af, p) PROBE(name, text, undef_af, np)                      \
    PROBE(name, text, undef_af, l) PROBE(name, text, undef_af, ge)                      \
    PROBE(name, text, undef_af, le) PROBE(name, text, undef_af, g)
WRITERS(DEF_PROBES, 0)

typedef word (*probe_fn)(word, word, unsigned *);
#define TABLE_ROW(name, text, undef_af, unused)                                         \
    { #name,                                                                            \
      { probe_##name##_o, probe_##name##_no, probe_##name##_b, probe_##name##_ae,       \
        probe_##name##_e, probe_##name##_ne, probe_##name##_be, probe_##name##_a,       \
        probe_##name##_s, probe_##name##_ns, probe_##name##_p, probe_##name##_np,       \
        probe_##name##_l, probe_##name##_ge, probe_##name##_le, probe_##name##_g } },
static const struct {
    const char *name;
    probe_fn fn[16];
} probes[] = { WRITERS(TABLE_ROW, 0) };

static void flags_at_targets(void)
{
    for (unsigned w = 0; w < sizeof(probes) / sizeof(probes[0]); w++) {
        printf("%-8s", probes[w].name);
        for (unsigned cc = 0; cc < 16; cc++) {
            word sum = 0, taken = 0;
            for (unsigned i = 0; i < NEDGE; i++)
                for (unsigned j = 0; j < NEDGE; j++) {
                    unsigned m = (unsigned)edge[i];
                    word r = probes[w].fn[cc]((word)edge[i], (word)edge[j], &m);
                    taken += r != 0;
                    sum = sum * 31 + r + m;
                }
            printf(" %lx/%lu", sum & 0xffff, taken);
        }
        printf("\n");
    }
}

/* cmp; jl; jg: the second branch reads the first's flags at the first's
 * fall-through, and a third at the first's target; returns -1, 0 or 1
 * (and 2 or 3 from the target: below / not below unsigned). */
static int two_conditions(word a, word b)
{
    int r;
    __asm__ volatile("cmp %[b], %[a]\n\t"
                     "jl 1f\n\t"
                     "jg 2f\n\t"
                     "xor %[r], %[r]\n\t"
                     "jmp 4f\n"
                     "1:\n\t"
                     "jb 3f\n\t"
                     "mov $-1, %[r]\n\t"
                     "jmp 4f\n"
                     "2:\n\t"
                     "mov $1, %[r]\n\t"
                     "jmp 4f\n"
                     "3:\n\t"
                     "mov $2, %[r]\n"
                     "4:"
                     : [r] "=&r"(r)
                     : [a] "r"(a), [b] "r"(b)
                     : "cc");
    return r;
}

/* LOOP, JrCXZ and JP in one block, around a loop of n rounds: counts what
 * each path saw. */
static word loops_and_parity(word n)
{
    word acc = 0, cx = n, t = 0;
    __asm__ volatile("jecxz 9f\n"
                     "1:\n\t"
                     "mov %[cx], %[t]\n\t"
                     "and $6, %[t]\n\t"
                     "jp 2f\n\t"
                     "add $7, %[acc]\n"
                     "2:\n\t"
                     "add $1, %[acc]\n\t"
                     "loop 1b\n"
                     "9:"
                     : [acc] "+r"(acc), [cx] "+c"(cx), [t] "+r"(t)
                     :
                     : "cc");
    return acc;
}

/* A straight run of untaken side exits (each compare false), then a
 * taken one. */
static word many_exits(word x)
{
    word hits = 0;
    __asm__ volatile("cmp $1, %[x]\n\tje 8f\n\t"
                     "cmp $2, %[x]\n\tje 8f\n\t"
                     "cmp $3, %[x]\n\tje 8f\n\t"
                     "test $0x100, %[x]\n\tjnz 8f\n\t"
                     "cmp $5, %[x]\n\tjb 8f\n\t"
                     "add $2, %[h]\n\t"
                     "cmp $100, %[x]\n\tja 8f\n\t"
                     "add $3, %[h]\n\t"
                     "jmp 9f\n"
                     "8:\n\t"
                     "add $1, %[h]\n"
                     "9:"
                     : [h] "+r"(hits)
                     : [x] "r"(x)
                     : "cc");
    return hits;
}

static sigjmp_buf back;
static volatile word fault_ip, fault_flags;

static void on_segv(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    (void)sig;
    (void)si;
    fault_ip = (word)uc->uc_mcontext.gregs[GREG_IP];
    fault_flags = (word)uc->uc_mcontext.gregs[GREG_FL];
    siglongjmp(back, 1);
}

extern char sideexit_fault_at[];

/* cmp; jne (untaken); a load from an unmapped address in the same block:
 * the fault is at the load, with the compare's flags. */
static __attribute__((noinline)) void fault_after_exit(word x)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    if (sigsetjmp(back, 1) == 0) {
        word bad = 16, v = 0;
        __asm__ volatile("cmp $7, %[x]\n\t"
                         "jne 1f\n\t"
                         ".globl sideexit_fault_at\n"
                         "sideexit_fault_at:\n\t"
                         "mov (%[bad]), %[v]\n"
                         "1:"
                         : [v] "+r"(v)
                         : [x] "r"(x), [bad] "r"(bad)
                         : "cc", "memory");
        printf("fault_after_exit(%lu): no fault\n", x);
    } else {
        printf("fault_after_exit(%lu): at label%+ld, flags %lx\n", x,
               (long)(fault_ip - (word)sideexit_fault_at), fault_flags & ARITH);
    }
}

int main(void)
{
    flags_at_targets();
    for (unsigned i = 0; i < NEDGE; i += 2)
        for (unsigned j = 0; j < NEDGE; j += 3)
            printf("%d", two_conditions((word)edge[i], (word)edge[j]));
    printf("\n");
    for (word n = 0; n < 40; n += 7)
        printf("loops_and_parity(%lu) = %lu\n", n, loops_and_parity(n));
    word hits = 0;
    for (word r = 0; r < 200000; r++)
        hits += many_exits(r % 300);
    printf("many_exits %lu\n", hits);
    fault_after_exit(7);
    fault_after_exit(8);
    return 0;
}
