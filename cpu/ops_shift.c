/* Shifts and rotates: SHL/SAL SHR SAR ROL ROR RCL RCR (by 1, imm8, CL) and
 * the double shifts SHLD SHRD (imm8, CL).  SDM vol. 2B: "SAL/SAR/SHL/SHR",
 * "RCL/RCR/ROL/ROR", "SHLD", "SHRD".
 *
 * The count is masked to 5 bits (6 for 64-bit operands).  A masked count of
 * 0 changes no flags, but the destination is still written: a 32-bit
 * register is zero-extended into its 64-bit register (the host does so,
 * checked in tests/unit/test_shift.c), and a memory operand is read and
 * written back like every read-modify-write.
 *
 * The flags stay lazy (cpu/flags.h): each kernel returns the result, the
 * flags it decides itself and the set of flags it changes.  Shifts change
 * all six: they leave a record of a logic operation on the result (SF, ZF,
 * PF) with CF, AF and OF in its override fields, whatever the previous
 * operation was; rotates change only CF and OF, which go to the override
 * fields of the previous operation's record.  Where the
 * SDM leaves a flag undefined (AF after a shift, OF after a multi-bit
 * shift or rotate, CF after SHL/SHR by >= the width) we produce what the
 * AMD hosts we test on produce, so differential runs stay quiet there. */
#include "cpu/decode.h"
#include "cpu/mem.h"
#include "cpu/shift.h"

/* ------------------------------------------------------------ handlers
 * Forms: ri (register, imm8 or 1: op->imm holds the masked count), rc
 * (register, CL), mi, mc (memory).  The kernel runs only for a nonzero
 * count. */
#define CNTMASK(B) ((B) == 64 ? 63u : 31u)
#define CL_COUNT(B) (GPR8(c, SLOT_GPR(R_CX)) & CNTMASK(B))

#define SH_RUN(name, B, v, n)                                                           \
    uint64_t v_ = (v);                                                                  \
    unsigned n_ = (n);                                                                  \
    struct shres s = n_ ? k_##name(c, B, v_, n_) : (struct shres){ v_, 0, 0 }

#define GEN_SHIFT(name, B)                                                              \
    static void op_##name##_ri_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        /* the count is not 0 (op_shift_ri0_B has those) */                             \
        struct shres s = k_##name(c, B, GPR##B(c, op->r1), (unsigned)op->imm);          \
        set_gpr##B(c, op->r1, s.r);                                                     \
        sh_flags(c, op, &s, B);                                                            \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_##name##_rc_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        SH_RUN(name, B, GPR##B(c, op->r1), CL_COUNT(B));                                \
        set_gpr##B(c, op->r1, s.r);                                                     \
        sh_flags(c, op, &s, B);                                                                \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_mi_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        uint64_t a = op_ea(c, op);                                                      \
        SH_RUN(name, B, load##B(c, a), (unsigned)op->imm);                              \
        store##B(c, a, (uint##B##_t)s.r);                                               \
        sh_flags(c, op, &s, B);                                                                \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_mc_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        uint64_t a = op_ea(c, op);                                                      \
        SH_RUN(name, B, load##B(c, a), CL_COUNT(B));                                    \
        store##B(c, a, (uint##B##_t)s.r);                                               \
        sh_flags(c, op, &s, B);                                                                \
        NEXT(c, op);                                                              \
    }

/* A register shifted or rotated by an immediate count of 0 (after masking)
 * keeps its value and the flags; a 32-bit register is zero-extended. */
#define GEN_SHIFT_RI0(B)                                                                \
    static void op_shift_ri0_##B(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        set_gpr##B(c, op->r1, GPR##B(c, op->r1));                                       \
        NEXT(c, op);                                                                    \
    }
GEN_SHIFT_RI0(8)
GEN_SHIFT_RI0(16)
GEN_SHIFT_RI0(32)
GEN_SHIFT_RI0(64)
static const cpu_handler shift_ri0_h[4] = { op_shift_ri0_8, op_shift_ri0_16, op_shift_ri0_32, op_shift_ri0_64 };

