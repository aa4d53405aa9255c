/* The bit instructions against the host CPU: BT BTS BTR BTC (register and
 * imm8 offsets, register and memory destinations, LOCK), BSF BSR POPCNT
 * LZCNT TZCNT, at 16, 32 and 64 bits.  Flags are compared where the SDM
 * defines them: CF and ZF (unaffected) for the bit tests, ZF for BSF/BSR,
 * all six for POPCNT, CF and ZF for LZCNT/TZCNT. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

#define FL_CF 0x001u
#define FL_ZF 0x040u
#define ALL_FLAGS 0x8d5u

static const uint64_t edge[] = {
    0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff,
    0x80000000, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
    0xffffffffffffffffull, 0x123456789abcdef0ull, 0xfedcba9876543210ull, 0x0f0f0f0f0f0f0f0full,
    0xffff000000000000ull, 0x0000ffff00000000ull, 0x00000000ffff0000ull, 0x8000800080008000ull,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

/* Two starting flag states: all arithmetic flags clear / set. */
static const uint64_t start_flags[] = { 0x202, 0x202 | ALL_FLAGS };

/* Bit offsets for the register and imm8 forms: modulo the width. */
static const uint64_t small_off[] = { 0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 0x7f, 0x80, 0xff };
#define NSMALL (sizeof(small_off) / sizeof(small_off[0]))

/* Signed register offsets for the memory form: they select other words. */
static const int64_t mem_off[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 1000, 0x7fff, -1, -2, -15, -16, -17,
    -31, -32, -33, -63, -64, -65, -1000, -0x7fff, -0x8000, 0x3ff00, -0x3ff00, 0x1ffff, -0x20000,
};
#define NMEMOFF (sizeof(mem_off) / sizeof(mem_off[0]))

/* Encode [F0] [66] [REX.W] 0F opc modrm [imm8]. */
static unsigned encode(uint8_t *b, int lock, unsigned bits, int f3, uint8_t opc, uint8_t modrm,
                       int imm)
{
    unsigned n = 0;
    if (lock)
        b[n++] = 0xf0;
    if (bits == 16)
        b[n++] = 0x66;
    if (f3)
        b[n++] = 0xf3;
    if (bits == 64)
        b[n++] = 0x48;
    b[n++] = 0x0f;
    b[n++] = opc;
    b[n++] = modrm;
    if (imm >= 0)
        b[n++] = (uint8_t)imm;
    return n;
}

static void fill_data(struct hstate *s, uint32_t seed)
{
    for (unsigned i = 0; i < HARNESS_DATA_SIZE; i++) {
        seed = seed * 1103515245u + 12345u;
        s->data[i] = (uint8_t)(seed >> 16);
    }
}

static const unsigned widths[] = { 16, 32, 64 };
static const char *bt_names[] = { "bt", "bts", "btr", "btc" };
static const uint8_t bt_rr_opc[] = { 0xa3, 0xab, 0xb3, 0xbb }; /* r/m, reg */
static const uint8_t bt_imm_ext[] = { 4, 5, 6, 7 };             /* 0F BA /n ib */

/* bt/bts/btr/btc rax, rcx and rax, imm8. */
START_TEST(bt_register_destination)
{
    unsigned op = (unsigned)_i;
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned w = 0; w < 3; w++)
        for (unsigned o = 0; o < NSMALL; o++)
            for (unsigned v = 0; v < NEDGE; v++)
                for (unsigned f = (o + v) & 1; f < 2; f += 2) /* alternate the flags */
                    for (int form = 0; form < 2; form++) {
                        uint8_t code[16];
                        unsigned len = form == 0
                            ? encode(code, 0, widths[w], 0, bt_rr_opc[op], 0xc8, -1)
                            : encode(code, 0, widths[w], 0, 0xba, (uint8_t)(0xc0 | bt_imm_ext[op] << 3),
                                     (int)small_off[o]);
                        harness_init(s);
                        s->r[0] = edge[v];
                        /* garbage above the bits the offset uses */
                        s->r[1] = small_off[o] | 0x5a5a5a5a00000000ull;
                        s->rflags = start_flags[f];
                        char what[96];
                        snprintf(what, sizeof(what), "%s%u rax=%#llx, %s%#llx, flags %#llx",
                                 bt_names[op], widths[w], (unsigned long long)edge[v],
                                 form ? "imm " : "rcx=", (unsigned long long)small_off[o],
                                 (unsigned long long)start_flags[f]);
                        bad |= harness_compare(code, len, s, FL_CF | FL_ZF, what);
                    }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* bt/bts/btr/btc [rsi], rcx (signed offset, any word) and [rsi], imm8
 * (modulo the width), plain and LOCKed, and with a 32-bit address size. */
