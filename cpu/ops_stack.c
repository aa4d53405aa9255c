/* The stack: PUSH, POP, PUSHF, POPF, LEAVE, ENTER.
 * Slots are the guest's word (8 bytes for x86_64, 4 for ia32); a 66-prefixed
 * 16-bit push or pop moves 2 bytes. */
#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"

static inline uint64_t sp_mask(const struct cpu *c, uint64_t sp)
{
    return c->bits == 32 ? (uint32_t)sp : sp;
}

/* Push n bytes of v: the store first, then rSP. */
static inline void push_n(struct cpu *c, unsigned n, uint64_t v)
{
    uint64_t sp = sp_mask(c, c->r[R_SP] - n);
    store_n(c, sp, n, v);
    if (c->bits == 32)
        set_gpr32(c, SLOT_GPR(R_SP), sp);
    else
        c->r[R_SP] = sp;
}

static inline uint64_t peek_n(struct cpu *c, unsigned n)
{
    return load_n(c, sp_mask(c, c->r[R_SP]), n);
}

static inline void drop_n(struct cpu *c, unsigned n)
{
    if (c->bits == 32)
        set_gpr32(c, SLOT_GPR(R_SP), (uint32_t)c->r[R_SP] + n);
    else
        c->r[R_SP] += n;
}

static void op_push_r64(struct cpu *c, const struct op *op)
{
    push64(c, GPR64(c, op->r1));
    NEXT(c, op);
}
static void op_pop_r64(struct cpu *c, const struct op *op)
{
    uint64_t v = pop64(c); /* rsp first: POP rsp loads the popped value */
    c->r[op->r1 / 8] = v;
    NEXT(c, op);
}
/* ia32's own word: esp is below 4 GiB (cpu/mem.h push32/pop32). */
static void op_push_r32(struct cpu *c, const struct op *op)
{
    push32(c, GPR32(c, op->r1));
    NEXT(c, op);
}
static void op_pop_r32(struct cpu *c, const struct op *op)
{
    uint32_t v = pop32(c); /* esp first: POP esp loads the popped value */
    set_gpr32(c, op->r1, v);
    NEXT(c, op);
}
static void op_push_r(struct cpu *c, const struct op *op)
{
    push_n(c, op->size, get_reg_n(c, op->r1, op->size));
    NEXT(c, op);
}
static void op_pop_r(struct cpu *c, const struct op *op)
{
    uint64_t v = peek_n(c, op->size);
    drop_n(c, op->size);
    set_reg_n(c, op->r1, op->size, v);
    NEXT(c, op);
}
static void op_push_i(struct cpu *c, const struct op *op)
{
    push_n(c, op->size, (uint64_t)op->imm);
    NEXT(c, op);
}
static void op_push_m(struct cpu *c, const struct op *op)
{
    push_n(c, op->size, load_n(c, op_ea(c, op), op->size));
    NEXT(c, op);
}
/* POP m: rSP is incremented before the address is computed (SDM, POP). */
static void op_pop_m(struct cpu *c, const struct op *op)
{
    uint64_t v = peek_n(c, op->size), old = c->r[R_SP];
    drop_n(c, op->size);
    uint64_t a = op_ea(c, op);
    c->r[R_SP] = old;
    store_n(c, a, op->size, v);
    drop_n(c, op->size);
    NEXT(c, op);
}
static void op_pushf(struct cpu *c, const struct op *op)
{
    /* VM and RF read as 0 in the pushed image. */
    push_n(c, op->size, cpu_flags(c) & ~0x30000ull);
    NEXT(c, op);
}
static void op_popf(struct cpu *c, const struct op *op)
{
    uint64_t v = peek_n(c, op->size);
    drop_n(c, op->size);
    cpu_set_flags(c, v, op->size == 2 ? 0xffff : ~0ull);
    NEXT(c, op);
}
static void op_leave(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t bp = sp_mask(c, c->r[R_BP]);
    uint64_t v = load_n(c, bp, n);
    if (c->bits == 32)
        set_gpr32(c, SLOT_GPR(R_SP), bp + n);
    else
        c->r[R_SP] = bp + n;
    set_reg_n(c, SLOT_GPR(R_BP), n, v);
    NEXT(c, op);
}
/* ENTER size, level (SDM vol. 2A, ENTER). */
static void op_enter(struct cpu *c, const struct op *op)
{
    unsigned n = op->size, level = op->x1 & 31;
    uint64_t size = (uint64_t)op->imm;
    uint64_t bp = c->r[R_BP];
    push_n(c, n, bp);
    uint64_t frame = sp_mask(c, c->r[R_SP]);
    for (unsigned i = 1; i < level; i++) {
        bp = sp_mask(c, bp - n);
        push_n(c, n, load_n(c, bp, n));
    }
    if (level > 0)
        push_n(c, n, frame);
    set_reg_n(c, SLOT_GPR(R_BP), n, frame);
    uint64_t sp = sp_mask(c, c->r[R_SP] - size);
    if (c->bits == 32)
        set_gpr32(c, SLOT_GPR(R_SP), sp);
    else
        c->r[R_SP] = sp;
    NEXT(c, op);
}

bool dec_stack(struct decoder *d)
{
    struct op *op = d->op;
    unsigned w = d->in->operand_width / 8;
    op->size = (uint8_t)w;
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_PUSH:
        if (is_reg(d, 0)) {
            if (!dec_reg_op(d, 0, &op->r1))
                return false; /* segment registers: ia32 issue */
            op->fn = w == 8 ? op_push_r64 : w == 4 && d->bits == 32 ? op_push_r32 : op_push_r;
            return true;
        }
        if (is_imm(d, 0)) {
            op->imm = dec_imm(d, 0);
            op->fn = op_push_i;
            return true;
        }
        op->fn = op_push_m;
        return dec_mem_op(d, 0);
    case ZYDIS_MNEMONIC_POP:
        if (is_reg(d, 0)) {
            if (!dec_reg_op(d, 0, &op->r1))
                return false;
            op->fn = w == 8 ? op_pop_r64 : w == 4 && d->bits == 32 ? op_pop_r32 : op_pop_r;
            return true;
        }
        op->fn = op_pop_m;
        return dec_mem_op(d, 0);
    case ZYDIS_MNEMONIC_PUSHF:
    case ZYDIS_MNEMONIC_PUSHFD:
    case ZYDIS_MNEMONIC_PUSHFQ:
        op->fn = op_pushf;
        return true;
    case ZYDIS_MNEMONIC_POPF:
    case ZYDIS_MNEMONIC_POPFD:
    case ZYDIS_MNEMONIC_POPFQ:
        op->fn = op_popf;
        return true;
    case ZYDIS_MNEMONIC_LEAVE:
        op->fn = op_leave;
        return true;
    case ZYDIS_MNEMONIC_ENTER:
        op->imm = (int64_t)d->ops[0].imm.value.u;
        op->x1 = (uint8_t)d->ops[1].imm.value.u;
        op->fn = op_enter;
        return true;
    default:
        return false;
    }
}
