/* SSE4.2 (string compares, PCMPGTQ, CRC32), AES-NI and PCLMULQDQ against
 * the host CPU, plus the FIPS-197 and CRC-32C check values in the emulator.
 *
 * String compares: xmm1 holds the first operand, xmm2 and [rsi] the
 * second.  The index forms are run in batches -- one instruction per imm8,
 * each followed by PUSHFQ/POP and stores of the flags and RCX to [rdi+16*k]
 * (RCX is set to garbage from R9 before each, so the 32-bit write must clear its
 * upper half) -- so that a single comparison covers 128 control bytes; a
 * difference in the data area at HARNESS_DATA + 0x1000 + 16*k is the k-th
 * control byte of the batch.  The mask forms write XMM0 and are compared
 * one control byte at a time. */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/harness.h"

#define ALL_FLAGS 0x8d5u
#define OUT_OFF 0x1000u  /* batch results, 16 bytes per control byte */
#define SRC_OFF 0x100u   /* [rsi]: the second operand in memory */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

struct code {
    uint8_t b[4080];
    size_t n;
};

static void emit(struct code *c, const void *p, size_t n)
{
    if (c->n + n > sizeof(c->b))
        abort();
    memcpy(c->b + c->n, p, n);
    c->n += n;
}

static void emit32(struct code *c, uint32_t v) { emit(c, &v, 4); }

/* ------------------------------------------------------------ string pairs */
struct pair {
    uint8_t a[16], b[16];
};

static struct pair pairs[40];
static unsigned npairs;

static void add_pair(const void *a, size_t na, const void *b, size_t nb)
{
    struct pair *p = &pairs[npairs++];
    memset(p, 0, sizeof(*p));
    memcpy(p->a, a, na > 16 ? 16 : na);
    memcpy(p->b, b, nb > 16 ? 16 : nb);
}

#define STR_PAIR(a, b) add_pair(a, sizeof(a) - 1, b, sizeof(b) - 1)

static void make_pairs(void)
{
    if (npairs)
        return;
    STR_PAIR("aeiou", "hello world");
    STR_PAIR("azAZ09", "Hello, World 42!");            /* ranges, b has no NUL */
    STR_PAIR("0123456789abcdef", "fedcba9876543210");  /* neither has a NUL */
    STR_PAIR("", "abc");                               /* empty first operand */
    STR_PAIR("abc", "");                               /* empty second operand */
    STR_PAIR("", "");
    STR_PAIR("lo w", "hello world");
    STR_PAIR("abc", "xxxxxxxxxxxxxxab");               /* needle runs off the end */
    STR_PAIR("abcabc", "abcabcabcabcabca");
    STR_PAIR("az0", "mno09za");                        /* odd number of range bounds */
    STR_PAIR("hello world", "hello world");            /* equal each */
    STR_PAIR("hello\0world", "hello\0xorld");          /* differ after the NUL */
    STR_PAIR("hello world!!!!!", "hello world!!!!?");
    /* bytes around the sign boundaries, for signed and unsigned ranges */
    static const uint8_t sa[] = { 0x01, 0x7f, 0x80, 0xff, 0x90, 0xa0, 0x7e, 0x7f };
    static const uint8_t sb[] = { 0x81, 0x7e, 0xfe, 0x01, 0x80, 0x7f, 0xff, 0x00, 0x95, 0x40 };
    add_pair(sa, sizeof(sa), sb, sizeof(sb));
    add_pair(sb, sizeof(sb), sa, sizeof(sa));
    /* words: 0x0100 has a NUL byte but is not a NUL word */
    static const uint16_t wa[] = { 0x0041, 0x8000, 0xffff, 0x7fff, 0x0100, 0x0042 };
    static const uint16_t wb[] = { 0x0100, 0x7fff, 0x8000, 0x0041, 0xfffe, 0x0042, 0x8001, 0x0000 };
    add_pair(wa, sizeof(wa), wb, sizeof(wb));
    add_pair(wb, sizeof(wb), wa, sizeof(wa));
    static const uint16_t wc[] = { 0x0100, 0x0200, 0x0000, 0x0300 };
    static const uint16_t wd[] = { 0x0300, 0x0100, 0x0200, 0x0100, 0x0200, 0x0000 };
    add_pair(wc, sizeof(wc), wd, sizeof(wd));
    /* random strings over a small alphabet (so that things match), with
     * NULs at random places or none */
    static const uint8_t alpha[] = { 'a', 'b', 'c', 0x80, 0xff, 0x7f, 0x01, 'a', 'b', 0x00 };
    while (npairs < sizeof(pairs) / sizeof(pairs[0])) {
        struct pair *p = &pairs[npairs++];
        for (int i = 0; i < 16; i++) {
            p->a[i] = alpha[next_rand() % 9];
            p->b[i] = alpha[next_rand() % 9];
        }
        unsigned k = (unsigned)next_rand() % 4;
        if (k != 0)
            p->a[next_rand() % 16] = 0;
        if (k != 1)
            p->b[next_rand() % 16] = 0;
        if (k == 3) {
            p->a[next_rand() % 16] = 0;
            p->b[next_rand() % 16] = 0;
        }
    }
}

