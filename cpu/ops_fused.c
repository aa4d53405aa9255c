/* Fused pairs (see cpu/fuse.h): CMP/TEST/SUB/ADD/AND/OR/INC/DEC followed
 * by Jcc, SETcc r8 or CMOVcc r,r, as one op.
 *
 * One handler per operation, operand form and width and, for Jcc and
 * SETcc, per condition class (the low bit of the condition negates it), so
 * that the condition folds to one comparison of the operands;
 * CMOVcc looks its condition up (cpu_cond_mask) in the CF/ZF/SF/OF the
 * handler computes.  Parity conditions are not fused.
 * The first instruction's half follows the ALU handlers' contract: loads
 * first, then the register result, then the lazy flags record -- the same
 * record the unfused instruction leaves, so a later reader (PUSHF, ADC, a
 * signal frame, the next block's Jcc) sees exactly the same flags. */
#include "cpu/alu.h"
#include "cpu/block.h"
#include "cpu/chain.h"
#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/fuse.h"
#include "cpu/mem.h"

/* The operations (enum values are fuse_meta.kind) and operand forms. */
enum { K_CMP, K_SUB, K_ADD, K_TEST, K_AND, K_OR, K_XOR, K_INC, K_DEC, K_BT, NKINDS };
enum { F_RR, F_RI, F_RM, F_MR, F_MI, F_R, NFORMS };

static inline __attribute__((always_inline)) uint64_t rd(const struct cpu *c, uint8_t off, unsigned w)
{
    switch (w) {
    case 0: return GPR8(c, off);
    case 1: return GPR16(c, off);
    case 2: return GPR32(c, off);
    default: return GPR64(c, off);
    }
}

static inline __attribute__((always_inline)) void wr(struct cpu *c, uint8_t off, unsigned w, uint64_t v)
{
    switch (w) {
    case 0: set_gpr8(c, off, v); break;
    case 1: set_gpr16(c, off, v); break;
    case 2: set_gpr32(c, off, v); break;
    default: set_gpr64(c, off, v); break;
    }
}

/* Host memory at width w. */
static inline __attribute__((always_inline)) uint64_t ld_w(const void *p, unsigned w)
{
    switch (w) {
    case 0: return ld8(p);
    case 1: return ld16(p);
    case 2: return ld32(p);
    default: return ld64(p);
    }
}

static inline __attribute__((always_inline)) void st_w(void *p, unsigned w, uint64_t v)
{
    switch (w) {
    case 0: st8(p, (uint8_t)v); break;
    case 1: st16(p, (uint16_t)v); break;
    case 2: st32(p, (uint32_t)v); break;
    default: st64(p, v); break;
    }
}

/* The memory operand in form am (cpu/mem.h ADDR_MODES), at width w. */
static inline __attribute__((always_inline)) uint64_t ld(struct cpu *c, const struct op *op,
                                                         unsigned am, unsigned w)
{
    return ld_w(am_ptr(c, op, am), w);
}

/* The first instruction writes its result to memory: SUB/ADD [m], imm
 * (CPython's reference counts: "subq $1, (%rdi); jne"). */
static inline bool writes_mem(unsigned kind, unsigned form)
{
    return (form == F_MI || form == F_MR) && kind != K_CMP && kind != K_TEST;
}

/* An operation's operands: loads first (a fault leaves nothing changed). */
static inline __attribute__((always_inline)) void operands(struct cpu *c, const struct op *op,
                                                           unsigned form, unsigned am, unsigned w,
                                                           uint64_t *d, uint64_t *s)
{
    switch (form) {
    case F_RR: *d = rd(c, op->r1, w); *s = rd(c, op->r2, w); break;
    case F_RI: *d = rd(c, op->r1, w); *s = (uint64_t)op->imm; break;
    case F_RM: *s = ld(c, op, am, w); *d = rd(c, op->r1, w); break;
    case F_MR: *d = ld(c, op, am, w); *s = rd(c, op->r2, w); break;
    case F_MI: *d = ld(c, op, am, w); *s = (uint64_t)op->imm; break;
    default: *d = rd(c, op->r1, w); *s = 1; break; /* F_R: INC, DEC */
    }
}

