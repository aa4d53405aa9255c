/* The integer ALU: ADD OR ADC SBB AND SUB XOR CMP TEST, INC DEC NEG NOT.
 *
 * Each operation is one small inline kernel (cpu/alu.h) that fills a
 * flags record; the handlers, one per operand form and width, are generated from the kernels
 * by the macros below and commit the record only after the last memory
 * access succeeded.  Forms: rr (reg, reg), rm (reg, [mem]), mr ([mem], reg),
 * ri (reg, imm), mi ([mem], imm), and LOCKed mr/mi, which use a host
 * compare-and-swap on guest memory so they are atomic between guest threads.
 * rm, mr and mi exist once per memory operand form (cpu/mem.h ADDR_MODES). */
#include "cpu/alu.h"
#include "cpu/decode.h"
#include "cpu/mem.h"

/* Only ADC and SBB read the carry; for the rest this folds away. */
#define CARRY_add 0
#define CARRY_or 0
#define CARRY_adc cpu_cf(c)
#define CARRY_sbb cpu_cf(c)
#define CARRY_and 0
#define CARRY_sub 0
#define CARRY_xor 0
#define CARRY_cmp 0
#define CARRY_test 0

#define RD_8(off) GPR8(c, off)
#define RD_16(off) GPR16(c, off)
#define RD_32(off) GPR32(c, off)
#define RD_64(off) GPR64(c, off)
#define W_8 0
#define W_16 1
#define W_32 2
#define W_64 3

#define BINARY_OPS(X) X(add) X(or) X(adc) X(sbb) X(and) X(sub) X(xor) X(cmp) X(test)

