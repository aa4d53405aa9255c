/* The SSE/SSE2 floating-point family (legacy encodings; VEX belongs to AVX).
 * This file: data movement (MOVAPS/MOVUPS/MOVAPD/MOVUPD, MOVSS/MOVSD,
 * MOVLPS/MOVHPS/MOVLPD/MOVHPD, MOVLHPS/MOVHLPS, MOVNTPS/MOVNTPD, MOVMSKPS/
 * MOVMSKPD, MOVNTI), logic (AND/ANDN/OR/XOR PS/PD), shuffles (SHUFPS,
 * SHUFPD, UNPCKL/H PS/PD), LDMXCSR/STMXCSR, and the family's decoder, which
 * hands arithmetic to ops_sse_fp_arith.c and conversions to ops_sse_fp_cvt.c.
 *
 * None of the instructions here computes on floating-point values, so none
 * raises an SSE exception or depends on MXCSR (SDM vol. 2: "SIMD
 * Floating-Point Exceptions: None"): they are plain C. */
#include "cpu/fpstate.h"
#include "cpu/sse_fp.h"

/* ------------------------------------------------------------ full moves */
static void op_movaps_xx(struct cpu *c, const struct op *op)
{
    c->xmm[op->x1] = c->xmm[op->x2];
    NEXT(c, op);
}
/* The memory forms of the full moves: cpu/sse.h sse_load128a_h and co. */

/* ------------------------------------------------------------ partial moves
 * MOVSS/MOVSD between registers merge the low element; a load zeroes the
 * rest of the register (SDM vol. 2, MOVSS/MOVSD). */
static void op_movss_xx(struct cpu *c, const struct op *op)
{
    c->xmm[op->x1].d[0] = c->xmm[op->x2].d[0];
    NEXT(c, op);
}
static void op_movss_xm(struct cpu *c, const struct op *op)
{
    XMM(c, op->x1) = sse_src_m32(c, op);
    NEXT(c, op);
}
static void op_movss_mx(struct cpu *c, const struct op *op)
{
    store32(c, op_ea(c, op), c->xmm[op->x2].d[0]);
    NEXT(c, op);
}
static void op_movsd_xx(struct cpu *c, const struct op *op)
{
    c->xmm[op->x1].q[0] = c->xmm[op->x2].q[0];
    NEXT(c, op);
}
static void op_movsd_xm(struct cpu *c, const struct op *op)
{
    XMM(c, op->x1) = sse_src_m64(c, op);
    NEXT(c, op);
}
/* Also MOVLPS/MOVLPD m64, xmm. */
static void op_movsd_mx(struct cpu *c, const struct op *op)
{
    store64(c, op_ea(c, op), c->xmm[op->x2].q[0]);
    NEXT(c, op);
}
/* MOVLPS/MOVLPD xmm, m64: the low quadword, the high one kept. */
static void op_movlps_xm(struct cpu *c, const struct op *op)
{
    c->xmm[op->x1].q[0] = load64(c, op_ea(c, op));
    NEXT(c, op);
}
/* MOVHPS/MOVHPD: the high quadword from / to memory. */
static void op_movhps_xm(struct cpu *c, const struct op *op)
{
    c->xmm[op->x1].q[1] = load64(c, op_ea(c, op));
    NEXT(c, op);
}
static void op_movhps_mx(struct cpu *c, const struct op *op)
{
    store64(c, op_ea(c, op), c->xmm[op->x2].q[1]);
    NEXT(c, op);
}
static void op_movhlps(struct cpu *c, const struct op *op)
{
    c->xmm[op->x1].q[0] = c->xmm[op->x2].q[1];
    NEXT(c, op);
}
static void op_movlhps(struct cpu *c, const struct op *op)
{
    c->xmm[op->x1].q[1] = c->xmm[op->x2].q[0];
    NEXT(c, op);
}

/* MOVMSKPS/MOVMSKPD: the sign bits, zero-extended into the whole register. */
static void op_movmskps(struct cpu *c, const struct op *op)
{
    const xmm_t *s = &c->xmm[op->x2];
    set_gpr64(c, op->r1, (s->d[0] >> 31) | (s->d[1] >> 31) << 1 | (s->d[2] >> 31) << 2 |
                             (s->d[3] >> 31) << 3);
    NEXT(c, op);
}
static void op_movmskpd(struct cpu *c, const struct op *op)
{
    const xmm_t *s = &c->xmm[op->x2];
    set_gpr64(c, op->r1, (s->q[0] >> 63) | (s->q[1] >> 63) << 1);
    NEXT(c, op);
}

