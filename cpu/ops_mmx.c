/* MMX instructions (NP 0F encodings), with the MMX forms that SSE and SSE2
 * added (PAVG*, PMIN/PMAX*, PSADBW, PMOVMSKB, PINSRW/PEXTRW, PSHUFW,
 * MASKMOVQ, MOVNTQ, PADDQ/PSUBQ, PMULUDQ), and EMMS.
 *
 * The operations are the kernels of cpu/sse_int.h with n = 8, on the low
 * quadword of an xmm_t.  MMX registers are the mantissas of the x87
 * physical registers: every MMX instruction sets TOP to 0 and, but EMMS,
 * all tags valid, and a written register's exponent and sign read as all
 * ones (SDM vol. 3, 12.2, table 12-2); a pending unmasked x87 exception is
 * delivered first (#MF).  Forms: rr (mm, mm), rm (mm, m64), ri (mm, imm8:
 * the shifts).  64-bit memory operands need no alignment. */
#include "cpu/sse_int.h"

/* #MF is reported to the program as the kernel's math_error() does: SIGFPE
 * at the instruction, si_code from the first unmasked exception in the
 * order of fpu__exception_code(). */
void mmx_fault_pending(struct cpu *c, unsigned err)
{
    int code = (err & 0x01) ? FPE_FLTINV : (err & 0x04) ? FPE_FLTDIV : (err & 0x08) ? FPE_FLTOVF
             : (err & 0x12) ? FPE_FLTUND : FPE_FLTRES;
    cpu_fault(c, SIGFPE, code, cpu_rip(c));
}

#define MM(i) (*mmx_reg(c, i))

#define GEN_RR_RM(name)                                                                 \
    static void op_mm_##name##_rr(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        mmx_check_pending(c);                                                           \
        xmm_t x = { .q = { MM(op->x1), 0 } }, y = { .q = { MM(op->x2), 0 } }, r;        \
        k_##name(&r, &x, &y, (unsigned)op->imm, 8);                                     \
        mmx_set(c, op->x1, r.q[0]);                                                     \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_mm_##name##_rm(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        mmx_check_pending(c);                                                           \
        xmm_t y = { .q = { load64(c, op_ea(c, op)), 0 } }, x = { .q = { MM(op->x1), 0 } }, r; \
        k_##name(&r, &x, &y, (unsigned)op->imm, 8);                                     \
        mmx_set(c, op->x1, r.q[0]);                                                     \
        NEXT(c, op);                                                              \
    }
#define GEN_RI(name)                                                                    \
    static void op_mm_##name##_ri(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        mmx_check_pending(c);                                                           \
        xmm_t x = { .q = { MM(op->x1), 0 } }, y = { .q = { (uint64_t)op->imm, 0 } }, r; \
        k_##name(&r, &x, &y, (unsigned)op->imm, 8);                                     \
        mmx_set(c, op->x1, r.q[0]);                                                     \
        NEXT(c, op);                                                              \
    }
#define GEN_RR_RM_X(name, M) GEN_RR_RM(name)
#define GEN_SHIFT_X(name, M) GEN_RR_RM(name) GEN_RI(name)
SIMD_BOTH_OPS(GEN_RR_RM_X)
SIMD_SHIFT_OPS(GEN_SHIFT_X)
GEN_RR_RM(pshufw)

