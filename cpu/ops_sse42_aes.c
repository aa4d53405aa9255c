/* AES-NI (AESENC AESENCLAST AESDEC AESDECLAST AESIMC AESKEYGENASSIST) and
 * PCLMULQDQ, legacy encodings, in plain C.
 *
 * The AES tables are computed at first use from the FIPS-197 definitions
 * (section 5.1.1: the S-box is the multiplicative inverse in GF(2^8) modulo
 * x^8+x^4+x^3+x+1 followed by the affine transformation; section 5.1.3:
 * MixColumns multiplies each column by {03}x^3+{01}x^2+{01}x+{02}), so
 * nothing depends on the host having AES-NI.  The state is the XMM
 * register's bytes in FIPS order: byte 4c+r is row r of column c. */
#include <pthread.h>

#include "cpu/sse.h"
#include "cpu/sse42.h"

static uint8_t sbox[256], inv_sbox[256];
static uint8_t mul2[256], mul3[256], mul9[256], mul11[256], mul13[256], mul14[256];

/* Multiplication in GF(2^8) with the AES polynomial (FIPS-197 4.2). */
static uint8_t gf_mul(uint8_t a, uint8_t b)
{
    uint8_t p = 0;
    while (b) {
        if (b & 1)
            p ^= a;
        a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
        b >>= 1;
    }
    return p;
}

static inline uint8_t rotl8(uint8_t x, unsigned n) { return (uint8_t)((x << n) | (x >> (8 - n))); }

static void aes_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        /* the inverse is x^254 (x^255 = 1); 0 maps to 0 */
        uint8_t x = (uint8_t)i, inv = 1, sq = x;
        for (unsigned e = 254; e; e >>= 1) {
            if (e & 1)
                inv = gf_mul(inv, sq);
            sq = gf_mul(sq, sq);
        }
        if (i == 0)
            inv = 0;
        uint8_t s = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
        sbox[i] = s;
        inv_sbox[s] = (uint8_t)i;
        mul2[i] = gf_mul(x, 2);
        mul3[i] = gf_mul(x, 3);
        mul9[i] = gf_mul(x, 9);
        mul11[i] = gf_mul(x, 11);
        mul13[i] = gf_mul(x, 13);
        mul14[i] = gf_mul(x, 14);
    }
}

/* ShiftRows moves row r left by r columns: out[r][c] = in[r][(c + r) mod 4];
 * InvShiftRows is the reverse.  Both commute with the byte substitutions,
 * so each pair is done in one pass. */
static inline void shift_sub(uint8_t out[16], const uint8_t in[16])
{
    for (unsigned c = 0; c < 4; c++)
        for (unsigned r = 0; r < 4; r++)
            out[4 * c + r] = sbox[in[4 * ((c + r) & 3) + r]];
}

static inline void inv_shift_sub(uint8_t out[16], const uint8_t in[16])
{
    for (unsigned c = 0; c < 4; c++)
        for (unsigned r = 0; r < 4; r++)
            out[4 * ((c + r) & 3) + r] = inv_sbox[in[4 * c + r]];
}

static inline void mix_columns(uint8_t s[16])
{
    for (unsigned c = 0; c < 16; c += 4) {
        uint8_t a0 = s[c], a1 = s[c + 1], a2 = s[c + 2], a3 = s[c + 3];
        s[c] = mul2[a0] ^ mul3[a1] ^ a2 ^ a3;
        s[c + 1] = a0 ^ mul2[a1] ^ mul3[a2] ^ a3;
        s[c + 2] = a0 ^ a1 ^ mul2[a2] ^ mul3[a3];
        s[c + 3] = mul3[a0] ^ a1 ^ a2 ^ mul2[a3];
    }
}

/* FIPS-197 5.3.3: the columns times {0b}x^3+{0d}x^2+{09}x+{0e}. */
static inline void inv_mix_columns(uint8_t s[16])
{
    for (unsigned c = 0; c < 16; c += 4) {
        uint8_t a0 = s[c], a1 = s[c + 1], a2 = s[c + 2], a3 = s[c + 3];
        s[c] = mul14[a0] ^ mul11[a1] ^ mul13[a2] ^ mul9[a3];
        s[c + 1] = mul9[a0] ^ mul14[a1] ^ mul11[a2] ^ mul13[a3];
        s[c + 2] = mul13[a0] ^ mul9[a1] ^ mul14[a2] ^ mul11[a3];
        s[c + 3] = mul11[a0] ^ mul13[a1] ^ mul9[a2] ^ mul14[a3];
    }
}

/* Kernels: d is the destination (and first source), s the second source,
 * already copied out of registers and memory. */
static inline void add_round_key(xmm_t *d, const xmm_t *st, const xmm_t *key)
{
    d->q[0] = st->q[0] ^ key->q[0];
    d->q[1] = st->q[1] ^ key->q[1];
}

/* SDM AESENC: ShiftRows, SubBytes, MixColumns, then XOR the round key. */
static inline void k_aesenc(xmm_t *d, const xmm_t *s, unsigned imm)
{
    xmm_t st;
    shift_sub(st.b, d->b);
    mix_columns(st.b);
    add_round_key(d, &st, s);
}

static inline void k_aesenclast(xmm_t *d, const xmm_t *s, unsigned imm)
{
    xmm_t st;
    shift_sub(st.b, d->b);
    add_round_key(d, &st, s);
}

