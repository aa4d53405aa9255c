/* Return-address prediction: the block a RET goes back to, without a hash
 * lookup.
 *
 * A block's successor links (succ[]) remember the last two blocks that
 * followed it, which is right for loops and direct jumps but not for the
 * RET of a function called from many places: there the dispatch loop falls
 * back to the hash of the cache, whose buckets and chains miss the host's
 * caches once a program's code is large (cc1: 20 million of its 23 million
 * lookups came after a RET, about 90 ns each).
 *
 * A block that ends with a CALL keeps one extra op-sized slot after its
 * chain slot (struct ret_slot, after cpu/chain.h's): the return address
 * and the block found there the last time.  The predicting CALL handlers push a pointer to their block's
 * slot onto a small ring in struct cpu (c->ras) and RET pops the top into
 * c->ret_hint; when the successor links miss, the dispatch loop takes the
 * block from the hint if the hint's return address is the rip RET went to.
 *
 * Correctness never depends on the prediction: a hint is used only when its
 * address equals the actual rip (a longjmp, a signal handler, a deeper
 * recursion than the ring, a RET to a pushed address all just miss), and
 * its block only when it was found in the cache's current epoch.  The
 * pointers in the ring point into blocks of this cache: they are cleared
 * whenever blocks are freed (cpu/block.c free_dropped) and for a new cache.
 * Single steps and hooked blocks use the plain CALL handlers, which push
 * nothing (their op after the CALL is no slot). */
#ifndef CPU_RAS_H
#define CPU_RAS_H

#include "cpu/block.h"

/* The slot after a predicting CALL's chain slot (the size of an op, never
 * executed: an op with OPF_BRANCH never goes on with NEXT). */
struct ret_slot {
    uint64_t rip;       /* the return address: the end of the CALL's block */
    struct block *b;    /* the block at rip, valid while epoch is the cache's */
    uint64_t epoch;     /* (its low 32 bits, c->chain_epoch: cpu/chain.h) */
    uint64_t unused;
};
_Static_assert(sizeof(struct ret_slot) == sizeof(struct op), "a ret_slot takes one op's place");

static inline void ras_push(struct cpu *c, const struct op *call)
{
    c->ras[++c->ras_top % CPU_RAS_SIZE] = (void *)(call + 2);
}

static inline void ras_pop(struct cpu *c)
{
    c->ret_hint = c->ras[c->ras_top-- % CPU_RAS_SIZE];
}

/* Forget every prediction (the blocks they point into may be freed). */
static inline void ras_clear(struct cpu *c)
{
    for (unsigned i = 0; i < CPU_RAS_SIZE; i++)
        c->ras[i] = NULL;
    c->ret_hint = NULL;
}

/* The block at rip when the successor links missed: the one the last RET's
 * slot predicts when it is for rip, else the hash's. */
static inline struct block *ras_block_lookup(struct cpu *c, uint64_t rip)
{
    struct ret_slot *s = c->ret_hint;
    if (!s || s->rip != rip)
        return cpu_block_lookup(c, rip);
    uint64_t epoch = c->chain_epoch;
    if (s->epoch != epoch) {
        s->b = cpu_block_lookup(c, rip);
        s->epoch = epoch;
    }
    return s->b;
}

/* For decode_block: when a block's last op is a CALL, make it the
 * predicting CALL and return true; the caller then puts a ret_slot for
 * return address ret after its chain slot (ret_slot_init). */
bool ras_call_predicts(struct op *last);

static inline void ret_slot_init(struct op *after, uint64_t ret)
{
    struct ret_slot *s = (struct ret_slot *)after;
    s->rip = ret;
    s->b = NULL;
    s->epoch = ~0ull;
    s->unused = 0;
}

#endif
