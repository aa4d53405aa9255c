/* The x87 family against the host CPU.
 *
 * Most cases are batched: each case is an x87 state image loaded with
 * FRSTOR (control word, status word with condition codes, TOP, tags,
 * registers), one instruction (its memory operand, if any, in a 16-byte
 * slot at [rdx + 16k]), then FNSAVE of the whole resulting state (which
 * also resets the FPU for the next case, and runs before any waiting
 * instruction, so unmasked exceptions can be tested natively).  FNSAVE's
 * FIP/FOP/FDP fields (not modelled) are zeroed by the test code.  About 45
 * cases run per harness run; every output slot and the final machine state
 * are compared with the host's.
 *
 * The rest: FXSAVE/FXRSTOR, XSAVE/XSAVEOPT/XSAVEC/XRSTOR, XGETBV, and the
 * delayed SIGFPE (which only the emulator can run: natively it would kill
 * the test). */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/unit/harness.h"

/* ------------------------------------------------------------ values */
struct f80 {
    uint64_t m;
    uint16_t e;
};
#define F(e, m) { m, e }

/* Edge values: zeros, normals, rounding boundaries, the extremes, denormals,
 * pseudo-denormals, infinities, NaNs, unsupported encodings, integer and
 * BCD range limits, float/double overflow and underflow ranges. */
static const struct f80 V[] = {
    F(0x0000, 0), F(0x8000, 0), F(0x3fff, 0x8000000000000000), F(0xbfff, 0xc000000000000000),
    F(0x4000, 0xc000000000000000), F(0x4000, 0xc90fdaa22168c235), F(0x3fff, 0x8000000000000001),
    F(0xbffd, 0xaaaaaaaaaaaaaaab), F(0x7ffe, 0xffffffffffffffff), F(0x0001, 0x8000000000000000),
    F(0x0000, 0x0000000000000001), F(0x8000, 0x7fffffffffffffff), F(0x0000, 0x8000000000000000),
    F(0x7fff, 0x8000000000000000), F(0xffff, 0x8000000000000000), F(0x7fff, 0xc000000000000001),
    F(0xffff, 0xe000000000000000), F(0x7fff, 0x8000000000000001), F(0xffff, 0xa000000000000000),
    F(0x3fff, 0x4000000000000000), F(0x7fff, 0x4000000000000001), F(0x7fff, 0x0000000000000000),
    F(0x403e, 0x8000000000000000), F(0xc01e, 0x8000000080000000), F(0x400d, 0xffff000000000000),
    F(0x3c00, 0x8000000000000001), F(0x407f, 0xc000000000000000), F(0x3f6a, 0xc000000000000000),
    F(0x4400, 0x8000000000000001), F(0x3ffe, 0x8000000000000001), F(0x4000, 0xa000000000000000),
    F(0xbffe, 0x8000000000000000), F(0x403a, 0xde0b6b3a76400000), F(0x403a, 0xde0b6b3a763ffff0),
};
#define NV (sizeof(V) / sizeof(V[0]))
/* A smaller set for the cross products with modes. */
static const unsigned VS[] = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 13, 15, 17, 19, 25, 26, 27 };
#define NVS (sizeof(VS) / sizeof(VS[0]))

/* Memory operands. */
static const uint32_t M32[] = { 0, 0x80000000, 0x3f800000, 0xbfc00000, 0x00000001, 0x807fffff,
                                0x00800000, 0x3eaaaaab, 0x7f7fffff, 0x7f800000, 0xff800000,
                                0x7fc00001, 0x7f800001, 0xff900000, 0x4b000001 };
static const uint64_t M64[] = { 0, 0x8000000000000000, 0x3ff0000000000000, 0xbff8000000000000,
                                0x0000000000000001, 0x800fffffffffffff, 0x0010000000000000,
                                0x3fd5555555555555, 0x7fefffffffffffff, 0x7ff0000000000000,
                                0xfff0000000000000, 0x7ff8000000000001, 0x7ff0000000000001,
                                0x43e0000000000000, 0x3ff0000000000001 };
static const uint32_t I32[] = { 0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x12345678, 3 };
static const uint16_t I16[] = { 0, 1, 0xffff, 0x7fff, 0x8000, 0x1234, 3 };

/* Control words: 3 precisions x 4 rounding modes, everything masked. */
static uint16_t cw_mode(unsigned pc, unsigned rc) { return (uint16_t)(0x7f | (pc << 8) | (rc << 10)); }
static const unsigned PCS[3] = { 0, 2, 3 };

/* ------------------------------------------------------------ instructions */
/* An instruction: its bytes; mreg >= 0 means a memory form whose ModRM
 * (reg = mreg, [rdx + disp32]) follows the bytes. */
struct xi {
    const char *name;
    uint8_t b[4];
    uint8_t n;
    int8_t mreg;
};
#define R2(name, b0, b1) { name, { b0, b1 }, 2, -1 }
#define M1(name, b0, reg) { name, { b0 }, 1, reg }

/* ------------------------------------------------------------ cases */
#define MEMSLOT 128
struct xcase {
    struct xi in;
    uint16_t cw, sw;   /* sw: flags and condition codes (TOP comes from top) */
    uint8_t top;
    uint8_t valid;     /* bit i: ST(i) is not empty */
    struct f80 st[8];  /* ST(0)..ST(7), empty ones included */
    uint8_t mem[MEMSLOT];
    int64_t rflags;    /* >= 0: set RFLAGS before and record them after */
    uint8_t post;      /* what to do after the instruction (POST_*) */
};
/* After the instruction: store AX into the memory slot at +120; zero the
 * FIP/FOP/FDP fields of an environment the instruction stored in it. */
enum { POST_NONE, POST_AX, POST_ENV32, POST_ENV16 };

#define MAXB 44
#define IMG 112   /* FRSTOR image slot */
#define OUT 128   /* output slot: FNSAVE image, then RFLAGS at +112 */
#define IN_BASE HARNESS_DATA
#define MEM_BASE (HARNESS_DATA + 0x1400)
#define OUT_BASE (HARNESS_DATA + 0x2c00)

struct batch {
    struct hstate *s;
    uint8_t code[4096];
    unsigned len, n;
    struct xcase k[MAXB];
    unsigned cases, runs, bad;
};

static void emit(struct batch *b, const void *p, unsigned n)
{
    memcpy(b->code + b->len, p, n);
    b->len += n;
}

static void emit_modrm_disp(struct batch *b, unsigned op, unsigned reg, unsigned rm, uint32_t disp)
{
    uint8_t x[6] = { (uint8_t)op, (uint8_t)(0x80 | reg << 3 | rm) };
    memcpy(x + 2, &disp, 4);
    emit(b, x, 6);
}

static void emit_mov_m32_0(struct batch *b, uint32_t disp)
{
    uint8_t x[10] = { 0xc7, 0x87 };
    memcpy(x + 2, &disp, 4);
    emit(b, x, 10);
}

static void image(const struct xcase *k, uint8_t *img)
{
    uint32_t env[7] = { 0xffff0000u | k->cw, 0xffff0000u | (k->sw & ~0x3800u) | (unsigned)k->top << 11,
                        0xffff0000u, 0, 0, 0, 0xffff0000u };
    unsigned tw = 0;
    for (unsigned i = 0; i < 8; i++)
        if (!(k->valid >> i & 1))
            tw |= 3u << (2 * ((k->top + i) & 7));
    env[2] |= tw;
    memcpy(img, env, 28);
    for (unsigned i = 0; i < 8; i++)
        memcpy(img + 28 + 10 * i, &k->st[i], 10);
}

static void describe(const struct xcase *k)
{
    fprintf(stderr, "    %s: cw=%04x sw=%04x top=%u valid=%02x", k->in.name, k->cw, k->sw, k->top, k->valid);
    for (unsigned i = 0; i < 8; i++)
        if (k->valid >> i & 1)
            fprintf(stderr, " st%u=%04x:%016llx", i, k->st[i].e, (unsigned long long)k->st[i].m);
    fprintf(stderr, " mem=");
    for (unsigned i = 0; i < 10; i++)
        fprintf(stderr, "%02x", k->mem[i]);
    if (k->rflags >= 0)
        fprintf(stderr, " rflags=%llx", (unsigned long long)k->rflags);
    fprintf(stderr, "\n");
}

static void dump_out(const char *who, const uint8_t *o)
{
    uint16_t cw, sw, tw;
    memcpy(&cw, o, 2);
    memcpy(&sw, o + 4, 2);
    memcpy(&tw, o + 8, 2);
    fprintf(stderr, "      %s: cw=%04x sw=%04x tw=%04x", who, cw, sw, tw);
    for (unsigned i = 0; i < 8; i++) {
        uint64_t m;
        uint16_t e;
        memcpy(&m, o + 28 + 10 * i, 8);
        memcpy(&e, o + 36 + 10 * i, 2);
        fprintf(stderr, " %04x:%016llx", e, (unsigned long long)m);
    }
    uint32_t fl;
    memcpy(&fl, o + 112, 4);
    fprintf(stderr, " fl=%x\n", fl);
}

