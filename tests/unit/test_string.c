/* The string instructions against the host CPU: MOVS STOS LODS CMPS SCAS
 * in B/W/D/Q, without prefix and with REP/REPE (F3) and REPNE (F2), both
 * directions, counts 0/1/7/64/4096, 64- and 32-bit (0x67) address sizes,
 * REPE/REPNE early exits, overlapping moves, XLAT.  Then, in the emulator
 * alone: faults in the middle of a REP (the registers must describe the
 * elements done, as on hardware), and segment overrides with a non-zero
 * base, which the native side cannot set up (the host's FS is our own TLS;
 * they run in an ia32 guest with GS/FS bases of our choosing). */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/cpu.h"
#include "cpu/flags.h"
#include "tests/unit/harness.h"

#define D HARNESS_DATA
#define ALL_FLAGS 0x8d5u
#define DF_SET 0x602u /* IF | DF */

enum { MOVS, CMPS, STOS, LODS, SCAS, NKINDS };
static const char *kind_name[] = { "movs", "cmps", "stos", "lods", "scas" };
static const uint8_t kind_opc[] = { 0xa4, 0xa6, 0xaa, 0xac, 0xae };
static const char width_char[] = { 'b', 'w', 'd', 'q' };
static const unsigned counts[] = { 0, 1, 7, 64, 4096 };

/* [67] [F3|F2] [66|REX.W] opcode */
static unsigned encode(uint8_t *b, unsigned kind, unsigned w, int rep, int a32)
{
    unsigned n = 0;
    if (a32)
        b[n++] = 0x67;
    if (rep == 1)
        b[n++] = 0xf3;
    else if (rep == 2)
        b[n++] = 0xf2;
    if (w == 1)
        b[n++] = 0x66;
    else if (w == 3)
        b[n++] = 0x48;
    b[n++] = (uint8_t)(kind_opc[kind] + (w != 0));
    return n;
}

static void fill_random(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* Offset in the data area of element i from start (DF picks the direction). */
static uint64_t elem(uint64_t start, unsigned i, unsigned size, int df)
{
    return (df ? start - (uint64_t)i * size : start + (uint64_t)i * size) - D;
}

/* Scenarios for the data a CMPS/SCAS meets (others use 0 only). */
enum { SC_RANDOM, SC_EQUAL, SC_EQ_BUT_MID, SC_EQ_BUT_LAST, SC_DIFF_BUT_MID, SC_DIFF_BUT_FIRST, NSC };

/* Make the element at index k of the CMPS/SCAS destination (dst, DF
 * direction) match or miss as the scenario says; want points at what an
 * equal element holds (the source element, or rAX). */
static void set_scenario(uint8_t *data, unsigned sc, uint64_t rdi, unsigned n, unsigned size,
                         int df, const uint8_t *(*want)(const uint8_t *data, unsigned i, void *ctx),
                         void *ctx)
{
    if (n == 0 || sc == SC_RANDOM)
        return;
    unsigned k = sc == SC_EQ_BUT_LAST ? n - 1 : sc == SC_DIFF_BUT_FIRST ? 0 : n / 2;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = data + elem(rdi, i, size, df);
        bool equal = sc == SC_EQUAL || (sc < SC_DIFF_BUT_MID ? i != k : i == k);
        if (equal || sc < SC_DIFF_BUT_MID)
            memcpy(e, want(data, i, ctx), size);
        if (!equal && memcmp(e, want(data, i, ctx), size) == 0)
            e[i % size] ^= 0x80; /* one byte off: above or below, signed or not */
    }
}

struct src_ctx { uint64_t rsi; unsigned size; int df; };
static const uint8_t *src_elem(const uint8_t *data, unsigned i, void *ctx)
{
    const struct src_ctx *x = ctx;
    return data + elem(x->rsi, i, x->size, x->df);
}
static const uint8_t *rax_elem(const uint8_t *data, unsigned i, void *ctx)
{
    (void)data;
    (void)i;
    return ctx;
}

/* One case of the matrix: kind, width index w, DF, prefix (0, F3, F2),
 * count index ci, address size, data scenario. */
