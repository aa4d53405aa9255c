/* One instruction of a fused pair, as its own handler runs it: the
 * register halves shared by the register pairs (cpu/ops_fused_alu.c) and
 * the pairs with a memory half (cpu/ops_fused_mem.c, cpu/ops_fused_mem64.c).
 * Internal to those files. */
#ifndef CPU_PAIR_HALF_H
#define CPU_PAIR_HALF_H

#include "cpu/alu.h"
#include "cpu/mem.h"
#include "cpu/shift.h"

/* The operations: register sources (MOV ADD ...), immediate sources (MOVI
 * ADDI ... and the shifts and rotates by a nonzero count), LEA's address,
 * and NOT of the destination.  Listed twice: once for the first half
 * and once for the second of the generated pairs (a macro cannot expand
 * its own list inside itself). */
#define PAIR_FIRST(X, ...)                                                              \
    X(MOV, __VA_ARGS__) X(MOVI, __VA_ARGS__) X(LEA, __VA_ARGS__) X(NOT, __VA_ARGS__)    \
    X(ADD, __VA_ARGS__) X(SUB, __VA_ARGS__) X(AND, __VA_ARGS__) X(OR, __VA_ARGS__)      \
    X(XOR, __VA_ARGS__) X(ADDI, __VA_ARGS__) X(SUBI, __VA_ARGS__) X(ANDI, __VA_ARGS__)  \
    X(ORI, __VA_ARGS__) X(XORI, __VA_ARGS__) X(ROL, __VA_ARGS__) X(ROR, __VA_ARGS__)    \
    X(SHL, __VA_ARGS__) X(SHR, __VA_ARGS__) X(SAR, __VA_ARGS__)
#define PAIR_SECOND(X, ...)                                                             \
    X(MOV, __VA_ARGS__) X(MOVI, __VA_ARGS__) X(LEA, __VA_ARGS__) X(NOT, __VA_ARGS__)    \
    X(ADD, __VA_ARGS__) X(SUB, __VA_ARGS__) X(AND, __VA_ARGS__) X(OR, __VA_ARGS__)      \
    X(XOR, __VA_ARGS__) X(ADDI, __VA_ARGS__) X(SUBI, __VA_ARGS__) X(ANDI, __VA_ARGS__)  \
    X(ORI, __VA_ARGS__) X(XORI, __VA_ARGS__) X(ROL, __VA_ARGS__) X(ROR, __VA_ARGS__)    \
    X(SHL, __VA_ARGS__) X(SHR, __VA_ARGS__) X(SAR, __VA_ARGS__)

#define PK_ENUM(name, _) PK_##name,
/* The register kinds (PK_NONE: not pairable; the register pairs' table
 * has NPK rows), then the kinds only cpu/ops_fused_mem.c pairs: the
 * memory kinds MOV r, [m], MOV [m], r, ADD r, [m] and MOV [m], r8, then
 * those in its single pairs only: IMUL r, r, imm, ADD [m], imm and MOVZX
 * r, byte [m]. */
enum { PK_NONE, PAIR_FIRST(PK_ENUM, 0) NPK, PK_LD = NPK, PK_ST, PK_ADDM, PK_ST8, PK_IMULI, PK_ADDMI,
       PK_LDZX8, NPK_ALL };

/* The first half's result, which the second reads from here rather than
 * from struct cpu, where it has just been stored (a chain of dependent
 * instructions does not wait for the store to be forwarded). */
struct link {
    uint8_t reg;        /* its destination */
    uint64_t val;       /* the register's 64 bits after it */
};

static inline __attribute__((always_inline)) uint64_t rd(const struct cpu *c, const struct link *l,
                                                         uint8_t off, unsigned w64)
{
    uint64_t v = l && off == l->reg ? l->val : GPR64(c, off);
    return w64 ? v : (uint32_t)v;
}

/* Write v to the destination; returns the register's 64 bits. */
static inline __attribute__((always_inline)) uint64_t wr(struct cpu *c, uint8_t off, unsigned w64, uint64_t v)
{
    if (!w64)
        v = (uint32_t)v; /* a 32-bit write zero-extends */
    set_gpr64(c, off, v);
    return v;
}

/* ADD SUB AND OR XOR of the destination and s.  nf (a constant): the
 * pair's handler for flags that are all dead, which needs no test. */