#define GEN_SHIFT_WIDTHS(name) GEN_SHIFT(name, 8) GEN_SHIFT(name, 16) GEN_SHIFT(name, 32) GEN_SHIFT(name, 64)
#define SHIFT_OPS(X) X(shl) X(shr) X(sar) X(rol) X(ror) X(rcl) X(rcr)
SHIFT_OPS(GEN_SHIFT_WIDTHS)

enum { S_SHL, S_SHR, S_SAR, S_ROL, S_ROR, S_RCL, S_RCR, NSHIFT };
enum { F_RI, F_RC, F_MI, F_MC, NFORMS };
#define SROW(name, form) { op_##name##_##form##_8, op_##name##_##form##_16, op_##name##_##form##_32, op_##name##_##form##_64 }
#define SFORMS(name) { SROW(name, ri), SROW(name, rc), SROW(name, mi), SROW(name, mc) },
static const cpu_handler shift_h[NSHIFT][NFORMS][4] = { SHIFT_OPS(SFORMS) };

/* ------------------------------------------------------------ SHLD / SHRD
 * d = destination, s = source (the bits shifted in), n = masked count > 0.
 * CF = the last bit shifted out of d; SF/ZF/PF from the result; AF is
 * undefined (AMD sets it).  OF is defined for n = 1 only, as "the sign
 * changed"; for every n we give AMD's values, which agree at n = 1: SHLD
 * CF ^ MSB(d << n), SHRD MSB(result) ^ MSB-1(result).  A 16-bit operand
 * with a count above 16 has an undefined result and flags: AMD shifts the
 * 48 bits d:s:s (SHLD) or s:s:d (SHRD), which rotates s by n - 16, with
 * CF = 0, and so do we (Intel differs). */
static inline struct shres k_shld(struct cpu *c, unsigned bits, uint64_t d, uint64_t s, unsigned n)
{
    (void)c;
    uint64_t r, cf;
    if (bits == 16 && n > 16) {
        r = ((s << (n - 16)) | (s >> (32 - n))) & 0xffff;
        cf = 0;
    } else {
        r = ((d << n) | (s >> (bits - n))) & wmask(bits);
        cf = (d >> (bits - n)) & 1;
    }
    return (struct shres){ r, FL_AF | cf_of(cf, cf ^ msb(d << n, bits)), FL_ARITH };
}

static inline struct shres k_shrd(struct cpu *c, unsigned bits, uint64_t d, uint64_t s, unsigned n)
{
    (void)c;
    uint64_t r, cf;
    if (bits == 16 && n > 16) {
        r = ((s >> (n - 16)) | (s << (32 - n))) & 0xffff;
        cf = 0;
    } else {
        r = ((d >> n) | (s << (bits - n))) & wmask(bits);
        cf = (d >> (n - 1)) & 1;
    }
    return (struct shres){ r, FL_AF | cf_of(cf, msb(r, bits) ^ msb(r, bits - 1)), FL_ARITH };
}

#define SHD_RUN(name, B, d, src, n)                                                     \
    uint64_t d_ = (d);                                                                  \
    unsigned n_ = (n);                                                                  \
    struct shres s = n_ ? k_##name(c, B, d_, (src), n_) : (struct shres){ d_, 0, 0 }

