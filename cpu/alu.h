/* The integer ALU's kernels and flag records (ADD OR ADC SBB AND SUB XOR
 * CMP TEST), shared by their handlers (cpu/ops_alu.c) and by the fused
 * register sequences (cpu/ops_fused_alu.c).
 *
 * Each operation is one small inline kernel over 64-bit values (the lazy
 * flags mask them to the operand width) that fills a flags record; the
 * handler commits the record only after its last memory access. */
#ifndef CPU_ALU_H
#define CPU_ALU_H

#include "cpu/flags.h"

struct lfrec {
    uint32_t op;
    uint64_t d, s, r, aux;
};

/* Only what the flags of f's kind are computed from (cpu/flags.c): AND, OR,
 * XOR and TEST from the result alone, SUB and CMP from the operands alone,
 * and only ADC, SBB, INC and DEC have an lf_aux; nothing when no later
 * instruction reads them (OPF_NOFLAGS), except for the two stores of a
 * logic operation, cheaper than the test.  The kind is a constant in every
 * handler: the tests on it fold. */
static inline void lf_commit(struct cpu *c, const struct op *op, const struct lfrec *f)
{
    unsigned kind = f->op & LF_KIND;
    if (kind != LF_LOGIC && (op->flags & OPF_NOFLAGS))
        return;
    c->lf_op = f->op;
    if (kind != LF_SUB)
        c->lf_res = f->r;
    if (kind == LF_LOGIC)
        return;
    c->lf_dst = f->d;
    c->lf_src = f->s;
    if (kind == LF_ADC || kind == LF_SBB || kind == LF_INC || kind == LF_DEC)
        c->lf_aux = f->aux;
}

/* Kernels: the result of d OP s; false when it is not written back. */
#define KERNEL(name, kind, expr, writes)                                                \
    static inline bool k_##name(unsigned w, uint64_t d, uint64_t s, uint64_t cf,        \
                                struct lfrec *f)                                        \
    {                                                                                   \
        (void)cf;                                                                       \
        *f = (struct lfrec){ kind + w, d, s, (expr), cf };                              \
        return writes;                                                                  \
    }
KERNEL(add, LF_ADD, d + s, true)
KERNEL(or, LF_LOGIC, d | s, true)
KERNEL(adc, LF_ADC, d + s + cf, true)
KERNEL(sbb, LF_SBB, d - s - cf, true)
KERNEL(and, LF_LOGIC, d & s, true)
KERNEL(sub, LF_SUB, d - s, true)
KERNEL(xor, LF_LOGIC, d ^ s, true)
KERNEL(cmp, LF_SUB, d - s, false)
KERNEL(test, LF_LOGIC, d & s, false)
#undef KERNEL

/* IMUL's two- and three-operand product at 32 or 64 bits (w64), truncated,
 * and whether it did not fit (CF = OF; cpu/ops_muldiv.c). */
static inline uint64_t k_imul(bool w64, uint64_t a, uint64_t b, bool *ovf)
{
    if (w64) {
        int64_t p;
        *ovf = __builtin_mul_overflow((int64_t)a, (int64_t)b, &p);
        return (uint64_t)p;
    }
    int64_t p = (int64_t)(int32_t)a * (int32_t)b;
    *ovf = p != (int32_t)p;
    return (uint32_t)p;
}

#endif