static inline __attribute__((always_inline)) uint64_t alu(struct cpu *c, const struct link *l,
                                                          const struct op *op, unsigned kind,
                                                          unsigned w64, unsigned nf, uint64_t s)
{
    unsigned w = w64 ? 3 : 2;
    uint64_t d = rd(c, l, op->r1, w64);
    struct lfrec f;
    switch (kind) {
    case PK_ADD: case PK_ADDI: k_add(w, d, s, 0, &f); break;
    case PK_SUB: case PK_SUBI: k_sub(w, d, s, 0, &f); break;
    case PK_AND: case PK_ANDI: k_and(w, d, s, 0, &f); break;
    case PK_OR: case PK_ORI: k_or(w, d, s, 0, &f); break;
    default: k_xor(w, d, s, 0, &f); break;
    }
    uint64_t r = wr(c, op->r1, w64, f.r);
    if (!nf && !(op->flags & OPF_NOFLAGS))
        lf_commit(c, op, &f);
    return r;
}

/* The shifts and rotates by op->imm (masked, not 0). */
static inline __attribute__((always_inline)) uint64_t shift(struct cpu *c, const struct link *l,
                                                            const struct op *op, unsigned kind,
                                                            unsigned w64, unsigned nf)
{
    unsigned bits = w64 ? 64 : 32, n = (unsigned)op->imm;
    uint64_t v = rd(c, l, op->r1, w64);
    if (nf || (op->flags & OPF_NOFLAGS)) {
        /* the result alone: without this test first, the compiler
         * computes the flags before the one in sh_flags() */
        switch (kind) {
        case PK_ROL: return wr(c, op->r1, w64, rotl_w(bits, v, n & (bits - 1)));
        case PK_ROR: return wr(c, op->r1, w64, rotl_w(bits, v, -n & (bits - 1)));
        case PK_SHL: return wr(c, op->r1, w64, v << n);
        case PK_SHR: return wr(c, op->r1, w64, v >> n);
        default: return wr(c, op->r1, w64, (uint64_t)((int64_t)sext(v, bits) >> n));
        }
    }
    struct shres s;
    switch (kind) {
    case PK_ROL: s = k_rol(c, bits, v, n); break;
    case PK_ROR: s = k_ror(c, bits, v, n); break;
    case PK_SHL: s = k_shl(c, bits, v, n); break;
    case PK_SHR: s = k_shr(c, bits, v, n); break;
    default: s = k_sar(c, bits, v, n); break;
    }
    uint64_t r = wr(c, op->r1, w64, s.r);
    sh_flags(c, op, &s, bits);
    return r;
}

/* ADD [m], imm at host address p, as its single handler: load, add,
 * store, then the flags record (unless nf: dead). */
static inline __attribute__((always_inline)) void add_mem_imm(struct cpu *c, const struct op *op,
                                                              void *p, unsigned w64, unsigned nf)
{
    struct lfrec f;
    k_add(w64 ? 3 : 2, w64 ? ld64(p) : ld32(p), (uint64_t)op->imm, 0, &f);
    if (w64)
        st64(p, f.r);
    else
        st32(p, (uint32_t)f.r);
    if (!nf)
        lf_commit(c, op, &f);
}

/* One instruction of a pair, as its own handler runs it (less the NEXT),
 * with the register l (if any) read from l; returns its destination's 64
 * bits.  nf: its flags are dead (pair_block() checked OPF_NOFLAGS). */
static inline __attribute__((always_inline)) uint64_t half(struct cpu *c, const struct link *l,
                                                           const struct op *op, unsigned kind,
                                                           unsigned w64, unsigned nf)
{
    switch (kind) {
    case PK_MOV: return wr(c, op->r1, w64, rd(c, l, op->r2, w64));
    case PK_MOVI: return wr(c, op->r1, w64, (uint64_t)op->imm);
    case PK_LEA: return wr(c, op->r1, w64, op_lea(c, op));
    case PK_NOT: return wr(c, op->r1, w64, ~rd(c, l, op->r1, w64));
    case PK_ADD: case PK_SUB: case PK_AND: case PK_OR: case PK_XOR:
        return alu(c, l, op, kind, w64, nf, rd(c, l, op->r2, w64));
    case PK_ADDI: case PK_SUBI: case PK_ANDI: case PK_ORI: case PK_XORI:
        return alu(c, l, op, kind, w64, nf, (uint64_t)op->imm);
    default:
        return shift(c, l, op, kind, w64, nf);
    }
}

#endif
