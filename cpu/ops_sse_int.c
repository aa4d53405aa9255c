/* SSE2 integer instructions on XMM registers (legacy 66 0F encodings; the
 * VEX forms are AVX's): MOVD/MOVQ, MOVDQA/MOVDQU/MOVNTDQ, MOVQ2DQ/MOVDQ2Q,
 * the lane arithmetic, compares, logic, shifts, shuffles, packs and unpacks,
 * PMOVMSKB, PINSRW/PEXTRW and MASKMOVDQU.
 *
 * The operations are the kernels of cpu/sse_int.h with n = 16; handlers
 * are generated per operand form: rr (xmm, xmm), rm (xmm, m128) and ri
 * (xmm, imm8: the shifts).  Legacy-SSE 128-bit memory operands must be
 * 16-byte aligned (SDM vol. 1, 11.6.7) except for MOVDQU. */
#include "cpu/sse_int.h"

#define XMM(i) (&c->xmm[i])

/* Chains: in a run of instructions each reading the XMM register the one
 * before it wrote -- glibc's string loops: MOVDQA x,[m]; PMINUB x,[m+16];
 * ...; PCMPEQB x,y; PMOVMSKB r,x -- the value goes on to the next one in a
 * host register instead of through struct cpu (a store and a dependent
 * load per link).  The op that wrote it has x3 = 1, and the next op's imm
 * then holds its value-taking handler (sse_int_chains; neither field has
 * another use in the ops that take part).  Every op still commits its
 * result before the next runs and does its own loads, so a fault finds
 * the state it would without the chain. */
typedef void (*xi_next_fn)(struct cpu *c, const struct op *op, __m128i prev);
#define XI_PASS(c, op, r)                                                               \
    do {                                                                                \
        if ((op)->x3) {                                                                 \
            __m128i v_;                                                                 \
            memcpy(&v_, &(r), 16);                                                      \
            (c)->cur = (op) + 1;                                                        \
            ((xi_next_fn)(intptr_t)(op)[1].imm)((c), (op) + 1, v_);                     \
            return;                                                                     \
        }                                                                               \
        NEXT(c, op);                                                                    \
    } while (0)

/* The memory form exists once per form of the address (cpu/mem.h), in a
 * table by enum addr_mode: NAME_rm_h. */
#define GEN_RM_FORM(AM, sfx, name)                                                      \
    static void op_x_##name##_rm_##sfx(struct cpu *c, const struct op *op)             \
    {                                                                                   \
        xmm_t y, r;                                                                     \
        memcpy(&y, xmm_mem(c, op, AM, true), 16);                                       \
        k_##name(&r, XMM(op->x1), &y, (unsigned)op->imm, 16);                           \
        *XMM(op->x1) = r;                                                               \
        XI_PASS(c, op, r);                                                              \
    }
#define GEN_RR_RM(name)                                                                 \
    static void op_x_##name##_rr(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        xmm_t r;                                                                        \
        k_##name(&r, XMM(op->x1), XMM(op->x2), (unsigned)op->imm, 16);                  \
        *XMM(op->x1) = r;                                                               \
        XI_PASS(c, op, r);                                                              \
    }                                                                                   \
    ADDR_MODES(GEN_RM_FORM, name)                                                       \
    static const cpu_handler name##_rm_h[AM_COUNT] = { ADDR_MODES(AM_HANDLER, op_x_##name##_rm_) };
#define GEN_RI(name)                                                                    \
    static void op_x_##name##_ri(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        xmm_t y = { .q = { (uint64_t)op->imm, 0 } }, r;                                 \
        k_##name(&r, XMM(op->x1), &y, (unsigned)op->imm, 16);                           \
        *XMM(op->x1) = r;                                                               \
        NEXT(c, op);                                                              \
    }
#define GEN_SHIFT(name) GEN_RR_RM(name) GEN_RI(name)

