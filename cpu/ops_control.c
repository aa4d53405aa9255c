/* Control transfers: JMP, Jcc, CALL, RET, LOOP/LOOPE/LOOPNE, JCXZ/JECXZ/JRCXZ.
 * Every one of them ends its block, so c->rip holds the address after it
 * (cpu/cpu.h): the fall-through and the return address.  ia32 targets and
 * return addresses are 32-bit; the stack slot is the guest's word. */
#include "cpu/chain.h"
#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"
#include "cpu/ras.h"

static inline uint64_t target_mask(const struct cpu *c, uint64_t t)
{
    return c->bits == 32 ? (uint32_t)t : t;
}

static inline void push_word(struct cpu *c, uint64_t v)
{
    if (c->bits == 64)
        push64(c, v);
    else
        push32(c, (uint32_t)v);
}

static inline uint64_t pop_word(struct cpu *c)
{
    return c->bits == 64 ? pop64(c) : pop32(c);
}

int dec_condition(ZydisMnemonic m);

static void op_jmp(struct cpu *c, const struct op *op) { CHAIN_BRANCH(c, op, true); }
static void op_jmp_r(struct cpu *c, const struct op *op)
{
    c->rip = target_mask(c, GPR64(c, op->r1));
    chain_indirect(c, op);
}
static void op_jmp_m(struct cpu *c, const struct op *op)
{
    uint64_t a = op_ea(c, op);
    c->rip = c->bits == 64 ? load64(c, a) : load32(c, a);
    chain_indirect(c, op);
}
/* Jcc: one handler per condition, so that cpu_cond() folds to the test
 * of that condition alone.  Flags that cpu_cond() does not read inline go
 * to op_jcc_slow by a sibling call, which keeps the call to
 * cpu_cond_slow() (and the stack frame it needs) out of the common path. */
static __attribute__((noinline)) void op_jcc_slow(struct cpu *c, const struct op *op)
{
    CHAIN_BRANCH(c, op, cpu_cond_slow(c, op->x1));
}
#define GEN_JCC(cc)                                                                     \
    static void op_jcc_##cc(struct cpu *c, const struct op *op)                         \
    {                                                                                   \
        unsigned kind = c->lf_op & ~3u;                                                 \
        if ((cc >> 1) == 5 || UNLIKELY(kind != LF_SUB && kind != LF_LOGIC)) {           \
            op_jcc_slow(c, op);                                                         \
            return;                                                                     \
        }                                                                               \
        CHAIN_BRANCH(c, op, cpu_cond(c, cc));                                           \
    }
CPU_CONDITIONS(GEN_JCC)
#define JCC_ENTRY(cc) op_jcc_##cc,
static const cpu_handler jcc_h[16] = { CPU_CONDITIONS(JCC_ENTRY) };
/* CALL rel/reg/mem; the _ras forms end a block that has a return slot
 * after them and push it for the RET (cpu/ras.h).  The return address is
 * pushed last: a fault leaves the ring as it was.  CALL rel goes on into
 * the block at its target (chained: cpu/chain.h). */
#define GEN_CALL(name, target_expr, chained)                                            \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        uint64_t t = (target_expr);                                                     \
        push_word(c, c->rip);                                                 \
        if (chained)                                                                    \
            CHAIN_BRANCH(c, op, true); /* t is op->imm */                               \
        c->rip = t;                                                                     \
        chain_indirect(c, op);                                                          \
    }                                                                                   \
    static void op_##name##_ras(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        uint64_t t = (target_expr);                                                     \
        push_word(c, c->rip);                                                 \
        ras_push(c, op);                                                                \
        if (chained)                                                                    \
            CHAIN_BRANCH(c, op, true); /* t is op->imm */                               \
        c->rip = t;                                                                     \
        chain_indirect(c, op);                                                          \
    }
static inline uint64_t call_m_target(struct cpu *c, const struct op *op)
{
    uint64_t a = op_ea(c, op);
    return c->bits == 64 ? load64(c, a) : load32(c, a);
}
GEN_CALL(call, (uint64_t)op->imm, true)
GEN_CALL(call_r, target_mask(c, GPR64(c, op->r1)), false)
GEN_CALL(call_m, call_m_target(c, op), false)

