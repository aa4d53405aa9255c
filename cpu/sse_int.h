/* Integer SIMD kernels shared by the MMX (cpu/ops_mmx.c) and SSE2 integer
 * (cpu/ops_sse_int.c) families.
 *
 * An MMX instruction does on a 64-bit register what its SSE2 twin does on a
 * 128-bit one, lane by lane; only the "halves" (PUNPCKH*, PACK*) and the
 * groups (PSADBW) scale with the register.  So each operation is written
 * once, as a kernel over the first n bytes of xmm_t values (n = 8 for MMX,
 * 16 for XMM), and each family builds its handlers from the kernels with n
 * a compile-time constant: the loops unroll (and mostly vectorise) into
 * code as good as hand-written intrinsics, in plain, exact C.
 *
 * Kernel contract: k_NAME(r, x, y, imm, n) writes the first n bytes of *r
 * from the destination operand *x, the source operand *y and the
 * instruction's imm8; r never aliases x or y.  Shift kernels take their
 * count from y->q[0] (the by-imm8 forms pass the immediate there).
 * Semantics: SDM vol. 2, the instruction of the same name. */
#ifndef CPU_SSE_INT_H
#define CPU_SSE_INT_H

#include <emmintrin.h>

#include "cpu/sse.h"

#define KERNEL(name)                                                                    \
    static inline __attribute__((always_inline)) void k_##name(                         \
        xmm_t *r, const xmm_t *x, const xmm_t *y, unsigned imm, unsigned n)

/* r.lane[i] = expr for every lane of the given type (X, Y: the operands' lanes). */
#define LANEWISE(name, lane, expr)                                                      \
    KERNEL(name)                                                                        \
    {                                                                                   \
        for (unsigned i = 0; i < n / sizeof(r->lane[0]); i++) {                         \
            __typeof__(x->lane[0]) X = x->lane[i], Y = y->lane[i];                      \
            r->lane[i] = (__typeof__(r->lane[0]))(expr);                                \
        }                                                                               \
    }

static inline int sat_s8(int v) { return v > 127 ? 127 : v < -128 ? -128 : v; }
static inline int sat_u8(int v) { return v > 255 ? 255 : v < 0 ? 0 : v; }
static inline int sat_s16(int v) { return v > 32767 ? 32767 : v < -32768 ? -32768 : v; }
static inline int sat_u16(int v) { return v > 65535 ? 65535 : v < 0 ? 0 : v; }

/* Wrapping add/sub (unsigned arithmetic: no overflow in C). */
LANEWISE(paddb, b, X + Y)
LANEWISE(paddw, w, X + Y)
LANEWISE(paddd, d, X + Y)
LANEWISE(paddq, q, X + Y)
LANEWISE(psubb, b, X - Y)
LANEWISE(psubw, w, X - Y)
LANEWISE(psubd, d, X - Y)
LANEWISE(psubq, q, X - Y)
/* Saturating add/sub, signed and unsigned. */
LANEWISE(paddsb, sb, sat_s8(X + Y))
LANEWISE(paddsw, sw, sat_s16(X + Y))
LANEWISE(paddusb, b, sat_u8(X + Y))
LANEWISE(paddusw, w, sat_u16(X + Y))
LANEWISE(psubsb, sb, sat_s8(X - Y))
LANEWISE(psubsw, sw, sat_s16(X - Y))
LANEWISE(psubusb, b, sat_u8(X - Y))
LANEWISE(psubusw, w, sat_u16(X - Y))
/* Compares: all ones where true. */
LANEWISE(pcmpeqb, b, -(X == Y))
LANEWISE(pcmpeqw, w, -(X == Y))
LANEWISE(pcmpeqd, d, -(uint32_t)(X == Y))
LANEWISE(pcmpgtb, sb, -(X > Y))
LANEWISE(pcmpgtw, sw, -(X > Y))
LANEWISE(pcmpgtd, sd, -(X > Y))
/* Logic. */
LANEWISE(pand, q, X & Y)
LANEWISE(pandn, q, ~X & Y)
LANEWISE(por, q, X | Y)
LANEWISE(pxor, q, X ^ Y)
/* Multiplies: the low or high half of the 32-bit product (computed in
 * 32-bit unsigned or signed arithmetic that cannot overflow). */
LANEWISE(pmullw, w, (uint32_t)X * Y)
LANEWISE(pmulhw, sw, ((int32_t)X * Y) >> 16)
LANEWISE(pmulhuw, w, ((uint32_t)X * Y) >> 16)
/* Averages round up: (a + b + 1) >> 1 with the carry kept. */
LANEWISE(pavgb, b, ((unsigned)X + Y + 1) >> 1)
LANEWISE(pavgw, w, ((unsigned)X + Y + 1) >> 1)
LANEWISE(pminub, b, X < Y ? X : Y)
LANEWISE(pmaxub, b, X > Y ? X : Y)
LANEWISE(pminsw, sw, X < Y ? X : Y)
LANEWISE(pmaxsw, sw, X > Y ? X : Y)

