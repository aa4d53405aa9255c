/* Shifts and rotates against the host CPU: SHL/SAL SHR SAR ROL ROR RCL RCR
 * by 1, imm8 and CL, SHLD/SHRD by imm8 and CL, in every width, register and
 * memory forms, on edge values and counts, with CF in both ways.  Only the
 * flags the SDM leaves undefined are masked. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

#define CF 0x001u
#define PF 0x004u
#define AF 0x010u
#define ZF 0x040u
#define SF 0x080u
#define OF 0x800u
#define ALL_FLAGS (CF | PF | AF | ZF | SF | OF)

static const uint64_t edge[] = {
    0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
    0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
    0xffffffffffffffffull, 0x123456789abcdef0ull, 0xfedcba9876543210ull, 0x8000000180008001ull,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

/* Counts: 0, 1, 2, width-1, width, width+1 for every width, 31, 32, 33,
 * 63, 64, 255 and a few between. */
static const unsigned counts[] = { 0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 18, 31, 32, 33, 63, 64, 65, 127, 128, 255 };
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

/* The /digit of group 2 (ModRM.reg). */
enum { ROL = 0, ROR = 1, RCL = 2, RCR = 3, SHL = 4, SHR = 5, SAL = 6, SAR = 7 };
static const char *const names[8] = { "rol", "ror", "rcl", "rcr", "shl", "shr", "sal", "sar" };
static const unsigned widths[4] = { 8, 16, 32, 64 };

/* Count forms. */
enum { BY1, BYIMM, BYCL };

/* Register destinations: rax (0), or an "other" register: bh (8-bit,
 * ModRM.rm 7 without REX) or r9 (REX.B, rm 1).  Memory: [rsi+8]. */
enum { DST_RAX, DST_OTHER, DST_MEM };

static void prefix(uint8_t *b, unsigned *n, unsigned bits, int dst)
{
    if (bits == 16)
        b[(*n)++] = 0x66;
    unsigned rex = (bits == 64 ? 0x08 : 0) | (dst == DST_OTHER && bits != 8 ? 0x01 : 0);
    if (rex)
        b[(*n)++] = (uint8_t)(0x40 | rex);
}

static uint8_t modrm(int dst, unsigned bits, unsigned reg)
{
    if (dst == DST_MEM)
        return (uint8_t)(0x46 | reg << 3); /* [rsi+disp8] */
    unsigned rm = dst == DST_RAX ? 0 : bits == 8 ? 7 : 1;
    return (uint8_t)(0xc0 | reg << 3 | rm);
}

/* Encode op /ext on the destination, count form, immediate. */
static unsigned enc_group2(uint8_t *b, unsigned ext, unsigned bits, int form, int dst, unsigned imm)
{
    unsigned n = 0;
    prefix(b, &n, bits, dst);
    static const uint8_t opc[3] = { 0xd0, 0xc0, 0xd2 };
    b[n++] = (uint8_t)(opc[form] + (bits != 8));
    b[n++] = modrm(dst, bits, ext);
    if (dst == DST_MEM)
        b[n++] = 8;
    if (form == BYIMM)
        b[n++] = (uint8_t)imm;
    return n;
}

/* The flags the SDM defines after op ext on a bits-wide operand with the
 * raw count cnt. */
static uint64_t group2_mask(unsigned ext, unsigned bits, unsigned cnt)
{
    unsigned n = cnt & (bits == 64 ? 63 : 31);
    if (n == 0)
        return ALL_FLAGS; /* no flag changes */
    uint64_t m = ALL_FLAGS;
    if (n != 1)
        m &= ~OF; /* OF is defined for 1-bit shifts and rotates only */
    if (ext == ROL || ext == ROR || ext == RCL || ext == RCR)
        return m; /* SF ZF AF PF unchanged, CF defined */
    m &= ~AF;     /* undefined after a shift by a nonzero count */
    if ((ext == SHL || ext == SAL || ext == SHR) && n >= bits)
        m &= ~CF; /* "undefined for SHL and SHR ... count >= size" */
    return m;
}

/* Put v in the destination. */
static void load_dst(struct hstate *s, int dst, unsigned bits, uint64_t v)
{
    s->r[0] = v;
    s->r[3] = bits == 8 ? (v << 8) | (v >> 56) : v; /* bh = low byte of v */
    s->r[9] = v;
    s->r[6] = HARNESS_DATA + 64;
    memcpy(s->data + 64 + 8, &v, 8);
    memcpy(s->data + 64 + 16, &v, 8); /* guard: must stay unchanged past the operand */
    (void)dst;
}

