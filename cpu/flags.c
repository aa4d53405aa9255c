/* Lazy flags: computing CF/PF/AF/ZF/SF/OF from the last operation.
 * The formulas are the SDM's definitions (vol. 1, 3.4.3.1 and the
 * instruction pages of ADD, ADC, SUB, SBB, INC, DEC, NEG, AND/OR/XOR/TEST). */
#include "cpu/flags.h"

static inline uint64_t width_mask(unsigned w) { return w == 3 ? ~0ull : (1ull << (8u << w)) - 1; }
static inline uint64_t sign_bit(unsigned w) { return 1ull << ((8u << w) - 1); }

static uint64_t compute(const struct cpu *c)
{
    unsigned w = c->lf_op & 3, kind = c->lf_op & LF_KIND;
    uint64_t m = width_mask(w), sb = sign_bit(w);
    uint64_t dst = c->lf_dst & m, src = c->lf_src & m, res = c->lf_res & m;
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

bool cpu_cf(struct cpu *c)
{
    unsigned kind = c->lf_op & ~3u;
    uint64_t m = width_mask(c->lf_op & 3);
    if (kind == LF_SUB)
        return (c->lf_dst & m) < (c->lf_src & m);
    if (kind == LF_ADD)
        return (c->lf_res & m) < (c->lf_dst & m);
    if (kind == LF_INC || kind == LF_DEC)
        return c->lf_aux != 0;
    if (kind == LF_LOGIC)
        return false;
    return (cpu_flags(c) & FL_CF) != 0;
}

/* Conditions after CMP/SUB and TEST/AND, the common cases, come straight
 * from the operands; the rest go through the materialised flags. */
bool cpu_cond_slow(struct cpu *c, unsigned cc)
{
    unsigned w = c->lf_op & 3, kind = c->lf_op & ~3u;
    bool r;
    if (kind == LF_SUB) {
        uint64_t m = width_mask(w);
        uint64_t d = c->lf_dst & m, s = c->lf_src & m;
        unsigned sh = 64 - (8u << w);
        int64_t sd = (int64_t)(d << sh) >> sh, ss = (int64_t)(s << sh) >> sh;
        switch (cc >> 1) {
        case 1: r = d < s; goto done;           /* B / AE */
        case 2: r = d == s; goto done;          /* E / NE */
        case 3: r = d <= s; goto done;          /* BE / A */
        case 6: r = sd < ss; goto done;         /* L / GE */
        case 7: r = sd <= ss; goto done;        /* LE / G */
        default: break;
        }
    } else if (kind == LF_LOGIC) {
        uint64_t m = width_mask(w), res = c->lf_res & m;
        unsigned sh = 64 - (8u << w);
        int64_t sres = (int64_t)(res << sh) >> sh;
        switch (cc >> 1) {
        case 0: r = false; goto done;           /* O / NO */
        case 1: r = false; goto done;           /* B / AE */
        case 2: r = res == 0; goto done;        /* E / NE */
        case 3: r = res == 0; goto done;        /* BE / A */
        case 4: r = sres < 0; goto done;        /* S / NS */
        case 6: r = sres < 0; goto done;        /* L / GE */
        case 7: r = sres <= 0; goto done;       /* LE / G */
        default: break;
        }
    }
    uint64_t f = cpu_flags(c);
    switch (cc >> 1) {
    case 0: r = f & FL_OF; break;
    case 1: r = f & FL_CF; break;
    case 2: r = f & FL_ZF; break;
    case 3: r = f & (FL_CF | FL_ZF); break;
    case 4: r = f & FL_SF; break;
    case 5: r = f & FL_PF; break;
    case 6: r = !(f & FL_SF) != !(f & FL_OF); break;
    default: r = (f & FL_ZF) || (!(f & FL_SF) != !(f & FL_OF)); break;
    }
done:
    return (cc & 1) ? !r : r;
}
