/* General-purpose bit manipulation and friends:
 *   BMI1  ANDN BEXTR BLSI BLSMSK BLSR            (VEX)
 *   BMI2  BZHI MULX PDEP PEXT RORX SARX SHLX SHRX (VEX)
 *   ADX   ADCX ADOX
 *   MOVBE, RDRAND, RDSEED
 * (TZCNT and LZCNT are the bits family's.)
 *
 * The VEX forms are 32- or 64-bit (VEX.W; always 32 outside 64-bit mode).
 * Operands, as Zydis gives them: op0 the destination, then the VEX.vvvv and
 * ModRM.r/m sources in the instruction's order.  In an op: r1 = the
 * destination, r2 = the register source (or MULX's low destination), and
 * x1 = the r/m register when it is not memory.  Handlers exist per width
 * and r/m form. */
#include <errno.h>
#include <sys/random.h>

#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"

/* Replace all six arithmetic flags (see cpu/ops_sse42.c). */
static inline void set_arith_all(struct cpu *c, uint64_t f)
{
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | f;
    c->lf_op = LF_NONE;
}

/* SF and ZF of a B-bit result, and PF from its low byte.  Where the SDM
 * leaves PF (and AF, SF) undefined, PF from the result and AF clear is
 * what the AMD test hosts show (except BEXTR, whose AF they set); the
 * tests mask those flags. */
#define SZP(B, v)                                                                       \
    ((((v) >> (B - 1)) & 1 ? FL_SF : 0) | ((uint##B##_t)(v) == 0 ? FL_ZF : 0) | parity_flag(v))

/* ------------------------------------------------------------ BMI1 / BMI2 kernels
 * k_NAME_B(c, op, s): s is the r/m source value; each kernel writes its
 * destination(s) and flags (memory has been read already). */

/* ANDN: ~src1 & src2.  SF, ZF from the result; CF, OF cleared; AF, PF undefined. */
#define K_ANDN(B)                                                                       \
    static inline void k_andn_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        uint##B##_t r = (uint##B##_t)(~GPR##B(c, op->r2) & s);                          \
        set_gpr##B(c, op->r1, r);                                                       \
        set_arith_all(c, SZP(B, r));                                                    \
    }

/* BEXTR: len = src2[15:8] bits from src1 at start = src2[7:0], zero-filled
 * beyond the operand.  ZF from the result; CF, OF cleared; AF, SF, PF
 * undefined. */
#define K_BEXTR(B)                                                                      \
    static inline void k_bextr_##B(struct cpu *c, const struct op *op, uint##B##_t s)   \
    {                                                                                   \
        uint##B##_t ctl = GPR##B(c, op->r2);                                            \
        unsigned start = ctl & 0xff, len = (ctl >> 8) & 0xff;                           \
        uint##B##_t r = start < B ? (uint##B##_t)(s >> start) : 0;                      \
        if (len < B)                                                                    \
            r &= (uint##B##_t)((1ull << len) - 1);                                      \
        set_gpr##B(c, op->r1, r);                                                       \
        set_arith_all(c, SZP(B, r));                                                    \
    }

/* BLSI: src & -src.  ZF, SF; CF = src != 0; OF cleared. */
#define K_BLSI(B)                                                                       \
    static inline void k_blsi_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        uint##B##_t r = (uint##B##_t)(s & (0 - s));                                     \
        set_gpr##B(c, op->r1, r);                                                       \
        set_arith_all(c, SZP(B, r) | (s ? FL_CF : 0));                                  \
    }

/* BLSMSK: src ^ (src - 1).  SF; CF = src == 0; ZF, OF cleared. */
#define K_BLSMSK(B)                                                                     \
    static inline void k_blsmsk_##B(struct cpu *c, const struct op *op, uint##B##_t s)  \
    {                                                                                   \
        uint##B##_t r = (uint##B##_t)(s ^ (s - 1));                                     \
        set_gpr##B(c, op->r1, r);                                                       \
        set_arith_all(c, (SZP(B, r) & ~(uint64_t)FL_ZF) | (s ? 0 : FL_CF));             \
    }

/* BLSR: src & (src - 1).  ZF, SF; CF = src == 0; OF cleared. */
#define K_BLSR(B)                                                                       \
    static inline void k_blsr_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        uint##B##_t r = (uint##B##_t)(s & (s - 1));                                     \
        set_gpr##B(c, op->r1, r);                                                       \
        set_arith_all(c, SZP(B, r) | (s ? 0 : FL_CF));                                  \
    }

/* BZHI: clear the bits from index src2[7:0] up.  ZF, SF; CF = index >
 * operand size - 1; OF cleared. */
#define K_BZHI(B)                                                                       \
    static inline void k_bzhi_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        unsigned n = GPR##B(c, op->r2) & 0xff;                                          \
        uint##B##_t r = n < B ? (uint##B##_t)(s & ((1ull << n) - 1)) : s;               \
        set_gpr##B(c, op->r1, r);                                                       \
        set_arith_all(c, SZP(B, r) | (n > B - 1 ? FL_CF : 0));                          \
    }

