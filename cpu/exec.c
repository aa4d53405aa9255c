/* The dispatch loop, and the ways a guest stops.
 *
 * The loop finds the block at rip (through the previous block's successor
 * links when they are current, else the hash), runs its ops back to back
 * with c->rip at the block's end (cpu/cpu.h), and counts instructions per
 * block.  A block's end may go on into further blocks (cpu/chain.h; the
 * slow side, chain_miss, is here): the loop then gets back the last one.  Everything that must stop the guest mid-block (faults,
 * unimplemented instructions) longjmps here, where rip is made exact. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/block.h"
#include "cpu/chain.h"
#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/hook.h"
#include "cpu/ras.h"
#include "cpu/sse.h"
#include "cpu/x87_host.h"

void cpu_init(struct cpu *c, struct mm_space *mm, int bits)
{
    memset(c, 0, sizeof(*c));
    c->mm = mm;
    c->mem = mm->base;
    /* Accesses may run up to MM_GUARD bytes past the limit into the guard. */
    c->mem_limit = mm->size - 1;
    c->bits = bits;
    c->rflags = RFLAGS_FIXED | FL_IF;
    c->lf_op = LF_NONE;
    c->log_unimplemented = true;
    c->mxcsr = 0x1f80;          /* all exceptions masked, round to nearest */
    c->fcw = 0x37f;             /* Linux's initial x87 control word */
    c->ftag = 0xff;             /* all x87 registers empty */
    c->fault_trap = -1;
    c->cur = &cpu_op_exact;
    /* The selectors Linux gives user processes (__USER_CS/__USER_DS). */
    c->sreg[SEG_CS] = bits == 64 ? 0x33 : 0x23;
    c->sreg[SEG_SS] = c->sreg[SEG_DS] = c->sreg[SEG_ES] = 0x2b;
    cpu_cache_create(c);
}

void cpu_destroy(struct cpu *c)
{
    cpu_cache_destroy(c);
}

