/* MUL, IMUL (one, two, three operands), DIV and IDIV against the host CPU,
 * in every width, register and memory forms, on edge operands (zero, one,
 * all-ones, the signed minimum and maximum of each width).  Only CF and OF
 * are compared after MUL/IMUL and no arithmetic flag after DIV/IDIV (the
 * SDM leaves the rest undefined).  Divisions that raise #DE would kill the
 * test natively: the test predicts them and runs those in the emulator
 * only, expecting SIGFPE with every register, the flags and memory
 * unchanged. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

#define CF 0x001u
#define OF 0x800u
#define ALL_FLAGS 0x8d5u

typedef __int128 s128;
typedef unsigned __int128 u128;

static const uint64_t edge[] = {
    0, 1, 2, 3, 10, 0x7f, 0x80, 0xff, 0xff80, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
    0xffffffff, 0x100000000ull, 0xffffffff80000000ull, 0x7fffffffffffffffull,
    0x8000000000000000ull, 0xfffffffffffffffdull, 0xffffffffffffffffull, 0x123456789abcdef0ull,
    0xfedcba9876543210ull,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

enum { MUL = 4, IMUL = 5, DIV = 6, IDIV = 7 };
static const char *const names[8] = { [MUL] = "mul", [IMUL] = "imul", [DIV] = "div", [IDIV] = "idiv" };
static const unsigned widths[4] = { 8, 16, 32, 64 };

/* Source operand of the one-operand forms: rbx/ebx/bx/bl, the "other"
 * register (bh for 8 bits, r9 otherwise) or [rsi+8]. */
enum { SRC_RBX, SRC_OTHER, SRC_MEM };
static const char *const src_names[3] = { "reg", "other", "mem" };

static int ncases_total;