static inline __attribute__((always_inline)) uint64_t result(unsigned kind, uint64_t d, uint64_t s)
{
    switch (kind) {
    case K_CMP: case K_SUB: case K_DEC: return d - s; /* DEC: s = 1 */
    case K_ADD: case K_INC: return d + s;
    case K_TEST: case K_AND: return d & s;
    case K_OR: return d | s;
    default: return d ^ s; /* K_XOR */
    }
}

/* The first instruction's operands and result at its width (masked), and
 * the CF that INC/DEC keep. */
struct half {
    uint64_t d, s, r;
    uint32_t lf; /* the kind of its flags record (LF_*) and width */
    bool old_cf;
};

/* The first instruction: operands, result, register write-back and lazy
 * flags record.  kind, form, am and w are constants in every handler, so
 * this folds to the one operation.  need_cf: the second instruction reads CF
 * (INC/DEC keep the old one, needed then or by the record). */
static inline __attribute__((always_inline)) void first_half(struct cpu *c, const struct op *op,
                                                             unsigned kind, unsigned form,
                                                             unsigned am, unsigned w,
                                                             bool need_cf, struct half *h)
{
    uint64_t d, s;
    void *p = NULL;
    if (writes_mem(kind, form)) { /* as the single handler: load, store, record */
        p = am_ptr(c, op, am);
        d = ld_w(p, w);
        s = form == F_MI ? (uint64_t)op->imm : rd(c, op->r2, w);
    } else
        operands(c, op, form, am, w, &d, &s);
    uint64_t r = result(kind, d, s);
    uint32_t lf;
    switch (kind) {
    case K_CMP: case K_SUB: lf = LF_SUB; break;
    case K_ADD: lf = LF_ADD; break;
    case K_INC: lf = LF_INC; break;
    case K_DEC: lf = LF_DEC; break;
    default: lf = LF_LOGIC; break;
    }
    h->old_cf = false;
    if ((kind == K_INC || kind == K_DEC) && (need_cf || !(op->flags & OPF_NOFLAGS)))
        h->old_cf = cpu_cf(c);
    if (writes_mem(kind, form))
        st_w(p, w, r);
    else if (kind != K_CMP && kind != K_TEST)
        wr(c, op->r1, w, r);
    /* the record the single handler leaves (only what its kind's flags
     * are computed from) */
    if (!(op->flags & OPF_NOFLAGS))
        lf_commit(c, op, &(struct lfrec){ lf + w, d, s, r, h->old_cf });
    uint64_t m = lf_width_mask(w);
    h->lf = lf + w;
    h->d = d & m;
    h->s = s & m;
    h->r = r & m;
}

/* CF, ZF, SF and OF of the first instruction. */
static inline __attribute__((always_inline)) void flags_of(unsigned kind, unsigned w, const struct half *h,
                                                           bool *cf, bool *zf, bool *sf, bool *of)
{
    uint64_t sb = lf_sign_bit(w);
    *zf = h->r == 0;
    *sf = (h->r & sb) != 0;
    switch (kind) {
    case K_CMP: case K_SUB:
        *cf = h->d < h->s;
        *of = ((h->d ^ h->s) & (h->d ^ h->r) & sb) != 0;
        break;
    case K_ADD:
        *cf = h->r < h->d;
        *of = ((h->d ^ h->r) & (h->s ^ h->r) & sb) != 0;
        break;
    case K_INC: case K_DEC:
        *cf = h->old_cf;
        *of = h->r == (kind == K_INC ? sb : sb - 1);
        break;
    default: /* logical */
        *cf = *of = false;
        break;
    }
}

/* Condition class cls (cc >> 1; the low bit of cc negates it), known at
 * compile time: after a comparison straight from the operands, else from
 * the flags. */
static inline __attribute__((always_inline)) bool cond_class(unsigned kind, unsigned w, unsigned cls,
                                                             const struct half *h)
{
    if (kind == K_CMP || kind == K_SUB) {
        unsigned sh = 64 - (8u << w);
        int64_t sd = (int64_t)(h->d << sh) >> sh, ss = (int64_t)(h->s << sh) >> sh;
        switch (cls) {
        case 1: return h->d < h->s;
        case 2: return h->d == h->s;
        case 3: return h->d <= h->s;
        case 6: return sd < ss;
        case 7: return sd <= ss;
        default: break;
        }
    }
    bool cf, zf, sf, of;
    flags_of(kind, w, h, &cf, &zf, &sf, &of);
    switch (cls) {
    case 0: return of;
    case 1: return cf;
    case 2: return zf;
    case 3: return cf || zf;
    case 4: return sf;
    case 6: return sf != of;
    default: return zf || sf != of;
    }
}