/* ------------------------------------------------------------ moves */
/* MOVD into an MMX register zero-extends. */
static void op_mm_movd_r(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_set(c, op->x1, GPR32(c, op->r2));
    NEXT(c, op);
}
static void op_mm_movq_r(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_set(c, op->x1, GPR64(c, op->r2));
    NEXT(c, op);
}
static void op_mm_movd_m(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_set(c, op->x1, load32(c, op_ea(c, op)));
    NEXT(c, op);
}
static void op_mm_movq_m(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_set(c, op->x1, load64(c, op_ea(c, op)));
    NEXT(c, op);
}
static void op_mm_movq_mm(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_set(c, op->x1, MM(op->x2));
    NEXT(c, op);
}
/* Reads of an MMX register switch to MMX mode too, but leave it as is. */
static void op_mm_movd_to_r(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_enter(c);
    set_gpr32(c, op->r1, (uint32_t)MM(op->x2));
    NEXT(c, op);
}
static void op_mm_movq_to_r(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_enter(c);
    set_gpr64(c, op->r1, MM(op->x2));
    NEXT(c, op);
}
static void op_mm_movd_to_m(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    store32(c, op_ea(c, op), (uint32_t)MM(op->x2));
    mmx_enter(c);
    NEXT(c, op);
}
/* MOVQ m64, mm and MOVNTQ (the non-temporal hint is not observable). */
static void op_mm_movq_to_m(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    store64(c, op_ea(c, op), MM(op->x2));
    mmx_enter(c);
    NEXT(c, op);
}

/* ------------------------------------------------------------ lanes <-> GPRs */
static void op_mm_pmovmskb(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    xmm_t x = { .q = { MM(op->x2), 0 } };
    mmx_enter(c);
    set_gpr64(c, op->r1, simd_movmskb(&x, 8));
    NEXT(c, op);
}
static void op_mm_pextrw(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_enter(c);
    set_gpr64(c, op->r1, (uint16_t)(MM(op->x2) >> (16 * op->x3)));
    NEXT(c, op);
}
static inline uint64_t insert_word(uint64_t v, unsigned i, uint16_t w)
{
    return (v & ~(0xffffull << (16 * i))) | ((uint64_t)w << (16 * i));
}
static void op_mm_pinsrw_r(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    mmx_set(c, op->x1, insert_word(MM(op->x1), op->x3, GPR16(c, op->r2)));
    NEXT(c, op);
}
static void op_mm_pinsrw_m(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    uint16_t w = load16(c, op_ea(c, op));
    mmx_set(c, op->x1, insert_word(MM(op->x1), op->x3, w));
    NEXT(c, op);
}
/* MASKMOVQ mm1, mm2: bytes of mm1 selected by mm2 to ds:[rdi]. */
static void op_mm_maskmovq(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    xmm_t v = { .q = { MM(op->x1), 0 } }, m = { .q = { MM(op->x2), 0 } };
    simd_maskmov(c, op_ea(c, op), &v, &m, 8);
    mmx_enter(c);
    NEXT(c, op);
}

/* EMMS: every x87 register empty, and TOP 0 as after any MMX instruction
 * (SDM vol. 3, 12.2, table 12-2; the hardware agrees). */
static void op_emms(struct cpu *c, const struct op *op)
{
    mmx_check_pending(c);
    c->ftop = 0;
    c->ftag = 0xff;
    NEXT(c, op);
}

/* ------------------------------------------------------------ decoding */
/* mm, mm/m64 [, imm8] and, for shifts, mm, imm8. */
static bool dec_binary(struct decoder *d, cpu_handler rr, cpu_handler rm, cpu_handler ri)
{
    struct op *op = d->op;
    int m0 = dec_mmx_reg(d, 0);
    if (m0 < 0)
        return false;
    op->x1 = (uint8_t)m0;
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
    int m1 = dec_mmx_reg(d, 1);
    if (m1 >= 0) {
        op->x2 = (uint8_t)m1;
        op->fn = rr;
        return true;
    }
    op->fn = rm;
    return dec_mem_op(d, 1);
}

