/* SSE/SSE2 floating-point arithmetic and compares (legacy encodings):
 * ADD SUB MUL DIV SQRT MIN MAX in PS/SS/PD/SD, RCPPS/RCPSS/RSQRTPS/RSQRTSS,
 * CMPPS/CMPSS/CMPPD/CMPSD (predicate imm8[2:0]), COMISS/UCOMISS/COMISD/UCOMISD.
 *
 * Every one of them runs the host instruction of the same name on the
 * guest's operands under the guest's MXCSR (cpu/sse_fp.h), which gives the
 * hardware's results bit for bit: rounding, DAZ/FTZ, NaN propagation
 * (SDM vol. 1, 4.8.3.5 and table 4-7), MIN/MAX returning the second operand
 * when either is a NaN or both are zeros (SDM vol. 2, MINPS/MAXPS), the
 * host's RCP/RSQRT approximations, and the exception flags. */
#include "cpu/block.h"
#include "cpu/flags.h"
#include "cpu/sse_fp.h"

/* mnemonic, host instruction, memory source kind, where a tiny result
 * can appear (MIN/MAX return an operand, SQRT of anything is not tiny,
 * RCP/RSQRT flush tiny results to zero and raise nothing: SDM vol. 2) */
#define ARITH_LIST(X)                                                                   \
    X(ADDPS, addps, P, PS) X(ADDSS, addss, S, SS)                                       \
    X(ADDPD, addpd, P, PD) X(ADDSD, addsd, Q, SD)                                       \
    X(SUBPS, subps, P, PS) X(SUBSS, subss, S, SS)                                       \
    X(SUBPD, subpd, P, PD) X(SUBSD, subsd, Q, SD)                                       \
    X(MULPS, mulps, P, PS) X(MULSS, mulss, S, SS)                                       \
    X(MULPD, mulpd, P, PD) X(MULSD, mulsd, Q, SD)                                       \
    X(DIVPS, divps, P, PS) X(DIVSS, divss, S, SS)                                       \
    X(DIVPD, divpd, P, PD) X(DIVSD, divsd, Q, SD)                                       \
    X(MINPS, minps, P, NONE) X(MINSS, minss, S, NONE)                                   \
    X(MINPD, minpd, P, NONE) X(MINSD, minsd, Q, NONE)                                   \
    X(MAXPS, maxps, P, NONE) X(MAXSS, maxss, S, NONE)                                   \
    X(MAXPD, maxpd, P, NONE) X(MAXSD, maxsd, Q, NONE)                                   \
    X(SQRTPS, sqrtps, P, NONE) X(SQRTSS, sqrtss, S, NONE)                               \
    X(SQRTPD, sqrtpd, P, NONE) X(SQRTSD, sqrtsd, Q, NONE)                               \
    X(RCPPS, rcpps, P, NONE) X(RCPSS, rcpss, S, NONE)                                   \
    X(RSQRTPS, rsqrtps, P, NONE) X(RSQRTSS, rsqrtss, S, NONE)

#define GEN_ARITH(MN, insn, M, T) SSE_GEN_XM(insn, M, SSE_TINY_##T)
ARITH_LIST(GEN_ARITH)
#undef GEN_ARITH

/* ------------------------------------------------------------ CMPxx imm8
 * One handler per predicate (the host instruction needs it as an
 * immediate).  The legacy encodings take the predicate from imm8[2:0]
 * and ignore the rest (SDM vol. 2, CMPPS/CMPSS opcode table: "using bits
 * 2:0 of imm8 as comparison predicate"; the 32 predicates are VEX's). */
#define GEN_CMP_PRED(insn, M, k) SSE_GEN_XM_AS(insn##_##k, #insn " $" #k ",", M, SSE_TINY_NONE)
#define GEN_CMP(insn, M)                                                                \
    GEN_CMP_PRED(insn, M, 0) GEN_CMP_PRED(insn, M, 1) GEN_CMP_PRED(insn, M, 2)          \
    GEN_CMP_PRED(insn, M, 3) GEN_CMP_PRED(insn, M, 4) GEN_CMP_PRED(insn, M, 5)          \
    GEN_CMP_PRED(insn, M, 6) GEN_CMP_PRED(insn, M, 7)
