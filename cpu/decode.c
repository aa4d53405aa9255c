/* Decoding: guest bytes -> struct op, through Zydis, once per address.
 *
 * Instruction fetch honours the guest's PROT_EXEC: cpu_decode_block()
 * stops a block before bytes that are not executable, and faults only when
 * the first instruction of a block cannot be fetched -- as the real CPU
 * faults only when it gets there. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/block.h"
#include "cpu/decode.h"
#include "cpu/mem.h"

/* The slot of a general register for a guest of either width, or 0xff
 * for any other register.  Built once at start-up: Zydis's
 * enclosing-register lookup per operand was a tenth of the decoder's own
 * time. */
static uint8_t gpr_slots[2][ZYDIS_REGISTER_MAX_VALUE + 1];

static uint8_t gpr_slot_of(ZydisMachineMode mode, ZydisRegister reg)
{
    if (reg >= ZYDIS_REGISTER_AH && reg <= ZYDIS_REGISTER_BH)
        return (uint8_t)(SLOT_GPR(reg - ZYDIS_REGISTER_AH) + 1); /* byte 1 of RAX..RBX */
    ZydisRegister big = ZydisRegisterGetLargestEnclosing(mode, reg);
    if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15)
        return SLOT_GPR(big - ZYDIS_REGISTER_RAX);
    if (big >= ZYDIS_REGISTER_EAX && big <= ZYDIS_REGISTER_EDI)
        return SLOT_GPR(big - ZYDIS_REGISTER_EAX);
    return 0xff;
}

__attribute__((constructor)) static void gpr_slots_init(void)
{
    for (unsigned r = 0; r <= ZYDIS_REGISTER_MAX_VALUE; r++) {
        gpr_slots[0][r] = gpr_slot_of(ZYDIS_MACHINE_MODE_LEGACY_32, (ZydisRegister)r);
        gpr_slots[1][r] = gpr_slot_of(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)r);
    }
}

bool dec_gpr(const struct decoder *d, ZydisRegister reg, uint8_t *off)
{
    if ((unsigned)reg > ZYDIS_REGISTER_MAX_VALUE)
        return false;
    uint8_t slot = gpr_slots[d->bits == 64][reg];
    if (slot == 0xff)
        return false;
    *off = slot;
    return true;
}

bool dec_reg_op(const struct decoder *d, unsigned i, uint8_t *off)
{
    return is_reg(d, i) && dec_gpr(d, d->ops[i].reg.value, off);
}

static enum cpu_seg seg_of(ZydisRegister r)
{
    switch (r) {
    case ZYDIS_REGISTER_FS: return SEG_FS;
    case ZYDIS_REGISTER_GS: return SEG_GS;
    /* Linux runs every process with flat ES/CS/SS/DS (base 0). */
    default: return SEG_NONE;
    }
}

bool dec_mem_op(const struct decoder *d, unsigned i)
{
    const ZydisDecodedOperand *o = &d->ops[i];
    struct op *op = d->op;
    if (o->type != ZYDIS_OPERAND_TYPE_MEMORY)
        return false;
    int64_t disp = o->mem.disp.has_displacement ? o->mem.disp.value : 0;
    op->base = op->index = SLOT_ZERO;
    op->scale = 0;
    if (o->mem.base == ZYDIS_REGISTER_RIP || o->mem.base == ZYDIS_REGISTER_EIP) {
        /* [rip + disp] is relative to the next instruction, where c->rip is
         * when the instruction runs alone (a single step, a hooked block);
         * the block builder adds the distance to the block's end. */
        op->base = SLOT_RIP;
    } else if (o->mem.base != ZYDIS_REGISTER_NONE && !dec_gpr(d, o->mem.base, &op->base)) {
        return false;
    }
    if (o->mem.index != ZYDIS_REGISTER_NONE) {
        if (!dec_gpr(d, o->mem.index, &op->index))
            return false; /* VSIB and the like belong to AVX */
        op->scale = (uint8_t)__builtin_ctz(o->mem.scale ? o->mem.scale : 1);
    }
    if (disp != (int32_t)disp) {
        /* Only 32-bit address arithmetic produces these: it wraps anyway. */
        if (d->in->address_width != 32)
            return false;
        disp = (int32_t)(uint32_t)disp;
    }
    op->disp = (int32_t)disp;
    if (d->in->address_width == 32)
        op->flags |= OPF_ADDR32;
    else if (d->in->address_width == 16)
        return false; /* 16-bit addressing: no compiler emits it */
    op->seg = (uint8_t)seg_of(o->mem.segment);
    return true;
}

