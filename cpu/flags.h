/* Lazy flags: the flags strategy of the interpreter.
 *
 * ALU handlers do not compute CF/PF/AF/ZF/SF/OF.  They record what the
 * last flag-setting operation was (lf_op: kind and width), its operands
 * (lf_dst, lf_src), its result (lf_res) and, for INC/DEC/ADC/SBB, one more
 * bit (lf_aux: the carry that went in, or the CF that INC/DEC preserve).
 * A kind's flags may need less: LF_LOGIC's come from lf_res alone,
 * LF_SUB's from lf_dst and lf_src alone (its lf_res is not kept).
 * Flags are computed only when something reads them: Jcc/SETcc/CMOVcc
 * evaluate their condition straight from the operands (cpu_cond()), and
 * everything else (PUSHF, LAHF, ADC's carry, signal frames) calls
 * cpu_flags(), which materialises all six into c->rflags and sets lf_op to
 * LF_NONE.  Instructions with unusual flag rules (shifts, rotates, BT,
 * MUL, x87 compares...) compute their flags eagerly with cpu_set_arith().
 *
 * Widths are encoded in the low two bits of lf_op: 0 = 8, 1 = 16, 2 = 32,
 * 3 = 64 bits, so kinds are LF_ADD + w and so on.  An instruction that
 * replaces only some flags (ROL/ROR and MUL/IMUL: CF and OF) over a lazy
 * operation records them in lf_op's upper bits (cpu_set_arith): which
 * flags (bits 8-19: RFLAGS bits 0-11) and their values (bits 20-31).  With
 * those bits set, lf_op matches no plain kind, so the fast paths that
 * compare lf_op fall back to cpu_flags(), which applies them. */
#ifndef CPU_FLAGS_H
#define CPU_FLAGS_H

#include "cpu/cpu.h"

enum {
    LF_NONE = 0,
    LF_ADD = 4, LF_ADC = 8, LF_SUB = 12, LF_SBB = 16, LF_LOGIC = 20,
    LF_INC = 24, LF_DEC = 28, LF_NEG = 32,
};

#define LF_KIND 0xfcu
#define LF_OVR_MASK_SHIFT 8
#define LF_OVR_VALUE_SHIFT 20
static inline uint32_t lf_override_mask(uint32_t lf_op) { return (lf_op >> LF_OVR_MASK_SHIFT) & 0xfffu; }
static inline uint32_t lf_override_value(uint32_t lf_op) { return lf_op >> LF_OVR_VALUE_SHIFT; }

/* log2 of an operand size in bytes: 1->0, 2->1, 4->2, 8->3. */
static inline unsigned size_log2(unsigned size) { return (unsigned)__builtin_ctz(size); }

static inline void lf_set(struct cpu *c, uint32_t op, uint64_t dst, uint64_t src, uint64_t res)
{
    c->lf_op = op;
    c->lf_dst = dst;
    c->lf_src = src;
    c->lf_res = res;
}

/* All of RFLAGS with the arithmetic flags brought up to date. */
uint64_t cpu_flags(struct cpu *c);

/* Replace the arithmetic flags (the bits in mask) by those of value. */
void cpu_set_arith(struct cpu *c, uint64_t value, uint64_t mask);

/* cpu_set_arith() for CF and OF (ROL/ROR, RCL/RCR, MUL/IMUL), inline:
 * value holds them (and nothing else); over a lazy operation they go to
 * its override fields, and its other flags stay lazy. */
static inline void cpu_set_cf_of(struct cpu *c, uint32_t value)
{
    const uint32_t m = FL_CF | FL_OF;
    if (c->lf_op != LF_NONE)
        c->lf_op = (c->lf_op & ~(m << LF_OVR_VALUE_SHIFT)) | m << LF_OVR_MASK_SHIFT |
                   value << LF_OVR_VALUE_SHIFT;
    else
        c->rflags = (c->rflags & ~(uint64_t)m) | value;
}

/* Set RFLAGS as POPF would for a user-mode program (only the bits user
 * mode may change among those in mask). */
void cpu_set_flags(struct cpu *c, uint64_t value, uint64_t mask);

/* Width masks and sign bits by width index (0..3). */
static inline uint64_t lf_width_mask(unsigned w) { return w == 3 ? ~0ull : (1ull << (8u << w)) - 1; }
static inline uint64_t lf_sign_bit(unsigned w) { return 1ull << ((8u << w) - 1); }

/* The carry flag alone (ADC, SBB, RCL, RCR, INC/DEC keeping it, SETC...):
 * inline after the operations that set it most often, else from all the
 * flags (cpu_cf_slow). */