static int run_group2(struct hstate *s, unsigned ext, unsigned bits, int form, int dst,
                      uint64_t v, unsigned cnt, uint64_t fl, int *ncases)
{
    uint8_t code[16];
    unsigned len = enc_group2(code, ext, bits, form, dst, cnt);
    harness_init(s);
    load_dst(s, dst, bits, v);
    s->r[1] = 0xa5a5a5a5a5a5a500ull | cnt; /* only CL counts */
    s->rflags = 0x202 | fl;
    char what[128];
    snprintf(what, sizeof(what), "%s %s%u by %s %u, value %#llx, flags in %#llx", names[ext],
             dst == DST_MEM ? "mem" : dst == DST_OTHER ? "other" : "reg", bits,
             form == BYCL ? "cl" : form == BYIMM ? "imm" : "1", cnt, (unsigned long long)v,
             (unsigned long long)fl);
    ++*ncases;
    return harness_compare(code, len, s, group2_mask(ext, bits, cnt), what);
}

static int ncases_total;

/* _i: ext * 4 + width index; every count form, rax and memory destinations. */
START_TEST(group2_all)
{
    unsigned ext = (unsigned)_i / 4, bits = widths[_i % 4];
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0, n = 0;
    static const uint64_t flags_in[2] = { 0, ALL_FLAGS };
    /* Every value and count; the incoming flags (CF in for RCL/RCR, the
     * flags a zero count or a rotate must keep) alternate with them. */
    for (unsigned a = 0; a < NEDGE; a++) {
        for (unsigned f = 0; f < 2; f++)
            bad |= run_group2(s, ext, bits, BY1, DST_RAX, edge[a], 1, flags_in[f], &n);
        for (unsigned k = 0; k < NCOUNTS; k++) {
            uint64_t f = flags_in[(a + k) & 1];
            bad |= run_group2(s, ext, bits, BYIMM, DST_RAX, edge[a], counts[k], f, &n);
            bad |= run_group2(s, ext, bits, BYCL, DST_RAX, edge[a], counts[k], f ^ ALL_FLAGS, &n);
        }
    }
    /* Memory and the other register: fewer values. */
    for (unsigned a = 0; a < NEDGE; a += 3)
        for (int dst = DST_OTHER; dst <= DST_MEM; dst++) {
            for (unsigned f = 0; f < 2; f++)
                bad |= run_group2(s, ext, bits, BY1, dst, edge[a], 1, flags_in[f], &n);
            for (unsigned k = 0; k < NCOUNTS; k += 2) {
                uint64_t f = flags_in[(a + k / 2) & 1];
                bad |= run_group2(s, ext, bits, BYIMM, dst, edge[a], counts[k], f, &n);
                bad |= run_group2(s, ext, bits, BYCL, dst, edge[a], counts[k + 1], f ^ ALL_FLAGS, &n);
            }
        }
    ncases_total += n;
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ SHLD / SHRD */
static unsigned enc_shd(uint8_t *b, int right, unsigned bits, int form, int dst, unsigned imm)
{
    unsigned n = 0;
    if (bits == 16)
        b[n++] = 0x66;
    /* src: rbx, or r10 with the other destination (r9) */
    unsigned rex = (bits == 64 ? 0x08 : 0) | (dst == DST_OTHER ? 0x05 : 0);
    if (rex)
        b[n++] = (uint8_t)(0x40 | rex);
    b[n++] = 0x0f;
    b[n++] = (uint8_t)((right ? 0xac : 0xa4) + (form == BYCL));
    unsigned reg = dst == DST_OTHER ? 2 : 3;
    b[n++] = dst == DST_MEM ? (uint8_t)(0x46 | reg << 3)
                            : (uint8_t)(0xc0 | reg << 3 | (dst == DST_OTHER ? 1 : 0));
    if (dst == DST_MEM)
        b[n++] = 8;
    if (form == BYIMM)
        b[n++] = (uint8_t)imm;
    return n;
}

static uint64_t shd_mask(unsigned bits, unsigned cnt)
{
    unsigned n = cnt & (bits == 64 ? 63 : 31);
    if (n == 0)
        return ALL_FLAGS;
    return ALL_FLAGS & ~AF & ~(n != 1 ? OF : 0);
}

static const uint64_t shd_vals[] = {
    0, 1, 0x8001, 0xffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffull,
    0x8000000000000000ull, 0xffffffffffffffffull, 0x123456789abcdef0ull, 0xfedcba9876543210ull,
};
#define NSHD (sizeof(shd_vals) / sizeof(shd_vals[0]))

static int run_shd(struct hstate *s, int right, unsigned bits, int form, int dst, uint64_t dv,
                   uint64_t sv, unsigned cnt, uint64_t fl)
{
    uint8_t code[16];
    unsigned len = enc_shd(code, right, bits, form, dst, cnt);
    harness_init(s);
    load_dst(s, dst, 64, dv);
    s->r[3] = s->r[10] = sv;
    s->r[1] = 0x5a5a5a5a5a5a5a00ull | cnt;
    s->rflags = 0x202 | fl;
    char what[160];
    snprintf(what, sizeof(what), "%s %s%u by %s %u, dst %#llx, src %#llx, flags in %#llx",
             right ? "shrd" : "shld", dst == DST_MEM ? "mem" : dst == DST_OTHER ? "r9/r10 " : "rax/rbx ",
             bits, form == BYCL ? "cl" : "imm", cnt, (unsigned long long)dv,
             (unsigned long long)sv, (unsigned long long)fl);
    return harness_compare(code, len, s, shd_mask(bits, cnt), what);
}

/* _i: right * 3 + width index (16, 32, 64).  Every destination/source pair
 * and count on rax/rbx, a third of them on r9/r10 and memory; the count form
 * and the incoming flags alternate. */
START_TEST(double_shifts)
{
    int right = _i / 3;
    unsigned bits = widths[1 + _i % 3];
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0, n = 0;
    for (int dst = DST_RAX; dst <= DST_MEM; dst++)
        for (unsigned a = 0; a < NSHD; a++)
            for (unsigned b = 0; b < NSHD; b++)
                for (unsigned k = 0; k < NCOUNTS; k++) {
                    /* 16-bit counts above 16: result and flags undefined */
                    if (bits == 16 && (counts[k] & 31) > 16)
                        continue;
                    if (dst != DST_RAX && (a + b + k) % 3 != 0)
                        continue;
                    int form = (a + b + k) & 1 ? BYCL : BYIMM;
                    uint64_t fl = (a + k) & 1 ? ALL_FLAGS : 0;
                    bad |= run_shd(s, right, bits, form, dst, shd_vals[a], shd_vals[b], counts[k], fl);
                    n++;
                }
    ncases_total += n;
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ odd forms */
/* Encodings the generator above does not produce: SAL's own /6 encoding,
 * 8-bit registers with REX (sil), r/m with SIB and 32-bit addresses, and
 * flags read right after a shift by Jcc/SETcc-style consumers. */
START_TEST(odd_forms)
{
    /* mask: the flags compared; OF is dropped too when by_cl and cl != 1. */
    static const struct {
        const char *name; uint8_t b[12]; unsigned len; uint64_t mask; int by_cl;
    } cases[] = {
        { "shl sil,cl", { 0x40, 0xd2, 0xe6 }, 3, ALL_FLAGS & ~AF, 1 },
        { "sar r15b,1", { 0x41, 0xd0, 0xff }, 3, ALL_FLAGS & ~AF, 0 },
        { "ror dil,5", { 0x40, 0xc0, 0xcf, 0x05 }, 4, ALL_FLAGS & ~OF, 0 },
        { "shr qword [rsi+rdx*4-4],cl", { 0x48, 0xd3, 0x6c, 0x96, 0xfc }, 5, ALL_FLAGS & ~AF, 1 },
        { "rcl dword [esi],1", { 0x67, 0xd1, 0x16 }, 3, ALL_FLAGS, 0 },
        { "shl eax,cl; setc dl; sets bl", { 0xd3, 0xe0, 0x0f, 0x92, 0xc2, 0x0f, 0x98, 0xc3 }, 8, ALL_FLAGS & ~AF, 1 },
        { "sar eax,1; cmovs rdx,rbx", { 0xd1, 0xf8, 0x48, 0x0f, 0x48, 0xd3 }, 6, ALL_FLAGS & ~AF, 0 },
        { "rcr rax,1; adc rbx,rbx", { 0x48, 0xd1, 0xd8, 0x48, 0x11, 0xdb }, 6, ALL_FLAGS, 0 },
        { "add eax,eax; rol eax,0; setc dl", { 0x01, 0xc0, 0xc1, 0xc0, 0x00, 0x0f, 0x92, 0xc2 }, 8, ALL_FLAGS, 0 },
        { "sub eax,ebx; shl eax,0; setl dl", { 0x29, 0xd8, 0xc1, 0xe0, 0x00, 0x0f, 0x9c, 0xc2 }, 8, ALL_FLAGS, 0 },
        { "shld [rsi],ebx,cl", { 0x0f, 0xa5, 0x1e }, 3, ALL_FLAGS & ~AF, 1 },
        { "rcl ah,cl", { 0xd2, 0xd4 }, 2, ALL_FLAGS, 1 },
        { "ror r13w,cl", { 0x66, 0x41, 0xd3, 0xcd }, 4, ALL_FLAGS, 1 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (unsigned a = 0; a < NEDGE; a++)
            for (unsigned cl = 1; cl < 8; cl++) {
                /* cl 1..7: below every width, so CF is defined */
                harness_init(s);
                s->r[0] = s->r[6] = s->r[7] = s->r[15] = edge[a];
                s->r[3] = edge[(a + 5) % NEDGE];
                s->r[1] = cl;
                s->r[2] = 2;
                s->r[6] = HARNESS_DATA + 128;
                if (k <= 2) /* sil, r15b, dil: the value, not an address */
                    s->r[6] = edge[a];
                s->r[13] = edge[a];
                memcpy(s->data + 128, &edge[a], 8);
                memcpy(s->data + 136, &edge[(a + 3) % NEDGE], 8);
                s->rflags = 0x202 | (a & 1 ? ALL_FLAGS : 0);
                char what[96];
                snprintf(what, sizeof(what), "%s with %#llx, cl=%u", cases[k].name,
                         (unsigned long long)edge[a], (unsigned)s->r[1]);
                uint64_t mask = cases[k].mask & (cases[k].by_cl && s->r[1] != 1 ? ~OF : ALL_FLAGS);
                bad |= harness_compare(cases[k].b, cases[k].len, s, mask, what);
                ncases_total++;
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* A shift by 0 of a 32-bit register still writes it: the upper half is
 * cleared (any write to r32 in 64-bit mode), checked on the host too. */
START_TEST(zero_count_zero_extends)
{
    static const struct { const char *name; uint8_t b[8]; unsigned len; } cases[] = {
        { "shl eax,0", { 0xc1, 0xe0, 0x00 }, 3 },
        { "rcr eax,cl(32)", { 0xd3, 0xd8 }, 2 },
        { "ror eax,cl(32)", { 0xd3, 0xc8 }, 2 },
        { "shld eax,ebx,0", { 0x0f, 0xa4, 0xd8, 0x00 }, 4 },
        { "shrd eax,ebx,cl(32)", { 0x0f, 0xad, 0xd8 }, 3 },
        { "shl ax,0", { 0x66, 0xc1, 0xe0, 0x00 }, 4 },
        { "sar al,cl(32)", { 0xd2, 0xf8 }, 2 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        harness_init(s);
        s->r[0] = 0xffffffff87654321ull;
        s->r[3] = 0x1111111122222222ull;
        s->r[1] = 32;
        s->rflags = 0x202 | ALL_FLAGS;
        bad |= harness_compare(cases[k].b, cases[k].len, s, ALL_FLAGS, cases[k].name);
        uint64_t want = k < 5 ? 0x87654321ull : 0xffffffff87654321ull;
        if (s->r[0] != want) {
            fprintf(stderr, "%s: host rax %#llx, expected %#llx\n", cases[k].name,
                    (unsigned long long)s->r[0], (unsigned long long)want);
            bad = 1;
        }
        ncases_total++;
    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Flags replaced in part (ROL/ROR/RCL/RCR by 1, STC/CLC/CMC: CF and OF or
 * CF alone; MUL/IMUL: CF and OF) right after an operation whose flags are
 * still lazy, then read by PUSHF, SETcc, LAHF and SBB, in the same block
 * and after a jump (cpu/flags.h keeps the replaced flags over the lazy
 * operation).  MUL/IMUL leave SF ZF AF PF undefined: only CF and OF are
 * read after them. */
START_TEST(partial_flags_over_lazy)
{
    static const struct { const char *name; uint8_t b[4]; unsigned len; } lazy[] = {
        { "add eax,ebx", { 0x01, 0xd8 }, 2 }, { "sub eax,ebx", { 0x29, 0xd8 }, 2 },
        { "inc eax", { 0xff, 0xc0 }, 2 },      { "dec eax", { 0xff, 0xc8 }, 2 },
        { "and eax,ebx", { 0x21, 0xd8 }, 2 }, { "neg eax", { 0xf7, 0xd8 }, 2 },
        { "adc eax,ebx", { 0x11, 0xd8 }, 2 }, { "sub al,bl", { 0x28, 0xd8 }, 2 },
        { "add rax,rbx", { 0x48, 0x01, 0xd8 }, 3 },
    };
    static const struct { const char *name; uint8_t b[6]; unsigned len; bool cfof_only; } part[] = {
        { "rol eax,1", { 0xd1, 0xc0 }, 2, false },    { "ror eax,1", { 0xd1, 0xc8 }, 2, false },
        { "rol eax,1; ror ebx,1", { 0xd1, 0xc0, 0xd1, 0xcb }, 4, false },
        { "stc", { 0xf9 }, 1, false },                { "clc", { 0xf8 }, 1, false },
        { "cmc", { 0xf5 }, 1, false },                { "rcl eax,1", { 0xd1, 0xd0 }, 2, false },
        { "rcr ebx,1", { 0xd1, 0xdb }, 2, false },    { "rol rax,1", { 0x48, 0xd1, 0xc0 }, 3, false },
        { "ror al,1", { 0xd0, 0xc8 }, 2, false },     { "rol eax,1; stc", { 0xd1, 0xc0, 0xf9 }, 3, false },
        { "imul eax,ebx", { 0x0f, 0xaf, 0xc3 }, 3, true },
        { "imul rax,rbx,3", { 0x48, 0x6b, 0xc3, 0x03 }, 4, true },
        { "mul ebx", { 0xf7, 0xe3 }, 2, true },       { "imul ebx", { 0xf7, 0xeb }, 2, true },
    };
    /* pushfq; pop r8; setl r10b; setbe r11b; setp r14b; sets r15b; lahf */
    static const uint8_t read_all[] = { 0x9c, 0x41, 0x58, 0x41, 0x0f, 0x9c, 0xc2, 0x41, 0x0f, 0x96, 0xc3,
                                        0x41, 0x0f, 0x9a, 0xc6, 0x41, 0x0f, 0x98, 0xc7, 0x9f };
    /* seto r12b; setb r13b; sbb r9,r9 (last: it writes the flags) */
    static const uint8_t read_cfof[] = { 0x41, 0x0f, 0x90, 0xc4, 0x41, 0x0f, 0x92, 0xc5, 0x4d, 0x19, 0xc9 };
    static const uint64_t vals[][2] = {
        { 0x7fffffff, 1 }, { 0, 0 }, { 0x80000000, 0x80000000 }, { 5, 7 },
        { 0xffffffffffffffffull, 1 }, { 0x12345678, 0x9abcdef0 }, { 0x80, 0x80 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (size_t l = 0; l < sizeof(lazy) / sizeof(lazy[0]); l++)
        for (size_t p = 0; p < sizeof(part) / sizeof(part[0]); p++)
            for (unsigned jump = 0; jump < 2; jump++)
                for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
                    uint8_t code[64];
                    unsigned n = 0;
                    memcpy(code + n, lazy[l].b, lazy[l].len), n += lazy[l].len;
                    memcpy(code + n, part[p].b, part[p].len), n += part[p].len;
                    if (jump)
                        code[n++] = 0xeb, code[n++] = 0x00; /* jmp to the next instruction */
                    if (!part[p].cfof_only)
                        memcpy(code + n, read_all, sizeof(read_all)), n += sizeof(read_all);
                    memcpy(code + n, read_cfof, sizeof(read_cfof)), n += sizeof(read_cfof);
                    harness_init(s);
                    s->r[0] = vals[v][0];
                    s->r[3] = vals[v][1];
                    s->rflags = 0x202 | ((v + p) & 1 ? ALL_FLAGS : 0);
                    char what[128];
                    snprintf(what, sizeof(what), "%s; %s;%s read, rax %#llx rbx %#llx", lazy[l].name,
                             part[p].name, jump ? " jmp;" : "", (unsigned long long)vals[v][0],
                             (unsigned long long)vals[v][1]);
                    bad |= harness_compare(code, n, s, part[p].cfof_only ? CF | OF : ALL_FLAGS, what);
                    ncases_total++;
                }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shift");
    TCase *t = tcase_create("shift");
    tcase_add_loop_test(t, group2_all, 0, 8 * 4);
    tcase_add_loop_test(t, double_shifts, 0, 6);
    tcase_add_test(t, odd_forms);
    tcase_add_test(t, zero_count_zero_extends);
    tcase_add_test(t, partial_flags_over_lazy);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    printf("shift: %d cases compared with the host\n", ncases_total);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
