/* Bit instructions: BT BTS BTR BTC (register and imm8 bit offsets), BSF BSR,
 * POPCNT, LZCNT, TZCNT.  SDM vol. 2A/2B: "BT—Bit Test", "BTS", "BTR",
 * "BTC", "BSF", "BSR", "POPCNT", "LZCNT", "TZCNT".
 *
 * Bit tests.  With a register destination the offset is taken modulo the
 * width.  With a memory destination an imm8 offset is also taken modulo
 * the width, but a register offset is a signed number of bits from the
 * operand's address, so it selects another word: the word of the operand
 * size at EA + (size * (offset DIV width)), DIV rounding toward minus
 * infinity (an arithmetic shift), the address computed at the address
 * size.  LOCKed BTS/BTR/BTC on memory are host atomics on guest memory.
 * CF receives the bit; ZF is unaffected; OF, SF, AF, PF are undefined, and
 * AMD hosts leave them unchanged, as we do.
 *
 * Scans and counts (reg, r/m of 16/32/64 bits):
 *   BSF/BSR: source 0 sets ZF and leaves the destination as it was -- the
 *   whole 64-bit register, even for a 32-bit operand (AMD documents this;
 *   checked on the host in tests/unit/test_bits.c).  The other flags are
 *   undefined; AMD clears CF, OF, SF, AF and sets PF from the result (from 0
 *   when the source is 0), which is what we produce.
 *   POPCNT: ZF = (source == 0), CF OF SF AF PF cleared.
 *   LZCNT/TZCNT (F3-prefixed; the CPUID model advertises ABM/LZCNT and BMI1,
 *   so these are never BSR/BSF): the result for source 0 is the operand
 *   size; CF = (source == 0), ZF = (result == 0); OF, SF, AF, PF are
 *   undefined: AMD clears SF, AF, PF and keeps OF, as we do. */
#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"

/* Replace all six arithmetic flags: the old ones need not be computed. */
static inline void flags_replace_all(struct cpu *c, uint64_t f)
{
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | f;
    c->lf_op = LF_NONE;
}

#define RD_16(off) GPR16(c, off)
#define RD_32(off) GPR32(c, off)
#define RD_64(off) GPR64(c, off)
#define LOG_16 4
#define LOG_32 5
#define LOG_64 6

/* ------------------------------------------------------------ BT BTS BTR BTC */
/* The word after the operation on bit mask m; WRITES_x: whether it is stored. */
#define BK_bt(v, m) ((void)(m), (v))
#define BK_bts(v, m) ((v) | (m))
#define BK_btr(v, m) ((v) & ~(m))
#define BK_btc(v, m) ((v) ^ (m))
#define WRITES_bt 0
#define WRITES_bts 1
#define WRITES_btr 1
#define WRITES_btc 1
#define ATOMIC_bts(p, m) __atomic_fetch_or(p, m, __ATOMIC_SEQ_CST)
#define ATOMIC_btr(p, m) __atomic_fetch_and(p, (__typeof__(m))~(m), __ATOMIC_SEQ_CST)
#define ATOMIC_btc(p, m) __atomic_fetch_xor(p, m, __ATOMIC_SEQ_CST)

/* The address of the word that holds bit `off` (signed, register form). */
static inline uint64_t bt_addr(const struct cpu *c, const struct op *op, int64_t off,
                               unsigned log_bits)
{
    uint64_t a = op_lea(c, op) + ((uint64_t)(off >> log_bits) << (log_bits - 3));
    if (op->flags & OPF_ADDR32)
        a = (uint32_t)a;
    return a + c->seg_base[op->seg];
}

#define GEN_BT(name, B)                                                                 \
    static inline void reg_##name##_##B(struct cpu *c, const struct op *op, unsigned n) \
    {                                                                                   \
        uint##B##_t v = RD_##B(op->r1), m = (uint##B##_t)((uint##B##_t)1 << n);         \
        if (WRITES_##name)                                                              \
            set_gpr##B(c, op->r1, (uint##B##_t)BK_##name(v, m));                        \
        if (!(op->flags & OPF_NOFLAGS))          \
            cpu_set_arith(c, (v >> n) & 1, FL_CF);                                       \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static inline void mem_##name##_##B(struct cpu *c, const struct op *op, uint64_t a, \
                                        unsigned n)                                     \
    {                                                                                   \
        uint##B##_t v = load##B(c, a), m = (uint##B##_t)((uint##B##_t)1 << n);          \
        if (WRITES_##name)                                                              \
            store##B(c, a, (uint##B##_t)BK_##name(v, m));                               \
        if (!(op->flags & OPF_NOFLAGS))          \
            cpu_set_arith(c, (v >> n) & 1, FL_CF);                                       \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_rr_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        reg_##name##_##B(c, op, RD_##B(op->r2) & (B - 1));                              \
    }                                                                                   \
    static void op_##name##_ri_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        reg_##name##_##B(c, op, (unsigned)op->imm & (B - 1));                           \
    }                                                                                   \
    static void op_##name##_mr_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        int64_t off = (int##B##_t)RD_##B(op->r2);                                       \
        mem_##name##_##B(c, op, bt_addr(c, op, off, LOG_##B), (unsigned)off & (B - 1)); \
    }                                                                                   \
    static void op_##name##_mi_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        mem_##name##_##B(c, op, op_ea(c, op), (unsigned)op->imm & (B - 1));             \
    }

