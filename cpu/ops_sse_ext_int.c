/* SSE4.1 integer instructions, and the data movement of SSE3 and SSE4.1
 * (moves, blends, inserts and extracts, which raise no floating-point
 * exception and so are exact in plain C):
 *
 *   SSE3    LDDQU MOVDDUP MOVSHDUP MOVSLDUP
 *   SSE4.1  PMOVSX.. PMOVZX.. PBLENDW PBLENDVB BLENDPS BLENDPD BLENDVPS BLENDVPD
 *           PTEST PMINSB/SD PMINUW/UD PMAXSB/SD PMAXUW/UD PMULLD PMULDQ
 *           PCMPEQQ PACKUSDW MPSADBW PHMINPOSUW MOVNTDQA
 *           PEXTRB/W/D/Q EXTRACTPS PINSRB/D/Q INSERTPS
 *
 * Semantics from the instruction pages of SDM vol. 2. */
#include "cpu/flags.h"
#include "cpu/sse_ext.h"

/* ------------------------------------------------------------ SSE3 moves */
static inline void k_movddup(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->q[0] = r->q[1] = s->q[0];
}
static inline void k_movshdup(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->d[0] = r->d[1] = s->d[1];
    r->d[2] = r->d[3] = s->d[3];
}
static inline void k_movsldup(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->d[0] = r->d[1] = s->d[0];
    r->d[2] = r->d[3] = s->d[2];
}
SX_XMM_FORMS(movddup, sx_load_64)
SX_XMM_FORMS(movshdup, sx_load_a128)
SX_XMM_FORMS(movsldup, sx_load_a128)

/* LDDQU and MOVNTDQA have memory sources only; LDDQU's need not be aligned,
 * MOVNTDQA's must (the non-temporal hint means nothing here). */
static void op_lddqu(struct cpu *c, const struct op *op)
{
    xmm_t s;
    sx_load_u128(c, op, &s);
    c->xmm[op->x1] = s;
    NEXT(c, op);
}
static void op_movntdqa(struct cpu *c, const struct op *op)
{
    xmm_t s;
    sx_load_a128(c, op, &s);
    c->xmm[op->x1] = s;
    NEXT(c, op);
}

/* ------------------------------------------------------------ PMOVSX / PMOVZX
 * The low elements of the source widened; the memory source is exactly as
 * wide as the elements used (8, 4 or 2 bytes). */
#define MOVX(name, dl, sl, count, LOAD)                                                 \
    static inline void k_##name(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm) \
    {                                                                                   \
        for (unsigned i = 0; i < count; i++)                                            \
            r->dl[i] = s->sl[i];                                                        \
    }                                                                                   \
    SX_XMM_FORMS(name, LOAD)
MOVX(pmovsxbw, sw, sb, 8, sx_load_64)
MOVX(pmovsxbd, sd, sb, 4, sx_load_32)
MOVX(pmovsxbq, sq, sb, 2, sx_load_16)
MOVX(pmovsxwd, sd, sw, 4, sx_load_64)
MOVX(pmovsxwq, sq, sw, 2, sx_load_32)
MOVX(pmovsxdq, sq, sd, 2, sx_load_64)
MOVX(pmovzxbw, w, b, 8, sx_load_64)
MOVX(pmovzxbd, d, b, 4, sx_load_32)
MOVX(pmovzxbq, q, b, 2, sx_load_16)
MOVX(pmovzxwd, d, w, 4, sx_load_64)
MOVX(pmovzxwq, q, w, 2, sx_load_32)
MOVX(pmovzxdq, q, d, 2, sx_load_64)
#undef MOVX

/* ------------------------------------------------------------ blends
 * Immediate blends: bit i of imm8 takes element i from the source. */
#define BLEND_IMM(name, lane, count)                                                    \
    static inline void k_##name(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm) \
    {                                                                                   \
        for (unsigned i = 0; i < count; i++)                                            \
            r->lane[i] = (imm >> i) & 1 ? s->lane[i] : d->lane[i];                      \
    }                                                                                   \
    SX_XMM_FORMS(name, sx_load_a128)
BLEND_IMM(pblendw, w, 8)
BLEND_IMM(blendps, d, 4)
BLEND_IMM(blendpd, q, 2)
#undef BLEND_IMM

/* Variable blends: the sign bit of each element of the implicit XMM0
 * takes the element from the source (XMM0 is read before anything is
 * written, so it may be the destination too). */
