/* SSSE3 (SDM vol. 2, instruction pages of PSHUFB, PALIGNR, PHADDW/D,
 * PHADDSW, PHSUBW/D, PHSUBSW, PMADDUBSW, PMULHRSW, PSIGNB/W/D, PABSB/W/D):
 * integer, exact in plain C.  Every instruction has a 128-bit XMM form
 * (66 prefix; 16-byte memory operands aligned) and a 64-bit MMX form.
 *
 * One kernel per instruction works on the low n bytes of xmm_t values,
 * n = 16 for XMM and 8 for MMX; the generated handlers pass n as a
 * constant so each form compiles to its own straight code.  The MMX forms
 * alias the x87 registers: after the source is read they set TOP = 0 and
 * tag every register valid, and the written register's exponent reads as
 * all ones (SDM vol. 1, 9.5.1). */
#include "cpu/sse_ext.h"

static inline int16_t sat16(int32_t v)
{
    return (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
}

/* ------------------------------------------------------------ kernels */
/* PSHUFB: each byte of the source picks a byte of the destination by its
 * low 4 (XMM) or 3 (MMX) bits, or is zero when its bit 7 is set. */
static inline void k_pshufb(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        r->b[i] = (s->b[i] & 0x80) ? 0 : d->b[s->b[i] & (n - 1)];
}

/* PALIGNR: the destination:source concatenation (destination high)
 * shifted right by imm8 bytes; bytes shifted in are zero. */
static inline void k_palignr(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm, unsigned n)
{
    /* Bytes imm.. of the 2n-byte value destination:source (source low), then
     * zeros -- with wide shifts in registers: building the concatenation in
     * memory and reading it back unaligned stalls store forwarding. */
    if (n == 16) {
        unsigned __int128 lo, hi, v;
        memcpy(&lo, s->b, 16);
        memcpy(&hi, d->b, 16);
        if (imm == 0)
            v = lo;
        else if (imm < 16)
            v = (lo >> (8 * imm)) | (hi << (8 * (16 - imm)));
        else if (imm < 32)
            v = hi >> (8 * (imm - 16));
        else
            v = 0;
        memcpy(r->b, &v, 16);
    } else {
        uint64_t lo, hi, v;
        memcpy(&lo, s->b, 8);
        memcpy(&hi, d->b, 8);
        if (imm == 0)
            v = lo;
        else if (imm < 8)
            v = (lo >> (8 * imm)) | (hi << (8 * (8 - imm)));
        else if (imm < 16)
            v = hi >> (8 * (imm - 8));
        else
            v = 0;
        memcpy(r->b, &v, 8);
    }
}

/* Horizontal operations: the destination's adjacent pairs make the low
 * half of the result, the source's the high half; each pair is
 * (even element) OP (odd element). */
#define HORIZONTAL(name, lane, T, expr)                                                 \
    static inline void k_##name(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm, \
                                unsigned n)                                             \
    {                                                                                   \
        unsigned h = n / sizeof(T) / 2;                                                 \
        for (unsigned i = 0; i < h; i++) {                                              \
            T a = d->lane[2 * i], b = d->lane[2 * i + 1];                               \
            r->lane[i] = (expr);                                                        \
            a = s->lane[2 * i], b = s->lane[2 * i + 1];                                 \
            r->lane[h + i] = (expr);                                                    \
        }                                                                               \
    }
HORIZONTAL(phaddw, w, uint16_t, (uint16_t)(a + b))
HORIZONTAL(phaddd, d, uint32_t, a + b)
HORIZONTAL(phaddsw, sw, int16_t, sat16(a + b))
HORIZONTAL(phsubw, w, uint16_t, (uint16_t)(a - b))
HORIZONTAL(phsubd, d, uint32_t, a - b)
HORIZONTAL(phsubsw, sw, int16_t, sat16(a - b))
#undef HORIZONTAL

/* PMADDUBSW: unsigned bytes of the destination times signed bytes of the
 * source; adjacent products summed with signed saturation. */
static inline void k_pmaddubsw(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm, unsigned n)
{
    for (unsigned i = 0; i < n / 2; i++)
        r->sw[i] = sat16(d->b[2 * i] * s->sb[2 * i] + d->b[2 * i + 1] * s->sb[2 * i + 1]);
}

/* PMULHRSW: the 32-bit product, shifted right by 14, plus 1, shifted right
 * by 1: bits 16:1 of the rounded product. */
