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
#include "cpu/block.h"
#include "cpu/decode.h"
#include "cpu/fuse.h"
#include "cpu/fuse_alu.h"
#include "cpu/fuse_mem64.h"
#include "cpu/pair_half.h"

/* The pair: both halves, then the op after the second (the second op
 * stays in the block with its own handler, for its length: cpu_rip()).
 * nf: the handler for a pair whose flags are all dead (NF_PAIR_WIDTHS),
 * without the tests of OPF_NOFLAGS. */
#define GEN_PAIR_NF(second, first, w64, nf, tag)                                        \
    static void pr_##first##_##second##_##w64##tag(struct cpu *c, const struct op *op)  \
    {                                                                                   \
        struct link l = { op->r1, half(c, NULL, op, PK_##first, w64, nf) };              \
        half(c, &l, op + 1, PK_##second, w64, nf);                                      \
        NEXT(c, op + 1);                                                                \
    }
#define GEN_PAIR(second, first, w64) GEN_PAIR_NF(second, first, w64, 0, )
#define GEN_PAIR_DEAD(second, first, w64) GEN_PAIR_NF(second, first, w64, 1, _nf)
#define GEN_ROW(first, w64) PAIR_SECOND(GEN_PAIR, first, w64)
#define GEN_ROW_DEAD(first, w64) PAIR_SECOND(GEN_PAIR_DEAD, first, w64)
PAIR_FIRST(GEN_ROW, 0)
PAIR_FIRST(GEN_ROW, 1)
/* The widths whose pairs have dead-flag handlers: 32-bit, where ia32 code
 * (sha256 for ia32) spends the tests (its Ir -10% with them). */
#define NF_PAIR_WIDTHS(X) X(0)
#define GEN_DEAD_WIDTH(w64) PAIR_FIRST(GEN_ROW_DEAD, w64)
NF_PAIR_WIDTHS(GEN_DEAD_WIDTH)

#define PAIR_ENTRY(second, first, w64) [w64][PK_##first][PK_##second] = pr_##first##_##second##_##w64,
#define ROW_ENTRIES(first, w64) PAIR_SECOND(PAIR_ENTRY, first, w64)
static const cpu_handler pair_h[2][NPK][NPK] = { PAIR_FIRST(ROW_ENTRIES, 0) PAIR_FIRST(ROW_ENTRIES, 1) };
#define DEAD_ENTRY(second, first, w64)                                                  \
    [w64][PK_##first][PK_##second] = pr_##first##_##second##_##w64##_nf,
#define DEAD_ROW_ENTRIES(first, w64) PAIR_SECOND(DEAD_ENTRY, first, w64)
#define DEAD_WIDTH_ENTRIES(w64) PAIR_FIRST(DEAD_ROW_ENTRIES, w64)
static const cpu_handler pair_h_nf[2][NPK][NPK] = { NF_PAIR_WIDTHS(DEAD_WIDTH_ENTRIES) };

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
    if (m == ZYDIS_MNEMONIC_IMUL)
        return d->in->operand_count_visible == 3 && reg_is(d, 1, op->r2) && is_imm(d, 2)
                   ? PK_IMULI : PK_NONE;
    if (d->in->operand_count < 2)
        return PK_NONE;
    if (is_imm(d, 1)) {
        unsigned kind = binary_kind(m, true);
        /* a shift by 0 changes no flags: its own handler (ri0) */
        return is_shift(kind) && op->imm == 0 ? PK_NONE : kind;
    }
    return reg_is(d, 1, op->r2) ? binary_kind(m, false) : PK_NONE;
}

/* The memory kinds of cpu/ops_fused_mem.c: MOV r, [m] (PK_LD), MOV [m], r
 * (PK_ST), ADD r, [m] (PK_ADDM), MOV [m], r8 (PK_ST8), ADD [m], imm
 * (PK_ADDMI) and MOVZX r, byte [m] (PK_LDZX8), in an address form it
 * handles (not FS/GS, not the 0x67 prefix); PK_NONE for anything else. */
static unsigned mem_kind_of(const struct decoder *d, uint8_t *am)
{
    ZydisMnemonic mn = d->in->mnemonic;
    if ((mn != ZYDIS_MNEMONIC_MOV && mn != ZYDIS_MNEMONIC_ADD && mn != ZYDIS_MNEMONIC_MOVZX) ||
        d->in->operand_count < 2 || (d->op->flags & OPF_LOCK))
        return PK_NONE;
    unsigned m = is_mem(d, 0) ? 0 : 1;
    const ZydisDecodedOperand *o = &d->ops[m];
    if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
        (o->mem.base == ZYDIS_REGISTER_NONE && o->mem.index == ZYDIS_REGISTER_NONE &&
         o->mem.disp.value != (int32_t)o->mem.disp.value))
        return PK_NONE; /* a 64-bit absolute address (moffs64) is not in disp */
    *am = (uint8_t)dec_addr_mode(d);
    if (*am == AM_ANY)
        return PK_NONE;
    if (mn == ZYDIS_MNEMONIC_MOVZX)
        return m == 1 && o->size == 8 && reg_is(d, 0, d->op->r1) ? PK_LDZX8 : PK_NONE;
    if (m == 1 && reg_is(d, 0, d->op->r1))
        return mn == ZYDIS_MNEMONIC_MOV ? PK_LD : PK_ADDM;
    if (m == 0 && mn == ZYDIS_MNEMONIC_MOV && reg_is(d, 1, d->op->r2))
        return d->ops[0].size == 8 ? PK_ST8 : PK_ST;
    if (m == 0 && mn == ZYDIS_MNEMONIC_ADD && is_imm(d, 1))
        return PK_ADDMI;
    return PK_NONE;
}

void pair_describe(const struct decoder *d, struct pair_meta *p)
{
    p->fn = d->op->fn;
    p->kind = PK_NONE;
    p->w64 = false;
    p->am = AM_ANY;
    if (d->in->operand_count < 1 || pair64_describe(d, p))
        return;
    if (d->ops[0].size == 8) {
        p->kind = (uint8_t)mem_kind_of(d, &p->am);
        if (p->kind != PK_ST8)
            p->kind = PK_NONE;
        return;
    }
    if (d->ops[0].size != 32 && d->ops[0].size != 64)
        return;
    p->w64 = d->ops[0].size == 64;
    p->kind = (uint8_t)kind_of(d);
    if (p->kind == PK_NONE)
        p->kind = (uint8_t)mem_kind_of(d, &p->am);
}

bool pair_is_store32(const struct pair_meta *p, unsigned am)
{
    return p->kind == PK_ST && !p->w64 && p->am == am;
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

/* A half of this kind leaves no flags record to make: it writes no flags,
 * or the dead-flag pass proved them dead. */
static bool flags_dead(const struct op *op, unsigned kind)
{
    bool writes = (kind >= PK_ADD && kind <= PK_SAR) || kind == PK_ADDM || kind == PK_ADDMI ||
                  kind == PK_IMULI;
    return !writes || (op->flags & OPF_NOFLAGS);
}

unsigned pair_block(struct op *ops, const struct op_meta *meta, unsigned n)
{
    unsigned pairs = 0;
    for (unsigned i = 0; i + 1 < n; i++) {
        const struct pair_meta *a = &meta[i].pair, *b = &meta[i + 1].pair;
        if (a->kind == PK_NONE || b->kind == PK_NONE ||
            taken_by_fuse(ops, meta, i, n) || taken_by_fuse(ops, meta, i + 1, n))
            continue;
        bool dead = flags_dead(&ops[i], a->kind) && flags_dead(&ops[i + 1], b->kind);
        cpu_handler h = NULL;
        if (a->kind < NPK && b->kind < NPK && a->w64 == b->w64) {
            if (dead)
                h = pair_h_nf[a->w64][a->kind][b->kind];
            if (!h)
                h = pair_h[a->w64][a->kind][b->kind];
        } else {
            h = mem_pair_handler(a, b, dead);
        }
        if (!h)
            h = mem64_pair_handler(a, b);
        if (!h)
            continue;
        ops[i].fn = h;
        pairs++;
        i++;
    }
    return pairs;
}
