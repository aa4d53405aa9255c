/* Lazy flags: computing CF/PF/AF/ZF/SF/OF from the last operation.
 * The formulas are the SDM's definitions (vol. 1, 3.4.3.1 and the
 * instruction pages of ADD, ADC, SUB, SBB, INC, DEC, NEG, AND/OR/XOR/TEST). */
#include "cpu/flags.h"

static uint64_t compute(const struct cpu *c)
{
    unsigned w = c->lf_op & 3, kind = c->lf_op & LF_KIND;
    uint64_t m = lf_width_mask(w), sb = lf_sign_bit(w);
    uint64_t dst = c->lf_dst & m, src = c->lf_src & m;
    /* a SUB/CMP record may lack its result (cpu/alu.h lf_commit) */
    uint64_t res = (kind == LF_SUB ? dst - src : c->lf_res) & m;
    uint64_t f = parity_flag(res) | (res == 0 ? FL_ZF : 0) | ((res & sb) ? FL_SF : 0);
    switch (kind) {
    case LF_ADD:
        f |= (res < dst ? FL_CF : 0) | (((dst ^ res) & (src ^ res) & sb) ? FL_OF : 0);
        f |= (dst ^ src ^ res) & FL_AF;
        break;
    case LF_ADC:
        f |= ((c->lf_aux ? res <= dst : res < dst) ? FL_CF : 0);
        f |= (((dst ^ res) & (src ^ res) & sb) ? FL_OF : 0) | ((dst ^ src ^ res) & FL_AF);
        break;
    case LF_SUB:
        f |= (dst < src ? FL_CF : 0) | (((dst ^ src) & (dst ^ res) & sb) ? FL_OF : 0);
        f |= (dst ^ src ^ res) & FL_AF;
        break;
    case LF_SBB:
        f |= ((c->lf_aux ? dst <= src : dst < src) ? FL_CF : 0);
        f |= (((dst ^ src) & (dst ^ res) & sb) ? FL_OF : 0) | ((dst ^ src ^ res) & FL_AF);
        break;
    case LF_LOGIC:
        break; /* CF = OF = 0; AF is undefined and the hardware clears it */
    case LF_INC:
        f |= (c->lf_aux ? FL_CF : 0) | (res == sb ? FL_OF : 0) | ((dst ^ 1 ^ res) & FL_AF);
        break;
    case LF_DEC:
        f |= (c->lf_aux ? FL_CF : 0) | (res == sb - 1 ? FL_OF : 0) | ((dst ^ 1 ^ res) & FL_AF);
        break;
    case LF_NEG:
        f |= (src != 0 ? FL_CF : 0) | (src == sb ? FL_OF : 0) | ((src ^ res) & FL_AF);
        break;
    }
    uint64_t om = lf_override_mask(c->lf_op);
    return (f & ~om) | (lf_override_value(c->lf_op) & om);
}

uint64_t cpu_flags(struct cpu *c)
{
    if (c->lf_op != LF_NONE) {
        c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | compute(c);
        c->lf_op = LF_NONE;
    }
    return c->rflags | RFLAGS_FIXED;
}

void cpu_set_arith(struct cpu *c, uint64_t value, uint64_t mask)
{
    mask &= FL_ARITH;
    if (c->lf_op != LF_NONE && mask != FL_ARITH) {
        /* Some flags replaced over a lazy operation: remember them in
         * lf_op's override fields rather than computing the others now
         * (ROL/ROR and MUL/IMUL write only CF and OF, and a later
         * instruction usually replaces all six). */
        uint32_t om = lf_override_mask(c->lf_op) | (uint32_t)mask;
        uint32_t ov = (lf_override_value(c->lf_op) & ~(uint32_t)mask) | ((uint32_t)value & (uint32_t)mask);
        c->lf_op = (c->lf_op & (LF_KIND | 3u)) | om << LF_OVR_MASK_SHIFT | ov << LF_OVR_VALUE_SHIFT;
        return;
    }
    uint64_t f = cpu_flags(c);
    c->rflags = (f & ~mask) | (value & mask);
}

