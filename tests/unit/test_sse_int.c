/* SSE2 integer instructions on XMM registers against the host CPU: every
 * operation in register and memory form, on vectors whose lanes run through
 * every pair of edge values of each lane width (and seeded random ones),
 * shifts by every interesting count, moves to and from GPRs and memory,
 * MASKMOVDQU, the MMX transitions, and alignment faults (emulator side).
 *
 * Each compared run executes eight instances of the instruction on eight
 * register pairs (xmm0-15, so REX.R/REX.B are covered) or eight memory
 * operands, and every instruction encoding is checked with Zydis first, so
 * that a typo in a test cannot silently test another instruction. */
#include <Zydis/Zydis.h>
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

#define ALL_FLAGS 0x8d5u
#define DATA_RSI (HARNESS_DATA + 0x100) /* rsi: 16-byte aligned operands */

typedef struct { uint64_t q[2]; } v128;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ------------------------------------------------------------ encoding */
struct code { uint8_t b[256]; size_t n; };
static void put(struct code *k, unsigned byte) { k->b[k->n++] = (uint8_t)byte; }

enum { REG = -1000 }; /* "disp" of a register operand */

/* [pfx] [REX] 0F opc modrm [disp8] [imm8]: reg is the ModRM.reg field (or
 * the /digit), rm a register number (disp == REG) or [rsi + disp8]. */
static void enc(struct code *k, unsigned pfx, bool w, unsigned opc, unsigned reg, unsigned rm,
                int disp, int imm)
{
    if (pfx)
        put(k, pfx);
    unsigned rex = 0x40 | (w ? 8 : 0) | (reg & 8 ? 4 : 0) | (disp == REG && (rm & 8) ? 1 : 0);
    if (rex != 0x40)
        put(k, rex);
    put(k, 0x0f);
    put(k, opc);
    if (disp == REG) {
        put(k, 0xc0 | (reg & 7) << 3 | (rm & 7));
    } else {
        put(k, 0x40 | (reg & 7) << 3 | 6);
        put(k, (unsigned)disp & 0xff);
    }
    if (imm >= 0)
        put(k, (unsigned)imm);
}

/* The first instruction of code must be the mnemonic named. */
static void expect_mnemonic(const uint8_t *code, size_t len, const char *name)
{
    ZydisDecoder d;
    ZydisDecodedInstruction in;
    ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    ck_assert(ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d, NULL, code, len, &in)));
    ck_assert_msg(strcmp(ZydisMnemonicGetString(in.mnemonic), name) == 0, "encoded %s, wanted %s",
                  ZydisMnemonicGetString(in.mnemonic), name);
}

/* ------------------------------------------------------------ operand values */
static const uint64_t e8[] = { 0, 1, 2, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x55, 0xaa, 0x10 };
static const uint64_t e16[] = { 0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7ffe, 0x7fff, 0x8000, 0x8001,
                                0xfffe, 0xffff, 0x5555, 0xaaaa };
static const uint64_t e32[] = { 0, 1, 0xffff, 0x10000, 0x7ffffffe, 0x7fffffff, 0x80000000,
                                0x80000001, 0xfffffffe, 0xffffffff, 0x12345678, 0xedcba987 };
static const uint64_t e64[] = { 0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                0xffffffffffffffffull, 0xffffffff, 0x100000000ull,
                                0x0123456789abcdefull };

#define MAXPAIRS 160
static v128 px[MAXPAIRS], py[MAXPAIRS];
static unsigned npairs;

static void lane_set(v128 *v, unsigned w, unsigned lane, uint64_t val)
{
    memcpy((uint8_t *)v + lane * w, &val, w);
}

/* Every pair (a, b) of edge values of width w, one pair per lane. */
static void add_edge_pairs(const uint64_t *e, unsigned ne, unsigned w)
{
    unsigned lanes = 16 / w, base = npairs, p = 0;
    for (unsigned i = 0; i < ne; i++)
        for (unsigned j = 0; j < ne; j++, p++) {
            unsigned v = base + p / lanes;
            if (p % lanes == 0) {
                px[v] = (v128){ { rnd(), rnd() } };
                py[v] = (v128){ { rnd(), rnd() } };
            }
            lane_set(&px[v], w, p % lanes, e[i]);
            lane_set(&py[v], w, p % lanes, e[j]);
        }
    npairs = base + (p + lanes - 1) / lanes;
}