bool cpu_cf_slow(struct cpu *c);
static inline bool cpu_cf(struct cpu *c)
{
    uint32_t op = c->lf_op;
    unsigned kind = op & ~3u; /* override bits make it match no kind */
    uint64_t m = lf_width_mask(op & 3);
    if (kind == LF_SUB)
        return (c->lf_dst & m) < (c->lf_src & m);
    if (kind == LF_ADD)
        return (c->lf_res & m) < (c->lf_dst & m);
    if (kind == LF_INC || kind == LF_DEC)
        return c->lf_aux != 0;
    if (kind == LF_LOGIC)
        return false;
    if (kind == LF_NEG) /* CF = the operand was not 0 ("neg r; sbb r, r") */
        return (c->lf_src & m) != 0;
    if (op == LF_NONE)
        return c->rflags & FL_CF;
    if (lf_override_mask(op) & FL_CF) /* BT, ROL/ROR, MUL... over a lazy operation */
        return lf_override_value(op) & FL_CF;
    return cpu_cf_slow(c);
}

/* Conditions as a table lookup: CF, ZF, SF and OF (all that conditions
 * other than parity look at) form a 4-bit index, CI_CF | CI_ZF | CI_SF |
 * CI_OF, and cpu_cond_mask[cc] has bit i set when condition cc holds for
 * index i (parity conditions have no mask; they read PF).  Used where the
 * condition is known only at run time or the flags come as a set. */
enum { CI_CF = 1, CI_ZF = 2, CI_SF = 4, CI_OF = 8 };
extern const uint16_t cpu_cond_mask[16];
static inline bool cond_holds(unsigned cc, unsigned index) { return (cpu_cond_mask[cc] >> index) & 1; }

/* The 16 condition codes, for tables of handlers with one per condition. */
#define CPU_CONDITIONS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

/* Condition code cc (0..15, the low nibble of Jcc/SETcc/CMOVcc). */
bool cpu_cond_slow(struct cpu *c, unsigned cc);

/* The common cases inline: after a CMP/SUB of any width, every condition
 * but parity straight from the operands; after a TEST/AND/OR/XOR of any
 * width (CF = OF = 0), every condition but parity straight from the
 * result.  The operands are shifted to the top of 64 bits, where unsigned
 * and signed comparisons of any width are those of 64 bits.  Handlers that
 * know cc at compile time (Jcc, SETcc, CMOVcc: one handler per condition)
 * get the switch folded away. */
static inline __attribute__((always_inline)) bool cpu_cond(struct cpu *c, unsigned cc)
{
    uint32_t op = c->lf_op;
    unsigned kind = op & ~3u; /* override bits make it match no kind */
    unsigned sh = 64 - (8u << (op & 3));
    bool r;
    if (kind == LF_SUB) {
        uint64_t d = c->lf_dst << sh, s = c->lf_src << sh, res = d - s;
        switch (cc >> 1) {
        case 0: r = (int64_t)((d ^ s) & (d ^ res)) < 0; break; /* O */
        case 1: r = d < s; break;                               /* B */
        case 2: r = d == s; break;                              /* E */
        case 3: r = d <= s; break;                              /* BE */
        case 4: r = (int64_t)res < 0; break;                    /* S */
        case 6: r = (int64_t)d < (int64_t)s; break;             /* L */
        case 7: r = (int64_t)d <= (int64_t)s; break;            /* LE */
        default: return cpu_cond_slow(c, cc);
        }
        return (cc & 1) ? !r : r;
    }
    if (kind == LF_LOGIC) {
        int64_t v = (int64_t)(c->lf_res << sh);
        switch (cc >> 1) {
        case 0: r = false; break;       /* O: OF = 0 */
        case 1: r = false; break;       /* B: CF = 0 */
        case 2: r = v == 0; break;      /* E */
        case 3: r = v == 0; break;      /* BE: CF = 0 */
        case 4: r = v < 0; break;       /* S */
        case 6: r = v < 0; break;       /* L: SF != OF, OF = 0 */
        case 7: r = v <= 0; break;      /* LE */
        default: return cpu_cond_slow(c, cc);
        }
        return (cc & 1) ? !r : r;
    }
    return cpu_cond_slow(c, cc);
}

/* Even parity of the low byte, as PF. */
static inline uint64_t parity_flag(uint64_t res)
{
    return __builtin_parity((unsigned)(res & 0xff)) ? 0 : FL_PF;
}

#endif