bool ras_call_predicts(struct op *last)
{
    static const cpu_handler plain[] = { op_call, op_call_r, op_call_m };
    static const cpu_handler predicting[] = { op_call_ras, op_call_r_ras, op_call_m_ras };
    for (unsigned i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (last->fn == plain[i]) {
            last->fn = predicting[i];
            return true;
        }
    return false;
}

static void op_ret(struct cpu *c, const struct op *op)
{
    uint64_t t = pop_word(c);
    ras_pop(c);
    if (op->imm) {
        if (c->bits == 64)
            c->r[R_SP] += (uint64_t)op->imm;
        else
            set_gpr32(c, SLOT_GPR(R_SP), (uint32_t)c->r[R_SP] + (uint32_t)op->imm);
    }
    c->rip = t;
    chain_return(c, op);
}

/* LOOP family and JrCXZ: the counter is rCX at the address size. */
static inline uint64_t count_reg(const struct cpu *c, const struct op *op)
{
    return (op->flags & OPF_ADDR32) ? (uint32_t)c->r[R_CX] : c->r[R_CX];
}
static inline uint64_t dec_count(struct cpu *c, const struct op *op)
{
    uint64_t n = count_reg(c, op) - 1;
    if (op->flags & OPF_ADDR32)
        set_gpr32(c, SLOT_GPR(R_CX), n);
    else
        c->r[R_CX] = n;
    return (op->flags & OPF_ADDR32) ? (uint32_t)n : n;
}
static void op_loop(struct cpu *c, const struct op *op)
{
    CHAIN_BRANCH(c, op, dec_count(c, op) != 0);
}
static void op_loope(struct cpu *c, const struct op *op)
{
    bool zf = cpu_cond(c, 4);
    CHAIN_BRANCH(c, op, dec_count(c, op) && zf);
}
static void op_loopne(struct cpu *c, const struct op *op)
{
    bool nz = cpu_cond(c, 5);
    CHAIN_BRANCH(c, op, dec_count(c, op) && nz);
}
static void op_jrcxz(struct cpu *c, const struct op *op)
{
    CHAIN_BRANCH(c, op, count_reg(c, op) == 0);
}

/* rel/reg/mem target forms of JMP and CALL. */
static bool dec_target(struct decoder *d, cpu_handler rel, cpu_handler r, cpu_handler m)
{
    struct op *op = d->op;
    if (d->in->operand_width == 16)
        return false; /* 16-bit near branches truncate rip: no compiler emits them */
    if (is_imm(d, 0)) {
        op->fn = rel;
        op->disp = CHAIN_SLOT_NEXT;
        op->imm = dec_imm(d, 0);
        if (d->bits == 32)
            op->imm = (uint32_t)op->imm;
        return true;
    }
    if (is_reg(d, 0)) {
        op->fn = r;
        return dec_reg_op(d, 0, &op->r1);
    }
    if (d->ops[0].mem.type == ZYDIS_MEMOP_TYPE_MEM) {
        op->fn = m;
        return dec_mem_op(d, 0);
    }
    return false;
}

bool dec_control(struct decoder *d)
{
    struct op *op = d->op;
    ZydisMnemonic m = d->in->mnemonic;
    d->ends_block = true;
    if (d->in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
        return false; /* far jumps/calls/returns: not in Linux user code */
    switch (m) {
    case ZYDIS_MNEMONIC_JMP:
        return dec_target(d, op_jmp, op_jmp_r, op_jmp_m);
    case ZYDIS_MNEMONIC_CALL:
        return dec_target(d, op_call, op_call_r, op_call_m);
    case ZYDIS_MNEMONIC_RET:
        if (d->in->operand_width == 16)
            return false;
        op->fn = op_ret;
        op->imm = d->in->operand_count_visible ? (int64_t)d->ops[0].imm.value.u : 0;
        return true;
    case ZYDIS_MNEMONIC_LOOP:
    case ZYDIS_MNEMONIC_LOOPE:
    case ZYDIS_MNEMONIC_LOOPNE:
    case ZYDIS_MNEMONIC_JCXZ:
    case ZYDIS_MNEMONIC_JECXZ:
    case ZYDIS_MNEMONIC_JRCXZ:
        if (d->in->address_width == 16)
            return false;
        if (d->in->address_width == 32)
            op->flags |= OPF_ADDR32;
        op->imm = dec_imm(d, 0);
        if (d->bits == 32)
            op->imm = (uint32_t)op->imm;
        op->disp = CHAIN_SLOT_NEXT;
        d->side_exit = true;
        op->fn = m == ZYDIS_MNEMONIC_LOOP ? op_loop : m == ZYDIS_MNEMONIC_LOOPE ? op_loope
               : m == ZYDIS_MNEMONIC_LOOPNE ? op_loopne : op_jrcxz;
        return true;
    default:
        break;
    }
    int cc = dec_condition(m);
    if (cc < 0 || !is_imm(d, 0)) {
        d->ends_block = false;
        return false;
    }
    op->fn = jcc_h[cc];
    op->x1 = (uint8_t)cc;
    op->imm = dec_imm(d, 0);
    if (d->bits == 32)
        op->imm = (uint32_t)op->imm;
    op->disp = CHAIN_SLOT_NEXT;
    d->side_exit = true;
    return true;
}
