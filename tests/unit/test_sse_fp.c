/* The SSE/SSE2 floating-point family against the host CPU.
 *
 * Each run is a batch of "groups", one per test case: load the operands
 * from the data area, run the instruction under test once, store its
 * result, save MXCSR (the exception flags this one instruction raised) and
 * reload the run's MXCSR mode for the next group.  The harness then
 * compares the whole state and the data area -- every result and every
 * group's flags -- with the host's.  A mismatch prints the groups that
 * differ.  Every case runs under each rounding mode with DAZ/FTZ off and
 * on (or, for instructions that do not round, each DAZ/FTZ setting), and
 * once with all flags already set; operand forms (register / memory,
 * misaligned memory where allowed) and registers (xmm0-15, GPRs) rotate
 * from case to case.
 *
 * Faults (misalignment, unmasked exceptions, LDMXCSR reserved bits) cannot
 * run natively under the harness: they are checked on the emulator only. */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

/* ------------------------------------------------------------ values */
struct vlist {
    const void *v;
    unsigned n, esize;
};
#define VLIST(a, sz) { a, sizeof(a) / sizeof(a[0]), sz }

static const uint32_t f32_vals[] = {
    0x00000000, 0x80000000,                         /* +-0 */
    0x00000001, 0x807fffff, 0x00400000,             /* denormals: min, -max, mid */
    0x00800000, 0x80800000, 0x00c00000,             /* +-min normal, 1.5 * min normal */
    0x3f800000, 0xbfc00000, 0x3f800001, 0x3eaaaaab, /* 1, -1.5, 1 + ulp, 1/3 */
    0x40400000, 0xc0e00000, 0x3f000000, 0x40200000, /* 3, -7, 0.5, 2.5 */
    0xc0200000, 0xbf000000, 0x3fc00000, 0x3dcccccd, /* -2.5, -0.5, 1.5, 0.1 */
    0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, /* +-max, +-inf */
    0x7fc12345, 0xffc00001, 0x7f812345, 0xff800001, /* QNaN, -QNaN, SNaN, -SNaN with payloads */
    0x1f800000, 0x5f800000, 0x4b800000, 0x33800000, /* 2^-64, 2^64, 2^24, 2^-24 */
    0x4effffff, 0x4f000000, 0xcf000000, 0xcf000001, /* around 2^31 */
    0x5effffff, 0x5f000000, 0xdf000000, 0xdf000001, /* around 2^63 */
};
static const uint64_t f64_vals[] = {
    0x0000000000000000, 0x8000000000000000,
    0x0000000000000001, 0x800fffffffffffff, 0x0008000000000000,
    0x0010000000000000, 0x8010000000000000, 0x0018000000000000,
    0x3ff0000000000000, 0xbff8000000000000, 0x3ff0000000000001, 0x3fd5555555555555,
    0x4008000000000000, 0xc01c000000000000, 0x3fe0000000000000, 0x4004000000000000,
    0xc004000000000000, 0xbfe0000000000000, 0x3ff8000000000000, 0x3fb999999999999a,
    0x7fefffffffffffff, 0xffefffffffffffff, 0x7ff0000000000000, 0xfff0000000000000,
    0x7ff8000000012345, 0xfff8000000000001, 0x7ff0000000012345, 0xfff0000000000001,
    0x1ff0000000000000, 0x5ff0000000000000, 0x4340000000000000, 0x3ca0000000000000,
    0x41dfffffffc00000, 0x41dfffffffe00000, 0x41e0000000000000, 0xc1e0000000000000,
    0xc1e0000000100000, 0xc1e0000000200000,         /* -2^31 - 0.5, -2^31 - 1 */
    0x43dfffffffffffff, 0x43e0000000000000, 0xc3e0000000000000, 0xc3e0000000000001,
    /* for CVTSD2SS/CVTPD2PS: float denormal, float max, half an ulp above it,
     * 2^-149, 2^-150 (a tie with zero), just below the float min normal */
    0x37a16c262777579c, 0x47efffffe0000000, 0x47effffff0000000, 0x36a0000000000000,
    0x3690000000000000, 0x380fffffffffffff,
};
static const uint32_t i32_vals[] = {
    0, 1, 0xffffffff, 2, 0x7fffffff, 0x80000000, 0x7fffff80, 0x7fffffc0,
    0x00ffffff, 0x01000001, 0x01000003, 0xfefffffd, 0x075bcd15, 0xf8a432eb, 0x40000001, 0xc0000001,
};
static const uint64_t i64_vals[] = {
    0, 1, 0xffffffffffffffff, 0x7fffffffffffffff, 0x8000000000000000, 0x0020000000000001,
    0xffdfffffffffffff, 0x7ffffffffffffc00, 0x7ffffffffffffe00, 0x0000000001000001,
    0x0000000080000000, 0xffffffff7fffffff, 0x00000000ffffffff, 0x123456789abcdef1,
    0xfedcba9876543211, 0x4000000000000001,
};
typedef uint32_t F32_ELEM;
typedef uint64_t F64_ELEM;
static const struct vlist F32 = VLIST(f32_vals, 4), F64 = VLIST(f64_vals, 8),
                          I32 = VLIST(i32_vals, 4), I64 = VLIST(i64_vals, 8);

static uint64_t vget(const struct vlist *l, unsigned i)
{
    i %= l->n;
    return l->esize == 4 ? ((const uint32_t *)l->v)[i] : ((const uint64_t *)l->v)[i];
}

static void vput(uint8_t *p, unsigned esize, unsigned lane, uint64_t v)
{
    memcpy(p + lane * esize, &v, esize);
}

/* ------------------------------------------------------------ MXCSR modes */
#define MX_DEFAULT 0x1f80u
#define MX_DAZ 0x40u
#define MX_FTZ 0x8000u
#define MX_ALLFLAGS 0x3fu

static const uint32_t modes_all[] = {
    0x1f80, 0x1fc0, 0x9f80, 0x9fc0, /* round to nearest; DAZ, FTZ, both */
    0x3f80, 0x3fc0, 0xbf80, 0xbfc0, /* down */
    0x5f80, 0x5fc0, 0xdf80, 0xdfc0, /* up */
    0x7f80, 0x7fc0, 0xff80, 0xffc0, /* toward zero */
    0x1fbf,                         /* every flag already set (sticky) */
};
static const uint32_t modes_norc[] = { 0x1f80, 0x1fc0, 0x9f80, 0x9fc0, 0x1fbf };
/* No FP computation: nothing may change, not even with every exception
 * unmasked (MXCSR 0) and SNaN operands. */
static const uint32_t modes_data[] = { 0x1f80, 0xffbf, 0x0000 };

/* ------------------------------------------------------------ encoding */
struct code {
    uint8_t b[4096];
    unsigned n;
};

#define MEM (-1)
#define NOIMM (-1)

/* [pfx] [REX] opcode ModRM [disp32] [imm8]; reg and rm are register
 * numbers 0-15, rm MEM means [rsi + disp32]. */
static void emit(struct code *k, uint8_t pfx, bool w, const uint8_t *opc, unsigned nopc,
                 unsigned reg, int rm, uint32_t disp, int imm)
{
    if (pfx)
        k->b[k->n++] = pfx;
    uint8_t rex = (uint8_t)(0x40 | (w ? 8 : 0) | (reg & 8 ? 4 : 0) | (rm >= 0 && (rm & 8) ? 1 : 0));
    if (rex != 0x40)
        k->b[k->n++] = rex;
    memcpy(k->b + k->n, opc, nopc);
    k->n += nopc;
    if (rm >= 0) {
        k->b[k->n++] = (uint8_t)(0xc0 | (reg & 7) << 3 | (rm & 7));
    } else {
        k->b[k->n++] = (uint8_t)(0x80 | (reg & 7) << 3 | 6);
        memcpy(k->b + k->n, &disp, 4);
        k->n += 4;
    }
    if (imm >= 0)
        k->b[k->n++] = (uint8_t)imm;
}