/* SDM AESDEC: InvShiftRows, InvSubBytes, InvMixColumns, XOR the round key
 * (the "equivalent inverse cipher" of FIPS-197 5.3.5). */
static inline void k_aesdec(xmm_t *d, const xmm_t *s, unsigned imm)
{
    xmm_t st;
    inv_shift_sub(st.b, d->b);
    inv_mix_columns(st.b);
    add_round_key(d, &st, s);
}

static inline void k_aesdeclast(xmm_t *d, const xmm_t *s, unsigned imm)
{
    xmm_t st;
    inv_shift_sub(st.b, d->b);
    add_round_key(d, &st, s);
}

static inline void k_aesimc(xmm_t *d, const xmm_t *s, unsigned imm)
{
    *d = *s;
    inv_mix_columns(d->b);
}

static inline uint32_t sub_word(uint32_t w)
{
    return (uint32_t)sbox[w & 0xff] | (uint32_t)sbox[(w >> 8) & 0xff] << 8 |
           (uint32_t)sbox[(w >> 16) & 0xff] << 16 | (uint32_t)sbox[w >> 24] << 24;
}

/* SDM AESKEYGENASSIST: from the source's dwords X1 and X3,
 * SubWord(X1), RotWord(SubWord(X1)) ^ RCON, SubWord(X3),
 * RotWord(SubWord(X3)) ^ RCON, where RotWord rotates right by 8 bits (the
 * FIPS byte rotation on a little-endian word) and RCON is imm8. */
static inline void k_aeskeygenassist(xmm_t *d, const xmm_t *s, unsigned imm)
{
    uint32_t x1 = sub_word(s->d[1]), x3 = sub_word(s->d[3]);
    d->d[0] = x1;
    d->d[1] = ((x1 >> 8) | (x1 << 24)) ^ imm;
    d->d[2] = x3;
    d->d[3] = ((x3 >> 8) | (x3 << 24)) ^ imm;
}

/* PCLMULQDQ: the carry-less (GF(2)[x]) product of one quadword of each
 * operand, imm8[0] choosing the destination's and imm8[4] the source's. */
static inline void k_pclmulqdq(xmm_t *d, const xmm_t *s, unsigned imm)
{
    uint64_t a = d->q[imm & 1], b = s->q[(imm >> 4) & 1], lo = a & -(b & 1), hi = 0;
    for (unsigned i = 1; i < 64; i++) {
        uint64_t m = 0 - ((b >> i) & 1);
        lo ^= (a << i) & m;
        hi ^= (a >> (64 - i)) & m;
    }
    d->q[0] = lo;
    d->q[1] = hi;
}

/* Register and memory forms; legacy SSE requires 16-byte alignment of the
 * m128 operand (exception type 4). */
#define GEN_XMM_FORMS(name)                                                             \
    static void op_##name##_r(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        xmm_t s = c->xmm[op->x2];                                                       \
        k_##name(&c->xmm[op->x1], &s, (unsigned)op->imm);                               \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        xmm_t s;                                                                        \
        uint64_t a = op_ea(c, op);                                                      \
        sse_check_align16(c, a);                                                        \
        load128(c, a, &s);                                                              \
        k_##name(&c->xmm[op->x1], &s, (unsigned)op->imm);                               \
        NEXT(c, op);                                                              \
    }
GEN_XMM_FORMS(aesenc)
GEN_XMM_FORMS(aesenclast)
GEN_XMM_FORMS(aesdec)
GEN_XMM_FORMS(aesdeclast)
GEN_XMM_FORMS(aesimc)
GEN_XMM_FORMS(aeskeygenassist)
GEN_XMM_FORMS(pclmulqdq)

static pthread_once_t aes_once = PTHREAD_ONCE_INIT;

bool dec_sse42_aes(struct decoder *d)
{
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_AESENC:
        pthread_once(&aes_once, aes_init);
        return dec_sse42_xmm_rm(d, op_aesenc_r, op_aesenc_m);
    case ZYDIS_MNEMONIC_AESENCLAST:
        pthread_once(&aes_once, aes_init);
        return dec_sse42_xmm_rm(d, op_aesenclast_r, op_aesenclast_m);
    case ZYDIS_MNEMONIC_AESDEC:
        pthread_once(&aes_once, aes_init);
        return dec_sse42_xmm_rm(d, op_aesdec_r, op_aesdec_m);
    case ZYDIS_MNEMONIC_AESDECLAST:
        pthread_once(&aes_once, aes_init);
        return dec_sse42_xmm_rm(d, op_aesdeclast_r, op_aesdeclast_m);
    case ZYDIS_MNEMONIC_AESIMC:
        pthread_once(&aes_once, aes_init);
        return dec_sse42_xmm_rm(d, op_aesimc_r, op_aesimc_m);
    case ZYDIS_MNEMONIC_AESKEYGENASSIST:
        pthread_once(&aes_once, aes_init);
        return dec_sse42_xmm_rm(d, op_aeskeygenassist_r, op_aeskeygenassist_m);
    case ZYDIS_MNEMONIC_PCLMULQDQ:
        return dec_sse42_xmm_rm(d, op_pclmulqdq_r, op_pclmulqdq_m);
    default:
        return false;
    }
}