/* XMM-only operations (no MMX form). */
#define XMM_ONLY_OPS(X)                                                                 \
    X(punpcklqdq, PUNPCKLQDQ) X(punpckhqdq, PUNPCKHQDQ)                                 \
    X(pshufd, PSHUFD) X(pshuflw, PSHUFLW) X(pshufhw, PSHUFHW)
#define GEN_RR_RM_X(name, M) GEN_RR_RM(name)
#define GEN_SHIFT_X(name, M) GEN_SHIFT(name)
SIMD_BOTH_OPS(GEN_RR_RM_X)
XMM_ONLY_OPS(GEN_RR_RM_X)
SIMD_SHIFT_OPS(GEN_SHIFT_X)
GEN_RI(pslldq)
GEN_RI(psrldq)

/* PXOR x, x is the compilers' zero idiom (cpu/ops_sse_fp_arith.c fuses it). */
const cpu_handler sse_pxor_rr = op_x_pxor_rr;

/* ------------------------------------------------------------ moves */
/* MOVD/MOVQ into an XMM register zero the rest of it (SDM vol. 2, MOVD/MOVQ). */
static void op_movd_x_r(struct cpu *c, const struct op *op)
{
    *XMM(op->x1) = (xmm_t){ .q = { GPR32(c, op->r2), 0 } };
    NEXT(c, op);
}
static void op_movq_x_r(struct cpu *c, const struct op *op)
{
    *XMM(op->x1) = (xmm_t){ .q = { GPR64(c, op->r2), 0 } };
    NEXT(c, op);
}
static void op_movd_x_m(struct cpu *c, const struct op *op)
{
    uint32_t v = load32(c, op_ea(c, op));
    *XMM(op->x1) = (xmm_t){ .q = { v, 0 } };
    NEXT(c, op);
}
static void op_movq_x_m(struct cpu *c, const struct op *op)
{
    uint64_t v = load64(c, op_ea(c, op));
    *XMM(op->x1) = (xmm_t){ .q = { v, 0 } };
    NEXT(c, op);
}
static void op_movq_x_x(struct cpu *c, const struct op *op)
{
    *XMM(op->x1) = (xmm_t){ .q = { XMM(op->x2)->q[0], 0 } };
    NEXT(c, op);
}
static void op_movd_r_x(struct cpu *c, const struct op *op)
{
    set_gpr32(c, op->r1, XMM(op->x2)->d[0]);
    NEXT(c, op);
}
static void op_movq_r_x(struct cpu *c, const struct op *op)
{
    set_gpr64(c, op->r1, XMM(op->x2)->q[0]);
    NEXT(c, op);
}
static void op_movd_m_x(struct cpu *c, const struct op *op)
{
    store32(c, op_ea(c, op), XMM(op->x2)->d[0]);
    NEXT(c, op);
}
static void op_movq_m_x(struct cpu *c, const struct op *op)
{
    store64(c, op_ea(c, op), XMM(op->x2)->q[0]);
    NEXT(c, op);
}

static void op_movdq_x_x(struct cpu *c, const struct op *op)
{
    *XMM(op->x1) = *XMM(op->x2);
    NEXT(c, op);
}
/* 16-byte loads and stores, aligned (#GP otherwise) or not: MOVDQA/MOVDQU
 * and MOVNTDQ (the non-temporal hint does not change what a single thread
 * or another one can observe after the store) here, MOVAPS/MOVUPS and their
 * twins in cpu/ops_sse_fp.c; one handler per form of the address. */
#define GEN_MOV128(AM, sfx, _)                                                          \
    static void op_load128a_##sfx(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        xmm_t v;                                                                        \
        memcpy(&v, xmm_mem(c, op, AM, true), 16);                                       \
        *XMM(op->x1) = v;                                                               \
        XI_PASS(c, op, v);                                                              \
    }                                                                                   \
    static void op_load128u_##sfx(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        xmm_t v;                                                                        \
        memcpy(&v, xmm_mem(c, op, AM, false), 16);                                      \
        *XMM(op->x1) = v;                                                               \
        XI_PASS(c, op, v);                                                              \
    }                                                                                   \
    static void op_store128a_##sfx(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        memcpy(xmm_mem(c, op, AM, true), XMM(op->x2), 16);                              \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_store128u_##sfx(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        memcpy(xmm_mem(c, op, AM, false), XMM(op->x2), 16);                             \
        NEXT(c, op);                                                                    \
    }
