/* What an instruction does, from Zydis's description of it: the memory it
 * writes, the flags the SDM leaves undefined for it, whether it touches the
 * FPU, and a few classes the lockstep loop treats specially. */
#include <string.h>

#include "tools/difftest/difftest.h"

#define MODE(bits) ((bits) == 64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32)
#define FL_CF 0x1ull
#define FL_DF 0x400ull
#define FL_OF 0x800ull
#define FL_ARITH 0x8d5ull

int insn_gpr(int bits, ZydisRegister reg)
{
    ZydisRegister big = ZydisRegisterGetLargestEnclosing(MODE(bits), reg);
    if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15)
        return big - ZYDIS_REGISTER_RAX;
    if (big >= ZYDIS_REGISTER_EAX && big <= ZYDIS_REGISTER_EDI)
        return big - ZYDIS_REGISTER_EAX;
    return -1;
}

static uint64_t reg_value(int bits, const elfemu_regs *g, ZydisRegister reg, uint64_t next_rip)
{
    if (reg == ZYDIS_REGISTER_NONE)
        return 0;
    if (reg == ZYDIS_REGISTER_RIP || reg == ZYDIS_REGISTER_EIP)
        return next_rip;
    int i = insn_gpr(bits, reg);
    if (i < 0)
        return 0;
    unsigned w = ZydisRegisterGetWidth(MODE(bits), reg);
    return w >= 64 ? g->gpr[i] : g->gpr[i] & ((1ull << w) - 1);
}

uint64_t insn_addr_mask(int bits, unsigned width)
{
    if (bits == 32 || width == 32)
        return 0xffffffffull;
    return width == 16 ? 0xffffull : ~0ull;
}

uint64_t insn_mem_addr(int bits, const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
                       const elfemu_regs *g)
{
    uint64_t next = g->rip + zi->length;
    uint64_t a = reg_value(bits, g, op->mem.base, next) +
                 reg_value(bits, g, op->mem.index, next) * op->mem.scale +
                 (uint64_t)op->mem.disp.value;
    a &= insn_addr_mask(bits, zi->address_width);
    if (op->mem.segment == ZYDIS_REGISTER_FS)
        a += g->fs_base;
    else if (op->mem.segment == ZYDIS_REGISTER_GS)
        a += g->gs_base;
    return a & insn_addr_mask(bits, 64);
}

static void add_mem(struct dt_check *c, uint64_t addr, uint64_t len)
{
    if (len && c->nmem < 4) {
        c->mem[c->nmem].addr = addr;
        c->mem[c->nmem].len = len < 65536 ? len : 65536;
        c->nmem++;
    }
}

/* The memory operands the instruction writes (addresses from the state before it). */
void insn_writes_before(int bits, const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo,
                        const elfemu_regs *g, struct dt_check *c, struct dt_pending *p)
{
    if (insn_is_xsave(zi->mnemonic))
        return;
    for (unsigned i = 0; i < zi->operand_count; i++) {
        const ZydisDecodedOperand *op = &zo[i];
        if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
            !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
            continue;
        unsigned size = op->size / 8;
        if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN) {
            int base = insn_gpr(bits, op->mem.base);
            if (zi->mnemonic == ZYDIS_MNEMONIC_ENTER)
                p->enter = true;
            else if (base == ELFEMU_RSP)
                p->stack_size = size;
            else if (base == ELFEMU_RDI)
                p->string_size = size;
            continue;
        }
        add_mem(c, insn_mem_addr(bits, zi, op, g), size);
    }
}

void insn_writes_after(int bits, const struct dt_pending *p, const elfemu_regs *pre,
                       const elfemu_regs *post, struct dt_check *c)
{
    uint64_t m = insn_addr_mask(bits, 64);
    if (p->stack_size)
        add_mem(c, post->gpr[ELFEMU_RSP] & m, p->stack_size);
    if (p->enter)
        add_mem(c, post->gpr[ELFEMU_RBP] & m, (uint64_t)bits / 8);
    if (p->string_size) {
        uint64_t b = pre->gpr[ELFEMU_RDI] & m, a = post->gpr[ELFEMU_RDI] & m;
        if (!(pre->rflags & FL_DF) && a > b)
            add_mem(c, b, a - b);
        else if ((pre->rflags & FL_DF) && b > a)
            add_mem(c, a + p->string_size, b - a);
    }
}

