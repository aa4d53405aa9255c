/* Hooks on instructions, blocks and memory accesses: the interpreter's
 * slow path (cpu/hook.c).
 *
 * The fast path has no test for hooks anywhere.  Instead, while hooks are
 * on (cpu_hooks_switch), blocks are decoded differently: the block starts
 * with a block-hook op, and every instruction op is preceded by a hook op
 * (length 0, so rip is not moved) that reports the instruction and the
 * memory it is about to read.  Switching hooks on or off drops every
 * decoded block in every thread, so the next blocks are decoded in the new
 * way.  Dead-flag elimination is off in hooked blocks: a hook may look at
 * the flags between any two instructions.
 *
 * Memory accesses are found from the instruction's operands (explicit and
 * implicit, as Zydis describes them), not by instrumenting every load and
 * store: a read is reported with its value before the instruction runs,
 * a write with the value written once the instruction has completed -- at
 * the next hook op, or when the thread's run ends.  A faulting
 * instruction's writes are never reported.  REP string instructions report
 * each element, after the instruction (the number of elements is known
 * only then). */
#ifndef CPU_HOOK_H
#define CPU_HOOK_H

#include "cpu/block.h"

/* Callbacks into the embedding layer (api/hooks.c), process-wide. */
struct cpu_hook_ops {
    /* Before the instruction at addr (bytes are the decoded ones). */
    void (*insn)(struct cpu *c, uint64_t addr, const uint8_t *bytes, unsigned len);
    /* Before a block [start, end) of n instructions. */
    void (*block)(struct cpu *c, uint64_t start, uint64_t end, unsigned n);
    /* A memory access: data holds min(size, HOOK_MEM_DATA_MAX) bytes. */
    void (*mem)(struct cpu *c, uint64_t addr, unsigned size, const void *data, bool write);
};
#define HOOK_MEM_DATA_MAX 1024

/* Install the callbacks (once, before any hook is switched on). */
void cpu_hooks_init(const struct cpu_hook_ops *ops);

/* Turn hooked decoding on or off for the whole process; every thread's
 * decoded blocks of mm are dropped at its next block boundary. */
void cpu_hooks_switch(struct mm_space *mm, bool on);

/* True while blocks are decoded hooked. */
bool cpu_hooks_enabled(void);

/* A hooked block: the ops laid out for hooks, with the per-instruction
 * records after the ops (freed with the block).  ops: the n decoded
 * instructions of [start, end). */
struct block *hook_block_build(struct cpu *c, const struct op *ops, unsigned n, uint64_t start,
                               uint64_t end);

/* Report the pending writes of the thread's last instruction (end of a
 * run, or the step after a single-stepped instruction). */
void cpu_hook_flush(struct cpu *c);
/* The last instruction faulted: it wrote nothing. */
void cpu_hook_fault(struct cpu *c);
/* Single-stepping (cpu_step) with hooks on: the hook op's work for the
 * instruction at c->rip. */
void cpu_hook_step(struct cpu *c, const struct op *op);

#endif