ADDR_MODES(GEN_MOV128, _)
const cpu_handler sse_load128a_h[AM_COUNT] = { ADDR_MODES(AM_HANDLER, op_load128a_) };
const cpu_handler sse_load128u_h[AM_COUNT] = { ADDR_MODES(AM_HANDLER, op_load128u_) };
const cpu_handler sse_store128a_h[AM_COUNT] = { ADDR_MODES(AM_HANDLER, op_store128a_) };
const cpu_handler sse_store128u_h[AM_COUNT] = { ADDR_MODES(AM_HANDLER, op_store128u_) };

/* MOVQ2DQ / MOVDQ2Q touch an MMX register: they are MMX instructions for
 * the x87 state (SDM vol. 2: "causes a transition from x87 FPU to MMX
 * technology operation"). */
static void op_movq2dq(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    uint64_t v = *mmx_reg(c, op->x2);
    mmx_enter(c);
    *XMM(op->x1) = (xmm_t){ .q = { v, 0 } };
    NEXT(c, op);
}
static void op_movdq2q(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_set(c, op->x1, XMM(op->x2)->q[0]);
    NEXT(c, op);
}

/* ------------------------------------------------------------ lanes <-> GPRs */
/* PMOVMSKB and PEXTRW zero the rest of the destination, r64 included. */
static void op_x_pmovmskb(struct cpu *c, const struct op *op)
{
    set_gpr64(c, op->r1, simd_movmskb(XMM(op->x2), 16));
    NEXT(c, op);
}
static void op_x_pextrw(struct cpu *c, const struct op *op)
{
    set_gpr64(c, op->r1, XMM(op->x2)->w[op->x3]);
    NEXT(c, op);
}
static void op_x_pinsrw_r(struct cpu *c, const struct op *op)
{
    XMM(op->x1)->w[op->x3] = GPR16(c, op->r2);
    NEXT(c, op);
}
static void op_x_pinsrw_m(struct cpu *c, const struct op *op)
{
    uint16_t v = load16(c, op_ea(c, op));
    XMM(op->x1)->w[op->x3] = v;
    NEXT(c, op);
}
/* MASKMOVDQU xmm1, xmm2: bytes of xmm1 selected by xmm2 to ds:[rdi]. */
static void op_x_maskmovdqu(struct cpu *c, const struct op *op)
{
    simd_maskmov(c, op_ea(c, op), XMM(op->x1), XMM(op->x2), 16);
    NEXT(c, op);
}

/* ------------------------------------------------------------ chains
 * The operations that can take a value in a chain (none uses op->imm),
 * their value-taking handlers by how the op reads the value before it: as
 * its destination (D; M: the destination of the memory form, which loads
 * its source itself), its source (S), or both (DS). */
#define CHAIN_OPS(X)                                                                    \
    X(pcmpeqb) X(pcmpeqw) X(pcmpeqd) X(pcmpgtb) X(pminub) X(pmaxub) X(pand) X(pandn)   \
    X(por) X(pxor) X(paddb) X(psubb) X(paddd) X(psubd) X(psubusb)
#define XV_ONE(name, V, DST, SRC)                                                       \
    static void op_xv_##name##_##V(struct cpu *c, const struct op *op, __m128i p)       \
    {                                                                                   \
        xmm_t v, r;                                                                     \
        memcpy(&v, &p, 16);                                                             \
        k_##name(&r, DST, SRC, 0, 16);                                                  \
        *XMM(op->x1) = r;                                                               \
        XI_PASS(c, op, r);                                                              \
    }