/* Condition cc known at run time only: through the CI_* index. */
static inline __attribute__((always_inline)) bool cond_any(unsigned kind, unsigned w, unsigned cc,
                                                           const struct half *h)
{
    bool cf, zf, sf, of;
    flags_of(kind, w, h, &cf, &zf, &sf, &of);
    return cond_holds(cc, (cf ? CI_CF : 0) | (zf ? CI_ZF : 0) | (sf ? CI_SF : 0) | (of ? CI_OF : 0));
}

static inline bool reads_cf(unsigned cc) { return (cc >> 1) == 1 || (cc >> 1) == 3; }

/* The store of a memory-destination first half rewrote the bytes of the
 * block at or after the Jcc (cpu_code_written made the ops after this one
 * op_code_written): leave at the Jcc, which runs from its new bytes, with
 * the flags record made even where the old Jcc's made it dead, since the
 * new instruction may read it. */
static __attribute__((noinline)) void jcc_rewritten(struct cpu *c, const struct op *op,
                                                    const struct half *h)
{
    lf_commit(c, &(struct op){ .flags = 0 }, &(struct lfrec){ h->lf, h->d, h->s, h->r, h->old_cf });
    NEXT(c, op);
}

/* Jcc and SETcc r8: one handler per condition class, so that the condition
 * folds to one comparison.  A Jcc's target is in the op that follows (its
 * fall-through is c->rip: the Jcc ends the block); SETcc's register is in
 * x2, and the pair goes on after the op that follows. */
#define GEN_JCC_CLASS(kind, form, am, sfx, w, cls)                                      \
    static void fj_##kind##_##form##_##w##_##cls##_##sfx(struct cpu *c, const struct op *op) \
    {                                                                                   \
        struct half h;                                                                  \
        first_half(c, op, kind, form, am, w, reads_cf(cls << 1), &h);                   \
        if (writes_mem(kind, form) && UNLIKELY(op[1].fn == op_code_written))            \
        {                                                                               \
            jcc_rewritten(c, op, &h);                                                   \
            return;                                                                     \
        }                                                                               \
        CHAIN_BRANCH(c, op + 1, cond_class(kind, w, cls, &h) != (op->x1 & 1));          \
    }
#define GEN_CLASS(kind, form, am, sfx, w, cls)                                          \
    GEN_JCC_CLASS(kind, form, am, sfx, w, cls)                                          \
    static void fs_##kind##_##form##_##w##_##cls##_##sfx(struct cpu *c, const struct op *op) \
    {                                                                                   \
        struct half h;                                                                  \
        first_half(c, op, kind, form, am, w, reads_cf(cls << 1), &h);                   \
        set_gpr8(c, op->x2, cond_class(kind, w, cls, &h) != (op->x1 & 1));              \
        NEXT(c, op + 1);                                                                \
    }
/* CMOVcc r,r: the condition in x1, the destination in x2, the source in
 * x3, the size in size. */
#define GEN_CMOV(kind, form, am, sfx, w)                                                \
    static void fc_##kind##_##form##_##w##_##sfx(struct cpu *c, const struct op *op)    \
    {                                                                                   \
        struct half h;                                                                  \
        first_half(c, op, kind, form, am, w, reads_cf(op->x1), &h);                     \
        uint64_t v = get_reg_n(c, op->x3, op->size);                                    \
        if (cond_any(kind, w, op->x1, &h))                                              \
            set_reg_n(c, op->x2, op->size, v);                                          \
        else if (op->size == 4)                                                         \
            set_gpr32(c, op->x2, GPR32(c, op->x2)); /* a 32-bit CMOV always zero-extends */ \
        NEXT(c, op + 1);                                                                \
    }
/* The classes that have handlers of their own after each operation.  The
 * logical operations clear CF and OF, so that after them CF (class 1) is
 * OF's "never", CF|ZF (3) is ZF and SF!=OF (6) is SF: their pairs use the
 * handlers of classes 0, 2 and 4 for those (class_handler()). */
#define ARITH_CLASSES(X, ...)                                                           \
    X(__VA_ARGS__, 0) X(__VA_ARGS__, 1) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)             \
    X(__VA_ARGS__, 4) X(__VA_ARGS__, 6) X(__VA_ARGS__, 7)