static void build_pairs(void)
{
    if (npairs)
        return;
    add_edge_pairs(e8, sizeof(e8) / 8, 1);
    add_edge_pairs(e16, sizeof(e16) / 8, 2);
    add_edge_pairs(e32, sizeof(e32) / 8, 4);
    add_edge_pairs(e64, sizeof(e64) / 8, 8);
    while (npairs % 8 || npairs < 136) {
        px[npairs] = (v128){ { rnd(), rnd() } };
        py[npairs] = (v128){ { rnd(), rnd() } };
        npairs++;
    }
}

static const uint64_t counts[] = { 0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256,
                                   0x100000000ull, 0x8000000000000000ull, 0xffffffffffffffffull };
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

static void set_xmm(struct hstate *s, int i, v128 v) { memcpy(hs_xmm(s, i), &v, 16); }

/* A fresh state with every XMM register and GPR full of noise. */
static void init_state(struct hstate *s)
{
    harness_init(s);
    for (int i = 0; i < 16; i++)
        set_xmm(s, i, (v128){ { rnd(), rnd() } });
    for (int i = 0; i < 16; i++)
        if (i != 4)
            s->r[i] = rnd();
    s->r[6] = DATA_RSI;
    s->rflags = 0x202 | 0x8d5; /* flags that must survive */
    for (unsigned i = 0; i < 1024; i++)
        s->data[i] = (uint8_t)rnd();
}

/* ------------------------------------------------------------ the lane operations */
enum kind { PLAIN, SHIFT, IMM };
struct xop { const char *name; unsigned pfx, opc; enum kind kind; };
static const struct xop xops[] = {
    { "paddb", 0x66, 0xfc, PLAIN }, { "paddw", 0x66, 0xfd, PLAIN }, { "paddd", 0x66, 0xfe, PLAIN },
    { "paddq", 0x66, 0xd4, PLAIN }, { "psubb", 0x66, 0xf8, PLAIN }, { "psubw", 0x66, 0xf9, PLAIN },
    { "psubd", 0x66, 0xfa, PLAIN }, { "psubq", 0x66, 0xfb, PLAIN },
    { "paddsb", 0x66, 0xec, PLAIN }, { "paddsw", 0x66, 0xed, PLAIN },
    { "paddusb", 0x66, 0xdc, PLAIN }, { "paddusw", 0x66, 0xdd, PLAIN },
    { "psubsb", 0x66, 0xe8, PLAIN }, { "psubsw", 0x66, 0xe9, PLAIN },
    { "psubusb", 0x66, 0xd8, PLAIN }, { "psubusw", 0x66, 0xd9, PLAIN },
    { "pcmpeqb", 0x66, 0x74, PLAIN }, { "pcmpeqw", 0x66, 0x75, PLAIN },
    { "pcmpeqd", 0x66, 0x76, PLAIN }, { "pcmpgtb", 0x66, 0x64, PLAIN },
    { "pcmpgtw", 0x66, 0x65, PLAIN }, { "pcmpgtd", 0x66, 0x66, PLAIN },
    { "pand", 0x66, 0xdb, PLAIN }, { "pandn", 0x66, 0xdf, PLAIN }, { "por", 0x66, 0xeb, PLAIN },
    { "pxor", 0x66, 0xef, PLAIN }, { "pmullw", 0x66, 0xd5, PLAIN }, { "pmulhw", 0x66, 0xe5, PLAIN },
    { "pmulhuw", 0x66, 0xe4, PLAIN }, { "pmuludq", 0x66, 0xf4, PLAIN },
    { "pmaddwd", 0x66, 0xf5, PLAIN }, { "pavgb", 0x66, 0xe0, PLAIN },
    { "pavgw", 0x66, 0xe3, PLAIN },
    { "pminub", 0x66, 0xda, PLAIN }, { "pmaxub", 0x66, 0xde, PLAIN },
    { "pminsw", 0x66, 0xea, PLAIN }, { "pmaxsw", 0x66, 0xee, PLAIN },
    { "psadbw", 0x66, 0xf6, PLAIN },
    { "punpcklbw", 0x66, 0x60, PLAIN }, { "punpcklwd", 0x66, 0x61, PLAIN },
    { "punpckldq", 0x66, 0x62, PLAIN }, { "punpcklqdq", 0x66, 0x6c, PLAIN },
    { "punpckhbw", 0x66, 0x68, PLAIN }, { "punpckhwd", 0x66, 0x69, PLAIN },
    { "punpckhdq", 0x66, 0x6a, PLAIN }, { "punpckhqdq", 0x66, 0x6d, PLAIN },
    { "packsswb", 0x66, 0x63, PLAIN }, { "packssdw", 0x66, 0x6b, PLAIN },
    { "packuswb", 0x66, 0x67, PLAIN },
    { "psllw", 0x66, 0xf1, SHIFT }, { "pslld", 0x66, 0xf2, SHIFT }, { "psllq", 0x66, 0xf3, SHIFT },
    { "psrlw", 0x66, 0xd1, SHIFT }, { "psrld", 0x66, 0xd2, SHIFT }, { "psrlq", 0x66, 0xd3, SHIFT },
    { "psraw", 0x66, 0xe1, SHIFT }, { "psrad", 0x66, 0xe2, SHIFT },
    { "pshufd", 0x66, 0x70, IMM }, { "pshuflw", 0xf2, 0x70, IMM }, { "pshufhw", 0xf3, 0x70, IMM },
};
#define NXOPS (sizeof(xops) / sizeof(xops[0]))