/* MULX: EDX/RDX * src unsigned; low half to vvvv (r2), then the high half
 * to ModRM.reg (r1), so that the high half wins when both are the same
 * register (SDM).  Flags unaffected. */
static inline void k_mulx_32(struct cpu *c, const struct op *op, uint32_t s)
{
    uint64_t p = (uint64_t)GPR32(c, SLOT_GPR(R_DX)) * s;
    set_gpr32(c, op->r2, p);
    set_gpr32(c, op->r1, p >> 32);
}

static inline void k_mulx_64(struct cpu *c, const struct op *op, uint64_t s)
{
    unsigned __int128 p = (unsigned __int128)GPR64(c, SLOT_GPR(R_DX)) * s;
    set_gpr64(c, op->r2, (uint64_t)p);
    set_gpr64(c, op->r1, (uint64_t)(p >> 64));
}

/* PDEP: the low bits of src1 (vvvv) deposited at the set bits of the mask
 * (r/m); PEXT: the bits of src1 at the mask's set bits, packed low. */
static inline uint64_t pdep(uint64_t src, uint64_t mask)
{
    uint64_t r = 0;
    for (uint64_t bit = 1; mask; bit <<= 1, mask &= mask - 1)
        if (src & bit)
            r |= mask & (0 - mask);
    return r;
}

static inline uint64_t pext(uint64_t src, uint64_t mask)
{
    uint64_t r = 0;
    for (uint64_t bit = 1; mask; bit <<= 1, mask &= mask - 1)
        if (src & mask & (0 - mask))
            r |= bit;
    return r;
}

#define K_PDEP_PEXT(B)                                                                  \
    static inline void k_pdep_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        set_gpr##B(c, op->r1, pdep(GPR##B(c, op->r2), s));                              \
    }                                                                                   \
    static inline void k_pext_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        set_gpr##B(c, op->r1, pext(GPR##B(c, op->r2), s));                              \
    }

/* RORX by imm8 and SARX/SHLX/SHRX by vvvv, counts masked to 5 (6) bits;
 * flags unaffected. */
#define K_SHIFTS(B, SB)                                                                 \
    static inline void k_rorx_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        unsigned n = (unsigned)op->imm & (B - 1);                                       \
        set_gpr##B(c, op->r1, n ? (uint##B##_t)((s >> n) | (s << (B - n))) : s);        \
    }                                                                                   \
    static inline void k_sarx_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        set_gpr##B(c, op->r1, (uint##B##_t)((SB)s >> (GPR##B(c, op->r2) & (B - 1))));   \
    }                                                                                   \
    static inline void k_shlx_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        set_gpr##B(c, op->r1, (uint##B##_t)(s << (GPR##B(c, op->r2) & (B - 1))));       \
    }                                                                                   \
    static inline void k_shrx_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        set_gpr##B(c, op->r1, (uint##B##_t)(s >> (GPR##B(c, op->r2) & (B - 1))));       \
    }

/* ADCX / ADOX: dest + src + CF (OF), the carry out to CF (OF); no other
 * flag changes.  cpu_cf() reads CF cheaply from a lazy record. */
