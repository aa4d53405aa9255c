/* Hooks: hooked blocks, the hook ops, and the memory accesses of an
 * instruction found from its operands (see cpu/hook.h for the design). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "cpu/hook.h"

/* One memory operand of an instruction, pre-digested like an op's. */
enum { HM_PLAIN, HM_PUSH, HM_XLAT };
struct hook_memop {
    int64_t disp;
    uint32_t size;          /* bytes */
    uint8_t base, index, scale, seg;
    uint8_t kind;           /* HM_* */
    bool read, write, addr32;
};

/* A string instruction's elements: source at [rSI], destination at [rDI]. */
struct hook_string {
    uint8_t elem;           /* element size; 0: not a string instruction */
    uint8_t src_seg, dst_seg;
    bool src_read, dst_read, dst_write, rep, addr32;
};

/* What a hook op knows about its instruction (stored after the block's ops). */
struct hook_insn {
    uint64_t addr;
    uint8_t len, nmem;
    uint8_t bytes[15];
    struct hook_string str;
    struct hook_memop mem[4];
};

static const struct cpu_hook_ops *hook_ops;
static bool hooks_on;

/* The writes (and string elements) of the thread's last instruction,
 * reported once it has completed.  Copied out of the block, which may be
 * freed before then. */
static __thread struct pending {
    struct cpu *c;          /* NULL: nothing pending */
    unsigned nw;
    struct { uint64_t addr; uint32_t size; } w[4];
    struct hook_string str;
    uint64_t rsi, rdi, rcx, src_base, dst_base;
    bool down;              /* DF */
} pend;

/* The hooked block and instruction the thread is running (set by the
 * hook ops), so that a fault can count the instructions of the block that
 * retired before it.  icount: the thread's count when the block began
 * (the dispatch loop adds the block's once it completes); epoch: the
 * cache's (a block is freed only after the epoch changes). */
static __thread struct {
    struct cpu *c;
    const struct block *b;
    const struct hook_insn *in;
    uint64_t icount, epoch;
} running;

void cpu_hooks_init(const struct cpu_hook_ops *ops)
{
    hook_ops = ops;
}

bool cpu_hooks_enabled(void)
{
    return __atomic_load_n(&hooks_on, __ATOMIC_ACQUIRE);
}

void cpu_hooks_switch(struct mm_space *mm, bool on)
{
    if (cpu_hooks_enabled() == on)
        return;
    __atomic_store_n(&hooks_on, on, __ATOMIC_RELEASE);
    cpu_cache_flush_all(mm);
}

static void op_hook_block(struct cpu *c, const struct op *op);
static void op_hook_insn(struct cpu *c, const struct op *op);

/* ------------------------------------------------------------ describing */

static bool gpr_slot(int bits, ZydisRegister reg, uint8_t *off)
{
    if (reg == ZYDIS_REGISTER_NONE) {
        *off = SLOT_ZERO;
        return true;
    }
    ZydisMachineMode mode = bits == 64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32;
    ZydisRegister big = ZydisRegisterGetLargestEnclosing(mode, reg);
    if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15) {
        *off = SLOT_GPR(big - ZYDIS_REGISTER_RAX);
        return true;
    }
    if (big >= ZYDIS_REGISTER_EAX && big <= ZYDIS_REGISTER_EDI) {
        *off = SLOT_GPR(big - ZYDIS_REGISTER_EAX);
        return true;
    }
    return false;
}

static uint8_t seg_slot(ZydisRegister r)
{
    return r == ZYDIS_REGISTER_FS ? SEG_FS : r == ZYDIS_REGISTER_GS ? SEG_GS : SEG_NONE;
}

static bool is_sp(ZydisRegister r)
{
    return r == ZYDIS_REGISTER_RSP || r == ZYDIS_REGISTER_ESP || r == ZYDIS_REGISTER_SP;
}