/* RFLAGS bits the SDM leaves undefined for this instruction with these operands. */
uint64_t insn_undefined_flags(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo,
                              const elfemu_regs *g)
{
    uint64_t und = zi->cpu_flags ? zi->cpu_flags->undefined : 0;
    ZydisMnemonic mn = zi->mnemonic;
    bool shift = mn == ZYDIS_MNEMONIC_SHL ||
                 mn == ZYDIS_MNEMONIC_SHR || mn == ZYDIS_MNEMONIC_SAR;
    bool rot = mn == ZYDIS_MNEMONIC_ROL || mn == ZYDIS_MNEMONIC_ROR;
    bool rcx = mn == ZYDIS_MNEMONIC_RCL || mn == ZYDIS_MNEMONIC_RCR;
    bool dbl = mn == ZYDIS_MNEMONIC_SHLD || mn == ZYDIS_MNEMONIC_SHRD;
    if (!(shift || rot || rcx || dbl))
        return und;
    const ZydisDecodedOperand *cop = &zo[dbl ? 2 : 1];
    unsigned size = zo[0].size;
    uint64_t cnt;
    if (cop->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
        cnt = cop->imm.value.u;
    else if (cop->type == ZYDIS_OPERAND_TYPE_REGISTER)
        cnt = g->gpr[ELFEMU_RCX] & 0xff;
    else
        cnt = 1;
    cnt &= size == 64 ? 0x3f : 0x1f;
    if (rcx && size < 32)
        cnt %= size + 1;
    if (cnt == 0)
        return 0; /* flags unchanged: all of them are defined */
    if (cnt == 1)
        und &= ~FL_OF;
    else
        und |= FL_OF;
    if (shift && cnt >= size)
        und |= FL_CF;
    if (dbl && cnt > size)
        und |= FL_ARITH;
    return und;
}

/* Whether the instruction can change the x87/MMX/SSE state. */
bool insn_uses_fp(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo)
{
    switch (zi->meta.category) {
    case ZYDIS_CATEGORY_X87_ALU: case ZYDIS_CATEGORY_FCMOV: case ZYDIS_CATEGORY_SSE:
    case ZYDIS_CATEGORY_MMX: case ZYDIS_CATEGORY_XSAVE: case ZYDIS_CATEGORY_XSAVEOPT:
    case ZYDIS_CATEGORY_AMD3DNOW:
        return true;
    default:
        break;
    }
    for (unsigned i = 0; i < zi->operand_count; i++) {
        if (zo[i].type != ZYDIS_OPERAND_TYPE_REGISTER)
            continue;
        ZydisRegister reg = zo[i].reg.value;
        switch (ZydisRegisterGetClass(reg)) {
        case ZYDIS_REGCLASS_X87: case ZYDIS_REGCLASS_MMX: case ZYDIS_REGCLASS_XMM:
        case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM: case ZYDIS_REGCLASS_MASK:
            return true;
        default:
            break;
        }
        if (reg == ZYDIS_REGISTER_MXCSR || reg == ZYDIS_REGISTER_X87CONTROL ||
            reg == ZYDIS_REGISTER_X87STATUS || reg == ZYDIS_REGISTER_X87TAG)
            return true;
    }
    return false;
}

bool insn_is_rep_string(const ZydisDecodedInstruction *zi)
{
    if (!(zi->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)))
        return false;
    switch (zi->mnemonic) {
    case ZYDIS_MNEMONIC_MOVSB: case ZYDIS_MNEMONIC_MOVSW: case ZYDIS_MNEMONIC_MOVSD:
    case ZYDIS_MNEMONIC_MOVSQ: case ZYDIS_MNEMONIC_STOSB: case ZYDIS_MNEMONIC_STOSW:
    case ZYDIS_MNEMONIC_STOSD: case ZYDIS_MNEMONIC_STOSQ: case ZYDIS_MNEMONIC_LODSB:
    case ZYDIS_MNEMONIC_LODSW: case ZYDIS_MNEMONIC_LODSD: case ZYDIS_MNEMONIC_LODSQ:
    case ZYDIS_MNEMONIC_SCASB: case ZYDIS_MNEMONIC_SCASW: case ZYDIS_MNEMONIC_SCASD:
    case ZYDIS_MNEMONIC_SCASQ: case ZYDIS_MNEMONIC_CMPSB: case ZYDIS_MNEMONIC_CMPSW:
    case ZYDIS_MNEMONIC_CMPSD: case ZYDIS_MNEMONIC_CMPSQ:
        return true;
    default:
        return false;
    }
}

bool insn_is_xsave(ZydisMnemonic mn)
{
    switch (mn) {
    case ZYDIS_MNEMONIC_XSAVE: case ZYDIS_MNEMONIC_XSAVE64: case ZYDIS_MNEMONIC_XSAVEC:
    case ZYDIS_MNEMONIC_XSAVEC64: case ZYDIS_MNEMONIC_XSAVEOPT: case ZYDIS_MNEMONIC_XSAVEOPT64:
    case ZYDIS_MNEMONIC_XSAVES: case ZYDIS_MNEMONIC_XSAVES64:
        return true;
    default:
        return false;
    }
}