static void emit0f(struct code *k, uint8_t pfx, bool w, uint8_t opc, unsigned reg, int rm,
                   uint32_t disp, int imm)
{
    const uint8_t o[2] = { 0x0f, opc };
    emit(k, pfx, w, o, 2, reg, rm, disp, imm);
}

static void movaps_load(struct code *k, unsigned x, uint32_t disp)
{
    emit0f(k, 0, false, 0x28, x, MEM, disp, NOIMM);
}
static void movaps_store(struct code *k, unsigned x, uint32_t disp)
{
    emit0f(k, 0, false, 0x29, x, MEM, disp, NOIMM);
}
static void stmxcsr(struct code *k, uint32_t disp) { emit0f(k, 0, false, 0xae, 3, MEM, disp, NOIMM); }
static void ldmxcsr(struct code *k, uint32_t disp) { emit0f(k, 0, false, 0xae, 2, MEM, disp, NOIMM); }
static void mov_load(struct code *k, unsigned r, uint32_t disp)
{
    const uint8_t o = 0x8b;
    emit(k, 0, true, &o, 1, r, MEM, disp, NOIMM);
}
static void mov_store(struct code *k, unsigned r, uint32_t disp)
{
    const uint8_t o = 0x89;
    emit(k, 0, true, &o, 1, r, MEM, disp, NOIMM);
}
static void byte(struct code *k, uint8_t b) { k->b[k->n++] = b; }

/* ------------------------------------------------------------ the data area
 * rsi = HARNESS_DATA.  MODE holds the run's MXCSR; group g lives at
 * GROUP(g): destination input, source input (at a misalignment for
 * memory forms that allow one), result (pre-filled with a pattern so
 * partial stores show), MXCSR after the instruction, GPR or RFLAGS. */
#define MODE 0x40u
#define GROUP(g) (0x100u + 128u * (g))
#define IN_D 0u
#define IN_S 16u
#define OUT 48u
#define MXO 80u
#define GPRO 88u
#define MAX_GROUPS 400u
#define CODE_LIMIT 3900u

