/* Multiplication and division: MUL, IMUL (one, two and three operands),
 * DIV, IDIV in every width.  SDM vol. 2A/2B: "MUL", "IMUL", "DIV", "IDIV".
 *
 * The one-operand forms use the accumulator pair: AX <- AL * src,
 * DX:AX, EDX:EAX, RDX:RAX for the wider ones; DIV/IDIV divide that pair
 * and leave quotient and remainder in AL:AH / AX:DX / EAX:EDX / RAX:RDX.
 * 64-bit products and dividends use unsigned __int128.
 *
 * Flags: MUL/IMUL set CF = OF = "the result did not fit" (the upper half is
 * not zero, or not the sign extension of the lower half); SF ZF AF PF are
 * undefined, and DIV/IDIV leave all six undefined.  For those we do what
 * the AMD hosts we test on do, so differential runs against them stay
 * quiet: MUL/IMUL keep SF ZF AF PF; DIV/IDIV keep CF OF, clear SF ZF PF
 * and set AF.  The tests never compare them.
 *
 * #DE (divide by zero, or a quotient that does not fit, including IDIV of
 * the minimum value by -1) faults before anything is written, with rip at
 * the instruction: SIGFPE with FPE_INTDIV, as Linux delivers it. */
#include <signal.h>

#include "cpu/alu.h"
#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"

#define FPE_INTDIV_CODE 1

typedef unsigned __int128 u128;
typedef __int128 s128;

/* CF = OF = overflow; SF ZF AF PF stay (see above). */
static inline void mul_flags(struct cpu *c, bool overflow)
{
    cpu_set_cf_of(c, overflow ? FL_CF | FL_OF : 0);
}

/* After a division: CF OF stay, SF ZF PF clear, AF set (see above). */
static inline void div_flags(struct cpu *c)
{
    cpu_set_arith(c, FL_AF, FL_SF | FL_ZF | FL_PF | FL_AF);
}

__attribute__((noreturn, cold)) static void divide_error(struct cpu *c)
{
    cpu_fault(c, SIGFPE, FPE_INTDIV_CODE, cpu_rip(c));
}

/* ------------------------------------------------------------ one operand
 * Kernels take the source operand s (zero-extended from its width). */
static inline void k_mul_8(struct cpu *c, uint64_t s)
{
    unsigned p = (unsigned)GPR8(c, SLOT_GPR(R_AX)) * (unsigned)s;
    set_gpr16(c, SLOT_GPR(R_AX), p);
    mul_flags(c, (p >> 8) != 0);
}
static inline void k_mul_16(struct cpu *c, uint64_t s)
{
    uint32_t p = (uint32_t)GPR16(c, SLOT_GPR(R_AX)) * (uint32_t)s;
    set_gpr16(c, SLOT_GPR(R_AX), p);
    set_gpr16(c, SLOT_GPR(R_DX), p >> 16);
    mul_flags(c, (p >> 16) != 0);
}
static inline void k_mul_32(struct cpu *c, uint64_t s)
{
    uint64_t p = (uint64_t)GPR32(c, SLOT_GPR(R_AX)) * s;
    set_gpr32(c, SLOT_GPR(R_AX), p);
    set_gpr32(c, SLOT_GPR(R_DX), p >> 32);
    mul_flags(c, (p >> 32) != 0);
}
static inline void k_mul_64(struct cpu *c, uint64_t s)
{
    u128 p = (u128)c->r[R_AX] * s;
    c->r[R_AX] = (uint64_t)p;
    c->r[R_DX] = (uint64_t)(p >> 64);
    mul_flags(c, (p >> 64) != 0);
}

