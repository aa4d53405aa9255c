/* Fused pairs with a memory half (see cpu/fuse_alu.h): MOV r, [m] or
 * MOV [m], r next to a register operation of the same width, or two such
 * MOVs, as one handler.  32-bit code keeps much of its state on the stack
 * (sha256's rounds compiled for ia32 are a third loads and stores), so
 * most of its register operations sit next to a MOV.  Besides, a few
 * single pairs the profiles show hot (SEL_PAIRS), with ADD r, [m] and a
 * byte store.
 *
 * The halves are the register pairs' (cpu/pair_half.h) and the two MOVs
 * below, in the memory forms the profiles show hot (MEM_PAIR_FORMS): a
 * handler costs little more than the two it replaces less one dispatch
 * only when its address form is a constant.
 *
 * Precise faults: the first half runs with c->cur at its own op (NEXT
 * put it there); a memory second half points c->cur at its op before its
 * access, after the first half committed everything, so a fault there
 * finds the first instruction done and the second not begun, as it would
 * between two handlers. */
#include "cpu/block.h"
#include "cpu/fuse_alu.h"
#include "cpu/pair_half.h"

/* The host address of op's memory operand in form am for a half that may
 * fault: the second half of a pair points c->cur at its op first
 * (am_ptr_later).  The address registers come from struct cpu, not
 * through the link: its compares cost more than the wait for a store they
 * would save. */
static inline __attribute__((always_inline)) void *mem_at(struct cpu *c, const struct op *op,
                                                          unsigned am, bool second)
{
    return second ? am_ptr_later(c, op, am) : am_ptr(c, op, am);
}

/* One half of a pair (second: the pair's second), memory kinds included;
 * returns the 64 bits of the register it wrote (a store writes none: 0,
 * the value of SLOT_ZERO, which is where link_reg() points the link).  A
 * store's value comes from struct cpu too: it is not needed at once.  nf:
 * the flags of the pair are all dead (cpu/pair_half.h half()). */
static inline __attribute__((always_inline)) uint64_t mhalf(struct cpu *c, const struct link *l,
                                                            const struct op *op, unsigned kind,
                                                            unsigned am, unsigned w64, unsigned nf,
                                                            bool second)
{
    if (kind == PK_LD) {
        const void *p = mem_at(c, op, am, second);
        return wr(c, op->r1, w64, w64 ? ld64(p) : ld32(p));
    }
    if (kind == PK_ST) {
        void *p = mem_at(c, op, am, second);
        if (w64)
            st64(p, GPR64(c, op->r2));
        else
            st32(p, GPR32(c, op->r2));
        return 0;
    }
    if (kind == PK_ADDM) /* the load, then ADD's own half */
        return alu(c, l, op, PK_ADD, w64, nf, w64 ? ld64(mem_at(c, op, am, second))
                                                  : ld32(mem_at(c, op, am, second)));
    if (kind == PK_ST8) {
        void *p = mem_at(c, op, am, second);
        st8(p, GPR8(c, op->r2));
        return 0;
    }
    if (kind == PK_ADDMI) {
        add_mem_imm(c, op, mem_at(c, op, am, second), w64, nf);
        return 0;
    }
    if (kind == PK_LDZX8) {
        const void *p = mem_at(c, op, am, second);
        return wr(c, op->r1, w64, ld8(p));
    }
    if (kind == PK_IMULI) { /* as its own handler (cpu/ops_muldiv.c) */
        bool ovf;
        uint64_t r = wr(c, op->r1, w64, k_imul(w64, rd(c, l, op->r2, w64), (uint64_t)op->imm, &ovf));
        if (!nf && !(op->flags & OPF_NOFLAGS))
            cpu_set_cf_of(c, ovf ? FL_CF | FL_OF : 0);
        return r;
    }
    return half(c, l, op, kind, w64, nf);
}

/* The register a half of this kind writes (see mhalf), and the link the
 * second half gets: none after a memory half.  After a store the compares
 * would be for nothing; after a load they cost more than the wait for the
 * store they save (sha256_32: Ir -2.3%, no slower).  Register first halves
 * keep it, as in the register pairs. */
