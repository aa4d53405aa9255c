/* The x87 family: decoding, and the delayed exception (#MF).
 *
 * x87 instructions are decoded from the opcode map itself (D8..DF and the
 * ModRM byte, SDM vol. 2, appendix A.4) rather than from mnemonics, so that
 * every encoding -- the aliases included (FCOM2, FXCH4, FSTP1...) -- gets
 * the handler of exactly the instruction the hardware executes.  The
 * handlers live by sub-family:
 *   cpu/ops_x87_arith.c  arithmetic, comparisons, transcendentals
 *   cpu/ops_x87_ldst.c   loads, stores, constants, FXCH, FCMOVcc, FLD/FST ST(i)
 *   cpu/ops_x87_state.c  control (FLDCW, FNSTSW, FNINIT...), FNSTENV/FLDENV, FNSAVE/FRSTOR
 *   cpu/ops_x87_xsave.c  FXSAVE/FXRSTOR, XSAVE/XSAVEOPT/XSAVEC/XRSTOR, XGETBV
 * The mechanics shared by them are in cpu/x87.h. */
#include "cpu/x87.h"

/* #MF as Linux reports it (arch/x86/kernel/traps.c, math_error() and
 * fpu__exception_code()): SIGFPE at the waiting instruction, si_code from
 * the unmasked exception flags in the order invalid, divide-by-zero,
 * overflow, denormal/underflow, precision. */
void x87_raise_pending(struct cpu *c)
{
    unsigned err = c->fsw & ~c->fcw;
    int code = (err & FSW_IE) ? 7 /* FPE_FLTINV */ : (err & FSW_ZE) ? 3 /* FPE_FLTDIV */
             : (err & FSW_OE) ? 4 /* FPE_FLTOVF */ : (err & (FSW_DE | FSW_UE)) ? 5 /* FPE_FLTUND */
             : 6 /* FPE_FLTRES */;
    cpu_fault(c, SIGFPE, code, c->rip);
}

bool x87_dec_mem(struct decoder *d)
{
    for (unsigned i = 0; i < d->in->operand_count; i++)
        if (is_mem(d, i) && d->ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT)
            return dec_mem_op(d, i);
    return false;
}

/* FWAIT: only the check for pending exceptions. */
static void op_fwait(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    NEXT(c, op);
}

bool dec_x87(struct decoder *d)
{
    const ZydisDecodedInstruction *in = d->in;
    if (in->mnemonic == ZYDIS_MNEMONIC_FWAIT) {
        d->op->fn = op_fwait;
        return true;
    }
    if (in->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT || in->opcode < 0xd8 || in->opcode > 0xdf)
        return x87_dec_xsave(d);
    unsigned opc = in->opcode, mod = in->raw.modrm.mod, reg = in->raw.modrm.reg,
             rm = in->raw.modrm.rm;
    if (mod != 3 && !x87_dec_mem(d))
        return false;
    return x87_dec_arith(d, opc, mod, reg, rm) || x87_dec_ldst(d, opc, mod, reg, rm) ||
           x87_dec_state(d, opc, mod, reg, rm);
}
