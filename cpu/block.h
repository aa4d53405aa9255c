/* The decoded-block cache: blocks of ops keyed by guest address.
 *
 * A block is a run of ops that ends at a control transfer (or after
 * BLOCK_MAX_OPS, or before bytes that cannot be fetched).  Blocks are found
 * through a hash of their start address, and each block remembers the
 * blocks that followed it (succ[]) so that hot loops skip the hash.
 *
 * Threads: every guest thread has its own cache (struct cpu_cache), which
 * only that thread reads, changes and frees, so the dispatch loop takes no
 * lock.  What the threads share is the address space's code registry
 * (cpu/block.c): the pages any cache has decoded code from, and the list of
 * caches.  Invalidation (a write to a code page, munmap, mprotect, ...) by
 * any thread removes the pages from the registry and queues the range in
 * every cache, raising CPU_ATTN_CODE in its owner's attention word; the
 * owner drops and frees the blocks at its next block boundary, before it
 * looks up another block.  A block is therefore never freed while a thread
 * runs it, and no thread runs a stale block after the boundary that follows
 * the invalidation (the dispatch loop's only cost: one load and branch of
 * the attention word per block).
 *
 * Write detection: before bytes of a page are decoded, the page is entered
 * in the registry and, when the guest may write it, made read-only on the
 * host; the first write by any thread faults, the page's code is
 * invalidated everywhere, the page becomes writable again and the write is
 * retried (self-modifying code and JITs work).  Protecting before reading
 * means a concurrent write is either seen by the decoder or invalidates
 * what it decoded.  Successor links are trusted only while their epoch is
 * the cache's (bumped whenever blocks are freed). */
#ifndef CPU_BLOCK_H
#define CPU_BLOCK_H

#include "cpu/cpu.h"
#include "cpu/fuse.h"
#include "cpu/fuse_alu.h"

#define BLOCK_MAX_OPS 64

/* A decoded block: this header (64 bytes) and its ops.  The op after the
 * last is the block's chain slot (cpu/chain.h): the links of a block that
 * ends with a branch, and the sentinel (op_block_end) a NEXT reaches after
 * the last op of a block cut short. */
struct block {
    uint64_t start;             /* guest address of its first instruction */
    /* The hash chain; once the block is dropped (out of the hash), the
     * list of blocks being dropped. */
    struct block *hnext;
    struct block *succ[2];      /* the last two blocks that followed */
    uint64_t succ_rip[2];
    uint64_t succ_epoch;
    uint32_t size;              /* bytes of guest code: [start, start + size) */
    uint16_t nops;              /* instructions (a hooked block has more ops) */
    bool retired;
    struct op ops[];
};
_Static_assert(sizeof(struct block) == 64, "keep the block header at 64 bytes");
_Static_assert(BLOCK_MAX_OPS * 15 <= UINT32_MAX && BLOCK_MAX_OPS <= UINT16_MAX, "size, nops");

static inline uint64_t block_end(const struct block *b)
{
    return b->start + b->size;
}

/* The part of the cache the dispatch loop reads once per block; the rest
 * of struct cpu_cache is private to cpu/block.c. */
struct cpu_cache_hot {
    uint64_t epoch;         /* bumped whenever blocks are freed */
};

static inline const struct cpu_cache_hot *cache_hot(const struct cpu *c)
{
    return (const struct cpu_cache_hot *)c->cache;
}

struct block *cpu_block_lookup(struct cpu *c, uint64_t rip);
/* Decode the one instruction at c->rip, outside the cache (single-stepping). */
void cpu_decode_single(struct cpu *c, struct op *op);
/* The owner's side of CPU_ATTN_CODE: drop the blocks of every queued
 * invalidation (at a block boundary: no block of this cache is running). */
void cpu_cache_attend(struct cpu *c);
/* Drop every decoded block of every thread of mm (at each one's next
 * block boundary): the way blocks are decoded has changed (hooks). */
void cpu_cache_flush_all(struct mm_space *mm);

/* Counters for --stats (elfemu_get_stats), process-wide and off the hot
 * path: blocks decoded by every thread of mm so far (ended ones too);
 * code pages invalidated because the guest (an instruction or a syscall)
 * wrote to them; and a generation bumped whenever decoded code is dropped
 * because guest code may have changed (a tool that caches what it learned
 * per block address starts afresh when it changes). */
uint64_t cpu_blocks_decoded(struct mm_space *mm);
uint64_t cpu_smc_invalidations(void);
uint64_t cpu_code_generation(void);

int cpu_cache_create(struct cpu *c);
void cpu_cache_destroy(struct cpu *c);


/* What the dead-flag pass needs to know about a decoded instruction. */
struct op_meta {
    uint32_t flags_read;     /* arithmetic flags it may read */
    uint32_t flags_written;  /* arithmetic flags it always writes */
    bool may_fault;          /* a fault would expose the flags before it */
    bool side_exit;          /* a conditional direct branch (Jcc, LOOPcc, JrCXZ): not
                                taken, its block may go on (decode_block) */
    bool xmm;                /* names an XMM register (only blocks with one go
                                through the SSE pairing passes) */
    struct fuse_meta fuse;   /* what it can be in a fused pair (cpu/fuse.h) */
    struct pair_meta pair;   /* what it can be in a register pair (cpu/fuse_alu.h) */
};

/* The arithmetic flags live before an instruction, from those live after
 * it: all of them before one that may fault (a handler sees them) and
 * before a side exit (its target may read them). */
static inline uint32_t meta_live_before(const struct op_meta *m, uint32_t live_after)
{
    if (m->may_fault || m->side_exit)
        return FL_ARITH;
    return (live_after & ~m->flags_written) | m->flags_read;
}

/* A guest store (on this thread) is about to change the code at addr: if
 * the block this thread is running holds it, leave that block after the
 * current op, so that the next instruction comes from the new bytes
 * (cpu/exec.c).  Called from the host fault handler. */
void cpu_code_written(uint64_t addr);

/* The handler cpu_code_written gives the ops after the current one: a
 * fused op whose first half stores tests its next op for it. */
void op_code_written(struct cpu *c, const struct op *op);

/* Decode one instruction (cpu/decode.c); meta may be NULL. */
unsigned cpu_decode_one(struct cpu *c, uint64_t rip, const uint8_t *bytes, unsigned avail,
                        struct op *op, bool *ends_block, struct op_meta *meta);

/* Make the pairs of a block's n ops that can run as one handler do so
 * (scalar SSE arithmetic on one value, cpu/ops_sse_fp_arith.c). */
void sse_fuse_pairs(struct op *ops, unsigned n);
/* Make runs of PUSH r / POP r run as one handler (cpu/ops_stack.c). */
void stack_fuse_runs(struct op *ops, unsigned n);

#endif