/* Explicit lengths (RAX, RDX): beyond 16, negative, and values whose low
 * and high halves disagree (only the REX.W forms see the high half). */
static const int64_t lens[] = {
    0, 1, 2, 5, 7, 8, 9, 15, 16, 17, 200, -1, -2, -7, -8, -9, -15, -16, -17,
    0x7fffffff, (int64_t)0x80000000ull, (int64_t)0xffffffffull, 0x100000003ll,
    -3, INT64_MIN, INT64_MAX, (int64_t)0xfffffff000000004ull,
};
#define NLENS (sizeof(lens) / sizeof(lens[0]))

static void str_state(struct hstate *s, const struct pair *p, int64_t la, int64_t lb)
{
    harness_init(s);
    memcpy(hs_xmm(s, 1), p->a, 16);
    memcpy(hs_xmm(s, 2), p->b, 16);
    memset(hs_xmm(s, 0), 0x5a, 16);
    memcpy(s->data + SRC_OFF, p->b, 16);
    memcpy(s->data + SRC_OFF + 0x41, p->b, 16); /* misaligned copy: no #GP for these */
    s->r[0] = (uint64_t)la;
    s->r[2] = (uint64_t)lb;
    s->r[6] = HARNESS_DATA + SRC_OFF;
    s->r[7] = HARNESS_DATA + OUT_OFF;
    s->r[9] = 0xdeadbeefdeadbeefull;
    s->rflags = 0x202 | ALL_FLAGS; /* AF and PF must be cleared */
}

/* kind: opcode byte 0x60 (PCMPESTRM), 0x61 (PCMPESTRI), 0x62 (PCMPISTRM),
 * 0x63 (PCMPISTRI); modrm 0xca = xmm1,xmm2; 0x0e = xmm1,[rsi];
 * 0x4e 0x41 = xmm1,[rsi+0x41]. */
static void emit_str(struct code *c, uint8_t kind, bool rexw, int mem, uint8_t imm)
{
    uint8_t b[8];
    size_t n = 0;
    b[n++] = 0x66;
    if (rexw)
        b[n++] = 0x48;
    b[n++] = 0x0f;
    b[n++] = 0x3a;
    b[n++] = kind;
    if (mem == 0)
        b[n++] = 0xca;
    else if (mem == 1)
        b[n++] = 0x0e;
    else {
        b[n++] = 0x4e;
        b[n++] = 0x41;
    }
    b[n++] = imm;
    emit(c, b, n);
}

/* One batch: mov rcx,r9; pcmp?stri; pushfq; pop r8; mov [rdi+16k],r8;
 * mov [rdi+16k+8],rcx -- for imm8 = base .. base+127. */
static void build_index_batch(struct code *c, uint8_t kind, bool rexw, int mem, unsigned base)
{
    static const uint8_t set_rcx[] = { 0x4c, 0x89, 0xc9 }; /* mov rcx,r9 (garbage) */
    static const uint8_t flags_r8[] = { 0x9c, 0x41, 0x58 };
    c->n = 0;
    for (unsigned k = 0; k < 128; k++) {
        emit(c, set_rcx, sizeof(set_rcx));
        emit_str(c, kind, rexw, mem, (uint8_t)(base + k));
        emit(c, flags_r8, sizeof(flags_r8));
        emit(c, (const uint8_t[]){ 0x4c, 0x89, 0x87 }, 3);
        emit32(c, 16 * k);
        emit(c, (const uint8_t[]){ 0x48, 0x89, 0x8f }, 3);
        emit32(c, 16 * k + 8);
    }
}

