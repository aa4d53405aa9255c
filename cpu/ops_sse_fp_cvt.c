/* SSE/SSE2 conversions (legacy encodings): CVTSI2SS/SD, CVT(T)SS2SI,
 * CVT(T)SD2SI, CVTSS2SD, CVTSD2SS, CVTPS2PD, CVTPD2PS, CVTDQ2PS, CVT(T)PS2DQ,
 * CVTDQ2PD, CVT(T)PD2DQ, and the MMX forms CVTPI2PS, CVT(T)PS2PI, CVTPI2PD,
 * CVT(T)PD2PI.
 *
 * All run a host conversion instruction under the guest's MXCSR
 * (cpu/sse_fp.h): rounding, DAZ, the integer indefinite value 80000000H /
 * 8000000000000000H with IE for NaNs and out-of-range values, PE, are the
 * hardware's.  The MMX forms are computed with the XMM instruction that
 * does the same conversion on the low two elements (CVTDQ2PS, CVTPS2DQ...):
 * the elements added to fill the vector are zeros, which convert exactly
 * and raise nothing, and the host's own x87/MMX state is never touched. */
#include "cpu/sse_fp.h"

/* ------------------------------------------------------------ xmm <- xmm/mem */
/* mnemonic, host instruction, memory source kind, tiny results (only
 * the narrowing CVTSD2SS/CVTPD2PS can underflow) */
#define CVT_XM_LIST(X)                                                                  \
    X(CVTSS2SD, cvtss2sd, S, NONE) X(CVTSD2SS, cvtsd2ss, Q, SS)                         \
    X(CVTPS2PD, cvtps2pd, Q, NONE) X(CVTPD2PS, cvtpd2ps, P, PS2)                        \
    X(CVTDQ2PS, cvtdq2ps, P, NONE) X(CVTPS2DQ, cvtps2dq, P, NONE)                       \
    X(CVTTPS2DQ, cvttps2dq, P, NONE) X(CVTDQ2PD, cvtdq2pd, Q, NONE)                     \
    X(CVTPD2DQ, cvtpd2dq, P, NONE) X(CVTTPD2DQ, cvttpd2dq, P, NONE)

#define GEN_CVT(MN, insn, M, T) SSE_GEN_XM(insn, M, SSE_TINY_##T)
CVT_XM_LIST(GEN_CVT)
#undef GEN_CVT

/* ------------------------------------------------------------ xmm <- r/m32, r/m64
 * The low element is converted, the rest of the destination is kept. */