#define XV_KIND(name)                                                                   \
    XV_ONE(name, D, &v, XMM(op->x2))                                                    \
    XV_ONE(name, S, XMM(op->x1), &v)                                                    \
    XV_ONE(name, DS, &v, &v)                                                            \
    static void op_xv_##name##_M(struct cpu *c, const struct op *op, __m128i p)         \
    {                                                                                   \
        xmm_t y, v, r;                                                                  \
        memcpy(&y, xmm_mem(c, op, AM_ANY, true), 16);                                   \
        memcpy(&v, &p, 16);                                                             \
        k_##name(&r, &v, &y, 0, 16);                                                    \
        *XMM(op->x1) = r;                                                               \
        XI_PASS(c, op, r);                                                              \
    }
CHAIN_OPS(XV_KIND)

static void op_xv_pmovmskb_S(struct cpu *c, const struct op *op, __m128i p)
{
    set_gpr64(c, op->r1, (uint32_t)_mm_movemask_epi8(p));
    NEXT(c, op);
}

enum { XV_D, XV_S, XV_DS, XV_M };
#define XV_ROW(name) { op_xv_##name##_D, op_xv_##name##_S, op_xv_##name##_DS, op_xv_##name##_M },
static const xi_next_fn xv_h[][4] = { CHAIN_OPS(XV_ROW) };
#define XV_RR(name) op_x_##name##_rr,
static const cpu_handler xv_rr[] = { CHAIN_OPS(XV_RR) };
#define XV_RM(name) name##_rm_h,
static const cpu_handler *const xv_rm[] = { CHAIN_OPS(XV_RM) };
#define N_CHAIN_OPS (sizeof(xv_rr) / sizeof(xv_rr[0]))

static bool in_forms(const cpu_handler *h, cpu_handler fn)
{
    for (unsigned am = 0; am < AM_COUNT; am++)
        if (h[am] == fn)
            return true;
    return false;
}

/* The chain operation of op (*mem: its memory form), or -1. */
static int chain_kind(const struct op *op, bool *mem)
{
    for (unsigned k = 0; k < N_CHAIN_OPS; k++) {
        if (op->fn == xv_rr[k] || in_forms(xv_rm[k], op->fn)) {
            *mem = op->fn != xv_rr[k];
            return (int)k;
        }
    }
    return -1;
}

/* The value-taking handler of b after a, which wrote XMM register x, or
 * NULL when b is no chain operation or does not read x. */
static xi_next_fn chain_next(const struct op *b, unsigned x)
{
    bool mem;
    int k = chain_kind(b, &mem);
    if (k < 0)
        return b->fn == op_x_pmovmskb && b->x2 == x ? op_xv_pmovmskb_S : NULL;
    if (mem)
        return b->x1 == x ? xv_h[k][XV_M] : NULL;
    bool d = b->x1 == x, s = b->x2 == x;
    return d && s ? xv_h[k][XV_DS] : d ? xv_h[k][XV_D] : s ? xv_h[k][XV_S] : NULL;
}

void sse_int_chains(struct op *ops, unsigned n)
{
    for (unsigned j = 0; j + 1 < n; j++) {
        bool mem;
        if (chain_kind(&ops[j], &mem) < 0 && !in_forms(sse_load128a_h, ops[j].fn) &&
            !in_forms(sse_load128u_h, ops[j].fn))
            continue;
        xi_next_fn next = chain_next(&ops[j + 1], ops[j].x1);
        if (next) {
            ops[j].x3 = 1;
            ops[j + 1].imm = (int64_t)(intptr_t)next;
        }
    }
}

/* ------------------------------------------------------------ decoding */
/* xmm, xmm/m128 [, imm8] and, for shifts, xmm, imm8; rm: the memory
 * form's handlers by enum addr_mode.  A missing form's handler (table) is
 * NULL: that encoding is not ours (e.g. the MMX one). */