#define LOGIC_CLASSES(X, ...) X(__VA_ARGS__, 0) X(__VA_ARGS__, 2) X(__VA_ARGS__, 4) X(__VA_ARGS__, 7)
#define CLASSES_K_CMP ARITH_CLASSES
#define CLASSES_K_SUB ARITH_CLASSES
#define CLASSES_K_ADD ARITH_CLASSES
#define CLASSES_K_INC ARITH_CLASSES
#define CLASSES_K_DEC ARITH_CLASSES
#define CLASSES_K_TEST LOGIC_CLASSES
#define CLASSES_K_AND LOGIC_CLASSES
#define CLASSES_K_OR LOGIC_CLASSES

static unsigned class_handler(unsigned kind, unsigned cls)
{
    if (kind == K_TEST || kind == K_AND || kind == K_OR || kind == K_XOR)
        return cls == 1 ? 0 : cls == 3 ? 2 : cls == 6 ? 4 : cls;
    return cls;
}

#define GEN_FUSED(kind, form, am, sfx, w)                                               \
    CLASSES_##kind(GEN_CLASS, kind, form, am, sfx, w) GEN_CMOV(kind, form, am, sfx, w)

/* X(kind, form, am, sfx, w) for every width an operand form can have: an
 * ia32 guest's memory operand forms (AM_B32, AM_X32) never come with a
 * 64-bit operand. */
#define WIDTHS_reg(X, ...) X(__VA_ARGS__, 0) X(__VA_ARGS__, 1) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)
#define WIDTHS_any WIDTHS_reg
#define WIDTHS_b64 WIDTHS_reg
#define WIDTHS_x64 WIDTHS_reg
#define WIDTHS_b32(X, ...) X(__VA_ARGS__, 0) X(__VA_ARGS__, 1) X(__VA_ARGS__, 2)
#define WIDTHS_x32 WIDTHS_b32
#define REG_FORM(X, kind, form) WIDTHS_reg(X, kind, form, AM_ANY, reg)
#define MEM_FORM_AM(am, sfx, X, kind, form) WIDTHS_##sfx(X, kind, form, am, sfx)
#define MEM_FORM(X, kind, form) ADDR_MODES(MEM_FORM_AM, X, kind, form)

/* The pairs: comparisons with every form, the others on registers.
 * FUSED_PAIRS(X): X(kind, form, am, sfx, w) for each. */
#define FUSED_REG_FORMS(Y, X)                                                           \
    Y(X, K_CMP, F_RR) Y(X, K_CMP, F_RI) Y(X, K_TEST, F_RR) Y(X, K_TEST, F_RI)           \
    Y(X, K_SUB, F_RR) Y(X, K_SUB, F_RI) Y(X, K_ADD, F_RR) Y(X, K_ADD, F_RI)             \
    Y(X, K_AND, F_RR) Y(X, K_AND, F_RI) Y(X, K_OR, F_RR) Y(X, K_OR, F_RI)               \
    Y(X, K_INC, F_R) Y(X, K_DEC, F_R)
#define FUSED_MEM_FORMS(Y, X)                                                           \
    Y(X, K_CMP, F_RM) Y(X, K_CMP, F_MR) Y(X, K_CMP, F_MI) Y(X, K_TEST, F_MR)            \
    Y(X, K_TEST, F_MI) Y(X, K_SUB, F_RM) Y(X, K_ADD, F_RM)
#define FUSED_PAIRS(X) FUSED_REG_FORMS(REG_FORM, X) FUSED_MEM_FORMS(MEM_FORM, X)
FUSED_PAIRS(GEN_FUSED)

/* Memory-destination writers, before a Jcc only, in the x86_64 address
 * forms at 32 and 64 bits: SUB/ADD [m], imm (CPython's reference counts,
 * "subq $1, (%rdi); jne").  MEMDST_PAIRS(X): X(kind, form, am, sfx, w). */
#define MEMDST_FORM(X, kind, form)                                                      \
    X(kind, form, AM_B64, b64, 2) X(kind, form, AM_B64, b64, 3)                         \
    X(kind, form, AM_X64, x64, 2) X(kind, form, AM_X64, x64, 3)