static int matrix_case(struct hstate *s, unsigned kind, unsigned w, int df, int rep, unsigned ci,
                       int a32, unsigned sc)
{
    static const uint64_t stos_rax[] = { 0x8877665544332211ull, 0, ~0ull, 0x4141414141414141ull };
    unsigned size = 1u << w, n = counts[ci];
    uint64_t bytes = (uint64_t)n * size;
    /* source in the lower half, destination in the upper half, misaligned
     * for odd count indexes; DF = 1 starts at the top of each half */
    uint64_t soff = bytes + 5 <= 0x8000 && (ci & 1) ? 5 : 0;
    uint64_t doff = bytes + 3 <= 0x8000 && (ci & 1) ? 3 : 0;
    uint64_t rsi = df ? D + 0x8000 - size - soff : D + soff;
    uint64_t rdi = df ? D + 0x10000 - size - doff : D + 0x8000 + doff;
    uint64_t rax = kind == STOS ? stos_rax[sc] : 0x8877665544332211ull;
    harness_init(s);
    fill_random(s->data, HARNESS_DATA_SIZE, kind * 1000 + w * 100 + ci * 10 + sc);
    struct src_ctx x = { rsi, size, df };
    if (kind == CMPS)
        set_scenario(s->data, sc, rdi, n, size, df, src_elem, &x);
    else if (kind == SCAS)
        set_scenario(s->data, sc, rdi, n, size, df, rax_elem, &rax);
    /* with 0x67 only the low halves count: the high ones must not matter */
    uint64_t hi = a32 ? 0xdeadbeef00000000ull : 0;
    s->r[0] = rax;
    s->r[1] = n | (a32 ? 0xabcdef0100000000ull : 0);
    s->r[6] = rsi | hi;
    s->r[7] = rdi | hi;
    s->rflags = df ? DF_SET : 0x202;
    uint8_t code[8];
    unsigned len = encode(code, kind, w, rep, a32);
    char what[128];
    snprintf(what, sizeof(what), "%s%s%c count %u df %d%s scenario %u",
             rep == 1 ? "rep " : rep == 2 ? "repne " : "", kind_name[kind], width_char[w], n, df,
             a32 ? " addr32" : "", sc);
    return harness_compare(code, len, s, ALL_FLAGS, what);
}

/* Every kind, width, direction, prefix, count and address size; the data
 * scenarios for CMPS/SCAS, four fill values for STOS. */
START_TEST(string_matrix)
{
    unsigned kind = (unsigned)_i;
    unsigned nsc = kind == CMPS || kind == SCAS ? NSC : kind == STOS ? 4 : 1;
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned w = 0; w < 4; w++)
        for (int df = 0; df < 2; df++)
            for (int rep = 0; rep < 3; rep++)
                for (unsigned ci = 0; ci < 5; ci++)
                    for (int a32 = 0; a32 < 2; a32++)
                        for (unsigned sc = 0; sc < nsc; sc++)
                            if (rep || ci == 2) /* the count matters only with a prefix */
                                bad |= matrix_case(s, kind, w, df, rep, ci, a32, sc);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* REP MOVS with overlapping source and destination, both directions: the
 * element order shows (a forward copy to src+k repeats the first k bytes). */
