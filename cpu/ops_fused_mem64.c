/* Fused pairs of x86_64 code with a memory half (see cpu/fuse_mem64.h).
 *
 * 64-bit programs (python3's eval loop, gzip's longest_match, sqlite3) are
 * a third loads and stores, and most of the rest sits next to one: a load
 * of a field then a load through it, a store then the LEA of the next
 * address, MOVZX of the next bytecode word then a MOV of it, and gzip's
 * hash chain "and r32, imm; movzx r32, word [base + index*2]" and
 * "movsxd r64, r32; mov r32, r32".  Each pair in SEL64_PAIRS below has its
 * own handler, with the kinds, address forms and widths of its halves as
 * constants; a half is what its single handler does, less the NEXT.
 *
 * The second half reads the register the first one wrote from the host
 * register that holds it (struct link, cpu/pair_half.h), except for its
 * address, which comes from struct cpu. */
#include "cpu/block.h"
#include "cpu/decode.h"
#include "cpu/fuse_mem64.h"
#include "cpu/pair_half.h"

_Static_assert((unsigned)NPK_ALL <= (unsigned)PK64_LD,
               "the kinds of cpu/fuse_mem64.h are above those of cpu/pair_half.h");

/* The host address of op's memory operand in form am; a second half's
 * after c->cur points at its op (cpu/mem.h am_ptr_later). */
static inline __attribute__((always_inline)) void *mem_at(struct cpu *c, const struct op *op,
                                                          unsigned am, bool second)
{
    return second ? am_ptr_later(c, op, am) : am_ptr(c, op, am);
}

/* One half; returns the 64 bits of the register it wrote (a store writes
 * none: 0, the value of SLOT_ZERO, which is where its link points). */
static inline __attribute__((always_inline)) uint64_t half64(struct cpu *c, const struct link *l,
                                                             const struct op *op, unsigned kind,
                                                             unsigned am, unsigned w64, bool second)
{
    switch (kind) {
    case PK64_LD: {
        const void *p = mem_at(c, op, am, second);
        return wr(c, op->r1, w64, w64 ? ld64(p) : ld32(p));
    }
    case PK64_ST: {
        void *p = mem_at(c, op, am, second);
        uint64_t v = rd(c, l, op->r2, w64);
        if (w64)
            st64(p, v);
        else
            st32(p, (uint32_t)v);
        return 0;
    }
    case PK64_LDZX16: /* into r32 or r64: zero-extended either way */
        return wr(c, op->r1, 1, ld16(mem_at(c, op, am, second)));
    case PK64_LDZX8:
        return wr(c, op->r1, 1, ld8(mem_at(c, op, am, second)));
    case PK64_MOVSXD:
        return wr(c, op->r1, 1, (uint64_t)(int64_t)(int32_t)rd(c, l, op->r2, 0));
    case PK_ADDMI: /* its record unless OPF_NOFLAGS (lf_commit) */
        add_mem_imm(c, op, mem_at(c, op, am, second), w64, 0);
        return 0;
    default:
        return half(c, l, op, kind, w64, 0);
    }
}

#define LINK64(op, kind)                                                                \
    ((unsigned)(kind) == (unsigned)PK64_ST || (unsigned)(kind) == (unsigned)PK_ADDMI ? SLOT_ZERO : (op)->r1)

/* The pairs: X(first kind, its address form, its width (1: 64-bit), second
 * kind, form, width, name); AM_ANY for a register kind.  From the pairs
 * counted in --trace windows of the workloads, the most frequent of those
 * no other pass takes (compare-and-branch pairs are cpu/fuse.h's). */
#define SEL64_PAIRS(X)                                                                  \
    /* python3 (_PyEval_EvalFrameDefault and the object code it calls) */              \
    X(PK64_LD, AM_B64, 1, PK64_LD, AM_B64, 1, ldq_ldq)                                  \
    X(PK64_ST, AM_B64, 1, PK_LEA, AM_ANY, 1, stq_lea)                                   \
    X(PK64_ST, AM_B64, 1, PK64_LDZX16, AM_B64, 0, stq_ldzw)                             \
    X(PK64_LD, AM_B64, 1, PK64_MOVSXD, AM_ANY, 1, ldq_movsxd)                           \
    X(PK64_LDZX16, AM_B64, 0, PK_MOV, AM_ANY, 1, ldzw_movq)                             \
    X(PK64_LDZX16, AM_B64, 0, PK_MOV, AM_ANY, 0, ldzw_movl)                             \
    X(PK64_MOVSXD, AM_ANY, 1, PK64_ST, AM_B64, 1, movsxd_stq)                           \
    X(PK64_LD, AM_B64, 1, PK64_ST, AM_B64, 1, ldq_stq)                                  \
    X(PK64_LDZX16, AM_B64, 0, PK64_LDZX16, AM_B64, 0, ldzw_ldzw)                        \
    X(PK_MOV, AM_ANY, 1, PK64_ST, AM_B64, 1, movq_stq)                                  \
    X(PK64_LD, AM_B64, 1, PK_LEA, AM_ANY, 1, ldq_lea)                                   \
    X(PK_LEA, AM_ANY, 1, PK64_LD, AM_X64, 1, lea_ldqx)                                  \
    X(PK64_ST, AM_B64, 1, PK_MOV, AM_ANY, 1, stq_movq)                                  \
    X(PK_SUBI, AM_ANY, 1, PK64_LD, AM_B64, 1, subi_ldq)                                 \
    X(PK64_LDZX16, AM_B64, 0, PK64_LD, AM_X64, 1, ldzw_ldqx)                            \
    X(PK_LEA, AM_ANY, 1, PK64_ST, AM_B64, 1, lea_stq)                                   \
    X(PK64_ST, AM_B64, 1, PK64_ST, AM_B64, 1, stq_stq)                                  \
    X(PK64_ST, AM_B64, 1, PK64_LD, AM_B64, 1, stq_ldq)                                  \
    X(PK_LEA, AM_ANY, 1, PK64_LD, AM_B64, 1, lea_ldq)                                   \
    X(PK64_LD, AM_B64, 1, PK_MOV, AM_ANY, 1, ldq_movq)                                  \
    X(PK64_LD, AM_B64, 1, PK_MOV, AM_ANY, 0, ldq_movl)                                  \
    X(PK_ADDMI, AM_B64, 1, PK64_ST, AM_B64, 1, addmiq_stq) /* Py_INCREF, then a store */ \
    /* gzip -9 (longest_match's hash chain) */                                          \
    X(PK_ANDI, AM_ANY, 0, PK64_LDZX16, AM_X64, 0, andil_ldzwx)                          \
    X(PK64_MOVSXD, AM_ANY, 1, PK_MOV, AM_ANY, 0, movsxd_movl)                           \
    /* sqlite3 */                                                                       \
    X(PK64_LD, AM_B64, 0, PK_MOV, AM_ANY, 0, ldl_movl)                                  \
    X(PK64_LD, AM_B64, 0, PK_ANDI, AM_ANY, 0, ldl_andil)                                \
    X(PK_LEA, AM_ANY, 1, PK64_MOVSXD, AM_ANY, 1, lea_movsxd)                            \
    X(PK64_MOVSXD, AM_ANY, 1, PK_LEA, AM_ANY, 1, movsxd_lea)                            \
    X(PK_LEA, AM_ANY, 1, PK64_LDZX16, AM_X64, 0, lea_ldzwx)                             \
    X(PK64_LDZX8, AM_B64, 0, PK_LEA, AM_ANY, 1, ldzb_lea)