#define MEMDST_PAIRS(X) MEMDST_FORM(X, K_SUB, F_MI) MEMDST_FORM(X, K_ADD, F_MI)
#define GEN_MEMDST(kind, form, am, sfx, w) CLASSES_##kind(GEN_JCC_CLASS, kind, form, am, sfx, w)
MEMDST_PAIRS(GEN_MEMDST)

/* BT reg,reg and reg,imm followed by JB/JAE (condition class 1: CF is the
 * bit tested).  BT replaces CF alone over whatever the flags were, as its
 * own handler does (cpu_set_arith); the other conditions read flags BT
 * leaves undefined and are not fused. */
#define GEN_BT_JCC(kind, form, am, sfx, w)                                              \
    static void fj_K_BT_##form##_##w##_1_##sfx(struct cpu *c, const struct op *op)      \
    {                                                                                   \
        uint64_t v = rd(c, op->r1, w);                                                  \
        unsigned n = (unsigned)(form == F_RR ? rd(c, op->r2, w) : (uint64_t)op->imm) & ((8u << w) - 1); \
        bool cf = (v >> n) & 1;                                                         \
        if (!(op->flags & OPF_NOFLAGS))                                                 \
            cpu_set_arith(c, cf, FL_CF);                                                \
        CHAIN_BRANCH(c, op + 1, cf != (op->x1 & 1));                                    \
    }
#define BT_PAIRS(X)                                                                     \
    X(K_BT, F_RR, AM_ANY, reg, 1) X(K_BT, F_RR, AM_ANY, reg, 2) X(K_BT, F_RR, AM_ANY, reg, 3) \
    X(K_BT, F_RI, AM_ANY, reg, 1) X(K_BT, F_RI, AM_ANY, reg, 2) X(K_BT, F_RI, AM_ANY, reg, 3)
BT_PAIRS(GEN_BT_JCC)

/* Compare, store, branch: CMP [m], imm; MOV [m], r32; Jcc, as one op.
 * 32-bit code keeps loop counters on the stack, and the compiler puts a
 * store between the compare and its branch (sha256's rounds for ia32):
 * the compare's half as in a pair, then the store as its own handler does
 * it (c->cur at the store before its access: a fault there finds the
 * compare done and its flags record committed), then the branch on the
 * compare's condition, which the store leaves as it is.  One handler per
 * condition class; TRIPLE_FORMS lists the compares that have them. */
#define TRIPLE_FORMS(X) X(K_CMP, F_MI, AM_B32, b32, 2)
#define GEN_TRIPLE_CLASS(kind, form, am, sfx, w, cls)                                   \
    static void ft_##kind##_##form##_##w##_##cls##_##sfx(struct cpu *c, const struct op *op) \
    {                                                                                   \
        struct half h;                                                                  \
        first_half(c, op, kind, form, am, w, reads_cf(cls << 1), &h);                   \
        const struct op *st = op + 1;                                                   \
        st32(am_ptr_later(c, st, AM_B32), GPR32(c, st->r2));                            \
        CHAIN_BRANCH(c, op + 2, cond_class(kind, w, cls, &h) != (op->x1 & 1));          \
    }
#define GEN_TRIPLE(kind, form, am, sfx, w) ARITH_CLASSES(GEN_TRIPLE_CLASS, kind, form, am, sfx, w)
TRIPLE_FORMS(GEN_TRIPLE)

/* Flag-eliding forms: an instruction whose flags no later instruction of
 * its block reads before they are replaced, with no instruction that may
 * fault in between (the dead-flag pass's OPF_NOFLAGS), writes its result
 * and leaves the lazy record as it was (INC/DEC do not even look up CF). */
#define GEN_NOFLAGS(kind, form, am, sfx, w)                                             \
    static void nf_##kind##_##form##_##w##_##sfx(struct cpu *c, const struct op *op)    \
    {                                                                                   \
        uint64_t d, s;                                                                  \
        operands(c, op, form, am, w, &d, &s);                                           \
        wr(c, op->r1, w, result(kind, d, s));                                           \
        NEXT(c, op);                                                                    \
    }
#define NOFLAGS_REG_FORMS(Y, X)                                                         \
    Y(X, K_SUB, F_RR) Y(X, K_SUB, F_RI) Y(X, K_ADD, F_RR) Y(X, K_ADD, F_RI)             \
    Y(X, K_AND, F_RR) Y(X, K_AND, F_RI) Y(X, K_OR, F_RR) Y(X, K_OR, F_RI)               \
    Y(X, K_XOR, F_RR) Y(X, K_XOR, F_RI) Y(X, K_INC, F_R) Y(X, K_DEC, F_R)
