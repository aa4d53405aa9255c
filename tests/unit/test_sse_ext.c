/* The sse_ext family (SSE3, SSSE3, SSE4.1, legacy encodings) against the
 * host CPU: every instruction in every form -- XMM and MMX registers
 * (xmm8-15 included, the destination also as the source), aligned and
 * unaligned memory sources of every width, memory destinations, every
 * imm8 that matters -- on edge lanes; the floating-point ones on zeros,
 * denormals, infinities, quiet and signaling NaNs, overflowing and
 * underflowing values, under all four rounding modes with DAZ and FTZ
 * off and on, with and without sticky MXCSR flags already set.  What the
 * host cannot be compared on (faults) is checked on the emulator alone. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

#define ALL_FLAGS 0x8d5u
#define MEM_OFF 0x100u        /* the memory operand: 16-byte aligned in the data area */
#define MEM_ADDR (HARNESS_DATA + MEM_OFF)
#define MEM_OFF_UNALIGNED 0x123u /* [rsi+0x23] */

/* ------------------------------------------------------------ values */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static unsigned pick(unsigned n) { return (unsigned)(rnd() % n); }

static const uint64_t int_edge[] = {
    0, 1, 2, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x100, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff,
    0x10000, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0x100000000ull,
    0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffffeull, 0xffffffffffffffffull,
};

/* 16 bytes of integers: lanes of a random width, each random or an edge
 * value truncated to the lane (which gives every width's edges). */
static void gen_int(uint8_t *p)
{
    unsigned w = 1u << pick(4);
    for (unsigned i = 0; i < 16; i += w) {
        uint64_t v = pick(2) ? rnd() : int_edge[pick(sizeof(int_edge) / sizeof(int_edge[0]))];
        if (pick(4) == 0)
            v = 0 - v;
        memcpy(p + i, &v, w);
    }
}

static const uint32_t f32_edge[] = {
    0x00000000, 0x00000001, 0x007fffff, 0x00800000, 0x00400000, 0x3f800000, 0x3fc00000,
    0x40200000, 0x3f000000, 0x3effffff, 0x3f800001, 0x40400000, 0x4affffff, 0x4b000000,
    0x4b000001, 0x4b7fffff, 0x4b800000, 0x7f7fffff, 0x7f800000, 0x7fc00000, 0x7fc12345,
    0x7f800001, 0x7fa00000, 0x7fbfffff, 0x1e3ce508 /* 1e-20 */, 0x60ad78ec /* 1e20 */,
    0x0da24260 /* 1e-30 */, 0x7149f2ca /* 1e30 */, 0x3eaaaaab, 0x4effffff,
};
static const uint64_t f64_edge[] = {
    0, 1, 0x000fffffffffffffull, 0x0010000000000000ull, 0x3ff0000000000000ull,
    0x3ff8000000000000ull, 0x4004000000000000ull, 0x3fe0000000000000ull, 0x3fdfffffffffffffull,
    0x3ff0000000000001ull, 0x432fffffffffffffull, 0x4330000000000000ull, 0x4330000000000001ull,
    0x433fffffffffffffull, 0x4340000000000000ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
    0x7ff8000000000000ull, 0x7ff8000000012345ull, 0x7ff0000000000001ull, 0x7ff4000000000000ull,
    0x1e3ce508 /* tiny */, 0x3ddb7cdfd9d7bdbbull /* 1e-10 */, 0x2b2bff2ee48e0530ull /* 1e-100 */,
    0x54b249ad2594c37dull /* 1e100 */, 0x1a56e1fc2f8f359ull /* 1e-300 */,
    0x7e37e43c8800759cull /* 1e300 */, 0x3fd5555555555555ull, 0x41dfffffffc00000ull,
};

/* Numbers around integers (halves, quarters) for rounding; the rest
 * random bits of any exponent or of a moderate one. */
