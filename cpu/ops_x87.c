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
    cpu_fault(c, SIGFPE, code, cpu_rip(c));
}

/* ------------------------------------------------------------ live state */
/* The 32-bit protected-mode FNSAVE/FRSTOR image (SDM vol. 1, 8.1.10). */
struct fsave_image {
    uint32_t cw, sw, tw, fip, fcs_fop, fdp, fds;
    uint8_t st[8][10]; /* ST(0)..ST(7) */
};
_Static_assert(sizeof(struct fsave_image) == 108, "FNSAVE image layout");

bool x87_go_live(struct cpu *c)
{
    if ((c->fcw & X87_MASKS) != X87_MASKS)
        return false;
    struct fsave_image img;
    memset(&img, 0, sizeof(img));
    img.cw = c->fcw;
    img.sw = x87_fsw(c);
    /* FRSTOR only tells empty (11) from the rest; the host recomputes the
     * other tags from the registers when it stores them. */
    for (unsigned p = 0; p < 8; p++)
        if (x87_empty_phys(c, p))
            img.tw |= 3u << (2 * p);
    for (unsigned i = 0; i < 8; i++)
        memcpy(img.st[i], &c->fpr[x87_phys(c, i)], 10);
    __asm__ volatile("fnstcw %0\n\tfrstor %1" : "=m"(c->x87_host_cw) : "m"(img));
    c->x87_live = true;
    return true;
}

void x87_leave_live(struct cpu *c)
{
    struct fsave_image img;
    /* FNSAVE also empties the host's stack and clears its flags (FNINIT). */
    __asm__ volatile("fnsave %0\n\tfldcw %1" : "=m"(img) : "m"(c->x87_host_cw));
    c->x87_live = false;
    c->fcw = (uint16_t)img.cw;
    c->ftop = (img.sw >> 11) & 7;
    c->fsw = (uint16_t)(img.sw & ~FSW_TOP);
    uint8_t tag = 0;
    for (unsigned p = 0; p < 8; p++)
        if (((img.tw >> (2 * p)) & 3) == 3)
            tag |= (uint8_t)(1u << p);
    c->ftag = tag;
    for (unsigned i = 0; i < 8; i++)
        memcpy(&c->fpr[x87_phys(c, i)], img.st[i], 10);
}

bool x87_dec_mem(struct decoder *d)
{
    for (unsigned i = 0; i < d->in->operand_count; i++)
        if (is_mem(d, i) && d->ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT)
            return dec_mem_op(d, i);
    return false;
}

/* FWAIT: only the check for pending exceptions (a live state has none). */
static void op_fwait(struct cpu *c, const struct op *op)
{
    if (!c->x87_live)
        x87_wait(c);
    NEXT(c, op);
}

/* The exact handler of an x87 instruction (cpu/ops_x87_*.c). */
static bool dec_exact(struct decoder *d)
{
    const ZydisDecodedInstruction *in = d->in;
    if (in->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT || in->opcode < 0xd8 || in->opcode > 0xdf)
        return x87_dec_xsave(d);
    unsigned opc = in->opcode, mod = in->raw.modrm.mod, reg = in->raw.modrm.reg,
             rm = in->raw.modrm.rm;
    if (mod != 3 && !x87_dec_mem(d))
        return false;
    return x87_dec_arith(d, opc, mod, reg, rm) || x87_dec_ldst(d, opc, mod, reg, rm) ||
           x87_dec_state(d, opc, mod, reg, rm);
}

/* Every x87 instruction gets its live handler (cpu/ops_x87_live.c), which
 * falls back on the exact one. */
bool dec_x87(struct decoder *d)
{
    if (d->in->mnemonic == ZYDIS_MNEMONIC_FWAIT) {
        d->op->fn = op_fwait;
        return true;
    }
    if (!dec_exact(d))
        return false;
    x87_dec_live(d);
    return true;
}