static inline void k_imul_8(struct cpu *c, uint64_t s)
{
    int p = (int8_t)GPR8(c, SLOT_GPR(R_AX)) * (int8_t)s;
    set_gpr16(c, SLOT_GPR(R_AX), (uint64_t)p);
    mul_flags(c, p != (int8_t)p);
}
static inline void k_imul_16(struct cpu *c, uint64_t s)
{
    int32_t p = (int16_t)GPR16(c, SLOT_GPR(R_AX)) * (int16_t)s;
    set_gpr16(c, SLOT_GPR(R_AX), (uint64_t)p);
    set_gpr16(c, SLOT_GPR(R_DX), (uint64_t)p >> 16);
    mul_flags(c, p != (int16_t)p);
}
static inline void k_imul_32(struct cpu *c, uint64_t s)
{
    int64_t p = (int64_t)(int32_t)GPR32(c, SLOT_GPR(R_AX)) * (int32_t)s;
    set_gpr32(c, SLOT_GPR(R_AX), (uint64_t)p);
    set_gpr32(c, SLOT_GPR(R_DX), (uint64_t)p >> 32);
    mul_flags(c, p != (int32_t)p);
}
static inline void k_imul_64(struct cpu *c, uint64_t s)
{
    s128 p = (s128)(int64_t)c->r[R_AX] * (int64_t)s;
    c->r[R_AX] = (uint64_t)p;
    c->r[R_DX] = (uint64_t)((u128)p >> 64);
    mul_flags(c, p != (int64_t)p);
}

/* DIV: #DE when s = 0 or the quotient exceeds the width, which for a
 * double-width dividend hi:lo is exactly hi >= s. */
static inline void k_div_8(struct cpu *c, uint64_t s)
{
    unsigned n = GPR16(c, SLOT_GPR(R_AX));
    if (UNLIKELY(s == 0 || (n >> 8) >= s))
        divide_error(c);
    div_flags(c);
    set_gpr16(c, SLOT_GPR(R_AX), (n % (unsigned)s) << 8 | n / (unsigned)s);
}
static inline void k_div_16(struct cpu *c, uint64_t s)
{
    uint32_t hi = GPR16(c, SLOT_GPR(R_DX)), n = hi << 16 | GPR16(c, SLOT_GPR(R_AX));
    if (UNLIKELY(s == 0 || hi >= s))
        divide_error(c);
    div_flags(c);
    set_gpr16(c, SLOT_GPR(R_AX), n / (uint32_t)s);
    set_gpr16(c, SLOT_GPR(R_DX), n % (uint32_t)s);
}
static inline void k_div_32(struct cpu *c, uint64_t s)
{
    uint64_t hi = GPR32(c, SLOT_GPR(R_DX)), n = hi << 32 | GPR32(c, SLOT_GPR(R_AX));
    if (UNLIKELY(s == 0 || hi >= s))
        divide_error(c);
    div_flags(c);
    set_gpr32(c, SLOT_GPR(R_AX), n / s);
    set_gpr32(c, SLOT_GPR(R_DX), n % s);
}
static inline void k_div_64(struct cpu *c, uint64_t s)
{
    uint64_t hi = c->r[R_DX], lo = c->r[R_AX];
    if (UNLIKELY(s == 0 || hi >= s))
        divide_error(c);
    div_flags(c);
    if (hi == 0) { /* the common case: no 128-bit division */
        c->r[R_AX] = lo / s;
        c->r[R_DX] = lo % s;
        return;
    }
    u128 n = (u128)hi << 64 | lo;
    c->r[R_AX] = (uint64_t)(n / s);
    c->r[R_DX] = (uint64_t)(n % s);
}

/* IDIV truncates toward zero; the remainder takes the dividend's sign.
 * #DE when s = 0 or the quotient is outside the signed range.  C's signed
 * division overflows only for the minimum value by -1, whose quotient is out
 * of range for the instruction as well: that case faults first. */