#define GEN_SHD(name, B)                                                                \
    static void op_##name##_ri_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        SHD_RUN(name, B, GPR##B(c, op->r1), GPR##B(c, op->r2), (unsigned)op->imm);      \
        set_gpr##B(c, op->r1, s.r);                                                     \
        sh_flags(c, op, &s, B);                                                                \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_rc_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        SHD_RUN(name, B, GPR##B(c, op->r1), GPR##B(c, op->r2), CL_COUNT(B));            \
        set_gpr##B(c, op->r1, s.r);                                                     \
        sh_flags(c, op, &s, B);                                                                \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_mi_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        uint64_t a = op_ea(c, op);                                                      \
        SHD_RUN(name, B, load##B(c, a), GPR##B(c, op->r2), (unsigned)op->imm);          \
        store##B(c, a, (uint##B##_t)s.r);                                               \
        sh_flags(c, op, &s, B);                                                                \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_mc_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        uint64_t a = op_ea(c, op);                                                      \
        SHD_RUN(name, B, load##B(c, a), GPR##B(c, op->r2), CL_COUNT(B));                \
        store##B(c, a, (uint##B##_t)s.r);                                               \
        sh_flags(c, op, &s, B);                                                                \
        NEXT(c, op);                                                              \
    }
#define GEN_SHD_WIDTHS(name) GEN_SHD(name, 16) GEN_SHD(name, 32) GEN_SHD(name, 64)
GEN_SHD_WIDTHS(shld)
GEN_SHD_WIDTHS(shrd)

#define DROW(name, form) { op_##name##_##form##_16, op_##name##_##form##_32, op_##name##_##form##_64 }
#define DFORMS(name) { DROW(name, ri), DROW(name, rc), DROW(name, mi), DROW(name, mc) }
static const cpu_handler shd_h[2][NFORMS][3] = { DFORMS(shld), DFORMS(shrd) };

/* ------------------------------------------------------------ decoding */
/* The count operand (index i): an immediate (or D0/D1's implicit 1),
 * masked now, or CL. */
static bool dec_count(struct decoder *d, unsigned i, unsigned bits, bool *by_cl)
{
    if (is_imm(d, i)) {
        d->op->imm = dec_imm(d, i) & (bits == 64 ? 63 : 31);
        *by_cl = false;
        return true;
    }
    *by_cl = true;
    return is_reg(d, i) && d->ops[i].reg.value == ZYDIS_REGISTER_CL;
}

static bool dec_sh(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    unsigned bits = d->ops[0].size;
    bool by_cl, reg = is_reg(d, 0);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
        return false;
    op->size = (uint8_t)(bits / 8);
    if (!dec_count(d, 1, bits, &by_cl))
        return false;
    if (reg ? !dec_reg_op(d, 0, &op->r1) : !dec_mem_op(d, 0))
        return false;
    op->fn = shift_h[which][(reg ? F_RI : F_MI) + by_cl][size_index(op->size)];
    if (reg && !by_cl && op->imm == 0)
        op->fn = shift_ri0_h[size_index(op->size)];
    return true;
}

static bool dec_shd(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    unsigned bits = d->ops[0].size;
    bool by_cl, reg = is_reg(d, 0);
    if (bits != 16 && bits != 32 && bits != 64)
        return false;
    op->size = (uint8_t)(bits / 8);
    if (!dec_count(d, 2, bits, &by_cl) || !dec_reg_op(d, 1, &op->r2))
        return false;
    if (reg ? !dec_reg_op(d, 0, &op->r1) : !dec_mem_op(d, 0))
        return false;
    op->fn = shd_h[which][(reg ? F_RI : F_MI) + by_cl][size_index(op->size) - 1];
    return true;
}

bool dec_shift(struct decoder *d)
{
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_SHL: return dec_sh(d, S_SHL); /* SAL (/4 and /6) decodes as SHL */
    case ZYDIS_MNEMONIC_SHR: return dec_sh(d, S_SHR);
    case ZYDIS_MNEMONIC_SAR: return dec_sh(d, S_SAR);
    case ZYDIS_MNEMONIC_ROL: return dec_sh(d, S_ROL);
    case ZYDIS_MNEMONIC_ROR: return dec_sh(d, S_ROR);
    case ZYDIS_MNEMONIC_RCL: return dec_sh(d, S_RCL);
    case ZYDIS_MNEMONIC_RCR: return dec_sh(d, S_RCR);
    case ZYDIS_MNEMONIC_SHLD: return dec_shd(d, 0);
    case ZYDIS_MNEMONIC_SHRD: return dec_shd(d, 1);
    default: return false;
    }
}