static struct hstate *new_state(void)
{
    struct hstate *s = malloc(sizeof(*s));
    ck_assert_ptr_nonnull(s);
    return s;
}

START_TEST(pcmpistri_all_modes)
{
    make_pairs();
    struct hstate *s = new_state();
    struct code *c = malloc(sizeof(*c));
    int bad = 0;
    for (int mem = 0; mem < 3; mem++)
        for (unsigned base = 0; base < 256; base += 128) {
            build_index_batch(c, 0x63, false, mem, base);
            for (unsigned p = 0; p < npairs; p++) {
                if (mem && p % 2)
                    continue;
                str_state(s, &pairs[p], 0, 0);
                char what[96];
                snprintf(what, sizeof(what), "pcmpistri pair %u, form %d, imm8 %u + (offset - 0x%x) / 16",
                         p, mem, base, OUT_OFF);
                bad |= harness_compare(c->b, c->n, s, ALL_FLAGS, what);
            }
        }
    free(c);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(pcmpestri_all_modes)
{
    make_pairs();
    struct hstate *s = new_state();
    struct code *c = malloc(sizeof(*c));
    int bad = 0;
    for (int rexw = 0; rexw < 2; rexw++)
        for (int mem = 0; mem < 3; mem++)
            for (unsigned base = 0; base < 256; base += 128) {
                if (base && mem)
                    continue;
                build_index_batch(c, 0x61, rexw, mem, base);
                for (unsigned p = 0; p < npairs; p++)
                    for (unsigned q = 0; q < (mem || base ? 2u : 12u); q++) {
                        int64_t la = lens[(p * 5 + q) % NLENS];
                        int64_t lb = lens[(p * 11 + q * 3 + 1) % NLENS];
                        str_state(s, &pairs[p], la, lb);
                        char what[128];
                        snprintf(what, sizeof(what),
                                 "pcmpestri%s pair %u, form %d, rax %lld, rdx %lld, imm8 %u + (offset - 0x%x) / 16",
                                 rexw ? " (REX.W)" : "", p, mem, (long long)la, (long long)lb, base, OUT_OFF);
                        bad |= harness_compare(c->b, c->n, s, ALL_FLAGS, what);
                    }
            }
    free(c);
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* The mask forms: every meaningful control byte (bits 0-6) on every pair,
 * register operand; memory operands and bit 7 on a sample. */
START_TEST(pcmpistrm_all_modes)
{
    make_pairs();
    struct hstate *s = new_state();
    struct code c;
    int bad = 0;
    for (unsigned p = 0; p < npairs; p++)
        for (unsigned imm = 0; imm < 128; imm++) {
            int mem = (imm + p) % 8 == 0 ? 1 + (int)(p & 1) : 0;
            c.n = 0;
            emit_str(&c, 0x62, false, mem, (uint8_t)(imm | ((p & 3) == 3 ? 0x80 : 0)));
            str_state(s, &pairs[p], 0, 0);
            char what[64];
            snprintf(what, sizeof(what), "pcmpistrm pair %u, form %d, imm8 %#x", p, mem, c.b[c.n - 1]);
            bad |= harness_compare(c.b, c.n, s, ALL_FLAGS, what);
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(pcmpestrm_all_modes)
{
    make_pairs();
    struct hstate *s = new_state();
    struct code c;
    int bad = 0;
    for (unsigned p = 0; p < npairs; p++)
        for (unsigned imm = 0; imm < 128; imm++)
            for (int rexw = 0; rexw < 2; rexw++) {
                int mem = (imm + p) % 8 == 0 ? 1 + (int)(p & 1) : 0;
                int64_t la = lens[(p * 7 + imm * 3 + (unsigned)rexw) % NLENS];
                int64_t lb = lens[(p * 13 + imm * 5 + 2) % NLENS];
                c.n = 0;
                emit_str(&c, 0x60, rexw, mem, (uint8_t)(imm | ((p & 3) == 3 ? 0x80 : 0)));
                str_state(s, &pairs[p], la, lb);
                char what[96];
                snprintf(what, sizeof(what), "pcmpestrm%s pair %u, form %d, rax %lld, rdx %lld, imm8 %#x",
                         rexw ? " (REX.W)" : "", p, mem, (long long)la, (long long)lb, c.b[c.n - 1]);
                bad |= harness_compare(c.b, c.n, s, ALL_FLAGS, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ PCMPGTQ */
static const uint64_t edge[] = {
    0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
    0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull, 0xfffffffffffffffeull,
    0xffffffffffffffffull, 0x123456789abcdef0ull, 0xfedcba9876543210ull,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

static void xmm_q(struct hstate *s, int i, uint64_t lo, uint64_t hi)
{
    memcpy(hs_xmm(s, i), &lo, 8);
    memcpy((uint8_t *)hs_xmm(s, i) + 8, &hi, 8);
}

START_TEST(pcmpgtq)
{
    static const struct { const char *name; uint8_t b[8]; unsigned len; } forms[] = {
        { "pcmpgtq xmm1,xmm2", { 0x66, 0x0f, 0x38, 0x37, 0xca }, 5 },
        { "pcmpgtq xmm1,[rsi]", { 0x66, 0x0f, 0x38, 0x37, 0x0e }, 5 },
        { "pcmpgtq xmm9,xmm14", { 0x66, 0x45, 0x0f, 0x38, 0x37, 0xce }, 6 },
        { "pcmpgtq xmm1,xmm1", { 0x66, 0x0f, 0x38, 0x37, 0xc9 }, 5 },
    };
    struct hstate *s = new_state();
    int bad = 0;
    for (unsigned f = 0; f < 4; f++)
        for (unsigned i = 0; i < NEDGE; i++)
            for (unsigned j = 0; j < NEDGE; j++) {
                harness_init(s);
                uint64_t x = edge[i], y = edge[j], z = edge[(i + j) % NEDGE];
                xmm_q(s, 1, x, y);
                xmm_q(s, 2, y, z);
                xmm_q(s, 9, x, y);
                xmm_q(s, 14, y, z);
                memcpy(s->data + SRC_OFF, hs_xmm(s, 2), 16);
                s->r[6] = HARNESS_DATA + SRC_OFF;
                s->rflags = 0x202 | ((i & 1) ? ALL_FLAGS : 0);
                char what[96];
                snprintf(what, sizeof(what), "%s with %#llx, %#llx", forms[f].name,
                         (unsigned long long)x, (unsigned long long)y);
                bad |= harness_compare(forms[f].b, forms[f].len, s, ALL_FLAGS, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------ CRC32 */
START_TEST(crc32_all_widths)
{
    static const struct { const char *name; uint8_t b[8]; unsigned len; } forms[] = {
        { "crc32 eax,bl", { 0xf2, 0x0f, 0x38, 0xf0, 0xc3 }, 5 },
        { "crc32 eax,bh", { 0xf2, 0x0f, 0x38, 0xf0, 0xc7 }, 5 },
        { "crc32 eax,sil", { 0xf2, 0x40, 0x0f, 0x38, 0xf0, 0xc6 }, 6 },
        { "crc32 rax,bl", { 0xf2, 0x48, 0x0f, 0x38, 0xf0, 0xc3 }, 6 },
        { "crc32 r8d,bl", { 0xf2, 0x44, 0x0f, 0x38, 0xf0, 0xc3 }, 6 },
        { "crc32 eax,bx", { 0x66, 0xf2, 0x0f, 0x38, 0xf1, 0xc3 }, 6 },
        { "crc32 eax,ebx", { 0xf2, 0x0f, 0x38, 0xf1, 0xc3 }, 5 },
        { "crc32 rax,rbx", { 0xf2, 0x48, 0x0f, 0x38, 0xf1, 0xc3 }, 6 },
        { "crc32 r9,r10", { 0xf2, 0x4d, 0x0f, 0x38, 0xf1, 0xca }, 6 },
        { "crc32 eax,byte [rsi]", { 0xf2, 0x0f, 0x38, 0xf0, 0x06 }, 5 },
        { "crc32 rax,byte [rsi]", { 0xf2, 0x48, 0x0f, 0x38, 0xf0, 0x06 }, 6 },
        { "crc32 eax,word [rsi]", { 0x66, 0xf2, 0x0f, 0x38, 0xf1, 0x06 }, 6 },
        { "crc32 eax,dword [rsi]", { 0xf2, 0x0f, 0x38, 0xf1, 0x06 }, 5 },
        { "crc32 rax,qword [rsi+1]", { 0xf2, 0x48, 0x0f, 0x38, 0xf1, 0x46, 0x01 }, 7 },
    };
    struct hstate *s = new_state();
    int bad = 0;
    for (unsigned f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
        for (unsigned i = 0; i < NEDGE + 8; i++)
            for (unsigned j = 0; j < NEDGE + 8; j++) {
                uint64_t crc = i < NEDGE ? edge[i] : next_rand();
                uint64_t v = j < NEDGE ? edge[j] : next_rand();
                harness_init(s);
                s->r[0] = crc;
                s->r[8] = crc;
                s->r[9] = crc;
                s->r[3] = v;
                s->r[6] = v;
                s->r[10] = v;
                s->rflags = 0x202 | (((i ^ j) & 1) ? ALL_FLAGS : 0);
                if (strchr(forms[f].name, '[')) {
                    s->r[6] = HARNESS_DATA + SRC_OFF;
                    memcpy(s->data + SRC_OFF, &v, 8);
                    memcpy(s->data + SRC_OFF + 8, &crc, 8);
                }
                char what[96];
                snprintf(what, sizeof(what), "%s with %#llx, %#llx", forms[f].name,
                         (unsigned long long)crc, (unsigned long long)v);
                bad |= harness_compare(forms[f].b, forms[f].len, s, ALL_FLAGS, what);
            }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* The CRC-32C check value: "123456789" -> E3069283 (initial value and final
 * XOR all ones), byte by byte and with the wider forms. */
START_TEST(crc32c_check_value)
{
    /* mov eax,-1; crc32 eax,byte [rsi+k] for k = 0..8; not eax */
    struct code c = { .n = 0 };
    emit(&c, (const uint8_t[]){ 0xb8, 0xff, 0xff, 0xff, 0xff }, 5);
    for (uint8_t k = 0; k < 9; k++)
        emit(&c, (const uint8_t[]){ 0xf2, 0x0f, 0x38, 0xf0, 0x46, k }, 6);
    emit(&c, (const uint8_t[]){ 0xf7, 0xd0 }, 2);
    /* mov ebx,-1; crc32 rbx,qword [rsi]; crc32 ebx,byte [rsi+8]; not ebx */
    emit(&c, (const uint8_t[]){ 0xbb, 0xff, 0xff, 0xff, 0xff }, 5);
    emit(&c, (const uint8_t[]){ 0xf2, 0x48, 0x0f, 0x38, 0xf1, 0x1e }, 6);
    emit(&c, (const uint8_t[]){ 0xf2, 0x0f, 0x38, 0xf0, 0x5e, 0x08 }, 6);
    emit(&c, (const uint8_t[]){ 0xf7, 0xd3 }, 2);
    /* mov edx,-1; crc32 edx,dword [rsi]; crc32 edx,word [rsi+4];
     * crc32 edx,word [rsi+6]; crc32 edx,byte [rsi+8]; not edx */
    emit(&c, (const uint8_t[]){ 0xba, 0xff, 0xff, 0xff, 0xff }, 5);
    emit(&c, (const uint8_t[]){ 0xf2, 0x0f, 0x38, 0xf1, 0x16 }, 5);
    emit(&c, (const uint8_t[]){ 0x66, 0xf2, 0x0f, 0x38, 0xf1, 0x56, 0x04 }, 7);
    emit(&c, (const uint8_t[]){ 0x66, 0xf2, 0x0f, 0x38, 0xf1, 0x56, 0x06 }, 7);
    emit(&c, (const uint8_t[]){ 0xf2, 0x0f, 0x38, 0xf0, 0x56, 0x08 }, 6);
    emit(&c, (const uint8_t[]){ 0xf7, 0xd2 }, 2);
    struct hstate *s = new_state();
    harness_init(s);
    memcpy(s->data + SRC_OFF, "123456789", 9);
    s->r[6] = HARNESS_DATA + SRC_OFF;
    ck_assert_int_eq(harness_emu(c.b, c.n, s), 0);
    ck_assert_uint_eq(s->r[0], 0xe3069283u);
    ck_assert_uint_eq(s->r[3], 0xe3069283u);
    ck_assert_uint_eq(s->r[2], 0xe3069283u);
    harness_init(s);
    memcpy(s->data + SRC_OFF, "123456789", 9);
    s->r[6] = HARNESS_DATA + SRC_OFF;
    ck_assert_int_eq(harness_compare(c.b, c.n, s, ALL_FLAGS, "crc32c check value"), 0);
    free(s);
}
END_TEST

/* ------------------------------------------------------------ AES, PCLMULQDQ */
struct xform {
    const char *name;
    uint8_t op[3];   /* 0f 38 xx or 0f 3a xx */
    bool has_imm;
};

static const struct xform xforms[] = {
    { "aesenc", { 0x0f, 0x38, 0xdc }, false },
    { "aesenclast", { 0x0f, 0x38, 0xdd }, false },
    { "aesdec", { 0x0f, 0x38, 0xde }, false },
    { "aesdeclast", { 0x0f, 0x38, 0xdf }, false },
    { "aesimc", { 0x0f, 0x38, 0xdb }, false },
    { "aeskeygenassist", { 0x0f, 0x3a, 0xdf }, true },
    { "pclmulqdq", { 0x0f, 0x3a, 0x44 }, true },
};
#define NXFORMS (sizeof(xforms) / sizeof(xforms[0]))

/* form 0: xmm1,xmm2; 1: xmm1,[rsi]; 2: xmm9,xmm12; 3: xmm3,xmm3 */
static size_t emit_xform(uint8_t *b, const struct xform *x, int form, uint8_t imm)
{
    static const uint8_t modrm[] = { 0xca, 0x0e, 0xcc, 0xdb };
    size_t n = 0;
    b[n++] = 0x66;
    if (form == 2)
        b[n++] = 0x45;
    memcpy(b + n, x->op, 3);
    n += 3;
    b[n++] = modrm[form];
    if (x->has_imm)
        b[n++] = imm;
    return n;
}

START_TEST(aes_pclmul_random)
{
    static const uint8_t imms[] = { 0x00, 0x01, 0x10, 0x11, 0x02, 0x20, 0xff, 0xee, 0x36, 0x80 };
    const struct xform *x = &xforms[_i];
    struct hstate *s = new_state();
    int bad = 0;
    for (unsigned n = 0; n < 200; n++)
        for (int form = 0; form < 4; form++) {
            if (form && n % 4)
                continue;
            harness_init(s);
            for (int r = 0; r < 16; r++) {
                uint64_t lo = next_rand(), hi = next_rand();
                if (n < 20) { /* edges: zeros, ones, single bits */
                    lo = edge[(n + (unsigned)r) % NEDGE];
                    hi = edge[(n * 3 + (unsigned)r) % NEDGE];
                }
                xmm_q(s, r, lo, hi);
            }
            memcpy(s->data + SRC_OFF, hs_xmm(s, 7), 16);
            s->r[6] = HARNESS_DATA + SRC_OFF;
            s->rflags = 0x202 | ((n & 1) ? ALL_FLAGS : 0);
            uint8_t imm = x->has_imm ? (uint8_t)(n < 40 ? imms[n % 10] : next_rand()) : 0;
            uint8_t b[8];
            size_t len = emit_xform(b, x, form, imm);
            char what[64];
            snprintf(what, sizeof(what), "%s form %d imm %#x, sample %u", x->name, form, imm, n);
            bad |= harness_compare(b, len, s, ALL_FLAGS, what);
        }
    free(s);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Legacy-SSE m128 operands must be 16-byte aligned (#GP -> SIGSEGV), and
 * nothing is written; the string compares do not require alignment (tested
 * against the host above with [rsi+0x41]). */
START_TEST(misaligned_faults)
{
    struct hstate *s = new_state();
    for (unsigned i = 0; i < NXFORMS + 1; i++) {
        uint8_t b[8];
        size_t len;
        if (i < NXFORMS) {
            len = emit_xform(b, &xforms[i], 1, 0);
        } else {
            static const uint8_t gtq[] = { 0x66, 0x0f, 0x38, 0x37, 0x0e };
            memcpy(b, gtq, sizeof(gtq));
            len = sizeof(gtq);
        }
        harness_init(s);
        s->r[6] = HARNESS_DATA + SRC_OFF + 8;
        memset(hs_xmm(s, 1), 0x33, 16);
        ck_assert_int_eq(harness_emu(b, len, s), SIGSEGV);
        uint8_t want[16];
        memset(want, 0x33, 16);
        ck_assert_mem_eq(hs_xmm(s, 1), want, 16);
    }
    free(s);
}
END_TEST

static void hex16(uint8_t out[16], const char *hex)
{
    for (int i = 0; i < 16; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* AES-NI through the emulator: one instruction on xmm registers, xmm0 in
 * and out. */
static void emu_xmm(struct hstate *s, const uint8_t *code, size_t len)
{
    ck_assert_int_eq(harness_emu(code, len, s), 0);
}

/* FIPS-197 key expansion (5.2) with the emulator's AESKEYGENASSIST doing
 * the SubWord/RotWord/Rcon part; nk = 4 (AES-128) or 8 (AES-256). */
static void expand_key(struct hstate *s, const uint8_t *key, int nk, uint32_t w[60])
{
    int nr = nk + 6;
    memcpy(w, key, 4 * (size_t)nk);
    uint8_t rcon = 1;
    for (int i = nk; i < 4 * (nr + 1); i++) {
        uint32_t t = w[i - 1];
        if (i % nk == 0 || (nk > 6 && i % nk == 4)) {
            /* aeskeygenassist xmm0, xmm1, rcon with w[i-1] as X3 */
            uint8_t code[] = { 0x66, 0x0f, 0x3a, 0xdf, 0xc1, i % nk == 0 ? rcon : 0 };
            harness_init(s);
            uint32_t src[4] = { 0, 0, 0, t };
            memcpy(hs_xmm(s, 1), src, 16);
            emu_xmm(s, code, sizeof(code));
            uint32_t out[4];
            memcpy(out, hs_xmm(s, 0), 16);
            /* dword 3: RotWord(SubWord(X3)) ^ rcon; dword 2: SubWord(X3) */
            t = i % nk == 0 ? out[3] : out[2];
            if (i % nk == 0)
                rcon = (uint8_t)((rcon << 1) ^ ((rcon & 0x80) ? 0x1b : 0));
        }
        w[i] = w[i - nk] ^ t;
    }
}

/* Encrypt with AESENC/AESENCLAST and decrypt with AESIMC-transformed keys
 * and AESDEC/AESDECLAST (the equivalent inverse cipher), all in the
 * emulator; both results checked against the FIPS-197 vectors, and the
 * same code run natively for comparison. */
static void fips_vector(const char *key_hex, int nk, const char *pt_hex, const char *ct_hex)
{
    struct hstate *s = new_state();
    uint8_t key[32], pt[16], ct[16];
    hex16(key, key_hex);
    if (nk == 8)
        hex16(key + 16, key_hex + 32);
    hex16(pt, pt_hex);
    hex16(ct, ct_hex);
    uint32_t w[60];
    expand_key(s, key, nk, w);
    int nr = nk + 6;
    /* rounds: aesenc xmm0, xmm1..xmm(nr-1), aesenclast xmm0, xmm(nr) */
    uint8_t code[256];
    size_t n = 0;
    for (int r = 1; r <= nr; r++) {
        code[n++] = 0x66;
        if (r >= 8)
            code[n++] = 0x41; /* REX.B */
        code[n++] = 0x0f;
        code[n++] = 0x38;
        code[n++] = r == nr ? 0xdd : 0xdc;
        code[n++] = (uint8_t)(0xc0 | (r & 7));
    }
    harness_init(s);
    uint8_t st[16];
    for (int i = 0; i < 16; i++)
        st[i] = pt[i] ^ ((const uint8_t *)w)[i];
    memcpy(hs_xmm(s, 0), st, 16);
    for (int r = 1; r <= nr; r++)
        memcpy(hs_xmm(s, r), &w[4 * r], 16);
    struct hstate *native = new_state();
    memcpy(native, s, sizeof(*s));
    emu_xmm(s, code, n);
    ck_assert_mem_eq(hs_xmm(s, 0), ct, 16);
    ck_assert_int_eq(harness_compare(code, n, native, ALL_FLAGS, "FIPS-197 encryption"), 0);

    /* decryption keys: AESIMC of round keys nr-1 .. 1, in emulated code */
    uint8_t dk[15][16];
    for (int r = 1; r < nr; r++) {
        static const uint8_t imc[] = { 0x66, 0x0f, 0x38, 0xdb, 0xc1 }; /* aesimc xmm0,xmm1 */
        harness_init(s);
        memcpy(hs_xmm(s, 1), &w[4 * r], 16);
        emu_xmm(s, imc, sizeof(imc));
        memcpy(dk[r], hs_xmm(s, 0), 16);
    }
    n = 0;
    for (int r = 1; r <= nr; r++) {
        code[n++] = 0x66;
        if (r >= 8)
            code[n++] = 0x41;
        code[n++] = 0x0f;
        code[n++] = 0x38;
        code[n++] = r == nr ? 0xdf : 0xde;
        code[n++] = (uint8_t)(0xc0 | (r & 7));
    }
    harness_init(s);
    for (int i = 0; i < 16; i++)
        st[i] = ct[i] ^ ((const uint8_t *)w)[16 * nr + i];
    memcpy(hs_xmm(s, 0), st, 16);
    for (int r = 1; r < nr; r++)
        memcpy(hs_xmm(s, r), dk[nr - r], 16);
    memcpy(hs_xmm(s, nr), w, 16);
    memcpy(native, s, sizeof(*s));
    emu_xmm(s, code, n);
    ck_assert_mem_eq(hs_xmm(s, 0), pt, 16);
    ck_assert_int_eq(harness_compare(code, n, native, ALL_FLAGS, "FIPS-197 decryption"), 0);
    free(native);
    free(s);
}

START_TEST(aes_fips197)
{
    /* Appendix B (cipher example) and C.1 (AES-128), C.3 (AES-256) */
    fips_vector("2b7e151628aed2a6abf7158809cf4f3c", 4, "3243f6a8885a308d313198a2e0370734",
                "3925841d02dc09fbdc118597196a0b32");
    fips_vector("000102030405060708090a0b0c0d0e0f", 4, "00112233445566778899aabbccddeeff",
                "69c4e0d86a7b0430d8cdb78070b4c55a");
    fips_vector("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 8,
                "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089");
}
END_TEST

/* PCLMULQDQ: x^63 * x^63 = x^126, and (x+1)^2 = x^2+1, in the emulator. */
START_TEST(pclmul_known)
{
    static const uint8_t code[] = { 0x66, 0x0f, 0x3a, 0x44, 0xc1, 0x11 }; /* pclmulqdq xmm0,xmm1,0x11 */
    struct hstate *s = new_state();
    harness_init(s);
    xmm_q(s, 0, 3, 0x8000000000000000ull);
    xmm_q(s, 1, 3, 0x8000000000000000ull);
    emu_xmm(s, code, sizeof(code));
    uint64_t r[2];
    memcpy(r, hs_xmm(s, 0), 16);
    ck_assert_uint_eq(r[0], 0);
    ck_assert_uint_eq(r[1], 1ull << 62);
    static const uint8_t code0[] = { 0x66, 0x0f, 0x3a, 0x44, 0xc1, 0x00 };
    harness_init(s);
    xmm_q(s, 0, 3, 0);
    xmm_q(s, 1, 3, 0);
    emu_xmm(s, code0, sizeof(code0));
    memcpy(r, hs_xmm(s, 0), 16);
    ck_assert_uint_eq(r[0], 5);
    ck_assert_uint_eq(r[1], 0);
    free(s);
}
END_TEST

int main(void)
{
    if (!harness_host_has("sse4_2 aes pclmulqdq")) {
        printf("skip: the host CPU lacks one of sse4_2 aes pclmulqdq, needed for the native side\n");
        return HARNESS_SKIP;
    }
    Suite *s = suite_create("sse42");
    TCase *t = tcase_create("sse42");
    tcase_add_test(t, pcmpistri_all_modes);
    tcase_add_test(t, pcmpestri_all_modes);
    tcase_add_test(t, pcmpistrm_all_modes);
    tcase_add_test(t, pcmpestrm_all_modes);
    tcase_add_test(t, pcmpgtq);
    tcase_add_test(t, crc32_all_widths);
    tcase_add_test(t, crc32c_check_value);
    tcase_add_loop_test(t, aes_pclmul_random, 0, NXFORMS);
    tcase_add_test(t, misaligned_faults);
    tcase_add_test(t, aes_fips197);
    tcase_add_test(t, pclmul_known);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