/* Fill in's memory operands from Zydis's description of the instruction. */
static void describe(int bits, struct hook_insn *in)
{
    ZydisDecoder dec;
    ZydisDecoderInit(&dec, bits == 64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32,
                     bits == 64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32);
    ZydisDecodedInstruction zi;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, in->bytes, in->len, &zi, ops)))
        return;
    switch (zi.meta.category) {
    case ZYDIS_CATEGORY_NOP: case ZYDIS_CATEGORY_WIDENOP: case ZYDIS_CATEGORY_PREFETCH:
    case ZYDIS_CATEGORY_PREFETCHWT1:
        return; /* they name memory without accessing it */
    default:
        break;
    }
    if (zi.mnemonic == ZYDIS_MNEMONIC_CLFLUSH || zi.mnemonic == ZYDIS_MNEMONIC_CLFLUSHOPT ||
        zi.mnemonic == ZYDIS_MNEMONIC_CLWB)
        return;
    bool string = zi.meta.category == ZYDIS_CATEGORY_STRINGOP;
    for (unsigned i = 0; i < zi.operand_count; i++) {
        const ZydisDecodedOperand *o = &ops[i];
        if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
            o->size == 0)
            continue;
        bool rd = o->actions & ZYDIS_OPERAND_ACTION_MASK_READ;
        bool wr = o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
        if (!rd && !wr)
            continue;
        if (string) {
            bool src = o->mem.base == ZYDIS_REGISTER_RSI || o->mem.base == ZYDIS_REGISTER_ESI;
            in->str.elem = (uint8_t)(o->size / 8);
            in->str.rep = zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
                                           ZYDIS_ATTRIB_HAS_REPNE);
            in->str.addr32 = zi.address_width == 32;
            if (src) {
                in->str.src_read = rd;
                in->str.src_seg = seg_slot(o->mem.segment);
            } else {
                in->str.dst_read = rd;
                in->str.dst_write = wr;
                in->str.dst_seg = seg_slot(o->mem.segment);
            }
            continue;
        }
        if (in->nmem == 4)
            break;
        struct hook_memop *m = &in->mem[in->nmem];
        memset(m, 0, sizeof(*m));
        if (o->mem.base == ZYDIS_REGISTER_RIP || o->mem.base == ZYDIS_REGISTER_EIP) {
            m->base = SLOT_RIP; /* the hook op runs with rip at the instruction */
            m->disp = o->mem.disp.value + zi.length;
        } else if (!gpr_slot(bits, o->mem.base, &m->base)) {
            continue;
        } else {
            m->disp = o->mem.disp.has_displacement ? o->mem.disp.value : 0;
        }
        if (!gpr_slot(bits, o->mem.index, &m->index))
            continue; /* a vector index (VSIB): not described */
        m->scale = (uint8_t)__builtin_ctz(o->mem.scale ? o->mem.scale : 1);
        m->seg = seg_slot(o->mem.segment);
        m->size = o->size / 8;
        m->read = rd;
        m->write = wr;
        m->addr32 = zi.address_width == 32;
        /* Zydis gives the stack slot a push writes as [rsp]: it is below. */
        if (o->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && is_sp(o->mem.base) && wr)
            m->kind = HM_PUSH;
        if (zi.mnemonic == ZYDIS_MNEMONIC_XLAT)
            m->kind = HM_XLAT;
        in->nmem++;
    }
}

struct block *hook_block_build(struct cpu *c, const struct op *ops, unsigned n, uint64_t start,
                               uint64_t end)
{
    /* block op, (hook op, instruction op) * n, sentinel; then the records. */
    unsigned nops = 2 * n + 2;
    struct block *b = calloc(1, sizeof(*b) + nops * sizeof(struct op) + n * sizeof(struct hook_insn));
    if (!b)
        cpu_fault(c, SIGSEGV, 1, start); /* out of host memory: nothing better to do */
    struct hook_insn *rec = (struct hook_insn *)(b->ops + nops);
    b->start = start;
    b->size = (uint32_t)(end - start);
    b->nops = n;
    b->ops[0].fn = op_hook_block;
    b->ops[0].imm = (int64_t)(uintptr_t)b;
    uint64_t pc = start;
    for (unsigned i = 0; i < n; i++) {
        struct hook_insn *in = &rec[i];
        in->addr = c->bits == 32 ? (uint32_t)pc : pc;
        in->len = ops[i].len;
        memcpy(in->bytes, c->mm->base + pc, in->len);
        describe(c->bits, in);
        struct op *h = &b->ops[1 + 2 * i];
        h->fn = op_hook_insn;
        h->imm = (int64_t)(uintptr_t)in;
        h->base = h->index = SLOT_ZERO;
        b->ops[2 + 2 * i] = ops[i];
        pc += ops[i].len;
    }
    b->ops[nops - 1].fn = op_block_end;
    return b;
}

/* ------------------------------------------------------------ running */

static uint64_t wrap(const struct cpu *c, uint64_t a)
{
    return c->bits == 32 ? (uint32_t)a : a;
}

static uint64_t memop_addr(const struct cpu *c, const struct hook_memop *m)
{
    uint64_t a = (uint64_t)m->disp + GPR64(c, m->base) + (GPR64(c, m->index) << m->scale);
    if (m->kind == HM_XLAT)
        a += GPR8(c, SLOT_GPR(R_AX));
    if (m->kind == HM_PUSH)
        a -= m->size;
    if (m->addr32)
        a = (uint32_t)a;
    return wrap(c, a + c->seg_base[m->seg]);
}

static void report(struct cpu *c, uint64_t addr, uint32_t size, bool write)
{
    uint8_t buf[HOOK_MEM_DATA_MAX];
    size_t n = size < sizeof(buf) ? size : sizeof(buf);
    if (mm_read(c->mm, addr, buf, n) == 0)
        hook_ops->mem(c, addr, size, buf, write);
}