void cpu_set_flags(struct cpu *c, uint64_t value, uint64_t mask)
{
    /* User mode can change the arithmetic flags, TF, DF, AC and ID (POPF,
     * SDM vol. 2B); IF and IOPL stay as they are. */
    mask &= FL_ARITH | FL_TF | FL_DF | FL_OF | FL_AC | FL_ID;
    uint64_t f = cpu_flags(c);
    c->rflags = ((f & ~mask) | (value & mask)) | RFLAGS_FIXED;
}

bool cpu_cf_slow(struct cpu *c)
{
    return (cpu_flags(c) & FL_CF) != 0;
}

/* Whether condition cc (other than parity) holds for the flags in index i. */
#define CI_HOLDS(cc, i)                                                                 \
    ((((cc) >> 1) == 0   ? ((i) & CI_OF) != 0                                           \
      : ((cc) >> 1) == 1 ? ((i) & CI_CF) != 0                                           \
      : ((cc) >> 1) == 2 ? ((i) & CI_ZF) != 0                                           \
      : ((cc) >> 1) == 3 ? ((i) & (CI_CF | CI_ZF)) != 0                                 \
      : ((cc) >> 1) == 4 ? ((i) & CI_SF) != 0                                           \
      : ((cc) >> 1) == 5 ? 0                                                            \
      : ((cc) >> 1) == 6 ? !((i) & CI_SF) != !((i) & CI_OF)                             \
                         : ((i) & CI_ZF) || !((i) & CI_SF) != !((i) & CI_OF))           \
     != ((cc) & 1 && ((cc) >> 1) != 5))
#define CI_ROW(cc)                                                                      \
    (uint16_t)(CI_HOLDS(cc, 0) | CI_HOLDS(cc, 1) << 1 | CI_HOLDS(cc, 2) << 2 |          \
               CI_HOLDS(cc, 3) << 3 | CI_HOLDS(cc, 4) << 4 | CI_HOLDS(cc, 5) << 5 |     \
               CI_HOLDS(cc, 6) << 6 | CI_HOLDS(cc, 7) << 7 | CI_HOLDS(cc, 8) << 8 |     \
               CI_HOLDS(cc, 9) << 9 | CI_HOLDS(cc, 10) << 10 | CI_HOLDS(cc, 11) << 11 | \
               CI_HOLDS(cc, 12) << 12 | CI_HOLDS(cc, 13) << 13 |                        \
               CI_HOLDS(cc, 14) << 14 | CI_HOLDS(cc, 15) << 15),
const uint16_t cpu_cond_mask[16] = { CPU_CONDITIONS(CI_ROW) };

/* The conditions cpu_cond() does not answer inline (parity, and after
 * anything but CMP/SUB and TEST/AND/OR/XOR): B / AE straight from a CF
 * override (BT, ROL/ROR, MUL... over a lazy operation), E / NE / S / NS
 * straight from the result of a shift (a logic result whose CF, AF and OF
 * are overrides), else from the materialised flags (so that the next
 * reader of the same flags finds them in RFLAGS). */
bool cpu_cond_slow(struct cpu *c, unsigned cc)
{
    uint32_t om = lf_override_mask(c->lf_op);
    if ((cc >> 1) == 1 && (om & FL_CF))
        return ((lf_override_value(c->lf_op) & FL_CF) != 0) != (cc & 1);
    if ((c->lf_op & LF_KIND) == LF_LOGIC && !(om & (FL_ZF | FL_SF)) &&
        ((cc >> 1) == 2 || (cc >> 1) == 4)) {
        int64_t v = (int64_t)(c->lf_res << (64 - (8u << (c->lf_op & 3))));
        return ((cc >> 1) == 2 ? v == 0 : v < 0) != (cc & 1);
    }
    uint64_t f = cpu_flags(c);
    if ((cc >> 1) == 5)
        return ((f & FL_PF) != 0) != (cc & 1);
    unsigned i = (f & FL_CF ? CI_CF : 0) | (f & FL_ZF ? CI_ZF : 0) | (f & FL_SF ? CI_SF : 0) |
                 (f & FL_OF ? CI_OF : 0);
    return cond_holds(cc, i);
}
