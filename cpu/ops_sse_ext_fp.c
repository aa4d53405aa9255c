/* SSE3 and SSE4.1 floating-point arithmetic: ADDSUBPS/PD, HADDPS/PD,
 * HSUBPS/PD, ROUNDPS/PD/SS/SD, DPPS, DPPD.
 *
 * None of them uses a host instruction newer than SSE2 (the CI machine's
 * CPU is unknown): each is composed, exactly, of the scalar SSE/SSE2
 * operations its SDM pseudo-code is made of, executed by the host under
 * the guest's MXCSR (cpu/sse_ext.h, sx_addss...).  A packed operation
 * rounds, flushes and flags each element independently, so its result is
 * the scalar results side by side and its exception flags their union;
 * when two NaNs meet, the first operand of the pseudo-code's operation
 * wins, as it does in the hardware. */
#include "cpu/sse_ext.h"

/* ------------------------------------------------------------ SSE3 */
/* ADDSUBPS/PD: even elements subtract, odd elements add. */
static inline void k_addsubps(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->f[0] = sx_subss(d->f[0], s->f[0]);
    r->f[1] = sx_addss(d->f[1], s->f[1]);
    r->f[2] = sx_subss(d->f[2], s->f[2]);
    r->f[3] = sx_addss(d->f[3], s->f[3]);
}
static inline void k_addsubpd(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->df[0] = sx_subsd(d->df[0], s->df[0]);
    r->df[1] = sx_addsd(d->df[1], s->df[1]);
}

/* HADD/HSUB: adjacent pairs of the destination, then of the source; the
 * lower element is the first operand (HSUB: lower minus upper). */
static inline void k_haddps(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->f[0] = sx_addss(d->f[0], d->f[1]);
    r->f[1] = sx_addss(d->f[2], d->f[3]);
    r->f[2] = sx_addss(s->f[0], s->f[1]);
    r->f[3] = sx_addss(s->f[2], s->f[3]);
}
static inline void k_hsubps(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->f[0] = sx_subss(d->f[0], d->f[1]);
    r->f[1] = sx_subss(d->f[2], d->f[3]);
    r->f[2] = sx_subss(s->f[0], s->f[1]);
    r->f[3] = sx_subss(s->f[2], s->f[3]);
}
static inline void k_haddpd(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->df[0] = sx_addsd(d->df[0], d->df[1]);
    r->df[1] = sx_addsd(s->df[0], s->df[1]);
}
static inline void k_hsubpd(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->df[0] = sx_subsd(d->df[0], d->df[1]);
    r->df[1] = sx_subsd(s->df[0], s->df[1]);
}

SX_FP_FORMS(addsubps, sx_load_a128)
SX_FP_FORMS(addsubpd, sx_load_a128)
SX_FP_FORMS(haddps, sx_load_a128)
SX_FP_FORMS(hsubps, sx_load_a128)
SX_FP_FORMS(haddpd, sx_load_a128)
SX_FP_FORMS(hsubpd, sx_load_a128)

/* ------------------------------------------------------------ DPPS / DPPD
 * The SDM's DP_primitive: the products selected by imm8[7:4] (the others
 * +0.0), each rounded; then (p0 + p1) + (p2 + p3), each sum rounded; the
 * sum goes to the elements selected by imm8[3:0], +0.0 to the others.
 * Each multiply and add flags exceptions of its own (a denormal product
 * raises DE in the add that reads it, and DAZ reads it as zero there,
 * exactly as in the hardware). */
static inline void k_dpps(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    float p[4];
    for (unsigned i = 0; i < 4; i++)
        p[i] = (imm >> (4 + i)) & 1 ? sx_mulss(d->f[i], s->f[i]) : 0.0f;
    float sum = sx_addss(sx_addss(p[0], p[1]), sx_addss(p[2], p[3]));
    for (unsigned i = 0; i < 4; i++)
        r->f[i] = (imm >> i) & 1 ? sum : 0.0f;
}
static inline void k_dppd(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    double p0 = (imm & 0x10) ? sx_mulsd(d->df[0], s->df[0]) : 0.0;
    double p1 = (imm & 0x20) ? sx_mulsd(d->df[1], s->df[1]) : 0.0;
    double sum = sx_addsd(p0, p1);
    r->df[0] = (imm & 1) ? sum : 0.0;
    r->df[1] = (imm & 2) ? sum : 0.0;
}
SX_FP_FORMS(dpps, sx_load_a128)
SX_FP_FORMS(dppd, sx_load_a128)

/* ------------------------------------------------------------ ROUNDPS/PD/SS/SD
 * imm8[1:0] is the rounding mode unless imm8[2] says "use MXCSR.RC";
 * imm8[3] suppresses the precision exception.  Only IE (SNaN source) and
 * PE are signaled: never DE, while DAZ still reads a denormal as zero.
 *
 * Composition: below 2^23 (2^52 for doubles) adding 2^23 with the sign of
 * x brings the binary point to the units, so that one addition rounds x
 * to an integer in the current mode (and flags PE exactly when x was not
 * one, IE for an SNaN, which comes out quiet); subtracting 2^23 again is
 * exact.  The sign of the result is x's (-0.3 rounds to -0, while the
 * subtraction may give +0).  From 2^23 up, and for infinities, x is
 * already integral and returned unchanged without flags. */