/* The elements a string instruction went through: its registers then and now. */
static void flush_string(struct cpu *c)
{
    const struct hook_string *s = &pend.str;
    uint64_t mask = s->addr32 ? 0xffffffffull : ~0ull;
    uint64_t count = s->rep ? ((pend.rcx - c->r[R_CX]) & mask) : 1;
    int64_t step = pend.down ? -(int64_t)s->elem : s->elem;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t src = wrap(c, ((pend.rsi + (uint64_t)step * i) & mask) + pend.src_base);
        uint64_t dst = wrap(c, ((pend.rdi + (uint64_t)step * i) & mask) + pend.dst_base);
        if (s->src_read)
            report(c, src, s->elem, false);
        if (s->dst_read)
            report(c, dst, s->elem, false);
        if (s->dst_write)
            report(c, dst, s->elem, true);
    }
}

static void flush(struct cpu *c)
{
    if (pend.c != c)
        return;
    pend.c = NULL;
    for (unsigned i = 0; i < pend.nw; i++)
        report(c, pend.w[i].addr, pend.w[i].size, true);
    if (pend.str.elem)
        flush_string(c);
}

void cpu_hook_flush(struct cpu *c)
{
    if (hook_ops && hook_ops->mem)
        flush(c);
    pend.c = NULL;
}

void cpu_hook_fault(struct cpu *c)
{
    pend.c = NULL;
    /* The dispatch loop counts a block's instructions once it completes;
     * those that retired before the fault count too: the ones before the
     * instruction whose hook op ran last, and that one itself when rip is
     * past it (a trap after the instruction: INT3, INTO, a syscall).  A
     * fault between two blocks (decoding the next) finds the block
     * counted already. */
    if (running.c == c && running.b && running.in && running.icount == c->icount &&
        running.epoch == cache_hot(c)->epoch) {
        const struct block *b = running.b;
        const struct hook_insn *rec = (const struct hook_insn *)(b->ops + 2 * b->nops + 2);
        uint64_t done = (uint64_t)(running.in - rec);
        if (c->rip == wrap(c, running.in->addr + running.in->len))
            done++;
        if (c->rip == running.in->addr || c->rip == wrap(c, running.in->addr + running.in->len))
            c->icount += done;
    }
    running.b = NULL;
}

static void pre(struct cpu *c, const struct hook_insn *in)
{
    const struct cpu_hook_ops *ops = hook_ops;
    flush(c);
    if (ops->insn)
        ops->insn(c, in->addr, in->bytes, in->len);
    if (!ops->mem || (in->nmem == 0 && !in->str.elem))
        return;
    pend.nw = 0;
    for (unsigned i = 0; i < in->nmem; i++) {
        const struct hook_memop *m = &in->mem[i];
        uint64_t a = memop_addr(c, m);
        if (m->read)
            report(c, a, m->size, false);
        if (m->write)
            pend.w[pend.nw++] = (typeof(pend.w[0])){ a, m->size };
    }
    pend.str = in->str;
    if (in->str.elem) {
        pend.rsi = c->r[R_SI];
        pend.rdi = c->r[R_DI];
        pend.rcx = c->r[R_CX];
        pend.src_base = c->seg_base[in->str.src_seg];
        pend.dst_base = c->seg_base[in->str.dst_seg];
        pend.down = c->rflags & FL_DF; /* DF is never lazy */
    }
    pend.c = c;
}

/* The hooks see rip at the instruction; the instruction runs alone, with
 * rip at its end (cpu/cpu.h), its rip-relative operands decoded so. */
static void op_hook_insn(struct cpu *c, const struct op *op)
{
    const struct hook_insn *in = (const struct hook_insn *)(uintptr_t)op->imm;
    running.in = in;
    c->rip = in->addr;
    pre(c, in);
    c->rip = in->addr + in->len;
    NEXT(c, op);
}

static void op_hook_block(struct cpu *c, const struct op *op)
{
    const struct block *b = (const struct block *)(uintptr_t)op->imm;
    running.c = c;
    running.b = b;
    running.in = NULL;
    running.icount = c->icount;
    running.epoch = cache_hot(c)->epoch;
    c->rip = b->start; /* the dispatch loop left it at the block's end */
    if (hook_ops->mem)
        flush(c);
    if (hook_ops->block)
        hook_ops->block(c, b->start, block_end(b), b->nops);
    NEXT(c, op);
}

void cpu_hook_step(struct cpu *c, const struct op *op)
{
    struct hook_insn in;
    memset(&in, 0, sizeof(in));
    running.b = NULL; /* cpu_step counts its one instruction itself */
    in.addr = c->rip;
    in.len = op->len;
    if (mm_read(c->mm, c->rip, in.bytes, in.len) != 0)
        return;
    describe(c->bits, &in);
    if (hook_ops->block)
        hook_ops->block(c, in.addr, in.addr + in.len, 1);
    pre(c, &in);
}