GEN_CMP(cmpps, P)
GEN_CMP(cmpss, S)
GEN_CMP(cmppd, P)
GEN_CMP(cmpsd, Q)

#define CMP_ROW(insn, k) { op_##insn##_##k##_x, op_##insn##_##k##_m }
#define CMP_TABLE(insn)                                                                 \
    { CMP_ROW(insn, 0), CMP_ROW(insn, 1), CMP_ROW(insn, 2), CMP_ROW(insn, 3),           \
      CMP_ROW(insn, 4), CMP_ROW(insn, 5), CMP_ROW(insn, 6), CMP_ROW(insn, 7) }
enum { C_PS, C_SS, C_PD, C_SD };
static const cpu_handler cmp_h[4][8][2] = {
    CMP_TABLE(cmpps), CMP_TABLE(cmpss), CMP_TABLE(cmppd), CMP_TABLE(cmpsd),
};

/* ------------------------------------------------------------ COMIS/UCOMIS
 * ZF, PF, CF from the unordered compare (unordered: all three set), OF,
 * SF and AF cleared (SDM vol. 2, COMISS).  The host's flags are read
 * through asm flag outputs, only to learn the comparison's outcome under
 * DAZ; the guest's flags are then set explicitly. */
#define GEN_COMI(insn, M)                                                               \
    static inline void comi_##insn(struct cpu *c, const struct op *op, __m128 d,        \
                                   __m128 s)                                            \
    {                                                                                   \
        bool zf, pf, cf;                                                                \
        SSE_EXEC(c, __asm__ volatile(#insn " %4, %3" : "=@ccz"(zf), "=@ccp"(pf),        \
                                     "=@ccc"(cf) : "x"(d), "x"(s)), );                  \
        cpu_set_arith(c, (zf ? FL_ZF : 0) | (pf ? FL_PF : 0) | (cf ? FL_CF : 0),        \
                      FL_ARITH);                                                        \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##insn##_x(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        comi_##insn(c, op, XMM(c, op->x1), XMM(c, op->x2));                             \
    }                                                                                   \
    static void op_##insn##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        __m128 s = SSE_SRC_##M(c, op);                                                  \
        comi_##insn(c, op, XMM(c, op->x1), s);                                          \
    }
GEN_COMI(comiss, S)
GEN_COMI(ucomiss, S)
GEN_COMI(comisd, Q)
GEN_COMI(ucomisd, Q)

/* ------------------------------------------------------------ fused pairs
 * Two scalar-double instructions in a row, the second (register form)
 * reading the first's destination -- as its destination (D), its source
 * (S) or both (DS) -- run as one handler, so that the value goes from one
 * to the next in a host register instead of through struct cpu (a store
 * and a dependent load per link of the chain).  Only while the guest's
 * MXCSR is live (every exception masked: neither can fault but for the
 * first one's memory operand, read before anything is written); else the
 * first instruction's own handler runs and the second's follows as usual.
 * The pair keeps both ops: the block's instruction count and the second
 * instruction's op are unchanged, and rip passes both. */
#define FZ_SRC_x(c, op) XMM(c, (op)->x2)
#define FZ_SRC_m(c, op) sse_src_m64(c, op)
#define FZ_D_D(c, ob, a) (a)
#define FZ_S_D(c, ob, a) XMM(c, (ob)->x2)
#define FZ_D_S(c, ob, a) XMM(c, (ob)->x1)
#define FZ_S_S(c, ob, a) (a)
#define FZ_D_DS(c, ob, a) (a)
#define FZ_S_DS(c, ob, a) (a)
#define FZ_ONE(A, F, B, V)                                                              \
    static void op_fz_##A##_##F##_##B##_##V(struct cpu *c, const struct op *op)         \
    {                                                                                   \
        if (UNLIKELY(!c->mxcsr_live)) {                                                 \
            op_##A##_##F(c, op);                                                        \
            return;                                                                     \
        }                                                                               \
        __m128 s = FZ_SRC_##F(c, op), a = XMM(c, op->x1);                               \
        k_##A(&a, s);                                                                   \
        XMM(c, op->x1) = a;                                                             \
        const struct op *ob = op + 1;                                                   \
        __m128 d = FZ_D_##V(c, ob, a), t = FZ_S_##V(c, ob, a);                          \
        k_##B(&d, t);                                                                   \
        XMM(c, ob->x1) = d;                                                             \
        c->rip += op->len;                                                              \
        NEXT(c, ob);                                                                    \
    }
