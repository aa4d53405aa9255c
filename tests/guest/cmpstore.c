/* Compare, store, branch (cpu/ops_fused.c TRIPLE_FORMS): CMP [m], imm;
 * MOV [m], r32; Jcc, compared with the native run in both ABIs (ia32 runs
 * them as one op).  Every condition (parity too, which is not fused) after
 * a compare with an 8-bit and a 32-bit immediate at the edges of the
 * flags, over edge values in memory: the branch taken or not, the flags
 * the compare leaves read by PUSHF after the branch on both paths, and the
 * memory; a store to the compared word itself (the branch still sees the
 * old value), and the flags made dead after the branch.  Faults in the
 * compare and in the store are in memfused.c. */
#include <stdint.h>
#include <stdio.h>

#include "edge_values.h"

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */

/* X(cc, ...) for every condition code. */
#define CONDS(X, ...)                                                                   \
    X(o, __VA_ARGS__) X(no, __VA_ARGS__) X(b, __VA_ARGS__) X(ae, __VA_ARGS__)           \
    X(e, __VA_ARGS__) X(ne, __VA_ARGS__) X(be, __VA_ARGS__) X(a, __VA_ARGS__)           \
    X(s, __VA_ARGS__) X(ns, __VA_ARGS__) X(p, __VA_ARGS__) X(np, __VA_ARGS__)           \
    X(l, __VA_ARGS__) X(ge, __VA_ARGS__) X(le, __VA_ARGS__) X(g, __VA_ARGS__)

/* The immediates: 8-bit (sign-extended) and 32-bit encodings. */
#define IMMS(X, cc)                                                                     \
    X(cc, i0, "0") X(cc, i1, "1") X(cc, i40, "0x40") X(cc, im1, "-1")                   \
    X(cc, imax, "0x7fffffff") X(cc, imin, "-0x80000000")

/* The variants: the store next to the compared word, the store over it,
 * and the flags overwritten after the branch (dead). */
#define STORE_NEXT "movl %[a], 4(%[p])\n\t"
#define STORE_OVER "movl %[a], (%[p])\n\t"
#define KILL_FLAGS "add $1, %[s]\n\t"

struct out {
    unsigned long fl;
    uint32_t taken, s;
};

#define GEN_CASE(name, cc, imm, store, after)                                           \
    static void name(uint32_t *m, uint32_t a, struct out *o)                            \
    {                                                                                   \
        unsigned long fl;                                                               \
        uint32_t taken = 1, s = a;                                                      \
        asm volatile("cmpl $" imm ", (%[p])\n\t" store "j" #cc " 1f\n\t"                 \
                     "movl $0, %[t]\n"                                                  \
                     "1:\n\t" after "pushf\n\tpop %[fl]"                                \
                     : [fl] "=&r"(fl), [t] "+r"(taken), [s] "+r"(s)                     \
                     : [p] "r"(m), [a] "r"(a)                                           \
                     : "cc", "memory");                                                 \
        o->fl = fl;                                                                     \
        o->taken = taken;                                                               \
        o->s = s;                                                                       \
    }
#define GEN_IMM(cc, iname, imm) GEN_CASE(t_##cc##_##iname, cc, imm, STORE_NEXT, "")
#define GEN_CC(cc, _)                                                                   \
    IMMS(GEN_IMM, cc)                                                                   \
    GEN_CASE(over_##cc, cc, "0x40", STORE_OVER, "")                                     \
    GEN_CASE(dead_##cc, cc, "-1", STORE_NEXT, KILL_FLAGS)
CONDS(GEN_CC, 0)

struct tcase {
    const char *name;
    void (*fn)(uint32_t *m, uint32_t a, struct out *o);
};
#define ROW_IMM(cc, iname, imm) { "cmp $" imm "; store; j" #cc, t_##cc##_##iname },
#define ROW_CC(cc, _)                                                                   \
    IMMS(ROW_IMM, cc)                                                                   \
    { "cmp $0x40; store over it; j" #cc, over_##cc },                                   \
    { "cmp $-1; store; j" #cc "; add", dead_##cc },
static const struct tcase cases[] = { CONDS(ROW_CC, 0) };

int main(void)
{
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        uint64_t sum = 0;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++) {
                uint32_t m[2] = { (uint32_t)edge[x], (uint32_t)edge[(x + 5) % NEDGE] };
                struct out o;
                cases[k].fn(m, (uint32_t)edge[y], &o);
                sum = sum * 1000003 + (o.fl & ARITH);
                sum = sum * 1000003 + o.taken;
                sum = sum * 1000003 + o.s;
                sum = sum * 1000003 + m[0];
                sum = sum * 1000003 + m[1];
            }
        printf("%s: %016llx\n", cases[k].name, (unsigned long long)sum);
    }
    return 0;
}