/* PMULUDQ: the even dwords, multiplied into full quadwords. */
KERNEL(pmuludq)
{
    for (unsigned i = 0; i < n / 8; i++)
        r->q[i] = (uint64_t)x->d[2 * i] * y->d[2 * i];
}

/* PMADDWD: adjacent signed word products summed into dwords.  Only
 * 0x8000 * 0x8000 twice overflows: it wraps to 0x80000000, as the SDM says. */
KERNEL(pmaddwd)
{
    for (unsigned i = 0; i < n / 4; i++)
        r->d[i] = (uint32_t)((int32_t)x->sw[2 * i] * y->sw[2 * i]) +
                  (uint32_t)((int32_t)x->sw[2 * i + 1] * y->sw[2 * i + 1]);
}

/* PSADBW: per 8-byte group, the sum of absolute byte differences in the
 * low word of the group's quadword, the rest zero. */
KERNEL(psadbw)
{
    for (unsigned g = 0; g < n / 8; g++) {
        unsigned s = 0;
        for (unsigned i = 8 * g; i < 8 * g + 8; i++)
            s += x->b[i] > y->b[i] ? x->b[i] - y->b[i] : y->b[i] - x->b[i];
        r->q[g] = s;
    }
}

/* Unpacks interleave the low (or high) halves of destination and source. */
#define UNPACK(name, lane, high)                                                        \
    KERNEL(name)                                                                        \
    {                                                                                   \
        unsigned half = n / sizeof(r->lane[0]) / 2, base = (high) ? half : 0;          \
        for (unsigned i = 0; i < half; i++) {                                           \
            r->lane[2 * i] = x->lane[base + i];                                         \
            r->lane[2 * i + 1] = y->lane[base + i];                                     \
        }                                                                               \
    }
UNPACK(punpcklbw, b, 0)
UNPACK(punpcklwd, w, 0)
UNPACK(punpckldq, d, 0)
UNPACK(punpcklqdq, q, 0)
UNPACK(punpckhbw, b, 1)
UNPACK(punpckhwd, w, 1)
UNPACK(punpckhdq, d, 1)
UNPACK(punpckhqdq, q, 1)
#undef UNPACK

/* Packs narrow with saturation: destination lanes first, then source. */
#define PACK(name, from, to, sat)                                                       \
    KERNEL(name)                                                                        \
    {                                                                                   \
        unsigned m = n / sizeof(x->from[0]);                                            \
        for (unsigned i = 0; i < m; i++) {                                              \
            r->to[i] = (__typeof__(r->to[0]))sat(x->from[i]);                           \
            r->to[m + i] = (__typeof__(r->to[0]))sat(y->from[i]);                       \
        }                                                                               \
    }
PACK(packsswb, sw, sb, sat_s8)
PACK(packssdw, sd, sw, sat_s16)
PACK(packuswb, sw, b, sat_u8)
#undef PACK

/* Shifts by a 64-bit count: logical ones give 0 beyond the lane width,
 * arithmetic ones fill with the sign (a count of width - 1).  The count is
 * settled before the loop, so that the loop is one shift of every lane by
 * the same amount (the host's vector shift) instead of a branch per lane. */
#define SHIFT(name, lane, bits, op, arith)                                              \
    KERNEL(name)                                                                        \
    {                                                                                   \
        uint64_t cnt = y->q[0];                                                         \
        if (cnt >= (bits) && !(arith)) {                                                \
            for (unsigned i = 0; i < n / ((bits) / 8); i++)                             \
                r->lane[i] = 0;                                                         \
            return;                                                                     \
        }                                                                               \
        unsigned k = cnt >= (bits) ? (bits) - 1 : (unsigned)cnt;                        \
        for (unsigned i = 0; i < n / ((bits) / 8); i++)                                 \
            r->lane[i] = (__typeof__(r->lane[0]))(x->lane[i] op k);                     \
    }
SHIFT(psllw, w, 16, <<, 0)
SHIFT(pslld, d, 32, <<, 0)
SHIFT(psllq, q, 64, <<, 0)
SHIFT(psrlw, w, 16, >>, 0)
SHIFT(psrld, d, 32, >>, 0)
SHIFT(psrlq, q, 64, >>, 0)
SHIFT(psraw, sw, 16, >>, 1)
SHIFT(psrad, sd, 32, >>, 1)
#undef SHIFT

/* Byte shifts of the whole register (XMM only): imm8 > 15 clears it. */
KERNEL(pslldq)
{
    for (unsigned i = 0; i < n; i++)
        r->b[i] = i >= imm ? x->b[i - imm] : 0;
}
KERNEL(psrldq)
{
    for (unsigned i = 0; i < n; i++)
        r->b[i] = i + imm < n ? x->b[i + imm] : 0;
}

