/* The decoder's interface for instruction families.
 *
 * cpu/decode.c fetches and decodes one instruction with Zydis, then offers
 * it to each family's decoder (dec_alu, dec_mov, ...) in turn; the family
 * that knows the mnemonic fills in the op -- handler and operands -- and
 * returns true.  Nobody claims it: the op becomes "unimplemented", which
 * logs and raises SIGILL when (and only if) it is executed. */
#ifndef CPU_DECODE_H
#define CPU_DECODE_H

#include <Zydis/Zydis.h>

#include "cpu/cpu.h"

struct decoder {
    const ZydisDecodedInstruction *in;
    const ZydisDecodedOperand *ops;
    struct op *op;
    int bits;           /* 64 or 32 */
    uint64_t rip;       /* address of the instruction */
    bool ends_block;    /* set by control transfers and anything that may stop the guest */
    bool side_exit;     /* a conditional direct branch: it may also go on in its block */
};

/* Register helpers: a general register as a byte offset into struct cpu
 * (AH..BH included); false for anything else. */
bool dec_gpr(const struct decoder *d, ZydisRegister reg, uint8_t *off);
/* Operand i as a general register / memory operand / immediate. */
bool dec_reg_op(const struct decoder *d, unsigned i, uint8_t *off);
bool dec_mem_op(const struct decoder *d, unsigned i);
/* The form (enum addr_mode, cpu/mem.h) of the memory operand that
 * dec_mem_op() put in d->op: which specialised handler may run it. */
unsigned dec_addr_mode(const struct decoder *d);
/* Operand i as MOV's moffs64 form (A0-A3 with a 64-bit absolute address that
 * does not fit op->disp): the address goes to op->imm, the segment to op->seg. */
bool dec_moffs_op(const struct decoder *d, unsigned i);
static inline bool is_reg(const struct decoder *d, unsigned i)
{
    return d->ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER;
}
static inline bool is_mem(const struct decoder *d, unsigned i)
{
    return d->ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY;
}
static inline bool is_imm(const struct decoder *d, unsigned i)
{
    return d->ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
}
/* The immediate of operand i, sign- or zero-extended as the SDM says. */
int64_t dec_imm(const struct decoder *d, unsigned i);
/* Index 0..3 of an operand size in bytes 1/2/4/8 (for handler tables). */
static inline unsigned size_index(unsigned bytes)
{
    return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3;
}
/* XMM register number of operand i (ZYDIS_REGISTER_XMM0..15); -1 if not. */
int dec_xmm(const struct decoder *d, unsigned i);

/* The families (each in its own cpu/ops_*.c). */
bool dec_alu(struct decoder *d);
bool dec_mov(struct decoder *d);
bool dec_control(struct decoder *d);
bool dec_stack(struct decoder *d);
bool dec_system(struct decoder *d);
bool dec_shift(struct decoder *d);
bool dec_muldiv(struct decoder *d);
bool dec_bits(struct decoder *d);
bool dec_string(struct decoder *d);
bool dec_x87(struct decoder *d);
bool dec_sse_int(struct decoder *d);
bool dec_sse_fp(struct decoder *d);
bool dec_sse_ext(struct decoder *d);
bool dec_mmx(struct decoder *d);
bool dec_sse42(struct decoder *d);
bool dec_bmi(struct decoder *d);
bool dec_legacy(struct decoder *d);

/* Handlers every family may use. */
void op_unimplemented(struct cpu *c, const struct op *op);
void op_invalid(struct cpu *c, const struct op *op);

#endif