static const int shuffle_imms[] = { 0x00, 0x1b, 0xe4, 0x4e, 0xb1, 0xff, 0x39, 0x8d };

/* Registers of instance k: destination and source, alternating which of
 * the two is in xmm8-15. */
static unsigned dst_of(unsigned k) { return k & 1 ? 8 + k : k; }
static unsigned src_of(unsigned k) { return k & 1 ? k : 8 + k; }

/* One compared run: 8 instances, x[] in the destinations, y[] in the
 * sources (registers, or memory at [rsi + 16k]). */
static int run_batch(const struct xop *o, bool mem, const v128 *x, const v128 *y, int imm,
                     struct hstate *s)
{
    struct code k = { .n = 0 };
    init_state(s);
    for (unsigned i = 0; i < 8; i++) {
        set_xmm(s, (int)dst_of(i), x[i]);
        if (mem)
            memcpy(s->data + (DATA_RSI - HARNESS_DATA) + 16 * i, &y[i], 16);
        else
            set_xmm(s, (int)src_of(i), y[i]);
        enc(&k, o->pfx, false, o->opc, dst_of(i), mem ? 0 : src_of(i), mem ? (int)(16 * i) : REG,
            imm);
    }
    expect_mnemonic(k.b, k.n, o->name);
    char what[96];
    snprintf(what, sizeof(what), "%s %s (imm %d, x0 %#llx:%#llx)", o->name,
             mem ? "xmm,m128" : "xmm,xmm", imm, (unsigned long long)x[0].q[1],
             (unsigned long long)x[0].q[0]);
    return harness_compare(k.b, k.n, s, ALL_FLAGS, what);
}

static unsigned ncompared;

