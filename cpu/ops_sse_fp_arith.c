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
