/* Fused register sequences (see cpu/fuse_alu.h): two register-only integer
 * instructions of the same width as one handler.
 *
 * One handler per pair of operations and width, generated from the list
 * below: each half is the operation's own kernel (cpu/alu.h, cpu/shift.h)
 * with its register write-back and lazy flags record, so the kinds and the
 * width are constants and every half folds to the few host instructions of
 * its operation.  The flags record of a half is left out when the dead-flag
 * pass proved it dead (OPF_NOFLAGS), as in the single handlers.  The second
 * half takes a register the first one wrote from the host register that
 * holds the result (struct link), not from struct cpu. */
#include "cpu/alu.h"
#include "cpu/block.h"
#include "cpu/decode.h"
#include "cpu/fuse.h"
#include "cpu/fuse_alu.h"
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
enum { PK_NONE, PAIR_FIRST(PK_ENUM, 0) NPK };

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

/* ADD SUB AND OR XOR of the destination and s. */
static inline __attribute__((always_inline)) uint64_t alu(struct cpu *c, const struct link *l,
                                                          const struct op *op, unsigned kind,
                                                          unsigned w64, uint64_t s)
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
    if (!(op->flags & OPF_NOFLAGS))
        lf_commit(c, op, &f);
    return r;
}

/* The shifts and rotates by op->imm (masked, not 0). */
static inline __attribute__((always_inline)) uint64_t shift(struct cpu *c, const struct link *l,
                                                            const struct op *op, unsigned kind,
                                                            unsigned w64)
{
    unsigned bits = w64 ? 64 : 32, n = (unsigned)op->imm;
    uint64_t v = rd(c, l, op->r1, w64);
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

/* One instruction of a pair, as its own handler runs it (less the NEXT),
 * with the register l (if any) read from l; returns its destination's 64
 * bits. */
static inline __attribute__((always_inline)) uint64_t half(struct cpu *c, const struct link *l,
                                                           const struct op *op, unsigned kind,
                                                           unsigned w64)
{
    switch (kind) {
    case PK_MOV: return wr(c, op->r1, w64, rd(c, l, op->r2, w64));
    case PK_MOVI: return wr(c, op->r1, w64, (uint64_t)op->imm);
    case PK_LEA: return wr(c, op->r1, w64, op_lea(c, op));
    case PK_NOT: return wr(c, op->r1, w64, ~rd(c, l, op->r1, w64));
    case PK_ADD: case PK_SUB: case PK_AND: case PK_OR: case PK_XOR:
        return alu(c, l, op, kind, w64, rd(c, l, op->r2, w64));
    case PK_ADDI: case PK_SUBI: case PK_ANDI: case PK_ORI: case PK_XORI:
        return alu(c, l, op, kind, w64, (uint64_t)op->imm);
    default:
        return shift(c, l, op, kind, w64);
    }
}

/* The pair: both halves, then the op after the second (the second op
 * stays in the block with its own handler, for its length: cpu_rip()). */
#define GEN_PAIR(second, first, w64)                                                    \
    static void pr_##first##_##second##_##w64(struct cpu *c, const struct op *op)       \
    {                                                                                   \
        struct link l = { op->r1, half(c, NULL, op, PK_##first, w64) };                  \
        half(c, &l, op + 1, PK_##second, w64);                                          \
        NEXT(c, op + 1);                                                                \
    }
#define GEN_ROW(first, w64) PAIR_SECOND(GEN_PAIR, first, w64)
PAIR_FIRST(GEN_ROW, 0)
PAIR_FIRST(GEN_ROW, 1)

#define PAIR_ENTRY(second, first, w64) [w64][PK_##first][PK_##second] = pr_##first##_##second##_##w64,
#define ROW_ENTRIES(first, w64) PAIR_SECOND(PAIR_ENTRY, first, w64)
static const cpu_handler pair_h[2][NPK][NPK] = { PAIR_FIRST(ROW_ENTRIES, 0) PAIR_FIRST(ROW_ENTRIES, 1) };

/* ------------------------------------------------------------ decoding */

/* The operation with a register destination and a register (reg) or
 * immediate (imm) source. */
static unsigned binary_kind(ZydisMnemonic m, bool imm)
{
    switch (m) {
    case ZYDIS_MNEMONIC_MOV: return imm ? PK_MOVI : PK_MOV;
    case ZYDIS_MNEMONIC_ADD: return imm ? PK_ADDI : PK_ADD;
    case ZYDIS_MNEMONIC_SUB: return imm ? PK_SUBI : PK_SUB;
    case ZYDIS_MNEMONIC_AND: return imm ? PK_ANDI : PK_AND;
    case ZYDIS_MNEMONIC_OR: return imm ? PK_ORI : PK_OR;
    case ZYDIS_MNEMONIC_XOR: return imm ? PK_XORI : PK_XOR;
    case ZYDIS_MNEMONIC_ROL: return imm ? PK_ROL : PK_NONE;
    case ZYDIS_MNEMONIC_ROR: return imm ? PK_ROR : PK_NONE;
    case ZYDIS_MNEMONIC_SHL: return imm ? PK_SHL : PK_NONE;
    case ZYDIS_MNEMONIC_SHR: return imm ? PK_SHR : PK_NONE;
    case ZYDIS_MNEMONIC_SAR: return imm ? PK_SAR : PK_NONE;
    default: return PK_NONE;
    }
}

static bool is_shift(unsigned kind) { return kind >= PK_ROL && kind <= PK_SAR; }

/* Operand i of d is the general register at op offset off. */
static bool reg_is(const struct decoder *d, unsigned i, uint8_t off)
{
    uint8_t reg;
    return dec_reg_op(d, i, &reg) && reg == off;
}

static unsigned kind_of(const struct decoder *d)
{
    const struct op *op = d->op;
    ZydisMnemonic m = d->in->mnemonic;
    if ((op->flags & OPF_LOCK) || !reg_is(d, 0, op->r1))
        return PK_NONE;
    if (m == ZYDIS_MNEMONIC_NOT)
        return PK_NOT;
    /* rip-relative addresses need rip at their instruction, which the
     * second half of a pair does not have */
    if (m == ZYDIS_MNEMONIC_LEA)
        return op->base == SLOT_RIP ? PK_NONE : PK_LEA;
    if (d->in->operand_count < 2)
        return PK_NONE;
    if (is_imm(d, 1)) {
        unsigned kind = binary_kind(m, true);
        /* a shift by 0 changes no flags: its own handler (ri0) */
        return is_shift(kind) && op->imm == 0 ? PK_NONE : kind;
    }
    return reg_is(d, 1, op->r2) ? binary_kind(m, false) : PK_NONE;
}

void pair_describe(const struct decoder *d, struct pair_meta *p)
{
    p->fn = d->op->fn;
    p->kind = PK_NONE;
    p->w64 = false;
    if (d->in->operand_count < 1 || (d->ops[0].size != 32 && d->ops[0].size != 64))
        return;
    p->w64 = d->ops[0].size == 64;
    p->kind = (uint8_t)kind_of(d);
}

/* ops[i] is the first op of a compare-and-branch pair (cpu/fuse.h): its
 * handler was replaced and the next instruction reads its flags. */
static bool taken_by_fuse(const struct op *ops, const struct op_meta *meta, unsigned i, unsigned n)
{
    if (ops[i].fn == meta[i].pair.fn || i + 1 >= n)
        return false;
    unsigned role = meta[i + 1].fuse.role;
    return role == FUSE_JCC || role == FUSE_SETCC || role == FUSE_CMOV;
}

unsigned pair_block(struct op *ops, const struct op_meta *meta, unsigned n)
{
    unsigned pairs = 0;
    for (unsigned i = 0; i + 1 < n; i++) {
        const struct pair_meta *a = &meta[i].pair, *b = &meta[i + 1].pair;
        if (a->kind == PK_NONE || b->kind == PK_NONE || a->w64 != b->w64 ||
            taken_by_fuse(ops, meta, i, n) || taken_by_fuse(ops, meta, i + 1, n))
            continue;
        ops[i].fn = pair_h[a->w64][a->kind][b->kind];
        pairs++;
        i++;
    }
    return pairs;
}
