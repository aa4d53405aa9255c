/* BMI1, BMI2, ADX, MOVBE against the host CPU; RDRAND/RDSEED in the
 * emulator alone (their values cannot match the host's).
 *
 * Operands: rbx and rcx are the register sources (rdx MULX's implicit one),
 * [rsi] the memory operand, holding the value of the register it stands
 * in for; rax (the usual destination) starts as garbage so that 32-bit
 * results must zero-extend.  Flags the SDM leaves undefined are masked. */
#include <check.h>
#include <signal.h>
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

static const uint64_t vals[] = {
    0, 1, 2, 5, 31, 32, 33, 63, 64, 65, 0x7f, 0x80, 0xff, 0x0804, 0x2010, 0x3f01, 0x2000,
    0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull, 0x8000000000000000ull, ~0ull,
    0x123456789abcdef0ull, 0xfedcba9876543210ull, 0xffffffff00ff1020ull,
};
#define NVALS (sizeof(vals) / sizeof(vals[0]))

/* mem: which register [rsi] stands in for ('b' = rbx, 'c' = rcx, 0 = none). */
struct bmi_case {
    const char *name;
    uint8_t b[8];
    unsigned len;
    uint64_t mask;
    char mem;
};

#define SZCO (SF | ZF | CF | OF)
static const struct bmi_case cases[] = {
    /* ANDN: AF, PF undefined */
    { "andn rax,rbx,rcx", { 0xc4, 0xe2, 0xe0, 0xf2, 0xc1 }, 5, SZCO, 0 },
    { "andn eax,ebx,ecx", { 0xc4, 0xe2, 0x60, 0xf2, 0xc1 }, 5, SZCO, 0 },
    { "andn rax,rbx,[rsi]", { 0xc4, 0xe2, 0xe0, 0xf2, 0x06 }, 5, SZCO, 'c' },
    { "andn eax,ebx,[rsi]", { 0xc4, 0xe2, 0x60, 0xf2, 0x06 }, 5, SZCO, 'c' },
    { "andn r9,r10,r11", { 0xc4, 0x42, 0xa8, 0xf2, 0xcb }, 5, SZCO, 0 },
    /* BEXTR: AF, SF, PF undefined */
    { "bextr rax,rbx,rcx", { 0xc4, 0xe2, 0xf0, 0xf7, 0xc3 }, 5, ZF | CF | OF, 0 },
    { "bextr eax,ebx,ecx", { 0xc4, 0xe2, 0x70, 0xf7, 0xc3 }, 5, ZF | CF | OF, 0 },
    { "bextr rax,[rsi],rcx", { 0xc4, 0xe2, 0xf0, 0xf7, 0x06 }, 5, ZF | CF | OF, 'b' },
    { "bextr eax,[rsi],ecx", { 0xc4, 0xe2, 0x70, 0xf7, 0x06 }, 5, ZF | CF | OF, 'b' },
    /* BLSI, BLSMSK, BLSR, BZHI: AF, PF undefined */
    { "blsi rax,rbx", { 0xc4, 0xe2, 0xf8, 0xf3, 0xdb }, 5, SZCO, 0 },
    { "blsi eax,ebx", { 0xc4, 0xe2, 0x78, 0xf3, 0xdb }, 5, SZCO, 0 },
    { "blsi rax,[rsi]", { 0xc4, 0xe2, 0xf8, 0xf3, 0x1e }, 5, SZCO, 'b' },
    { "blsi eax,[rsi]", { 0xc4, 0xe2, 0x78, 0xf3, 0x1e }, 5, SZCO, 'b' },
    { "blsmsk rax,rbx", { 0xc4, 0xe2, 0xf8, 0xf3, 0xd3 }, 5, SZCO, 0 },
    { "blsmsk eax,ebx", { 0xc4, 0xe2, 0x78, 0xf3, 0xd3 }, 5, SZCO, 0 },
    { "blsmsk rax,[rsi]", { 0xc4, 0xe2, 0xf8, 0xf3, 0x16 }, 5, SZCO, 'b' },
    { "blsmsk eax,[rsi]", { 0xc4, 0xe2, 0x78, 0xf3, 0x16 }, 5, SZCO, 'b' },
    { "blsr rax,rbx", { 0xc4, 0xe2, 0xf8, 0xf3, 0xcb }, 5, SZCO, 0 },
    { "blsr eax,ebx", { 0xc4, 0xe2, 0x78, 0xf3, 0xcb }, 5, SZCO, 0 },
    { "blsr rax,[rsi]", { 0xc4, 0xe2, 0xf8, 0xf3, 0x0e }, 5, SZCO, 'b' },
    { "blsr eax,[rsi]", { 0xc4, 0xe2, 0x78, 0xf3, 0x0e }, 5, SZCO, 'b' },
    { "blsr r12d,r13d", { 0xc4, 0xc2, 0x18, 0xf3, 0xcd }, 5, SZCO, 0 },
    { "bzhi rax,rbx,rcx", { 0xc4, 0xe2, 0xf0, 0xf5, 0xc3 }, 5, SZCO, 0 },
    { "bzhi eax,ebx,ecx", { 0xc4, 0xe2, 0x70, 0xf5, 0xc3 }, 5, SZCO, 0 },
    { "bzhi rax,[rsi],rcx", { 0xc4, 0xe2, 0xf0, 0xf5, 0x06 }, 5, SZCO, 'b' },
    { "bzhi eax,[rsi],ecx", { 0xc4, 0xe2, 0x70, 0xf5, 0x06 }, 5, SZCO, 'b' },
    /* BMI2 without flags: every flag must stay as it was */
    { "mulx rax,rbx,rcx", { 0xc4, 0xe2, 0xe3, 0xf6, 0xc1 }, 5, ALL_FLAGS, 0 },
    { "mulx eax,ebx,ecx", { 0xc4, 0xe2, 0x63, 0xf6, 0xc1 }, 5, ALL_FLAGS, 0 },
    { "mulx rax,rbx,[rsi]", { 0xc4, 0xe2, 0xe3, 0xf6, 0x06 }, 5, ALL_FLAGS, 'c' },
    { "mulx eax,ebx,[rsi]", { 0xc4, 0xe2, 0x63, 0xf6, 0x06 }, 5, ALL_FLAGS, 'c' },
    { "mulx rax,rax,rcx", { 0xc4, 0xe2, 0xfb, 0xf6, 0xc1 }, 5, ALL_FLAGS, 0 },
    { "mulx edx,eax,edx", { 0xc4, 0xe2, 0x7b, 0xf6, 0xd2 }, 5, ALL_FLAGS, 0 },
    { "mulx r8,r9,r10", { 0xc4, 0x42, 0xb3, 0xf6, 0xc2 }, 5, ALL_FLAGS, 0 },
    { "pdep rax,rbx,rcx", { 0xc4, 0xe2, 0xe3, 0xf5, 0xc1 }, 5, ALL_FLAGS, 0 },
    { "pdep eax,ebx,ecx", { 0xc4, 0xe2, 0x63, 0xf5, 0xc1 }, 5, ALL_FLAGS, 0 },
    { "pdep rax,rbx,[rsi]", { 0xc4, 0xe2, 0xe3, 0xf5, 0x06 }, 5, ALL_FLAGS, 'c' },
    { "pdep eax,ebx,[rsi]", { 0xc4, 0xe2, 0x63, 0xf5, 0x06 }, 5, ALL_FLAGS, 'c' },
    { "pext rax,rbx,rcx", { 0xc4, 0xe2, 0xe2, 0xf5, 0xc1 }, 5, ALL_FLAGS, 0 },
    { "pext eax,ebx,ecx", { 0xc4, 0xe2, 0x62, 0xf5, 0xc1 }, 5, ALL_FLAGS, 0 },
    { "pext rax,rbx,[rsi]", { 0xc4, 0xe2, 0xe2, 0xf5, 0x06 }, 5, ALL_FLAGS, 'c' },
    { "pext eax,ebx,[rsi]", { 0xc4, 0xe2, 0x62, 0xf5, 0x06 }, 5, ALL_FLAGS, 'c' },
    { "sarx rax,rbx,rcx", { 0xc4, 0xe2, 0xf2, 0xf7, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "sarx eax,ebx,ecx", { 0xc4, 0xe2, 0x72, 0xf7, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "sarx rax,[rsi],rcx", { 0xc4, 0xe2, 0xf2, 0xf7, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "sarx eax,[rsi],ecx", { 0xc4, 0xe2, 0x72, 0xf7, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "shlx rax,rbx,rcx", { 0xc4, 0xe2, 0xf1, 0xf7, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "shlx eax,ebx,ecx", { 0xc4, 0xe2, 0x71, 0xf7, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "shlx rax,[rsi],rcx", { 0xc4, 0xe2, 0xf1, 0xf7, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "shlx eax,[rsi],ecx", { 0xc4, 0xe2, 0x71, 0xf7, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "shrx rax,rbx,rcx", { 0xc4, 0xe2, 0xf3, 0xf7, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "shrx eax,ebx,ecx", { 0xc4, 0xe2, 0x73, 0xf7, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "shrx rax,[rsi],rcx", { 0xc4, 0xe2, 0xf3, 0xf7, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "shrx eax,[rsi],ecx", { 0xc4, 0xe2, 0x73, 0xf7, 0x06 }, 5, ALL_FLAGS, 'b' },
    /* ADX: only CF (ADCX) or OF (ADOX) changes */
    { "adcx rax,rbx", { 0x66, 0x48, 0x0f, 0x38, 0xf6, 0xc3 }, 6, ALL_FLAGS, 0 },
    { "adcx eax,ebx", { 0x66, 0x0f, 0x38, 0xf6, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "adcx rax,[rsi]", { 0x66, 0x48, 0x0f, 0x38, 0xf6, 0x06 }, 6, ALL_FLAGS, 'b' },
    { "adcx eax,[rsi]", { 0x66, 0x0f, 0x38, 0xf6, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "adox rax,rbx", { 0xf3, 0x48, 0x0f, 0x38, 0xf6, 0xc3 }, 6, ALL_FLAGS, 0 },
    { "adox eax,ebx", { 0xf3, 0x0f, 0x38, 0xf6, 0xc3 }, 5, ALL_FLAGS, 0 },
    { "adox rax,[rsi]", { 0xf3, 0x48, 0x0f, 0x38, 0xf6, 0x06 }, 6, ALL_FLAGS, 'b' },
    { "adox eax,[rsi]", { 0xf3, 0x0f, 0x38, 0xf6, 0x06 }, 5, ALL_FLAGS, 'b' },
    /* MOVBE (memory forms only) */
    { "movbe ax,[rsi]", { 0x66, 0x0f, 0x38, 0xf0, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "movbe eax,[rsi]", { 0x0f, 0x38, 0xf0, 0x06 }, 4, ALL_FLAGS, 'b' },
    { "movbe rax,[rsi]", { 0x48, 0x0f, 0x38, 0xf0, 0x06 }, 5, ALL_FLAGS, 'b' },
    { "movbe r10,[rsi+8]", { 0x4c, 0x0f, 0x38, 0xf0, 0x56, 0x08 }, 6, ALL_FLAGS, 'c' },
    { "movbe [rsi],bx", { 0x66, 0x0f, 0x38, 0xf1, 0x1e }, 5, ALL_FLAGS, 'c' },
    { "movbe [rsi],ebx", { 0x0f, 0x38, 0xf1, 0x1e }, 4, ALL_FLAGS, 'c' },
    { "movbe [rsi],rbx", { 0x48, 0x0f, 0x38, 0xf1, 0x1e }, 5, ALL_FLAGS, 'c' },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* A 32-bit form: the destination is a 32-bit register (eax, edx, r12d). */
static bool is_32bit(const char *name)
{
    const char *sp = strchr(name, ' ');
    return sp && (sp[1] == 'e' || strncmp(sp + 1, "r12d", 4) == 0);
}

static struct hstate *state(uint64_t a, uint64_t b, uint64_t d, uint64_t flags, char mem)
{
    static struct hstate s;
    harness_init(&s);
    s.r[0] = 0xdeadbeefcafebabeull;
    s.r[3] = a;                     /* rbx */
    s.r[1] = b;                     /* rcx */
    s.r[2] = d;                     /* rdx */
    s.r[6] = HARNESS_DATA + 0x100;  /* rsi */
    s.r[8] = 0x1111111111111111ull;
    s.r[9] = 0x2222222222222222ull;
    s.r[10] = b;
    s.r[11] = b;
    s.r[12] = a;
    s.r[13] = a;
    s.rflags = 0x202 | flags;
    uint64_t m = mem == 'c' ? b : a;
    memcpy(s.data + 0x100, &m, 8);
    memcpy(s.data + 0x108, &b, 8);
    return &s;
}

/* Every value pair for the 64-bit register forms, half of them (a
 * checkerboard) for the 32-bit ones, a ninth for the memory forms; flags
 * all clear or all set. */
START_TEST(edge_values)
{
    const struct bmi_case *k = &cases[_i];
    int bad = 0;
    unsigned step = k->mem ? 3 : 1;
    bool half = !k->mem && is_32bit(k->name);
    for (unsigned i = 0; i < NVALS; i += step)
        for (unsigned j = half ? (i & 1) : 0; j < NVALS; j += half ? 2 : step) {
            uint64_t flags = ((i * 5 + j * 3) >> 1) & 1 ? ALL_FLAGS : 0;
            uint64_t d = vals[(i * 7 + j * 3) % NVALS];
            char what[128];
            snprintf(what, sizeof(what), "%s with %#llx, %#llx, rdx %#llx, flags %#llx", k->name,
                     (unsigned long long)vals[i], (unsigned long long)vals[j],
                     (unsigned long long)d, (unsigned long long)flags);
            bad |= harness_compare(k->b, k->len, state(vals[i], vals[j], d, flags, k->mem), k->mask,
                                   what);
        }
    ck_assert_int_eq(bad, 0);
}
END_TEST

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const struct bmi_case *find_case(const char *name)
{
    for (unsigned i = 0; i < NCASES; i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    abort();
}

/* PDEP/PEXT and MULX on random operands with sparse and dense masks. */
START_TEST(random_values)
{
    static const char *const pick[] = {
        "pdep rax,rbx,rcx", "pdep eax,ebx,ecx", "pdep rax,rbx,[rsi]", "pext rax,rbx,rcx",
        "pext eax,ebx,ecx", "pext eax,ebx,[rsi]", "mulx rax,rbx,rcx", "mulx eax,ebx,ecx",
        "mulx r8,r9,r10", "andn rax,rbx,rcx", "bzhi rax,rbx,rcx", "bextr rax,rbx,rcx",
    };
    int bad = 0;
    for (unsigned n = 0; n < 160; n++) {
        uint64_t a = next_rand(), b = next_rand(), d = next_rand();
        if (n % 3 == 1)
            b &= next_rand() & next_rand(); /* sparse */
        else if (n % 3 == 2)
            b |= next_rand() | next_rand(); /* dense */
        for (unsigned p = 0; p < sizeof(pick) / sizeof(pick[0]); p++) {
            const struct bmi_case *k = find_case(pick[p]);
            char what[128];
            snprintf(what, sizeof(what), "%s with %#llx, %#llx, rdx %#llx", k->name,
                     (unsigned long long)a, (unsigned long long)b, (unsigned long long)d);
            bad |= harness_compare(k->b, k->len, state(a, b, d, n & 1 ? ALL_FLAGS : 0, k->mem),
                                   k->mask, what);
        }
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* RORX with every count (incl. counts beyond the width, which are masked). */
START_TEST(rorx_counts)
{
    int bad = 0;
    for (unsigned imm = 0; imm < 256; imm++) {
        const uint8_t forms[4][6] = {
            { 0xc4, 0xe3, 0xfb, 0xf0, 0xc3, (uint8_t)imm }, /* rorx rax,rbx,imm */
            { 0xc4, 0xe3, 0x7b, 0xf0, 0xc3, (uint8_t)imm }, /* rorx eax,ebx,imm */
            { 0xc4, 0xe3, 0xfb, 0xf0, 0x06, (uint8_t)imm }, /* rorx rax,[rsi],imm */
            { 0xc4, 0xe3, 0x7b, 0xf0, 0x06, (uint8_t)imm }, /* rorx eax,[rsi],imm */
        };
        for (unsigned f = 0; f < 4; f++) {
            if (f >= 2 && imm % 5)
                continue;
            char what[64];
            snprintf(what, sizeof(what), "rorx form %u imm %u", f, imm);
            bad |= harness_compare(forms[f], 6, state(0x8123456789abcdefull, 0, 0, imm & 1 ? ALL_FLAGS : 0, 'b'),
                                   ALL_FLAGS, what);
        }
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Carry chains: ADCX and ADOX interleaved as in multi-precision code. */
START_TEST(adx_chain)
{
    /* adcx rax,rbx; adox rcx,rdx; adcx r8,r9; adox r10,r11; adcx eax,ebx; adox ecx,edx */
    static const uint8_t code[] = {
        0x66, 0x48, 0x0f, 0x38, 0xf6, 0xc3, 0xf3, 0x48, 0x0f, 0x38, 0xf6, 0xca,
        0x66, 0x4d, 0x0f, 0x38, 0xf6, 0xc1, 0xf3, 0x4d, 0x0f, 0x38, 0xf6, 0xd3,
        0x66, 0x0f, 0x38, 0xf6, 0xc3, 0xf3, 0x0f, 0x38, 0xf6, 0xca,
    };
    int bad = 0;
    for (unsigned n = 0; n < 400; n++) {
        struct hstate *s = state(next_rand(), next_rand(), next_rand(), 0, 0);
        for (int r = 0; r < 16; r++)
            if (r != 4 && r != 6)
                s->r[r] = (n & 1) ? next_rand() : vals[next_rand() % NVALS];
        s->rflags = 0x202 | (next_rand() & ALL_FLAGS);
        bad |= harness_compare(code, sizeof(code), s, ALL_FLAGS, "adcx/adox chain");
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* RDRAND / RDSEED, emulator only: CF = 1, OF SF ZF AF PF = 0, values that
 * differ from call to call, 16-bit writes merge and 32-bit ones
 * zero-extend. */
START_TEST(rdrand_rdseed)
{
    /* rdrand rax; rdrand rbx; rdrand ecx; rdrand dx; rdseed r8; rdseed r9;
     * rdseed r10d; rdseed r11w */
    static const uint8_t code[] = {
        0x48, 0x0f, 0xc7, 0xf0, 0x48, 0x0f, 0xc7, 0xf3, 0x0f, 0xc7, 0xf1, 0x66, 0x0f, 0xc7, 0xf2,
        0x49, 0x0f, 0xc7, 0xf8, 0x49, 0x0f, 0xc7, 0xf9, 0x41, 0x0f, 0xc7, 0xfa, 0x66, 0x41, 0x0f,
        0xc7, 0xfb,
    };
    static const uint8_t one[][5] = {
        { 0x48, 0x0f, 0xc7, 0xf0 },       /* rdrand rax */
        { 0x49, 0x0f, 0xc7, 0xf8 },       /* rdseed r8 */
        { 0x66, 0x0f, 0xc7, 0xf0 },       /* rdrand ax */
        { 0x66, 0x41, 0x0f, 0xc7, 0xf8 }, /* rdseed r8w */
    };
    static const unsigned one_len[] = { 4, 4, 4, 5 };
    struct hstate *s = malloc(sizeof(*s));
    harness_init(s);
    for (int r = 0; r < 16; r++)
        if (r != 4)
            s->r[r] = 0xa5a5a5a5a5a5a5a5ull;
    s->rflags = 0x202 | ALL_FLAGS;
    ck_assert_int_eq(harness_emu(code, sizeof(code), s), 0);
    ck_assert_uint_eq(s->rflags & ALL_FLAGS, CF);
    ck_assert(s->r[0] != s->r[3] && s->r[8] != s->r[9] && s->r[0] != s->r[8]);
    ck_assert_uint_eq(s->r[1] >> 32, 0);
    ck_assert_uint_eq(s->r[10] >> 32, 0);
    ck_assert_uint_eq(s->r[2] >> 16, 0xa5a5a5a5a5a5ull);
    ck_assert_uint_eq(s->r[11] >> 16, 0xa5a5a5a5a5a5ull);
    /* Each form on its own, many times: the flags every time, and values
     * that are not all the same. */
    for (unsigned f = 0; f < 4; f++) {
        uint64_t first = 0;
        bool differ = false;
        for (unsigned n = 0; n < 32; n++) {
            harness_init(s);
            s->rflags = 0x202 | (n & 1 ? ALL_FLAGS : 0);
            ck_assert_int_eq(harness_emu(one[f], one_len[f], s), 0);
            ck_assert_uint_eq(s->rflags & ALL_FLAGS, CF);
            uint64_t v = s->r[f & 1 ? 8 : 0];
            if (n == 0)
                first = v;
            differ |= v != first;
        }
        ck_assert(differ);
    }
    free(s);
}
END_TEST

/* The instructions' memory forms fault precisely: nothing changes. */
START_TEST(memory_faults)
{
    static const uint8_t code[] = { 0xc4, 0xe2, 0xe0, 0xf2, 0x06 }; /* andn rax,rbx,[rsi] */
    static const uint8_t store[] = { 0x48, 0x0f, 0x38, 0xf1, 0x1e }; /* movbe [rsi],rbx */
    struct hstate *s = malloc(sizeof(*s));
    harness_init(s);
    s->r[0] = 7;
    s->r[6] = 0x1000; /* unmapped */
    ck_assert_int_eq(harness_emu(code, sizeof(code), s), SIGSEGV);
    ck_assert_uint_eq(s->r[0], 7);
    ck_assert_int_eq(harness_emu(store, sizeof(store), s), SIGSEGV);
    free(s);
}
END_TEST

int main(void)
{
    if (!harness_host_has("bmi1 bmi2 adx movbe")) {
        printf("skip: the host CPU lacks one of bmi1 bmi2 adx movbe, needed for the native side\n");
        return HARNESS_SKIP;
    }
    Suite *s = suite_create("bmi");
    TCase *t = tcase_create("bmi");
    tcase_add_loop_test(t, edge_values, 0, NCASES);
    tcase_add_test(t, random_values);
    tcase_add_test(t, rorx_counts);
    tcase_add_test(t, adx_chain);
    tcase_add_test(t, rdrand_rdseed);
    tcase_add_test(t, memory_faults);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