static bool dec_binary(struct decoder *d, cpu_handler rr, const cpu_handler *rm, cpu_handler ri)
{
    struct op *op = d->op;
    int x0 = dec_xmm(d, 0);
    if (x0 < 0)
        return false;
    op->x1 = (uint8_t)x0;
    if (d->in->operand_count_visible == 3) {
        if (!is_imm(d, 2))
            return false;
        op->imm = dec_imm(d, 2) & 0xff;
    }
    if (is_imm(d, 1)) {
        op->imm = dec_imm(d, 1) & 0xff;
        op->fn = ri;
        return ri != NULL;
    }
    int x1 = dec_xmm(d, 1);
    if (x1 >= 0) {
        op->x2 = (uint8_t)x1;
        op->fn = rr;
        return rr != NULL;
    }
    if (rm == NULL || !dec_mem_op(d, 1))
        return false;
    op->fn = rm[dec_addr_mode(d)];
    return true;
}

/* MOVD/MOVQ with an XMM operand (the MMX ones belong to dec_mmx). */
static bool dec_movdq(struct decoder *d)
{
    struct op *op = d->op;
    int x0 = dec_xmm(d, 0), x1 = dec_xmm(d, 1);
    if (x0 >= 0) {
        bool q = d->ops[1].size == 64;
        op->x1 = (uint8_t)x0;
        if (x1 >= 0) {
            op->x2 = (uint8_t)x1;
            op->fn = op_movq_x_x;
            return true;
        }
        if (is_mem(d, 1)) {
            op->fn = q ? op_movq_x_m : op_movd_x_m;
            return dec_mem_op(d, 1);
        }
        op->fn = q ? op_movq_x_r : op_movd_x_r;
        return dec_reg_op(d, 1, &op->r2);
    }
    if (x1 < 0)
        return false;
    bool q = d->ops[0].size == 64;
    op->x2 = (uint8_t)x1;
    if (is_mem(d, 0)) {
        op->fn = q ? op_movq_m_x : op_movd_m_x;
        return dec_mem_op(d, 0);
    }
    op->fn = q ? op_movq_r_x : op_movd_r_x;
    return dec_reg_op(d, 0, &op->r1);
}

/* MOVDQA / MOVDQU / MOVNTDQ: xmm <- xmm/m128 or m128 <- xmm; the memory
 * forms' handlers by enum addr_mode (load NULL: MOVNTDQ, a store only). */
static bool dec_movdqa(struct decoder *d, const cpu_handler *load, const cpu_handler *store)
{
    struct op *op = d->op;
    int x0 = dec_xmm(d, 0), x1 = dec_xmm(d, 1);
    if (x0 >= 0 && x1 >= 0 && load) {
        op->x1 = (uint8_t)x0;
        op->x2 = (uint8_t)x1;
        op->fn = op_movdq_x_x;
        return true;
    }
    const cpu_handler *forms = store;
    unsigned mem = 0;
    if (x0 >= 0 && load) {
        op->x1 = (uint8_t)x0;
        forms = load;
        mem = 1;
    } else if (x1 >= 0) {
        op->x2 = (uint8_t)x1;
    } else {
        return false;
    }
    if (!dec_mem_op(d, mem))
        return false;
    op->fn = forms[dec_addr_mode(d)];
    return true;
}

static bool dec_movq2dq(struct decoder *d)
{
    int x = dec_xmm(d, 0), m = dec_mmx_reg(d, 1);
    d->op->x1 = (uint8_t)x;
    d->op->x2 = (uint8_t)m;
    d->op->fn = op_movq2dq;
    return x >= 0 && m >= 0;
}

static bool dec_movdq2q(struct decoder *d)
{
    int m = dec_mmx_reg(d, 0), x = dec_xmm(d, 1);
    d->op->x1 = (uint8_t)m;
    d->op->x2 = (uint8_t)x;
    d->op->fn = op_movdq2q;
    return x >= 0 && m >= 0;
}

/* PMOVMSKB r, xmm and PEXTRW r, xmm, imm8 (0F C5; the SSE4.1 form
 * 66 0F 3A 15, which may also store to memory, is left to dec_sse_ext). */
