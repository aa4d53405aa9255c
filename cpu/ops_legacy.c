/* The instructions that exist only outside 64-bit mode (ia32 guests):
 * PUSHA/POPA, the BCD adjusts DAA DAS AAA AAS AAM AAD, ARPL, BOUND, INTO,
 * PUSH and POP of segment registers and LDS/LES/LSS/LFS/LGS.  (The one-byte INC/DEC
 * 0x40-0x4f decode as INC/DEC and are served by ops_alu.c.)
 *
 * Flags the SDM leaves undefined are set as the AMD and Intel processors we
 * compare with set them (tests/guest/ia32_only.S checks every one against
 * the host): DAA/DAS set OF as the 8-bit add/subtract of the total
 * adjustment would; AAA/AAS set OF SF ZF PF as the 16-bit ADD/SUB of 0x106
 * (or 0) to AX would; AAM clears OF AF CF; AAD sets OF AF CF as the 8-bit
 * ADD of AH * imm8 to AL.
 *
 * Segments: POP Sreg and Lxx load selectors as MOV Sreg does
 * (cpu_load_sreg()); one the CPU refuses raises #GP: SIGSEGV, SI_KERNEL. */
#include <signal.h>

#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"

#define SI_KERNEL_CODE 0x80
#define FPE_INTDIV_CODE 1

static inline uint64_t sp32(const struct cpu *c)
{
    return (uint32_t)c->r[R_SP];
}

static inline uint64_t szp8(unsigned v)
{
    v &= 0xff;
    return (v ? 0 : FL_ZF) | (v & 0x80 ? FL_SF : 0) | parity_flag(v);
}

/* ------------------------------------------------------------ PUSHA POPA */
/* Order: (E)AX (E)CX (E)DX (E)BX, the (E)SP before the instruction, (E)BP
 * (E)SI (E)DI.  All stores happen before ESP changes, so a fault leaves the
 * registers as they were. */
static void op_pusha(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t sp = sp32(c);
    for (unsigned i = 0; i < 8; i++)
        store_n(c, (uint32_t)(sp - (i + 1) * n), n, c->r[i]);
    set_reg_n(c, SLOT_GPR(R_SP), 4, (uint32_t)(sp - 8 * n));
    NEXT(c, op);
}

/* POPA: the (E)SP slot is skipped. */
static void op_popa(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t sp = sp32(c), v[8];
    for (unsigned i = 0; i < 8; i++)
        v[7 - i] = load_n(c, (uint32_t)(sp + i * n), n);
    for (unsigned i = 0; i < 8; i++)
        if (i != R_SP)
            set_reg_n(c, SLOT_GPR(i), n, v[i]);
    set_reg_n(c, SLOT_GPR(R_SP), 4, (uint32_t)(sp + 8 * n));
    NEXT(c, op);
}

/* ------------------------------------------------------------ BCD adjusts */
static void op_daa(struct cpu *c, const struct op *op)
{
    uint64_t f = cpu_flags(c);
    unsigned al = c->r[R_AX] & 0xff, r = al, nf = 0;
    if ((al & 0xf) > 9 || (f & FL_AF)) {
        r += 6;
        nf |= FL_AF;
    }
    if (al > 0x99 || (f & FL_CF)) {
        r += 0x60;
        nf |= FL_CF;
    }
    r &= 0xff;
    unsigned add = (r - al) & 0xff;
    if ((al ^ r) & (add ^ r) & 0x80)
        nf |= FL_OF;
    cpu_set_arith(c, nf | szp8(r), FL_ARITH);
    set_gpr8(c, SLOT_GPR(R_AX), r);
    NEXT(c, op);
}

static void op_das(struct cpu *c, const struct op *op)
{
    uint64_t f = cpu_flags(c);
    unsigned al = c->r[R_AX] & 0xff, r = al, nf = 0;
    if ((al & 0xf) > 9 || (f & FL_AF)) {
        if (al < 6)
            nf |= FL_CF; /* the borrow of AL - 6 */
        r -= 6;
        nf |= FL_AF;
    }
    if (al > 0x99 || (f & FL_CF)) {
        r -= 0x60;
        nf |= FL_CF;
    }
    r &= 0xff;
    unsigned sub = (al - r) & 0xff;
    if ((al ^ sub) & (al ^ r) & 0x80)
        nf |= FL_OF;
    cpu_set_arith(c, nf | szp8(r), FL_ARITH);
    set_gpr8(c, SLOT_GPR(R_AX), r);
    NEXT(c, op);
}

/* AAA (x2 = 0) and AAS (x2 = 1): AX +/- 0x106, then AL &= 0x0f. */
static void op_aaa_aas(struct cpu *c, const struct op *op)
{
    uint64_t f = cpu_flags(c);
    unsigned ax = c->r[R_AX] & 0xffff, adj = 0, nf = 0;
    if ((ax & 0xf) > 9 || (f & FL_AF)) {
        adj = 0x106;
        nf = FL_AF | FL_CF;
    }
    unsigned r = (op->x2 ? ax - adj : ax + adj) & 0xffff;
    unsigned ov = op->x2 ? (ax ^ adj) & (ax ^ r) : (ax ^ r) & (adj ^ r);
    if (ov & 0x8000)
        nf |= FL_OF;
    nf |= (r ? 0 : FL_ZF) | (r & 0x8000 ? FL_SF : 0) | parity_flag(r);
    cpu_set_arith(c, nf, FL_ARITH);
    set_gpr16(c, SLOT_GPR(R_AX), r & 0xff0f);
    NEXT(c, op);
}