START_TEST(bt_memory_destination)
{
    unsigned op = (unsigned)_i;
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned w = 0; w < 3; w++)
        for (int lock = 0; lock < (op ? 2 : 1); lock++) {
            /* register offsets */
            for (unsigned o = 0; o < NMEMOFF; o++)
                for (unsigned f = 0; f < 2; f++)
                    for (int a32 = 0; a32 < 2; a32++) {
                        uint8_t code[16];
                        unsigned len = 0;
                        if (a32)
                            code[len++] = 0x67;
                        len += encode(code + len, lock, widths[w], 0, bt_rr_opc[op], 0x0e, -1);
                        harness_init(s);
                        fill_data(s, o * 7 + w);
                        s->r[6] = HARNESS_DATA + 0x8000 + (a32 ? 0xffffffff00000000ull : 0);
                        uint64_t off = (uint64_t)mem_off[o];
                        if (widths[w] == 16)
                            off = (off & 0xffff) | 0x12340000ull;
                        else if (widths[w] == 32)
                            off = (off & 0xffffffff) | 0x9876543200000000ull;
                        s->r[1] = off;
                        s->rflags = start_flags[f];
                        char what[112];
                        snprintf(what, sizeof(what), "%s%s%u [rsi], rcx=%#llx%s flags %#llx",
                                 lock ? "lock " : "", bt_names[op], widths[w],
                                 (unsigned long long)off, a32 ? " (addr32)" : "",
                                 (unsigned long long)start_flags[f]);
                        bad |= harness_compare(code, len, s, FL_CF | FL_ZF, what);
                    }
            /* imm8 offsets */
            for (unsigned o = 0; o < NSMALL; o++)
                for (unsigned f = 0; f < 2; f++) {
                    uint8_t code[16];
                    unsigned len = encode(code, lock, widths[w], 0, 0xba,
                                          (uint8_t)(0x06 | bt_imm_ext[op] << 3), (int)small_off[o]);
                    harness_init(s);
                    fill_data(s, o * 13 + w + 1);
                    s->r[6] = HARNESS_DATA + 0x8000 + 3; /* unaligned too */
                    s->rflags = start_flags[f];
                    char what[96];
                    snprintf(what, sizeof(what), "%s%s%u [rsi], %#llx flags %#llx",
                             lock ? "lock " : "", bt_names[op], widths[w],
                             (unsigned long long)small_off[o], (unsigned long long)start_flags[f]);
                    bad |= harness_compare(code, len, s, FL_CF | FL_ZF, what);
                }
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* BT then the flag readers (jc/setc), as compilers use it. */
START_TEST(bt_with_setcc)
{
    /* bt rax, rcx; setc dl; setz bl */
    static const uint8_t code[] = { 0x48, 0x0f, 0xa3, 0xc8, 0x0f, 0x92, 0xc2, 0x0f, 0x94, 0xc3 };
    /* cmp rax, rcx (lazy flags) first, then bts: ZF must survive */
    static const uint8_t code2[] = { 0x48, 0x39, 0xc8, 0x48, 0x0f, 0xab, 0xc8, 0x0f, 0x94, 0xc3,
                                     0x0f, 0x92, 0xc2 };
    struct hstate *s = malloc(sizeof(*s));
    int bad = 0;
    for (unsigned v = 0; v < NEDGE; v++)
        for (unsigned o = 0; o < NSMALL; o++) {
            harness_init(s);
            s->r[0] = edge[v];
            s->r[1] = small_off[o];
            bad |= harness_compare(code, sizeof(code), s, FL_CF | FL_ZF, "bt; setc; setz");
            harness_init(s);
            s->r[0] = edge[v];
            s->r[1] = small_off[o];
            bad |= harness_compare(code2, sizeof(code2), s, FL_CF | FL_ZF, "cmp; bts; setz; setc");
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* bsf bsr popcnt tzcnt lzcnt: opcode, F3 prefix, flags the SDM defines. */
static const struct {
    const char *name;
    uint8_t opc;
    int f3;
    unsigned mask;
} scans[] = {
    { "bsf", 0xbc, 0, FL_ZF },
    { "bsr", 0xbd, 0, FL_ZF },
    { "popcnt", 0xb8, 1, ALL_FLAGS },
    { "tzcnt", 0xbc, 1, FL_CF | FL_ZF },
    { "lzcnt", 0xbd, 1, FL_CF | FL_ZF },
};

/* op rax, rcx and op rax, [rsi]; the destination starts as garbage so a
 * zero source to BSF/BSR shows it unchanged (the whole 64-bit register). */
START_TEST(scan_and_count)
{
    unsigned k = (unsigned)_i;
    struct hstate *s = malloc(sizeof(*s));
    static const uint64_t garbage[] = { 0xdeadbeefcafebabeull, 0x00000000000000f1ull };
    int bad = 0;
    for (unsigned w = 0; w < 3; w++)
        for (int mem = 0; mem < 2; mem++)
            for (unsigned v = 0; v < NEDGE + 64; v++)
                for (unsigned fg = 0; fg < 4; fg++) {
                    /* the edge values with both flag states and
                     * destinations, then every single bit with one */
                    if (v >= NEDGE && fg != (v & 3))
                        continue;
                    unsigned f = fg & 1, g = fg >> 1;
                    uint64_t src = v < NEDGE ? edge[v] : 1ull << (v - NEDGE);
                    uint8_t code[16];
                    unsigned len = encode(code, 0, widths[w], scans[k].f3, scans[k].opc,
                                          mem ? 0x06 : 0xc1, -1);
                    harness_init(s);
                    s->r[0] = garbage[g];
                    s->r[1] = src;
                    s->r[6] = HARNESS_DATA + 0x100 + 1;
                    memcpy(s->data + 0x101, &src, 8);
                    s->rflags = start_flags[f];
                    char what[96];
                    snprintf(what, sizeof(what), "%s%u rax, %s=%#llx flags %#llx",
                             scans[k].name, widths[w], mem ? "[rsi]" : "rcx",
                             (unsigned long long)src, (unsigned long long)start_flags[f]);
                    bad |= harness_compare(code, len, s, scans[k].mask, what);
                }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
    if (!harness_host_has("popcnt abm bmi1")) {
        printf("skip: the host CPU lacks one of popcnt abm bmi1, needed for the native side\n");
        return HARNESS_SKIP;
    }
    Suite *s = suite_create("bits");
    TCase *t = tcase_create("bits");
    tcase_add_loop_test(t, bt_register_destination, 0, 4);
    tcase_add_loop_test(t, bt_memory_destination, 0, 4);
    tcase_add_test(t, bt_with_setcc);
    tcase_add_loop_test(t, scan_and_count, 0, sizeof(scans) / sizeof(scans[0]));
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