static void flush(struct batch *b)
{
    if (!b->n)
        return;
    static struct hstate nat, emu;
    struct hstate *s = b->s;
    harness_init(s);
    s->r[6] = IN_BASE;
    s->r[2] = MEM_BASE;
    s->r[7] = OUT_BASE;
    for (unsigned k = 0; k < b->n; k++) {
        image(&b->k[k], s->data + (IN_BASE - HARNESS_DATA) + IMG * k);
        memcpy(s->data + (MEM_BASE - HARNESS_DATA) + MEMSLOT * k, b->k[k].mem, MEMSLOT);
    }
    memcpy(&nat, s, sizeof(nat));
    memcpy(&emu, s, sizeof(emu));
    harness_native(b->code, b->len, &nat);
    int sig = harness_emu(b->code, b->len, &emu);
    b->runs++;
    if (sig) {
        fprintf(stderr, "x87: the emulator raised signal %d in a batch\n", sig);
        for (unsigned k = 0; k < b->n; k++)
            describe(&b->k[k]);
        b->bad++;
    }
    for (unsigned k = 0; k < b->n; k++) {
        const uint8_t *on = nat.data + (OUT_BASE - HARNESS_DATA) + OUT * k;
        const uint8_t *oe = emu.data + (OUT_BASE - HARNESS_DATA) + OUT * k;
        const uint8_t *mn = nat.data + (MEM_BASE - HARNESS_DATA) + MEMSLOT * k;
        const uint8_t *me = emu.data + (MEM_BASE - HARNESS_DATA) + MEMSLOT * k;
        if (memcmp(on, oe, OUT) != 0 || memcmp(mn, me, MEMSLOT) != 0) {
            if (b->bad < 30) { /* enough to see the pattern */
                fprintf(stderr, "x87: case differs:\n");
                describe(&b->k[k]);
                dump_out("native", on);
                dump_out("elfemu", oe);
                if (memcmp(mn, me, MEMSLOT) != 0) {
                    unsigned first = 0;
                    while (mn[first] == me[first])
                        first++;
                    fprintf(stderr, "      mem native/elfemu from byte %u: ", first);
                    for (unsigned i = first; i < first + 16 && i < MEMSLOT; i++)
                        fprintf(stderr, "%02x", mn[i]);
                    fprintf(stderr, " / ");
                    for (unsigned i = first; i < first + 16 && i < MEMSLOT; i++)
                        fprintf(stderr, "%02x", me[i]);
                    fprintf(stderr, "\n");
                }
            }
            b->bad++;
        }
    }
    /* Everything else too (registers, flags, the final x87/SSE state). */
    memcpy(emu.fx + 6, nat.fx + 6, 18);
    memcpy(emu.fx + 28, nat.fx + 28, 4);
    memcpy(emu.fx + 416, nat.fx + 416, 96);
    if (memcmp(nat.r, emu.r, sizeof(nat.r)) || nat.rflags != emu.rflags ||
        memcmp(nat.fx, emu.fx, 512) || memcmp(nat.data, emu.data, HARNESS_DATA_SIZE)) {
        fprintf(stderr, "x87: batch state differs (rflags %llx/%llx)\n", (unsigned long long)nat.rflags,
                (unsigned long long)emu.rflags);
        b->bad++;
    }
    b->n = 0;
    b->len = 0;
}

static void add(struct batch *b, const struct xcase *k)
{
    if (b->n == MAXB || b->len > 4096 - 240)
        flush(b);
    unsigned i = b->n;
    b->k[i] = *k;
    uint32_t in = IMG * i, out = OUT * i;
    if (k->rflags >= 0) {
        uint8_t x[7] = { 0xb8 };
        uint32_t f = (uint32_t)k->rflags;
        memcpy(x + 1, &f, 4);
        x[5] = 0x50; /* push rax */
        x[6] = 0x9d; /* popfq */
        emit(b, x, 7);
    }
    emit_modrm_disp(b, 0xdd, 4, 6, in); /* frstor [rsi + in] */
    emit(b, k->in.b, k->in.n);
    if (k->in.mreg >= 0) {
        uint8_t x[5] = { (uint8_t)(0x80 | k->in.mreg << 3 | 2) };
        uint32_t d = MEMSLOT * i;
        memcpy(x + 1, &d, 4);
        emit(b, x, 5);
    }
    uint32_t mslot = MEMSLOT * i;
    if (k->post == POST_AX) {
        uint8_t x[7] = { 0x66, 0x89, 0x82 }; /* mov [rdx + mslot + 120], ax */
        uint32_t d = mslot + 120;
        memcpy(x + 3, &d, 4);
        emit(b, x, 7);
    } else if (k->post == POST_ENV32) {
        for (uint32_t off = 12; off < 24; off += 4) {
            uint8_t x[10] = { 0xc7, 0x82 }; /* mov dword [rdx + mslot + off], 0 */
            uint32_t d = mslot + off;
            memcpy(x + 2, &d, 4);
            emit(b, x, 10);
        }
        uint8_t x[9] = { 0x66, 0xc7, 0x82 };
        uint32_t d = mslot + 24;
        memcpy(x + 3, &d, 4);
        emit(b, x, 9);
    } else if (k->post == POST_ENV16) {
        for (uint32_t off = 6; off < 14; off += 4) {
            uint8_t x[10] = { 0xc7, 0x82 };
            uint32_t d = mslot + off;
            memcpy(x + 2, &d, 4);
            emit(b, x, 10);
        }
    }
    if (k->rflags >= 0) {
        uint8_t x[2] = { 0x9c, 0x58 }; /* pushfq; pop rax */
        emit(b, x, 2);
        emit_modrm_disp(b, 0x89, 0, 7, out + 112); /* mov [rdi + out + 112], eax */
    }
    emit_modrm_disp(b, 0xdd, 6, 7, out); /* fnsave [rdi + out] */
    emit_mov_m32_0(b, out + 12);
    emit_mov_m32_0(b, out + 16);
    emit_mov_m32_0(b, out + 20);
    uint8_t x[9] = { 0x66, 0xc7, 0x87 };
    uint32_t d = out + 24;
    memcpy(x + 3, &d, 4);
    emit(b, x, 9); /* mov word [rdi + out + 24], 0 */
    b->n++;
    b->cases++;
}

static struct batch *batch_new(void)
{
    struct batch *b = calloc(1, sizeof(*b));
    b->s = malloc(sizeof(*b->s));
    return b;
}

static int batch_end(struct batch *b, const char *what)
{
    flush(b);
    int bad = (int)b->bad;
    fprintf(stderr, "x87: %s: %u cases in %u runs, %u bad\n", what, b->cases, b->runs, b->bad);
    free(b->s);
    free(b);
    return bad;
}

/* A case with ST(0) = a, ST(1) = b valid (the others empty, holding
 * various values), under cw, with condition codes cc. */
static struct xcase two(const struct xi *in, const struct f80 *a, const struct f80 *bv, uint16_t cw, uint16_t cc)
{
    struct xcase k;
    memset(&k, 0, sizeof(k));
    k.in = *in;
    k.cw = cw;
    k.sw = cc;
    k.top = 6;
    k.valid = 3;
    k.st[0] = *a;
    k.st[1] = *bv;
    for (unsigned i = 2; i < 8; i++)
        k.st[i] = V[(i * 5) % NV];
    k.rflags = -1;
    return k;
}

/* ------------------------------------------------------------ arithmetic */
static const struct xi REGF[] = {
    R2("fadd st0,st1", 0xd8, 0xc1), R2("fmul st0,st1", 0xd8, 0xc9), R2("fcom st1", 0xd8, 0xd1),
    R2("fcomp st1", 0xd8, 0xd9), R2("fsub st0,st1", 0xd8, 0xe1), R2("fsubr st0,st1", 0xd8, 0xe9),
    R2("fdiv st0,st1", 0xd8, 0xf1), R2("fdivr st0,st1", 0xd8, 0xf9),
    R2("fadd st1,st0", 0xdc, 0xc1), R2("fmul st1,st0", 0xdc, 0xc9), R2("fcom2 st1", 0xdc, 0xd1),
    R2("fcomp3 st1", 0xdc, 0xd9), R2("fsubr st1,st0", 0xdc, 0xe1), R2("fsub st1,st0", 0xdc, 0xe9),
    R2("fdivr st1,st0", 0xdc, 0xf1), R2("fdiv st1,st0", 0xdc, 0xf9),
    R2("faddp st1", 0xde, 0xc1), R2("fmulp st1", 0xde, 0xc9), R2("fcomp5 st1", 0xde, 0xd1),
    R2("fcompp", 0xde, 0xd9), R2("fsubrp st1", 0xde, 0xe1), R2("fsubp st1", 0xde, 0xe9),
    R2("fdivrp st1", 0xde, 0xf1), R2("fdivp st1", 0xde, 0xf9),
    R2("fucompp", 0xda, 0xe9), R2("fucom st1", 0xdd, 0xe1), R2("fucomp st1", 0xdd, 0xe9),
};
#define NREGF (sizeof(REGF) / sizeof(REGF[0]))
static const struct xi REGI[] = {
    R2("fucomi st0,st1", 0xdb, 0xe9), R2("fcomi st0,st1", 0xdb, 0xf1),
    R2("fucomip st0,st1", 0xdf, 0xe9), R2("fcomip st0,st1", 0xdf, 0xf1),
};
static const struct xi MEMF[4][8] = {
    { M1("fadd m32", 0xd8, 0), M1("fmul m32", 0xd8, 1), M1("fcom m32", 0xd8, 2), M1("fcomp m32", 0xd8, 3),
      M1("fsub m32", 0xd8, 4), M1("fsubr m32", 0xd8, 5), M1("fdiv m32", 0xd8, 6), M1("fdivr m32", 0xd8, 7) },
    { M1("fadd m64", 0xdc, 0), M1("fmul m64", 0xdc, 1), M1("fcom m64", 0xdc, 2), M1("fcomp m64", 0xdc, 3),
      M1("fsub m64", 0xdc, 4), M1("fsubr m64", 0xdc, 5), M1("fdiv m64", 0xdc, 6), M1("fdivr m64", 0xdc, 7) },
    { M1("fiadd m32", 0xda, 0), M1("fimul m32", 0xda, 1), M1("ficom m32", 0xda, 2), M1("ficomp m32", 0xda, 3),
      M1("fisub m32", 0xda, 4), M1("fisubr m32", 0xda, 5), M1("fidiv m32", 0xda, 6), M1("fidivr m32", 0xda, 7) },
    { M1("fiadd m16", 0xde, 0), M1("fimul m16", 0xde, 1), M1("ficom m16", 0xde, 2), M1("ficomp m16", 0xde, 3),
      M1("fisub m16", 0xde, 4), M1("fisubr m16", 0xde, 5), M1("fidiv m16", 0xde, 6), M1("fidivr m16", 0xde, 7) },
};

/* Every register form on every pair of edge values, default control word,
 * condition codes preset to 0 or all ones. */
