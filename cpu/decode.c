/* Decoding: guest bytes -> struct cpu_op, through Zydis.
 *
 * The handler is chosen here, once, for the exact operand form, so that the
 * handlers themselves never look at Zydis structures.  Instruction fetch
 * honours the guest's PROT_EXEC (a non-executable stack faults as on Linux). */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include <Zydis/Zydis.h>

#include "cpu/cpu.h"

/* Map a Zydis general register to our index and width; false for the
 * legacy high-byte registers and everything that is not a GPR. */
static bool gpr_index(ZydisMachineMode mode, ZydisRegister reg, uint8_t *idx)
{
    if (reg >= ZYDIS_REGISTER_AH && reg <= ZYDIS_REGISTER_BH)
        return false;
    ZydisRegister big = ZydisRegisterGetLargestEnclosing(mode, reg);
    if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15) {
        *idx = (uint8_t)(big - ZYDIS_REGISTER_RAX);
        return true;
    }
    if (big >= ZYDIS_REGISTER_EAX && big <= ZYDIS_REGISTER_EDI) {
        *idx = (uint8_t)(big - ZYDIS_REGISTER_EAX);
        return true;
    }
    return false;
}

static bool decode_mem(ZydisMachineMode mode, const ZydisDecodedOperand *o, struct cpu_mem *m)
{
    memset(m, 0, sizeof(*m));
    m->base = m->index = 0xff;
    m->disp = o->mem.disp.has_displacement ? o->mem.disp.value : 0;
    if (o->mem.base == ZYDIS_REGISTER_RIP || o->mem.base == ZYDIS_REGISTER_EIP)
        m->rip_relative = true;
    else if (o->mem.base != ZYDIS_REGISTER_NONE && !gpr_index(mode, o->mem.base, &m->base))
        return false;
    if (o->mem.index != ZYDIS_REGISTER_NONE && !gpr_index(mode, o->mem.index, &m->index))
        return false;
    m->scale = o->mem.scale ? o->mem.scale : 1;
    if (o->mem.segment == ZYDIS_REGISTER_FS)
        m->seg = 4;
    else if (o->mem.segment == ZYDIS_REGISTER_GS)
        m->seg = 5;
    return true;
}

/* Choose the handler for a decoded instruction; false when not implemented. */
static bool select_handler(ZydisMachineMode mode, const ZydisDecodedInstruction *in,
                           const ZydisDecodedOperand *ops, struct cpu_op *op)
{
    op->size = (uint8_t)(in->operand_width / 8);
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_MOV:
        if (ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER || !gpr_index(mode, ops[0].reg.value, &op->dst))
            return false;
        if (ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
            op->imm = ops[1].imm.value.s;
            op->fn = op_mov_Gv_Iv;
            return true;
        }
        if (ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && gpr_index(mode, ops[1].reg.value, &op->src)) {
            op->fn = op_mov_Gv_Ev_reg;
            return true;
        }
        return false;
    case ZYDIS_MNEMONIC_LEA:
        if (!gpr_index(mode, ops[0].reg.value, &op->dst) || !decode_mem(mode, &ops[1], &op->mem))
            return false;
        op->fn = op_lea_Gv_M;
        return true;
    case ZYDIS_MNEMONIC_NOP:
    case ZYDIS_MNEMONIC_ENDBR64:
    case ZYDIS_MNEMONIC_ENDBR32:
        op->fn = op_nop;
        return true;
    case ZYDIS_MNEMONIC_SYSCALL:
        if (mode != ZYDIS_MACHINE_MODE_LONG_64)
            return false;
        op->fn = op_syscall;
        return true;
    case ZYDIS_MNEMONIC_INT:
        if (ops[0].imm.value.u != 0x80 || mode == ZYDIS_MACHINE_MODE_LONG_64) {
            /* Linux: int $n for n other than 0x80 (ia32) is a #GP -> SIGSEGV. */
            op->fn = op_privileged;
            return true;
        }
        op->fn = op_int80;
        return true;
    case ZYDIS_MNEMONIC_INT3:
        op->fn = op_int3;
        return true;
    case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_UD0:
    case ZYDIS_MNEMONIC_UD1:
        op->fn = op_ud2;
        return true;
    case ZYDIS_MNEMONIC_HLT:
    case ZYDIS_MNEMONIC_CLI:
    case ZYDIS_MNEMONIC_STI:
    case ZYDIS_MNEMONIC_IN:
    case ZYDIS_MNEMONIC_OUT:
        op->fn = op_privileged;
        return true;
    default:
        return false;
    }
}

bool cpu_decode(struct cpu *c, struct cpu_op *op)
{
    static __thread ZydisDecoder dec64, dec32;
    static __thread bool ready;
    if (!ready) {
        ZydisDecoderInit(&dec64, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        ZydisDecoderInit(&dec32, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
        ready = true;
    }
    /* Fetch up to 15 bytes, stopping where executable memory ends. */
    uint8_t bytes[ZYDIS_MAX_INSTRUCTION_LENGTH];
    unsigned avail = 0;
    while (avail < sizeof(bytes) && mm_check(c->mm, c->rip + avail, 1, PROT_EXEC))
        avail++;
    if (avail == 0) {
        cpu_raise(c, SIGSEGV);
        return false;
    }
    memcpy(bytes, c->mm->base + c->rip, avail);
    ZydisMachineMode mode = c->bits == 64 ? ZYDIS_MACHINE_MODE_LONG_64
                                          : ZYDIS_MACHINE_MODE_LEGACY_32;
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    ZyanStatus st = ZydisDecoderDecodeFull(c->bits == 64 ? &dec64 : &dec32, bytes, avail, &in, ops);
    if (!ZYAN_SUCCESS(st)) {
        /* Bytes cut off by the end of executable memory fault; garbage is #UD. */
        if (st == ZYDIS_STATUS_NO_MORE_DATA && avail < sizeof(bytes))
            cpu_raise(c, SIGSEGV);
        else
            cpu_unimplemented(c, bytes, avail, true);
        return false;
    }
    memset(op, 0, sizeof(*op));
    op->len = in.length;
    if (!select_handler(mode, &in, ops, op)) {
        cpu_unimplemented(c, bytes, in.length, false);
        return false;
    }
    return true;
}