#define NOFLAGS_MEM_FORMS(Y, X)                                                         \
    Y(X, K_SUB, F_RM) Y(X, K_ADD, F_RM) Y(X, K_AND, F_RM) Y(X, K_OR, F_RM) Y(X, K_XOR, F_RM)
#define NOFLAGS_ALONE(X) NOFLAGS_REG_FORMS(REG_FORM, X) NOFLAGS_MEM_FORMS(MEM_FORM, X)
NOFLAGS_ALONE(GEN_NOFLAGS)

/* The tables: only the handlers that exist, in a dense array, found through
 * an index of small integers by operation, form, form of the memory operand
 * (AM_ANY for the register forms) and width; 0 (entry 0, all NULL) where
 * nothing exists.  The index needs no relocation at startup (this is a PIE)
 * and the dense arrays are small. */
#define ENTRY_ID(kind, form, am, sfx, w) E_##kind##_##form##_##w##_##sfx,
#define NF_ENTRY_ID(kind, form, am, sfx, w) N_##kind##_##form##_##w##_##sfx,
enum { E_NONE, FUSED_PAIRS(ENTRY_ID) BT_PAIRS(ENTRY_ID) MEMDST_PAIRS(ENTRY_ID) NFUSED };
enum { N_NONE, NOFLAGS_ALONE(NF_ENTRY_ID) NNOFLAGS };
_Static_assert(NFUSED <= 256 && NNOFLAGS <= 256, "the indexes hold uint8_t");

#define INDEX(kind, form, am, sfx, w) [kind][form][am][w] = E_##kind##_##form##_##w##_##sfx,
#define NF_INDEX(kind, form, am, sfx, w) [kind][form][am][w] = N_##kind##_##form##_##w##_##sfx,
static const uint8_t fused_index[NKINDS][NFORMS][AM_COUNT][4] = { FUSED_PAIRS(INDEX) BT_PAIRS(INDEX)
                                                                      MEMDST_PAIRS(INDEX) };
static const uint8_t noflags_index[NKINDS][NFORMS][AM_COUNT][4] = { NOFLAGS_ALONE(NF_INDEX) };