START_TEST(arith_reg)
{
    struct batch *b = batch_new();
    for (unsigned f = 0; f < NREGF; f++)
        for (unsigned i = 0; i < NV; i++)
            for (unsigned j = 0; j < NV; j++) {
                struct xcase k = two(&REGF[f], &V[i], &V[j], 0x37f, (i + j) & 1 ? 0x4700 : 0);
                add(b, &k);
            }
    for (unsigned f = 0; f < 4; f++)
        for (unsigned i = 0; i < NV; i++)
            for (unsigned j = 0; j < NV; j++) {
                struct xcase k = two(&REGI[f], &V[i], &V[j], 0x37f, (i + j) & 1 ? 0x4700 : 0);
                k.rflags = (i + j) & 2 ? 0x202 | 0x8d5 : 0x202;
                add(b, &k);
            }
    ck_assert_int_eq(batch_end(b, "arith_reg"), 0);
}
END_TEST

/* Other ST(i): ST(0) itself, ST(2), ST(7), on a full stack. */
START_TEST(arith_reg_other_i)
{
    struct batch *b = batch_new();
    static const unsigned is[] = { 0, 2, 7 };
    for (unsigned f = 0; f < NREGF + 4; f++) {
        const struct xi *in = f < NREGF ? &REGF[f] : &REGI[f - NREGF];
        if (in->b[1] == 0xd9 || (in->b[1] == 0xe9 && in->b[0] == 0xda))
            continue; /* FCOMPP, FUCOMPP: ST(1) only */
        for (unsigned x = 0; x < 3; x++)
            for (unsigned i = 0; i < NVS; i++)
                for (unsigned j = 0; j < NVS; j += 2) {
                    struct xcase k = two(in, &V[VS[i]], &V[VS[j]], 0x37f, 0);
                    k.in.b[1] = (uint8_t)((in->b[1] & ~7u) | is[x]);
                    k.valid = 0xff;
                    k.st[1] = V[VS[(i + j) % NVS]];
                    k.st[is[x]] = V[VS[j]];
                    if (f >= NREGF)
                        k.rflags = 0x202;
                    add(b, &k);
                }
    }
    ck_assert_int_eq(batch_end(b, "arith_reg_other_i"), 0);
}
END_TEST

static void mem_operand(struct xcase *k, unsigned type, unsigned j)
{
    switch (type) {
    case 0: memcpy(k->mem, &M32[j % (sizeof(M32) / 4)], 4); break;
    case 1: memcpy(k->mem, &M64[j % (sizeof(M64) / 8)], 8); break;
    case 2: memcpy(k->mem, &I32[j % (sizeof(I32) / 4)], 4); break;
    default: memcpy(k->mem, &I16[j % (sizeof(I16) / 2)], 2); break;
    }
}
static const unsigned NMEM[4] = { sizeof(M32) / 4, sizeof(M64) / 8, sizeof(I32) / 4, sizeof(I16) / 2 };

/* Memory operands: m32fp, m64fp, m32int, m16int, every operation. */
START_TEST(arith_mem)
{
    struct batch *b = batch_new();
    for (unsigned t = 0; t < 4; t++)
        for (unsigned f = 0; f < 8; f++)
            for (unsigned i = 0; i < NV; i++)
                for (unsigned j = 0; j < NMEM[t]; j++) {
                    struct xcase k = two(&MEMF[t][f], &V[i], &V[(i + 3) % NV], 0x37f, (i + j) & 1 ? 0x4700 : 0);
                    mem_operand(&k, t, j);
                    add(b, &k);
                }
    ck_assert_int_eq(batch_end(b, "arith_mem"), 0);
}
END_TEST

