/* Fused register sequences (cpu/ops_fused_alu.c), compared with the native
 * run in both ABIs: every pair of the fused operations (MOV, MOV imm, LEA,
 * NOT, ADD/SUB/AND/OR/XOR by register and immediate, ROL/ROR/SHL/SHR/SAR
 * by an immediate), 32-bit and (x86_64) 64-bit, the second reading the
 * first's result, then the flags by PUSHF, over edge values with CF set and
 * clear before the pair: one checksum line per pair.  The second half's
 * flags, the first half's where the second writes none (MOV, LEA, NOT) or
 * only CF and OF (ROL, ROR), a first half whose flags are dead, and each
 * pair again with an ADD after it that makes the flags of both dead. */
#include <stdint.h>
#include <stdio.h>

#include "edge_values.h"

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */
#define AF 0x10ul
#define OF 0x800ul

/* Operand templates: %[a] and %[b] at the width of the pair; ADDR(x) is
 * the register x as an address register. */
#ifdef __x86_64__
#define ADDR(x) "%q[" x "]"
#else
#define ADDR(x) "%k[" x "]"
#endif

/* The first half: writes a (from b or an immediate); flags of shifts by
 * more than 1 have OF undefined (a 1 in the last column). */
#define FIRST(X, W, T)                                                                  \
    X(mov, "mov %" W "[b], %" W "[a]", 0, W, T)                                         \
    X(movi, "mov $0x89abcdef, %" W "[a]", 0, W, T)                                      \
    X(lea, "lea 7(" ADDR("a") "," ADDR("b") ",2), %" W "[a]", 0, W, T)                  \
    X(not, "not %" W "[a]", 0, W, T)                                                    \
    X(add, "add %" W "[b], %" W "[a]", 0, W, T)                                         \
    X(sub, "sub %" W "[b], %" W "[a]", 0, W, T)                                         \
    X(and, "and %" W "[b], %" W "[a]", 0, W, T)                                         \
    X(or, "or %" W "[b], %" W "[a]", 0, W, T)                                           \
    X(xor, "xor %" W "[b], %" W "[a]", 0, W, T)                                         \
    X(addi, "add $0x7fffffff, %" W "[a]", 0, W, T)                                      \
    X(subi, "sub $-128, %" W "[a]", 0, W, T)                                            \
    X(andi, "and $-0x7ffff010, %" W "[a]", 0, W, T)                                      \
    X(ori, "or $1, %" W "[a]", 0, W, T)                                                 \
    X(xori, "xor $-1, %" W "[a]", 0, W, T)                                              \
    X(rol, "rol $7, %" W "[a]", 1, W, T)                                                \
    X(ror, "ror $1, %" W "[a]", 0, W, T)                                                \
    X(shl, "shl $1, %" W "[a]", 0, W, T)                                                \
    X(shr, "shr $13, %" W "[a]", 1, W, T)                                               \
    X(sar, "sar $31, %" W "[a]", 1, W, T)

/* The second half: reads a (as its source, or as its destination). */
#define SECOND(X, fname, ftext, fundef, W)                                              \
    X(fname, ftext, fundef, mov, "mov %" W "[a], %" W "[b]", 0)                         \
    X(fname, ftext, fundef, movi, "mov $-5, %" W "[b]", 0)                              \
    X(fname, ftext, fundef, lea, "lea -3(" ADDR("a") "," ADDR("a") ",4), %" W "[b]", 0) \
    X(fname, ftext, fundef, not, "not %" W "[a]", 0)                                    \
    X(fname, ftext, fundef, add, "add %" W "[a], %" W "[b]", 0)                         \
    X(fname, ftext, fundef, sub, "sub %" W "[a], %" W "[b]", 0)                         \
    X(fname, ftext, fundef, and, "and %" W "[a], %" W "[b]", 0)                         \
    X(fname, ftext, fundef, or, "or %" W "[a], %" W "[b]", 0)                           \
    X(fname, ftext, fundef, xor, "xor %" W "[a], %" W "[b]", 0)                         \
    X(fname, ftext, fundef, addi, "add $1, %" W "[a]", 0)                               \
    X(fname, ftext, fundef, subi, "sub $0x7fffffff, %" W "[a]", 0)                      \
    X(fname, ftext, fundef, andi, "and $-2, %" W "[a]", 0)                              \
    X(fname, ftext, fundef, ori, "or $-0x80000000, %" W "[a]", 0)                        \
    X(fname, ftext, fundef, xori, "xor $0x55, %" W "[a]", 0)                            \
    X(fname, ftext, fundef, rol, "rol $1, %" W "[a]", 0)                                \
    X(fname, ftext, fundef, ror, "ror $25, %" W "[a]", 1)                               \
    X(fname, ftext, fundef, shl, "shl $4, %" W "[a]", 1)                                \
    X(fname, ftext, fundef, shr, "shr $1, %" W "[a]", 0)                                \
    X(fname, ftext, fundef, sar, "sar $3, %" W "[b]", 1)