#define GEN_BINARY(name, B)                                                             \
    static void op_##name##_rr_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        struct lfrec f;                                                                 \
        if (k_##name(W_##B, RD_##B(op->r1), RD_##B(op->r2), CARRY_##name, &f))          \
            set_gpr##B(c, op->r1, f.r);                                                 \
        lf_commit(c, op, &f);                                                           \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_ri_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        struct lfrec f;                                                                 \
        if (k_##name(W_##B, RD_##B(op->r1), (uint64_t)op->imm, CARRY_##name, &f))       \
            set_gpr##B(c, op->r1, f.r);                                                 \
        lf_commit(c, op, &f);                                                           \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static inline void lock_##name##_##B(struct cpu *c, const struct op *op, uint64_t s)\
    {                                                                                   \
        struct lfrec f;                                                                 \
        uint##B##_t *p = g2h(c, op_ea(c, op));                                          \
        uint##B##_t old = __atomic_load_n(p, __ATOMIC_RELAXED);                         \
        do                                                                              \
            k_##name(W_##B, old, s, CARRY_##name, &f);                                  \
        while (!__atomic_compare_exchange_n(p, &old, (uint##B##_t)f.r, false,           \
                                            __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));       \
        lf_commit(c, op, &f);                                                           \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_lmr_##B(struct cpu *c, const struct op *op)                 \
    {                                                                                   \
        lock_##name##_##B(c, op, RD_##B(op->r2));                                       \
    }                                                                                   \
    static void op_##name##_lmi_##B(struct cpu *c, const struct op *op)                 \
    {                                                                                   \
        lock_##name##_##B(c, op, (uint64_t)op->imm);                                    \
    }

/* The memory forms rm, mr, mi, once per operand form (cpu/mem.h ADDR_MODES). */
#define GEN_BINARY_MEM(AM, sfx, name, B)                                                \
    static void op_##name##_rm_##B##_##sfx(struct cpu *c, const struct op *op)          \
    {                                                                                   \
        struct lfrec f;                                                                 \
        uint64_t s = ld##B(am_ptr(c, op, AM));                                          \
        if (k_##name(W_##B, RD_##B(op->r1), s, CARRY_##name, &f))                       \
            set_gpr##B(c, op->r1, f.r);                                                 \
        lf_commit(c, op, &f);                                                           \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static inline void mem_##name##_##B##_##sfx(struct cpu *c, const struct op *op,     \
                                                uint64_t s)                             \
    {                                                                                   \
        struct lfrec f;                                                                 \
        void *p = am_ptr(c, op, AM);                                                    \
        if (k_##name(W_##B, ld##B(p), s, CARRY_##name, &f))                             \
            st##B(p, (uint##B##_t)f.r);                                                 \
        lf_commit(c, op, &f);                                                           \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_##name##_mr_##B##_##sfx(struct cpu *c, const struct op *op)          \
    {                                                                                   \
        mem_##name##_##B##_##sfx(c, op, RD_##B(op->r2));                                \
    }                                                                                   \
    static void op_##name##_mi_##B##_##sfx(struct cpu *c, const struct op *op)          \
    {                                                                                   \
        mem_##name##_##B##_##sfx(c, op, (uint64_t)op->imm);                             \
    }

#define GEN_ALL_WIDTHS(name)                                                            \
    GEN_BINARY(name, 8) GEN_BINARY(name, 16) GEN_BINARY(name, 32) GEN_BINARY(name, 64)  \
    ADDR_MODES(GEN_BINARY_MEM, name, 8) ADDR_MODES(GEN_BINARY_MEM, name, 16)             \
    ADDR_MODES(GEN_BINARY_MEM, name, 32) ADDR_MODES(GEN_BINARY_MEM, name, 64)
BINARY_OPS(GEN_ALL_WIDTHS)

enum { F_RR, F_RI, F_LMR, F_LMI, NFORMS };
enum { F_RM, F_MR, F_MI, NMEMFORMS };
#define ROW(name, form) { op_##name##_##form##_8, op_##name##_##form##_16, op_##name##_##form##_32, op_##name##_##form##_64 }
#define FORMS(name) { ROW(name, rr), ROW(name, ri), ROW(name, lmr), ROW(name, lmi) },
#define MEMFORMS(name)                                                                  \
    { { ADDR_MODES(AM_WIDTHS_ROW, op_##name##_rm_) },                                   \
      { ADDR_MODES(AM_WIDTHS_ROW, op_##name##_mr_) },                                   \
      { ADDR_MODES(AM_WIDTHS_ROW, op_##name##_mi_) } },
enum { A_ADD, A_OR, A_ADC, A_SBB, A_AND, A_SUB, A_XOR, A_CMP, A_TEST, NBINARY };
static const cpu_handler binary[NBINARY][NFORMS][4] = { BINARY_OPS(FORMS) };
static const cpu_handler binary_mem[NBINARY][NMEMFORMS][AM_COUNT][4] = { BINARY_OPS(MEMFORMS) };

/* ------------------------------------------------------------ unary: INC DEC NEG NOT */
#define GEN_UNARY(B)                                                                    \
    static inline uint64_t u_inc_##B(struct cpu *c, uint64_t v, struct lfrec *f)        \
    {                                                                                   \
        *f = (struct lfrec){ LF_INC + W_##B, v, 1, v + 1, cpu_cf(c) };                  \
        return v + 1;                                                                   \
    }                                                                                   \
    static inline uint64_t u_dec_##B(struct cpu *c, uint64_t v, struct lfrec *f)        \
    {                                                                                   \
        *f = (struct lfrec){ LF_DEC + W_##B, v, 1, v - 1, cpu_cf(c) };                  \
        return v - 1;                                                                   \
    }                                                                                   \
    static inline uint64_t u_neg_##B(struct cpu *c, uint64_t v, struct lfrec *f)        \
    {                                                                                   \
        *f = (struct lfrec){ LF_NEG + W_##B, 0, v, 0 - v, 0 };                          \
        return 0 - v;                                                                   \
    }                                                                                   \
    static inline uint64_t u_not_##B(struct cpu *c, uint64_t v, struct lfrec *f)        \
    {                                                                                   \
        f->op = ~0u; /* NOT changes no flags */                                        \
        return ~v;                                                                      \
    }
GEN_UNARY(8)
GEN_UNARY(16)
GEN_UNARY(32)
GEN_UNARY(64)

static inline void lf_commit_unary(struct cpu *c, const struct op *op, const struct lfrec *f)
{
    if (f->op != ~0u)
        lf_commit(c, op, f);
}

#define GEN_UNARY_FORMS(name, B)                                                        \
    static void op_##name##_r_##B(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        struct lfrec f;                                                                 \
        set_gpr##B(c, op->r1, u_##name##_##B(c, RD_##B(op->r1), &f));                   \
        lf_commit_unary(c, op, &f);                                                     \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_lm_##B(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        struct lfrec f;                                                                 \
        uint##B##_t *p = g2h(c, op_ea(c, op));                                          \
        uint##B##_t old = __atomic_load_n(p, __ATOMIC_RELAXED), nv;                     \
        do                                                                              \
            nv = (uint##B##_t)u_##name##_##B(c, old, &f);                               \
        while (!__atomic_compare_exchange_n(p, &old, nv, false, __ATOMIC_SEQ_CST,        \
                                            __ATOMIC_RELAXED));                         \
        lf_commit_unary(c, op, &f);                                                     \
        NEXT(c, op);                                                              \
    }
/* The memory form, once per form of the operand (cpu/mem.h ADDR_MODES):
 * load, store (a fault on either leaves the flags as they were), flags. */
#define GEN_UNARY_MEM(AM, sfx, name, B)                                                 \
    static void op_##name##_m_##B##_##sfx(struct cpu *c, const struct op *op)           \
    {                                                                                   \
        struct lfrec f;                                                                 \
        void *p = am_ptr(c, op, AM);                                                    \
        st##B(p, (uint##B##_t)u_##name##_##B(c, ld##B(p), &f));                         \
        lf_commit_unary(c, op, &f);                                                     \
        NEXT(c, op);                                                                    \
    }
#define UNARY_ALL(name)                                                                 \
    GEN_UNARY_FORMS(name, 8) GEN_UNARY_FORMS(name, 16) GEN_UNARY_FORMS(name, 32)        \
    GEN_UNARY_FORMS(name, 64) ADDR_MODES(GEN_UNARY_MEM, name, 8)                        \
    ADDR_MODES(GEN_UNARY_MEM, name, 16) ADDR_MODES(GEN_UNARY_MEM, name, 32)             \
    ADDR_MODES(GEN_UNARY_MEM, name, 64)
UNARY_ALL(inc)
UNARY_ALL(dec)
UNARY_ALL(neg)
UNARY_ALL(not)

enum { U_INC, U_DEC, U_NEG, U_NOT, NUNARY };
#define UROW(name, form) { op_##name##_##form##_8, op_##name##_##form##_16, op_##name##_##form##_32, op_##name##_##form##_64 }
#define UFORMS(name) { UROW(name, r), UROW(name, lm) }
static const cpu_handler unary[NUNARY][2][4] = { UFORMS(inc), UFORMS(dec), UFORMS(neg), UFORMS(not) };
#define UMEMFORMS(name) { ADDR_MODES(AM_WIDTHS_ROW, op_##name##_m_) }
static const cpu_handler unary_mem[NUNARY][AM_COUNT][4] = {
    UMEMFORMS(inc), UMEMFORMS(dec), UMEMFORMS(neg), UMEMFORMS(not)
};

/* ------------------------------------------------------------ decoding */
static bool dec_binary(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    unsigned w = size_index(d->ops[0].size / 8);
    op->size = (uint8_t)(d->ops[0].size / 8);
    bool lock = op->flags & OPF_LOCK;
    if (is_reg(d, 0)) {
        if (!dec_reg_op(d, 0, &op->r1))
            return false;
        if (is_reg(d, 1)) {
            if (!dec_reg_op(d, 1, &op->r2))
                return false;
            op->fn = binary[which][F_RR][w];
        } else if (is_mem(d, 1)) {
            if (!dec_mem_op(d, 1))
                return false;
            op->fn = binary_mem[which][F_RM][dec_addr_mode(d)][w];
        } else {
            op->imm = dec_imm(d, 1);
            op->fn = binary[which][F_RI][w];
        }
        return true;
    }
    if (!dec_mem_op(d, 0))
        return false;
    unsigned am = dec_addr_mode(d);
    if (is_reg(d, 1)) {
        if (!dec_reg_op(d, 1, &op->r2))
            return false;
        op->fn = lock ? binary[which][F_LMR][w] : binary_mem[which][F_MR][am][w];
    } else {
        op->imm = dec_imm(d, 1);
        op->fn = lock ? binary[which][F_LMI][w] : binary_mem[which][F_MI][am][w];
    }
    return true;
}

static bool dec_unary(struct decoder *d, unsigned which)
{
    struct op *op = d->op;
    unsigned w = size_index(d->ops[0].size / 8);
    op->size = (uint8_t)(d->ops[0].size / 8);
    if (is_reg(d, 0)) {
        if (!dec_reg_op(d, 0, &op->r1))
            return false;
        op->fn = unary[which][0][w];
        return true;
    }
    if (!dec_mem_op(d, 0))
        return false;
    op->fn = (op->flags & OPF_LOCK) ? unary[which][1][w] : unary_mem[which][dec_addr_mode(d)][w];
    return true;
}

bool dec_alu(struct decoder *d)
{
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_ADD: return dec_binary(d, A_ADD);
    case ZYDIS_MNEMONIC_OR: return dec_binary(d, A_OR);
    case ZYDIS_MNEMONIC_ADC: return dec_binary(d, A_ADC);
    case ZYDIS_MNEMONIC_SBB: return dec_binary(d, A_SBB);
    case ZYDIS_MNEMONIC_AND: return dec_binary(d, A_AND);
    case ZYDIS_MNEMONIC_SUB: return dec_binary(d, A_SUB);
    case ZYDIS_MNEMONIC_XOR: return dec_binary(d, A_XOR);
    case ZYDIS_MNEMONIC_CMP: return dec_binary(d, A_CMP);
    case ZYDIS_MNEMONIC_TEST: return dec_binary(d, A_TEST);
    case ZYDIS_MNEMONIC_INC: return dec_unary(d, U_INC);
    case ZYDIS_MNEMONIC_DEC: return dec_unary(d, U_DEC);
    case ZYDIS_MNEMONIC_NEG: return dec_unary(d, U_NEG);
    case ZYDIS_MNEMONIC_NOT: return dec_unary(d, U_NOT);
    default: return false;
    }
}