static uint64_t wmask(unsigned bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }
static int64_t sext(uint64_t v, unsigned bits)
{
    return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static unsigned enc_one(uint8_t *b, unsigned ext, unsigned bits, int src)
{
    unsigned n = 0;
    if (bits == 16)
        b[n++] = 0x66;
    unsigned rex = (bits == 64 ? 0x08 : 0) | (src == SRC_OTHER && bits != 8 ? 0x01 : 0);
    if (rex)
        b[n++] = (uint8_t)(0x40 | rex);
    b[n++] = bits == 8 ? 0xf6 : 0xf7;
    if (src == SRC_MEM) {
        b[n++] = (uint8_t)(0x46 | ext << 3);
        b[n++] = 8;
    } else {
        unsigned rm = src == SRC_RBX ? 3 : bits == 8 ? 7 : 1;
        b[n++] = (uint8_t)(0xc0 | ext << 3 | rm);
    }
    return n;
}

/* Does DIV/IDIV of this width fault (#DE)?  Computed independently of the
 * emulator, on 128-bit integers. */
static int div_faults(unsigned ext, unsigned bits, uint64_t rax, uint64_t rdx, uint64_t src)
{
    uint64_t m = wmask(bits);
    u128 n = bits == 8 ? (rax & 0xffff) : ((u128)(rdx & m) << bits) | (rax & m);
    unsigned nbits = 2 * bits;
    if ((src & m) == 0)
        return 1;
    if (ext == DIV)
        return n / (src & m) > m;
    s128 sn = nbits == 128 ? (s128)n : (s128)(n << (128 - nbits)) >> (128 - nbits);
    s128 sd = sext(src, bits);
    if (nbits == 128 && sn == (s128)((u128)1 << 127) && sd == -1)
        return 1;
    s128 q = sn / sd;
    return q < -((s128)1 << (bits - 1)) || q > ((s128)1 << (bits - 1)) - 1;
}

/* Put the operands in place: rax, rdx, and the source in every slot a
 * form may read it from. */
static void setup(struct hstate *s, uint64_t rax, uint64_t rdx, uint64_t src, uint64_t fl)
{
    harness_init(s);
    s->r[0] = rax;
    s->r[2] = rdx;
    s->r[3] = src;
    s->r[9] = src;
    s->r[6] = HARNESS_DATA + 64;
    s->r[1] = 0x0123456789abcdefull; /* untouched by everything here */
    memcpy(s->data + 64 + 8, &src, 8);
    s->rflags = 0x202 | fl;
}

static int run_one(struct hstate *s, unsigned ext, unsigned bits, int src, uint64_t rax,
                   uint64_t rdx, uint64_t sv, uint64_t fl)
{
    uint8_t code[8];
    unsigned len = enc_one(code, ext, bits, src);
    setup(s, rax, rdx, sv, fl);
    if (src == SRC_OTHER && bits == 8)
        s->r[3] = (sv & 0xff) << 8 | 0x5a; /* bh */
    char what[160];
    snprintf(what, sizeof(what), "%s %s%u, rax %#llx, rdx %#llx, src %#llx", names[ext],
             src_names[src], bits, (unsigned long long)rax, (unsigned long long)rdx,
             (unsigned long long)sv);
    ncases_total++;
    if ((ext == DIV || ext == IDIV) && div_faults(ext, bits, rax, rdx, sv)) {
        /* #DE: emulator only; nothing may change. */
        static struct hstate before;
        memcpy(&before, s, sizeof(before));
        int sig = harness_emu(code, len, s);
        int bad = sig != SIGFPE || memcmp(before.r, s->r, sizeof(s->r)) != 0 ||
                  ((before.rflags ^ s->rflags) & 0xffff) != 0 ||
                  memcmp(before.data, s->data, sizeof(s->data)) != 0;
        if (bad)
            fprintf(stderr, "%s: expected #DE (SIGFPE) with nothing changed, got signal %d, "
                    "rax %#llx rdx %#llx rflags %#llx\n", what, sig, (unsigned long long)s->r[0],
                    (unsigned long long)s->r[2], (unsigned long long)s->rflags);
        return bad;
    }
    uint64_t mask = ext == MUL || ext == IMUL ? CF | OF : 0;
    return harness_compare(code, len, s, mask, what);
}

/* _i: op (0..3 = MUL IMUL DIV IDIV) * 4 + width index. */
START_TEST(one_operand)
{
    unsigned ext = MUL + (unsigned)_i / 4, bits = widths[_i % 4];
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    if (ext == MUL || ext == IMUL) {
        for (unsigned a = 0; a < NEDGE; a++)
            for (unsigned b = 0; b < NEDGE; b++) {
                uint64_t fl = (a + b) & 1 ? ALL_FLAGS : 0;
                bad |= run_one(s, ext, bits, SRC_RBX, edge[a], ~edge[b], edge[b], fl);
                if ((a + b) % 4 == 0)
                    bad |= run_one(s, ext, bits, (a & 1) ? SRC_OTHER : SRC_MEM, edge[a], edge[b], edge[b], fl);
            }
    } else {
        for (unsigned a = 0; a < NEDGE; a++) {
            /* High halves: zero, small, the sign extension of rax (CQO and
             * friends: the usual signed case), all-ones, edges. */
            uint64_t sx = (uint64_t)(sext(edge[a], bits) >> 63);
            const uint64_t highs[] = { 0, 1, sx, ~0ull, 0x7f, edge[(a * 7) % NEDGE] };
            for (unsigned h = 0; h < sizeof(highs) / sizeof(highs[0]); h++)
                for (unsigned b = 0; b < NEDGE; b++) {
                    uint64_t fl = (a + b + h) & 1 ? ALL_FLAGS : 0;
                    bad |= run_one(s, ext, bits, SRC_RBX, edge[a], highs[h], edge[b], fl);
                    if ((a + b + h) % 5 == 0)
                        bad |= run_one(s, ext, bits, (b & 1) ? SRC_OTHER : SRC_MEM, edge[a],
                                       highs[h], edge[b], fl);
                }
        }
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* #DE in every width and form: zero divisors, overflowing quotients, and the
 * signed minimum divided by -1; also after another instruction of the same
 * block, whose result must stay. */
START_TEST(divide_errors)
{
    static const struct { unsigned ext, bits; uint64_t rax, rdx, src; } cases[] = {
        { DIV, 8, 0x1234, 0, 0 }, { DIV, 16, 5, 0, 0x10000 }, { DIV, 32, 5, 0, 0x100000000ull },
        { DIV, 64, 5, 0, 0 }, { IDIV, 8, 5, 0, 0x100 }, { IDIV, 64, 0, 0, 0 },
        { DIV, 8, 0x100, 0, 1 }, { DIV, 16, 0, 1, 1 }, { DIV, 32, 0, 7, 7 },
        { DIV, 64, 0, ~0ull, ~0ull }, { DIV, 64, 0, 1, 1 },
        /* the minimum by -1 */
        { IDIV, 8, 0xff80, 0, 0xff }, { IDIV, 8, 0x8000, 0, 0xff },
        { IDIV, 16, 0x8000, 0xffff, 0xffff }, { IDIV, 32, 0x80000000, 0xffffffff, 0xffffffff },
        { IDIV, 64, 0x8000000000000000ull, ~0ull, ~0ull },
        { IDIV, 64, 0, 0x8000000000000000ull, ~0ull },
        /* the double-width minimum by -1 (C's INT_MIN / -1 in disguise) */
        { IDIV, 16, 0, 0x8000, 0xffff }, { IDIV, 32, 0, 0x80000000, 0xffffffff },
        /* positive quotient one past the maximum, negative one past the minimum */
        { IDIV, 8, 0x80, 0, 1 }, { IDIV, 16, 0x8000, 0, 1 }, { IDIV, 32, 0x80000000, 0, 1 },
        { IDIV, 64, 0x8000000000000000ull, 0, 1 }, { IDIV, 32, 0x7fffffff, 0xffffffff, 1 },
        { IDIV, 64, 0x7fffffffffffffffull, ~0ull, 1 }, { IDIV, 64, 0x2, 0x1, 2 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (int src = SRC_RBX; src <= SRC_MEM; src++) {
            ck_assert(div_faults(cases[k].ext, cases[k].bits, cases[k].rax, cases[k].rdx, cases[k].src));
            bad |= run_one(s, cases[k].ext, cases[k].bits, src, cases[k].rax, cases[k].rdx,
                           cases[k].src, k & 1 ? ALL_FLAGS : 0);
        }
    /* "mov ecx, 7; add r8, rcx; div rbx" with rbx = 0: the first two stay done. */
    static const uint8_t seq[] = { 0xb9, 0x07, 0, 0, 0, 0x49, 0x01, 0xc8, 0x48, 0xf7, 0xf3 };
    setup(s, 1, 0, 0, 0);
    s->r[8] = 0x7fffffffffffffffull;
    int sig = harness_emu(seq, sizeof(seq), s);
    if (sig != SIGFPE || s->r[1] != 7 || s->r[8] != 0x8000000000000006ull || s->r[0] != 1 ||
        (s->rflags & (OF | 0x80)) != (OF | 0x80)) {
        fprintf(stderr, "div after add: signal %d, rcx %#llx, r8 %#llx, rflags %#llx\n", sig,
                (unsigned long long)s->r[1], (unsigned long long)s->r[8], (unsigned long long)s->rflags);
        bad = 1;
    }
    ncases_total++;
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ IMUL r, r/m [, imm] */
/* Two operands: 0F AF /r; three: 6B /r ib, 69 /r iw/id.  Destination rax
 * (or r9), source rbx (r10, or [rsi+8]); also imul rax, rax. */
enum { I_RR, I_RM, I_OTHER, I_SAME };
static unsigned enc_imul(uint8_t *b, unsigned bits, int form, int nimm, int32_t imm)
{
    unsigned n = 0;
    if (bits == 16)
        b[n++] = 0x66;
    unsigned rex = (bits == 64 ? 0x08 : 0) | (form == I_OTHER ? 0x05 : 0);
    if (rex)
        b[n++] = (uint8_t)(0x40 | rex);
    if (nimm == 0) {
        b[n++] = 0x0f;
        b[n++] = 0xaf;
    } else {
        b[n++] = nimm == 1 ? 0x6b : 0x69;
    }
    switch (form) {
    case I_RR: b[n++] = 0xc3; break;              /* rax, rbx */
    case I_RM: b[n++] = 0x46; b[n++] = 8; break;  /* rax, [rsi+8] */
    case I_OTHER: b[n++] = 0xca; break;           /* r9, r10 */
    default: b[n++] = 0xc0; break;                /* rax, rax */
    }
    if (nimm == 1)
        b[n++] = (uint8_t)imm;
    else if (nimm > 1) {
        unsigned sz = bits == 16 ? 2 : 4;
        memcpy(b + n, &imm, sz);
        n += sz;
    }
    return n;
}

static int run_imul(struct hstate *s, unsigned bits, int form, int nimm, int32_t imm,
                    uint64_t a, uint64_t b, uint64_t fl)
{
    uint8_t code[16];
    unsigned len = enc_imul(code, bits, form, nimm, imm);
    setup(s, a, 0x5555555555555555ull, b, fl);
    s->r[9] = a;
    s->r[10] = b;
    static const char *const fnames[4] = { "reg", "mem", "r9/r10", "same" };
    char what[160];
    snprintf(what, sizeof(what), "imul %s%u%s %d, dst %#llx, src %#llx", fnames[form], bits,
             nimm == 0 ? "" : nimm == 1 ? " imm8" : " imm", nimm ? imm : 0,
             (unsigned long long)a, (unsigned long long)b);
    ncases_total++;
    return harness_compare(code, len, s, CF | OF, what);
}

/* _i: width index 0..2 (16, 32, 64). */
START_TEST(imul_two_three)
{
    unsigned bits = widths[1 + _i];
    static const int32_t imms[] = { 0, 1, -1, 2, 3, 0x7f, -128, 0x7fff, -32768, 0xffff,
                                    0x7fffffff, (int32_t)0x80000000, 0x12345678, -10 };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned a = 0; a < NEDGE; a++) {
        for (unsigned b = 0; b < NEDGE; b++) {
            uint64_t fl = (a + b) & 1 ? ALL_FLAGS : 0;
            bad |= run_imul(s, bits, I_RR, 0, 0, edge[a], edge[b], fl);
            if ((a + b) % 3 == 0)
                bad |= run_imul(s, bits, (a & 1) ? I_RM : I_OTHER, 0, 0, edge[a], edge[b], fl);
        }
        bad |= run_imul(s, bits, I_SAME, 0, 0, edge[a], 0, 0);
        for (unsigned k = 0; k < sizeof(imms) / sizeof(imms[0]); k++) {
            uint64_t fl = (a + k) & 1 ? ALL_FLAGS : 0;
            if (imms[k] >= -128 && imms[k] <= 127)
                bad |= run_imul(s, bits, (a + k) % 3 == 0 ? I_RM : I_RR, 1, imms[k], 0, edge[a], fl);
            bad |= run_imul(s, bits, (a + k) % 3 == 1 ? I_OTHER : I_RR, 4, imms[k], 0, edge[a], fl);
            if ((a + k) % 4 == 0)
                bad |= run_imul(s, bits, I_RM, 4, imms[k], 0, edge[a], fl);
        }
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Flag consumers right after a multiplication (CF/OF are defined). */
START_TEST(flag_consumers)
{
    static const struct { const char *name; uint8_t b[12]; unsigned len; } cases[] = {
        { "mul rbx; setc cl", { 0x48, 0xf7, 0xe3, 0x0f, 0x92, 0xc1 }, 6 },
        { "imul eax,ebx; seto cl", { 0x0f, 0xaf, 0xc3, 0x0f, 0x90, 0xc1 }, 6 },
        { "imul bx; adc rcx,rcx", { 0x66, 0xf7, 0xeb, 0x48, 0x11, 0xc9 }, 6 },
        { "mul bl; cmovo rcx,rbx", { 0xf6, 0xe3, 0x48, 0x0f, 0x40, 0xcb }, 6 },
        { "imul rax,rbx,-3; jo +3; mov cl,1", { 0x48, 0x6b, 0xc3, 0xfd, 0x70, 0x02, 0xb1, 0x01 }, 8 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (unsigned a = 0; a < NEDGE; a += 2)
            for (unsigned b = 0; b < NEDGE; b += 3) {
                setup(s, edge[a], 0, edge[b], (a + b) & 1 ? ALL_FLAGS : 0);
                s->r[1] = 0;
                char what[96];
                snprintf(what, sizeof(what), "%s with %#llx, %#llx", cases[k].name,
                         (unsigned long long)edge[a], (unsigned long long)edge[b]);
                bad |= harness_compare(cases[k].b, cases[k].len, s, CF | OF, what);
                ncases_total++;
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("muldiv");
    TCase *t = tcase_create("muldiv");
    tcase_add_loop_test(t, one_operand, 0, 16);
    tcase_add_test(t, divide_errors);
    tcase_add_loop_test(t, imul_two_three, 0, 3);
    tcase_add_test(t, flag_consumers);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    printf("muldiv: %d cases (#DE ones in the emulator only)\n", ncases_total);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