#define BLEND_VAR(name, lane, count)                                                    \
    static inline void b_##name(xmm_t *r, const xmm_t *d, const xmm_t *s, const xmm_t *m)\
    {                                                                                   \
        for (unsigned i = 0; i < count; i++)                                            \
            r->lane[i] = m->lane[i] < 0 ? s->lane[i] : d->lane[i];                      \
    }                                                                                   \
    static void op_##name##_rr(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t r;                                                                        \
        b_##name(&r, &c->xmm[op->x1], &c->xmm[op->x2], &c->xmm[0]);                     \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_rm(struct cpu *c, const struct op *op)                      \
    {                                                                                   \
        xmm_t s, r;                                                                     \
        sx_load_a128(c, op, &s);                                                        \
        b_##name(&r, &c->xmm[op->x1], &s, &c->xmm[0]);                                  \
        c->xmm[op->x1] = r;                                                             \
        NEXT(c, op);                                                              \
    }
BLEND_VAR(pblendvb, sb, 16)
BLEND_VAR(blendvps, sd, 4)
BLEND_VAR(blendvpd, sq, 2)
#undef BLEND_VAR

/* ------------------------------------------------------------ element-wise arithmetic */
#define ELEMENTWISE(name, lane, count, expr)                                            \
    static inline void k_##name(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm) \
    {                                                                                   \
        for (unsigned i = 0; i < count; i++) {                                          \
            __typeof__(d->lane[0]) a = d->lane[i], b = s->lane[i];                      \
            r->lane[i] = (expr);                                                        \
        }                                                                               \
    }                                                                                   \
    SX_XMM_FORMS(name, sx_load_a128)
ELEMENTWISE(pminsb, sb, 16, a < b ? a : b)
ELEMENTWISE(pminsd, sd, 4, a < b ? a : b)
ELEMENTWISE(pminuw, w, 8, a < b ? a : b)
ELEMENTWISE(pminud, d, 4, a < b ? a : b)
ELEMENTWISE(pmaxsb, sb, 16, a > b ? a : b)
ELEMENTWISE(pmaxsd, sd, 4, a > b ? a : b)
ELEMENTWISE(pmaxuw, w, 8, a > b ? a : b)
ELEMENTWISE(pmaxud, d, 4, a > b ? a : b)
ELEMENTWISE(pmulld, d, 4, a * b) /* the low 32 bits of the product, sign or not */
ELEMENTWISE(pcmpeqq, q, 2, a == b ? ~0ull : 0)
#undef ELEMENTWISE

/* PMULDQ: signed products of the even doublewords (0 and 2), 64 bits each. */
static inline void k_pmuldq(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    r->sq[0] = (int64_t)d->sd[0] * s->sd[0];
    r->sq[1] = (int64_t)d->sd[2] * s->sd[2];
}
SX_XMM_FORMS(pmuldq, sx_load_a128)

/* PACKUSDW: signed doublewords of the destination (low half) and source
 * (high half) saturated to unsigned words. */
static inline uint16_t satu16(int32_t v)
{
    return (uint16_t)(v < 0 ? 0 : v > UINT16_MAX ? UINT16_MAX : v);
}
static inline void k_packusdw(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    for (unsigned i = 0; i < 4; i++) {
        r->w[i] = satu16(d->sd[i]);
        r->w[4 + i] = satu16(s->sd[i]);
    }
}
SX_XMM_FORMS(packusdw, sx_load_a128)

/* MPSADBW: eight sums of absolute differences between the source block
 * selected by imm8[1:0] (4 bytes at 4 * imm8[1:0]) and the eight 4-byte
 * windows of the destination starting at byte 0..7 (+4 when imm8[2]). */
static inline void k_mpsadbw(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    unsigned doff = (imm & 4), soff = (imm & 3) * 4;
    for (unsigned i = 0; i < 8; i++) {
        unsigned sum = 0;
        for (unsigned j = 0; j < 4; j++) {
            int diff = d->b[doff + i + j] - s->b[soff + j];
            sum += (unsigned)(diff < 0 ? -diff : diff);
        }
        r->w[i] = (uint16_t)sum;
    }
}
SX_XMM_FORMS(mpsadbw, sx_load_a128)

/* PHMINPOSUW: the smallest unsigned word of the source in word 0, its
 * index (the lowest on ties) in bits 18:16, zeros elsewhere. */