#define link_reg(op, kind)                                                               \
    ((kind) == PK_ST || (kind) == PK_ST8 || (kind) == PK_ADDMI ? SLOT_ZERO : (op)->r1)
#define link_of(kind, l) ((kind) >= NPK && (kind) != PK_IMULI ? NULL : (l))

/* Each pair twice: for any flags, and (_nf) for flags that are all dead. */
#define GEN_MPAIR_NF(second, first, am, sfx, w64, nf, tag)                              \
    static void mp_##first##_##second##_##sfx##_##w64##tag(struct cpu *c, const struct op *op) \
    {                                                                                   \
        struct link l = { link_reg(op, PK_##first),                                     \
                          mhalf(c, NULL, op, PK_##first, am, w64, nf, false) };         \
        mhalf(c, link_of(PK_##first, &l), op + 1, PK_##second, am, w64, nf, true);      \
        NEXT(c, op + 1);                                                                \
    }
#define GEN_MPAIR(second, first, am, sfx, w64)                                          \
    GEN_MPAIR_NF(second, first, am, sfx, w64, 0, ) GEN_MPAIR_NF(second, first, am, sfx, w64, 1, _nf)
/* The memory kinds, twice (as PAIR_FIRST and PAIR_SECOND). */
#define MEM_FIRST(X, ...) X(LD, __VA_ARGS__) X(ST, __VA_ARGS__)
#define MEM_SECOND(X, ...) X(LD, __VA_ARGS__) X(ST, __VA_ARGS__)
/* Every pair of a memory kind and a register or memory kind, and of a
 * register kind and a memory kind. */
#define GEN_MEM_FIRST(first, am, sfx, w64)                                              \
    PAIR_SECOND(GEN_MPAIR, first, am, sfx, w64) MEM_SECOND(GEN_MPAIR, first, am, sfx, w64)
#define GEN_REG_FIRST(first, am, sfx, w64) MEM_SECOND(GEN_MPAIR, first, am, sfx, w64)
#define GEN_FORM(am, sfx, w64)                                                          \
    MEM_FIRST(GEN_MEM_FIRST, am, sfx, w64) PAIR_FIRST(GEN_REG_FIRST, am, sfx, w64)

/* The forms: ia32 code's [base + disp] (its locals on the stack), whose
 * operations are 32-bit. */
#define MEM_PAIR_FORMS(X) X(AM_B32, b32, 0)
MEM_PAIR_FORMS(GEN_FORM)

#define MP_ENTRY(second, first, am, sfx, w64)                                           \
    [0][PK_##first][PK_##second] = mp_##first##_##second##_##sfx##_##w64,               \
    [1][PK_##first][PK_##second] = mp_##first##_##second##_##sfx##_##w64##_nf,
#define MEM_FIRST_ENTRIES(first, am, sfx, w64)                                          \
    PAIR_SECOND(MP_ENTRY, first, am, sfx, w64) MEM_SECOND(MP_ENTRY, first, am, sfx, w64)
#define REG_FIRST_ENTRIES(first, am, sfx, w64) MEM_SECOND(MP_ENTRY, first, am, sfx, w64)
#define FORM_ENTRIES(am, sfx, w64)                                                      \
    { MEM_FIRST(MEM_FIRST_ENTRIES, am, sfx, w64) PAIR_FIRST(REG_FIRST_ENTRIES, am, sfx, w64) },
/* By form, dead flags (1) or not, and the two kinds. */
static const cpu_handler mp_h[][2][NPK_ALL][NPK_ALL] = { MEM_PAIR_FORMS(FORM_ENTRIES) };

/* Single pairs the profiles show hot, each half with its own address form
 * (AM_ANY: a register kind) and width (w: 64-bit).  sha256 for ia32:
 *     mov edi, [ebp-0x15c]; add edx, [edi+esi*4-0x1fd4]  (the load is the base)
 *     rol eax, 0xe; add edx, [ecx+0x1c]                  (its message schedule)
 *     shr ecx, 0x10; mov [esi+edx], cl                   (its input's making)
 *     imul eax, eax, 0x41c64e6d; add eax, 0x3039         (its random generator,
 *     mov [esi+edx], cl; add edx, 1                       the same loop)
 *     add [ebp-0x13c], 1; xor eax, edx                   (its rounds: the counter
 *     xor eax, edx; mov edx, [edi+esi*4]                  and the schedule's word)
 *     movzx eax, byte [edx]; movzx esi, byte [edx+1]     (its big-endian loads)
 *     or eax, esi; movzx esi, byte [edx-1] */
#define SEL_PAIRS(X)                                                                    \
    X(LD, AM_B32, 0, ADDM, AM_X32, 0, ldb_addmx)                                        \
    X(ROL, AM_ANY, 0, ADDM, AM_B32, 0, rol_addmb)                                       \
    X(SHR, AM_ANY, 0, ST8, AM_X32, 0, shr_st8x)                                         \
    X(IMULI, AM_ANY, 0, ADDI, AM_ANY, 0, imuli_addi)                                    \
    X(ST8, AM_X32, 0, ADDI, AM_ANY, 0, st8x_addi)                                       \
    X(ADDMI, AM_B32, 0, XOR, AM_ANY, 0, addmib_xor)                                     \
    X(XOR, AM_ANY, 0, LD, AM_X32, 0, xor_ldx)                                           \
    X(LDZX8, AM_B32, 0, LDZX8, AM_B32, 0, ldzx8b_ldzx8b)                                \
    X(OR, AM_ANY, 0, LDZX8, AM_B32, 0, or_ldzx8b)
#define GEN_SEL_NF(first, ama, wa, second, amb, wb, name, nf)                           \
    static void ms_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        struct link l = { link_reg(op, PK_##first),                                     \
                          mhalf(c, NULL, op, PK_##first, ama, wa, nf, false) };         \
        mhalf(c, link_of(PK_##first, &l), op + 1, PK_##second, amb, wb, nf, true);      \
        NEXT(c, op + 1);                                                                \
    }
#define GEN_SEL(first, ama, wa, second, amb, wb, name)                                  \
    GEN_SEL_NF(first, ama, wa, second, amb, wb, name, 0)                                \
    GEN_SEL_NF(first, ama, wa, second, amb, wb, name##_nf, 1)
SEL_PAIRS(GEN_SEL)
static const struct sel_pair {
    uint8_t first, ama, wa, second, amb, wb;
    cpu_handler fn[2]; /* by dead flags */
} sel_pairs[] = {
#define SEL_ENTRY(first, ama, wa, second, amb, wb, name)                                \
    { PK_##first, ama, wa, PK_##second, amb, wb, { ms_##name, ms_##name##_nf } },
    SEL_PAIRS(SEL_ENTRY)
};

/* The row of mp_h for memory form am and width w64; -1 when none. */
static int form_row(unsigned am, bool w64)
{
    if (am == AM_B32 && !w64)
        return 0;
    return -1;
}

cpu_handler mem_pair_handler(const struct pair_meta *a, const struct pair_meta *b, bool dead)
{
    for (size_t i = 0; i < sizeof(sel_pairs) / sizeof(sel_pairs[0]); i++) {
        const struct sel_pair *s = &sel_pairs[i];
        if (s->first == a->kind && s->ama == a->am && s->wa == a->w64 && s->second == b->kind &&
            s->amb == b->am && s->wb == b->w64)
            return s->fn[dead];
    }
    if (a->kind > PK_ST || b->kind > PK_ST || a->w64 != b->w64)
        return NULL;
    int ra = a->kind >= NPK ? form_row(a->am, a->w64) : -2;
    int rb = b->kind >= NPK ? form_row(b->am, b->w64) : -2;
    if (ra == -1 || rb == -1 || (ra >= 0 && rb >= 0 && ra != rb))
        return NULL;
    return mp_h[ra >= 0 ? ra : rb][dead][a->kind][b->kind];
}