#define FZ_KINDS(X, ...) X(__VA_ARGS__, addsd) X(__VA_ARGS__, subsd) X(__VA_ARGS__, mulsd) \
                         X(__VA_ARGS__, divsd)
#define FZ_VARIANTS(A, F, B) FZ_ONE(A, F, B, D) FZ_ONE(A, F, B, S) FZ_ONE(A, F, B, DS)
#define FZ_SECOND(A, F) FZ_KINDS(FZ_VARIANTS, A, F)
#define FZ_FIRST(A) FZ_SECOND(A, x) FZ_SECOND(A, m)
FZ_FIRST(addsd)
FZ_FIRST(subsd)
FZ_FIRST(mulsd)
FZ_FIRST(divsd)

#define FZ_ROW_V(A, F, B) { op_fz_##A##_##F##_##B##_D, op_fz_##A##_##F##_##B##_S, op_fz_##A##_##F##_##B##_DS },
#define FZ_ROW_B(A, F) { FZ_KINDS(FZ_ROW_V, A, F) }
#define FZ_ROW_A(A) { FZ_ROW_B(A, x), FZ_ROW_B(A, m) },
enum { FZ_D, FZ_S, FZ_DS };
static const cpu_handler fused[4][2][4][3] = { FZ_ROW_A(addsd) FZ_ROW_A(subsd) FZ_ROW_A(mulsd)
                                                   FZ_ROW_A(divsd) };
/* The handlers of the fusable kinds, in the order of the table: register
 * and memory forms. */
static const cpu_handler fz_kind[4][2] = { { op_addsd_x, op_addsd_m }, { op_subsd_x, op_subsd_m },
                                           { op_mulsd_x, op_mulsd_m }, { op_divsd_x, op_divsd_m } };

static int fz_find(cpu_handler fn, unsigned form)
{
    for (int k = 0; k < 4; k++)
        if (fz_kind[k][form] == fn)
            return k;
    return -1;
}

void sse_fuse_pairs(struct op *ops, unsigned n)
{
    for (unsigned i = 0; i + 1 < n; i++) {
        int a = fz_find(ops[i].fn, 0), form = 0, b = fz_find(ops[i + 1].fn, 0);
        if (a < 0) {
            a = fz_find(ops[i].fn, 1);
            form = 1;
        }
        if (a < 0 || b < 0)
            continue;
        bool d = ops[i + 1].x1 == ops[i].x1, s = ops[i + 1].x2 == ops[i].x1;
        if (!d && !s)
            continue;
        ops[i].fn = fused[a][form][b][d && s ? FZ_DS : d ? FZ_D : FZ_S];
        i++; /* the second op is part of the pair */
    }
}

/* ------------------------------------------------------------ decoding */
static bool dec_cmp(struct decoder *d, unsigned which)
{
    if (d->in->operand_count_visible != 3 || !is_imm(d, 2))
        return false; /* string CMPSD */
    unsigned k = (unsigned)dec_imm(d, 2) & 7;
    return sse_dec_xm(d, cmp_h[which][k][0], cmp_h[which][k][1]);
}

bool dec_sse_fp_arith(struct decoder *d)
{
    switch (d->in->mnemonic) {
#define CASE(MN, insn, M, T)                                                            \
    case ZYDIS_MNEMONIC_##MN:                                                           \
        return sse_dec_xm(d, op_##insn##_x, op_##insn##_m);
    ARITH_LIST(CASE)
    CASE(COMISS, comiss, S, NONE)
    CASE(UCOMISS, ucomiss, S, NONE)
    CASE(COMISD, comisd, Q, NONE)
    CASE(UCOMISD, ucomisd, Q, NONE)
#undef CASE
    case ZYDIS_MNEMONIC_CMPPS: return dec_cmp(d, C_PS);
    case ZYDIS_MNEMONIC_CMPSS: return dec_cmp(d, C_SS);
    case ZYDIS_MNEMONIC_CMPPD: return dec_cmp(d, C_PD);
    case ZYDIS_MNEMONIC_CMPSD: return dec_cmp(d, C_SD);
    default: return false;
    }
}