/* MOVD/MOVQ/MOVNTQ with an MMX operand. */
static bool dec_movdq(struct decoder *d)
{
    struct op *op = d->op;
    int m0 = dec_mmx_reg(d, 0), m1 = dec_mmx_reg(d, 1);
    if (m0 >= 0) {
        bool q = d->ops[1].size == 64;
        op->x1 = (uint8_t)m0;
        if (m1 >= 0) {
            op->x2 = (uint8_t)m1;
            op->fn = op_mm_movq_mm;
            return true;
        }
        if (is_mem(d, 1)) {
            op->fn = q ? op_mm_movq_m : op_mm_movd_m;
            return dec_mem_op(d, 1);
        }
        op->fn = q ? op_mm_movq_r : op_mm_movd_r;
        return dec_reg_op(d, 1, &op->r2);
    }
    if (m1 < 0)
        return false;
    bool q = d->ops[0].size == 64;
    op->x2 = (uint8_t)m1;
    if (is_mem(d, 0)) {
        op->fn = q ? op_mm_movq_to_m : op_mm_movd_to_m;
        return dec_mem_op(d, 0);
    }
    op->fn = q ? op_mm_movq_to_r : op_mm_movd_to_r;
    return dec_reg_op(d, 0, &op->r1);
}

/* PMOVMSKB r, mm and PEXTRW r, mm, imm8. */
static bool dec_to_gpr(struct decoder *d, cpu_handler fn)
{
    struct op *op = d->op;
    int m = dec_mmx_reg(d, 1);
    if (m < 0)
        return false;
    op->x2 = (uint8_t)m;
    if (d->in->operand_count_visible == 3)
        op->x3 = (uint8_t)(dec_imm(d, 2) & 3);
    op->fn = fn;
    return dec_reg_op(d, 0, &op->r1);
}

static bool dec_pinsrw(struct decoder *d)
{
    struct op *op = d->op;
    int m = dec_mmx_reg(d, 0);
    if (m < 0)
        return false;
    op->x1 = (uint8_t)m;
    op->x3 = (uint8_t)(dec_imm(d, 2) & 3);
    if (is_mem(d, 1)) {
        op->fn = op_mm_pinsrw_m;
        return dec_mem_op(d, 1);
    }
    op->fn = op_mm_pinsrw_r;
    return dec_reg_op(d, 1, &op->r2);
}

/* MASKMOVQ mm, mm: the destination is the hidden operand ds:[rdi]. */
static bool dec_maskmovq(struct decoder *d)
{
    struct op *op = d->op;
    int m0 = dec_mmx_reg(d, 0), m1 = dec_mmx_reg(d, 1);
    if (m0 < 0 || m1 < 0 || d->in->operand_count < 3)
        return false;
    op->x1 = (uint8_t)m0;
    op->x2 = (uint8_t)m1;
    op->fn = op_mm_maskmovq;
    return dec_mem_op(d, 2);
}

bool dec_mmx(struct decoder *d)
{
    if (d->in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
        return false;
    switch (d->in->mnemonic) {
#define CASE_RR_RM(name, M)                                                             \
    case ZYDIS_MNEMONIC_##M:                                                            \
        return dec_binary(d, op_mm_##name##_rr, op_mm_##name##_rm, NULL);
#define CASE_SHIFT(name, M)                                                             \
    case ZYDIS_MNEMONIC_##M:                                                            \
        return dec_binary(d, op_mm_##name##_rr, op_mm_##name##_rm, op_mm_##name##_ri);
    SIMD_BOTH_OPS(CASE_RR_RM)
    SIMD_SHIFT_OPS(CASE_SHIFT)
    CASE_RR_RM(pshufw, PSHUFW)
#undef CASE_RR_RM
#undef CASE_SHIFT
    case ZYDIS_MNEMONIC_MOVD:
    case ZYDIS_MNEMONIC_MOVQ:
    case ZYDIS_MNEMONIC_MOVNTQ: return dec_movdq(d);
    case ZYDIS_MNEMONIC_PMOVMSKB: return dec_to_gpr(d, op_mm_pmovmskb);
    case ZYDIS_MNEMONIC_PEXTRW: return dec_to_gpr(d, op_mm_pextrw);
    case ZYDIS_MNEMONIC_PINSRW: return dec_pinsrw(d);
    case ZYDIS_MNEMONIC_MASKMOVQ: return dec_maskmovq(d);
    case ZYDIS_MNEMONIC_EMMS:
        d->op->fn = op_emms;
        return true;
    default: return false;
    }
}