static inline uint32_t round_f(uint32_t x)
{
    uint32_t mag = x & 0x7fffffffu, sign = x & 0x80000000u;
    if (mag >= 0x4b000000u && mag <= 0x7f800000u)
        return x;
    float f, m = sign ? -0x1p23f : 0x1p23f;
    memcpy(&f, &x, 4);
    f = sx_subss(sx_addss(f, m), m);
    uint32_t t;
    memcpy(&t, &f, 4);
    return (t & 0x7fffffffu) | sign;
}
static inline uint64_t round_d(uint64_t x)
{
    uint64_t mag = x & ~(1ull << 63), sign = x & (1ull << 63);
    if (mag >= 0x4330000000000000ull && mag <= 0x7ff0000000000000ull)
        return x;
    double f, m = sign ? -0x1p52 : 0x1p52;
    memcpy(&f, &x, 8);
    f = sx_subsd(sx_addsd(f, m), m);
    uint64_t t;
    memcpy(&t, &f, 8);
    return (t & ~(1ull << 63)) | sign;
}

static inline void k_roundps(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    for (unsigned i = 0; i < 4; i++)
        r->d[i] = round_f(s->d[i]);
}
static inline void k_roundpd(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->q[0] = round_d(s->q[0]);
    r->q[1] = round_d(s->q[1]);
}
/* The scalar forms keep the destination's other elements. */
static inline void k_roundss(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    *r = *d;
    r->d[0] = round_f(s->d[0]);
}
static inline void k_roundsd(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    *r = *d;
    r->q[0] = round_d(s->q[0]);
}

/* sse_enter() with imm8's rounding mode, unless it says MXCSR's. */
static inline uint32_t round_enter(const struct cpu *c, unsigned imm)
{
    uint32_t host = __builtin_ia32_stmxcsr();
    uint32_t m = (c->mxcsr & ~MXCSR_FLAGS) | MXCSR_MASKS;
    if (!(imm & 4))
        m = (m & ~0x6000u) | (imm & 3) << 13;
    __builtin_ia32_ldmxcsr(m);
    return host;
}
static inline uint32_t round_flags(uint32_t raised, unsigned imm)
{
    raised &= ~0x02u;               /* DE */
    if (imm & 8)
        raised &= ~0x20u;           /* PE */
    return raised;
}

#define ROUND_FORMS(name, LOAD)                                                         \
    static void op_##name##_rr(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t r;                                                                        \
        unsigned imm = (unsigned)op->imm;                                               \
        uint32_t host = round_enter(c, imm);                                            \
        k_##name(&r, &c->xmm[op->x1], &c->xmm[op->x2], imm);                            \
        sse_commit_flags(c, round_flags(sse_leave(host), imm));                         \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_rm(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t s, r;                                                                     \
        unsigned imm = (unsigned)op->imm;                                               \
        LOAD(c, op, &s);                                                                \
        uint32_t host = round_enter(c, imm);                                            \
        k_##name(&r, &c->xmm[op->x1], &s, imm);                                         \
        sse_commit_flags(c, round_flags(sse_leave(host), imm));                         \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }
ROUND_FORMS(roundps, sx_load_a128)
ROUND_FORMS(roundpd, sx_load_a128)
ROUND_FORMS(roundss, sx_load_32)
ROUND_FORMS(roundsd, sx_load_64)
#undef ROUND_FORMS

/* ------------------------------------------------------------ decoding */
#define FP_OPS(X)                                                                       \
    X(ADDSUBPS, addsubps) X(ADDSUBPD, addsubpd) X(HADDPS, haddps) X(HADDPD, haddpd)     \
    X(HSUBPS, hsubps) X(HSUBPD, hsubpd) X(DPPS, dpps) X(DPPD, dppd)                     \
    X(ROUNDPS, roundps) X(ROUNDPD, roundpd) X(ROUNDSS, roundss) X(ROUNDSD, roundsd)

static const struct {
    ZydisMnemonic m;
    cpu_handler rr, rm;
} fp_ops[] = {
#define ROW(M, name) { ZYDIS_MNEMONIC_##M, op_##name##_rr, op_##name##_rm },
    FP_OPS(ROW)
#undef ROW
};

bool dec_sse_ext_fp(struct decoder *d)
{
    for (size_t i = 0; i < sizeof(fp_ops) / sizeof(fp_ops[0]); i++)
        if (fp_ops[i].m == d->in->mnemonic)
            return sx_dec_xmm(d, fp_ops[i].rr, fp_ops[i].rm);
    return false;
}