/* AAM imm8: AH = AL / imm8, AL = AL % imm8; imm8 = 0 is #DE. */
static void op_aam(struct cpu *c, const struct op *op)
{
    unsigned base = (unsigned)op->imm & 0xff, al = c->r[R_AX] & 0xff;
    if (base == 0)
        cpu_fault(c, SIGFPE, FPE_INTDIV_CODE, cpu_rip(c));
    unsigned r = al % base;
    cpu_set_arith(c, szp8(r), FL_ARITH);
    set_gpr16(c, SLOT_GPR(R_AX), (al / base) << 8 | r);
    NEXT(c, op);
}

/* AAD imm8: AL = AL + AH * imm8, AH = 0. */
static void op_aad(struct cpu *c, const struct op *op)
{
    unsigned al = c->r[R_AX] & 0xff, ah = (c->r[R_AX] >> 8) & 0xff;
    unsigned m = (ah * ((unsigned)op->imm & 0xff)) & 0xff, sum = al + m, r = sum & 0xff;
    unsigned nf = szp8(r) | (sum > 0xff ? FL_CF : 0) | ((al ^ m ^ r) & 0x10 ? FL_AF : 0) |
                  ((al ^ r) & (m ^ r) & 0x80 ? FL_OF : 0);
    cpu_set_arith(c, nf, FL_ARITH);
    set_gpr16(c, SLOT_GPR(R_AX), r);
    NEXT(c, op);
}

/* ------------------------------------------------------------ ARPL */
/* ARPL r/m16, r16: raise the destination selector's RPL (bits 0-1) to the
 * source's; ZF tells whether it changed, the other flags stay.  x2: the
 * destination is memory. */
static void op_arpl(struct cpu *c, const struct op *op)
{
    uint64_t a = op->x2 ? op_ea(c, op) : 0;
    unsigned dst = op->x2 ? load16(c, a) : GPR16(c, op->r1);
    unsigned src = GPR16(c, op->r2);
    bool raise = (dst & 3) < (src & 3);
    if (raise) {
        dst = (dst & ~3u) | (src & 3);
        if (op->x2)
            store16(c, a, dst);
        else
            set_gpr16(c, op->r1, dst);
    }
    cpu_set_arith(c, raise ? FL_ZF : 0, FL_ZF);
    NEXT(c, op);
}

/* ------------------------------------------------------------ BOUND INTO */
/* BOUND r, m: signed lower and upper bounds (both inclusive) at m and
 * m + size; outside them #BR, which Linux delivers as SIGSEGV/SI_KERNEL
 * at the instruction. */
static void op_bound(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t a = op_ea(c, op);
    int64_t lo, hi, v;
    if (n == 2) {
        lo = (int16_t)load16(c, a);
        hi = (int16_t)load16(c, (uint32_t)(a + 2));
        v = (int16_t)GPR16(c, op->r1);
    } else {
        lo = (int32_t)load32(c, a);
        hi = (int32_t)load32(c, (uint32_t)(a + 4));
        v = (int32_t)GPR32(c, op->r1);
    }
    if (v < lo || v > hi)
        cpu_fault_trap(c, SIGSEGV, SI_KERNEL_CODE, 0, 5 /* #BR */);
    NEXT(c, op);
}

/* INTO: with OF set, #OF is a trap: SIGSEGV/SI_KERNEL after the instruction. */
static void op_into(struct cpu *c, const struct op *op)
{
    if (cpu_flags(c) & FL_OF) {
        cpu_rip_set(c, cpu_rip(c) + op->len);
        cpu_fault_trap(c, SIGSEGV, SI_KERNEL_CODE, 0, 4 /* #OF */);
    }
    NEXT(c, op);
}

/* ------------------------------------------------------------ segment registers */
/* Load a selector into segment register seg (POP Sreg, LDS...):
 * cpu_load_sreg() knows Linux's GDT and the TLS entries.  SS takes a
 * writable data segment only (not __USER32_CS); ES/DS/SS keep base 0 in
 * elfemu, so a TLS entry with another base there is unimplemented. */
static void load_sreg(struct cpu *c, const struct op *op, unsigned seg, unsigned sel)
{
    unsigned idx = sel >> 3;
    bool tls = !(sel & 4) && idx >= CPU_TLS_FIRST && idx < CPU_TLS_FIRST + CPU_TLS_COUNT;
    if (seg != SEG_FS && seg != SEG_GS && tls && c->tls[idx - CPU_TLS_FIRST].present &&
        c->tls[idx - CPU_TLS_FIRST].base != 0)
        op_unimplemented(c, op);
    if ((seg == SEG_SS && (sel & 3) != 3) || (seg == SEG_SS && sel == 0x23) ||
        !cpu_load_sreg(c, (int)seg, (uint16_t)sel))
        cpu_fault(c, SIGSEGV, SI_KERNEL_CODE, 0);
}