/* LOCKed memory forms (BT itself takes no LOCK: #UD). */
#define GEN_BT_LOCK(name, B)                                                            \
    static inline void lock_##name##_##B(struct cpu *c, const struct op *op, uint64_t a,\
                                         unsigned n)                                    \
    {                                                                                   \
        uint##B##_t *p = g2h(c, a), m = (uint##B##_t)((uint##B##_t)1 << n);             \
        uint##B##_t old = ATOMIC_##name(p, m);                                          \
        cpu_set_arith(c, (old >> n) & 1, FL_CF);                                        \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_lmr_##B(struct cpu *c, const struct op *op)                 \
    {                                                                                   \
        int64_t off = (int##B##_t)RD_##B(op->r2);                                       \
        lock_##name##_##B(c, op, bt_addr(c, op, off, LOG_##B), (unsigned)off & (B - 1));\
    }                                                                                   \
    static void op_##name##_lmi_##B(struct cpu *c, const struct op *op)                 \
    {                                                                                   \
        lock_##name##_##B(c, op, op_ea(c, op), (unsigned)op->imm & (B - 1));            \
    }

#define GEN_BT_WIDTHS(name) GEN_BT(name, 16) GEN_BT(name, 32) GEN_BT(name, 64)
#define GEN_BT_LOCK_WIDTHS(name) GEN_BT_LOCK(name, 16) GEN_BT_LOCK(name, 32) GEN_BT_LOCK(name, 64)
GEN_BT_WIDTHS(bt)
GEN_BT_WIDTHS(bts)
GEN_BT_WIDTHS(btr)
GEN_BT_WIDTHS(btc)
GEN_BT_LOCK_WIDTHS(bts)
GEN_BT_LOCK_WIDTHS(btr)
GEN_BT_LOCK_WIDTHS(btc)

enum { BF_RR, BF_RI, BF_MR, BF_MI, BF_LMR, BF_LMI, NBFORMS };
enum { B_BT, B_BTS, B_BTR, B_BTC, NBT };
#define BROW(name, form) { op_##name##_##form##_16, op_##name##_##form##_32, op_##name##_##form##_64 }
#define BFORMS(name, lock_r, lock_i)                                                    \
    { BROW(name, rr), BROW(name, ri), BROW(name, mr), BROW(name, mi), lock_r, lock_i }
#define NOLOCK { NULL, NULL, NULL }
static const cpu_handler bt_h[NBT][NBFORMS][3] = {
    BFORMS(bt, NOLOCK, NOLOCK),
    BFORMS(bts, BROW(bts, lmr), BROW(bts, lmi)),
    BFORMS(btr, BROW(btr, lmr), BROW(btr, lmi)),
    BFORMS(btc, BROW(btc, lmr), BROW(btc, lmi)),
};

/* ------------------------------------------------------------ scans and counts */
/* Each kernel takes the source zero-extended from its width. */
static inline void k_bsf(struct cpu *c, const struct op *op, unsigned bits, uint64_t s)
{
    if (s == 0) {
        flags_replace_all(c, FL_ZF | FL_PF);
        return;
    }
    unsigned r = (unsigned)__builtin_ctzll(s);
    set_reg_n(c, op->r1, bits / 8, r);
    flags_replace_all(c, parity_flag(r));
}

static inline void k_bsr(struct cpu *c, const struct op *op, unsigned bits, uint64_t s)
{
    if (s == 0) {
        flags_replace_all(c, FL_ZF | FL_PF);
        return;
    }
    unsigned r = 63u - (unsigned)__builtin_clzll(s);
    set_reg_n(c, op->r1, bits / 8, r);
    flags_replace_all(c, parity_flag(r));
}

static inline void k_popcnt(struct cpu *c, const struct op *op, unsigned bits, uint64_t s)
{
    set_reg_n(c, op->r1, bits / 8, (uint64_t)__builtin_popcountll(s));
    flags_replace_all(c, s == 0 ? FL_ZF : 0);
}

static inline void count_flags(struct cpu *c, uint64_t s, unsigned r)
{
    cpu_set_arith(c, (s == 0 ? FL_CF : 0) | (r == 0 ? FL_ZF : 0),
                  FL_CF | FL_ZF | FL_SF | FL_AF | FL_PF);
}

static inline void k_tzcnt(struct cpu *c, const struct op *op, unsigned bits, uint64_t s)
{
    unsigned r = s ? (unsigned)__builtin_ctzll(s) : bits;
    set_reg_n(c, op->r1, bits / 8, r);
    count_flags(c, s, r);
}

static inline void k_lzcnt(struct cpu *c, const struct op *op, unsigned bits, uint64_t s)
{
    unsigned r = s ? (unsigned)__builtin_clzll(s) - (64 - bits) : bits;
    set_reg_n(c, op->r1, bits / 8, r);
    count_flags(c, s, r);
}

/* set_reg_n with a constant size folds to the one store of that width. */
#define GEN_SCAN(name, B)                                                               \
    static void op_##name##_r_##B(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        k_##name(c, op, B, RD_##B(op->r2));                                             \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m_##B(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        k_##name(c, op, B, load##B(c, op_ea(c, op)));                                   \
        NEXT(c, op);                                                              \
    }
#define GEN_SCAN_WIDTHS(name) GEN_SCAN(name, 16) GEN_SCAN(name, 32) GEN_SCAN(name, 64)
GEN_SCAN_WIDTHS(bsf)
GEN_SCAN_WIDTHS(bsr)
GEN_SCAN_WIDTHS(popcnt)
GEN_SCAN_WIDTHS(tzcnt)
GEN_SCAN_WIDTHS(lzcnt)

enum { S_BSF, S_BSR, S_POPCNT, S_TZCNT, S_LZCNT, NSCAN };
#define SROW(name, form) { op_##name##_##form##_16, op_##name##_##form##_32, op_##name##_##form##_64 }
#define SFORMS(name) { SROW(name, r), SROW(name, m) }
static const cpu_handler scan_h[NSCAN][2][3] = {
    SFORMS(bsf), SFORMS(bsr), SFORMS(popcnt), SFORMS(tzcnt), SFORMS(lzcnt),
};

/* ------------------------------------------------------------ decoding */
/* Index of a 16/32/64-bit operand size; -1 for anything else. */
static int width_index(unsigned bits)
{
    return bits == 16 ? 0 : bits == 32 ? 1 : bits == 64 ? 2 : -1;
}

static bool dec_bt(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    int w = width_index(d->ops[0].size);
    if (w < 0)
        return false;
    op->size = (uint8_t)(d->ops[0].size / 8);
    bool imm = is_imm(d, 1);
    if (imm)
        op->imm = (int64_t)(d->ops[1].imm.value.u & 0xff);
    else if (!dec_reg_op(d, 1, &op->r2))
        return false;
    if (is_reg(d, 0)) {
        if (op->flags & OPF_LOCK)
            return false; /* #UD; the decoder rejects it already */
        op->fn = bt_h[which][imm ? BF_RI : BF_RR][w];
        return dec_reg_op(d, 0, &op->r1);
    }
    if (!dec_mem_op(d, 0))
        return false;
    unsigned form = imm ? BF_MI : BF_MR;
    if (op->flags & OPF_LOCK) {
        if (which == B_BT)
            return false;
        form = imm ? BF_LMI : BF_LMR;
    }
    op->fn = bt_h[which][form][w];
    return true;
}

static bool dec_scan(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    int w = width_index(d->ops[0].size);
    if (w < 0 || !dec_reg_op(d, 0, &op->r1))
        return false;
    op->size = (uint8_t)(d->ops[0].size / 8);
    if (is_reg(d, 1)) {
        op->fn = scan_h[which][0][w];
        return dec_reg_op(d, 1, &op->r2);
    }
    op->fn = scan_h[which][1][w];
    return dec_mem_op(d, 1);
}

bool dec_bits(struct decoder *d)
{
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_BT: return dec_bt(d, B_BT);
    case ZYDIS_MNEMONIC_BTS: return dec_bt(d, B_BTS);
    case ZYDIS_MNEMONIC_BTR: return dec_bt(d, B_BTR);
    case ZYDIS_MNEMONIC_BTC: return dec_bt(d, B_BTC);
    case ZYDIS_MNEMONIC_BSF: return dec_scan(d, S_BSF);
    case ZYDIS_MNEMONIC_BSR: return dec_scan(d, S_BSR);
    case ZYDIS_MNEMONIC_POPCNT: return dec_scan(d, S_POPCNT);
    case ZYDIS_MNEMONIC_TZCNT: return dec_scan(d, S_TZCNT);
    case ZYDIS_MNEMONIC_LZCNT: return dec_scan(d, S_LZCNT);
    default: return false;
    }
}