/* Shuffles: each 2-bit field of imm8 selects a source lane. */
KERNEL(pshufd)
{
    for (unsigned i = 0; i < 4; i++)
        r->d[i] = y->d[(imm >> (2 * i)) & 3];
}
KERNEL(pshufw)
{
    for (unsigned i = 0; i < 4; i++)
        r->w[i] = y->w[(imm >> (2 * i)) & 3];
}
KERNEL(pshuflw)
{
    for (unsigned i = 0; i < 4; i++)
        r->w[i] = y->w[(imm >> (2 * i)) & 3];
    r->q[1] = y->q[1];
}
KERNEL(pshufhw)
{
    r->q[0] = y->q[0];
    for (unsigned i = 0; i < 4; i++)
        r->w[4 + i] = y->w[4 + ((imm >> (2 * i)) & 3)];
}

#undef LANEWISE
#undef KERNEL

/* The operations with an MMX form (NP 0F xx) and an SSE2 form (66 0F xx),
 * as (kernel, Zydis mnemonic); each family builds its handlers from these. */
#define SIMD_BOTH_OPS(X)                                                                \
    X(paddb, PADDB) X(paddw, PADDW) X(paddd, PADDD) X(paddq, PADDQ)                     \
    X(psubb, PSUBB) X(psubw, PSUBW) X(psubd, PSUBD) X(psubq, PSUBQ)                     \
    X(paddsb, PADDSB) X(paddsw, PADDSW) X(paddusb, PADDUSB) X(paddusw, PADDUSW)         \
    X(psubsb, PSUBSB) X(psubsw, PSUBSW) X(psubusb, PSUBUSB) X(psubusw, PSUBUSW)         \
    X(pcmpeqb, PCMPEQB) X(pcmpeqw, PCMPEQW) X(pcmpeqd, PCMPEQD)                         \
    X(pcmpgtb, PCMPGTB) X(pcmpgtw, PCMPGTW) X(pcmpgtd, PCMPGTD)                         \
    X(pand, PAND) X(pandn, PANDN) X(por, POR) X(pxor, PXOR)                             \
    X(pmullw, PMULLW) X(pmulhw, PMULHW) X(pmulhuw, PMULHUW) X(pmuludq, PMULUDQ)         \
    X(pmaddwd, PMADDWD) X(pavgb, PAVGB) X(pavgw, PAVGW) X(psadbw, PSADBW)               \
    X(pminub, PMINUB) X(pmaxub, PMAXUB) X(pminsw, PMINSW) X(pmaxsw, PMAXSW)             \
    X(punpcklbw, PUNPCKLBW) X(punpcklwd, PUNPCKLWD) X(punpckldq, PUNPCKLDQ)             \
    X(punpckhbw, PUNPCKHBW) X(punpckhwd, PUNPCKHWD) X(punpckhdq, PUNPCKHDQ)             \
    X(packsswb, PACKSSWB) X(packssdw, PACKSSDW) X(packuswb, PACKUSWB)

/* Shifts: a count from a register or memory, or an imm8 (0F 71/72/73). */
#define SIMD_SHIFT_OPS(X)                                                               \
    X(psllw, PSLLW) X(pslld, PSLLD) X(psllq, PSLLQ) X(psrlw, PSRLW) X(psrld, PSRLD)     \
    X(psrlq, PSRLQ) X(psraw, PSRAW) X(psrad, PSRAD)

/* PMOVMSKB: the sign bit of each byte. */
static inline uint32_t simd_movmskb(const xmm_t *x, unsigned n)
{
    /* SSE2 is the x86_64 baseline: the host's PMOVMSKB, reading n bytes. */
    __m128i v = n == 16 ? _mm_loadu_si128((const __m128i *)(const void *)x->b)
                        : _mm_loadl_epi64((const __m128i *)(const void *)x->b);
    return (uint32_t)_mm_movemask_epi8(v) & (n == 16 ? 0xffffu : 0xffu);
}

/* MASKMOVQ/MASKMOVDQU: store the bytes of *v whose mask byte has its top
 * bit set to [a..a+n); the others are left alone (not even rewritten).
 * Precise faults: the last selected byte is probed first with an atomic
 * "or 0" (a write access that changes nothing, even under a concurrent
 * store), then the bytes go in ascending order; the range spans at most two
 * pages, so whichever of them is unwritable faults before any store. */
static inline void simd_maskmov(struct cpu *c, uint64_t a, const xmm_t *v, const xmm_t *mask,
                                unsigned n)
{
    uint32_t m = simd_movmskb(mask, n);
    if (!m)
        return;
    unsigned last = 31 - (unsigned)__builtin_clz(m);
    __atomic_fetch_or((uint8_t *)g2h(c, a + last), 0, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < n; i++)
        if (m >> i & 1)
            store8(c, a + i, v->b[i]);
}

/* Write MMX register i (after every memory access of the instruction): the
 * x87 state turns to MMX mode (TOP 0, all tags valid) and the register's
 * exponent/sign read as all ones (SDM vol. 3, 12.2, table 12-2). */
static inline void mmx_set(struct cpu *c, unsigned i, uint64_t v)
{
    mmx_enter(c);
    *mmx_reg(c, i) = v;
    mmx_written(c, i);
}

#endif