/* GPRs a group may use: not rsp (the stack) or rsi (the data pointer). */
static const uint8_t gprs[] = { 0, 1, 2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* ------------------------------------------------------------ instruction table */
enum shape {
    SH_XX,   /* xmm, xmm/mem */
    SH_MX,   /* xmm/mem, xmm (store direction) */
    SH_GX,   /* r32/r64, xmm/mem */
    SH_XG,   /* xmm, r/m32 or r/m64 */
    SH_COMI, /* compare into RFLAGS */
};
enum forms { BOTH, REG_ONLY, MEM_ONLY };
enum modeset { M_ALL, M_NORC, M_DATA };

struct insn {
    const char *name;
    uint8_t pfx, opc;
    int imm;
    enum shape shape;
    bool w;                     /* REX.W */
    const struct vlist *dv, *sv; /* values for the destination and the source */
    uint8_t lanes;              /* source elements the operation consumes */
    bool binary;                /* enumerate all (dst, src) pairs */
    bool align;                 /* 16-byte memory operand: must be aligned */
    enum forms forms;
    enum modeset modes;
};

#define BIN(n, p, o, v, l, al, m) { n, p, o, NOIMM, SH_XX, false, &v, &v, l, true, al, BOTH, m }
#define UN(n, p, o, dv, sv, l, al, m)                                                  \
    { n, p, o, NOIMM, SH_XX, false, &dv, &sv, l, false, al, BOTH, m }
#define ARITH4(n, o, m)                                                                 \
    BIN(n "ps", 0, o, F32, 4, true, m), BIN(n "ss", 0xf3, o, F32, 1, false, m),          \
    BIN(n "pd", 0x66, o, F64, 2, true, m), BIN(n "sd", 0xf2, o, F64, 1, false, m)
#define CMP4(k)                                                                         \
    { "cmpps/" #k, 0, 0xc2, k, SH_XX, false, &F32, &F32, 4, true, true, BOTH, M_NORC },  \
    { "cmpss/" #k, 0xf3, 0xc2, k, SH_XX, false, &F32, &F32, 1, true, false, BOTH, M_NORC }, \
    { "cmppd/" #k, 0x66, 0xc2, k, SH_XX, false, &F64, &F64, 2, true, true, BOTH, M_NORC }, \
    { "cmpsd/" #k, 0xf2, 0xc2, k, SH_XX, false, &F64, &F64, 1, true, false, BOTH, M_NORC }

static const struct insn arith[] = {
    ARITH4("add", 0x58, M_ALL), ARITH4("sub", 0x5c, M_ALL), ARITH4("mul", 0x59, M_ALL),
    ARITH4("div", 0x5e, M_ALL), ARITH4("min", 0x5d, M_NORC), ARITH4("max", 0x5f, M_NORC),
    UN("sqrtps", 0, 0x51, F32, F32, 4, true, M_ALL),
    UN("sqrtss", 0xf3, 0x51, F32, F32, 1, false, M_ALL),
    UN("sqrtpd", 0x66, 0x51, F64, F64, 2, true, M_ALL),
    UN("sqrtsd", 0xf2, 0x51, F64, F64, 1, false, M_ALL),
    UN("rcpps", 0, 0x53, F32, F32, 4, true, M_ALL),
    UN("rcpss", 0xf3, 0x53, F32, F32, 1, false, M_ALL),
    UN("rsqrtps", 0, 0x52, F32, F32, 4, true, M_ALL),
    UN("rsqrtss", 0xf3, 0x52, F32, F32, 1, false, M_ALL),
    CMP4(0), CMP4(1), CMP4(2), CMP4(3), CMP4(4), CMP4(5), CMP4(6), CMP4(7),
    CMP4(0x0d), CMP4(0x1a), CMP4(0xff), /* legacy encodings use imm8[2:0] */
    { "comiss", 0, 0x2f, NOIMM, SH_COMI, false, &F32, &F32, 1, true, false, BOTH, M_NORC },
    { "ucomiss", 0, 0x2e, NOIMM, SH_COMI, false, &F32, &F32, 1, true, false, BOTH, M_NORC },
    { "comisd", 0x66, 0x2f, NOIMM, SH_COMI, false, &F64, &F64, 1, true, false, BOTH, M_NORC },
    { "ucomisd", 0x66, 0x2e, NOIMM, SH_COMI, false, &F64, &F64, 1, true, false, BOTH, M_NORC },
};

#define GX(n, p, o, w, sv, forms, m)                                                   \
    { n, p, o, NOIMM, SH_GX, w, &I64, &sv, 1, false, false, forms, m }
#define XG(n, p, o, w, dv, sv) { n, p, o, NOIMM, SH_XG, w, &dv, &sv, 1, false, false, BOTH, M_ALL }
static const struct insn cvt[] = {
    UN("cvtss2sd", 0xf3, 0x5a, F64, F32, 1, false, M_ALL),
    UN("cvtsd2ss", 0xf2, 0x5a, F32, F64, 1, false, M_ALL),
    UN("cvtps2pd", 0, 0x5a, F64, F32, 2, false, M_ALL),
    UN("cvtpd2ps", 0x66, 0x5a, F32, F64, 2, true, M_ALL),
    UN("cvtdq2ps", 0, 0x5b, F32, I32, 4, true, M_ALL),
    UN("cvtps2dq", 0x66, 0x5b, I32, F32, 4, true, M_ALL),
    UN("cvttps2dq", 0xf3, 0x5b, I32, F32, 4, true, M_ALL),
    UN("cvtdq2pd", 0xf3, 0xe6, F64, I32, 2, false, M_ALL),
    UN("cvtpd2dq", 0xf2, 0xe6, I32, F64, 2, true, M_ALL),
    UN("cvttpd2dq", 0x66, 0xe6, I32, F64, 2, true, M_ALL),
    GX("cvtss2si r32", 0xf3, 0x2d, false, F32, BOTH, M_ALL),
    GX("cvtss2si r64", 0xf3, 0x2d, true, F32, BOTH, M_ALL),
    GX("cvttss2si r32", 0xf3, 0x2c, false, F32, BOTH, M_ALL),
    GX("cvttss2si r64", 0xf3, 0x2c, true, F32, BOTH, M_ALL),
    GX("cvtsd2si r32", 0xf2, 0x2d, false, F64, BOTH, M_ALL),
    GX("cvtsd2si r64", 0xf2, 0x2d, true, F64, BOTH, M_ALL),
    GX("cvttsd2si r32", 0xf2, 0x2c, false, F64, BOTH, M_ALL),
    GX("cvttsd2si r64", 0xf2, 0x2c, true, F64, BOTH, M_ALL),
    XG("cvtsi2ss r/m32", 0xf3, 0x2a, false, F32, I32),
    XG("cvtsi2ss r/m64", 0xf3, 0x2a, true, F32, I64),
    XG("cvtsi2sd r/m32", 0xf2, 0x2a, false, F64, I32),
    XG("cvtsi2sd r/m64", 0xf2, 0x2a, true, F64, I64),
};

#define DATA2(n, p, o, v, l, al) { n, p, o, NOIMM, SH_XX, false, &v, &v, l, true, al, BOTH, M_DATA }
#define DATA1(n, p, o, v, l, al, forms)                                                \
    { n, p, o, NOIMM, SH_XX, false, &v, &v, l, false, al, forms, M_DATA }
#define STORE(n, p, o, v, al, forms)                                                   \
    { n, p, o, NOIMM, SH_MX, false, &v, &v, 16 / sizeof(v##_ELEM), false, al, forms, M_DATA }
#define SHUF(n, p, v, l, k)                                                            \
    { n "/" #k, p, 0xc6, k, SH_XX, false, &v, &v, l, true, true, BOTH, M_DATA }
static const struct insn data[] = {
    DATA2("andps", 0, 0x54, F32, 4, true), DATA2("andpd", 0x66, 0x54, F64, 2, true),
    DATA2("andnps", 0, 0x55, F32, 4, true), DATA2("andnpd", 0x66, 0x55, F64, 2, true),
    DATA2("orps", 0, 0x56, F32, 4, true), DATA2("orpd", 0x66, 0x56, F64, 2, true),
    DATA2("xorps", 0, 0x57, F32, 4, true), DATA2("xorpd", 0x66, 0x57, F64, 2, true),
    DATA2("unpcklps", 0, 0x14, F32, 4, true), DATA2("unpckhps", 0, 0x15, F32, 4, true),
    DATA2("unpcklpd", 0x66, 0x14, F64, 2, true), DATA2("unpckhpd", 0x66, 0x15, F64, 2, true),
    SHUF("shufps", 0, F32, 4, 0x1b), SHUF("shufps", 0, F32, 4, 0xe4),
    SHUF("shufps", 0, F32, 4, 0x00),
    SHUF("shufps", 0, F32, 4, 0xff), SHUF("shufps", 0, F32, 4, 0x4e),
    SHUF("shufps", 0, F32, 4, 0xb1),
    SHUF("shufps", 0, F32, 4, 0x93), SHUF("shufpd", 0x66, F64, 2, 0),
    SHUF("shufpd", 0x66, F64, 2, 1),
    SHUF("shufpd", 0x66, F64, 2, 2), SHUF("shufpd", 0x66, F64, 2, 3),
    SHUF("shufpd", 0x66, F64, 2, 0xfe),
    DATA1("movaps", 0, 0x28, F32, 4, true, BOTH), DATA1("movapd", 0x66, 0x28, F64, 2, true, BOTH),
    DATA1("movups", 0, 0x10, F32, 4, false, BOTH), DATA1("movupd", 0x66, 0x10, F64, 2, false, BOTH),
    DATA1("movss", 0xf3, 0x10, F32, 1, false, BOTH),
    DATA1("movsd", 0xf2, 0x10, F64, 1, false, BOTH),
    DATA1("movlps", 0, 0x12, F64, 1, false, MEM_ONLY),
    DATA1("movhps", 0, 0x16, F64, 1, false, MEM_ONLY),
    DATA1("movlpd", 0x66, 0x12, F64, 1, false, MEM_ONLY),
    DATA1("movhpd", 0x66, 0x16, F64, 1, false, MEM_ONLY),
    DATA1("movhlps", 0, 0x12, F64, 2, false, REG_ONLY),
    DATA1("movlhps", 0, 0x16, F64, 2, false, REG_ONLY),
    STORE("movaps store", 0, 0x29, F32, true, BOTH),
    STORE("movapd store", 0x66, 0x29, F64, true, BOTH),
    STORE("movups store", 0, 0x11, F32, false, BOTH),
    STORE("movupd store", 0x66, 0x11, F64, false, BOTH),
    STORE("movss store", 0xf3, 0x11, F32, false, BOTH),
    STORE("movsd store", 0xf2, 0x11, F64, false, BOTH),
    STORE("movlps store", 0, 0x13, F64, false, MEM_ONLY),
    STORE("movhps store", 0, 0x17, F64, false, MEM_ONLY),
    STORE("movlpd store", 0x66, 0x13, F64, false, MEM_ONLY),
    STORE("movhpd store", 0x66, 0x17, F64, false, MEM_ONLY),
    STORE("movntps", 0, 0x2b, F32, true, MEM_ONLY),
    STORE("movntpd", 0x66, 0x2b, F64, true, MEM_ONLY),
    GX("movmskps r32", 0, 0x50, false, F32, REG_ONLY, M_DATA),
    GX("movmskps r64", 0, 0x50, true, F32, REG_ONLY, M_DATA),
    GX("movmskpd r32", 0x66, 0x50, false, F64, REG_ONLY, M_DATA),
    GX("movmskpd r64", 0x66, 0x50, true, F64, REG_ONLY, M_DATA),
};

/* ------------------------------------------------------------ the batch engine */
static unsigned ncases(const struct insn *t)
{
    unsigned n = t->sv->n;
    if (t->binary)
        n *= t->dv->n;
    return (n + t->lanes - 1) / t->lanes;
}

/* The inputs of case idx: the operation's lanes from the enumeration, the
 * other lanes from the lists too (they must pass through unchanged). */
static void fill_inputs(const struct insn *t, unsigned idx, uint8_t d[16], uint8_t s[16])
{
    const struct vlist *dv = t->dv, *sv = t->sv;
    unsigned dl = 16 / dv->esize, sl = 16 / sv->esize;
    ck_assert(t->lanes <= sl && (!t->binary || t->lanes <= dl));
    for (unsigned l = 0; l < dl; l++)
        vput(d, dv->esize, l, vget(dv, idx * 3 + l * 5 + 1));
    for (unsigned l = 0; l < sl; l++)
        vput(s, sv->esize, l, vget(sv, idx * 7 + l * 3 + 2));
    for (unsigned l = 0; l < t->lanes; l++) {
        unsigned p = idx * t->lanes + l;
        if (t->binary) {
            vput(d, dv->esize, l, vget(dv, p % dv->n));
            vput(s, sv->esize, l, vget(sv, p / dv->n));
        } else {
            vput(s, sv->esize, l, vget(sv, p));
        }
    }
}

static bool group_uses_mem(const struct insn *t, unsigned idx, unsigned mode_i)
{
    return t->forms == MEM_ONLY || (t->forms == BOTH && ((idx + mode_i) & 1));
}

/* Emit group g (case idx) at data offset base. */
static void emit_group(struct code *k, const struct insn *t, unsigned g, uint32_t base, bool mem,
                       unsigned off)
{
    unsigned dx = g % 16, sx = (g * 7 + 3) % 16, r = gprs[g % sizeof(gprs)];
    if (sx == dx)
        sx = (sx + 1) % 16;
    uint32_t src = base + IN_S + off;
    switch (t->shape) {
    case SH_XX:
        movaps_load(k, dx, base + IN_D);
        if (!mem)
            movaps_load(k, sx, base + IN_S);
        emit0f(k, t->pfx, t->w, t->opc, dx, mem ? MEM : (int)sx, src, t->imm);
        movaps_store(k, dx, base + OUT);
        break;
    case SH_MX:
        movaps_load(k, sx, base + IN_S);
        if (mem) {
            emit0f(k, t->pfx, t->w, t->opc, sx, MEM, base + OUT + off, t->imm);
        } else {
            movaps_load(k, dx, base + IN_D);
            emit0f(k, t->pfx, t->w, t->opc, sx, (int)dx, 0, t->imm);
            movaps_store(k, dx, base + OUT);
        }
        break;
    case SH_GX:
        mov_load(k, r, base + GPRO); /* a pattern: shows how much is written */
        if (!mem)
            movaps_load(k, sx, base + IN_S);
        emit0f(k, t->pfx, t->w, t->opc, r, mem ? MEM : (int)sx, src, t->imm);
        mov_store(k, r, base + GPRO);
        break;
    case SH_XG:
        movaps_load(k, dx, base + IN_D);
        if (!mem)
            mov_load(k, r, base + IN_S);
        emit0f(k, t->pfx, t->w, t->opc, dx, mem ? MEM : (int)r, src, t->imm);
        movaps_store(k, dx, base + OUT);
        break;
    case SH_COMI:
        movaps_load(k, dx, base + IN_D);
        if (!mem)
            movaps_load(k, sx, base + IN_S);
        mov_load(k, 0, base + GPRO); /* the flags before: push rax; popfq */
        byte(k, 0x50);
        byte(k, 0x9d);
        emit0f(k, t->pfx, t->w, t->opc, dx, mem ? MEM : (int)sx, src, t->imm);
        byte(k, 0x9c); /* pushfq; pop rax */
        byte(k, 0x58);
        mov_store(k, 0, base + GPRO);
        break;
    }
    stmxcsr(k, base + MXO);
    ldmxcsr(k, MODE);
}

static void hex(char *buf, size_t size, const uint8_t *p, unsigned n)
{
    size_t at = 0;
    for (unsigned i = n; i-- > 0 && at + 3 < size;)
        at += (size_t)snprintf(buf + at, size - at, "%02x", p[i]);
}

/* After a mismatch: rerun the emulator alone and name the groups that differ. */
static void explain(const struct insn *t, const struct hstate *init, const struct hstate *native,
                    unsigned first, unsigned ngroups, uint32_t mode, const struct code *k)
{
    struct hstate *e = malloc(sizeof(*e));
    memcpy(e, init, sizeof(*e));
    int sig = harness_emu(k->b, k->n, e);
    if (sig)
        fprintf(stderr, "  the emulator stopped with signal %d\n", sig);
    unsigned shown = 0;
    for (unsigned g = 0; g < ngroups && shown < 6; g++) {
        uint32_t b = GROUP(g);
        if (memcmp(native->data + b + OUT, e->data + b + OUT, 48) == 0)
            continue;
        shown++;
        char d[40] = "", s[64] = "", rn[100] = "", re[100] = "";
        hex(d, sizeof(d), init->data + b + IN_D, 16);
        hex(s, sizeof(s), init->data + b + IN_S, 32);
        hex(rn, sizeof(rn), native->data + b + OUT, 48);
        hex(re, sizeof(re), e->data + b + OUT, 48);
        fprintf(stderr, "  %s case %u, mxcsr %#x: dst %s src %s\n    native %s\n    elfemu %s\n",
                t->name, first + g, mode, d, s, rn, re);
    }
    free(e);
}

/* Every case of t under every mode of its set; returns the failures. */
static int run_insn(const struct insn *t)
{
    const uint32_t *modes = t->modes == M_ALL    ? modes_all
                            : t->modes == M_NORC ? modes_norc
                                                 : modes_data;
    unsigned nmodes = t->modes == M_ALL    ? sizeof(modes_all) / 4
                      : t->modes == M_NORC ? sizeof(modes_norc) / 4
                                           : sizeof(modes_data) / 4;
    struct hstate *s = malloc(sizeof(*s)), *init = malloc(sizeof(*init));
    static struct code k;
    unsigned n = ncases(t);
    int bad = 0;
    for (unsigned mi = 0; mi < nmodes; mi++) {
        for (unsigned start = 0; start < n;) {
            harness_init(s);
            *hs_mxcsr(s) = modes[mi];
            memcpy(s->data + MODE, &modes[mi], 4);
            s->r[6] = HARNESS_DATA;
            k.n = 0;
            unsigned g = 0;
            for (; start + g < n && g < MAX_GROUPS && k.n < CODE_LIMIT; g++) {
                unsigned idx = start + g;
                uint8_t *p = s->data + GROUP(g);
                bool mem = group_uses_mem(t, idx, mi);
                unsigned off = mem && !t->align ? (idx * 5 + mi) % 16 : 0;
                uint8_t d[16], src[16];
                fill_inputs(t, idx, d, src);
                memcpy(p + IN_D, d, 16);
                memcpy(p + IN_S + off, src, 16);
                memset(p + OUT, 0xa5, 32);
                uint64_t pre = t->shape == SH_COMI ? ((idx & 2) ? 0x202 | 0x8d5 : 0x202)
                                                   : 0x0123456789abcdefull ^ idx;
                memcpy(p + GPRO, &pre, 8);
                emit_group(&k, t, g, GROUP(g), mem, off);
            }
            memcpy(init, s, sizeof(*s));
            char what[96];
            snprintf(what, sizeof(what), "%s, mxcsr %#x, cases %u-%u", t->name, modes[mi], start,
                     start + g - 1);
            if (harness_compare(k.b, k.n, s, 0x8d5, what)) {
                explain(t, init, s, start, g, modes[mi], &k);
                bad++;
            }
            start += g;
        }
    }
    free(s);
    free(init);
    return bad;
}

START_TEST(arithmetic_and_compares)
{
    ck_assert_int_eq(run_insn(&arith[_i]), 0);
}
END_TEST

START_TEST(conversions)
{
    ck_assert_int_eq(run_insn(&cvt[_i]), 0);
}
END_TEST

START_TEST(moves_logic_shuffles)
{
    ck_assert_int_eq(run_insn(&data[_i]), 0);
}
END_TEST

/* ------------------------------------------------------------ MMX forms
 * MMX registers cannot be loaded or stored by this family, so their inputs
 * come from the initial x87 image and their results are compared in the
 * final one.  Each run starts with TOP = 5 and the tags all empty or half
 * valid: a register operand must switch to MMX mode (TOP = 0, all valid),
 * a memory source of CVTPI2PS/CVTPI2PD must not (what the host does). */
enum mshape { MS_FROM_MM, MS_TO_MM };
struct mmx_insn {
    const char *name;
    uint8_t pfx, opc;
    enum mshape shape;
    const struct vlist *sv; /* source elements (two per case) */
    bool align;
};
static const struct mmx_insn mmx[] = {
    { "cvtpi2ps", 0, 0x2a, MS_FROM_MM, &I32, false },
    { "cvtpi2pd", 0x66, 0x2a, MS_FROM_MM, &I32, false },
    { "cvtps2pi", 0, 0x2d, MS_TO_MM, &F32, false },
    { "cvttps2pi", 0, 0x2c, MS_TO_MM, &F32, false },
    { "cvtpd2pi", 0x66, 0x2d, MS_TO_MM, &F64, true },
    { "cvttpd2pi", 0x66, 0x2c, MS_TO_MM, &F64, true },
};

START_TEST(mmx_forms)
{
    const struct mmx_insn *t = &mmx[_i];
    struct hstate *s = malloc(sizeof(*s)), *init = malloc(sizeof(*init));
    static struct code k;
    unsigned n = (t->sv->n + 1) / 2, nmodes = sizeof(modes_all) / 4;
    int bad = 0;
    for (unsigned mi = 0; mi < nmodes; mi++)
        for (unsigned form = 0; form < 3; form++) /* all register, all memory, mixed */
            for (unsigned start = 0; start < n; start += 8) {
                harness_init(s);
                *hs_mxcsr(s) = modes_all[mi];
                memcpy(s->data + MODE, &modes_all[mi], 4);
                s->r[6] = HARNESS_DATA;
                uint16_t fsw = 5u << 11;
                memcpy(s->fx + 2, &fsw, 2);
                s->fx[4] = (start & 8) ? 0x0f : 0x00;
                for (int i = 0; i < 8; i++) { /* filler in every register */
                    uint64_t m = 0x0101010101010101ull * (uint64_t)(i + 1) ^ start;
                    uint16_t e = (uint16_t)(0x4000 + i);
                    memcpy(hs_st(s, i), &m, 8);
                    memcpy((uint8_t *)hs_st(s, i) + 8, &e, 2);
                }
                for (unsigned i = 0; i < 16; i++)
                    for (unsigned l = 0; l < 4; l++)
                        vput(hs_xmm(s, (int)i), 4, l, vget(&F32, i * 4 + l + start));
                k.n = 0;
                for (unsigned g = 0; g < 8 && start + g < n; g++) {
                    unsigned idx = start + g, es = t->sv->esize;
                    uint32_t base = GROUP(g);
                    uint8_t *p = s->data + base;
                    bool mem = form == 1 || (form == 2 && (g & 1));
                    unsigned off = mem && !t->align ? (idx * 3) % 16 : 0;
                    uint8_t src[16] = { 0 };
                    for (unsigned l = 0; l < 16 / es; l++)
                        vput(src, es, l, vget(t->sv, idx * 2 + (l < 2 ? l : l * 7)));
                    memcpy(p + IN_S + off, src, 16);
                    unsigned x = (g * 5 + mi) % 16;
                    if (t->shape == MS_FROM_MM) {
                        /* mm g is physical register g: image slot (g - TOP) & 7 */
                        memcpy(hs_st(s, (int)((g - 5) & 7)), src, 8);
                        emit0f(&k, t->pfx, false, t->opc, x, mem ? MEM : (int)g, base + IN_S + off,
                               NOIMM);
                        movaps_store(&k, x, base + OUT);
                    } else {
                        if (!mem)
                            movaps_load(&k, x, base + IN_S);
                        emit0f(&k, t->pfx, false, t->opc, g, mem ? MEM : (int)x, base + IN_S + off,
                               NOIMM);
                    }
                    stmxcsr(&k, base + MXO);
                    ldmxcsr(&k, MODE);
                }
                memcpy(init, s, sizeof(*s));
                char what[96];
                snprintf(what, sizeof(what), "%s, mxcsr %#x, form %u, cases from %u", t->name,
                         modes_all[mi], form, start);
                bad |= harness_compare(k.b, k.n, s, 0x8d5, what);
            }
    free(s);
    free(init);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ MXCSR, MOVNTI */
START_TEST(ldmxcsr_stmxcsr_movnti)
{
    static const uint32_t good[] = { 0x1f80, 0, 0xffff, 0x7fc0, 0x9fbf, 0x3f, 0x1fc0, 0x6000,
                                     0x8000, 0x1f81, 0x0040, 0xe03f };
    struct hstate *s = malloc(sizeof(*s));
    static struct code k;
    int bad = 0;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        harness_init(s);
        s->r[6] = HARNESS_DATA;
        memcpy(s->data + 0x200, &good[i], 4);
        memset(s->data + 0x300, 0xa5, 8);
        k.n = 0;
        stmxcsr(&k, 0x304);
        ldmxcsr(&k, 0x200);
        stmxcsr(&k, 0x300);
        char what[64];
        snprintf(what, sizeof(what), "ldmxcsr %#x; stmxcsr", good[i]);
        bad |= harness_compare(k.b, k.n, s, 0x8d5, what);
    }
    /* MOVNTI m32/m64 from every usable GPR. */
    for (size_t i = 0; i < sizeof(gprs); i++) {
        harness_init(s);
        s->r[6] = HARNESS_DATA;
        uint64_t v = 0xfedcba9876543210ull + i;
        memcpy(s->data + 0x200, &v, 8);
        memset(s->data + 0x300, 0xa5, 32);
        k.n = 0;
        mov_load(&k, gprs[i], 0x200);
        emit0f(&k, 0, false, 0xc3, gprs[i], MEM, 0x300 + (uint32_t)i, NOIMM);
        emit0f(&k, 0, true, 0xc3, gprs[i], MEM, 0x310 + (uint32_t)i, NOIMM);
        bad |= harness_compare(k.b, k.n, s, 0x8d5, "movnti");
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Reserved MXCSR bits: #GP (SIGSEGV), MXCSR unchanged.  Bit 17 is AMD's
 * misaligned-SSE mode, outside the MXCSR_MASK elfemu reports. */
START_TEST(ldmxcsr_reserved_faults)
{
    static const uint32_t reserved[] = { 0x11f80, 0x80001f80, 0x21f80, 0xffffffff };
    struct hstate *s = malloc(sizeof(*s));
    static struct code k;
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        harness_init(s);
        s->r[6] = HARNESS_DATA;
        *hs_mxcsr(s) = 0x9fc1;
        memcpy(s->data + 0x200, &reserved[i], 4);
        k.n = 0;
        ldmxcsr(&k, 0x200);
        ck_assert_int_eq(harness_emu(k.b, k.n, s), SIGSEGV);
        ck_assert_uint_eq(*hs_mxcsr(s), 0x9fc1);
    }
    free(s);
}
END_TEST

/* ------------------------------------------------------------ same register
 * Source and destination the same register, several instructions a run. */
START_TEST(same_register_operands)
{
    static const struct { uint8_t pfx, opc; int imm; } ops[] = {
        { 0, 0x58, NOIMM }, { 0xf3, 0x5c, NOIMM }, { 0x66, 0x59, NOIMM }, { 0xf2, 0x5e, NOIMM },
        { 0, 0xc2, 3 }, { 0xf2, 0xc2, 4 }, { 0, 0xc6, 0x1b }, { 0x66, 0xc6, 1 },
        { 0, 0x15, NOIMM }, { 0x66, 0x14, NOIMM }, { 0, 0x12, NOIMM }, { 0, 0x16, NOIMM },
        { 0, 0x5a, NOIMM }, { 0xf2, 0x5a, NOIMM }, { 0x66, 0x5a, NOIMM }, { 0, 0x55, NOIMM },
        { 0, 0x51, NOIMM }, { 0xf3, 0x10, NOIMM }, { 0xf2, 0x11, NOIMM }, { 0x66, 0x5d, NOIMM },
        { 0, 0x5f, NOIMM }, { 0xf3, 0x53, NOIMM }, { 0xf3, 0x5b, NOIMM }, { 0xf2, 0xe6, NOIMM },
    };
    struct hstate *s = malloc(sizeof(*s));
    static struct code k;
    int bad = 0;
    for (unsigned round = 0; round < 8; round++) {
        harness_init(s);
        s->r[6] = HARNESS_DATA;
        *hs_mxcsr(s) = modes_all[round * 2];
        memcpy(s->data + MODE, &modes_all[round * 2], 4);
        k.n = 0;
        for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
            unsigned x = (i + round) % 16;
            uint32_t base = GROUP(i);
            for (unsigned l = 0; l < 4; l++) {
                uint64_t v = (l & 1) ? vget(&F32, i + l + round * 3) : vget(&F64, i * 2 + l + round);
                vput(s->data + base + IN_D, 4, l, v);
            }
            movaps_load(&k, x, base + IN_D);
            emit0f(&k, ops[i].pfx, false, ops[i].opc, x, (int)x, 0, ops[i].imm);
            movaps_store(&k, x, base + OUT);
            stmxcsr(&k, base + MXO);
            ldmxcsr(&k, MODE);
        }
        /* comisd x, x and comiss with a NaN: flags */
        byte(&k, 0x66);
        emit0f(&k, 0, false, 0x2f, 3, 3, 0, NOIMM);
        bad |= harness_compare(k.b, k.n, s, 0x8d5, "same register");
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* A run of groups under one MXCSR mode: rsi at the data area, the mode in
 * MXCSR and at MODE (each group reloads it), no code yet. */
static void run_init(struct hstate *s, struct code *k, uint32_t mode)
{
    harness_init(s);
    s->r[6] = HARNESS_DATA;
    *hs_mxcsr(s) = mode;
    memcpy(s->data + MODE, &mode, 4);
    k->n = 0;
}

/* ------------------------------------------------------------ fused pairs
 * Two scalar-double instructions in a row, the second reading the first's
 * destination as its destination, its source or both (cpu/ops_sse_fp_arith.c
 * runs such pairs as one handler): every pair of ADDSD SUBSD MULSD DIVSD,
 * the first with a register or a memory source, on edge values (denormals,
 * NaNs, infinities) under each rounding mode with DAZ/FTZ, flags read after
 * each pair.  Also pairs with no link, which stay two handlers. */
START_TEST(fused_pairs)
{
    static const uint8_t kinds[4] = { 0x58, 0x5c, 0x59, 0x5e }; /* add sub mul div */
    static const uint32_t modes[] = { 0x1f80, 0x3fc0, 0x5f80, 0xdfc0, 0xff80, 0x1fbf };
    struct hstate *s = malloc(sizeof(*s));
    static struct code k;
    int bad = 0;
    for (unsigned mi = 0; mi < sizeof(modes) / sizeof(modes[0]); mi++)
        for (unsigned a = 0; a < 4; a++) {
            run_init(s, &k, modes[mi]);
            unsigned g = 0;
            for (unsigned form = 0; form < 2; form++)
                for (unsigned b = 0; b < 4; b++)
                    for (unsigned v = 0; v < 4; v++, g++) {
                        /* three distinct registers: the first's destination,
                         * its source, the second's other operand */
                        unsigned xa = (g + mi) % 16, xs = (g + mi + 5) % 16, xo = (g + mi + 11) % 16;
                        unsigned xw = (g + mi + 14) % 16;
                        uint32_t base = GROUP(g);
                        vput(s->data + base + IN_D, 8, 0, vget(&F64, g * 3 + mi));
                        vput(s->data + base + IN_S, 8, 0, vget(&F64, g * 5 + a + 1));
                        vput(s->data + base + 32, 8, 0, vget(&F64, g * 7 + b + 2));
                        vput(s->data + base + 96, 8, 0, 0x3ff0000000000000);
                        movaps_load(&k, xa, base + IN_D);
                        movaps_load(&k, xs, base + IN_S);
                        movaps_load(&k, xo, base + 32);
                        /* 1.0 * 1.0: after LDMXCSR an arithmetic instruction
                         * makes the MXCSR live again, and only then do pairs
                         * run fused (cpu/sse.h) */
                        movaps_load(&k, xw, base + 96);
                        emit0f(&k, 0xf2, false, 0x59, xw, (int)xw, 0, NOIMM);
                        if (form)
                            emit0f(&k, 0xf2, false, kinds[a], xa, MEM, base + IN_S, NOIMM);
                        else
                            emit0f(&k, 0xf2, false, kinds[a], xa, (int)xs, 0, NOIMM);
                        /* v: 0 the destination, 1 the source, 2 both, 3 neither */
                        unsigned rd = v == 1 || v == 3 ? xo : xa, rs = v == 0 || v == 3 ? xo : xa;
                        if (v == 3)
                            rs = xs;
                        emit0f(&k, 0xf2, false, kinds[b], rd, (int)rs, 0, NOIMM);
                        movaps_store(&k, xa, base + OUT);
                        movaps_store(&k, rd, base + OUT + 16);
                        stmxcsr(&k, base + MXO);
                        ldmxcsr(&k, MODE);
                    }
            char what[64];
            snprintf(what, sizeof(what), "fused pairs, first %02x, mxcsr %04x", kinds[a], modes[mi]);
            bad |= harness_compare(k.b, k.n, s, 0x8d5, what);
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* CVTSI2SD from a register, after a zeroing of its destination (PXOR,
 * XORPS, XORPD x,x) or not, followed by an ADDSD SUBSD MULSD DIVSD reading
 * the converted register (its destination with a register or m64 source,
 * its source, both) or by nothing that reads it, and then a chain of up to
 * three more scalar-double instructions each reading the one before's
 * destination (cpu/ops_sse_fp_arith.c runs such sequences as one handler,
 * the values passed in host registers): integer inputs that round under
 * each rounding mode, edge doubles, and every group once with the MXCSR
 * not live (right after LDMXCSR: the handlers' fallbacks).  Flags read
 * after each group. */
START_TEST(fused_conversions_chains)
{
    static const uint8_t kinds[4] = { 0x58, 0x5c, 0x59, 0x5e }; /* add sub mul div */
    static const uint32_t modes[] = { 0x1f80, 0x3fc0, 0x5f80, 0xdfc0, 0xff80, 0x1fbf };
    /* zeroing: none, PXOR, XORPS, XORPD */
    static const struct { uint8_t pfx, opc; } zeros[4] = { { 0, 0 }, { 0x66, 0xef }, { 0, 0x57 },
                                                          { 0x66, 0x57 } };
    struct hstate *s = malloc(sizeof(*s));
    static struct code k;
    int bad = 0;
    for (unsigned mi = 0; mi < sizeof(modes) / sizeof(modes[0]); mi++)
        for (unsigned w = 0; w < 2; w++)
            for (unsigned z = 0; z < 4; z++) {
                run_init(s, &k, modes[mi]);
                unsigned g = 0;
                for (unsigned a = 0; a < 4; a++)
                    for (unsigned link = 0; link < 5; link++, g++) {
                        unsigned r0 = g + mi * 3 + z;
                        unsigned xa = r0 % 16, xs = (r0 + 5) % 16, xo = (r0 + 11) % 16;
                        unsigned xw = (r0 + 14) % 16, xq = (r0 + 8) % 16;
                        unsigned gr = gprs[(r0 + w) % sizeof(gprs)];
                        uint32_t base = GROUP(g);
                        vput(s->data + base + IN_D, 8, 0, vget(&F64, g * 3 + mi));
                        vput(s->data + base + IN_D, 8, 1, vget(&F64, g + 7));
                        vput(s->data + base + IN_S, 8, 0, vget(&F64, g * 5 + a + 1));
                        vput(s->data + base + 32, 8, 0, vget(&F64, g * 7 + z + 2));
                        vput(s->data + base + 96, 8, 0, 0x3ff0000000000000);
                        vput(s->data + base + GPRO, 8, 0,
                             w ? vget(&I64, g * 3 + mi + z) : vget(&I32, g * 3 + mi + z));
                        movaps_load(&k, xa, base + IN_D);
                        movaps_load(&k, xs, base + IN_S);
                        movaps_load(&k, xo, base + 32);
                        movaps_load(&k, xq, base + 32);
                        mov_load(&k, gr, base + GPRO);
                        if (g % 5 != 4) {
                            /* 1.0 * 1.0: the MXCSR live again after LDMXCSR */
                            movaps_load(&k, xw, base + 96);
                            emit0f(&k, 0xf2, false, 0x59, xw, (int)xw, 0, NOIMM);
                        }
                        if (z)
                            emit0f(&k, zeros[z].pfx, false, zeros[z].opc, xa, (int)xa, 0, NOIMM);
                        emit0f(&k, 0xf2, w, 0x2a, xa, (int)gr, 0, NOIMM); /* cvtsi2sd */
                        /* link: 0 xa's destination, 1 its source, 2 both, 3 the
                         * destination with an m64 source, 4 unlinked */
                        unsigned last = xa;
                        switch (link) {
                        case 0: emit0f(&k, 0xf2, false, kinds[a], xa, (int)xs, 0, NOIMM); break;
                        case 1: emit0f(&k, 0xf2, false, kinds[a], xo, (int)xa, 0, NOIMM); last = xo; break;
                        case 2: emit0f(&k, 0xf2, false, kinds[a], xa, (int)xa, 0, NOIMM); break;
                        case 3: emit0f(&k, 0xf2, false, kinds[a], xa, MEM, base + IN_S, NOIMM); break;
                        default: emit0f(&k, 0xf2, false, kinds[a], xo, (int)xs, 0, NOIMM); break;
                        }
                        /* the chain: each reads the destination before it as its
                         * destination, its source or both */
                        for (unsigned j = 0; j < (g + mi) % 4; j++) {
                            unsigned kj = kinds[(a + j + 1) % 4], how = (g + j + z) % 3;
                            unsigned other = last == xq ? xs : xq;
                            if (how == 0)
                                emit0f(&k, 0xf2, false, (uint8_t)kj, last, (int)other, 0, NOIMM);
                            else if (how == 1) {
                                emit0f(&k, 0xf2, false, (uint8_t)kj, other, (int)last, 0, NOIMM);
                                last = other;
                            } else
                                emit0f(&k, 0xf2, false, (uint8_t)kj, last, (int)last, 0, NOIMM);
                        }
                        movaps_store(&k, xa, base + OUT);
                        movaps_store(&k, xo, base + OUT + 16);
                        movaps_store(&k, xq, base + 96);
                        movaps_store(&k, xs, base + 112);
                        stmxcsr(&k, base + MXO);
                        ldmxcsr(&k, MODE);
                    }
                ck_assert_uint_le(k.n, CODE_LIMIT);
                char what[80];
                snprintf(what, sizeof(what), "fused conversions, %s, zeroing %u, mxcsr %04x",
                         w ? "r64" : "r32", z, modes[mi]);
                bad |= harness_compare(k.b, k.n, s, 0x8d5, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ faults (emulator only) */
/* Legacy SSE 16-byte memory operands at [rsi + 8]: #GP, nothing changed. */
START_TEST(misaligned_m128_faults)
{
    static const struct { uint8_t pfx, opc; int imm; bool mm; } ops[] = {
        { 0, 0x28, NOIMM, false }, { 0, 0x29, NOIMM, false }, { 0x66, 0x28, NOIMM, false },
        { 0x66, 0x29, NOIMM, false }, { 0, 0x2b, NOIMM, false }, { 0x66, 0x2b, NOIMM, false },
        { 0, 0x58, NOIMM, false }, { 0x66, 0x51, NOIMM, false }, { 0, 0x54, NOIMM, false },
        { 0x66, 0x57, NOIMM, false }, { 0, 0x14, NOIMM, false }, { 0x66, 0x15, NOIMM, false },
        { 0, 0xc6, 0x1b, false }, { 0x66, 0xc6, 1, false }, { 0, 0xc2, 1, false },
        { 0x66, 0xc2, 2, false }, { 0, 0x5b, NOIMM, false }, { 0x66, 0x5a, NOIMM, false },
        { 0x66, 0x5b, NOIMM, false }, { 0xf2, 0xe6, NOIMM, false }, { 0x66, 0xe6, NOIMM, false },
        { 0xf3, 0x5b, NOIMM, false }, { 0, 0x53, NOIMM, false }, { 0, 0x52, NOIMM, false },
        { 0, 0x5d, NOIMM, false }, { 0x66, 0x5f, NOIMM, false }, { 0x66, 0x2d, NOIMM, true },
        { 0x66, 0x2c, NOIMM, true },
    };
    struct hstate *s = malloc(sizeof(*s)), *before = malloc(sizeof(*before));
    static struct code k;
    for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        harness_init(s);
        s->r[6] = HARNESS_DATA;
        for (int x = 0; x < 16; x++)
            memset(hs_xmm(s, x), 0x11 * x, 16);
        memset(s->data + 0x208, 0x3f, 16);
        memcpy(before, s, sizeof(*s));
        k.n = 0;
        emit0f(&k, ops[i].pfx, false, ops[i].opc, 2, MEM, 0x208, ops[i].imm);
        ck_assert_msg(harness_emu(k.b, k.n, s) == SIGSEGV, "op %02x %02x: no fault", ops[i].pfx,
                      ops[i].opc);
        ck_assert_msg(memcmp(s->fx, before->fx, 512) == 0 &&
                          memcmp(s->data, before->data, HARNESS_DATA_SIZE) == 0,
                      "op %02x %02x: state changed", ops[i].pfx, ops[i].opc);
    }
    free(s);
    free(before);
}
END_TEST

/* An exception the guest unmasked: SIGFPE, destination, flags, RFLAGS and
 * the x87 state as they were. */
START_TEST(unmasked_exceptions_fault)
{
    /* Forms: X xmm1, xmm2; M xmm1, [rsi+0x200]; XG xmm1, rax; GX rbx/ebx,
     * xmm2; XP xmm1, mm2; PX mm1, xmm2. */
    enum { X, M, XG, GX, XP, PX };
    static const struct {
        const char *name;
        uint8_t pfx, opc;
        bool w;
        int imm;
        uint32_t mxcsr;  /* the exception unmasked */
        uint64_t d, s;   /* low quadwords of xmm1 (destination) and xmm2 */
        int form;
    } cases[] = {
        { "addps SNaN, IM", 0, 0x58, false, NOIMM, 0x1f00, 0x3f800000, 0x7f812345, X },
        { "addps [mem] SNaN, IM", 0, 0x58, false, NOIMM, 0x1f00, 0x3f800000, 0x7f812345, M },
        { "sqrtsd -1, IM", 0xf2, 0x51, false, NOIMM, 0x1f00, 0, 0xbff0000000000000, X },
        { "divss 1/0, ZM", 0xf3, 0x5e, false, NOIMM, 0x1d80, 0x3f800000, 0, X },
        { "mulsd max*max, OM", 0xf2, 0x59, false, NOIMM, 0x1b80, 0x7fefffffffffffff, 0x7fefffffffffffff, X },
        { "mulss exact tiny, UM", 0xf3, 0x59, false, NOIMM, 0x1780, 0x1f800000, 0x1f800000, X },
        { "mulss exact tiny, UM, FTZ", 0xf3, 0x59, false, NOIMM, 0x9780, 0x1f800000, 0x1f800000, X },
        { "mulss inexact tiny, UM", 0xf3, 0x59, false, NOIMM, 0x1780, 0x1f800001, 0x1f800001, X },
        { "addss denormal+0, UM", 0xf3, 0x58, false, NOIMM, 0x1780, 0x00000001, 0, X },
        { "subsd exact tiny, UM", 0xf2, 0x5c, false, NOIMM, 0x1780, 0x0010000000000000, 1, X },
        { "mulpd exact tiny, UM", 0x66, 0x59, false, NOIMM, 0x1780, 0x2000000000000000, 0x1ff0000000000000, X },
        { "divps [mem] exact tiny, UM", 0, 0x5e, false, NOIMM, 0x1780, 0x00800000, 0x40000000, M },
        { "cvtsd2ss exact tiny, UM", 0xf2, 0x5a, false, NOIMM, 0x1780, 0, 0x3800000000000000, X },
        { "cvtpd2ps exact tiny, UM", 0x66, 0x5a, false, NOIMM, 0x1780, 0, 0x3800000000000000, X },
        { "divss 1/3, PM", 0xf3, 0x5e, false, NOIMM, 0x0f80, 0x3f800000, 0x40400000, X },
        { "divss [mem] 1/3, PM", 0xf3, 0x5e, false, NOIMM, 0x0f80, 0x3f800000, 0x40400000, M },
        { "addss denormal, DM", 0xf3, 0x58, false, NOIMM, 0x1e80, 0x3f800000, 0x00000001, X },
        { "cmpps/1 QNaN, IM", 0, 0xc2, false, 1, 0x1f00, 0x3f800000, 0x7fc00000, X },
        { "cvtpd2ps, PM", 0x66, 0x5a, false, NOIMM, 0x0f80, 0, 0x3fd5555555555555, X },
        { "cvtsd2ss overflow, OM", 0xf2, 0x5a, false, NOIMM, 0x1b80, 0, 0x7fefffffffffffff, X },
        { "cvtss2si rbx 1e30, IM", 0xf3, 0x2d, true, NOIMM, 0x1f00, 0, 0x7149f2ca, GX },
        { "cvttsd2si ebx NaN, IM", 0xf2, 0x2c, false, NOIMM, 0x1f00, 0, 0x7ff8000000000000, GX },
        { "cvtsi2ss rax=0x1000001, PM", 0xf3, 0x2a, true, NOIMM, 0x0f80, 0x1234, 0, XG },
        { "comiss QNaN, IM", 0, 0x2f, false, NOIMM, 0x1f00, 0x3f800000, 0x7fc00000, X },
        { "ucomisd SNaN, IM", 0x66, 0x2e, false, NOIMM, 0x1f00, 0, 0x7ff0000000000001, X },
        { "cvtps2pi NaN, IM", 0, 0x2d, false, NOIMM, 0x1f00, 0, 0x7fc00000, PX },
        { "cvtpi2ps 0x1000001, PM", 0, 0x2a, false, NOIMM, 0x0f80, 0x5555, 0, XP },
    };
    struct hstate *s = malloc(sizeof(*s)), *before = malloc(sizeof(*before));
    static struct code k;
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        harness_init(s);
        s->r[6] = HARNESS_DATA;
        s->r[0] = 0x1000001; /* cvtsi2ss source */
        s->r[3] = 0x7777777777777777;
        s->rflags = 0x202 | 0x8d5;
        *hs_mxcsr(s) = cases[i].mxcsr;
        uint16_t fsw = 3u << 11;
        memcpy(s->fx + 2, &fsw, 2);
        memcpy(hs_xmm(s, 1), &cases[i].d, 8);
        memcpy(hs_xmm(s, 2), &cases[i].s, 8);
        memcpy(s->data + 0x200, &cases[i].s, 8);
        uint64_t mm = 0x0100000100000001; /* cvtpi2ps source: mm2 = physical 2 = slot 7 */
        memcpy(hs_st(s, 7), &mm, 8);
        memcpy(before, s, sizeof(*s));
        k.n = 0;
        int f = cases[i].form;
        unsigned reg = f == GX ? 3 : 1;
        int rm = f == M ? MEM : f == XG ? 0 : 2;
        emit0f(&k, cases[i].pfx, cases[i].w, cases[i].opc, reg, rm, 0x200, cases[i].imm);
        ck_assert_msg(harness_emu(k.b, k.n, s) == SIGFPE, "%s: no SIGFPE", cases[i].name);
        ck_assert_msg(memcmp(s->r, before->r, sizeof(s->r)) == 0, "%s: GPRs changed", cases[i].name);
        ck_assert_msg((s->rflags & 0x8d5) == 0x8d5, "%s: RFLAGS changed", cases[i].name);
        ck_assert_msg(memcmp(s->fx + 32, before->fx + 32, 512 - 32) == 0, "%s: registers changed",
                      cases[i].name);
        ck_assert_msg(memcmp(s->fx, before->fx, 6) == 0, "%s: x87 control/status/tags changed",
                      cases[i].name);
    }
    free(s);
    free(before);
}
END_TEST

/* Exceptions unmasked but not raised: no fault, and the host agrees.
 * UCOMISS does not signal on a QNaN; CVTDQ2PD raises nothing; a denormal
 * returned by MINSS or an RCPSS result flushed to zero is no underflow;
 * with DAZ a denormal operand is zero and the sum exact. */
START_TEST(unmasked_but_not_raised)
{
    static const struct { const char *name; uint8_t pfx, opc; uint32_t mxcsr; uint64_t d, s; } cases[] = {
        { "ucomiss QNaN", 0, 0x2e, 0, 0x3f800000, 0x7fc00000 },
        { "addss exact", 0xf3, 0x58, 0, 0x3f800000, 0x3f800000 },
        { "cvtdq2pd", 0xf3, 0xe6, 0, 0, 0x800000007fffffff },
        { "movss", 0xf3, 0x10, 0, 0, 0x7f812345 },
        { "andps SNaN", 0, 0x54, 0, 0x7f812345, 0x7f812345 },
        { "maxsd exact", 0xf2, 0x5f, 0, 0x3ff0000000000000, 0x4000000000000000 },
        { "minss denormals, UM", 0xf3, 0x5d, 0x1780, 0x00000001, 0x00000002 },
        { "rcpss max, UM", 0xf3, 0x53, 0x1780, 0, 0x7f7fffff },
        { "addss denormal+0, UM, DAZ", 0xf3, 0x58, 0x17c0, 0x00000001, 0 },
        { "mulss normal, UM, FTZ", 0xf3, 0x59, 0x9780, 0x3f800000, 0x00800000 },
    };
    struct hstate *s = malloc(sizeof(*s));
    static struct code k;
    int bad = 0;
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        harness_init(s);
        *hs_mxcsr(s) = cases[i].mxcsr;
        memcpy(hs_xmm(s, 1), &cases[i].d, 8);
        memcpy(hs_xmm(s, 2), &cases[i].s, 8);
        k.n = 0;
        emit0f(&k, cases[i].pfx, false, cases[i].opc, 1, 2, 0, NOIMM);
        bad |= harness_compare(k.b, k.n, s, 0x8d5, cases[i].name);
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sse_fp");
    TCase *t = tcase_create("sse_fp");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, arithmetic_and_compares, 0, sizeof(arith) / sizeof(arith[0]));
    tcase_add_loop_test(t, conversions, 0, sizeof(cvt) / sizeof(cvt[0]));
    tcase_add_loop_test(t, moves_logic_shuffles, 0, sizeof(data) / sizeof(data[0]));
    tcase_add_loop_test(t, mmx_forms, 0, sizeof(mmx) / sizeof(mmx[0]));
    tcase_add_test(t, ldmxcsr_stmxcsr_movnti);
    tcase_add_test(t, ldmxcsr_reserved_faults);
    tcase_add_test(t, same_register_operands);
    tcase_add_test(t, fused_pairs);
    tcase_add_test(t, fused_conversions_chains);
    tcase_add_test(t, misaligned_m128_faults);
    tcase_add_test(t, unmasked_exceptions_fault);
    tcase_add_test(t, unmasked_but_not_raised);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