struct pair_case {
    const char *name;
    unsigned long mask; /* the flags compared */
    unsigned long (*fn)(unsigned long *a, unsigned long *b, unsigned long cf);
};

/* after: what follows the pair ("" or DEAD, which makes the flags of both
 * halves dead: the pair's handler without flags records). */
#define GEN_CASE_AFTER(T, fname, ftext, sname, stext, after, tag)                       \
    static unsigned long p_##T##_##fname##_##sname##tag(unsigned long *pa, unsigned long *pb, \
                                                       unsigned long cf)                \
    {                                                                                   \
        T a = (T)*pa, b = (T)*pb;                                                       \
        unsigned long fl;                                                               \
        asm volatile("cmp $1, %[cf]\n\t" ftext "\n\t" stext after "\n\tpushf\n\tpop %[fl]" \
                     : [fl] "=&r"(fl), [a] "+r"(a), [b] "+r"(b)                          \
                     : [cf] "r"(cf)                                                     \
                     : "cc");                                                           \
        *pa = a;                                                                        \
        *pb = b;                                                                        \
        return fl;                                                                      \
    }
#define DEAD "\n\tadd $1, %[b]"
#define GEN_CASE(T, fname, ftext, fundef, sname, stext, sundef)                         \
    GEN_CASE_AFTER(T, fname, ftext, sname, stext, "", )                                 \
    GEN_CASE_AFTER(T, fname, ftext, sname, stext, DEAD, _dead)
#define ROW_CASE(T, fname, ftext, fundef, sname, stext, sundef)                         \
    { #T " " #fname "; " #sname, ARITH & ~AF & ((fundef) || (sundef) ? ~OF : ~0ul),     \
      p_##T##_##fname##_##sname },                                                      \
    { #T " " #fname "; " #sname "; add", ARITH & ~AF, p_##T##_##fname##_##sname##_dead },

#define GEN32(fname, ftext, fundef, sname, stext, sundef) GEN_CASE(uint32_t, fname, ftext, fundef, sname, stext, sundef)
#define ROW32(fname, ftext, fundef, sname, stext, sundef) ROW_CASE(uint32_t, fname, ftext, fundef, sname, stext, sundef)
#define FIRST_GEN(fname, ftext, fundef, W, X) SECOND(X, fname, ftext, fundef, W)
FIRST(FIRST_GEN, "k", GEN32)
static const struct pair_case cases32[] = { FIRST(FIRST_GEN, "k", ROW32) };

#ifdef __x86_64__
#define GEN64(fname, ftext, fundef, sname, stext, sundef) GEN_CASE(uint64_t, fname, ftext, fundef, sname, stext, sundef)
#define ROW64(fname, ftext, fundef, sname, stext, sundef) ROW_CASE(uint64_t, fname, ftext, fundef, sname, stext, sundef)
FIRST(FIRST_GEN, "q", GEN64)
static const struct pair_case cases64[] = { FIRST(FIRST_GEN, "q", ROW64) };
#endif

static void run(const struct pair_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t sum = 0;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++)
                for (unsigned long cf = 0; cf < 2; cf++) {
                    unsigned long a = (unsigned long)edge[x], b = (unsigned long)edge[y];
                    unsigned long fl = cases[i].fn(&a, &b, cf);
                    sum = sum * 1000003 + (fl & cases[i].mask);
                    sum = sum * 1000003 + a;
                    sum = sum * 1000003 + b;
                }
        printf("%s: %016llx\n", cases[i].name, (unsigned long long)sum);
    }
}

int main(void)
{
    run(cases32, sizeof(cases32) / sizeof(cases32[0]));
#ifdef __x86_64__
    run(cases64, sizeof(cases64) / sizeof(cases64[0]));
#endif
    return 0;
}