static uint32_t gen_f32_lane(void)
{
    uint32_t sign = pick(2) ? 0x80000000u : 0;
    switch (pick(4)) {
    case 0:
        return sign | f32_edge[pick(sizeof(f32_edge) / sizeof(f32_edge[0]))];
    case 1: {
        float f = (float)(pick(64) + pick(4) * 0.25) * ldexpf(1.0f, (int)pick(24) - 4);
        uint32_t b;
        memcpy(&b, &f, 4);
        return sign | b;
    }
    case 2:
        return (uint32_t)rnd();
    default:
        return sign | (uint32_t)(100 + pick(56)) << 23 | ((uint32_t)rnd() & 0x7fffff);
    }
}
static uint64_t gen_f64_lane(void)
{
    uint64_t sign = pick(2) ? 1ull << 63 : 0;
    switch (pick(4)) {
    case 0:
        return sign | f64_edge[pick(sizeof(f64_edge) / sizeof(f64_edge[0]))];
    case 1: {
        double f = (pick(64) + pick(4) * 0.25) * ldexp(1.0, (int)pick(53) - 4);
        uint64_t b;
        memcpy(&b, &f, 8);
        return sign | b;
    }
    case 2:
        return rnd();
    default:
        return sign | (uint64_t)(900 + pick(248)) << 52 | (rnd() & 0xfffffffffffffull);
    }
}

enum val { V_INT, V_F32, V_F64 };
static void gen(uint8_t *p, enum val v)
{
    if (v == V_INT) {
        gen_int(p);
    } else if (v == V_F32) {
        for (int i = 0; i < 4; i++) {
            uint32_t b = gen_f32_lane();
            memcpy(p + 4 * i, &b, 4);
        }
    } else {
        for (int i = 0; i < 2; i++) {
            uint64_t b = gen_f64_lane();
            memcpy(p + 8 * i, &b, 8);
        }
    }
}

/* A state with every XMM register, the memory operand and the x87/MMX
 * registers filled; TOP and the tags random (MMX instructions reset them). */
static void fill(struct hstate *s, enum val v)
{
    harness_init(s);
    for (int i = 0; i < 16; i++)
        gen(hs_xmm(s, i), v);
    gen(s->data + MEM_OFF, v);
    gen(s->data + MEM_OFF + 16, v);
    gen(s->data + MEM_OFF_UNALIGNED, v);
    for (int i = 0; i < 8; i++) {
        uint64_t m = rnd();
        uint16_t e = (uint16_t)rnd();
        memcpy(hs_st(s, i), &m, 8);
        memcpy((uint8_t *)hs_st(s, i) + 8, &e, 2);
    }
    uint16_t fsw = (uint16_t)(pick(8) << 11);
    memcpy(s->fx + 2, &fsw, 2);
    s->fx[4] = (uint8_t)rnd();
    for (int i = 0; i < 16; i++)
        if (i != 4)
            s->r[i] = rnd();
    s->r[6] = MEM_ADDR;
    s->rflags = 0x202 | (rnd() & ALL_FLAGS);
}

/* ------------------------------------------------------------ encoding */
enum { RM_MEM = -1, RM_MEM_SIB = -2, RM_MEM_UNALIGNED = -3 };

/* [prefix] [REX] 0F [38|3A] opcode ModRM [SIB disp8] [imm8].  Memory
 * operands: [rsi], [rsi+rcx*2+16] (rcx set so it is the same address),
 * [rsi+0x23] (unaligned). */
static unsigned enc(uint8_t *p, uint8_t pfx, uint8_t map, uint8_t opc, bool rexw, int reg, int rm,
                    int imm, struct hstate *s)
{
    unsigned n = 0;
    if (pfx)
        p[n++] = pfx;
    uint8_t rex = (uint8_t)(0x40 | (rexw ? 8 : 0) | (reg >= 8 ? 4 : 0) | (rm >= 8 ? 1 : 0));
    if (rex != 0x40)
        p[n++] = rex;
    p[n++] = 0x0f;
    if (map)
        p[n++] = map;
    p[n++] = opc;
    uint8_t r = (uint8_t)((reg & 7) << 3);
    if (rm == RM_MEM) {
        p[n++] = r | 6;
    } else if (rm == RM_MEM_SIB) {
        p[n++] = 0x40 | r | 4;
        p[n++] = 1 << 6 | 1 << 3 | 6;
        p[n++] = 16;
        s->r[1] = 0x28;
        s->r[6] = MEM_ADDR - 16 - 2 * 0x28;
    } else if (rm == RM_MEM_UNALIGNED) {
        p[n++] = 0x40 | r | 6;
        p[n++] = (uint8_t)(MEM_OFF_UNALIGNED - MEM_OFF);
    } else {
        p[n++] = (uint8_t)(0xc0 | r | (rm & 7));
    }
    if (imm >= 0)
        p[n++] = (uint8_t)imm;
    return n;
}