/* MOVNTI m32/m64, r32/r64: the non-temporal hint changes nothing visible. */
static void op_movnti_32(struct cpu *c, const struct op *op)
{
    store32(c, op_ea(c, op), GPR32(c, op->r2));
    NEXT(c, op);
}
static void op_movnti_64(struct cpu *c, const struct op *op)
{
    store64(c, op_ea(c, op), GPR64(c, op->r2));
    NEXT(c, op);
}

/* ------------------------------------------------------------ logic, shuffles
 * Kernels d, s -> result on whole registers; op_<name>_x / op_<name>_m. */
#define GEN_DATA(name, M)                                                               \
    static void op_##name##_x(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        XMM(c, op->x1) = k_##name(XMM(c, op->x1), XMM(c, op->x2), op->x3);              \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        __m128 s = SSE_SRC_##M(c, op);                                                  \
        XMM(c, op->x1) = k_##name(XMM(c, op->x1), s, op->x3);                           \
        NEXT(c, op);                                                              \
    }

static inline __m128 vec_of(xmm_t r)
{
    __m128 v;
    memcpy(&v, &r, 16);
    return v;
}

static inline __m128 k_and(__m128 d, __m128 s, unsigned imm) { return _mm_and_ps(d, s); }
static inline __m128 k_andn(__m128 d, __m128 s, unsigned imm) { return _mm_andnot_ps(d, s); }
static inline __m128 k_or(__m128 d, __m128 s, unsigned imm) { return _mm_or_ps(d, s); }
static inline __m128 k_xor(__m128 d, __m128 s, unsigned imm) { return _mm_xor_ps(d, s); }
static inline __m128 k_unpcklps(__m128 d, __m128 s, unsigned imm) { return _mm_unpacklo_ps(d, s); }
static inline __m128 k_unpckhps(__m128 d, __m128 s, unsigned imm) { return _mm_unpackhi_ps(d, s); }
static inline __m128 k_unpcklpd(__m128 d, __m128 s, unsigned imm)
{
    return _mm_castpd_ps(_mm_unpacklo_pd(_mm_castps_pd(d), _mm_castps_pd(s)));
}
static inline __m128 k_unpckhpd(__m128 d, __m128 s, unsigned imm)
{
    return _mm_castpd_ps(_mm_unpackhi_pd(_mm_castps_pd(d), _mm_castps_pd(s)));
}
/* SHUFPS: two elements of d then two of s, each picked by 2 bits of imm8. */
static inline __m128 k_shufps(__m128 d, __m128 s, unsigned imm)
{
    xmm_t a, b, r;
    memcpy(&a, &d, 16);
    memcpy(&b, &s, 16);
    r.d[0] = a.d[imm & 3];
    r.d[1] = a.d[(imm >> 2) & 3];
    r.d[2] = b.d[(imm >> 4) & 3];
    r.d[3] = b.d[(imm >> 6) & 3];
    return vec_of(r);
}
/* SHUFPD: one quadword of d (imm bit 0), one of s (imm bit 1). */
static inline __m128 k_shufpd(__m128 d, __m128 s, unsigned imm)
{
    xmm_t a, b, r;
    memcpy(&a, &d, 16);
    memcpy(&b, &s, 16);
    r.q[0] = a.q[imm & 1];
    r.q[1] = b.q[(imm >> 1) & 1];
    return vec_of(r);
}

GEN_DATA(and, P)
GEN_DATA(andn, P)
GEN_DATA(or, P)
GEN_DATA(xor, P)
/* XORPS/XORPD x, x: a zero idiom (cpu/ops_sse_fp_arith.c fuses it). */
const cpu_handler sse_xor_x = op_xor_x;
GEN_DATA(unpcklps, P)
GEN_DATA(unpckhps, P)
GEN_DATA(unpcklpd, P)
GEN_DATA(unpckhpd, P)
GEN_DATA(shufps, P)
GEN_DATA(shufpd, P)

/* ------------------------------------------------------------ MXCSR
 * LDMXCSR: setting a bit outside MXCSR_MASK is #GP (SDM vol. 2, LDMXCSR),
 * which Linux delivers as SIGSEGV/SI_KERNEL.  Loading an unmasked flag
 * raises nothing by itself: SSE exceptions are only ever raised by the
 * instruction that detects them. */
