/* Shared by the sse_ext family files (SSE3, SSSE3, SSE4.1; legacy
 * encodings): operand decoding, memory-source loaders, handler generators
 * and the host arithmetic used by the floating-point ones.
 *
 * Ops of this family carry the destination XMM/MMX number in x1, the
 * source register number in x2 (register forms), the imm8 in imm and a
 * general register, when there is one, in r1.
 *
 * Handlers are generated per operand form from one kernel:
 *   k_<name>(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
 * computes the result r from the destination's old value d and the source
 * s into a local, so the destination may be the source too and nothing is
 * committed before the last memory access (the precise-fault contract). */
#ifndef CPU_SSE_EXT_H
#define CPU_SSE_EXT_H

#include <string.h>

#include "cpu/sse.h"

/* The three files of the family, tried in turn by dec_sse_ext(). */
bool dec_sse_ext_ssse3(struct decoder *d);  /* cpu/ops_sse_ext_ssse3.c */
bool dec_sse_ext_int(struct decoder *d);    /* cpu/ops_sse_ext_int.c: SSE4.1 integer */
bool dec_sse_ext_fp(struct decoder *d);     /* cpu/ops_sse_ext_fp.c: SSE3, SSE4.1 FP */

/* "xmm1, xmm2/mem[, imm8]": x1, x2 or the memory operand, imm; the
 * handler rr or rm by the source's form.  (cpu/ops_sse_ext.c) */
bool sx_dec_xmm(struct decoder *d, cpu_handler rr, cpu_handler rm);
/* The same with MMX registers (SSSE3's 64-bit forms). */
bool sx_dec_mmx(struct decoder *d, cpu_handler rr, cpu_handler rm);

/* ------------------------------------------------------------ memory sources
 * A legacy-SSE 16-byte operand must be aligned (#GP otherwise, SDM vol. 1,
 * 11.6.7) except LDDQU's; the narrower sources of PMOVSX/PMOVZX, MOVDDUP,
 * ROUNDSS/SD and INSERTPS need no alignment.  Narrow loads zero the rest. */
static inline void sx_load_a128(struct cpu *c, const struct op *op, xmm_t *s)
{
    uint64_t a = op_ea(c, op);
    sse_check_align16(c, a);
    load128(c, a, s);
}
static inline void sx_load_u128(struct cpu *c, const struct op *op, xmm_t *s)
{
    load128(c, op_ea(c, op), s);
}
static inline void sx_load_64(struct cpu *c, const struct op *op, xmm_t *s)
{
    s->q[0] = load64(c, op_ea(c, op));
    s->q[1] = 0;
}
static inline void sx_load_32(struct cpu *c, const struct op *op, xmm_t *s)
{
    s->q[0] = load32(c, op_ea(c, op));
    s->q[1] = 0;
}
static inline void sx_load_16(struct cpu *c, const struct op *op, xmm_t *s)
{
    s->q[0] = load16(c, op_ea(c, op));
    s->q[1] = 0;
}

/* ------------------------------------------------------------ generators */
/* Integer and data-movement kernels: op_<name>_rr and op_<name>_rm, the
 * memory source read by LOAD (one of sx_load_*). */
#define SX_XMM_FORMS(name, LOAD)                                                        \
    static void op_##name##_rr(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t r;                                                                        \
        k_##name(&r, &c->xmm[op->x1], &c->xmm[op->x2], (unsigned)op->imm);              \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_rm(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t s, r;                                                                     \
        LOAD(c, op, &s);                                                                \
        k_##name(&r, &c->xmm[op->x1], &s, (unsigned)op->imm);                           \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }

/* Floating-point kernels run on the host between sse_enter() and
 * sse_leave() under the guest's MXCSR; the raised flags are committed (or
 * fault) before the result is. */
#define SX_FP_FORMS(name, LOAD)                                                         \
    static void op_##name##_rr(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t r;                                                                        \
        uint32_t host = sse_enter(c);                                                   \
        k_##name(&r, &c->xmm[op->x1], &c->xmm[op->x2], (unsigned)op->imm);              \
        sse_commit_flags(c, sse_leave(host));                                           \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_rm(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t s, r;                                                                     \
        LOAD(c, op, &s);                                                                \
        uint32_t host = sse_enter(c);                                                   \
        k_##name(&r, &c->xmm[op->x1], &s, (unsigned)op->imm);                           \
        sse_commit_flags(c, sse_leave(host));                                           \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }

/* ------------------------------------------------------------ host arithmetic
 * One SSE/SSE2 scalar instruction each.  Inline assembly rather than C
 * operators: the compiler may neither fold nor move them across the MXCSR
 * load and store of sse_enter()/sse_leave() (volatile asm stays in order
 * with them), and the instruction is exactly the one named -- the
 * operand order decides which NaN a two-NaN operation returns (the first
 * source's, SDM vol. 1, table 4-7). */
#define SX_HOST_OP(name, insn, T)                                                       \
    static inline T sx_##name(T a, T b)                                                 \
    {                                                                                   \
        __asm__ volatile(insn " %1, %0" : "+x"(a) : "x"(b));                            \
        return a;                                                                       \
    }
SX_HOST_OP(addss, "addss", float)
SX_HOST_OP(subss, "subss", float)
SX_HOST_OP(mulss, "mulss", float)
SX_HOST_OP(addsd, "addsd", double)
SX_HOST_OP(subsd, "subsd", double)
SX_HOST_OP(mulsd, "mulsd", double)
#undef SX_HOST_OP

#endif