/* ------------------------------------------------------------ the instructions */
enum src { S_A128, S_U128, S_M64, S_M32, S_M16, S_MEM_A, S_MEM_U };
enum imm { I_NONE, I_ALL, I_PALIGNR, I_ROUND };

struct desc {
    const char *name;
    uint8_t pfx, map, opc;
    enum imm imm;
    enum src src;
    enum val val;
    bool mmx;        /* also an MMX form (without the 66 prefix) */
};

static const struct desc int_ops[] = {
    /* SSE3 moves */
    { "movddup", 0xf2, 0, 0x12, I_NONE, S_M64, V_INT, false },
    { "movshdup", 0xf3, 0, 0x16, I_NONE, S_A128, V_INT, false },
    { "movsldup", 0xf3, 0, 0x12, I_NONE, S_A128, V_INT, false },
    { "lddqu", 0xf2, 0, 0xf0, I_NONE, S_MEM_U, V_INT, false },
    /* SSSE3 */
    { "pshufb", 0x66, 0x38, 0x00, I_NONE, S_A128, V_INT, true },
    { "phaddw", 0x66, 0x38, 0x01, I_NONE, S_A128, V_INT, true },
    { "phaddd", 0x66, 0x38, 0x02, I_NONE, S_A128, V_INT, true },
    { "phaddsw", 0x66, 0x38, 0x03, I_NONE, S_A128, V_INT, true },
    { "pmaddubsw", 0x66, 0x38, 0x04, I_NONE, S_A128, V_INT, true },
    { "phsubw", 0x66, 0x38, 0x05, I_NONE, S_A128, V_INT, true },
    { "phsubd", 0x66, 0x38, 0x06, I_NONE, S_A128, V_INT, true },
    { "phsubsw", 0x66, 0x38, 0x07, I_NONE, S_A128, V_INT, true },
    { "psignb", 0x66, 0x38, 0x08, I_NONE, S_A128, V_INT, true },
    { "psignw", 0x66, 0x38, 0x09, I_NONE, S_A128, V_INT, true },
    { "psignd", 0x66, 0x38, 0x0a, I_NONE, S_A128, V_INT, true },
    { "pmulhrsw", 0x66, 0x38, 0x0b, I_NONE, S_A128, V_INT, true },
    { "pabsb", 0x66, 0x38, 0x1c, I_NONE, S_A128, V_INT, true },
    { "pabsw", 0x66, 0x38, 0x1d, I_NONE, S_A128, V_INT, true },
    { "pabsd", 0x66, 0x38, 0x1e, I_NONE, S_A128, V_INT, true },
    { "palignr", 0x66, 0x3a, 0x0f, I_PALIGNR, S_A128, V_INT, true },
    /* SSE4.1 */
    { "pblendvb", 0x66, 0x38, 0x10, I_NONE, S_A128, V_INT, false },
    { "blendvps", 0x66, 0x38, 0x14, I_NONE, S_A128, V_F32, false },
    { "blendvpd", 0x66, 0x38, 0x15, I_NONE, S_A128, V_F64, false },
    { "ptest", 0x66, 0x38, 0x17, I_NONE, S_A128, V_INT, false },
    { "pmovsxbw", 0x66, 0x38, 0x20, I_NONE, S_M64, V_INT, false },
    { "pmovsxbd", 0x66, 0x38, 0x21, I_NONE, S_M32, V_INT, false },
    { "pmovsxbq", 0x66, 0x38, 0x22, I_NONE, S_M16, V_INT, false },
    { "pmovsxwd", 0x66, 0x38, 0x23, I_NONE, S_M64, V_INT, false },
    { "pmovsxwq", 0x66, 0x38, 0x24, I_NONE, S_M32, V_INT, false },
    { "pmovsxdq", 0x66, 0x38, 0x25, I_NONE, S_M64, V_INT, false },
    { "pmuldq", 0x66, 0x38, 0x28, I_NONE, S_A128, V_INT, false },
    { "pcmpeqq", 0x66, 0x38, 0x29, I_NONE, S_A128, V_INT, false },
    { "movntdqa", 0x66, 0x38, 0x2a, I_NONE, S_MEM_A, V_INT, false },
    { "packusdw", 0x66, 0x38, 0x2b, I_NONE, S_A128, V_INT, false },
    { "pmovzxbw", 0x66, 0x38, 0x30, I_NONE, S_M64, V_INT, false },
    { "pmovzxbd", 0x66, 0x38, 0x31, I_NONE, S_M32, V_INT, false },
    { "pmovzxbq", 0x66, 0x38, 0x32, I_NONE, S_M16, V_INT, false },
    { "pmovzxwd", 0x66, 0x38, 0x33, I_NONE, S_M64, V_INT, false },
    { "pmovzxwq", 0x66, 0x38, 0x34, I_NONE, S_M32, V_INT, false },
    { "pmovzxdq", 0x66, 0x38, 0x35, I_NONE, S_M64, V_INT, false },
    { "pminsb", 0x66, 0x38, 0x38, I_NONE, S_A128, V_INT, false },
    { "pminsd", 0x66, 0x38, 0x39, I_NONE, S_A128, V_INT, false },
    { "pminuw", 0x66, 0x38, 0x3a, I_NONE, S_A128, V_INT, false },
    { "pminud", 0x66, 0x38, 0x3b, I_NONE, S_A128, V_INT, false },
    { "pmaxsb", 0x66, 0x38, 0x3c, I_NONE, S_A128, V_INT, false },
    { "pmaxsd", 0x66, 0x38, 0x3d, I_NONE, S_A128, V_INT, false },
    { "pmaxuw", 0x66, 0x38, 0x3e, I_NONE, S_A128, V_INT, false },
    { "pmaxud", 0x66, 0x38, 0x3f, I_NONE, S_A128, V_INT, false },
    { "pmulld", 0x66, 0x38, 0x40, I_NONE, S_A128, V_INT, false },
    { "phminposuw", 0x66, 0x38, 0x41, I_NONE, S_A128, V_INT, false },
    { "blendps", 0x66, 0x3a, 0x0c, I_ALL, S_A128, V_F32, false },
    { "blendpd", 0x66, 0x3a, 0x0d, I_ALL, S_A128, V_F64, false },
    { "pblendw", 0x66, 0x3a, 0x0e, I_ALL, S_A128, V_INT, false },
    { "insertps", 0x66, 0x3a, 0x21, I_ALL, S_M32, V_F32, false },
    { "mpsadbw", 0x66, 0x3a, 0x42, I_ALL, S_A128, V_INT, false },
};

