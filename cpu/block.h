/* The decoded-block cache: blocks of ops keyed by guest address.
 *
 * A block is a run of ops that ends at a control transfer (or after
 * BLOCK_MAX_OPS, or before bytes that cannot be fetched).  Blocks are found
 * through a hash of their start address, and each block remembers the
 * blocks that followed it (succ[]) so that hot loops skip the hash.
 *
 * Invalidation: decoding from a page the guest may write makes that page
 * read-only on the host; the guest's first write to it faults, the page's
 * blocks are retired, the page becomes writable again and the write is
 * retried (self-modifying code and JITs work).  munmap/mprotect/mremap call
 * cpu_invalidate().  Retired blocks are freed at the next block boundary;
 * successor links are trusted only while their epoch is the cache's. */
#ifndef CPU_BLOCK_H
#define CPU_BLOCK_H

#include "cpu/cpu.h"

#define BLOCK_MAX_OPS 64

struct block {
    uint64_t start, end;        /* guest range of its instructions */
    struct block *hnext;        /* hash chain */
    struct block *rnext;        /* retired list */
    struct block *succ[2];      /* the last two blocks that followed */
    uint64_t succ_rip[2];
    uint64_t succ_epoch;
    uint32_t nops;
    bool retired;
    struct op ops[];
};

/* The part of the cache the dispatch loop reads once per block; the rest
 * of struct cpu_cache is private to cpu/block.c. */
struct cpu_cache_hot {
    uint64_t epoch;         /* bumped whenever blocks are retired */
    struct block *retired;  /* retired blocks waiting to be freed */
};

static inline const struct cpu_cache_hot *cache_hot(const struct cpu *c)
{
    return (const struct cpu_cache_hot *)c->cache;
}

struct block *cpu_block_lookup(struct cpu *c, uint64_t rip);
/* Decode the one instruction at c->rip, outside the cache (single-stepping). */
void cpu_decode_single(struct cpu *c, struct op *op);
void cpu_cache_free_retired(struct cpu *c);

int cpu_cache_create(struct cpu *c);
void cpu_cache_destroy(struct cpu *c);


/* What the dead-flag pass needs to know about a decoded instruction. */
struct op_meta {
    uint32_t flags_read;     /* arithmetic flags it may read */
    uint32_t flags_written;  /* arithmetic flags it always writes */
    bool may_fault;          /* a fault would expose the flags before it */
};

/* Decode one instruction (cpu/decode.c); meta may be NULL. */
unsigned cpu_decode_one(struct cpu *c, uint64_t rip, const uint8_t *bytes, unsigned avail,
                        struct op *op, bool *ends_block, struct op_meta *meta);

#endif