unsigned dec_addr_mode(const struct decoder *d)
{
    const struct op *op = d->op;
    if (op->seg != SEG_NONE)
        return AM_ANY;
    if (d->bits == 32) /* the address size is 32 bits (16 is refused above) */
        return op->index == SLOT_ZERO ? AM_B32 : AM_X32;
    if (op->flags & OPF_ADDR32)
        return AM_ANY;
    return op->index == SLOT_ZERO ? AM_B64 : AM_X64;
}

bool dec_moffs_op(const struct decoder *d, unsigned i)
{
    const ZydisDecodedOperand *o = &d->ops[i];
    if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.base != ZYDIS_REGISTER_NONE ||
        o->mem.index != ZYDIS_REGISTER_NONE || d->in->address_width != 64 ||
        o->mem.disp.value == (int32_t)o->mem.disp.value)
        return false;
    d->op->imm = o->mem.disp.value;
    d->op->seg = (uint8_t)seg_of(o->mem.segment);
    return true;
}

int64_t dec_imm(const struct decoder *d, unsigned i)
{
    const ZydisDecodedOperand *o = &d->ops[i];
    if (o->imm.is_relative)
        return (int64_t)(d->rip + d->in->length + (uint64_t)o->imm.value.s);
    return o->imm.is_signed ? o->imm.value.s : (int64_t)o->imm.value.u;
}

int dec_xmm(const struct decoder *d, unsigned i)
{
    if (!is_reg(d, i))
        return -1;
    ZydisRegister r = d->ops[i].reg.value;
    if (r >= ZYDIS_REGISTER_XMM0 && r <= ZYDIS_REGISTER_XMM15)
        return (int)(r - ZYDIS_REGISTER_XMM0);
    return -1;
}

typedef bool (*family_decoder)(struct decoder *d);

/* Most frequent first: the order only affects decode time. */
static const family_decoder families[] = {
    dec_mov, dec_alu, dec_control, dec_stack, dec_shift, dec_muldiv, dec_bits,
    dec_string, dec_system, dec_legacy, dec_sse_int, dec_sse_fp, dec_sse_ext, dec_sse42, dec_bmi, dec_mmx, dec_x87,
};

/* Decode one instruction at rip from bytes[0..avail) into op.
 * Returns the length (0 when the bytes run out before the instruction
 * ends); *ends_block is set for instructions that end a block. */
/* Flags an instruction reads and surely writes, and whether it can fault.
 * Only register-only integer instructions are known not to fault; a shift
 * or rotate by CL (or by 0) may leave the flags alone, so it writes nothing
 * for sure. */