#define K_ADX(B)                                                                        \
    static inline void k_adcx_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        uint##B##_t d = GPR##B(c, op->r1), r = (uint##B##_t)(d + s);                    \
        bool in = cpu_cf(c), out = r < d;                                               \
        r = (uint##B##_t)(r + in);                                                      \
        out |= in && r == 0;                                                            \
        cpu_set_arith(c, out ? FL_CF : 0, FL_CF);                                       \
        set_gpr##B(c, op->r1, r);                                                       \
    }                                                                                   \
    static inline void k_adox_##B(struct cpu *c, const struct op *op, uint##B##_t s)    \
    {                                                                                   \
        uint##B##_t d = GPR##B(c, op->r1), r = (uint##B##_t)(d + s);                    \
        bool in = (cpu_flags(c) & FL_OF) != 0, out = r < d;                             \
        r = (uint##B##_t)(r + in);                                                      \
        out |= in && r == 0;                                                            \
        cpu_set_arith(c, out ? FL_OF : 0, FL_OF);                                       \
        set_gpr##B(c, op->r1, r);                                                       \
    }

#define KERNELS(B, SB) K_ANDN(B) K_BEXTR(B) K_BLSI(B) K_BLSMSK(B) K_BLSR(B) K_BZHI(B)     \
    K_PDEP_PEXT(B) K_SHIFTS(B, SB) K_ADX(B)
KERNELS(32, int32_t)
KERNELS(64, int64_t)

/* Handlers: r/m a register (x1) or memory, for 32 and 64 bits. */
#define GEN_FORMS(name)                                                                 \
    static void op_##name##_r32(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        k_##name##_32(c, op, GPR32(c, op->x1));                                         \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m32(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        k_##name##_32(c, op, load32(c, op_ea(c, op)));                                  \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_r64(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        k_##name##_64(c, op, GPR64(c, op->x1));                                         \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m64(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        k_##name##_64(c, op, load64(c, op_ea(c, op)));                                  \
        NEXT(c, op);                                                              \
    }
#define ALL_RM_OPS(X) X(andn) X(bextr) X(blsi) X(blsmsk) X(blsr) X(bzhi) X(mulx) X(pdep) \
    X(pext) X(rorx) X(sarx) X(shlx) X(shrx) X(adcx) X(adox)
ALL_RM_OPS(GEN_FORMS)

enum { B_ANDN, B_BEXTR, B_BLSI, B_BLSMSK, B_BLSR, B_BZHI, B_MULX, B_PDEP, B_PEXT, B_RORX,
       B_SARX, B_SHLX, B_SHRX, B_ADCX, B_ADOX, NBMI };
#define FORM_ROW(name) { op_##name##_r32, op_##name##_m32, op_##name##_r64, op_##name##_m64 },
static const cpu_handler bmi_h[NBMI][4] = { ALL_RM_OPS(FORM_ROW) };

/* ------------------------------------------------------------ MOVBE
 * Load or store with the bytes reversed; 16-bit loads merge, 32-bit loads
 * zero-extend.  Memory operands only (the register encodings are CRC32 or
 * invalid). */
static void op_movbe_load16(struct cpu *c, const struct op *op)
{
    set_gpr16(c, op->r1, __builtin_bswap16(load16(c, op_ea(c, op))));
    NEXT(c, op);
}
static void op_movbe_load32(struct cpu *c, const struct op *op)
{
    set_gpr32(c, op->r1, __builtin_bswap32(load32(c, op_ea(c, op))));
    NEXT(c, op);
}
static void op_movbe_load64(struct cpu *c, const struct op *op)
{
    set_gpr64(c, op->r1, __builtin_bswap64(load64(c, op_ea(c, op))));
    NEXT(c, op);
}
static void op_movbe_store16(struct cpu *c, const struct op *op)
{
    store16(c, op_ea(c, op), __builtin_bswap16(GPR16(c, op->r2)));
    NEXT(c, op);
}
static void op_movbe_store32(struct cpu *c, const struct op *op)
{
    store32(c, op_ea(c, op), __builtin_bswap32(GPR32(c, op->r2)));
    NEXT(c, op);
}
static void op_movbe_store64(struct cpu *c, const struct op *op)
{
    store64(c, op_ea(c, op), __builtin_bswap64(GPR64(c, op->r2)));
    NEXT(c, op);
}

/* ------------------------------------------------------------ RDRAND / RDSEED
 * The host kernel's CSPRNG stands in for the DRNG (both are conditioned
 * random numbers; RDSEED's stronger promise is met by getrandom too).  On
 * success CF = 1 and the value is written; should the host fail, the
 * instruction reports what the hardware reports when it has no entropy:
 * CF = 0 and a zero destination.  OF, SF, ZF, AF, PF are cleared (SDM). */
static void op_rdrand(struct cpu *c, const struct op *op)
{
    uint64_t v = 0;
    ssize_t got;
    do
        got = getrandom(&v, op->size, 0);
    while (got < 0 && errno == EINTR);
    bool ok = got == (ssize_t)op->size;
    if (!ok)
        v = 0;
    set_reg_n(c, op->r1, op->size, v);
    set_arith_all(c, ok ? FL_CF : 0);
    NEXT(c, op);
}