#define GEN_CVTSI(insn, B)                                                              \
    static inline void cvtsi_##insn##_##B(struct cpu *c, const struct op *op,           \
                                          int##B##_t v)                                 \
    {                                                                                   \
        __m128 d = XMM(c, op->x1);                                                      \
        SSE_EXEC(c, __asm__ volatile(#insn "%z1 %1, %0" : "+x"(d) : "r"(v)), );         \
        XMM(c, op->x1) = d;                                                             \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##insn##_r##B(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        cvtsi_##insn##_##B(c, op, (int##B##_t)GPR##B(c, op->r2));                       \
    }                                                                                   \
    static void op_##insn##_m##B(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        cvtsi_##insn##_##B(c, op, (int##B##_t)load##B(c, op_ea(c, op)));                \
    }
GEN_CVTSI(cvtsi2ss, 32)
GEN_CVTSI(cvtsi2ss, 64)
GEN_CVTSI(cvtsi2sd, 32)
GEN_CVTSI(cvtsi2sd, 64)

/* ------------------------------------------------------------ r32/r64 <- xmm/mem */
#define GEN_CVT2SI(insn, M, B)                                                          \
    static inline void cvt2si_##insn##_##B(struct cpu *c, const struct op *op,         \
                                           __m128 s)                                    \
    {                                                                                   \
        int##B##_t r;                                                                   \
        SSE_EXEC(c, __asm__ volatile(#insn " %1, %0" : "=r"(r) : "x"(s)), );            \
        set_gpr##B(c, op->r1, (uint##B##_t)r);                                          \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##insn##_##B##_x(struct cpu *c, const struct op *op)                 \
    {                                                                                   \
        cvt2si_##insn##_##B(c, op, XMM(c, op->x2));                                     \
    }                                                                                   \
    static void op_##insn##_##B##_m(struct cpu *c, const struct op *op)                 \
    {                                                                                   \
        cvt2si_##insn##_##B(c, op, SSE_SRC_##M(c, op));                                 \
    }
#define GEN_CVT2SI_BOTH(insn, M) GEN_CVT2SI(insn, M, 32) GEN_CVT2SI(insn, M, 64)
GEN_CVT2SI_BOTH(cvtss2si, S)
GEN_CVT2SI_BOTH(cvttss2si, S)
GEN_CVT2SI_BOTH(cvtsd2si, Q)
GEN_CVT2SI_BOTH(cvttsd2si, Q)

/* ------------------------------------------------------------ MMX forms
 * An MMX register operand makes the instruction an MMX one: the x87 TOP
 * becomes 0 and every tag valid (SDM vol. 2, CVTPI2PS; vol. 1, 9.5.1),
 * and a written MMX register reads back with exponent and sign all ones.
 * With a memory source CVTPI2PS/CVTPI2PD leave the x87 state alone: the
 * SDM's text does not single the form out, but that is what the processor
 * does (checked on the host; the test suite compares it). */
static inline uint64_t low64(__m128 v)
{
    return (uint64_t)_mm_cvtsi128_si64(_mm_castps_si128(v));
}

static inline __m128 from64(uint64_t v)
{
    return _mm_castsi128_ps(_mm_cvtsi64_si128((long long)v));
}

/* CVTPI2PS: two int32 -> two floats in the low half, the high half kept. */
static inline void cvtpi2ps(struct cpu *c, const struct op *op, uint64_t v)
{
    __m128 r = _mm_setzero_ps(), s = from64(v);
    SSE_RUN(c, "cvtdq2ps", r, s);
    c->xmm[op->x1].q[0] = low64(r);
}
static void op_cvtpi2ps_x(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    cvtpi2ps(c, op, *mmx_reg(c, op->x2));
    mmx_enter(c);
    NEXT(c, op);
}
static void op_cvtpi2ps_m(struct cpu *c, const struct op *op)
{
    cvtpi2ps(c, op, load64(c, op_ea(c, op)));
    NEXT(c, op);
}

/* CVTPI2PD: two int32 -> two doubles (exact: raises nothing). */
static inline void cvtpi2pd(struct cpu *c, const struct op *op, uint64_t v)
{
    __m128 r = _mm_setzero_ps(), s = from64(v);
    SSE_RUN(c, "cvtdq2pd", r, s);
    XMM(c, op->x1) = r;
}
static void op_cvtpi2pd_x(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    cvtpi2pd(c, op, *mmx_reg(c, op->x2));
    mmx_enter(c);
    NEXT(c, op);
}
static void op_cvtpi2pd_m(struct cpu *c, const struct op *op)
{
    cvtpi2pd(c, op, load64(c, op_ea(c, op)));
    NEXT(c, op);
}

/* CVT(T)PS2PI mm, xmm/m64 and CVT(T)PD2PI mm, xmm/m128: the XMM conversion
 * of the low two elements (the high half of a PS source is dropped, so it
 * cannot raise anything), its low 64 bits to the MMX register. */
static inline void mmx_commit(struct cpu *c, const struct op *op, __m128 r)
{
    mmx_enter(c);
    *mmx_reg(c, op->x1) = low64(r);
    mmx_written(c, op->x1);
    NEXT(c, op);
}

#define GEN_TO_PI(name, xmm_insn, lowhalf, M)                                           \
    static inline void to_pi_##name(struct cpu *c, const struct op *op, __m128 s)       \
    {                                                                                   \
        mmx_check_pending(c); /* #MF before anything happens */                         \
        if (lowhalf)                                                                    \
            s = from64(low64(s));                                                       \
        __m128 r = _mm_setzero_ps();                                                    \
        SSE_RUN(c, xmm_insn, r, s);                                                     \
        mmx_commit(c, op, r);                                                           \
    }                                                                                   \
    static void op_##name##_x(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        to_pi_##name(c, op, XMM(c, op->x2));                                            \
    }                                                                                   \
    static void op_##name##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        to_pi_##name(c, op, SSE_SRC_##M(c, op));                                        \
    }
GEN_TO_PI(cvtps2pi, "cvtps2dq", true, Q)
GEN_TO_PI(cvttps2pi, "cvttps2dq", true, Q)
GEN_TO_PI(cvtpd2pi, "cvtpd2dq", false, P)
GEN_TO_PI(cvttpd2pi, "cvttpd2dq", false, P)

/* ------------------------------------------------------------ decoding */
const cpu_handler sse_cvtsi2sd_r[2] = { op_cvtsi2sd_r32, op_cvtsi2sd_r64 };

static const cpu_handler cvtsi_h[2][4] = {
    { op_cvtsi2ss_r32, op_cvtsi2ss_m32, op_cvtsi2ss_r64, op_cvtsi2ss_m64 },
    { op_cvtsi2sd_r32, op_cvtsi2sd_m32, op_cvtsi2sd_r64, op_cvtsi2sd_m64 },
};

/* CVTSI2SS/SD xmm, r/m32 or r/m64 (REX.W). */
static bool dec_cvtsi(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    int x = dec_xmm(d, 0);
    unsigned w = d->ops[1].size == 64 ? 2 : 0;
    if (x < 0 || (d->ops[1].size != 32 && d->ops[1].size != 64))
        return false;
    op->x1 = (uint8_t)x;
    if (is_reg(d, 1)) {
        op->fn = cvtsi_h[which][w];
        return dec_reg_op(d, 1, &op->r2);
    }
    op->fn = cvtsi_h[which][w + 1];
    return dec_mem_op(d, 1);
}

#define CVT2SI_ROW(insn) { op_##insn##_32_x, op_##insn##_32_m, op_##insn##_64_x, op_##insn##_64_m }
static const cpu_handler cvt2si_h[4][4] = {
    CVT2SI_ROW(cvtss2si), CVT2SI_ROW(cvttss2si), CVT2SI_ROW(cvtsd2si), CVT2SI_ROW(cvttsd2si),
};

/* CVT(T)SS2SI/CVT(T)SD2SI r32/r64, xmm/mem. */
static bool dec_cvt2si(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    unsigned w = d->ops[0].size == 64 ? 2 : 0;
    if (!dec_reg_op(d, 0, &op->r1) || (d->ops[0].size != 32 && d->ops[0].size != 64))
        return false;
    int x = dec_xmm(d, 1);
    if (x >= 0) {
        op->x2 = (uint8_t)x;
        op->fn = cvt2si_h[which][w];
        return true;
    }
    op->fn = cvt2si_h[which][w + 1];
    return dec_mem_op(d, 1);
}

/* CVTPI2PS/CVTPI2PD xmm, mm/m64. */
static bool dec_from_pi(struct decoder *d, cpu_handler rr, cpu_handler rm)
{
    struct op *op = d->op;
    int x = dec_xmm(d, 0), m = dec_mmx_reg(d, 1);
    if (x < 0)
        return false;
    op->x1 = (uint8_t)x;
    if (m >= 0) {
        op->x2 = (uint8_t)m;
        op->fn = rr;
        return true;
    }
    op->fn = rm;
    return dec_mem_op(d, 1);
}

/* CVT(T)PS2PI/CVT(T)PD2PI mm, xmm/mem. */
static bool dec_to_pi(struct decoder *d, cpu_handler rr, cpu_handler rm)
{
    struct op *op = d->op;
    int m = dec_mmx_reg(d, 0), x = dec_xmm(d, 1);
    if (m < 0)
        return false;
    op->x1 = (uint8_t)m;
    if (x >= 0) {
        op->x2 = (uint8_t)x;
        op->fn = rr;
        return true;
    }
    op->fn = rm;
    return dec_mem_op(d, 1);
}

bool dec_sse_fp_cvt(struct decoder *d)
{
    switch (d->in->mnemonic) {
#define CASE(MN, insn, M, T)                                                            \
    case ZYDIS_MNEMONIC_##MN:                                                           \
        return sse_dec_xm(d, op_##insn##_x, op_##insn##_m);
    CVT_XM_LIST(CASE)
#undef CASE
    case ZYDIS_MNEMONIC_CVTSI2SS: return dec_cvtsi(d, 0);
    case ZYDIS_MNEMONIC_CVTSI2SD: return dec_cvtsi(d, 1);
    case ZYDIS_MNEMONIC_CVTSS2SI: return dec_cvt2si(d, 0);
    case ZYDIS_MNEMONIC_CVTTSS2SI: return dec_cvt2si(d, 1);
    case ZYDIS_MNEMONIC_CVTSD2SI: return dec_cvt2si(d, 2);
    case ZYDIS_MNEMONIC_CVTTSD2SI: return dec_cvt2si(d, 3);
    case ZYDIS_MNEMONIC_CVTPI2PS: return dec_from_pi(d, op_cvtpi2ps_x, op_cvtpi2ps_m);
    case ZYDIS_MNEMONIC_CVTPI2PD: return dec_from_pi(d, op_cvtpi2pd_x, op_cvtpi2pd_m);
    case ZYDIS_MNEMONIC_CVTPS2PI: return dec_to_pi(d, op_cvtps2pi_x, op_cvtps2pi_m);
    case ZYDIS_MNEMONIC_CVTTPS2PI: return dec_to_pi(d, op_cvttps2pi_x, op_cvttps2pi_m);
    case ZYDIS_MNEMONIC_CVTPD2PI: return dec_to_pi(d, op_cvtpd2pi_x, op_cvtpd2pi_m);
    case ZYDIS_MNEMONIC_CVTTPD2PI: return dec_to_pi(d, op_cvttpd2pi_x, op_cvttpd2pi_m);
    default: return false;
    }
}
