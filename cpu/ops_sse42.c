/* SSE4.2: PCMPESTRI PCMPESTRM PCMPISTRI PCMPISTRM (string compares),
 * PCMPGTQ and CRC32; the family decoder, which also hands AES-NI and
 * PCLMULQDQ to cpu/ops_sse42_aes.c.  Legacy (66/F2-prefixed) encodings
 * only: the VEX forms are AVX's.
 *
 * Everything is plain C or SSE2 (the x86_64 baseline), so the results do
 * not depend on the host having SSE4.2. */
#include <emmintrin.h>
#include <pthread.h>

#include "cpu/flags.h"
#include "cpu/sse.h"
#include "cpu/sse42.h"

/* Replace all six arithmetic flags at once: nothing of the lazy record is
 * needed any more, so it is dropped instead of being computed. */
static inline void set_arith_all(struct cpu *c, uint64_t f)
{
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | f;
    c->lf_op = LF_NONE;
}

/* ------------------------------------------------------------ string compares
 * SDM vol. 2B, PCMPESTRI ... PCMPISTRM, and vol. 2, section 4.1 ("Imm8
 * control byte operation"):
 *   imm8[0]   element size: bytes (16) / words (8)
 *   imm8[1]   unsigned / signed elements (matters for ranges only)
 *   imm8[3:2] aggregation: equal any, ranges, equal each, equal ordered
 *   imm8[5:4] polarity: +, -, masked +, masked - (invert valid elements of
 *             the second operand only)
 *   imm8[6]   index: least / most significant set bit (…STRI);
 *             mask: bit mask / element mask (…STRM)
 * Operand 1 (xmm1, "a") is the set / ranges / needle; operand 2
 * (xmm2/m128, "b") the string being searched.  IntRes1 bit j is about
 * element j of b.  Elements at or past a string's length are invalid; the
 * SDM's "override if data invalid" table fixes their comparison results:
 * always false for equal any and ranges; for equal each true when both are
 * invalid; for equal ordered true whenever the a element is invalid. */

/* One bit per element from a compare result (all-ones / zero elements). */
static inline unsigned elem_mask(__m128i m, bool words)
{
    if (words)
        m = _mm_packs_epi16(m, _mm_setzero_si128());
    return (unsigned)_mm_movemask_epi8(m);
}

static inline __m128i splat(const xmm_t *v, unsigned i, bool words)
{
    return words ? _mm_set1_epi16((short)v->w[i]) : _mm_set1_epi8((char)v->b[i]);
}

static inline __m128i cmpeq(__m128i x, __m128i y, bool words)
{
    return words ? _mm_cmpeq_epi16(x, y) : _mm_cmpeq_epi8(x, y);
}

static inline __m128i cmpgt(__m128i x, __m128i y, bool words)
{
    return words ? _mm_cmpgt_epi16(x, y) : _mm_cmpgt_epi8(x, y);
}

/* Implicit length: the index of the first NUL element (or all of them). */
static inline unsigned implicit_len(const xmm_t *v, bool words)
{
    __m128i x = _mm_load_si128((const __m128i *)v), z = _mm_setzero_si128();
    unsigned m = (unsigned)_mm_movemask_epi8(cmpeq(x, z, words)) | 0x10000u;
    return words ? (unsigned)__builtin_ctz(m) / 2 : (unsigned)__builtin_ctz(m);
}

/* Explicit length: the absolute value of the register, saturated to the
 * element count n (SDM: "interpreted as being the absolute-value ...
 * saturates to 16 (for bytes) and 8 (for words)"). */
static inline unsigned explicit_len(int64_t v, unsigned n)
{
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    return mag > n ? n : (unsigned)mag;
}