struct cpu *cpu_clone(const struct cpu *parent)
{
    struct cpu *c = malloc(sizeof(*c));
    if (!c)
        return NULL;
    memcpy(c, parent, sizeof(*c));
    /* The parent's MXCSR flags may still be accumulating in its host
     * register; the child starts from the value the guest would read. */
    c->mxcsr = cpu_mxcsr_value(parent);
    c->mxcsr_live = false;
    c->x87_live = false; /* its thread's host x87 is its own */
    c->cache = NULL;
    c->fault_jmp = NULL;
    c->cur = &cpu_op_exact; /* the parent is in a syscall: its rip is exact */
    c->attention = 0;
    c->stop = CPU_RUNNING;
    c->icount = 0;
    if (cpu_cache_create(c) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void cpu_free(struct cpu *c)
{
    if (!c)
        return;
    cpu_destroy(c);
    free(c);
}

void cpu_raise(struct cpu *c, int sig)
{
    c->stop = CPU_SIGNALED;
    c->stop_code = sig;
}

void cpu_fault(struct cpu *c, int sig, int code, uint64_t addr)
{
    cpu_fault_trap(c, sig, code, addr, -1);
}

void cpu_fault_trap(struct cpu *c, int sig, int code, uint64_t addr, int trap)
{
    c->fault_trap = trap;
    c->fault_write = false;
    c->fault_err = -1;
    c->fault_sig = sig;
    c->fault_code = code;
    c->fault_addr = addr;
    siglongjmp(*c->fault_jmp, 2);
}

void cpu_unimplemented(struct cpu *c, const uint8_t *bytes, unsigned len, bool invalid)
{
    /* Log each address once: a loop over an unknown instruction stays readable. */
    static __thread uint64_t logged[64];
    static __thread unsigned nlogged;
    bool seen = false;
    for (unsigned i = 0; i < nlogged && i < 64; i++)
        seen |= logged[i] == c->rip;
    if (c->log_unimplemented && !seen) {
        logged[nlogged++ % 64] = c->rip;
        char hex[3 * 16 + 1] = "", text[128];
        for (unsigned i = 0; i < len && i < 15; i++)
            snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", bytes[i]);
        cpu_disasm(c->bits, bytes, len, c->rip, text, sizeof(text));
        fprintf(stderr, "elfemu: %s instruction at %#llx: %s(%s): SIGILL\n",
                invalid ? "invalid" : "unimplemented", (unsigned long long)c->rip, hex, text);
    }
    cpu_fault(c, SIGILL, invalid ? 1 /* ILL_ILLOPC */ : 2 /* ILL_ILLOPN */, c->rip);
}

static void log_op(struct cpu *c, const struct op *op, bool invalid)
{
    cpu_rip_set(c, cpu_rip(c)); /* the instruction's address, for the log and the fault */
    uint8_t bytes[15] = { 0 };
    unsigned n = op->len ? op->len : 1;
    if (mm_read(c->mm, c->rip, bytes, n) != 0)
        n = 0;
    cpu_unimplemented(c, bytes, n, invalid);
}

void op_unimplemented(struct cpu *c, const struct op *op)
{
    log_op(c, op, false);
}

void op_invalid(struct cpu *c, const struct op *op)
{
    log_op(c, op, true);
}

static void step_one(struct cpu *c);

/* The last op of a block cut short leaves c->rip at the block's end, which
 * is where the guest goes on: op is the block's chain slot, whose
 * fall-through link leads there (the sentinels of single steps and hooked
 * blocks never chain: they return). */
void op_block_end(struct cpu *c, const struct op *op)
{
    struct chain_slot *s = (struct chain_slot *)(uintptr_t)op;
    chain_link(c, s, s->fall, NULL);
}

const struct op cpu_op_exact = { .fn = op_block_end, .base = SLOT_ZERO, .index = SLOT_ZERO };

uint64_t cpu_rip(const struct cpu *c)
{
    /* The ops from c->cur to the end of its run: the block's last (a
     * branch), or the one before the sentinel or (hooked blocks) before
     * the next hook op, both of which have no length. */
    uint64_t rip = c->rip;
    for (const struct op *o = c->cur; o->len; o++) {
        rip -= o->len;
        if (o->flags & OPF_BRANCH)
            break;
    }
    return rip;
}

/* The CPU this thread runs (cpu_code_written). */
static __thread struct cpu *cpu_running;

/* Leave the running block at op, whose instruction bytes (or those of an
 * instruction before it that had not run yet) the guest overwrote: rip
 * exact at op, the instructions from op on not counted; the loop then
 * drops the block and decodes the new bytes. */
void op_code_written(struct cpu *c, const struct op *op)
{
    c->icount -= (uint64_t)(c->blk->ops + c->blk->nops - op);
    cpu_rip_set(c, cpu_rip(c));
}

void cpu_code_written(uint64_t addr)
{
    struct cpu *c = cpu_running;
    struct block *b = c ? c->blk : NULL;
    if (!b || addr < b->start || addr >= block_end(b))
        return;
    /* Plain blocks only: a hooked block's ops are not one per instruction
     * (its chain slot is not at ops[nops]). */
    const struct chain_slot *s = (const struct chain_slot *)(uintptr_t)&b->ops[b->nops];
    if (s->fn != op_block_end || !s->chains || c->cur < b->ops || c->cur >= b->ops + b->nops)
        return;
    for (struct op *o = (struct op *)(uintptr_t)c->cur + 1; o < b->ops + b->nops; o++)
        o->fn = op_code_written;
}

/* Run body with guest faults routed back here: a guest access that faults
 * in the host MMU (1) or a handler that raises a fault (2) comes back with
 * the instruction not completed and rip pointing at it.  The fault is then
 * delivered to the guest (sig_fault): with a handler the run goes on from
 * the handler's frame, else the guest dies of it. */
static void run_guarded(struct cpu *c, void (*body)(struct cpu *c))
{
    sigjmp_buf jmp;
    struct mm_fault fault;
    mm_fault_install();
    struct cpu *outer = cpu_running;
    cpu_running = c;
    c->fault_jmp = &jmp;
    c->stop = CPU_RUNNING;
    for (;;) {
        int why = sigsetjmp(jmp, 0);
        if (why == 0) {
            mm_fault_arm(c->mm, &jmp, &fault);
            body(c);
            mm_fault_disarm();
            cpu_running = outer;
            return;
        }
        mm_fault_disarm();
        /* The faulting instruction's address, from the op that ran. */
        cpu_rip_set(c, cpu_rip(c));
        /* A fault may have unwound a holder of the space's lock. */
        mm_lock_release_all(c->mm);
        /* The handler put the interrupted FPU state back (mm/fault.c); a
         * signal frame needs the x87 state in struct cpu. */
        cpu_x87_release(c);
        if (UNLIKELY(cpu_hooks_enabled()))
            cpu_hook_fault(c); /* the faulting instruction wrote nothing */
        if (why == 1) {
            /* A host fault: SEGV_MAPERR where nothing is mapped, SEGV_ACCERR
             * where the protection forbids the access, BUS_ADRERR past the
             * end of a mapped file. */
            c->fault_sig = fault.host_signo == SIGBUS ? SIGBUS : SIGSEGV;
            c->fault_code = c->fault_sig == SIGBUS ? BUS_ADRERR
                            : mm_find_vma(c->mm, fault.addr) ? SEGV_ACCERR
                                                              : SEGV_MAPERR;
            c->fault_addr = fault.addr;
            c->fault_write = fault.access == MM_ACCESS_WRITE;
            c->fault_err = (int64_t)fault.err;
            c->fault_trap = -1;
        }
        if (!sig_fault(c) || body == step_one) {
            /* (a step ends at the handler's first instruction) */
            cpu_running = outer;
            return;
        }
    }
}

static void step_one(struct cpu *c)
{
    /* A host signal queued for the guest is delivered at this boundary, as
     * the run loop does: SYSCALL returns without running while one is
     * queued (for the loop to deliver it first), so a step that did not
     * deliver it would stay on the SYSCALL for ever.  With a handler (or
     * the guest's end) that is the step; an ignored signal leaves the
     * instruction to run. */
    if (UNLIKELY(c->attention & CPU_ATTN_SIGNAL)) {
        uint64_t rip = c->rip;
        cpu_x87_release(c); /* a signal frame holds the x87 state */
        sig_deliver(c);
        if (c->stop != CPU_RUNNING || c->rip != rip)
            return;
    }
    /* Not on the stack: a fault unwinds this frame before the fault path
     * reads the op (c->cur). */
    static __thread struct op ops[2];
    c->blk = NULL; /* no block runs */
    cpu_decode_single(c, &ops[0]);
    memset(&ops[1], 0, sizeof(ops[1]));
    ops[1].fn = op_block_end;
    bool hooked = cpu_hooks_enabled();
    if (UNLIKELY(hooked))
        cpu_hook_step(c, &ops[0]);
    /* A block of one instruction: rip at its end while it runs. */
    c->rip += ops[0].len;
    c->cur = ops;
    ops[0].fn(c, ops);
    cpu_rip_set(c, c->bits == 32 ? (uint32_t)c->rip : c->rip);
    c->icount++;
    if (UNLIKELY(hooked))
        cpu_hook_flush(c); /* the step's writes, before it returns */
}

void cpu_step(struct cpu *c)
{
    run_guarded(c, step_one);
    cpu_x87_release(c);
}

void chain_miss(struct cpu *c, struct chain_slot *s, const struct op *br)
{
    if (br)
        c->rip = (uint64_t)br->imm;
    if (!s->chains)
        return; /* a single step or a hooked block: no links */
    if (!chain_may_hop(c)) {
        /* The loop counts the whole block (c->blk) and attends: a side
         * exit ran only its first s->nops instructions. */
        c->icount -= c->blk->nops - s->nops;
        return;
    }
    if (s->epoch != c->chain_epoch) {
        s->fall = s->taken = NULL;
        s->epoch = c->chain_epoch;
    }
    /* The block has ended: counted before the lookup, which may fault at
     * c->rip (decoding) as the loop's does. */
    c->icount += s->nops;
    c->cur = &cpu_op_exact;
    struct block *n = cpu_block_lookup(c, c->rip);
    if (br)
        s->taken = n;
    else
        s->fall = n;
    chain_enter(c, 0, n);
}

void chain_indirect_miss(struct cpu *c, struct chain_slot *s)
{
    if (!s->chains || !chain_may_hop(c) || c->attention)
        return; /* a single step or a hooked block; or the loop's turn */
    if (s->epoch != c->chain_epoch) {
        s->fall = s->taken = NULL;
        s->epoch = c->chain_epoch;
    }
    /* As chain_miss: counted before the lookup, which may fault. */
    c->icount += s->nops;
    c->cur = &cpu_op_exact;
    struct block *n = s->fall;
    if (n == NULL || n->start != c->rip)
        n = cpu_block_lookup(c, c->rip);
    s->fall = s->taken;
    s->taken = n;
    chain_enter(c, 0, n);
}

static void run_blocks(struct cpu *c)
{
    /* The thread's own cache: it stays while the thread runs. */
    const struct cpu_cache_hot *hot = cache_hot(c);
    /* The block that ran last; at first, and after code was dropped, one
     * whose links are of no epoch (epochs start at 1). */
    struct block none = { .succ_epoch = 0 };
    struct block *prev = &none;
    _Static_assert(CPU_RUNNING == 0, "one test for a stop and for attention");
    for (;;) {
        if (UNLIKELY(c->attention | (int)c->stop)) {
            c->cur = &cpu_op_exact;
            if (c->stop != CPU_RUNNING)
                break;
            if (c->attention & CPU_ATTN_CODE) {
                /* Code was invalidated (by any thread): drop it before
                 * looking up the next block; prev may be among the freed. */
                cpu_cache_attend(c);
                prev = &none;
                c->blk = NULL; /* may be among the freed */
            }
            if (c->attention & CPU_ATTN_SIGNAL) {
                cpu_x87_release(c); /* a signal frame holds the x87 state */
                sig_deliver(c);
            }
            if ((c->attention & CPU_ATTN_STOP) && c->stop == CPU_RUNNING) {
                __atomic_fetch_and(&c->attention, ~CPU_ATTN_STOP, __ATOMIC_ACQ_REL);
                c->stop = CPU_STOPPED;
            }
            if (c->stop != CPU_RUNNING)
                break;
        }
        uint64_t rip = c->rip, epoch = hot->epoch;
        struct block *b;
        if (prev->succ_epoch == epoch && prev->succ_rip[0] == rip)
            b = prev->succ[0];
        else if (prev->succ_epoch == epoch && prev->succ_rip[1] == rip)
            b = prev->succ[1];
        else {
            c->cur = &cpu_op_exact; /* decoding may fault at rip */
            b = ras_block_lookup(c, rip);
            if (prev->succ_epoch != hot->epoch) {
                prev->succ_epoch = hot->epoch;
                prev->succ_rip[0] = prev->succ_rip[1] = ~0ull;
            }
            prev->succ[1] = prev->succ[0];
            prev->succ_rip[1] = prev->succ_rip[0];
            prev->succ[0] = b;
            prev->succ_rip[0] = rip;
        }
        /* The ops chain into each other (NEXT), and a block's end may go on
         * into the next blocks (cpu/chain.h); the last block that ran
         * (c->blk) returns with rip exact, c->cur left on one of its ops
         * until the next one runs or a way that may fault above resets it. */
        c->rip = rip + b->size;
        c->cur = b->ops;
        c->blk = b;
        c->chain_limit = c->icount + CHAIN_MAX_INSNS;
        b->ops[0].fn(c, b->ops);
        prev = c->blk;
        c->icount += prev->nops;
    }
}

void cpu_run(struct cpu *c)
{
    run_guarded(c, run_blocks);
    cpu_x87_release(c);
    if (UNLIKELY(cpu_hooks_enabled()))
        cpu_hook_flush(c); /* the last instruction's writes */
}