static const struct desc fp_ops[] = {
    { "addsubps", 0xf2, 0, 0xd0, I_NONE, S_A128, V_F32, false },
    { "addsubpd", 0x66, 0, 0xd0, I_NONE, S_A128, V_F64, false },
    { "haddps", 0xf2, 0, 0x7c, I_NONE, S_A128, V_F32, false },
    { "haddpd", 0x66, 0, 0x7c, I_NONE, S_A128, V_F64, false },
    { "hsubps", 0xf2, 0, 0x7d, I_NONE, S_A128, V_F32, false },
    { "hsubpd", 0x66, 0, 0x7d, I_NONE, S_A128, V_F64, false },
    { "roundps", 0x66, 0x3a, 0x08, I_ROUND, S_A128, V_F32, false },
    { "roundpd", 0x66, 0x3a, 0x09, I_ROUND, S_A128, V_F64, false },
    { "roundss", 0x66, 0x3a, 0x0a, I_ROUND, S_M32, V_F32, false },
    { "roundsd", 0x66, 0x3a, 0x0b, I_ROUND, S_M64, V_F64, false },
    { "dpps", 0x66, 0x3a, 0x40, I_ALL, S_A128, V_F32, false },
    { "dppd", 0x66, 0x3a, 0x41, I_ALL, S_A128, V_F64, false },
};

#define NINT (sizeof(int_ops) / sizeof(int_ops[0]))
#define NFP (sizeof(fp_ops) / sizeof(fp_ops[0]))