/* IntRes2 of a against b with lengths la, lb (<= n). */
static unsigned str_compare(const xmm_t *a, const xmm_t *b, unsigned la, unsigned lb, unsigned imm)
{
    bool words = imm & 1;
    unsigned n = words ? 8 : 16, full = (1u << n) - 1;
    unsigned va = (1u << la) - 1, vb = (1u << lb) - 1;
    __m128i bv = _mm_load_si128((const __m128i *)b);
    unsigned r = 0;
    switch ((imm >> 2) & 3) {
    case 0: /* equal any: b[j] is one of a[0..la) */
        for (unsigned i = 0; i < la; i++)
            r |= elem_mask(cmpeq(bv, splat(a, i, words), words), words);
        r &= vb;
        break;
    case 1: { /* ranges: a[i] <= b[j] <= a[i+1] for an even i, both valid */
        __m128i bias = words ? _mm_set1_epi16((short)0x8000) : _mm_set1_epi8((char)0x80);
        if (imm & 2)
            bias = _mm_setzero_si128(); /* signed: compare as is */
        __m128i bb = _mm_xor_si128(bv, bias);
        for (unsigned i = 0; i + 1 < la; i += 2) {
            __m128i lo = _mm_xor_si128(splat(a, i, words), bias);
            __m128i hi = _mm_xor_si128(splat(a, i + 1, words), bias);
            __m128i out = _mm_or_si128(cmpgt(lo, bb, words), cmpgt(bb, hi, words));
            r |= ~elem_mask(out, words) & full;
        }
        r &= vb;
        break;
    }
    case 2: { /* equal each: a[j] == b[j]; two invalid elements match */
        __m128i av = _mm_load_si128((const __m128i *)a);
        unsigned eq = elem_mask(cmpeq(av, bv, words), words);
        r = ((eq & va & vb) | (~va & ~vb)) & full;
        break;
    }
    default: /* equal ordered: a[0..la) occurs in b at j (may run off the end) */
        r = full;
        for (unsigned i = 0; i < la; i++) {
            unsigned e = elem_mask(cmpeq(bv, splat(a, i, words), words), words) & vb;
            /* bit j needs b[j+i] == a[i] while j+i is inside the register */
            r &= (e >> i) | (full & ~(full >> i));
        }
        break;
    }
    switch ((imm >> 4) & 3) {
    case 1: r ^= full; break; /* negative polarity */
    case 3: r ^= vb; break;   /* masked negative: valid elements of b only */
    default: break;
    }
    return r;
}

/* CF: IntRes2 != 0; ZF: b is shorter than a register; SF: likewise a;
 * OF: IntRes2[0]; AF and PF cleared. */
static inline uint64_t str_flags(unsigned r, unsigned la, unsigned lb, unsigned n)
{
    return (r ? FL_CF : 0) | (lb < n ? FL_ZF : 0) | (la < n ? FL_SF : 0) | ((r & 1) ? FL_OF : 0);
}

/* …STRI: the index of the lowest / highest set bit of IntRes2, n if none,
 * in ECX (a 32-bit write: the upper half of RCX is cleared). */
static inline void out_index(struct cpu *c, unsigned r, unsigned imm, unsigned n)
{
    unsigned idx = !r ? n : (imm & 0x40) ? 31u - (unsigned)__builtin_clz(r) : (unsigned)__builtin_ctz(r);
    set_gpr32(c, SLOT_GPR(R_CX), idx);
}

/* …STRM: IntRes2 zero-extended, or expanded to all-ones elements, in XMM0. */
static inline void out_mask(struct cpu *c, unsigned r, unsigned imm, unsigned n)
{
    xmm_t m = { .q = { 0, 0 } };
    if (!(imm & 0x40))
        m.w[0] = (uint16_t)r;
    else if (n == 8)
        for (unsigned i = 0; i < 8; i++)
            m.w[i] = (r >> i & 1) ? 0xffff : 0;
    else
        for (unsigned i = 0; i < 16; i++)
            m.b[i] = (r >> i & 1) ? 0xff : 0;
    c->xmm[0] = m;
}