/* All 3 precisions x 4 rounding modes. */
START_TEST(arith_modes)
{
    struct batch *b = batch_new();
    static const unsigned forms[] = { 0, 1, 4, 5, 6, 7, 13, 16, 22 };
    for (unsigned pc = 0; pc < 3; pc++)
        for (unsigned rc = 0; rc < 4; rc++) {
            uint16_t cw = cw_mode(PCS[pc], rc);
            for (unsigned f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
                for (unsigned i = 0; i < NVS; i++)
                    for (unsigned j = 0; j < NVS; j++) {
                        struct xcase k = two(&REGF[forms[f]], &V[VS[i]], &V[VS[j]], cw, 0);
                        add(b, &k);
                    }
            for (unsigned t = 0; t < 4; t++)
                for (unsigned f = 0; f < 8; f += (t < 2 ? 1 : 3))
                    for (unsigned i = 0; i < NVS; i++)
                        for (unsigned j = 0; j < NMEM[t]; j++) {
                            struct xcase k = two(&MEMF[t][f], &V[VS[i]], &V[0], cw, 0);
                            mem_operand(&k, t, j);
                            add(b, &k);
                        }
        }
    ck_assert_int_eq(batch_end(b, "arith_modes"), 0);
}
END_TEST

/* Unmasked exceptions: the host's responses (no pop, destination kept,
 * scaled overflow/underflow results, C1) and ES/B. */
static const uint16_t UNMASKED[] = {
    0x0340, 0x037e, 0x037d, 0x037b, 0x0377, 0x036f, 0x035f, 0x0367, 0x0b40, 0x0040, 0x0f60,
};
#define NUNMASKED (sizeof(UNMASKED) / sizeof(UNMASKED[0]))

START_TEST(arith_unmasked)
{
    struct batch *b = batch_new();
    for (unsigned u = 0; u < NUNMASKED; u++) {
        for (unsigned f = 0; f < NREGF + 4; f++)
            for (unsigned i = 0; i < NVS; i++)
                for (unsigned j = 0; j < NVS; j++) {
                    struct xcase k = two(f < NREGF ? &REGF[f] : &REGI[f - NREGF], &V[VS[i]], &V[VS[j]],
                                         UNMASKED[u], (i + j) & 1 ? 0x4700 : 0);
                    if (f >= NREGF)
                        k.rflags = (i & 1) ? 0x202 | 0x8d5 : 0x202;
                    add(b, &k);
                }
        for (unsigned t = 0; t < 4; t++)
            for (unsigned f = 0; f < 8; f++)
                for (unsigned i = 0; i < NVS; i++)
                    for (unsigned j = 0; j < NMEM[t]; j += 2) {
                        struct xcase k = two(&MEMF[t][f], &V[VS[i]], &V[0], UNMASKED[u], 0);
                        mem_operand(&k, t, j);
                        add(b, &k);
                    }
    }
    ck_assert_int_eq(batch_end(b, "arith_unmasked"), 0);
}
END_TEST

/* ------------------------------------------------------------ D9 E0..FF */
static const struct xi UNARY[] = {
    R2("fchs", 0xd9, 0xe0), R2("fabs", 0xd9, 0xe1), R2("ftst", 0xd9, 0xe4), R2("fxam", 0xd9, 0xe5),
    R2("f2xm1", 0xd9, 0xf0), R2("fyl2x", 0xd9, 0xf1), R2("fptan", 0xd9, 0xf2), R2("fpatan", 0xd9, 0xf3),
    R2("fxtract", 0xd9, 0xf4), R2("fprem1", 0xd9, 0xf5), R2("fprem", 0xd9, 0xf8), R2("fyl2xp1", 0xd9, 0xf9),
    R2("fsqrt", 0xd9, 0xfa), R2("fsincos", 0xd9, 0xfb), R2("frndint", 0xd9, 0xfc), R2("fscale", 0xd9, 0xfd),
    R2("fsin", 0xd9, 0xfe), R2("fcos", 0xd9, 0xff),
};
#define NUNARY (sizeof(UNARY) / sizeof(UNARY[0]))

/* More operands for the transcendentals: small, mid-range, near the
 * argument limits (2^63 for FSIN & co.), partial-remainder territory. */
static const struct f80 TV[] = {
    F(0x3ffd, 0x8000000000000000), F(0xbffe, 0xc000000000000000), F(0x3fe0, 0x8000000000000001),
    F(0x4005, 0xc800000000000000), F(0x4020, 0x9502f90000000000), F(0x403d, 0xffffffffffffffff),
    F(0x403e, 0x8000000000000000), F(0xc03e, 0x8000000000000001), F(0x4010, 0xc90fdaa22168c235),
    F(0x3fff, 0xc90fdaa22168c235), F(0x4000, 0xc90fdaa22168c235), F(0xbfee, 0x8000000000000000),
    F(0x4050, 0xabcdef0123456789), F(0x7ff0, 0x8000000000000000), F(0x3f00, 0x8000000000000000),
    F(0x400c, 0x8000000000000000), F(0xc00c, 0x8000000000000000), F(0x3ffe, 0xb504f333f9de6484),
};
#define NTV (sizeof(TV) / sizeof(TV[0]))

START_TEST(unary)
{
    struct batch *b = batch_new();
    for (unsigned f = 0; f < NUNARY; f++)
        for (unsigned i = 0; i < NV + NTV; i++) {
            const struct f80 *a = i < NV ? &V[i] : &TV[i - NV];
            for (unsigned j = 0; j < NV + NTV; j += (f == 5 || f == 7 || f == 9 || f == 10 || f == 11 || f == 15) ? 1 : 9) {
                const struct f80 *bv = j < NV ? &V[j] : &TV[j - NV];
                struct xcase k = two(&UNARY[f], a, bv, 0x37f, (i + j) & 1 ? 0x4700 : 0);
                add(b, &k);
            }
        }
    /* Modes and unmasked exceptions on a subset. */
    for (unsigned f = 0; f < NUNARY; f++)
        for (unsigned m = 0; m < 12 + NUNMASKED; m++) {
            uint16_t cw = m < 12 ? cw_mode(PCS[m / 4], m % 4) : UNMASKED[m - 12];
            for (unsigned i = 0; i < NVS; i++)
                for (unsigned j = 0; j < NTV; j += 5) {
                    struct xcase k = two(&UNARY[f], &V[VS[i]], &TV[j], cw, 0);
                    add(b, &k);
                    k = two(&UNARY[f], &TV[(i + j) % NTV], &V[VS[i]], cw, 0x4700);
                    add(b, &k);
                }
        }
    ck_assert_int_eq(batch_end(b, "unary"), 0);
}
END_TEST

/* FPREM/FPREM1: partial remainders (C2 = 1) need a large exponent gap. */
START_TEST(fprem_partial)
{
    struct batch *b = batch_new();
    for (unsigned f = 9; f <= 10; f++)
        for (unsigned e = 0; e < 200; e += 3) {
            struct f80 a = { 0xc90fdaa22168c235ull ^ (e * 0x9e3779b97f4a7c15ull), (uint16_t)(0x3fff + e) };
            a.m |= 1ull << 63;
            struct f80 d = { 0xb504f333f9de6484ull, 0x3fff };
            struct xcase k = two(&UNARY[f], &a, &d, 0x37f, 0);
            add(b, &k);
            d.e = (uint16_t)(0x3fff - (e & 7));
            k = two(&UNARY[f], &a, &d, cw_mode(0, e & 3), 0x4700);
            add(b, &k);
        }
    ck_assert_int_eq(batch_end(b, "fprem_partial"), 0);
}
END_TEST

/* ------------------------------------------------------------ loads, stores */
static const struct xi LOADS[] = {
    M1("fld m32", 0xd9, 0), M1("fld m64", 0xdd, 0), M1("fld m80", 0xdb, 5), M1("fild m16", 0xdf, 0),
    M1("fild m32", 0xdb, 0), M1("fild m64", 0xdf, 5), M1("fbld", 0xdf, 4),
};
static const struct xi CONSTS[] = {
    R2("fld1", 0xd9, 0xe8), R2("fldl2t", 0xd9, 0xe9), R2("fldl2e", 0xd9, 0xea), R2("fldpi", 0xd9, 0xeb),
    R2("fldlg2", 0xd9, 0xec), R2("fldln2", 0xd9, 0xed), R2("fldz", 0xd9, 0xee),
};
static const struct xi STORES[] = {
    M1("fst m32", 0xd9, 2), M1("fstp m32", 0xd9, 3), M1("fst m64", 0xdd, 2), M1("fstp m64", 0xdd, 3),
    M1("fstp m80", 0xdb, 7), M1("fist m16", 0xdf, 2), M1("fistp m16", 0xdf, 3), M1("fist m32", 0xdb, 2),
    M1("fistp m32", 0xdb, 3), M1("fistp m64", 0xdf, 7), M1("fisttp m16", 0xdf, 1),
    M1("fisttp m32", 0xdb, 1), M1("fisttp m64", 0xdd, 1), M1("fbstp", 0xdf, 6),
};
#define NSTORES (sizeof(STORES) / sizeof(STORES[0]))

/* Packed BCD operands: valid, negative, the largest, invalid digits, odd
 * sign bytes. */
static const uint8_t BCD[][10] = {
    { 0 }, { 0x01 }, { 0x89, 0x67, 0x45, 0x23, 0x01, 0, 0, 0, 0, 0x80 },
    { 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0 },
    { 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x80 },
    { 0xab, 0xcd, 0xef, 0, 0, 0, 0, 0, 0, 0 }, { 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f },
    { 0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0xff }, { 0x50, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x81 },
};
static const uint64_t I64[] = { 0, 1, 0xffffffffffffffffull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                0x123456789abcdef0ull, 0x0020000000000001ull };

static void load_operand(struct xcase *k, unsigned form, unsigned j)
{
    switch (form) {
    case 0: memcpy(k->mem, &M32[j % (sizeof(M32) / 4)], 4); break;
    case 1: memcpy(k->mem, &M64[j % (sizeof(M64) / 8)], 8); break;
    case 2: memcpy(k->mem, &V[j % NV], 10); break;
    case 3: memcpy(k->mem, &I16[j % (sizeof(I16) / 2)], 2); break;
    case 4: memcpy(k->mem, &I32[j % (sizeof(I32) / 4)], 4); break;
    case 5: memcpy(k->mem, &I64[j % (sizeof(I64) / 8)], 8); break;
    default: memcpy(k->mem, BCD[j % (sizeof(BCD) / 10)], 10); break;
    }
}
static const unsigned NLOADV[7] = { sizeof(M32) / 4, sizeof(M64) / 8, NV, sizeof(I16) / 2,
                                    sizeof(I32) / 4, sizeof(I64) / 8, sizeof(BCD) / 10 };

/* Masked, IE unmasked, DE unmasked, all unmasked. */
static const uint16_t FAULT_CWS[] = { 0x37f, 0x37e, 0x37d, 0x340 };

START_TEST(loads)
{
    struct batch *b = batch_new();
    for (unsigned f = 0; f < 7; f++)
        for (unsigned j = 0; j < NLOADV[f]; j++)
            for (unsigned c = 0; c < 4; c++)
                for (unsigned full = 0; full < 2; full++) {
                    struct xcase k = two(&LOADS[f], &V[j % NV], &V[2], FAULT_CWS[c], (j & 1) ? 0x4700 : 0);
                    load_operand(&k, f, j);
                    if (full)
                        k.valid = 0xff;
                    add(b, &k);
                }
    /* Loads are exact whatever the precision and rounding control. */
    for (unsigned f = 0; f < 7; f++)
        for (unsigned m = 0; m < 12; m++)
            for (unsigned j = 0; j < NLOADV[f]; j++) {
                struct xcase k = two(&LOADS[f], &V[j % NV], &V[2], cw_mode(PCS[m / 4], m % 4), 0);
                load_operand(&k, f, j);
                add(b, &k);
            }
    /* The constants depend on the rounding mode (not on the precision). */
    for (unsigned f = 0; f < 7; f++)
        for (unsigned m = 0; m < 12 + NUNMASKED; m++)
            for (unsigned full = 0; full < 2; full++) {
                uint16_t cw = m < 12 ? cw_mode(PCS[m / 4], m % 4) : UNMASKED[m - 12];
                struct xcase k = two(&CONSTS[f], &V[m % NV], &V[2], cw, (m & 1) ? 0x4700 : 0);
                if (full)
                    k.valid = 0xff;
                add(b, &k);
            }
    ck_assert_int_eq(batch_end(b, "loads"), 0);
}
END_TEST

START_TEST(stores)
{
    struct batch *b = batch_new();
    static const struct f80 big[] = {
        F(0x401d, 0xfffffffe00000000), F(0x401e, 0x8000000000000000), F(0xc01e, 0x8000000000000000),
        F(0xc01e, 0x8000000100000000), F(0x400e, 0xfffe000000000000), F(0xc00e, 0x8000000000000000),
        F(0xc00e, 0x8001000000000000), F(0x403d, 0xfffffffffffffffe), F(0xc03e, 0x8000000000000000),
        F(0x403a, 0xde0b6b3a76400000), F(0xc03a, 0xde0b6b3a763fffff), F(0x3ffe, 0xc000000000000000),
        F(0xbffe, 0xc000000000000000), F(0x4000, 0xe000000000000000), F(0x400d, 0xfffe000000000000),
        F(0x3f80, 0x8000000000000000), F(0x3c01, 0x8000000000000000), F(0x3bcc, 0xffffffffffffffff),
        F(0x43fe, 0xfffffffffffff800), F(0x43fe, 0xfffffffffffffc00), F(0x407e, 0xffffff7fffffffff),
        F(0x3f81, 0x8000000000000000), F(0x3f80, 0xfffffeffffffffff),
    };
    const unsigned nbig = sizeof(big) / sizeof(big[0]);
    for (unsigned f = 0; f < NSTORES; f++)
        for (unsigned m = 0; m < 12 + NUNMASKED; m++) {
            uint16_t cw = m < 12 ? cw_mode(PCS[m / 4], m % 4) : UNMASKED[m - 12];
            unsigned step = m == 3 ? 1 : 3;
            for (unsigned i = m % step; i < NV + nbig + NTV; i += step) {
                const struct f80 *a = i < NV ? &V[i] : i < NV + nbig ? &big[i - NV] : &TV[i - NV - nbig];
                struct xcase k = two(&STORES[f], a, &V[2], cw, (i & 1) ? 0x4700 : 0);
                memset(k.mem, 0xaa, MEMSLOT);
                add(b, &k);
            }
        }
    ck_assert_int_eq(batch_end(b, "stores"), 0);
}
END_TEST

/* ------------------------------------------------------------ register moves */
static const struct xi MOVES[] = {
    R2("fld st1", 0xd9, 0xc1), R2("fxch st1", 0xd9, 0xc9), R2("fstp1 st1", 0xd9, 0xd9),
    R2("ffree st1", 0xdd, 0xc1), R2("fxch4 st1", 0xdd, 0xc9), R2("fst st1", 0xdd, 0xd1),
    R2("fstp st1", 0xdd, 0xd9), R2("ffreep st1", 0xdf, 0xc1), R2("fxch7 st1", 0xdf, 0xc9),
    R2("fstp8 st1", 0xdf, 0xd1), R2("fstp9 st1", 0xdf, 0xd9),
    R2("fincstp", 0xd9, 0xf7), R2("fdecstp", 0xd9, 0xf6), R2("fnop", 0xd9, 0xd0),
    R2("fnclex", 0xdb, 0xe2), R2("fninit", 0xdb, 0xe3), R2("fneni", 0xdb, 0xe0), R2("fndisi", 0xdb, 0xe1),
    R2("fnsetpm", 0xdb, 0xe4), { "fwait", { 0x9b }, 1, -1 },
};
#define NMOVES (sizeof(MOVES) / sizeof(MOVES[0]))
static const struct xi FCMOV[] = {
    R2("fcmovb", 0xda, 0xc1), R2("fcmove", 0xda, 0xc9), R2("fcmovbe", 0xda, 0xd1), R2("fcmovu", 0xda, 0xd9),
    R2("fcmovnb", 0xdb, 0xc1), R2("fcmovne", 0xdb, 0xc9), R2("fcmovnbe", 0xdb, 0xd1), R2("fcmovnu", 0xdb, 0xd9),
};

START_TEST(moves)
{
    struct batch *b = batch_new();
    static const unsigned is[] = { 0, 1, 3, 7 };
    for (unsigned f = 0; f < NMOVES; f++)
        for (unsigned x = 0; x < 4; x++)
            for (unsigned i = 0; i < NV; i += 3) {
                struct xcase k = two(&MOVES[f], &V[i], &V[(i + 7) % NV], 0x37f, (i & 1) ? 0x4700 : 0);
                if (MOVES[f].n == 2 && (MOVES[f].b[1] & 0xf0) != 0xe0 && MOVES[f].b[1] < 0xf0 &&
                    MOVES[f].b[1] != 0xd0)
                    k.in.b[1] = (uint8_t)((k.in.b[1] & ~7u) | is[x]);
                k.valid = (uint8_t)(0x0f | (i & 0xf0));
                k.st[is[x]] = V[(i + 11) % NV];
                k.sw |= (i & 2) ? 0x0021 : 0; /* masked flags for FNCLEX */
                add(b, &k);
            }
    /* FCMOVcc under every flag combination that matters. */
    static const uint64_t fl[] = { 0x202, 0x203, 0x242, 0x206, 0x247, 0x2c3, 0xa02 };
    for (unsigned f = 0; f < 8; f++)
        for (unsigned x = 0; x < 4; x++)
            for (unsigned j = 0; j < sizeof(fl) / sizeof(fl[0]); j++) {
                struct xcase k = two(&FCMOV[f], &V[j + 2], &V[j + 9], 0x37f, 0);
                k.in.b[1] = (uint8_t)((k.in.b[1] & ~7u) | is[x]);
                k.valid = 0xff;
                k.st[is[x]] = V[(j * 3 + 13) % NV];
                k.rflags = (int64_t)fl[j];
                add(b, &k);
            }
    ck_assert_int_eq(batch_end(b, "moves"), 0);
}
END_TEST

/* ------------------------------------------------------------ stack faults */
/* Every instruction on an empty stack, a full one, and half-empty operand
 * pairs; IE masked and unmasked (SDM vol. 1, 8.5.1.1). */
START_TEST(stack_faults)
{
    struct batch *b = batch_new();
    static const uint8_t valids[] = { 0x00, 0xff, 0x01, 0x02, 0xfe, 0x7f, 0x80 };
    for (unsigned g = 0; g < 9; g++) {
        const struct xi *list;
        unsigned n;
        switch (g) {
        case 0: list = REGF, n = NREGF; break;
        case 1: list = REGI, n = 4; break;
        case 2: list = &MEMF[0][0], n = 32; break;
        case 3: list = UNARY, n = NUNARY; break;
        case 4: list = LOADS, n = 7; break;
        case 5: list = CONSTS, n = 7; break;
        case 6: list = STORES, n = NSTORES; break;
        case 7: list = MOVES, n = NMOVES; break;
        default: list = FCMOV, n = 8; break;
        }
        for (unsigned f = 0; f < n; f++)
            for (unsigned v = 0; v < sizeof(valids); v++)
                for (unsigned c = 0; c < 3; c++)
                    for (unsigned cc = 0; cc < 2; cc++) {
                        struct xcase k = two(&list[f], &V[(f + v) % NV], &V[(f + 2 * v + 5) % NV],
                                             FAULT_CWS[c == 2 ? 3 : c], cc ? 0x4700 : 0);
                        k.valid = valids[v];
                        k.top = (uint8_t)((f + v) & 7);
                        memset(k.mem, 0x5a, MEMSLOT);
                        if (g == 1 || g == 8)
                            k.rflags = cc ? 0x202 | 0x8d5 : 0x202;
                        add(b, &k);
                    }
    }
    ck_assert_int_eq(batch_end(b, "stack_faults"), 0);
}
END_TEST

/* ------------------------------------------------------------ control */
START_TEST(control)
{
    struct batch *b = batch_new();
    static const uint16_t cws[] = { 0xffff, 0x0000, 0x1f7f, 0xe0c0, 0x037e, 0x0c7f, 0x027f, 0x1040 };
    static const struct xi fldcw = M1("fldcw", 0xd9, 5), fnstcw = M1("fnstcw", 0xd9, 7),
                           fnstsw = M1("fnstsw m16", 0xdd, 7), fnstsw_ax = R2("fnstsw ax", 0xdf, 0xe0);
    for (unsigned i = 0; i < sizeof(cws) / sizeof(cws[0]); i++)
        for (unsigned sw = 0; sw < 4; sw++) {
            /* Flags that FLDCW may unmask: ES and B must follow. */
            struct xcase k = two(&fldcw, &V[i], &V[i + 1], 0x37f, (uint16_t)(sw * 0x1d11 & 0x477f));
            memcpy(k.mem, &cws[i], 2);
            add(b, &k);
            k = two(&fnstcw, &V[i], &V[i + 1], cws[i] | 0x3f, (uint16_t)(sw * 0x1d11 & 0x477f));
            add(b, &k);
            k = two(&fnstsw, &V[i], &V[i + 1], 0x37f - sw, (uint16_t)(sw * 0x1d11 & 0x477f));
            k.valid = (uint8_t)(1u << i);
            k.top = (uint8_t)i;
            add(b, &k);
            k = two(&fnstsw_ax, &V[i], &V[i + 1], 0x37f - sw, (uint16_t)(sw * 0x1d11 & 0x477f));
            k.post = POST_AX;
            add(b, &k);
        }
    /* The non-waiting instructions with exceptions pending (flags set that
     * the control word unmasks, so ES and B are set). */
    static const struct xi nowait[] = {
        R2("fnclex", 0xdb, 0xe2), R2("fninit", 0xdb, 0xe3), M1("fnstenv", 0xd9, 6), M1("fnsave", 0xdd, 6),
        M1("fnstcw", 0xd9, 7), M1("fnstsw m16", 0xdd, 7), R2("fnstsw ax", 0xdf, 0xe0), R2("fneni", 0xdb, 0xe0),
    };
    for (unsigned f = 0; f < sizeof(nowait) / sizeof(nowait[0]); f++)
        for (unsigned e = 0; e < 6; e++) {
            struct xcase k = two(&nowait[f], &V[e], &V[e + 4], (uint16_t)(0x37f & ~(1u << e)),
                                 (uint16_t)(0x4700 | 0x80 | 0x8000 | (1u << e) | (e == 0 ? 0x40 : 0x20)));
            k.post = f == 2 || f == 3 ? POST_ENV32 : f == 6 ? POST_AX : POST_NONE;
            add(b, &k);
        }
    ck_assert_int_eq(batch_end(b, "control"), 0);
}
END_TEST

/* FNSTENV/FLDENV/FNSAVE/FRSTOR, 32- and 16-bit formats; the full tag word
 * for every kind of register contents. */
START_TEST(environment)
{
    struct batch *b = batch_new();
    static const struct xi ins[] = {
        M1("fnstenv", 0xd9, 6), M1("fldenv", 0xd9, 4), M1("fnsave", 0xdd, 6), M1("frstor", 0xdd, 4),
        { "fnstenv16", { 0x66, 0xd9 }, 2, 6 }, { "fldenv16", { 0x66, 0xd9 }, 2, 4 },
        { "fnsave16", { 0x66, 0xdd }, 2, 6 }, { "frstor16", { 0x66, 0xdd }, 2, 4 },
        { "rex.w fnstenv", { 0x48, 0xd9 }, 2, 6 }, { "rex.w frstor", { 0x48, 0xdd }, 2, 4 },
    };
    for (unsigned f = 0; f < 10; f++)
        for (unsigned i = 0; i < NV; i++) {
            struct xcase k = two(&ins[f], &V[i], &V[(i + 9) % NV], (i & 1) ? 0x37f : 0x0c62,
                                 (uint16_t)((i * 0x1d01) & 0x4700));
            k.valid = (uint8_t)(0x3 | (i * 37));
            k.top = (uint8_t)(i & 7);
            for (unsigned j = 2; j < 8; j++)
                k.st[j] = V[(i + j * 3) % NV];
            bool o16 = f >= 4 && f < 8;
            if (ins[f].mreg == 6) {
                k.post = o16 ? POST_ENV16 : POST_ENV32;
            } else {
                /* An image to load: control, status, tags, pointers, registers. */
                struct xcase src = k;
                src.cw = (uint16_t)(0x1f3f & (i * 0x2b3));
                src.cw |= (i & 3) ? 0x3f : 0x3c; /* some with IE/DE pending */
                src.sw = (uint16_t)((i * 0x3c11) & 0x477f);
                src.top = (uint8_t)((i * 3) & 7);
                src.valid = (uint8_t)(i * 91);
                for (unsigned j = 0; j < 8; j++)
                    src.st[j] = V[(i * 5 + j) % NV];
                uint8_t img[112];
                image(&src, img);
                if (o16) {
                    uint16_t w[7] = { (uint16_t)img[0] | img[1] << 8, (uint16_t)(img[4] | img[5] << 8),
                                      (uint16_t)(img[8] | img[9] << 8), 0x1234, 0x33, 0x5678, 0x2b };
                    memcpy(k.mem, w, 14);
                    memcpy(k.mem + 14, img + 28, 80);
                } else {
                    memcpy(k.mem, img, 108);
                    uint32_t ptr[4] = { 0x401000, 0x01d90033, 0x402000, 0xffff002b };
                    memcpy(k.mem + 12, ptr, 16);
                }
                if (ins[f].b[0] == 0xd9 || ins[f].b[1] == 0xd9)
                    memset(k.mem + (o16 ? 14 : 28), 0xee, 80); /* FLDENV reads no registers */
            }
            add(b, &k);
        }
    ck_assert_int_eq(batch_end(b, "environment"), 0);
}
END_TEST

/* ------------------------------------------------------------ FXSAVE, XSAVE */
#define AREA (HARNESS_DATA + 0x1000) /* 64-byte aligned save area */

/* x87/SSE states to save: initial; initial but a register holds data;
 * a live stack with a pending-free status; only FCW changed.  And XMM:
 * all zero with MXCSR 1F80H or not, XMM5 or XMM15 in use. */
static void set_state(struct hstate *s, unsigned x87, unsigned sse)
{
    harness_init(s);
    uint16_t fcw = 0x37f, fsw = 0;
    uint8_t ftw = 0;
    switch (x87) {
    case 1: memcpy(hs_st(s, 3), &V[5], 10); break;
    case 2:
        fcw = 0x0e73, fsw = 0x4d21, ftw = 0xb3;
        for (int i = 0; i < 8; i++)
            memcpy(hs_st(s, i), &V[(i * 7 + 3) % NV], 10);
        break;
    case 3: fcw = 0x027f; break;
    default: break;
    }
    memcpy(s->fx, &fcw, 2);
    memcpy(s->fx + 2, &fsw, 2);
    s->fx[4] = ftw;
    uint32_t mxcsr = 0x1f80;
    switch (sse) {
    case 1: mxcsr = 0x7fc0; break;
    case 2: memset(hs_xmm(s, 5), 0x5c, 16); break;
    case 3: memset(hs_xmm(s, 15), 0xa3, 8); mxcsr = 0x1f81; break;
    default: break;
    }
    memcpy(hs_mxcsr(s), &mxcsr, 4);
}

/* Code: mov eax, rfbm; mov edx, hi; <insn [rdi]>; then zero what is not
 * modelled in the image (FOP/FIP/FDP: bytes 6-23; MXCSR_MASK: 28-31). */
static unsigned save_code(uint8_t *code, const uint8_t *insn, unsigned n, uint32_t rfbm, uint32_t hi)
{
    unsigned len = 0;
    code[len++] = 0xb8;
    memcpy(code + len, &rfbm, 4), len += 4;
    code[len++] = 0xba;
    memcpy(code + len, &hi, 4), len += 4;
    memcpy(code + len, insn, n), len += n;
    static const uint8_t fix[] = {
        0x66, 0xc7, 0x47, 0x06, 0, 0,                   /* mov word [rdi+6], 0 */
        0x48, 0xc7, 0x47, 0x08, 0, 0, 0, 0,             /* mov qword [rdi+8], 0 */
        0x48, 0xc7, 0x47, 0x10, 0, 0, 0, 0,             /* mov qword [rdi+16], 0 */
        0xc7, 0x47, 0x1c, 0, 0, 0, 0,                   /* mov dword [rdi+28], 0 */
    };
    memcpy(code + len, fix, sizeof(fix)), len += sizeof(fix);
    return len;
}

static const struct { const char *name; uint8_t b[5]; unsigned n; } SAVES[] = {
    { "fxsave", { 0x0f, 0xae, 0x07 }, 3 }, { "fxsave64", { 0x48, 0x0f, 0xae, 0x07 }, 4 },
    { "xsave", { 0x0f, 0xae, 0x27 }, 3 }, { "xsave64", { 0x48, 0x0f, 0xae, 0x27 }, 4 },
    { "xsaveopt", { 0x0f, 0xae, 0x37 }, 3 }, { "xsaveopt64", { 0x48, 0x0f, 0xae, 0x37 }, 4 },
    { "xsavec", { 0x0f, 0xc7, 0x27 }, 3 }, { "xsavec64", { 0x48, 0x0f, 0xc7, 0x27 }, 4 },
};

START_TEST(xsave_images)
{
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0, n = 0;
    for (unsigned k = 0; k < sizeof(SAVES) / sizeof(SAVES[0]); k++)
        for (unsigned x87 = 0; x87 < 4; x87++)
            for (unsigned sse = 0; sse < 4; sse++)
                for (uint32_t rfbm = 0; rfbm < 4; rfbm++) {
                    uint8_t code[128];
                    unsigned len = save_code(code, SAVES[k].b, SAVES[k].n, rfbm, rfbm & 1 ? 0xffffffff : 0);
                    set_state(s, x87, sse);
                    s->r[7] = AREA;
                    memset(s->data + (AREA - HARNESS_DATA), 0xaa, 1024);
                    char what[96];
                    snprintf(what, sizeof(what), "%s x87 state %u, SSE state %u, rfbm %u", SAVES[k].name,
                             x87, sse, rfbm);
                    bad |= harness_compare(code, len, s, 0x8d5, what);
                    n++;
                }
    fprintf(stderr, "x87: xsave_images: %d cases\n", n);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* XRSTOR (standard and compacted forms, every XSTATE_BV and RFBM) and
 * FXRSTOR from images with live contents -- pending exception flags
 * included, which set ES and B -- then a round trip through XSAVE. */
START_TEST(xrstor_images)
{
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0, n = 0;
    static const struct { const char *name; uint8_t b[5]; unsigned n; } loads[] = {
        { "fxrstor", { 0x0f, 0xae, 0x0f }, 3 }, { "fxrstor64", { 0x48, 0x0f, 0xae, 0x0f }, 4 },
        { "xrstor", { 0x0f, 0xae, 0x2f }, 3 }, { "xrstor64", { 0x48, 0x0f, 0xae, 0x2f }, 4 },
    };
    for (unsigned k = 0; k < 4; k++)
        for (unsigned img = 0; img < 4; img++)
            for (unsigned form = 0; form < (k >= 2 ? 2u : 1u); form++)
                for (uint32_t bv = 0; bv < (k >= 2 ? 4u : 1u); bv++)
                    for (uint32_t rfbm = 0; rfbm < (k >= 2 ? 4u : 1u); rfbm++) {
                        /* Start from state 2 (live) and load an image of another. */
                        struct hstate *src = malloc(sizeof(*src));
                        set_state(src, img == 0 ? 1 : img, img);
                        if (img == 3) {
                            /* Exception flags the image's FCW unmasks: ES and B. */
                            uint16_t fsw = 0x0035, fcw = 0x0370;
                            memcpy(src->fx, &fcw, 2);
                            memcpy(src->fx + 2, &fsw, 2);
                        }
                        set_state(s, 2, 2);
                        uint8_t *area = s->data + (AREA - HARNESS_DATA);
                        memset(area, 0, 1024);
                        memcpy(area, src->fx, 512);
                        memset(area + 416, 0x77, 96);
                        if (img == 2)
                            memset(area + 6, 0, 18);
                        uint64_t hdr[2] = { bv, form ? (1ull << 63) | 3 : 0 };
                        memcpy(area + 512, hdr, 16);
                        free(src);
                        uint8_t code[64];
                        unsigned len = 0;
                        code[len++] = 0xb8;
                        memcpy(code + len, &rfbm, 4), len += 4;
                        code[len++] = 0x31, code[len++] = 0xd2; /* xor edx, edx */
                        memcpy(code + len, loads[k].b, loads[k].n), len += loads[k].n;
                        s->r[7] = AREA;
                        char what[96];
                        snprintf(what, sizeof(what), "%s image %u form %u bv %u rfbm %u", loads[k].name, img,
                                 form, bv, rfbm);
                        bad |= harness_compare(code, len, s, 0x8d5, what);
                        n++;
                    }
    /* Round trips: save, clobber (FNINIT, FLD1, PXOR), restore, save again. */
    for (unsigned k = 0; k < 4; k++)
        for (unsigned x87 = 0; x87 < 4; x87++) {
            static const uint8_t clobber[] = { 0xdb, 0xe3, 0xd9, 0xe8, 0x66, 0x0f, 0xef, 0xed };
            static const uint8_t saves[4][4] = { { 0x0f, 0xae, 0x07 }, { 0x0f, 0xae, 0x27 },
                                                 { 0x0f, 0xae, 0x37 }, { 0x0f, 0xc7, 0x27 } };
            static const uint8_t rstors[4][4] = { { 0x0f, 0xae, 0x0f }, { 0x0f, 0xae, 0x2f },
                                                  { 0x0f, 0xae, 0x2f }, { 0x0f, 0xae, 0x2f } };
            uint8_t code[128];
            unsigned len = 0;
            static const uint8_t mov[] = { 0xb8, 3, 0, 0, 0, 0x31, 0xd2 };
            memcpy(code + len, mov, sizeof(mov)), len += sizeof(mov);
            memcpy(code + len, saves[k], 3), len += 3;
            memcpy(code + len, clobber, sizeof(clobber)), len += sizeof(clobber);
            memcpy(code + len, rstors[k], 3), len += 3;
            uint8_t tail[128];
            unsigned tl = save_code(tail, (const uint8_t[]){ 0x0f, 0xae, 0x27 }, 3, 3, 0);
            memcpy(code + len, tail, tl), len += tl;
            set_state(s, x87, x87);
            s->r[7] = AREA;
            memset(s->data + (AREA - HARNESS_DATA), 0, 1024);
            char what[64];
            snprintf(what, sizeof(what), "round trip %u, state %u", k, x87);
            bad |= harness_compare(code, len, s, 0x8d5, what);
            n++;
        }
    fprintf(stderr, "x87: xrstor_images: %d cases\n", n);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Live x87 state at the end of the code, compared through the FXSAVE
 * image of the harness: tags, TOP, registers in stack order, ES/B. */
START_TEST(live_state)
{
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    static const struct { const char *name; uint8_t b[40]; unsigned n; uint16_t cw; } seq[] = {
        { "fld1 fldpi fldz faddp", { 0xd9, 0xe8, 0xd9, 0xeb, 0xd9, 0xee, 0xde, 0xc1 }, 8, 0x37f },
        { "9 pushes", { 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8,
                        0xd9, 0xe8, 0xd9, 0xe8 }, 18, 0x37f },
        { "fld1 fldz fdiv unmasked", { 0xd9, 0xe8, 0xd9, 0xee, 0xdc, 0xf9 }, 6, 0x37b },
        { "fldz fldz fdivp unmasked", { 0xd9, 0xee, 0xd9, 0xee, 0xde, 0xf9 }, 6, 0x37e },
        { "fldpi fsqrt fld st0 fmul st1 fstp st3 fincstp fdecstp ffree st1",
          { 0xd9, 0xeb, 0xd9, 0xfa, 0xd9, 0xc0, 0xd8, 0xc9, 0xdd, 0xdb, 0xd9, 0xf7, 0xd9, 0xf6, 0xdd, 0xc1 }, 16, 0x37f },
        { "fld1 fldl2t fxch fucomip fcmovnb", { 0xd9, 0xe8, 0xd9, 0xe9, 0xd9, 0xc9, 0xdf, 0xe9, 0xdb, 0xc1 }, 10, 0x37f },
        { "fild fistp roundtrip", { 0xdf, 0x2e, 0xdf, 0x7e, 0x08, 0xdb, 0x46, 0x10, 0xdb, 0x5e, 0x18 }, 11, 0x37f },
    };
    for (unsigned k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
        harness_init(s);
        memcpy(s->fx, &seq[k].cw, 2);
        s->r[6] = HARNESS_DATA + 0x100;
        uint64_t q = 0x8000000000000001ull;
        memcpy(s->data + 0x100, &q, 8);
        uint32_t d = 0xfffffffe;
        memcpy(s->data + 0x110, &d, 4);
        bad |= harness_compare(seq[k].b, seq[k].n, s, 0x8d5, seq[k].name);
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* The exception flags across instructions (the host x87 keeps the guest's
 * control word between instructions while every exception is masked, its
 * flags accumulating: cpu/x87_host.h): flags raised by one instruction and
 * read later, cleared by FNCLEX, replaced by FLDENV, FRSTOR and FXRSTOR,
 * rounding changed by FLDCW between instructions, and a guest going from
 * an unmasked exception to all masked and back.  [rsi] holds an
 * environment with IE and PE set, [rsi+0x40] one with no flags, control
 * words at [rsi+0x30]; the results land in rax, rbx, rcx, rdx and memory. */
START_TEST(sticky_flags)
{
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    static const struct { const char *name; uint8_t b[112]; unsigned n; uint16_t cw; } seq[] = {
        { "1/0 fnstsw sqrt fnstsw fnclex fnstsw add fnstsw",
          { 0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9, 0xdf, 0xe0, 0x89, 0xc3, 0xd9, 0xeb, 0xd9, 0xfa, 0xdf, 0xe0,
            0x89, 0xc1, 0xdb, 0xe2, 0xdf, 0xe0, 0x89, 0xc2, 0xd9, 0xe8, 0xd8, 0xc0, 0xdf, 0xe0 }, 30, 0x37f },
        { "fldenv IE|PE, 1/0, fnstsw, fldenv none, fld1, fnstsw",
          { 0xd9, 0x26, 0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9, 0xdf, 0xe0, 0x89, 0xc3, 0xd9, 0x66, 0x40,
            0xd9, 0xe8, 0xdf, 0xe0 }, 19, 0x37f },
        { "fldcw round down, up, truncate between divisions",
          { 0xd9, 0x6e, 0x30, 0xd9, 0xe8, 0xd9, 0xeb, 0xde, 0xf9, 0xdd, 0x5e, 0x70,
            0xd9, 0x6e, 0x32, 0xd9, 0xe8, 0xd9, 0xeb, 0xde, 0xf9, 0xdd, 0x5e, 0x78,
            0xd9, 0x6e, 0x36, 0xd9, 0xeb, 0xdb, 0x5e, 0x60,
            0xd9, 0x6e, 0x34, 0xd9, 0xeb, 0xdb, 0x5e, 0x64, 0xdf, 0xe0 }, 42, 0x37f },
        { "ZE unmasked: 1/pi, mask all: 1+1, unmask ZE: sqrt(pi), fnstsw",
          { 0xd9, 0xe8, 0xd9, 0xeb, 0xde, 0xf9, 0xd9, 0x6e, 0x34, 0xd9, 0xe8, 0xd9, 0xe8, 0xde, 0xc1,
            0xd9, 0x6e, 0x38, 0xd9, 0xeb, 0xd9, 0xfa, 0xdf, 0xe0 }, 24, 0x37b },
        { "fnsave, 1/0, frstor, 1+1, fnstsw, fxsave, 0/0, fxrstor, fld1, fnstsw",
          { 0xdd, 0xb6, 0x80, 0x01, 0x00, 0x00, 0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9,
            0xdd, 0xa6, 0x80, 0x01, 0x00, 0x00, 0xd9, 0xe8, 0xd9, 0xe8, 0xde, 0xc1, 0xdf, 0xe0, 0x89, 0xc3,
            0x0f, 0xae, 0x86, 0x00, 0x02, 0x00, 0x00, 0xd9, 0xee, 0xd9, 0xee, 0xde, 0xf9,
            0x0f, 0xae, 0x8e, 0x00, 0x02, 0x00, 0x00, 0xd9, 0xe8, 0xdf, 0xe0,
            /* FOP, FIP, FDP, MXCSR_MASK of the FXSAVE image zeroed (not modelled) */
            0x48, 0xc7, 0x86, 0x06, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x48, 0xc7, 0x86, 0x0e, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x48, 0xc7, 0x86, 0x16, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x48, 0xc7, 0x86, 0x18, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 96, 0x37f },
        { "0/0, fnclex, unmask IE, fwait, 1+1",
          { 0xd9, 0xee, 0xd9, 0xee, 0xde, 0xf9, 0xdb, 0xe2, 0xd9, 0x6e, 0x3a, 0x9b,
            0xd9, 0xe8, 0xd9, 0xe8, 0xde, 0xc1, 0xdf, 0xe0 }, 20, 0x37f },
        { "1/0, fnstenv, sqrt, fnstsw",
          { 0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9, 0xd9, 0x76, 0x40, 0xd9, 0xeb, 0xd9, 0xfa, 0xdf, 0xe0,
            /* the environment's FIP, FOP, FDP zeroed (not modelled) */
            0x48, 0xc7, 0x86, 0x4c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x48, 0xc7, 0x86, 0x54, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 37, 0x37f },
    };
    static const uint16_t cws[] = { 0x77f, 0xb7f, 0x37f, 0xf7f, 0x37b, 0x37e };
    for (unsigned k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
        harness_init(s);
        memcpy(s->fx, &seq[k].cw, 2);
        s->r[6] = HARNESS_DATA + 0x100;
        uint8_t *d = s->data + 0x100;
        uint32_t env[7] = { 0xffff037f, 0xffff0021, 0xffffffff, 0, 0, 0, 0xffff0000 };
        memcpy(d, env, sizeof(env));
        env[1] = 0xffff0000;
        memcpy(d + 0x40, env, sizeof(env));
        memcpy(d + 0x30, cws, sizeof(cws));
        bad |= harness_compare(seq[k].b, seq[k].n, s, 0x8d5, seq[k].name);
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ emulator only */
/* What only the emulator can run: faults (natively they would kill the
 * test).  A 64-bit guest in a small space, so that its fault code can be
 * read. */
#include "cpu/cpu.h"
#include "cpu/flags.h"
#include "cpu/fpstate.h"

struct emu_result {
    int sig, code;
    uint64_t r[16];
    uint8_t fx[512];
    uint8_t data[8192];
};

static void emu_only(const uint8_t *code, unsigned len, const struct hstate *s, struct emu_result *out)
{
    static struct mm_space mm;
    static struct cpu c;
    static bool ready;
    const uint64_t at = 0x400000;
    if (!ready) {
        if (mm_space_init(&mm, 32) != 0 || mm_map_anon(&mm, at, 4096, PROT_READ | PROT_WRITE, 0, "code") != 0 ||
            mm_map_anon(&mm, HARNESS_DATA, HARNESS_DATA_SIZE, PROT_READ | PROT_WRITE, 0, "data") != 0)
            abort();
        ready = true;
    } else {
        cpu_destroy(&c);
        mm_protect(&mm, at, 4096, PROT_READ | PROT_WRITE);
    }
    memset(mm.base + at, 0, 4096);
    memcpy(mm.base + at, code, len);
    mm.base[at + len] = 0xcc;
    mm_protect(&mm, at, 4096, PROT_READ | PROT_EXEC);
    memcpy(mm.base + HARNESS_DATA, s->data, HARNESS_DATA_SIZE);
    cpu_init(&c, &mm, 64);
    c.log_unimplemented = true;
    memcpy(c.r, s->r, sizeof(c.r));
    c.rip = at;
    c.rflags = s->rflags | 2;
    cpu_fxrstor_image(&c, s->fx);
    cpu_run(&c);
    out->sig = c.stop == CPU_SIGNALED && !(c.stop_code == SIGTRAP && c.rip == at + len + 1) ? c.stop_code : 0;
    out->code = out->sig ? c.fault_code : 0;
    memcpy(out->r, c.r, sizeof(out->r));
    cpu_fxsave_image(&c, out->fx);
    memcpy(out->data, mm.base + HARNESS_DATA, sizeof(out->data));
}

/* Delayed exceptions: an unmasked exception only sets ES; the next waiting
 * instruction raises SIGFPE with the si_code of Linux's math_error(); the
 * FN- instructions, FXSAVE and XSAVE do not wait. */
START_TEST(pending_sigfpe)
{
    struct hstate *s = malloc(sizeof(*s));
    struct emu_result *r = malloc(sizeof(*r));
    static const struct { uint16_t cw; uint8_t pre[8]; unsigned pn; int code; } exc[] = {
        { 0x37e, { 0xd9, 0xee, 0xd9, 0xee, 0xde, 0xf9 }, 6, 7 },  /* 0/0: FPE_FLTINV */
        { 0x37b, { 0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9 }, 6, 3 },  /* 1/0: FPE_FLTDIV */
        { 0x377, { 0xdb, 0x2e, 0xd9, 0xc0, 0xde, 0xc9 }, 6, 4 },  /* max*max: FPE_FLTOVF */
        { 0x36f, { 0xdb, 0x6e, 0x10, 0xd9, 0xc0, 0xde, 0xc9 }, 7, 5 }, /* min*min: FPE_FLTUND */
        { 0x35f, { 0xd9, 0xeb, 0xd9, 0xfa }, 4, 6 },              /* sqrt(pi): FPE_FLTRES */
        { 0x37e, { 0xdd, 0xd8 }, 2, 7 },                          /* stack underflow */
        { 0x37d, { 0xd9, 0x46, 0x20 }, 3, 5 },                    /* fld denormal m32: FPE_FLTUND */
    };
    static const struct { const char *name; uint8_t b[8]; unsigned n; bool waits; } next[] = {
        { "fwait", { 0x9b }, 1, true }, { "fnop", { 0xd9, 0xd0 }, 2, true }, { "fld1", { 0xd9, 0xe8 }, 2, true },
        { "fldcw", { 0xd9, 0x6e, 0x30 }, 3, true }, { "ffree", { 0xdd, 0xc3 }, 2, true },
        { "fxch", { 0xd9, 0xc9 }, 2, true }, { "frstor", { 0xdd, 0x66, 0x40 }, 3, true },
        { "fldenv", { 0xd9, 0x66, 0x40 }, 3, true },
        { "fnstsw ax", { 0xdf, 0xe0 }, 2, false }, { "fnstcw", { 0xd9, 0x7e, 0x30 }, 3, false },
        { "fnclex; fwait", { 0xdb, 0xe2, 0x9b }, 3, false }, { "fninit; fld1", { 0xdb, 0xe3, 0xd9, 0xe8 }, 4, false },
        { "fnstenv; fwait", { 0xd9, 0x76, 0x40, 0x9b }, 4, false }, { "fnsave; fwait", { 0xdd, 0x76, 0x40, 0x9b }, 4, false },
        { "fxsave", { 0x0f, 0xae, 0x46, 0x40 }, 4, false }, { "fneni", { 0xdb, 0xe0 }, 2, false },
    };
    int bad = 0;
    for (unsigned e = 0; e < sizeof(exc) / sizeof(exc[0]); e++)
        for (unsigned k = 0; k < sizeof(next) / sizeof(next[0]); k++) {
            harness_init(s);
            memcpy(s->fx, &exc[e].cw, 2);
            s->r[6] = HARNESS_DATA;
            memcpy(s->data, &V[8], 10);           /* the largest normal */
            memcpy(s->data + 0x10, &V[9], 10);    /* the smallest normal */
            uint32_t den = 1;
            memcpy(s->data + 0x20, &den, 4);
            uint16_t cw = 0x37f;
            memcpy(s->data + 0x30, &cw, 2);
            uint8_t code[32];
            memcpy(code, exc[e].pre, exc[e].pn);
            memcpy(code + exc[e].pn, next[k].b, next[k].n);
            emu_only(code, exc[e].pn + next[k].n, s, r);
            int want = next[k].waits ? SIGFPE : 0, want_code = next[k].waits ? exc[e].code : 0;
            uint16_t fsw;
            memcpy(&fsw, r->fx + 2, 2);
            if (r->sig != want || r->code != want_code || (want && !(fsw & 0x8080))) {
                fprintf(stderr, "x87: pending exception %u then %s: signal %d code %d fsw %04x (want %d code %d)\n",
                        e, next[k].name, r->sig, r->code, fsw, want, want_code);
                bad = 1;
            }
        }
    /* FLDCW unmasking a flag that is set: the next waiting instruction faults. */
    harness_init(s);
    s->r[6] = HARNESS_DATA;
    uint16_t cw = 0x37e;
    memcpy(s->data, &cw, 2);
    static const uint8_t unmask[] = { 0xd9, 0xee, 0xd9, 0xee, 0xde, 0xf9, 0xd9, 0x2e, 0xdf, 0xe0, 0x9b };
    emu_only(unmask, sizeof(unmask), s, r);
    if (r->sig != SIGFPE || r->code != 7 || (r->r[0] & 0xffff) != 0xb881) {
        fprintf(stderr, "x87: fldcw unmasking: signal %d code %d ax %llx\n", r->sig, r->code,
                (unsigned long long)r->r[0]);
        bad = 1;
    }
    free(r);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Faults of the state instructions: misalignment (#GP: SIGSEGV), bad XSAVE
 * headers, reserved MXCSR bits; XGETBV; XSAVE of components beyond XCR0. */
START_TEST(state_faults)
{
    struct hstate *s = malloc(sizeof(*s));
    struct emu_result *r = malloc(sizeof(*r));
    int bad = 0;
    struct { const char *name; uint8_t b[16]; unsigned n; uint64_t rdi; uint64_t hdr[3]; uint32_t mxcsr;
             int sig; } cases[] = {
        { "fxsave +8", { 0x0f, 0xae, 0x07 }, 3, AREA + 8, { 0 }, 0x1f80, SIGSEGV },
        { "fxsave +16", { 0x0f, 0xae, 0x07 }, 3, AREA + 16, { 0 }, 0x1f80, 0 },
        { "fxrstor +4", { 0x0f, 0xae, 0x0f }, 3, AREA + 4, { 0 }, 0x1f80, SIGSEGV },
        { "fxrstor mxcsr bit 16", { 0x0f, 0xae, 0x0f }, 3, AREA, { 0 }, 0x11f80, SIGSEGV },
        { "xsave +32", { 0x0f, 0xae, 0x27 }, 3, AREA + 32, { 0 }, 0x1f80, SIGSEGV },
        { "xsavec +16", { 0x0f, 0xc7, 0x27 }, 3, AREA + 16, { 0 }, 0x1f80, SIGSEGV },
        { "xsaveopt +8", { 0x0f, 0xae, 0x37 }, 3, AREA + 8, { 0 }, 0x1f80, SIGSEGV },
        { "xrstor +16", { 0x0f, 0xae, 0x2f }, 3, AREA + 16, { 0 }, 0x1f80, SIGSEGV },
        { "xrstor bv bit 2", { 0x0f, 0xae, 0x2f }, 3, AREA, { 4 }, 0x1f80, SIGSEGV },
        { "xrstor xcomp_bv standard", { 0x0f, 0xae, 0x2f }, 3, AREA, { 3, 1 }, 0x1f80, SIGSEGV },
        { "xrstor bytes 16-23", { 0x0f, 0xae, 0x2f }, 3, AREA, { 3, 0, 1 }, 0x1f80, SIGSEGV },
        { "xrstor compacted bit 2", { 0x0f, 0xae, 0x2f }, 3, AREA, { 3, (1ull << 63) | 7 }, 0x1f80, SIGSEGV },
        { "xrstor compacted bv > comp", { 0x0f, 0xae, 0x2f }, 3, AREA, { 3, (1ull << 63) | 1 }, 0x1f80, SIGSEGV },
        { "xrstor compacted bytes 16-63", { 0x0f, 0xae, 0x2f }, 3, AREA, { 3, (1ull << 63) | 3, 1 }, 0x1f80, SIGSEGV },
        { "xrstor compacted ok", { 0x0f, 0xae, 0x2f }, 3, AREA, { 3, (1ull << 63) | 3 }, 0x1f80, 0 },
        { "xrstor mxcsr bit 16", { 0x0f, 0xae, 0x2f }, 3, AREA, { 3 }, 0x11f80, SIGSEGV },
        { "xrstor mxcsr not loaded", { 0xb8, 1, 0, 0, 0, 0x0f, 0xae, 0x2f }, 8, AREA, { 3 }, 0x11f80, 0 },
        { "xgetbv 0", { 0x31, 0xc9, 0x0f, 0x01, 0xd0 }, 5, AREA, { 0 }, 0x1f80, 0 },
        { "xgetbv 1", { 0xb9, 1, 0, 0, 0, 0x0f, 0x01, 0xd0 }, 8, AREA, { 0 }, 0x1f80, SIGSEGV },
        { "xsave all", { 0xb8, 0xff, 0xff, 0xff, 0xff, 0x89, 0xc2, 0x0f, 0xae, 0x27 }, 10, AREA, { 0 }, 0x1f80, 0 },
        { "xsavec all", { 0xb8, 0xff, 0xff, 0xff, 0xff, 0x89, 0xc2, 0x0f, 0xc7, 0x27 }, 10, AREA, { 0 }, 0x1f80, 0 },
    };
    for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        harness_init(s);
        s->r[0] = 3;
        s->r[1] = 0;
        s->r[2] = 0;
        s->r[7] = cases[k].rdi;
        uint8_t *area = s->data + (cases[k].rdi - HARNESS_DATA);
        memset(area, 0, 1024);
        memcpy(area, s->fx, 512);
        memcpy(area + 24, &cases[k].mxcsr, 4);
        memcpy(area + 512, cases[k].hdr, sizeof(cases[k].hdr));
        memset(s->data + (AREA - HARNESS_DATA) + 576, 0xee, 64);
        emu_only(cases[k].b, cases[k].n, s, r);
        bool ok = r->sig == cases[k].sig;
        if (ok && !strncmp(cases[k].name, "xgetbv 0", 8))
            ok = r->r[0] == 3 && r->r[2] == 0;
        if (ok && !strncmp(cases[k].name, "xsave", 5) && strstr(cases[k].name, "all")) {
            uint64_t hdr[2];
            memcpy(hdr, r->data + (AREA - HARNESS_DATA) + 512, 16);
            const uint8_t *after = r->data + (AREA - HARNESS_DATA) + 576;
            ok = (hdr[0] & ~3ull) == 0 && (cases[k].b[8] == 0xc7 ? hdr[1] == ((1ull << 63) | 3) : hdr[1] == 0) &&
                 after[0] == 0xee && after[63] == 0xee;
        }
        if (!ok) {
            fprintf(stderr, "x87: %s: signal %d (want %d)\n", cases[k].name, r->sig, cases[k].sig);
            bad = 1;
        }
    }
    free(r);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("x87");
    TCase *t = tcase_create("x87");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, arith_reg);
    tcase_add_test(t, arith_reg_other_i);
    tcase_add_test(t, arith_mem);
    tcase_add_test(t, arith_modes);
    tcase_add_test(t, arith_unmasked);
    tcase_add_test(t, unary);
    tcase_add_test(t, fprem_partial);
    tcase_add_test(t, loads);
    tcase_add_test(t, stores);
    tcase_add_test(t, moves);
    tcase_add_test(t, stack_faults);
    tcase_add_test(t, control);
    tcase_add_test(t, environment);
    tcase_add_test(t, xsave_images);
    tcase_add_test(t, xrstor_images);
    tcase_add_test(t, live_state);
    tcase_add_test(t, sticky_flags);
    tcase_add_test(t, pending_sigfpe);
    tcase_add_test(t, state_faults);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