static inline void k_idiv_8(struct cpu *c, uint64_t s)
{
    int n = (int16_t)GPR16(c, SLOT_GPR(R_AX)), d = (int8_t)s;
    if (UNLIKELY(d == 0))
        divide_error(c);
    int q = n / d, r = n % d;
    if (UNLIKELY(q != (int8_t)q))
        divide_error(c);
    div_flags(c);
    set_gpr16(c, SLOT_GPR(R_AX), (uint64_t)(uint8_t)r << 8 | (uint8_t)q);
}
static inline void k_idiv_16(struct cpu *c, uint64_t s)
{
    int32_t n = (int32_t)((uint32_t)GPR16(c, SLOT_GPR(R_DX)) << 16 | GPR16(c, SLOT_GPR(R_AX)));
    int32_t d = (int16_t)s;
    if (UNLIKELY(d == 0 || (n == INT32_MIN && d == -1)))
        divide_error(c);
    int32_t q = n / d, r = n % d;
    if (UNLIKELY(q != (int16_t)q))
        divide_error(c);
    div_flags(c);
    set_gpr16(c, SLOT_GPR(R_AX), (uint64_t)q);
    set_gpr16(c, SLOT_GPR(R_DX), (uint64_t)r);
}
static inline void k_idiv_32(struct cpu *c, uint64_t s)
{
    int64_t n = (int64_t)((uint64_t)GPR32(c, SLOT_GPR(R_DX)) << 32 | GPR32(c, SLOT_GPR(R_AX)));
    int64_t d = (int32_t)s;
    if (UNLIKELY(d == 0 || (n == INT64_MIN && d == -1)))
        divide_error(c);
    int64_t q = n / d, r = n % d;
    if (UNLIKELY(q != (int32_t)q))
        divide_error(c);
    div_flags(c);
    set_gpr32(c, SLOT_GPR(R_AX), (uint64_t)q);
    set_gpr32(c, SLOT_GPR(R_DX), (uint64_t)r);
}
/* 64-bit: a dividend that is a sign-extended 64-bit value (the usual CQO;
 * IDIV) divides natively; otherwise divide the 128-bit magnitudes. */
static inline void k_idiv_64(struct cpu *c, uint64_t s)
{
    int64_t lo = (int64_t)c->r[R_AX], hi = (int64_t)c->r[R_DX], d = (int64_t)s;
    if (UNLIKELY(d == 0))
        divide_error(c);
    if (LIKELY(hi == lo >> 63)) {
        if (UNLIKELY(lo == INT64_MIN && d == -1))
            divide_error(c);
        div_flags(c);
        c->r[R_AX] = (uint64_t)(lo / d);
        c->r[R_DX] = (uint64_t)(lo % d);
        return;
    }
    s128 n = (s128)((u128)(uint64_t)hi << 64 | (uint64_t)lo);
    u128 un = n < 0 ? 0 - (u128)n : (u128)n;
    uint64_t ud = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
    /* A quotient of 2^64 or more cannot fit: no need to divide. */
    if (UNLIKELY((uint64_t)(un >> 64) >= ud))
        divide_error(c);
    u128 uq = un / ud, ur = un % ud;
    bool neg = (n < 0) != (d < 0);
    if (UNLIKELY(uq > (neg ? 0x8000000000000000ull : 0x7fffffffffffffffull)))
        divide_error(c);
    div_flags(c);
    c->r[R_AX] = neg ? 0 - (uint64_t)uq : (uint64_t)uq;
    c->r[R_DX] = n < 0 ? 0 - (uint64_t)ur : (uint64_t)ur;
}

/* Handlers: source in a register (r) or memory (m). */
#define GEN_ONE(name, B)                                                                \
    static void op_##name##_r_##B(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        k_##name##_##B(c, GPR##B(c, op->r1));                                           \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m_##B(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        k_##name##_##B(c, load##B(c, op_ea(c, op)));                                    \
        NEXT(c, op);                                                              \
    }
#define GEN_ONE_WIDTHS(name) GEN_ONE(name, 8) GEN_ONE(name, 16) GEN_ONE(name, 32) GEN_ONE(name, 64)
#define ONE_OPS(X) X(mul) X(imul) X(div) X(idiv)
ONE_OPS(GEN_ONE_WIDTHS)

enum { M_MUL, M_IMUL, M_DIV, M_IDIV, NONE_OPS };
#define OROW(name, form) { op_##name##_##form##_8, op_##name##_##form##_16, op_##name##_##form##_32, op_##name##_##form##_64 }
#define OFORMS(name) { OROW(name, r), OROW(name, m) },
static const cpu_handler one_h[NONE_OPS][2][4] = { ONE_OPS(OFORMS) };

/* ------------------------------------------------------------ IMUL r, r/m [, imm]
 * The product truncated to the destination; CF = OF = it did not fit,
 * left out when the dead-flag pass proved them dead (OPF_NOFLAGS). */