#define SRC2_R b = c->xmm[op->x2]
#define SRC2_M load128(c, op_ea(c, op), &b) /* no alignment required (SDM table 2-18 note) */
#define LENS_I                                                                          \
    la = implicit_len(&a, words);                                                       \
    lb = implicit_len(&b, words)
#define LENS_E32                                                                        \
    la = explicit_len((int32_t)c->r[R_AX], n);                                          \
    lb = explicit_len((int32_t)c->r[R_DX], n)
#define LENS_E64                                                                        \
    la = explicit_len((int64_t)c->r[R_AX], n);                                          \
    lb = explicit_len((int64_t)c->r[R_DX], n)

#define GEN_PCMPSTR(name, SRC2, LENS, OUT)                                              \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        xmm_t a = c->xmm[op->x1], b;                                                    \
        unsigned imm = (unsigned)op->imm, la, lb;                                       \
        bool words = imm & 1;                                                           \
        unsigned n = words ? 8 : 16;                                                    \
        SRC2;                                                                           \
        LENS;                                                                           \
        unsigned r = str_compare(&a, &b, la, lb, imm);                                  \
        OUT(c, r, imm, n);                                                              \
        set_arith_all(c, str_flags(r, la, lb, n));                                      \
        NEXT(c, op);                                                              \
    }
GEN_PCMPSTR(pcmpistri_r, SRC2_R, LENS_I, out_index)
GEN_PCMPSTR(pcmpistri_m, SRC2_M, LENS_I, out_index)
GEN_PCMPSTR(pcmpistrm_r, SRC2_R, LENS_I, out_mask)
GEN_PCMPSTR(pcmpistrm_m, SRC2_M, LENS_I, out_mask)
GEN_PCMPSTR(pcmpestri_r32, SRC2_R, LENS_E32, out_index)
GEN_PCMPSTR(pcmpestri_m32, SRC2_M, LENS_E32, out_index)
GEN_PCMPSTR(pcmpestrm_r32, SRC2_R, LENS_E32, out_mask)
GEN_PCMPSTR(pcmpestrm_m32, SRC2_M, LENS_E32, out_mask)
GEN_PCMPSTR(pcmpestri_r64, SRC2_R, LENS_E64, out_index)
GEN_PCMPSTR(pcmpestri_m64, SRC2_M, LENS_E64, out_index)
GEN_PCMPSTR(pcmpestrm_r64, SRC2_R, LENS_E64, out_mask)
GEN_PCMPSTR(pcmpestrm_m64, SRC2_M, LENS_E64, out_mask)

/* ------------------------------------------------------------ PCMPGTQ */
static inline void pcmpgtq(xmm_t *d, const xmm_t *s)
{
    d->q[0] = d->sq[0] > s->sq[0] ? ~0ull : 0;
    d->q[1] = d->sq[1] > s->sq[1] ? ~0ull : 0;
}

static void op_pcmpgtq_r(struct cpu *c, const struct op *op)
{
    xmm_t s = c->xmm[op->x2];
    pcmpgtq(&c->xmm[op->x1], &s);
    NEXT(c, op);
}

static void op_pcmpgtq_m(struct cpu *c, const struct op *op)
{
    xmm_t s;
    uint64_t a = op_ea(c, op);
    sse_check_align16(c, a);
    load128(c, a, &s);
    pcmpgtq(&c->xmm[op->x1], &s);
    NEXT(c, op);
}

/* ------------------------------------------------------------ CRC32
 * SDM vol. 2A, CRC32: the CRC-32C (Castagnoli) polynomial 11EDC6F41H on
 * bit-reflected data and accumulator, without pre- or post-inversion.  In
 * reflected form that is the usual right-shifting CRC with the reversed
 * polynomial 82F63B78H, fed the source bytes from the lowest up.  The
 * 64-bit destination forms read DEST[31:0] and zero-extend the result. */
static uint32_t crc32c_table[256];

static void crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t v = i;
        for (int k = 0; k < 8; k++)
            v = (v >> 1) ^ ((v & 1) ? 0x82f63b78u : 0);
        crc32c_table[i] = v;
    }
}