/* A condition class's slot (parity, class 5, is not fused). */
#define SLOT(cls) ((cls) < 5 ? (cls) : (cls) - 1)
enum { NSLOTS = 7 };
static const struct fused_handlers {
    cpu_handler jcc[NSLOTS], setcc[NSLOTS]; /* by SLOT(class_handler(kind, cc >> 1)) */
    cpu_handler cmov;
} fused[NFUSED] = {
#define JCC_SLOT(kind, form, am, sfx, w, cls) [SLOT(cls)] = fj_##kind##_##form##_##w##_##cls##_##sfx,
#define SETCC_SLOT(kind, form, am, sfx, w, cls) [SLOT(cls)] = fs_##kind##_##form##_##w##_##cls##_##sfx,
#define ENTRY(kind, form, am, sfx, w)                                                   \
    [E_##kind##_##form##_##w##_##sfx] = {                                               \
        .jcc = { CLASSES_##kind(JCC_SLOT, kind, form, am, sfx, w) },                    \
        .setcc = { CLASSES_##kind(SETCC_SLOT, kind, form, am, sfx, w) },                \
        .cmov = fc_##kind##_##form##_##w##_##sfx },
#define BT_ENTRY(kind, form, am, sfx, w)                                                \
    [E_##kind##_##form##_##w##_##sfx] = { .jcc = { [SLOT(1)] = fj_##kind##_##form##_##w##_1_##sfx } },
#define JCC_ENTRY(kind, form, am, sfx, w)                                               \
    [E_##kind##_##form##_##w##_##sfx] = { .jcc = { CLASSES_##kind(JCC_SLOT, kind, form, am, sfx, w) } },
    FUSED_PAIRS(ENTRY) BT_PAIRS(BT_ENTRY) MEMDST_PAIRS(JCC_ENTRY)
};
#define NF_ENTRY(kind, form, am, sfx, w) [N_##kind##_##form##_##w##_##sfx] = nf_##kind##_##form##_##w##_##sfx,
static const cpu_handler noflags[NNOFLAGS] = { NOFLAGS_ALONE(NF_ENTRY) };

/* The compare-store-branch handler of writer t before a Jcc on cc, NULL
 * when there is none. */
static cpu_handler triple_handler(const struct fuse_meta *t, unsigned cc)
{
#define TRIPLE_SLOT(kind, form, am, sfx, w, cls) [SLOT(cls)] = ft_##kind##_##form##_##w##_##cls##_##sfx,
#define TRIPLE_MATCH(k, f, m, sfx, wd)                                                  \
    if (t->kind == k && t->form == f && t->am == m && t->w == wd) {                     \
        static const cpu_handler h[NSLOTS] = { ARITH_CLASSES(TRIPLE_SLOT, k, f, m, sfx, wd) }; \
        return h[SLOT(cc >> 1)];                                                        \
    }
    TRIPLE_FORMS(TRIPLE_MATCH)
    return NULL;
}

/* ------------------------------------------------------------ decoding */

static bool describe_writer(const struct decoder *d, struct fuse_meta *f)
{
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_CMP: f->kind = K_CMP; break;
    case ZYDIS_MNEMONIC_TEST: f->kind = K_TEST; break;
    case ZYDIS_MNEMONIC_SUB: f->kind = K_SUB; break;
    case ZYDIS_MNEMONIC_ADD: f->kind = K_ADD; break;
    case ZYDIS_MNEMONIC_AND: f->kind = K_AND; break;
    case ZYDIS_MNEMONIC_OR: f->kind = K_OR; break;
    case ZYDIS_MNEMONIC_XOR: f->kind = K_XOR; break;
    case ZYDIS_MNEMONIC_BT: f->kind = K_BT; break;
    case ZYDIS_MNEMONIC_INC: f->kind = K_INC; break;
    case ZYDIS_MNEMONIC_DEC: f->kind = K_DEC; break;
    default: return false;
    }
    if (d->op->flags & OPF_LOCK)
        return false;
    if (f->kind == K_BT && !is_reg(d, 0))
        return false; /* BT's memory forms address by the whole bit offset */
    /* The operands, decoded again into the fused op's own fields. */
    struct decoder md = *d;
    struct op *op = md.op = &f->op;
    *op = (struct op){ .base = SLOT_ZERO, .index = SLOT_ZERO };
    f->am = AM_ANY;
    unsigned bytes = d->ops[0].size / 8;
    f->w = (uint8_t)size_index(bytes);
    if (bytes != 1u << f->w)
        return false;
    if (f->kind == K_INC || f->kind == K_DEC) {
        f->form = F_R;
        return dec_reg_op(d, 0, &op->r1);
    }
    if (is_reg(d, 0)) {
        if (!dec_reg_op(d, 0, &op->r1))
            return false;
        if (is_reg(d, 1)) {
            f->form = F_RR;
            return dec_reg_op(d, 1, &op->r2);
        }
        if (is_imm(d, 1)) {
            f->form = F_RI;
            op->imm = dec_imm(d, 1);
            return true;
        }
        f->form = F_RM;
        if (d->ops[1].mem.type != ZYDIS_MEMOP_TYPE_MEM || !dec_mem_op(&md, 1))
            return false;
        f->am = (uint8_t)dec_addr_mode(&md);
        return true;
    }
    if (d->ops[0].mem.type != ZYDIS_MEMOP_TYPE_MEM || !dec_mem_op(&md, 0))
        return false;
    f->am = (uint8_t)dec_addr_mode(&md);
    if (is_reg(d, 1)) {
        f->form = F_MR;
        return dec_reg_op(d, 1, &op->r2);
    }
    f->form = F_MI;
    op->imm = dec_imm(d, 1);
    return true;
}

int dec_condition(ZydisMnemonic m);

static bool describe_reader(const struct decoder *d, struct fuse_meta *f)
{
    ZydisInstructionCategory cat = d->in->meta.category;
    if (cat != ZYDIS_CATEGORY_COND_BR && cat != ZYDIS_CATEGORY_SETCC && cat != ZYDIS_CATEGORY_CMOV)
        return false;
    int cc = dec_condition(d->in->mnemonic);
    if (cc < 0 || cc >> 1 == 5)
        return false; /* parity: not in the CF/ZF/SF/OF index */
    f->cc = (uint8_t)cc;
    switch (cat) {
    case ZYDIS_CATEGORY_COND_BR:
        f->role = FUSE_JCC;
        return is_imm(d, 0) && d->in->operand_width != 16;
    case ZYDIS_CATEGORY_SETCC:
        f->role = FUSE_SETCC;
        return is_reg(d, 0) && dec_reg_op(d, 0, &f->reg);
    case ZYDIS_CATEGORY_CMOV:
        f->role = FUSE_CMOV;
        f->size = (uint8_t)(d->ops[0].size / 8);
        return is_reg(d, 0) && is_reg(d, 1) && dec_reg_op(d, 0, &f->reg) &&
               dec_reg_op(d, 1, &f->reg2);
    default:
        return false;
    }
}

void fuse_describe(const struct decoder *d, struct fuse_meta *f)
{
    f->role = FUSE_NONE;
    if (describe_writer(d, f) &&
        (fused_index[f->kind][f->form][f->am][f->w] || noflags_index[f->kind][f->form][f->am][f->w]))
        f->role = FUSE_WRITER;
    else if (!describe_reader(d, f))
        f->role = FUSE_NONE;
}

/* Whether the flags in written are dead after the reader ops[j] (a Jcc,
 * SETcc or CMOVcc, which writes none): nothing after it reads them, and
 * it is no side exit, whose target may (cpu/chain.h). */
static bool dead_after(const struct op_meta *meta, const uint32_t *live_after, unsigned j,
                       uint32_t written)
{
    return !meta[j].side_exit && !(live_after[j] & written);
}

unsigned fuse_block(struct op *ops, const struct op_meta *meta, unsigned n)
{
    /* The flags live after each instruction (as in the dead-flag pass:
     * everything at the end of the block and before a possible fault). */
    uint32_t live_after[BLOCK_MAX_OPS];
    uint32_t live = FL_ARITH;
    for (unsigned i = n; i-- > 0;) {
        live_after[i] = live;
        live = meta_live_before(&meta[i], live);
    }
    unsigned pairs = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct fuse_meta *w = &meta[i].fuse;
        if (w->role != FUSE_WRITER)
            continue;
        struct op f = w->op;
        f.len = ops[i].len;
        const struct fuse_meta *r = i + 1 < n ? &meta[i + 1].fuse : NULL;
        const struct fused_handlers *h = &fused[fused_index[w->kind][w->form][w->am][w->w]];
        cpu_handler pair = NULL;
        if (r && (r->role == FUSE_JCC || r->role == FUSE_SETCC)) {
            unsigned slot = SLOT(class_handler(w->kind, r->cc >> 1));
            pair = r->role == FUSE_JCC ? h->jcc[slot] : h->setcc[slot];
        } else if (r && r->role == FUSE_CMOV)
            pair = h->cmov;
        if (!pair && i + 2 < n && meta[i + 2].fuse.role == FUSE_JCC &&
            pair_is_store32(&meta[i + 1].pair, AM_B32) &&
            (pair = triple_handler(w, meta[i + 2].fuse.cc)) != NULL) {
            /* Compare, store, branch: the record is dead when nothing
             * reads the flags after the Jcc and the store cannot expose
             * them in a fault. */
            f.fn = pair;
            f.x1 = meta[i + 2].fuse.cc;
            if (dead_after(meta, live_after, i + 2, meta[i].flags_written) && !meta[i + 1].may_fault)
                f.flags |= OPF_NOFLAGS;
            ops[i] = f;
            pairs++;
            i += 2;
            continue;
        }
        if (!pair) {
            /* Alone: its flags may be dead. */
            cpu_handler nf = noflags[noflags_index[w->kind][w->form][w->am][w->w]];
            if ((ops[i].flags & OPF_NOFLAGS) && nf) {
                f.fn = nf;
                f.flags |= OPF_NOFLAGS;
                ops[i] = f;
            }
            continue;
        }
        f.fn = pair;
        f.x1 = r->cc;
        f.x2 = r->reg;
        f.x3 = r->reg2;
        f.size = r->size;
        /* The second instruction writes no flags: the record is dead when
         * nothing reads the flags after it. */
        if (dead_after(meta, live_after, i + 1, meta[i].flags_written))
            f.flags |= OPF_NOFLAGS;
        ops[i] = f;
        pairs++;
        i++;
    }
    return pairs;
}