static void describe(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
                     struct op_meta *m)
{
    const ZydisAccessedFlags *f = in->cpu_flags;
    m->flags_read = f ? (f->tested & FL_ARITH) : FL_ARITH;
    m->flags_written = f ? ((f->modified | f->set_0 | f->set_1 | f->undefined) & FL_ARITH) : 0;
    bool safe;
    switch (in->meta.category) {
    case ZYDIS_CATEGORY_BINARY: case ZYDIS_CATEGORY_LOGICAL: case ZYDIS_CATEGORY_SHIFT:
    case ZYDIS_CATEGORY_ROTATE: case ZYDIS_CATEGORY_BITBYTE: case ZYDIS_CATEGORY_DATAXFER:
    case ZYDIS_CATEGORY_CMOV: case ZYDIS_CATEGORY_SETCC: case ZYDIS_CATEGORY_FLAGOP:
    case ZYDIS_CATEGORY_NOP: case ZYDIS_CATEGORY_WIDENOP: case ZYDIS_CATEGORY_CONVERT:
    case ZYDIS_CATEGORY_BMI1: case ZYDIS_CATEGORY_BMI2: case ZYDIS_CATEGORY_LZCNT:
        safe = in->mnemonic != ZYDIS_MNEMONIC_DIV && in->mnemonic != ZYDIS_MNEMONIC_IDIV;
        break;
    default:
        safe = false;
    }
    for (unsigned i = 0; safe && i < in->operand_count; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && in->mnemonic != ZYDIS_MNEMONIC_LEA &&
            in->meta.category != ZYDIS_CATEGORY_NOP && in->meta.category != ZYDIS_CATEGORY_WIDENOP)
            safe = false;
    m->may_fault = !safe;
    m->xmm = false;
    for (unsigned i = 0; i < in->operand_count_visible && !m->xmm; i++)
        m->xmm = ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
                 ZydisRegisterGetClass(ops[i].reg.value) == ZYDIS_REGCLASS_XMM;
    if (in->meta.category == ZYDIS_CATEGORY_SHIFT || in->meta.category == ZYDIS_CATEGORY_ROTATE) {
        const ZydisDecodedOperand *cnt = in->operand_count_visible > 1 ? &ops[1] : NULL;
        bool fixed = cnt && cnt->type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
                     (cnt->imm.value.u & (in->operand_width == 64 ? 63 : 31)) != 0;
        if (in->mnemonic == ZYDIS_MNEMONIC_SHLD || in->mnemonic == ZYDIS_MNEMONIC_SHRD)
            fixed = in->operand_count_visible > 2 && ops[2].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
                    (ops[2].imm.value.u & (in->operand_width == 64 ? 63 : 31)) != 0;
        if (in->operand_count_visible == 1) /* the "by 1" forms */
            fixed = true;
        if (!fixed)
            m->flags_written = 0;
    }
}

unsigned cpu_decode_one(struct cpu *c, uint64_t rip, const uint8_t *bytes, unsigned avail,
                        struct op *op, bool *ends_block, struct op_meta *meta)
{
    static __thread ZydisDecoder dec64, dec32;
    static __thread bool ready;
    if (!ready) {
        ZydisDecoderInit(&dec64, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        ZydisDecoderInit(&dec32, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
        ready = true;
    }
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    memset(op, 0, sizeof(*op));
    op->base = op->index = SLOT_ZERO;
    ZyanStatus st = ZydisDecoderDecodeFull(c->bits == 64 ? &dec64 : &dec32, bytes, avail, &in, ops);
    if (!ZYAN_SUCCESS(st)) {
        if (st == ZYDIS_STATUS_NO_MORE_DATA && avail < ZYDIS_MAX_INSTRUCTION_LENGTH)
            return 0;
        op->fn = op_invalid;
        op->len = 1;
        op->flags |= OPF_BRANCH;
        *ends_block = true;
        if (meta)
            *meta = (struct op_meta){ .flags_read = FL_ARITH, .may_fault = true };
        return 1;
    }
    op->len = in.length;
    if (meta) {
        describe(&in, ops, meta);
        meta->fuse.role = FUSE_NONE;
        meta->pair.kind = 0;
        meta->side_exit = false;
    }
    if (in.attributes & ZYDIS_ATTRIB_HAS_LOCK)
        op->flags |= OPF_LOCK;
    if (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE))
        op->flags |= OPF_REP;
    if (in.attributes & ZYDIS_ATTRIB_HAS_REPNE)
        op->flags |= OPF_REPNE;
    struct decoder d = { .in = &in, .ops = ops, .op = op, .bits = c->bits, .rip = rip };
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
        if (families[i](&d)) {
            if (meta) {
                fuse_describe(&d, &meta->fuse);
                pair_describe(&d, &meta->pair);
            }
            *ends_block = d.ends_block;
            if (meta)
                meta->side_exit = d.side_exit;
            if (d.ends_block)
                op->flags |= OPF_BRANCH;
            return in.length;
        }
        /* A family may have filled fields before giving up: start clean. */
        uint8_t len = op->len, flags = op->flags;
        memset(op, 0, sizeof(*op));
        op->base = op->index = SLOT_ZERO;
        op->len = len;
        op->flags = flags;
        d.ends_block = false;
        d.side_exit = false;
    }
    op->fn = op_unimplemented;
    op->flags |= OPF_BRANCH;
    *ends_block = true;
    return in.length;
}