static inline uint32_t crc32c(uint32_t crc, uint64_t data, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++, data >>= 8)
        crc = crc32c_table[(crc ^ data) & 0xff] ^ (crc >> 8);
    return crc;
}

#define GEN_CRC32(B)                                                                    \
    static void op_crc32_r##B(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        set_gpr32(c, op->r1, crc32c(GPR32(c, op->r1), GPR##B(c, op->r2), B / 8));       \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_crc32_m##B(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        uint64_t v = load##B(c, op_ea(c, op));                                          \
        set_gpr32(c, op->r1, crc32c(GPR32(c, op->r1), v, B / 8));                       \
        NEXT(c, op);                                                              \
    }
GEN_CRC32(8)
GEN_CRC32(16)
GEN_CRC32(32)
GEN_CRC32(64)
static const cpu_handler crc32_h[2][4] = {
    { op_crc32_r8, op_crc32_r16, op_crc32_r32, op_crc32_r64 },
    { op_crc32_m8, op_crc32_m16, op_crc32_m32, op_crc32_m64 },
};

/* ------------------------------------------------------------ decoding */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* xmm1, xmm2/m128 [, imm8]: x1 = xmm1, x2 = xmm2 or the memory operand. */
bool dec_sse42_xmm_rm(struct decoder *d, cpu_handler reg, cpu_handler mem)
{
    struct op *op = d->op;
    int x = dec_xmm(d, 0);
    if (x < 0 || d->in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
        return false;
    op->x1 = (uint8_t)x;
    if (is_reg(d, 1)) {
        int y = dec_xmm(d, 1);
        if (y < 0)
            return false;
        op->x2 = (uint8_t)y;
        op->fn = reg;
    } else {
        if (!dec_mem_op(d, 1))
            return false;
        op->fn = mem;
    }
    if (d->in->operand_count_visible > 2 && is_imm(d, 2))
        op->imm = dec_imm(d, 2) & 0xff;
    return true;
}

static bool dec_crc32(struct decoder *d)
{
    struct op *op = d->op;
    pthread_once(&tables_once, crc32c_init);
    if (!dec_reg_op(d, 0, &op->r1))
        return false;
    unsigned w = size_index(d->ops[1].size / 8);
    if (is_reg(d, 1)) {
        if (!dec_reg_op(d, 1, &op->r2))
            return false;
        op->fn = crc32_h[0][w];
        return true;
    }
    if (!dec_mem_op(d, 1))
        return false;
    op->fn = crc32_h[1][w];
    return true;
}

bool dec_sse42(struct decoder *d)
{
    bool wide = d->in->operand_width == 64; /* REX.W: lengths from RAX/RDX */
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_PCMPISTRI:
        return dec_sse42_xmm_rm(d, op_pcmpistri_r, op_pcmpistri_m);
    case ZYDIS_MNEMONIC_PCMPISTRM:
        return dec_sse42_xmm_rm(d, op_pcmpistrm_r, op_pcmpistrm_m);
    case ZYDIS_MNEMONIC_PCMPESTRI:
        return wide ? dec_sse42_xmm_rm(d, op_pcmpestri_r64, op_pcmpestri_m64)
                    : dec_sse42_xmm_rm(d, op_pcmpestri_r32, op_pcmpestri_m32);
    case ZYDIS_MNEMONIC_PCMPESTRM:
        return wide ? dec_sse42_xmm_rm(d, op_pcmpestrm_r64, op_pcmpestrm_m64)
                    : dec_sse42_xmm_rm(d, op_pcmpestrm_r32, op_pcmpestrm_m32);
    case ZYDIS_MNEMONIC_PCMPGTQ:
        return dec_sse42_xmm_rm(d, op_pcmpgtq_r, op_pcmpgtq_m);
    case ZYDIS_MNEMONIC_CRC32:
        return dec_crc32(d);
    default:
        return dec_sse42_aes(d);
    }
}