/* PUSH Sreg: a 32-bit push stores the selector zero-extended (as the AMD
 * processors do; the SDM allows a 16-bit store too). */
static void op_push_sreg(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t sp = sp32(c) - n;
    store_n(c, (uint32_t)sp, n, c->sreg[op->x1]);
    set_gpr32(c, SLOT_GPR(R_SP), sp);
    NEXT(c, op);
}

static void op_pop_sreg(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t sp = sp32(c);
    unsigned sel = (unsigned)load_n(c, sp, n) & 0xffff;
    load_sreg(c, op, op->x1, sel);
    set_gpr32(c, SLOT_GPR(R_SP), sp + n);
    NEXT(c, op);
}

/* LDS LES LSS LFS LGS r, m16:16/m16:32: the offset, then the selector. */
static void op_lptr(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t a = op_ea(c, op);
    uint64_t off = load_n(c, a, n);
    unsigned sel = load16(c, (uint32_t)(a + n));
    load_sreg(c, op, op->x1, sel);
    set_reg_n(c, op->r1, n, off);
    NEXT(c, op);
}

static uint8_t seg_slot(ZydisRegister r)
{
    switch (r) {
    case ZYDIS_REGISTER_ES: return SEG_ES;
    case ZYDIS_REGISTER_CS: return SEG_CS;
    case ZYDIS_REGISTER_SS: return SEG_SS;
    case ZYDIS_REGISTER_DS: return SEG_DS;
    case ZYDIS_REGISTER_FS: return SEG_FS;
    case ZYDIS_REGISTER_GS: return SEG_GS;
    default: return SEG_NONE;
    }
}

bool dec_legacy(struct decoder *d)
{
    struct op *op = d->op;
    if (d->bits != 32)
        return false;
    op->size = (uint8_t)(d->in->operand_width / 8);
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_PUSHA:
    case ZYDIS_MNEMONIC_PUSHAD:
        op->fn = op_pusha;
        return true;
    case ZYDIS_MNEMONIC_POPA:
    case ZYDIS_MNEMONIC_POPAD:
        op->fn = op_popa;
        return true;
    case ZYDIS_MNEMONIC_DAA:
        op->fn = op_daa;
        return true;
    case ZYDIS_MNEMONIC_DAS:
        op->fn = op_das;
        return true;
    case ZYDIS_MNEMONIC_AAA:
    case ZYDIS_MNEMONIC_AAS:
        op->x2 = d->in->mnemonic == ZYDIS_MNEMONIC_AAS;
        op->fn = op_aaa_aas;
        return true;
    case ZYDIS_MNEMONIC_AAM:
    case ZYDIS_MNEMONIC_AAD:
        if (!is_imm(d, 0))
            return false;
        op->imm = dec_imm(d, 0);
        op->fn = d->in->mnemonic == ZYDIS_MNEMONIC_AAM ? op_aam : op_aad;
        return true;
    case ZYDIS_MNEMONIC_BOUND:
        if (!is_mem(d, 1) || !dec_reg_op(d, 0, &op->r1))
            return false;
        op->size = (uint8_t)(d->ops[0].size / 8);
        op->fn = op_bound;
        return dec_mem_op(d, 1);
    case ZYDIS_MNEMONIC_INTO:
        op->fn = op_into;
        return true;
    case ZYDIS_MNEMONIC_ARPL:
        if (!dec_reg_op(d, 1, &op->r2))
            return false;
        op->fn = op_arpl;
        op->x2 = is_mem(d, 0);
        return op->x2 ? dec_mem_op(d, 0) : dec_reg_op(d, 0, &op->r1);
    case ZYDIS_MNEMONIC_PUSH:
    case ZYDIS_MNEMONIC_POP:
        if (!is_reg(d, 0) || (op->x1 = seg_slot(d->ops[0].reg.value)) == SEG_NONE)
            return false;
        if (d->in->mnemonic == ZYDIS_MNEMONIC_POP && op->x1 == SEG_CS)
            return false;
        op->fn = d->in->mnemonic == ZYDIS_MNEMONIC_PUSH ? op_push_sreg : op_pop_sreg;
        return true;
    case ZYDIS_MNEMONIC_LDS: op->x1 = SEG_DS; break;
    case ZYDIS_MNEMONIC_LES: op->x1 = SEG_ES; break;
    case ZYDIS_MNEMONIC_LSS: op->x1 = SEG_SS; break;
    case ZYDIS_MNEMONIC_LFS: op->x1 = SEG_FS; break;
    case ZYDIS_MNEMONIC_LGS: op->x1 = SEG_GS; break;
    default:
        return false;
    }
    /* Lxx r, m16:n */
    if (!is_reg(d, 0) || !is_mem(d, 1) || !dec_reg_op(d, 0, &op->r1))
        return false;
    op->size = (uint8_t)(d->ops[0].size / 8);
    op->fn = op_lptr;
    return dec_mem_op(d, 1);
}