/* The imm8 of iteration i: every value once, in order, then random ones;
 * PALIGNR's counts cover 0..40 (beyond both operands) and 255; ROUND's
 * four meaningful bits go round with every MXCSR mode (mxcsr_mode()),
 * the ignored high ones set on some. */
static int imm_of(const struct desc *k, unsigned i)
{
    if (k->imm == I_NONE)
        return -1;
    if (k->imm == I_ROUND)
        return (int)(i % 16 | (pick(4) == 0 ? pick(16) << 4 : 0));
    if (k->imm == I_PALIGNR)
        return i < 41 ? (int)i : i == 41 ? 255 : (int)pick(256);
    return i < 256 ? (int)i : (int)pick(256);
}

/* The memory operand form of iteration i: unaligned for the sources that
 * allow it, on every other iteration; [rsi+rcx*2+16] on some. */
static int mem_form(const struct desc *k, unsigned i)
{
    bool may_misalign = k->src != S_A128 && k->src != S_MEM_A;
    if (may_misalign && i % 2)
        return RM_MEM_UNALIGNED;
    return i % 3 == 0 ? RM_MEM_SIB : RM_MEM;
}

static unsigned cases_run;

/* The comparisons need the instructions on the host: skip (and say so)
 * where the host lacks them. */
enum feat { F_SSE3, F_SSSE3, F_SSE41 };
static bool host_has(enum feat f, const char *what)
{
    __builtin_cpu_init();
    bool ok = f == F_SSE3    ? __builtin_cpu_supports("sse3")
            : f == F_SSSE3   ? __builtin_cpu_supports("ssse3")
                             : __builtin_cpu_supports("sse4.1");
    if (!ok)
        fprintf(stderr, "sse_ext: %s skipped: the host CPU lacks it\n", what);
    return ok;
}
static enum feat feat_of(const struct desc *k)
{
    if (k->map == 0)
        return F_SSE3;
    if ((k->map == 0x38 && (k->opc < 0x10 || (k->opc >= 0x1c && k->opc <= 0x1e))) ||
        (k->map == 0x3a && k->opc == 0x0f))
        return F_SSSE3;
    return F_SSE41;
}

/* Run desc k in its XMM register, memory, and MMX forms. */
static int run_desc(const struct desc *k, unsigned iters, unsigned mxcsr_modes)
{
    if (!host_has(feat_of(k), k->name))
        return 0;
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    bool has_reg = k->src != S_MEM_A && k->src != S_MEM_U;
    for (int form = 0; form < 3; form++) {
        if ((form == 0 && !has_reg) || (form == 2 && !k->mmx))
            continue;
        for (unsigned i = 0; i < iters; i++) {
            fill(s, k->val);
            if (mxcsr_modes) {
                /* RC, DAZ, FTZ; sticky flags already set on some */
                unsigned m = k->imm == I_ROUND ? i / 16 % 16
                           : k->imm == I_NONE  ? i % 16
                                               : pick(16);
                uint32_t mx = 0x1f80 | (m & 3) << 13 | ((m >> 2) & 1) << 6 | ((m >> 3) & 1) << 15;
                if (pick(5) == 0)
                    mx |= (uint32_t)rnd() & 0x3f;
                *hs_mxcsr(s) = mx;
            }
            uint8_t code[32];
            int imm = imm_of(k, i);
            int reg = (int)pick(16), rm = (int)pick(16);
            if (pick(8) == 0)
                rm = reg;
            unsigned len;
            if (form == 0)
                len = enc(code, k->pfx, k->map, k->opc, false, reg, rm, imm, s);
            else if (form == 1)
                len = enc(code, k->pfx, k->map, k->opc, false, reg, mem_form(k, i), imm, s);
            else
                len = enc(code, 0, k->map, k->opc, false, reg & 7, i % 2 ? rm & 7 : RM_MEM, imm,
                          s);
            char what[96];
            snprintf(what, sizeof(what), "%s%s form %d imm %d reg %d rm %d mxcsr %#x", k->name,
                     form == 2 ? " (mmx)" : "", form, imm, reg, rm, *hs_mxcsr(s));
            bad |= harness_compare(code, len, s, ALL_FLAGS, what);
            cases_run++;
        }
    }
    free(s);
    return bad;
}

START_TEST(integer_and_moves)
{
    const struct desc *k = &int_ops[_i];
    ck_assert_int_eq(run_desc(k, k->imm == I_NONE ? 150 : 300, 0), 0);
}
END_TEST