static inline void k_phminposuw(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    unsigned best = 0;
    for (unsigned i = 1; i < 8; i++)
        if (s->w[i] < s->w[best])
            best = i;
    r->q[1] = 0;
    r->q[0] = s->w[best] | (uint64_t)best << 16;
}
SX_XMM_FORMS(phminposuw, sx_load_a128)

/* INSERTPS: a doubleword of the source (imm8[7:6] selects it from a
 * register; a memory source is the doubleword itself: the decoder clears
 * imm8[7:6] for that form) replaces element imm8[5:4]; then the elements
 * set in imm8[3:0] are zeroed. */
static inline void k_insertps(xmm_t *r, const xmm_t *d, const xmm_t *s, unsigned imm)
{
    *r = *d;
    r->d[(imm >> 4) & 3] = s->d[(imm >> 6) & 3];
    for (unsigned i = 0; i < 4; i++)
        if (imm & (1u << i))
            r->d[i] = 0;
}
SX_XMM_FORMS(insertps, sx_load_32)

/* ------------------------------------------------------------ PTEST
 * ZF = (dst AND src) == 0, CF = (NOT dst AND src) == 0; AF, OF, PF and SF
 * are cleared. */
static inline void ptest(struct cpu *c, const xmm_t *d, const xmm_t *s)
{
    bool zf = ((d->q[0] & s->q[0]) | (d->q[1] & s->q[1])) == 0;
    bool cf = ((~d->q[0] & s->q[0]) | (~d->q[1] & s->q[1])) == 0;
    cpu_set_arith(c, (zf ? FL_ZF : 0) | (cf ? FL_CF : 0), FL_ARITH);
}
static void op_ptest_rr(struct cpu *c, const struct op *op)
{
    ptest(c, &c->xmm[op->x1], &c->xmm[op->x2]);
    NEXT(c, op);
}
static void op_ptest_rm(struct cpu *c, const struct op *op)
{
    xmm_t s;
    sx_load_a128(c, op, &s);
    ptest(c, &c->xmm[op->x1], &s);
    NEXT(c, op);
}

/* ------------------------------------------------------------ extracts and inserts
 * x1: the XMM register, x3: the element index (imm8 masked at decode time),
 * r1: the general register.  A register destination is written whole: the
 * element zero-extended to 32 bits (64 with REX.W, the same value). */
#define EXTRACT(name, lane, B)                                                          \
    static void op_##name##_r(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        set_gpr64(c, op->r1, c->xmm[op->x1].lane[op->x3]);                              \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        store##B(c, op_ea(c, op), c->xmm[op->x1].lane[op->x3]);                         \
        NEXT(c, op);                                                              \
    }
EXTRACT(pextrb, b, 8)
EXTRACT(pextrw, w, 16)
EXTRACT(pextrd, d, 32) /* and EXTRACTPS */
EXTRACT(pextrq, q, 64)
#undef EXTRACT

/* PINSRB reads the low byte of a 32-bit register, or a byte of memory. */
#define INSERT(name, lane, B)                                                           \
    static void op_##name##_r(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        c->xmm[op->x1].lane[op->x3] = (uint##B##_t)GPR64(c, op->r1);                    \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##name##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        uint##B##_t v = load##B(c, op_ea(c, op));                                       \
        c->xmm[op->x1].lane[op->x3] = v;                                                \
        NEXT(c, op);                                                              \
    }
INSERT(pinsrb, b, 8)
INSERT(pinsrd, d, 32)
INSERT(pinsrq, q, 64)
#undef INSERT

/* "r/m, xmm, imm8" (extract) when xmm_op is 1, "xmm, r/m, imm8" (insert)
 * when it is 0; elements is the element count of the XMM register. */
static bool dec_element(struct decoder *d, unsigned xmm_op, unsigned elements, cpu_handler r,
                        cpu_handler m)
{
    struct op *op = d->op;
    unsigned rm_op = 1 - xmm_op;
    int x = dec_xmm(d, xmm_op);
    if (x < 0 || !is_imm(d, 2))
        return false;
    op->x1 = (uint8_t)x;
    op->x3 = (uint8_t)(dec_imm(d, 2) & (elements - 1));
    if (is_reg(d, rm_op)) {
        op->fn = r;
        return dec_reg_op(d, rm_op, &op->r1);
    }
    op->fn = m;
    return dec_mem_op(d, rm_op);
}