/* ------------------------------------------------------------ decoding */
/* The r/m operand i: a register into x1, or the memory operand; returns the
 * form index (0 register, 1 memory) or -1. */
static int dec_rm(struct decoder *d, unsigned i)
{
    if (is_reg(d, i))
        return dec_reg_op(d, i, &d->op->x1) ? 0 : -1;
    return dec_mem_op(d, i) ? 1 : -1;
}

/* dest, [register source,] r/m: ro is the register source's operand index
 * (0: none), rm the r/m's. */
static bool dec_bmi_form(struct decoder *d, unsigned which, unsigned ro, unsigned rm)
{
    struct op *op = d->op;
    unsigned bits = d->ops[0].size;
    if (bits != 32 && bits != 64)
        return false;
    if (!dec_reg_op(d, 0, &op->r1) || (ro && !dec_reg_op(d, ro, &op->r2)))
        return false;
    int form = dec_rm(d, rm);
    if (form < 0)
        return false;
    op->size = (uint8_t)(bits / 8);
    op->fn = bmi_h[which][(bits == 64 ? 2 : 0) + form];
    return true;
}

static bool dec_movbe(struct decoder *d)
{
    struct op *op = d->op;
    static const cpu_handler load[4] = { 0, op_movbe_load16, op_movbe_load32, op_movbe_load64 };
    static const cpu_handler store[4] = { 0, op_movbe_store16, op_movbe_store32, op_movbe_store64 };
    unsigned w = size_index(d->ops[0].size / 8);
    if (w == 0)
        return false;
    if (is_mem(d, 1)) {
        if (!dec_reg_op(d, 0, &op->r1) || !dec_mem_op(d, 1))
            return false;
        op->fn = load[w];
        return true;
    }
    if (!dec_mem_op(d, 0) || !dec_reg_op(d, 1, &op->r2))
        return false;
    op->fn = store[w];
    return true;
}

static bool dec_rdrand(struct decoder *d)
{
    struct op *op = d->op;
    unsigned size = d->ops[0].size / 8;
    if ((size != 2 && size != 4 && size != 8) || !dec_reg_op(d, 0, &op->r1))
        return false;
    op->size = (uint8_t)size;
    op->fn = op_rdrand;
    return true;
}

bool dec_bmi(struct decoder *d)
{
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_ANDN: return dec_bmi_form(d, B_ANDN, 1, 2);
    case ZYDIS_MNEMONIC_BEXTR: return dec_bmi_form(d, B_BEXTR, 2, 1);
    case ZYDIS_MNEMONIC_BLSI: return dec_bmi_form(d, B_BLSI, 0, 1);
    case ZYDIS_MNEMONIC_BLSMSK: return dec_bmi_form(d, B_BLSMSK, 0, 1);
    case ZYDIS_MNEMONIC_BLSR: return dec_bmi_form(d, B_BLSR, 0, 1);
    case ZYDIS_MNEMONIC_BZHI: return dec_bmi_form(d, B_BZHI, 2, 1);
    case ZYDIS_MNEMONIC_MULX: return dec_bmi_form(d, B_MULX, 1, 2);
    case ZYDIS_MNEMONIC_PDEP: return dec_bmi_form(d, B_PDEP, 1, 2);
    case ZYDIS_MNEMONIC_PEXT: return dec_bmi_form(d, B_PEXT, 1, 2);
    case ZYDIS_MNEMONIC_SARX: return dec_bmi_form(d, B_SARX, 2, 1);
    case ZYDIS_MNEMONIC_SHLX: return dec_bmi_form(d, B_SHLX, 2, 1);
    case ZYDIS_MNEMONIC_SHRX: return dec_bmi_form(d, B_SHRX, 2, 1);
    case ZYDIS_MNEMONIC_RORX:
        if (!is_imm(d, 2))
            return false;
        d->op->imm = dec_imm(d, 2) & 0xff;
        return dec_bmi_form(d, B_RORX, 0, 1);
    case ZYDIS_MNEMONIC_ADCX: return dec_bmi_form(d, B_ADCX, 0, 1);
    case ZYDIS_MNEMONIC_ADOX: return dec_bmi_form(d, B_ADOX, 0, 1);
    case ZYDIS_MNEMONIC_MOVBE: return dec_movbe(d);
    case ZYDIS_MNEMONIC_RDRAND:
    case ZYDIS_MNEMONIC_RDSEED: return dec_rdrand(d);
    default: return false;
    }
}