static inline void imul_flags(struct cpu *c, const struct op *op, bool overflow)
{
    if (!(op->flags & OPF_NOFLAGS))
        mul_flags(c, overflow);
}
static inline int64_t imul_16(struct cpu *c, const struct op *op, uint64_t a, uint64_t b)
{
    int32_t p = (int16_t)a * (int16_t)b;
    imul_flags(c, op, p != (int16_t)p);
    return p;
}
static inline int64_t imul_32(struct cpu *c, const struct op *op, uint64_t a, uint64_t b)
{
    bool ovf;
    uint64_t p = k_imul(false, a, b, &ovf);
    imul_flags(c, op, ovf);
    return (int64_t)p;
}
static inline int64_t imul_64(struct cpu *c, const struct op *op, uint64_t a, uint64_t b)
{
    bool ovf;
    uint64_t p = k_imul(true, a, b, &ovf);
    imul_flags(c, op, ovf);
    return (int64_t)p;
}

/* Forms: rr (r1 *= r2), rm (r1 *= [mem]), rri (r1 = r2 * imm), rmi (r1 = [mem] * imm). */
#define GEN_IMUL(B)                                                                     \
    static void op_imul_rr_##B(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        set_gpr##B(c, op->r1, (uint64_t)imul_##B(c, op, GPR##B(c, op->r1), GPR##B(c, op->r2))); \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_imul_rm_##B(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        uint64_t s = load##B(c, op_ea(c, op));                                          \
        set_gpr##B(c, op->r1, (uint64_t)imul_##B(c, op, GPR##B(c, op->r1), s));             \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_imul_rri_##B(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        set_gpr##B(c, op->r1, (uint64_t)imul_##B(c, op, GPR##B(c, op->r2), (uint64_t)op->imm)); \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_imul_rmi_##B(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        uint64_t s = load##B(c, op_ea(c, op));                                          \
        set_gpr##B(c, op->r1, (uint64_t)imul_##B(c, op, s, (uint64_t)op->imm));             \
        NEXT(c, op);                                                              \
    }
GEN_IMUL(16)
GEN_IMUL(32)
GEN_IMUL(64)
static const cpu_handler imul_h[4][3] = {
    { op_imul_rr_16, op_imul_rr_32, op_imul_rr_64 },
    { op_imul_rm_16, op_imul_rm_32, op_imul_rm_64 },
    { op_imul_rri_16, op_imul_rri_32, op_imul_rri_64 },
    { op_imul_rmi_16, op_imul_rmi_32, op_imul_rmi_64 },
};

/* ------------------------------------------------------------ decoding */
static bool dec_one(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    unsigned bytes = d->ops[0].size / 8;
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
        return false;
    op->size = (uint8_t)bytes;
    if (is_reg(d, 0)) {
        if (!dec_reg_op(d, 0, &op->r1))
            return false;
        op->fn = one_h[which][0][size_index(bytes)];
    } else {
        if (!dec_mem_op(d, 0))
            return false;
        op->fn = one_h[which][1][size_index(bytes)];
    }
    return true;
}

static bool dec_imul(struct decoder *d)
{
    struct op *op = d->op;
    unsigned vis = d->in->operand_count_visible;
    if (vis == 1)
        return dec_one(d, M_IMUL);
    unsigned bytes = d->ops[0].size / 8;
    if ((vis != 2 && vis != 3) || (bytes != 2 && bytes != 4 && bytes != 8))
        return false;
    op->size = (uint8_t)bytes;
    if (!dec_reg_op(d, 0, &op->r1))
        return false;
    unsigned form;
    if (is_reg(d, 1)) {
        if (!dec_reg_op(d, 1, &op->r2))
            return false;
        form = 0;
    } else if (dec_mem_op(d, 1)) {
        form = 1;
    } else {
        return false;
    }
    if (vis == 3) {
        if (!is_imm(d, 2))
            return false;
        op->imm = dec_imm(d, 2); /* sign-extended imm8 or imm16/imm32 */
        form += 2;
    }
    op->fn = imul_h[form][size_index(bytes) - 1];
    return true;
}

bool dec_muldiv(struct decoder *d)
{
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_MUL: return dec_one(d, M_MUL);
    case ZYDIS_MNEMONIC_IMUL: return dec_imul(d);
    case ZYDIS_MNEMONIC_DIV: return dec_one(d, M_DIV);
    case ZYDIS_MNEMONIC_IDIV: return dec_one(d, M_IDIV);
    default: return false;
    }
}