static bool dec_to_gpr(struct decoder *d, cpu_handler fn)
{
    struct op *op = d->op;
    int x = dec_xmm(d, 1);
    if (x < 0 || d->in->opcode_map != ZYDIS_OPCODE_MAP_0F)
        return false;
    op->x2 = (uint8_t)x;
    if (d->in->operand_count_visible == 3)
        op->x3 = (uint8_t)(dec_imm(d, 2) & 7);
    op->fn = fn;
    return dec_reg_op(d, 0, &op->r1);
}

static bool dec_pinsrw(struct decoder *d)
{
    struct op *op = d->op;
    int x = dec_xmm(d, 0);
    if (x < 0)
        return false;
    op->x1 = (uint8_t)x;
    op->x3 = (uint8_t)(dec_imm(d, 2) & 7);
    if (is_mem(d, 1)) {
        op->fn = op_x_pinsrw_m;
        return dec_mem_op(d, 1);
    }
    op->fn = op_x_pinsrw_r;
    return dec_reg_op(d, 1, &op->r2);
}

/* MASKMOVDQU xmm, xmm: the destination is the hidden operand ds:[rdi]. */
static bool dec_maskmovdqu(struct decoder *d)
{
    struct op *op = d->op;
    int x0 = dec_xmm(d, 0), x1 = dec_xmm(d, 1);
    if (x0 < 0 || x1 < 0 || d->in->operand_count < 3)
        return false;
    op->x1 = (uint8_t)x0;
    op->x2 = (uint8_t)x1;
    op->fn = op_x_maskmovdqu;
    return dec_mem_op(d, 2);
}

bool dec_sse_int(struct decoder *d)
{
    if (d->in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
        return false;
    switch (d->in->mnemonic) {
#define CASE_RR_RM(name, M)                                                             \
    case ZYDIS_MNEMONIC_##M:                                                            \
        return dec_binary(d, op_x_##name##_rr, name##_rm_h, NULL);
#define CASE_SHIFT(name, M)                                                             \
    case ZYDIS_MNEMONIC_##M:                                                            \
        return dec_binary(d, op_x_##name##_rr, name##_rm_h, op_x_##name##_ri);
    SIMD_BOTH_OPS(CASE_RR_RM)
    XMM_ONLY_OPS(CASE_RR_RM)
    SIMD_SHIFT_OPS(CASE_SHIFT)
#undef CASE_RR_RM
#undef CASE_SHIFT
    case ZYDIS_MNEMONIC_PSLLDQ: return dec_binary(d, NULL, NULL, op_x_pslldq_ri);
    case ZYDIS_MNEMONIC_PSRLDQ: return dec_binary(d, NULL, NULL, op_x_psrldq_ri);
    case ZYDIS_MNEMONIC_MOVD:
    case ZYDIS_MNEMONIC_MOVQ: return dec_movdq(d);
    case ZYDIS_MNEMONIC_MOVDQA: return dec_movdqa(d, sse_load128a_h, sse_store128a_h);
    case ZYDIS_MNEMONIC_MOVDQU: return dec_movdqa(d, sse_load128u_h, sse_store128u_h);
    case ZYDIS_MNEMONIC_MOVNTDQ: return dec_movdqa(d, NULL, sse_store128a_h);
    case ZYDIS_MNEMONIC_MOVQ2DQ: return dec_movq2dq(d);
    case ZYDIS_MNEMONIC_MOVDQ2Q: return dec_movdq2q(d);
    case ZYDIS_MNEMONIC_PMOVMSKB: return dec_to_gpr(d, op_x_pmovmskb);
    case ZYDIS_MNEMONIC_PEXTRW: return dec_to_gpr(d, op_x_pextrw);
    case ZYDIS_MNEMONIC_PINSRW: return dec_pinsrw(d);
    case ZYDIS_MNEMONIC_MASKMOVDQU: return dec_maskmovdqu(d);
    default: return false;
    }
}
