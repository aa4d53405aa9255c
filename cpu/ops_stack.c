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

/* ------------------------------------------------------------ runs
 * Function prologues push several registers in a row and epilogues pop
 * them: such a run of PUSH r / POP r (word-sized, rSP not among them) runs
 * as one handler on its first op, which then goes on after the run; the
 * run's other ops stay in the block untouched (stack_fuse_runs).
 *
 * Faults stay precise because the handler takes the run whole only when
 * all of its slots lie on one page: the host then faults on the first
 * access or on none, and a fault on the first leaves nothing written.  A
 * run that crosses a page runs its first op alone (the plain handler's
 * body), and the rest one by one through their own ops. */
static inline bool one_page(uint64_t a, uint64_t b)
{
    return ((a ^ b) & ~(uint64_t)(MM_PAGE_SIZE - 1)) == 0;
}

/* op->x1: the number of ops in the run. */
static void op_push_run64(struct cpu *c, const struct op *op)
{
    unsigned n = op->x1;
    uint64_t sp = c->r[R_SP];
    if (UNLIKELY(!one_page(sp - 8, sp - 8 * n) || sp - 8 > c->mem_limit)) {
        op_push_r64(c, op);
        return;
    }
    uint8_t *p = c->mem + sp;
    for (unsigned i = 0; i < n; i++)
        st64(p - 8 * (i + 1), GPR64(c, op[i].r1));
    c->r[R_SP] = sp - 8 * n;
    NEXT(c, op + n - 1);
}
static void op_pop_run64(struct cpu *c, const struct op *op)
{
    unsigned n = op->x1;
    uint64_t sp = c->r[R_SP];
    if (UNLIKELY(!one_page(sp, sp + 8 * n - 1) || sp > c->mem_limit)) {
        op_pop_r64(c, op);
        return;
    }
    const uint8_t *p = c->mem + sp;
    for (unsigned i = 0; i < n; i++)
        c->r[op[i].r1 / 8] = ld64(p + 8 * i);
    c->r[R_SP] = sp + 8 * n;
    NEXT(c, op + n - 1);
}
/* ia32: esp wraps at 4 GiB like the plain handlers' (push32/pop32). */
static void op_push_run32(struct cpu *c, const struct op *op)
{
    unsigned n = op->x1;
    uint32_t sp = (uint32_t)c->r[R_SP];
    if (UNLIKELY(!one_page((uint32_t)(sp - 4), (uint32_t)(sp - 4 * n)))) {
        op_push_r32(c, op);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        st32(c->mem + (uint32_t)(sp - 4 * (i + 1)), GPR32(c, op[i].r1));
    set_gpr32(c, SLOT_GPR(R_SP), sp - 4 * n);
    NEXT(c, op + n - 1);
}
static void op_pop_run32(struct cpu *c, const struct op *op)
{
    unsigned n = op->x1;
    uint32_t sp = (uint32_t)c->r[R_SP];
    if (UNLIKELY(!one_page(sp, (uint32_t)(sp + 4 * n - 1)))) {
        op_pop_r32(c, op);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        set_gpr32(c, op[i].r1, ld32(c->mem + (uint32_t)(sp + 4 * i)));
    set_gpr32(c, SLOT_GPR(R_SP), sp + 4 * n);
    NEXT(c, op + n - 1);
}

void stack_fuse_runs(struct op *ops, unsigned n)
{
    static const cpu_handler single[] = { op_push_r64, op_pop_r64, op_push_r32, op_pop_r32 };
    static const cpu_handler run[] = { op_push_run64, op_pop_run64, op_push_run32, op_pop_run32 };
    for (unsigned i = 0; i < n; i++) {
        unsigned kind = 0;
        while (kind < 4 && ops[i].fn != single[kind])
            kind++;
        if (kind == 4)
            continue;
        unsigned k = 0;
        while (i + k < n && k < 255 && ops[i + k].fn == single[kind] &&
               ops[i + k].r1 != SLOT_GPR(R_SP) && !(ops[i + k].flags & OPF_BRANCH))
            k++;
        if (k >= 2) {
            ops[i].fn = run[kind];
            ops[i].x1 = (uint8_t)k;
        }
        i += k ? k - 1 : 0;
    }
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