/* ------------------------------------------------------------ decoding */
#define XMM_OPS(X)                                                                      \
    X(MOVDDUP, movddup) X(MOVSHDUP, movshdup) X(MOVSLDUP, movsldup)                     \
    X(PMOVSXBW, pmovsxbw) X(PMOVSXBD, pmovsxbd) X(PMOVSXBQ, pmovsxbq)                   \
    X(PMOVSXWD, pmovsxwd) X(PMOVSXWQ, pmovsxwq) X(PMOVSXDQ, pmovsxdq)                   \
    X(PMOVZXBW, pmovzxbw) X(PMOVZXBD, pmovzxbd) X(PMOVZXBQ, pmovzxbq)                   \
    X(PMOVZXWD, pmovzxwd) X(PMOVZXWQ, pmovzxwq) X(PMOVZXDQ, pmovzxdq)                   \
    X(PBLENDW, pblendw) X(BLENDPS, blendps) X(BLENDPD, blendpd)                         \
    X(PBLENDVB, pblendvb) X(BLENDVPS, blendvps) X(BLENDVPD, blendvpd)                   \
    X(PMINSB, pminsb) X(PMINSD, pminsd) X(PMINUW, pminuw) X(PMINUD, pminud)             \
    X(PMAXSB, pmaxsb) X(PMAXSD, pmaxsd) X(PMAXUW, pmaxuw) X(PMAXUD, pmaxud)             \
    X(PMULLD, pmulld) X(PMULDQ, pmuldq) X(PCMPEQQ, pcmpeqq) X(PACKUSDW, packusdw)       \
    X(MPSADBW, mpsadbw) X(PHMINPOSUW, phminposuw) X(PTEST, ptest) X(INSERTPS, insertps)

static const struct {
    ZydisMnemonic m;
    cpu_handler rr, rm;
} xmm_ops[] = {
#define ROW(M, name) { ZYDIS_MNEMONIC_##M, op_##name##_rr, op_##name##_rm },
    XMM_OPS(ROW)
#undef ROW
};

bool dec_sse_ext_int(struct decoder *d)
{
    struct op *op = d->op;
    ZydisMnemonic m = d->in->mnemonic;
    switch (m) {
    case ZYDIS_MNEMONIC_LDDQU:
    case ZYDIS_MNEMONIC_MOVNTDQA: {
        int x = dec_xmm(d, 0);
        if (x < 0 || !is_mem(d, 1))
            return false;
        op->x1 = (uint8_t)x;
        op->fn = m == ZYDIS_MNEMONIC_LDDQU ? op_lddqu : op_movntdqa;
        return dec_mem_op(d, 1);
    }
    case ZYDIS_MNEMONIC_PEXTRB:
        return dec_element(d, 1, 16, op_pextrb_r, op_pextrb_m);
    case ZYDIS_MNEMONIC_PEXTRW:
        /* Only SSE4.1's 66 0F 3A 15 (which may store to memory); 66 0F C5
         * is SSE2's (sse_int family). */
        if (d->in->opcode_map != ZYDIS_OPCODE_MAP_0F3A)
            return false;
        return dec_element(d, 1, 8, op_pextrw_r, op_pextrw_m);
    case ZYDIS_MNEMONIC_PEXTRD:
    case ZYDIS_MNEMONIC_EXTRACTPS:
        return dec_element(d, 1, 4, op_pextrd_r, op_pextrd_m);
    case ZYDIS_MNEMONIC_PEXTRQ:
        return dec_element(d, 1, 2, op_pextrq_r, op_pextrq_m);
    case ZYDIS_MNEMONIC_PINSRB:
        return dec_element(d, 0, 16, op_pinsrb_r, op_pinsrb_m);
    case ZYDIS_MNEMONIC_PINSRD:
        return dec_element(d, 0, 4, op_pinsrd_r, op_pinsrd_m);
    case ZYDIS_MNEMONIC_PINSRQ:
        return dec_element(d, 0, 2, op_pinsrq_r, op_pinsrq_m);
    default:
        break;
    }
    for (size_t i = 0; i < sizeof(xmm_ops) / sizeof(xmm_ops[0]); i++) {
        if (xmm_ops[i].m != m)
            continue;
        if (!sx_dec_xmm(d, xmm_ops[i].rr, xmm_ops[i].rm))
            return false;
        if (m == ZYDIS_MNEMONIC_INSERTPS && is_mem(d, 1))
            op->imm &= 0x3f; /* see k_insertps */
        return true;
    }
    return false;
}