START_TEST(overlapping_moves)
{
    unsigned w = (unsigned)_i;
    static const int deltas[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 64, 255, 256, 257,
                                  1000, 4095, 4096, 4097, 8192 };
    static const unsigned ns[] = { 1, 7, 64, 300, 1024 };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned di = 0; di < sizeof(deltas) / sizeof(deltas[0]); di++)
        for (int sign = -1; sign <= 1; sign += 2)
            for (unsigned ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
                for (int df = 0; df < 2; df++)
                    for (int misalign = 0; misalign < 2; misalign++) {
                        if (deltas[di] == 0 && sign > 0)
                            continue;
                        harness_init(s);
                        fill_random(s->data, HARNESS_DATA_SIZE, di * 77 + ni);
                        uint64_t rsi = D + 0x6000 + (uint64_t)misalign;
                        s->r[1] = ns[ni];
                        s->r[6] = rsi;
                        s->r[7] = rsi + (uint64_t)(int64_t)(sign * deltas[di]);
                        s->rflags = df ? DF_SET : 0x202;
                        uint8_t code[8];
                        unsigned len = encode(code, MOVS, w, 1, 0);
                        char what[96];
                        snprintf(what, sizeof(what), "rep movs%c count %u, rdi = rsi %+d, df %d%s",
                                 width_char[w], ns[ni], sign * deltas[di], df,
                                 misalign ? " (misaligned)" : "");
                        bad |= harness_compare(code, len, s, ALL_FLAGS, what);
                    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Strings in a loop the way compilers and old libcs write them, with the
 * flags read after the REPE/REPNE. */
START_TEST(string_idioms)
{
    static const struct { const char *name; uint8_t b[24]; unsigned len; } cases[] = {
        /* strlen: xor eax,eax; mov rcx,-1; repne scasb; not rcx; dec rcx */
        { "strlen", { 0x31, 0xc0, 0x48, 0xc7, 0xc1, 0xff, 0xff, 0xff, 0xff, 0xf2, 0xae,
                      0x48, 0xf7, 0xd1, 0x48, 0xff, 0xc9 }, 17 },
        /* memcmp: repe cmpsb; seta al; setb dl; setz bl */
        { "memcmp", { 0xf3, 0xa6, 0x0f, 0x97, 0xc0, 0x0f, 0x92, 0xc2, 0x0f, 0x94, 0xc3 }, 11 },
        /* std; rep movsq; cld */
        { "std rep movsq cld", { 0xfd, 0xf3, 0x48, 0xa5, 0xfc }, 5 },
        /* rep stosd; lodsw; lodsb */
        { "rep stosd; lodsw; lodsb", { 0xf3, 0xab, 0x66, 0xad, 0xac }, 5 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        for (unsigned len = 0; len < 600; len += 37) {
            harness_init(s);
            fill_random(s->data, HARNESS_DATA_SIZE, k * 1000 + len);
            /* a NUL at len for strlen; equal prefixes of len bytes for memcmp */
            s->data[0x1000 + len] = 0;
            memcpy(s->data + 0x3000, s->data + 0x1000, len);
            s->r[0] = 0x1234567887654321ull;
            s->r[1] = k == 1 ? len + 5 : len;
            s->r[6] = k == 2 ? D + 0x1000 + 8 * len : D + 0x1000;
            s->r[7] = k == 1 ? D + 0x3000 : k == 2 ? D + 0x5000 + 8 * len : D + 0x1000 + 3;
            char what[64];
            snprintf(what, sizeof(what), "%s, length %u", cases[k].name, len);
            bad |= harness_compare(cases[k].b, cases[k].len, s, ALL_FLAGS, what);
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* XLAT with every AL, with REX.W (no effect) and with 0x67 (EBX + AL). */
START_TEST(xlat_table)
{
    static const struct { const char *name; uint8_t b[2]; unsigned len; int a32; } forms[] = {
        { "xlat", { 0xd7 }, 1, 0 },
        { "rex.w xlat", { 0x48, 0xd7 }, 2, 0 },
        { "addr32 xlat", { 0x67, 0xd7 }, 2, 1 },
    };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned f = 0; f < 3; f++)
        for (unsigned al = 0; al < 256; al++) {
            harness_init(s);
            fill_random(s->data, HARNESS_DATA_SIZE, al);
            s->r[0] = 0xfedcba9876543200ull | al;
            s->r[3] = (D + 0x200 + (al & 7)) | (forms[f].a32 ? 0x1234567800000000ull : 0);
            char what[64];
            snprintf(what, sizeof(what), "%s with al=%#x", forms[f].name, al);
            bad |= harness_compare(forms[f].b, forms[f].len, s, ALL_FLAGS, what);
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ emulator only */
/* A fault in the middle of a REP: rCX/rSI/rDI describe the elements done
 * before the faulting one, and those elements are in memory.  HARNESS_DATA
 * + HARNESS_DATA_SIZE and HARNESS_DATA - 1 are unmapped in the emulator. */
#define END (D + HARNESS_DATA_SIZE)
static const struct fault_case {
    const char *name;
    uint8_t code[4];
    unsigned len;
    uint64_t rsi, rdi, rcx, rflags;
    uint64_t want_rsi, want_rdi, want_rcx; /* after the fault */
} fault_cases[] = {
    { "rep stosb into the end", { 0xf3, 0xaa }, 2, 0, END - 100, 4096, 0x202, 0, END, 3996 },
    { "rep stosb, short", { 0xf3, 0xaa }, 2, 0, END - 5, 7, 0x202, 0, END, 2 },
    { "rep stosq backward below the start", { 0xf3, 0x48, 0xab }, 3, 0, D + 80, 4096, DF_SET,
      0, D - 8, 4096 - 11 },
    { "rep stosd straddling the end", { 0xf3, 0xab }, 2, 0, END - 402, 4096, 0x202, 0, END - 2,
      4096 - 100 },
    { "rep movsb, destination into the end", { 0xf3, 0xa4 }, 2, D, END - 100, 4096, 0x202,
      D + 100, END, 3996 },
    { "rep movsb, source into the end", { 0xf3, 0xa4 }, 2, END - 300, D, 4096, 0x202, END,
      D + 300, 3796 },
    { "rep movsq, source straddling the end", { 0xf3, 0x48, 0xa5 }, 3, END - 796, D, 4096,
      0x202, END - 4, D + 99 * 8, 4096 - 99 },
    { "rep movsw backward below the start", { 0xf3, 0x66, 0xa5 }, 3, D + 0x8000, D + 0x100,
      1000, DF_SET, D + 0x8000 - 2 * 129, D - 2, 1000 - 129 },
    { "rep movsb after one whole chunk", { 0xf3, 0xa4 }, 2, D, D, 0x10005, 0x202, END, END, 5 },
    { "repe cmpsb off the end", { 0xf3, 0xa6 }, 2, END - 50, D + 0x1000, 4096, 0x202, END,
      D + 0x1000 + 50, 4046 },
    { "repne scasb off the end", { 0xf2, 0xae }, 2, 0, END - 10, 4096, 0x202, 0, END, 4086 },
    { "rep lodsd off the end", { 0xf3, 0xad }, 2, END - 40, 0, 4096, 0x202, END, 0, 4086 },
    { "movsb from nowhere", { 0xa4 }, 1, END + 4096, D, 0, 0x202, END + 4096, D, 0 },
    { "addr32 rep stosb into the end", { 0x67, 0xf3, 0xaa }, 3, 0, END - 100,
      0xffffffff00001000ull, 0x202, 0, END, 0x1000 - 100 },
};

START_TEST(fault_mid_rep)
{
    const struct fault_case *k = &fault_cases[_i];
    struct hstate *s = malloc(sizeof(*s));
    harness_init(s);
    /* zeros everywhere (CMPS/SCAS keep going), then a pattern to copy */
    for (unsigned i = 0; i < 0x200; i++)
        s->data[i] = (uint8_t)(i * 7 + 1);
    s->r[0] = 0x5a5a5a5a5a5a5a5aull;
    s->r[1] = k->rcx;
    s->r[6] = k->rsi;
    s->r[7] = k->rdi;
    s->rflags = k->rflags;
    int sig = harness_emu(k->code, k->len, s);
    ck_assert_msg(sig == SIGSEGV, "%s: signal %d", k->name, sig);
    ck_assert_msg(s->r[1] == k->want_rcx, "%s: rcx %#llx, want %#llx", k->name,
                  (unsigned long long)s->r[1], (unsigned long long)k->want_rcx);
    ck_assert_msg(s->r[6] == k->want_rsi, "%s: rsi %#llx, want %#llx", k->name,
                  (unsigned long long)s->r[6], (unsigned long long)k->want_rsi);
    ck_assert_msg(s->r[7] == k->want_rdi, "%s: rdi %#llx, want %#llx", k->name,
                  (unsigned long long)s->r[7], (unsigned long long)k->want_rdi);
    free(s);
}
END_TEST

/* What the elements done before the fault wrote. */
START_TEST(fault_keeps_completed_elements)
{
    struct hstate *s = malloc(sizeof(*s));
    /* rep movsb: 100 bytes from D to END - 100 */
    harness_init(s);
    for (unsigned i = 0; i < 0x200; i++)
        s->data[i] = (uint8_t)(i * 7 + 1);
    s->r[1] = 4096;
    s->r[6] = D;
    s->r[7] = END - 100;
    static const uint8_t movsb[] = { 0xf3, 0xa4 };
    ck_assert_int_eq(harness_emu(movsb, sizeof(movsb), s), SIGSEGV);
    ck_assert_int_eq(memcmp(s->data + HARNESS_DATA_SIZE - 100, s->data, 100), 0);
    /* rep stosd straddling the end: 100 dwords written, the straddling one not at all */
    harness_init(s);
    s->r[0] = 0x11223344;
    s->r[1] = 4096;
    s->r[7] = END - 402;
    static const uint8_t stosd[] = { 0xf3, 0xab };
    ck_assert_int_eq(harness_emu(stosd, sizeof(stosd), s), SIGSEGV);
    for (unsigned i = 0; i < 100; i++) {
        uint32_t v;
        memcpy(&v, s->data + HARNESS_DATA_SIZE - 402 + 4 * i, 4);
        ck_assert_uint_eq(v, 0x11223344);
    }
    ck_assert_uint_eq(s->data[HARNESS_DATA_SIZE - 2], 0);
    ck_assert_uint_eq(s->data[HARNESS_DATA_SIZE - 1], 0);
    free(s);
}
END_TEST

/* Segment overrides in an ia32 guest whose FS and GS have bases: the
 * source of MOVS/LODS/CMPS and XLAT's table follow the override, the
 * destination stays at ES (base 0). */
#define G_CODE 0x100000u
#define G_DATA 0x200000u
#define G_SIZE 0x10000u

struct g32 {
    struct mm_space mm;
    struct cpu c;
};

static int run32(struct g32 *g, const uint8_t *code, unsigned len)
{
    mm_protect(&g->mm, G_CODE, 4096, PROT_READ | PROT_WRITE);
    memset(g->mm.base + G_CODE, 0, 4096);
    memcpy(g->mm.base + G_CODE, code, len);
    g->mm.base[G_CODE + len] = 0xcc;
    mm_protect(&g->mm, G_CODE, 4096, PROT_READ | PROT_EXEC);
    cpu_invalidate(&g->c, G_CODE, G_CODE + 4096); /* new code at the same address */
    g->c.rip = G_CODE;
    cpu_run(&g->c);
    if (g->c.stop == CPU_SIGNALED && g->c.stop_code == SIGTRAP && g->c.rip == G_CODE + len + 1)
        return 0;
    return g->c.stop == CPU_SIGNALED ? g->c.stop_code : -1;
}

START_TEST(segment_override_ia32)
{
    static struct g32 g;
    ck_assert_int_eq(mm_space_init(&g.mm, 32), 0);
    ck_assert_int_eq(mm_map_anon(&g.mm, G_CODE, 4096, PROT_READ | PROT_WRITE, 0, "code"), 0);
    ck_assert_int_eq(mm_map_anon(&g.mm, G_DATA, G_SIZE, PROT_READ | PROT_WRITE, 0, "data"), 0);
    uint8_t *data = g.mm.base + G_DATA;
    fill_random(data, G_SIZE, 42);
    uint8_t orig[G_SIZE];
    memcpy(orig, data, G_SIZE);
    const uint32_t gs = 0x8000, fs = 0x4000; /* the source at offset X reads data + base + X */
    for (int df = 0; df < 2; df++)
        for (unsigned n = 1; n <= 1000; n += 333) {
            /* gs: rep movsb / rep movsd (the bulk path from 256 bytes on) */
            static const uint8_t movsb[] = { 0x65, 0xf3, 0xa4 }, movsd[] = { 0x65, 0xf3, 0xa5 };
            for (unsigned size = 1; size <= 4; size += 3) {
                memcpy(data, orig, G_SIZE);
                cpu_init(&g.c, &g.mm, 32);
                g.c.seg_base[SEG_GS] = gs;
                g.c.seg_base[SEG_FS] = fs;
                uint32_t src = df ? 0x1000 + (n - 1) * size : 0x1000;
                uint32_t dst = df ? 0x100 + (n - 1) * size : 0x100;
                g.c.r[R_SI] = G_DATA + src;
                g.c.r[R_DI] = G_DATA + dst;
                g.c.r[R_CX] = n;
                g.c.rflags = df ? DF_SET : 0x202;
                int sig = size == 1 ? run32(&g, movsb, 3) : run32(&g, movsd, 3);
                ck_assert_int_eq(sig, 0);
                ck_assert_int_eq(memcmp(data + 0x100, orig + gs + 0x1000, n * size), 0);
                ck_assert_uint_eq(g.c.r[R_CX], 0);
                ck_assert_uint_eq(g.c.r[R_SI], df ? G_DATA + 0x1000 - size : G_DATA + 0x1000 + n * size);
                cpu_destroy(&g.c);
            }
        }
    /* fs: lodsw; gs: cmpsb; fs: xlat; es override (flat) on a source */
    cpu_init(&g.c, &g.mm, 32);
    g.c.seg_base[SEG_GS] = gs;
    g.c.seg_base[SEG_FS] = fs;
    memcpy(data, orig, G_SIZE);
    memcpy(data + 0x300, data + gs + 0x2000, 16); /* equal for cmpsb */
    g.c.r[R_SI] = G_DATA + 0x2000;
    g.c.r[R_DI] = G_DATA + 0x300;
    g.c.r[R_BX] = G_DATA + 0x10;
    g.c.r[R_AX] = 0;
    g.c.r[R_CX] = 16;
    /* fs lodsw; gs repe cmpsb (after lodsw: si = 0x2002, gs -> data + gs + 0x2002) */
    static const uint8_t seq1[] = { 0x64, 0x66, 0xad };
    ck_assert_int_eq(run32(&g, seq1, sizeof(seq1)), 0);
    uint16_t w;
    memcpy(&w, data + fs + 0x2000, 2);
    ck_assert_uint_eq(g.c.r[R_AX], w);
    g.c.r[R_SI] = G_DATA + 0x2000;
    static const uint8_t seq2[] = { 0x65, 0xf3, 0xa6 };
    ck_assert_int_eq(run32(&g, seq2, sizeof(seq2)), 0);
    ck_assert_uint_eq(g.c.r[R_CX], 0);
    ck_assert(cpu_flags(&g.c) & FL_ZF);
    g.c.r[R_AX] = 0x12345605;
    static const uint8_t seq3[] = { 0x64, 0xd7 };
    ck_assert_int_eq(run32(&g, seq3, sizeof(seq3)), 0);
    ck_assert_uint_eq(g.c.r[R_AX], 0x12345600u | data[fs + 0x10 + 5]);
    g.c.r[R_SI] = G_DATA + 0x40;
    g.c.r[R_DI] = G_DATA + 0x50;
    static const uint8_t seq4[] = { 0x26, 0xa4 };
    ck_assert_int_eq(run32(&g, seq4, sizeof(seq4)), 0);
    ck_assert_uint_eq(data[0x50], data[0x40]);
    /* 0x67 in an ia32 guest is 16-bit addressing: not implemented, SIGILL */
    g.c.log_unimplemented = false;
    static const uint8_t seq5[] = { 0x67, 0xa4 };
    ck_assert_int_eq(run32(&g, seq5, sizeof(seq5)), SIGILL);
    cpu_destroy(&g.c);
    mm_space_destroy(&g.mm);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("string");
    TCase *t = tcase_create("string");
    tcase_add_loop_test(t, string_matrix, 0, NKINDS);
    tcase_add_loop_test(t, overlapping_moves, 0, 4);
    tcase_add_test(t, string_idioms);
    tcase_add_test(t, xlat_table);
    tcase_add_loop_test(t, fault_mid_rep, 0, sizeof(fault_cases) / sizeof(fault_cases[0]));
    tcase_add_test(t, fault_keeps_completed_elements);
    tcase_add_test(t, segment_override_ia32);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
