/* The sse_ext family: SSE3, SSSE3 and SSE4.1 in their legacy encodings.
 *
 *   cpu/ops_sse_ext_ssse3.c  SSSE3, XMM and MMX forms (integer, plain C)
 *   cpu/ops_sse_ext_int.c    SSE4.1 integer and data movement (plain C)
 *   cpu/ops_sse_ext_fp.c     SSE3 and SSE4.1 floating point (host SSE/SSE2
 *                            arithmetic under the guest's MXCSR)
 *
 * Not here: FISTTP (x87 family), MONITOR/MWAIT (privileged), the VEX forms
 * (separate V* mnemonics, left unimplemented), PEXTRW's SSE2 encoding
 * 0F C5 (sse_int family). */
#include "cpu/sse_ext.h"

/* "reg, reg/mem [, imm8]" with the register kind given by reg_of (XMM or MMX). */
static bool dec_vec_forms(struct decoder *d, int (*reg_of)(const struct decoder *, unsigned),
                          cpu_handler rr, cpu_handler rm)
{
    struct op *op = d->op;
    int dst = reg_of(d, 0);
    if (dst < 0)
        return false;
    op->x1 = (uint8_t)dst;
    if (d->in->operand_count > 2 && is_imm(d, 2))
        op->imm = dec_imm(d, 2) & 0xff;
    if (is_reg(d, 1)) {
        int src = reg_of(d, 1);
        if (src < 0)
            return false;
        op->x2 = (uint8_t)src;
        op->fn = rr;
        return true;
    }
    op->fn = rm;
    return dec_mem_op(d, 1);
}

bool sx_dec_xmm(struct decoder *d, cpu_handler rr, cpu_handler rm)
{
    return dec_vec_forms(d, dec_xmm, rr, rm);
}

bool sx_dec_mmx(struct decoder *d, cpu_handler rr, cpu_handler rm)
{
    return dec_vec_forms(d, dec_mmx_reg, rr, rm);
}

bool dec_sse_ext(struct decoder *d)
{
    if (d->in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
        return false;
    return dec_sse_ext_ssse3(d) || dec_sse_ext_int(d) || dec_sse_ext_fp(d);
}
