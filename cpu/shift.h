/* The kernels of the shifts and rotates (SHL SHR SAR ROL ROR RCL RCR) and
 * the commit of their lazy flags, shared by their handlers (cpu/ops_shift.c,
 * which tells the flag rules) and by the fused register sequences
 * (cpu/ops_fused_alu.c). */
#ifndef CPU_SHIFT_H
#define CPU_SHIFT_H

#include "cpu/flags.h"

/* A kernel's outcome: result, new flags, and which flags they replace:
 * FL_ARITH (shifts: f has CF, AF and OF; SF, ZF and PF follow from the
 * result), FL_CF | FL_OF (rotates) or none (a zero count). */
struct shres {
    uint64_t r, f, m;
};

static inline uint64_t wmask(unsigned bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }
static inline uint64_t msb(uint64_t v, unsigned bits) { return (v >> (bits - 1)) & 1; }
static inline uint64_t sext(uint64_t v, unsigned bits)
{
    return (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
}

static inline uint64_t cf_of(uint64_t cf, uint64_t of)
{
    return (cf ? FL_CF : 0) | (of ? FL_OF : 0);
}

/* ------------------------------------------------------------ kernels
 * v is the destination zero-extended from its width; n is the masked
 * count, 1..31 (1..63 for 64-bit operands). */

/* SHL: CF is the last bit shifted out (0 once n > width, which the SDM
 * leaves undefined); OF = MSB(result) ^ CF (defined for n = 1 only). */
static inline struct shres k_shl(struct cpu *c, unsigned bits, uint64_t v, unsigned n)
{
    (void)c;
    uint64_t r = (v << n) & wmask(bits);
    uint64_t cf = n <= bits ? (v >> (bits - n)) & 1 : 0;
    return (struct shres){ r, FL_AF | cf_of(cf, msb(r, bits) ^ cf), FL_ARITH };
}

/* SHR: OF = MSB of the original operand for n = 1 (AMD clears it beyond). */
static inline struct shres k_shr(struct cpu *c, unsigned bits, uint64_t v, unsigned n)
{
    (void)c;
    uint64_t r = v >> n;
    uint64_t cf = (v >> (n - 1)) & 1;
    return (struct shres){ r, FL_AF | cf_of(cf, n == 1 && msb(v, bits)), FL_ARITH };
}

/* SAR: the sign fills in; CF is the last bit out (the sign once n >= width);
 * OF = 0 for n = 1. */
static inline struct shres k_sar(struct cpu *c, unsigned bits, uint64_t v, unsigned n)
{
    (void)c;
    int64_t s = (int64_t)sext(v, bits);
    uint64_t r = (uint64_t)(s >> n) & wmask(bits);
    uint64_t cf = (uint64_t)(s >> (n - 1)) & 1;
    return (struct shres){ r, FL_AF | cf_of(cf, 0), FL_ARITH };
}

/* ROL/ROR rotate by n mod width; CF and OF change even when that is 0 (SDM
 * pseudo-code: the flags depend on the masked count, not on tempCOUNT).
 * ROL: CF = LSB(result), OF = MSB(result) ^ CF.
 * ROR: CF = MSB(result), OF = MSB(result) ^ MSB-1(result). */
/* v (zero-extended from bits) rotated left by k < bits, written so that the
 * compiler emits one rotate instruction. */
static inline uint64_t rotl_w(unsigned bits, uint64_t v, unsigned k)
{
    switch (bits) {
    case 8: return (uint8_t)((uint8_t)v << k | (uint8_t)v >> (-k & 7));
    case 16: return (uint16_t)((uint16_t)v << k | (uint16_t)v >> (-k & 15));
    case 32: return (uint32_t)((uint32_t)v << k | (uint32_t)v >> (-k & 31));
    default: return v << k | v >> (-k & 63);
    }
}

static inline struct shres k_rol(struct cpu *c, unsigned bits, uint64_t v, unsigned n)
{
    (void)c;
    uint64_t r = rotl_w(bits, v, n & (bits - 1));
    uint64_t cf = r & 1;
    return (struct shres){ r, cf_of(cf, msb(r, bits) ^ cf), FL_CF | FL_OF };
}

static inline struct shres k_ror(struct cpu *c, unsigned bits, uint64_t v, unsigned n)
{
    (void)c;
    uint64_t r = rotl_w(bits, v, -n & (bits - 1));
    return (struct shres){ r, cf_of(msb(r, bits), msb(r, bits) ^ msb(r, bits - 1)), FL_CF | FL_OF };
}

/* RCL/RCR rotate the width+1 bits CF:dest, by n mod 9 (8-bit), n mod 17
 * (16-bit) or n.  OF: RCL MSB(result) ^ CF, RCR MSB(result) ^ MSB-1(result)
 * (both the SDM's n = 1 definitions, which AMD keeps for every n). */
typedef unsigned __int128 u128;

static inline unsigned rc_count(unsigned bits, unsigned n)
{
    return bits == 8 ? n % 9 : bits == 16 ? n % 17 : n;
}

static inline struct shres k_rcl(struct cpu *c, unsigned bits, uint64_t v, unsigned n)
{
    unsigned k = rc_count(bits, n);
    uint64_t cf = cpu_cf(c), r = v;
    if (k) {
        u128 t = ((u128)cf << bits) | v, m = ((u128)1 << (bits + 1)) - 1;
        t = ((t << k) | (t >> (bits + 1 - k))) & m;
        r = (uint64_t)t & wmask(bits);
        cf = (uint64_t)(t >> bits) & 1;
    }
    return (struct shres){ r, cf_of(cf, msb(r, bits) ^ cf), FL_CF | FL_OF };
}

static inline struct shres k_rcr(struct cpu *c, unsigned bits, uint64_t v, unsigned n)
{
    unsigned k = rc_count(bits, n);
    uint64_t cf = cpu_cf(c), r = v;
    if (k) {
        u128 t = ((u128)cf << bits) | v, m = ((u128)1 << (bits + 1)) - 1;
        t = ((t >> k) | (t << (bits + 1 - k))) & m;
        r = (uint64_t)t & wmask(bits);
        cf = (uint64_t)(t >> bits) & 1;
    }
    return (struct shres){ r, cf_of(cf, msb(r, bits) ^ msb(r, bits - 1)), FL_CF | FL_OF };
}

/* Commit the flags of a B-bit kernel (nothing for a zero count). */
static inline void sh_flags(struct cpu *c, const struct op *op, const struct shres *s, unsigned B)
{
    if (op->flags & OPF_NOFLAGS)
        return; /* nothing will read them (cpu/block.c) */
    if (s->m == FL_ARITH) {
        /* All six replaced, lazily: SF, ZF and PF come from the result as
         * after a logic operation of that width (cpu/flags.c), CF, AF and
         * OF are the record's override fields.  Only a reader of the flags
         * computes them. */
        const uint32_t m = FL_CF | FL_AF | FL_OF;
        _Static_assert(((FL_CF | FL_AF | FL_OF) & ~0xfffu) == 0, "they fit the override fields");
        c->lf_res = s->r;
        c->lf_op = (LF_LOGIC + size_log2(B / 8)) | m << LF_OVR_MASK_SHIFT |
                   ((uint32_t)s->f & m) << LF_OVR_VALUE_SHIFT;
    } else if (s->m) {
        cpu_set_cf_of(c, (uint32_t)s->f); /* ROL/ROR and RCL/RCR */
    }
}

#endif