#define GEN_SEL64(ka, ama, wa, kb, amb, wb, name)                                       \
    static void m64_##name(struct cpu *c, const struct op *op)                          \
    {                                                                                   \
        struct link l = { LINK64(op, ka), half64(c, NULL, op, ka, ama, wa, false) };    \
        half64(c, &l, op + 1, kb, amb, wb, true);                                       \
        NEXT(c, op + 1);                                                                \
    }
SEL64_PAIRS(GEN_SEL64)

static const struct sel64 {
    uint8_t ka, ama, wa, kb, amb, wb;
    cpu_handler fn;
} sel64[] = {
#define SEL64_ENTRY(ka, ama, wa, kb, amb, wb, name) { ka, ama, wa, kb, amb, wb, m64_##name },
    SEL64_PAIRS(SEL64_ENTRY)
};

cpu_handler mem64_pair_handler(const struct pair_meta *a, const struct pair_meta *b)
{
    for (size_t i = 0; i < sizeof(sel64) / sizeof(sel64[0]); i++) {
        const struct sel64 *s = &sel64[i];
        if (s->ka == a->kind && s->ama == a->am && s->wa == a->w64 && s->kb == b->kind &&
            s->amb == b->am && s->wb == b->w64)
            return s->fn;
    }
    return NULL;
}

/* ------------------------------------------------------------ decoding */

/* Operand i is the general register in op offset off. */
static bool reg_at(const struct decoder *d, unsigned i, uint8_t off)
{
    uint8_t reg;
    return is_reg(d, i) && dec_reg_op(d, i, &reg) && reg == off;
}

bool pair64_describe(const struct decoder *d, struct pair_meta *p)
{
    const struct op *op = d->op;
    ZydisMnemonic mn = d->in->mnemonic;
    if (d->bits != 64 || (op->flags & OPF_LOCK) || d->in->operand_count < 2)
        return false;
    if (mn == ZYDIS_MNEMONIC_MOVSXD) {
        if (d->ops[0].size != 64 || d->ops[1].size != 32 || !reg_at(d, 0, op->r1) ||
            !reg_at(d, 1, op->r2))
            return false;
        p->kind = PK64_MOVSXD;
        p->w64 = true;
        return true;
    }
    if (mn != ZYDIS_MNEMONIC_MOV && mn != ZYDIS_MNEMONIC_MOVZX)
        return false;
    unsigned m = is_mem(d, 0) ? 0 : 1;
    const ZydisDecodedOperand *o = &d->ops[m];
    if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.type != ZYDIS_MEMOP_TYPE_MEM)
        return false;
    unsigned am = dec_addr_mode(d);
    if (am != AM_B64 && am != AM_X64)
        return false; /* FS/GS, the 0x67 prefix, a moffs64 */
    if (o->mem.base == ZYDIS_REGISTER_NONE && o->mem.index == ZYDIS_REGISTER_NONE &&
        o->mem.disp.value != (int32_t)o->mem.disp.value)
        return false;
    unsigned rsize = d->ops[m ^ 1].size;
    if (rsize != 32 && rsize != 64)
        return false;
    if (mn == ZYDIS_MNEMONIC_MOVZX) {
        if (m != 1 || (o->size != 16 && o->size != 8) || !reg_at(d, 0, op->r1))
            return false;
        p->kind = o->size == 16 ? PK64_LDZX16 : PK64_LDZX8;
        p->w64 = false;
    } else if (m == 1 && reg_at(d, 0, op->r1)) {
        p->kind = PK64_LD;
        p->w64 = rsize == 64;
    } else if (m == 0 && reg_at(d, 1, op->r2)) {
        p->kind = PK64_ST;
        p->w64 = rsize == 64;
    } else
        return false;
    p->am = (uint8_t)am;
    return true;
}