START_TEST(lane_operations)
{
    const struct xop *o = &xops[_i];
    struct hstate *s = malloc(sizeof(*s));
    build_pairs();
    int bad = 0;
    v128 x[8], y[8];
    for (int mem = 0; mem < 2; mem++) {
        if (o->kind == PLAIN) {
            for (unsigned b = 0; b < npairs / 8; b++) {
                bad |= run_batch(o, mem, &px[8 * b], &py[8 * b], -1, s);
                ncompared++;
            }
        } else if (o->kind == SHIFT) {
            for (unsigned b = 0; b < 3 * NCOUNTS; b++) {
                for (unsigned i = 0; i < 8; i++) {
                    x[i] = px[(8 * b + i) % npairs];
                    y[i] = (v128){ { counts[(8 * b + i) % NCOUNTS], rnd() } };
                }
                bad |= run_batch(o, mem, x, y, -1, s);
                ncompared++;
            }
        } else {
            for (unsigned m = 0; m < sizeof(shuffle_imms) / sizeof(int); m++)
                for (unsigned b = 0; b < 4; b++) {
                    bad |= run_batch(o, mem, &px[8 * (b + 4 * m) % npairs], &py[8 * b],
                                     shuffle_imms[m], s);
                    ncompared++;
                }
        }
    }
    /* The source is the destination: op xmm5, xmm5. */
    for (unsigned b = 0; b < 8; b++) {
        struct code k = { .n = 0 };
        init_state(s);
        set_xmm(s, 5, px[b * 9 % npairs]);
        if (o->kind == SHIFT)
            set_xmm(s, 5, (v128){ { counts[b], px[b].q[1] } });
        enc(&k, o->pfx, false, o->opc, 5, 5, REG, o->kind == IMM ? shuffle_imms[b] : -1);
        bad |= harness_compare(k.b, k.n, s, ALL_FLAGS, o->name);
        ncompared++;
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Shifts by imm8 (66 0F 71/72/73 /digit ib), PSLLDQ and PSRLDQ included. */
START_TEST(shifts_by_immediate)
{
    static const struct { const char *name; unsigned opc, digit; } sh[] = {
        { "psrlw", 0x71, 2 }, { "psraw", 0x71, 4 }, { "psllw", 0x71, 6 },
        { "psrld", 0x72, 2 }, { "psrad", 0x72, 4 }, { "pslld", 0x72, 6 },
        { "psrlq", 0x73, 2 }, { "psllq", 0x73, 6 }, { "psrldq", 0x73, 3 }, { "pslldq", 0x73, 7 },
    };
    static const int imms[] = { 0, 1, 2, 3, 7, 8, 9, 14, 15, 16, 17, 31, 32, 33, 63, 64, 127,
                                128, 255 };
    struct hstate *s = malloc(sizeof(*s));
    build_pairs();
    int bad = 0;
    for (unsigned o = 0; o < sizeof(sh) / sizeof(sh[0]); o++)
        for (unsigned m = 0; m < sizeof(imms) / sizeof(int); m++)
            for (unsigned b = 0; b < 2; b++) {
                struct code k = { .n = 0 };
                init_state(s);
                for (unsigned i = 0; i < 8; i++) {
                    unsigned r = i & 1 ? 8 + i : i;
                    set_xmm(s, (int)r, px[(8 * (b + 2 * m) + i) % npairs]);
                    enc(&k, 0x66, false, sh[o].opc, sh[o].digit, r, REG, imms[m]);
                }
                expect_mnemonic(k.b, k.n, sh[o].name);
                char what[64];
                snprintf(what, sizeof(what), "%s xmm, %d", sh[o].name, imms[m]);
                bad |= harness_compare(k.b, k.n, s, ALL_FLAGS, what);
                ncompared++;
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ moves and the rest */
struct fixed { const char *name; const char *mn; uint8_t b[16]; unsigned len; };

/* Run a fixed encoding on several random states (data, registers). */
static int run_fixed(const struct fixed *f, unsigned reps, struct hstate *s)
{
    int bad = 0;
    expect_mnemonic(f->b, f->len, f->mn);
    for (unsigned r = 0; r < reps; r++) {
        init_state(s);
        s->r[7] = HARNESS_DATA + 0x300 + r % 17; /* rdi: MASKMOVDQU, aligned or not */
        s->r[1] = r % 16;                        /* rcx: an index */
        if (r % 4 == 1) /* mask and data registers with edge patterns */
            for (int i = 0; i < 16; i++)
                set_xmm(s, i, (v128){ { i & 1 ? ~0ull : 0, 0x8000000000000080ull } });
        bad |= harness_compare(f->b, f->len, s, ALL_FLAGS, f->name);
        ncompared++;
    }
    return bad;
}

START_TEST(moves)
{
    static const struct fixed cases[] = {
        /* MOVD/MOVQ xmm <- r/m: the rest of the register is zeroed. */
        { "movd xmm1,eax", "movd", { 0x66, 0x0f, 0x6e, 0xc8 }, 4 },
        { "movd xmm9,r10d", "movd", { 0x66, 0x45, 0x0f, 0x6e, 0xca }, 5 },
        { "movq xmm1,rax", "movq", { 0x66, 0x48, 0x0f, 0x6e, 0xc8 }, 5 },
        { "movq xmm14,r15", "movq", { 0x66, 0x4d, 0x0f, 0x6e, 0xf7 }, 5 },
        { "movd xmm2,[rsi+4]", "movd", { 0x66, 0x0f, 0x6e, 0x56, 0x04 }, 5 },
        { "movq xmm2,[rsi+3] (66 REX.W 0F 6E)", "movq", { 0x66, 0x48, 0x0f, 0x6e, 0x56, 0x03 }, 6 },
        { "movq xmm3,[rsi+5] (F3 0F 7E)", "movq", { 0xf3, 0x0f, 0x7e, 0x5e, 0x05 }, 5 },
        { "movq xmm3,xmm4 (F3 0F 7E)", "movq", { 0xf3, 0x0f, 0x7e, 0xdc }, 4 },
        { "movq xmm4,xmm12 (66 0F D6)", "movq", { 0x66, 0x44, 0x0f, 0xd6, 0xe4 }, 5 },
        { "movq xmm3,xmm3", "movq", { 0xf3, 0x0f, 0x7e, 0xdb }, 4 },
        /* ... and to r/m. */
        { "movd eax,xmm1", "movd", { 0x66, 0x0f, 0x7e, 0xc8 }, 4 },
        { "movd r11d,xmm13", "movd", { 0x66, 0x45, 0x0f, 0x7e, 0xeb }, 5 },
        { "movq rax,xmm1", "movq", { 0x66, 0x48, 0x0f, 0x7e, 0xc8 }, 5 },
        { "movd [rsi+1],xmm6", "movd", { 0x66, 0x0f, 0x7e, 0x76, 0x01 }, 5 },
        { "movq [rsi+7],xmm6 (REX.W 7E)", "movq", { 0x66, 0x48, 0x0f, 0x7e, 0x76, 0x07 }, 6 },
        { "movq [rsi+9],xmm6 (66 0F D6)", "movq", { 0x66, 0x0f, 0xd6, 0x76, 0x09 }, 5 },
        /* MOVDQA / MOVDQU / MOVNTDQ */
        { "movdqa xmm1,xmm2", "movdqa", { 0x66, 0x0f, 0x6f, 0xca }, 4 },
        { "movdqa xmm10,xmm2 (7F)", "movdqa", { 0x66, 0x41, 0x0f, 0x7f, 0xd2 }, 5 },
        { "movdqa xmm1,[rsi+16]", "movdqa", { 0x66, 0x0f, 0x6f, 0x4e, 0x10 }, 5 },
        { "movdqa [rsi+32],xmm15", "movdqa", { 0x66, 0x44, 0x0f, 0x7f, 0x7e, 0x20 }, 6 },
        { "movdqu xmm1,xmm2", "movdqu", { 0xf3, 0x0f, 0x6f, 0xca }, 4 },
        { "movdqu xmm1,[rsi+3]", "movdqu", { 0xf3, 0x0f, 0x6f, 0x4e, 0x03 }, 5 },
        { "movdqu [rsi+13],xmm9", "movdqu", { 0xf3, 0x44, 0x0f, 0x7f, 0x4e, 0x0d }, 6 },
        { "movdqu [rsi+rcx*1-1],xmm9", "movdqu", { 0xf3, 0x44, 0x0f, 0x7f, 0x4c, 0x0e, 0xff }, 7 },
        { "movntdq [rsi+48],xmm5", "movntdq", { 0x66, 0x0f, 0xe7, 0x6e, 0x30 }, 5 },
        /* PMOVMSKB, PEXTRW (the rest of the GPR is zeroed), PINSRW. */
        { "pmovmskb eax,xmm1", "pmovmskb", { 0x66, 0x0f, 0xd7, 0xc1 }, 4 },
        { "pmovmskb r9,xmm14 (REX.W)", "pmovmskb", { 0x66, 0x4d, 0x0f, 0xd7, 0xce }, 5 },
        { "pextrw eax,xmm1,0", "pextrw", { 0x66, 0x0f, 0xc5, 0xc1, 0 }, 5 },
        { "pextrw ecx,xmm1,3", "pextrw", { 0x66, 0x0f, 0xc5, 0xc9, 3 }, 5 },
        { "pextrw edx,xmm1,7", "pextrw", { 0x66, 0x0f, 0xc5, 0xd1, 7 }, 5 },
        { "pextrw r12,xmm11,5 (REX.W)", "pextrw", { 0x66, 0x4d, 0x0f, 0xc5, 0xe3, 5 }, 6 },
        { "pextrw eax,xmm2,0x0e (imm & 7)", "pextrw", { 0x66, 0x0f, 0xc5, 0xc2, 0x0e }, 5 },
        { "pinsrw xmm1,eax,0", "pinsrw", { 0x66, 0x0f, 0xc4, 0xc8, 0 }, 5 },
        { "pinsrw xmm1,eax,7", "pinsrw", { 0x66, 0x0f, 0xc4, 0xc8, 7 }, 5 },
        { "pinsrw xmm13,r8d,4", "pinsrw", { 0x66, 0x45, 0x0f, 0xc4, 0xe8, 4 }, 6 },
        { "pinsrw xmm1,eax,0xfb (imm & 7)", "pinsrw", { 0x66, 0x0f, 0xc4, 0xc8, 0xfb }, 5 },
        { "pinsrw xmm2,[rsi+3],2", "pinsrw", { 0x66, 0x0f, 0xc4, 0x56, 0x03, 2 }, 6 },
        /* MASKMOVDQU: bytes to [rdi] (aligned or not), [edi] with 0x67. */
        { "maskmovdqu xmm1,xmm2", "maskmovdqu", { 0x66, 0x0f, 0xf7, 0xca }, 4 },
        { "maskmovdqu xmm10,xmm3", "maskmovdqu", { 0x66, 0x44, 0x0f, 0xf7, 0xd3 }, 5 },
        { "maskmovdqu xmm4,xmm4", "maskmovdqu", { 0x66, 0x0f, 0xf7, 0xe4 }, 4 },
        { "maskmovdqu [edi] xmm1,xmm2", "maskmovdqu", { 0x67, 0x66, 0x0f, 0xf7, 0xca }, 5 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        bad |= run_fixed(&cases[i], 12, s);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* MOVQ2DQ / MOVDQ2Q switch the x87 unit to MMX mode: TOP 0, all tags
 * valid, the written MMX register's exponent all ones. */
START_TEST(mmx_transitions)
{
    static const struct fixed cases[] = {
        { "movq2dq xmm1,mm2", "movq2dq", { 0xf3, 0x0f, 0xd6, 0xca }, 4 },
        { "movq2dq xmm9,mm7", "movq2dq", { 0xf3, 0x44, 0x0f, 0xd6, 0xcf }, 5 },
        { "movdq2q mm3,xmm4", "movdq2q", { 0xf2, 0x0f, 0xd6, 0xdc }, 4 },
        { "movdq2q mm0,xmm12", "movdq2q", { 0xf2, 0x41, 0x0f, 0xd6, 0xc4 }, 5 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        expect_mnemonic(cases[i].b, cases[i].len, cases[i].mn);
        for (unsigned top = 0; top < 8; top += 3) {
            init_state(s);
            uint16_t fsw = (uint16_t)(top << 11);
            memcpy(s->fx + 2, &fsw, 2);
            s->fx[4] = (uint8_t)(0x5a >> top); /* some registers valid, some empty */
            for (int r = 0; r < 8; r++) {
                uint64_t m = rnd();
                uint16_t ex = (uint16_t)rnd();
                memcpy(hs_st(s, r), &m, 8);
                memcpy((uint8_t *)hs_st(s, r) + 8, &ex, 2);
            }
            bad |= harness_compare(cases[i].b, cases[i].len, s, ALL_FLAGS, cases[i].name);
            ncompared++;
        }
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Chains (cpu/ops_sse_int.c passes a value in a host register to the next
 * instruction when that one reads the register the one before wrote): a
 * MOVDQA or MOVDQU load, then the operation reading it as its destination
 * with a memory source, as its destination with a register source, as its
 * source, as both, then PMOVMSKB of the result, and the same links between
 * different operations as glibc's string loops have them; every operation
 * (members of the chains or not), values from the edge pairs. */
START_TEST(chains)
{
    const struct xop *o = &xops[_i];
    if (o->kind != PLAIN)
        return;
    struct hstate *s = malloc(sizeof(*s));
    build_pairs();
    int bad = 0;
    for (unsigned b = 0; b < 8; b++) {
        struct code k = { .n = 0 };
        init_state(s);
        unsigned xa = (b * 3) % 16, xb = (xa + 5) % 16, xc = (xa + 9) % 16, xd = (xa + 13) % 16;
        set_xmm(s, (int)xb, px[(b * 7 + 1) % npairs]);
        set_xmm(s, (int)xd, py[(b * 5 + 2) % npairs]);
        memcpy(s->data + (DATA_RSI - HARNESS_DATA), &px[b * 11 % npairs], 16);
        memcpy(s->data + (DATA_RSI - HARNESS_DATA) + 16, &py[b * 13 % npairs], 16);
        /* movdqa or movdqu xa, [rsi] */
        enc(&k, b & 1 ? 0xf3 : 0x66, false, 0x6f, xa, 0, 0, -1);
        enc(&k, o->pfx, false, o->opc, xa, 0, 16, -1);      /* D, memory source */
        enc(&k, o->pfx, false, o->opc, xa, xb, REG, -1);    /* D */
        enc(&k, o->pfx, false, o->opc, xc, xa, REG, -1);    /* S */
        enc(&k, o->pfx, false, o->opc, xc, xc, REG, -1);    /* DS */
        static const unsigned gprs[8] = { 0, 1, 2, 3, 5, 8, 12, 15 }; /* not rsp, rsi */
        enc(&k, 0x66, b & 2, 0xd7, gprs[b], xc, REG, -1); /* pmovmskb r, xc */
        /* strlen's and memcmp's shapes: load, pminub, pcmpeqb, pmovmskb;
         * pcmpeqb, pand, pand, pmovmskb */
        enc(&k, 0x66, false, 0x6f, xd, 0, 16, -1);
        enc(&k, 0x66, false, 0xda, xd, 0, 0, -1);
        enc(&k, o->pfx, false, o->opc, xd, xb, REG, -1);
        enc(&k, 0x66, false, 0x74, xd, xa, REG, -1);
        enc(&k, 0x66, false, 0xd7, 9, xd, REG, -1);
        enc(&k, o->pfx, false, o->opc, xb, 0, 0, -1);
        enc(&k, 0x66, false, 0xdb, xc, xb, REG, -1);
        enc(&k, 0x66, false, 0xdb, xc, xd, REG, -1);
        enc(&k, 0x66, false, 0xeb, xc, xa, REG, -1);
        enc(&k, 0x66, false, 0xd7, 11, xc, REG, -1);
        char what[64];
        snprintf(what, sizeof(what), "%s chains, set %u", o->name, b);
        bad |= harness_compare(k.b, k.n, s, ALL_FLAGS, what);
        ncompared++;
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* A fault inside a chain: MOVDQA xmm1,[rsi]; PMINUB xmm1,[rsi+8] (#GP: the
 * load done, xmm1 the loaded value), and the same with the PMINUB on an
 * unmapped address. */
START_TEST(chain_faults)
{
    static const struct fixed faulting[] = {
        { "movdqa xmm1,[rsi]; pminub xmm1,[rsi+8]", "movdqa",
          { 0x66, 0x0f, 0x6f, 0x0e, 0x66, 0x0f, 0xda, 0x4e, 0x08 }, 9 },
        { "movdqa xmm1,[rsi]; pcmpeqb xmm1,[rdi]", "movdqa",
          { 0x66, 0x0f, 0x6f, 0x0e, 0x66, 0x0f, 0x74, 0x0f }, 8 },
    };
    struct hstate *s = malloc(sizeof(*s)), *before = malloc(sizeof(*before));
    for (size_t i = 0; i < sizeof(faulting) / sizeof(faulting[0]); i++) {
        expect_mnemonic(faulting[i].b, faulting[i].len, faulting[i].mn);
        init_state(s);
        s->r[7] = HARNESS_DATA + HARNESS_DATA_SIZE + 0x100000; /* unmapped */
        memcpy(before, s, sizeof(*s));
        int sig = harness_emu(faulting[i].b, faulting[i].len, s);
        ck_assert_msg(sig == SIGSEGV, "%s: signal %d", faulting[i].name, sig);
        ck_assert_msg(memcmp(hs_xmm(s, 1), before->data + (DATA_RSI - HARNESS_DATA), 16) == 0,
                      "%s: xmm1 is not the loaded value", faulting[i].name);
        ck_assert_msg(memcmp(s->data, before->data, HARNESS_DATA_SIZE) == 0, "%s wrote memory",
                      faulting[i].name);
    }
    free(s);
    free(before);
}
END_TEST

/* Misaligned 16-byte operands of legacy SSE instructions raise #GP
 * (SIGSEGV), before anything is written; MOVDQU does not care.  Checked on
 * the emulator only (the host would kill the test). */
START_TEST(alignment_faults)
{
    static const struct fixed faulting[] = {
        { "movdqa xmm1,[rsi+8]", "movdqa", { 0x66, 0x0f, 0x6f, 0x4e, 0x08 }, 5 },
        { "movdqa [rsi+1],xmm1", "movdqa", { 0x66, 0x0f, 0x7f, 0x4e, 0x01 }, 5 },
        { "movntdq [rsi+4],xmm1", "movntdq", { 0x66, 0x0f, 0xe7, 0x4e, 0x04 }, 5 },
        { "paddb xmm1,[rsi+2]", "paddb", { 0x66, 0x0f, 0xfc, 0x4e, 0x02 }, 5 },
        { "pshufd xmm1,[rsi+12],0x1b", "pshufd", { 0x66, 0x0f, 0x70, 0x4e, 0x0c, 0x1b }, 6 },
        { "psllw xmm1,[rsi+8]", "psllw", { 0x66, 0x0f, 0xf1, 0x4e, 0x08 }, 5 },
    };
    struct hstate *s = malloc(sizeof(*s)), *before = malloc(sizeof(*before));
    for (size_t i = 0; i < sizeof(faulting) / sizeof(faulting[0]); i++) {
        expect_mnemonic(faulting[i].b, faulting[i].len, faulting[i].mn);
        init_state(s);
        memcpy(before, s, sizeof(*s));
        int sig = harness_emu(faulting[i].b, faulting[i].len, s);
        ck_assert_msg(sig == SIGSEGV, "%s: signal %d", faulting[i].name, sig);
        ck_assert_msg(memcmp(hs_xmm(s, 1), hs_xmm(before, 1), 16) == 0, "%s wrote xmm1",
                      faulting[i].name);
        ck_assert_msg(memcmp(s->data, before->data, HARNESS_DATA_SIZE) == 0, "%s wrote memory",
                      faulting[i].name);
    }
    free(s);
    free(before);
}
END_TEST

/* MASKMOVDQU stores nothing where the mask is clear, not even the old
 * value: a read-only page is fine then (emulator: the page is the code
 * page, which the harness maps read/execute), and faults precisely. */
START_TEST(maskmovdqu_zero_mask_and_faults)
{
    static const uint8_t code[] = { 0x66, 0x0f, 0xf7, 0xca }; /* maskmovdqu xmm1,xmm2 */
    struct hstate *s = malloc(sizeof(*s));
    init_state(s);
    set_xmm(s, 2, (v128){ { 0, 0 } });
    s->r[7] = 0x400000; /* the harness's code page in the emulator: read-only */
    ck_assert_int_eq(harness_emu(code, sizeof(code), s), 0);
    init_state(s);
    set_xmm(s, 2, (v128){ { 0, 0x8000000000000000ull } }); /* only byte 15 */
    s->r[7] = 0x400000;
    ck_assert_int_eq(harness_emu(code, sizeof(code), s), SIGSEGV);
    /* Straddling the end of the data area into unmapped space: the fault
     * comes before any byte is stored, even those on the mapped side. */
    struct hstate *before = malloc(sizeof(*before));
    init_state(s);
    set_xmm(s, 2, (v128){ { ~0ull, ~0ull } });
    s->r[7] = HARNESS_DATA + HARNESS_DATA_SIZE - 8;
    memcpy(before, s, sizeof(*s));
    ck_assert_int_eq(harness_emu(code, sizeof(code), s), SIGSEGV);
    ck_assert(memcmp(s->data, before->data, HARNESS_DATA_SIZE) == 0);
    free(before);
    free(s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sse_int");
    TCase *t = tcase_create("sse_int");
    tcase_add_loop_test(t, lane_operations, 0, NXOPS);
    tcase_add_test(t, shifts_by_immediate);
    tcase_add_test(t, moves);
    tcase_add_test(t, mmx_transitions);
    tcase_add_loop_test(t, chains, 0, NXOPS);
    tcase_add_test(t, alignment_faults);
    tcase_add_test(t, chain_faults);
    tcase_add_test(t, maskmovdqu_zero_mask_and_faults);
    suite_add_tcase(su, t);
    SRunner *r = srunner_create(su);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    printf("sse_int: %u compared runs\n", ncompared);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