static inline void k_pmulhrsw(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm, unsigned n)
{
    for (unsigned i = 0; i < n / 2; i++)
        r->w[i] = (uint16_t)((((int32_t)d->sw[i] * s->sw[i] >> 14) + 1) >> 1);
}

/* PSIGN: the destination element negated, kept or zeroed as the source
 * element is negative, positive or zero (negation wraps). */
#define SIGN(name, lane, T, U)                                                          \
    static inline void k_##name(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm, \
                                unsigned n)                                             \
    {                                                                                   \
        for (unsigned i = 0; i < n / sizeof(T); i++)                                    \
            r->lane[i] = s->lane[i] < 0 ? (T)(0 - (U)d->lane[i])                       \
                       : s->lane[i] == 0 ? 0 : d->lane[i];                              \
    }
SIGN(psignb, sb, int8_t, uint8_t)
SIGN(psignw, sw, int16_t, uint16_t)
SIGN(psignd, sd, int32_t, uint32_t)
#undef SIGN

/* PABS: the unsigned absolute value of each source element (the most
 * negative value stays 0x80..0). */
#define ABS(name, lane, T, U)                                                           \
    static inline void k_##name(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm, \
                                unsigned n)                                             \
    {                                                                                   \
        for (unsigned i = 0; i < n / sizeof(T); i++)                                    \
            r->lane[i] = s->lane[i] < 0 ? (T)(0 - (U)s->lane[i]) : s->lane[i];         \
    }
ABS(pabsb, sb, int8_t, uint8_t)
ABS(pabsw, sw, int16_t, uint16_t)
ABS(pabsd, sd, int32_t, uint32_t)
#undef ABS

/* ------------------------------------------------------------ handlers */
#define SSSE3_FORMS(name)                                                               \
    static inline void k_##name##_x(xmm_t *r, const xmm_t *d, const xmm_t *s,           \
                                    unsigned imm)                                       \
    {                                                                                   \
        k_##name(r, d, s, imm, 16);                                                     \
    }                                                                                   \
    SX_XMM_FORMS(name##_x, sx_load_a128)                                                \
    static inline void mmx_##name(struct cpu *c, const struct op *op, uint64_t src)     \
    {                                                                                   \
        mmx_check_pending(c);                                                           \
        xmm_t d = { .q = { *mmx_reg(c, op->x1), 0 } }, s = { .q = { src, 0 } }, r;      \
        k_##name(&r, &d, &s, (unsigned)op->imm, 8);                                     \
        mmx_enter(c);                                                                   \
        *mmx_reg(c, op->x1) = r.q[0];                                                   \
        mmx_written(c, op->x1);                                                         \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_mm_rr(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        mmx_##name(c, op, *mmx_reg(c, op->x2));                                         \
    }                                                                                   \
    static void op_##name##_mm_rm(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        mmx_##name(c, op, load64(c, op_ea(c, op)));                                     \
    }

#define SSSE3_OPS(X)                                                                    \
    X(PSHUFB, pshufb) X(PALIGNR, palignr) X(PHADDW, phaddw) X(PHADDD, phaddd)           \
    X(PHADDSW, phaddsw) X(PHSUBW, phsubw) X(PHSUBD, phsubd) X(PHSUBSW, phsubsw)         \
    X(PMADDUBSW, pmaddubsw) X(PMULHRSW, pmulhrsw) X(PSIGNB, psignb) X(PSIGNW, psignw)   \
    X(PSIGND, psignd) X(PABSB, pabsb) X(PABSW, pabsw) X(PABSD, pabsd)

#define GEN(M, name) SSSE3_FORMS(name)
SSSE3_OPS(GEN)
#undef GEN

static const struct {
    ZydisMnemonic m;
    cpu_handler xr, xm, mr, mm;
} ssse3[] = {
#define ROW(M, name)                                                                    \
    { ZYDIS_MNEMONIC_##M, op_##name##_x_rr, op_##name##_x_rm,                           \
      op_##name##_mm_rr, op_##name##_mm_rm },
    SSSE3_OPS(ROW)
#undef ROW
};

bool dec_sse_ext_ssse3(struct decoder *d)
{
    for (size_t i = 0; i < sizeof(ssse3) / sizeof(ssse3[0]); i++)
        if (ssse3[i].m == d->in->mnemonic)
            return dec_mmx_reg(d, 0) >= 0 ? sx_dec_mmx(d, ssse3[i].mr, ssse3[i].mm)
                                          : sx_dec_xmm(d, ssse3[i].xr, ssse3[i].xm);
    return false;
}