static void op_ldmxcsr(struct cpu *c, const struct op *op)
{
    uint32_t v = load32(c, op_ea(c, op));
    if (UNLIKELY(v & ~MXCSR_MASK_VALUE))
        cpu_fault(c, SIGSEGV, 0x80 /* SI_KERNEL */, 0);
    c->mxcsr = v;
    c->mxcsr_live = false; /* the next fast SSE instruction loads it */
    NEXT(c, op);
}
static void op_stmxcsr(struct cpu *c, const struct op *op)
{
    store32(c, op_ea(c, op), cpu_mxcsr_value(c));
    NEXT(c, op);
}

/* ------------------------------------------------------------ unmasked underflow */
static inline bool tiny32(uint32_t v) { return (v & 0x7f800000u) == 0 && (v & 0x007fffffu) != 0; }
static inline bool tiny64(uint64_t v)
{
    return (v & 0x7ff0000000000000ull) == 0 && (v & 0x000fffffffffffffull) != 0;
}

__attribute__((cold)) uint32_t sse_exact_tiny(const struct cpu *c, __m128 r, enum sse_tiny kind,
                                              uint32_t raised)
{
    if (raised & ~(c->mxcsr >> 7) & MXCSR_FLAGS)
        return 0; /* faults anyway, with what the host reported */
    xmm_t v;
    memcpy(&v, &r, 16);
    bool tiny = false;
    switch (kind) {
    case SSE_TINY_PS:
        tiny = tiny32(v.d[0]) || tiny32(v.d[1]) || tiny32(v.d[2]) || tiny32(v.d[3]);
        break;
    case SSE_TINY_SS: tiny = tiny32(v.d[0]); break;
    case SSE_TINY_PS2: tiny = tiny32(v.d[0]) || tiny32(v.d[1]); break;
    case SSE_TINY_PD: tiny = tiny64(v.q[0]) || tiny64(v.q[1]); break;
    case SSE_TINY_SD: tiny = tiny64(v.q[0]); break;
    case SSE_TINY_NONE: break;
    }
    return tiny ? MXCSR_UE : 0;
}

/* ------------------------------------------------------------ the slow path */
__attribute__((noinline, cold)) void sse_run_slow(struct cpu *c, const struct op *op,
                                                  sse_kernel k, __m128 s, enum sse_tiny tiny)
{
    __m128 d = XMM(c, op->x1);
    SSE_RUN_STMT(c, k(&d, s), d, tiny);
    XMM(c, op->x1) = d;
    NEXT(c, op);
}

/* ------------------------------------------------------------ decoding */
bool sse_dec_xm(struct decoder *d, cpu_handler rr, cpu_handler rm)
{
    struct op *op = d->op;
    int x = dec_xmm(d, 0), y = dec_xmm(d, 1);
    if (x < 0)
        return false;
    op->x1 = (uint8_t)x;
    if (y >= 0) {
        if (!rr)
            return false;
        op->x2 = (uint8_t)y;
        op->fn = rr;
        return true;
    }
    op->fn = rm;
    return rm && dec_mem_op(d, 1);
}

/* A move: xmm <- xmm (xx), xmm <- mem (xm), mem <- xmm (mx); a missing
 * handler is a form the instruction does not have. */
static bool dec_move(struct decoder *d, cpu_handler xx, cpu_handler xm, cpu_handler mx)
{
    struct op *op = d->op;
    if (!is_mem(d, 0))
        return sse_dec_xm(d, xx, xm);
    int y = dec_xmm(d, 1);
    if (y < 0 || !mx)
        return false;
    op->x2 = (uint8_t)y;
    op->fn = mx;
    return dec_mem_op(d, 0);
}

/* MOVAPS/MOVUPS and twins: dec_move() with the memory forms' handlers by
 * enum addr_mode (cpu/sse.h sse_load128a_h...; load NULL: a store only). */
static bool dec_move_full(struct decoder *d, const cpu_handler *load, const cpu_handler *store)
{
    if (!dec_move(d, load ? op_movaps_xx : NULL, load ? load[AM_ANY] : NULL, store[AM_ANY]))
        return false;
    if (d->op->fn != op_movaps_xx)
        d->op->fn = (d->op->fn == store[AM_ANY] ? store : load)[dec_addr_mode(d)];
    return true;
}

static bool dec_shuffle(struct decoder *d, cpu_handler rr, cpu_handler rm)
{
    if (!is_imm(d, 2))
        return false;
    d->op->x3 = (uint8_t)dec_imm(d, 2);
    return sse_dec_xm(d, rr, rm);
}