START_TEST(floating_point)
{
    const struct desc *k = &fp_ops[_i];
    ck_assert_int_eq(run_desc(k, k->imm == I_NONE ? 600 : 1024, 16), 0);
}
END_TEST

/* PEXTRB/W/D/Q, EXTRACTPS to a register (zero-extended, with and without
 * REX.W) and to memory; PINSRB/D/Q from a register and from memory; every
 * element index, with imm8 bits above the index set too. */
START_TEST(extract_insert)
{
    static const struct {
        const char *name;
        uint8_t opc;
        bool w;
        unsigned elements;
    } ops[] = {
        { "pextrb", 0x14, false, 16 }, { "pextrb.w", 0x14, true, 16 },
        { "pextrw", 0x15, false, 8 }, { "pextrw.w", 0x15, true, 8 },
        { "pextrd", 0x16, false, 4 }, { "pextrq", 0x16, true, 2 },
        { "extractps", 0x17, false, 4 }, { "extractps.w", 0x17, true, 4 },
        { "pinsrb", 0x20, false, 16 }, { "pinsrd", 0x22, false, 4 }, { "pinsrq", 0x22, true, 2 },
    };
    if (!host_has(F_SSE41, "extract_insert"))
        return;
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
        for (unsigned i = 0; i < 4 * ops[k].elements + 64; i++) {
            fill(s, V_INT);
            int imm = i < 2 * ops[k].elements ? (int)i : (int)pick(256);
            int xmm = (int)pick(16), gpr = (int)pick(16);
            if (gpr == 4 || gpr == 6 || gpr == 1)
                gpr = 0; /* keep rsp, rsi and rcx (addresses) */
            int rm = (i % 3 == 0) ? (i % 2 ? RM_MEM_UNALIGNED : RM_MEM) : gpr;
            uint8_t code[32];
            unsigned len = enc(code, 0x66, 0x3a, ops[k].opc, ops[k].w, xmm, rm, imm, s);
            char what[96];
            snprintf(what, sizeof(what), "%s imm %d xmm %d rm %d", ops[k].name, imm, xmm, rm);
            bad |= harness_compare(code, len, s, ALL_FLAGS, what);
            cases_run++;
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Narrow memory operands at the very end of the data area, where the next
 * byte is unmapped: each instruction reads (or writes) exactly its width. */
START_TEST(narrow_operands_at_the_end)
{
    static const struct {
        const char *name;
        uint8_t pfx, map, opc;
        bool w;
        unsigned width;
        int imm;
    } ops[] = {
        { "movddup", 0xf2, 0, 0x12, false, 8, -1 },
        { "pmovsxbw", 0x66, 0x38, 0x20, false, 8, -1 },
        { "pmovsxbd", 0x66, 0x38, 0x21, false, 4, -1 },
        { "pmovsxbq", 0x66, 0x38, 0x22, false, 2, -1 },
        { "pmovsxwq", 0x66, 0x38, 0x24, false, 4, -1 },
        { "pmovzxbq", 0x66, 0x38, 0x32, false, 2, -1 },
        { "pmovzxdq", 0x66, 0x38, 0x35, false, 8, -1 },
        { "insertps", 0x66, 0x3a, 0x21, false, 4, 0xe5 },
        { "roundss", 0x66, 0x3a, 0x0a, false, 4, 4 },
        { "roundsd", 0x66, 0x3a, 0x0b, false, 8, 4 },
        { "pextrb", 0x66, 0x3a, 0x14, false, 1, 7 },
        { "pextrw", 0x66, 0x3a, 0x15, false, 2, 7 },
        { "pextrd", 0x66, 0x3a, 0x16, false, 4, 3 },
        { "pextrq", 0x66, 0x3a, 0x16, true, 8, 1 },
        { "extractps", 0x66, 0x3a, 0x17, false, 4, 2 },
        { "pinsrb", 0x66, 0x3a, 0x20, false, 1, 9 },
        { "pinsrd", 0x66, 0x3a, 0x22, false, 4, 1 },
        { "pinsrq", 0x66, 0x3a, 0x22, true, 8, 1 },
        { "pshufb mm", 0, 0x38, 0x00, false, 8, -1 },
        { "palignr mm", 0, 0x3a, 0x0f, false, 8, 5 },
    };
    if (!host_has(F_SSE41, "narrow_operands_at_the_end"))
        return;
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        fill(s, V_INT);
        memset(s->data + HARNESS_DATA_SIZE - 16, 0xa5, 16);
        s->r[6] = HARNESS_DATA + HARNESS_DATA_SIZE - ops[k].width;
        uint8_t code[32];
        unsigned len = enc(code, ops[k].pfx, ops[k].map, ops[k].opc, ops[k].w, 2, RM_MEM,
                           ops[k].imm, s);
        bad |= harness_compare(code, len, s, ALL_FLAGS, ops[k].name);
        cases_run++;
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* The SDM's worked cases, pinned: DPPS with a denormal product (DE raised
 * by the add, DAZ reading it as zero), -0 products in each rounding mode,
 * masked-off SNaN lanes raising nothing; ROUND* on each boundary. */
START_TEST(pinned_fp_cases)
{
    static const uint32_t a[][4] = {
        { 0x1e3ce508, 0x1e3ce508, 0, 0 },               /* 1e-20, 1e-20 */
        { 0x80000000, 0x80000000, 0x80000000, 0x80000000 },
        { 0x7f800001, 0x3f800000, 0x7fc00000, 0xff800000 },
        { 0x7f800000, 0xff800000, 0x3f800000, 0x3f800000 }, /* inf - inf */
        { 0x7f7fffff, 0x7f7fffff, 0xff7fffff, 0xff7fffff }, /* overflow, cancelling */
        { 0x00000001, 0x80000001, 0x00800000, 0x3effffff },
    };
    static const uint32_t b[][4] = {
        { 0x1e3ce508, 0x3f800000, 0, 0 },
        { 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000 },
        { 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000 },
        { 0x3f800000, 0x3f800000, 0x7f800000, 0xff800000 },
        { 0x40000000, 0x40000000, 0x40000000, 0x40000000 },
        { 0x3f800000, 0x3f800000, 0x3f000000, 0x3f000000 },
    };
    static const uint8_t imms[] = { 0x31, 0xff, 0x1f, 0x21, 0xe1, 0xf1, 0x12, 0x00, 0x3f, 0xf0 };
    if (!host_has(F_SSE41, "pinned_fp_cases"))
        return;
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t v = 0; v < sizeof(a) / sizeof(a[0]); v++)
        for (size_t k = 0; k < sizeof(imms); k++)
            for (unsigned m = 0; m < 16; m++) {
                harness_init(s);
                *hs_mxcsr(s) = 0x1f80 | (m & 3) << 13 | ((m >> 2) & 1) << 6 | ((m >> 3) & 1) << 15;
                memcpy(hs_xmm(s, 1), a[v], 16);
                memcpy(hs_xmm(s, 2), b[v], 16);
                uint8_t code[32];
                unsigned len = enc(code, 0x66, 0x3a, 0x40, false, 1, 2, imms[k], s);
                char what[96];
                snprintf(what, sizeof(what), "dpps pinned %zu imm %#x mxcsr %#x", v, imms[k],
                         *hs_mxcsr(s));
                bad |= harness_compare(code, len, s, ALL_FLAGS, what);
                /* the same lanes through ROUNDPS with each imm8 low nibble */
                harness_init(s);
                *hs_mxcsr(s) = 0x1f80 | (m & 3) << 13 | ((m >> 2) & 1) << 6 | ((m >> 3) & 1) << 15;
                memcpy(hs_xmm(s, 2), a[v], 16);
                len = enc(code, 0x66, 0x3a, 0x08, false, 1, 2, imms[k] & 0x0f, s);
                snprintf(what, sizeof(what), "roundps pinned %zu imm %#x mxcsr %#x", v,
                         imms[k] & 0x0f, *hs_mxcsr(s));
                bad |= harness_compare(code, len, s, ALL_FLAGS, what);
                cases_run += 2;
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ faults (emulator only) */
static int emu_only(const uint8_t *code, unsigned len, struct hstate *s, struct hstate *before)
{
    memcpy(before, s, sizeof(*s));
    return harness_emu(code, len, s);
}

/* A misaligned 16-byte operand of a legacy SSE instruction is #GP
 * (SIGSEGV) with nothing changed; the MMX forms and the narrow or LDDQU
 * sources are not checked (compared with the host above). */
START_TEST(misaligned_faults)
{
    static const struct { uint8_t pfx, map, opc; int imm; } ops[] = {
        { 0xf2, 0, 0x7c, -1 },    /* haddps */
        { 0xf3, 0, 0x16, -1 },    /* movshdup */
        { 0x66, 0x38, 0x00, -1 }, /* pshufb */
        { 0x66, 0x38, 0x17, -1 }, /* ptest */
        { 0x66, 0x38, 0x2a, -1 }, /* movntdqa */
        { 0x66, 0x38, 0x14, -1 }, /* blendvps */
        { 0x66, 0x3a, 0x08, 0 },  /* roundps */
        { 0x66, 0x3a, 0x40, 0xff }, /* dpps */
        { 0x66, 0x3a, 0x0f, 3 },  /* palignr */
    };
    struct hstate *s = malloc(sizeof(*s)), *before = malloc(sizeof(*s));
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        fill(s, V_F32);
        uint8_t code[32];
        unsigned len = enc(code, ops[k].pfx, ops[k].map, ops[k].opc, false, 3, RM_MEM_UNALIGNED,
                           ops[k].imm, s);
        int sig = emu_only(code, len, s, before);
        ck_assert_int_eq(sig, SIGSEGV);
        ck_assert(memcmp(hs_xmm(s, 3), hs_xmm(before, 3), 16) == 0);
        ck_assert(*hs_mxcsr(s) == *hs_mxcsr(before));
    }
    free(s);
    free(before);
}
END_TEST

/* An unmasked exception (#XM): SIGFPE with the destination untouched. */
START_TEST(unmasked_exceptions)
{
    struct hstate *s = malloc(sizeof(*s)), *before = malloc(sizeof(*s));
    static const uint32_t half[4] = { 0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000 };
    static const uint32_t snan[4] = { 0x7f800001, 0, 0, 0 };
    uint8_t code[32];
    /* ROUNDPS 0.5 with PE unmasked: faults, unless imm8[3] suppresses it */
    harness_init(s);
    *hs_mxcsr(s) = 0x1f80 & ~0x1000u;
    memcpy(hs_xmm(s, 2), half, 16);
    unsigned len = enc(code, 0x66, 0x3a, 0x08, false, 1, 2, 0, s);
    ck_assert_int_eq(emu_only(code, len, s, before), SIGFPE);
    ck_assert(memcmp(hs_xmm(s, 1), hs_xmm(before, 1), 16) == 0);
    harness_init(s);
    *hs_mxcsr(s) = 0x1f80 & ~0x1000u;
    memcpy(hs_xmm(s, 2), half, 16);
    len = enc(code, 0x66, 0x3a, 0x08, false, 1, 2, 8, s);
    ck_assert_int_eq(emu_only(code, len, s, before), 0);
    ck_assert_uint_eq(*hs_mxcsr(s) & 0x3f, 0);
    /* HADDPS with an SNaN and IE unmasked */
    harness_init(s);
    *hs_mxcsr(s) = 0x1f80 & ~0x80u;
    memcpy(hs_xmm(s, 1), snan, 16);
    len = enc(code, 0xf2, 0, 0x7c, false, 1, 2, -1, s);
    ck_assert_int_eq(emu_only(code, len, s, before), SIGFPE);
    ck_assert(memcmp(hs_xmm(s, 1), hs_xmm(before, 1), 16) == 0);
    free(s);
    free(before);
}
END_TEST

START_TEST(report)
{
    fprintf(stderr, "sse_ext: %u cases compared with the host CPU\n", cases_run);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sse_ext");
    TCase *t = tcase_create("sse_ext");
    tcase_add_loop_test(t, integer_and_moves, 0, NINT);
    tcase_add_loop_test(t, floating_point, 0, NFP);
    tcase_add_test(t, extract_insert);
    tcase_add_test(t, narrow_operands_at_the_end);
    tcase_add_test(t, pinned_fp_cases);
    tcase_add_test(t, misaligned_faults);
    tcase_add_test(t, unmasked_exceptions);
    tcase_add_test(t, report);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