static bool dec_movmsk(struct decoder *d, cpu_handler fn)
{
    struct op *op = d->op;
    int y = dec_xmm(d, 1);
    if (y < 0 || !dec_reg_op(d, 0, &op->r1))
        return false;
    op->x2 = (uint8_t)y;
    op->fn = fn;
    return true;
}

static bool dec_movnti(struct decoder *d)
{
    struct op *op = d->op;
    if (!dec_reg_op(d, 1, &op->r2))
        return false;
    op->fn = d->ops[1].size == 64 ? op_movnti_64 : op_movnti_32;
    return dec_mem_op(d, 0);
}

bool dec_sse_fp(struct decoder *d)
{
    struct op *op = d->op;
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_MOVAPS:
    case ZYDIS_MNEMONIC_MOVAPD:
        return dec_move_full(d, sse_load128a_h, sse_store128a_h);
    case ZYDIS_MNEMONIC_MOVUPS:
    case ZYDIS_MNEMONIC_MOVUPD:
        return dec_move_full(d, sse_load128u_h, sse_store128u_h);
    case ZYDIS_MNEMONIC_MOVNTPS:
    case ZYDIS_MNEMONIC_MOVNTPD:
        return dec_move_full(d, NULL, sse_store128a_h);
    case ZYDIS_MNEMONIC_MOVSS:
        return dec_move(d, op_movss_xx, op_movss_xm, op_movss_mx);
    case ZYDIS_MNEMONIC_MOVSD: /* string MOVSD has no XMM operand: dec_move refuses it */
        return dec_move(d, op_movsd_xx, op_movsd_xm, op_movsd_mx);
    case ZYDIS_MNEMONIC_MOVLPS:
    case ZYDIS_MNEMONIC_MOVLPD:
        return dec_move(d, NULL, op_movlps_xm, op_movsd_mx);
    case ZYDIS_MNEMONIC_MOVHPS:
    case ZYDIS_MNEMONIC_MOVHPD:
        return dec_move(d, NULL, op_movhps_xm, op_movhps_mx);
    case ZYDIS_MNEMONIC_MOVHLPS:
        return sse_dec_xm(d, op_movhlps, NULL);
    case ZYDIS_MNEMONIC_MOVLHPS:
        return sse_dec_xm(d, op_movlhps, NULL);
    case ZYDIS_MNEMONIC_MOVMSKPS:
        return dec_movmsk(d, op_movmskps);
    case ZYDIS_MNEMONIC_MOVMSKPD:
        return dec_movmsk(d, op_movmskpd);
    case ZYDIS_MNEMONIC_MOVNTI:
        return dec_movnti(d);
    case ZYDIS_MNEMONIC_ANDPS:
    case ZYDIS_MNEMONIC_ANDPD:
        return sse_dec_xm(d, op_and_x, op_and_m);
    case ZYDIS_MNEMONIC_ANDNPS:
    case ZYDIS_MNEMONIC_ANDNPD:
        return sse_dec_xm(d, op_andn_x, op_andn_m);
    case ZYDIS_MNEMONIC_ORPS:
    case ZYDIS_MNEMONIC_ORPD:
        return sse_dec_xm(d, op_or_x, op_or_m);
    case ZYDIS_MNEMONIC_XORPS:
    case ZYDIS_MNEMONIC_XORPD:
        return sse_dec_xm(d, op_xor_x, op_xor_m);
    case ZYDIS_MNEMONIC_UNPCKLPS:
        return sse_dec_xm(d, op_unpcklps_x, op_unpcklps_m);
    case ZYDIS_MNEMONIC_UNPCKHPS:
        return sse_dec_xm(d, op_unpckhps_x, op_unpckhps_m);
    case ZYDIS_MNEMONIC_UNPCKLPD:
        return sse_dec_xm(d, op_unpcklpd_x, op_unpcklpd_m);
    case ZYDIS_MNEMONIC_UNPCKHPD:
        return sse_dec_xm(d, op_unpckhpd_x, op_unpckhpd_m);
    case ZYDIS_MNEMONIC_SHUFPS:
        return dec_shuffle(d, op_shufps_x, op_shufps_m);
    case ZYDIS_MNEMONIC_SHUFPD:
        return dec_shuffle(d, op_shufpd_x, op_shufpd_m);
    case ZYDIS_MNEMONIC_LDMXCSR:
        op->fn = op_ldmxcsr;
        return dec_mem_op(d, 0);
    case ZYDIS_MNEMONIC_STMXCSR:
        op->fn = op_stmxcsr;
        return dec_mem_op(d, 0);
    default:
        return dec_sse_fp_arith(d) || dec_sse_fp_cvt(d);
    }
}
