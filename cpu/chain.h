/* Block chaining: the op that ends a block goes straight into the next one.
 *
 * Without chaining every block returns to the dispatch loop (cpu/exec.c),
 * which finds the next block and calls its first op from one shared
 * indirect call site: a hot loop of short blocks pays a return, the loop's
 * checks and a poorly predicted indirect call per block.  With chaining, a
 * direct branch (Jcc, JMP/CALL rel, LOOP, the fused compare-and-branch
 * pairs), RET and the sentinel of a block cut short find the next block
 * through a link they reach in one or two loads, and tail-call its first
 * op themselves: each such handler has its own indirect jump, which the
 * host predicts per branch site.
 *
 * The chain slot: the op-sized slot after a block's last op (where a block
 * cut short has its sentinel) holds the block's links: the block at its
 * fall-through and at the branch's target, valid while their epoch is the
 * cache's (a block freed bumps the epoch; the slot and the ring's return
 * slots compare its low 32 bits, which struct cpu keeps at hand in
 * chain_epoch), and the block's instruction count.  Its first word is
 * op_block_end and its length byte 0, so the slot is still a valid
 * sentinel op: a block cut short goes on through it, and the sentinels of
 * single steps and hooked blocks are all-zero slots that never chain.
 *
 * A hop (chain_hop) happens only when the link is current, no attention is
 * raised (signals, invalidated code, stops are seen at every block boundary
 * as before) and the chain is not too long (c->chain_limit: a handler that
 * the compiler did not make a sibling call, as in an unoptimised build,
 * leaves a host frame per run; the loop unwinds them every CHAIN_MAX_INSNS
 * instructions).  c->stop needs no test: only syscalls and signal delivery
 * set it, and both return to the loop.  The hop counts the block that ends
 * (the loop counts the block it finds in c->blk once a chain returns), and
 * enters the next one as the loop does: c->rip at its end, c->cur at its
 * first op.  A link that is missing is filled by chain_miss() (the hash
 * lookup, or decoding), which then hops as well: a loop links itself up
 * on its first iterations. */
#ifndef CPU_CHAIN_H
#define CPU_CHAIN_H

#include <string.h>

#include "cpu/block.h"
#include "cpu/ras.h"

/* How many instructions a chain runs before it returns to the loop. */
#define CHAIN_MAX_INSNS 1024

struct chain_slot {
    cpu_handler fn;         /* op_block_end: the slot is a sentinel op too */
    struct block *fall;     /* the block at the fall-through (the block's end) */
    uint32_t epoch;         /* fall and taken are valid while this is the
                               cache's epoch (its low 32 bits, never 0) */
    uint8_t len;            /* 0, as a sentinel's (cpu_rip()) */
    uint8_t chains;         /* 0: never chain (single steps, hooked blocks) */
    uint16_t nops;          /* the block's instructions */
    struct block *taken;    /* the block at the branch's target */
};
_Static_assert(sizeof(struct chain_slot) == sizeof(struct op), "a chain slot takes one op's place");
_Static_assert(offsetof(struct chain_slot, len) == offsetof(struct op, len), "a slot's length is 0");

static inline struct chain_slot *chain_slot_of(const struct op *last)
{
    return (struct chain_slot *)(uintptr_t)(last + 1);
}

/* The slot after the n ops of a decoded block (decode_block): chains
 * unless the block is hooked or a single step's. */
static inline void chain_slot_init(struct op *after, unsigned n, bool chains)
{
    struct chain_slot *s = (struct chain_slot *)after;
    memset(s, 0, sizeof(*s));
    s->fn = op_block_end;
    s->chains = chains;
    s->nops = (uint16_t)n;
}

/* Go on in block n: count the nops instructions of the block that ends
 * and run n as the dispatch loop would. */
static inline __attribute__((always_inline)) void chain_enter(struct cpu *c, unsigned nops,
                                                              struct block *n)
{
    c->icount += nops;
    c->blk = n;
    c->rip = n->start + n->size;
    c->cur = n->ops;
    n->ops[0].fn(c, n->ops);
}

static inline bool chain_may_hop(const struct cpu *c)
{
    return LIKELY(!c->attention) && LIKELY(c->icount < c->chain_limit);
}

/* The slow side of chain_hop (cpu/exec.c): set rip, then fill the
 * missing link and hop, or return to the loop. */
void chain_miss(struct cpu *c, const struct op *last, bool taken);

/* The end of a direct branch op last (the block's last op) to its target
 * (last->imm) when taken, else to the block's end: into the next block, or
 * back to the loop with c->rip set.  (A hop sets c->rip to the next
 * block's end: the target is written only on the way back.) */
static inline __attribute__((always_inline)) void chain_hop(struct cpu *c, const struct op *last,
                                                            bool taken)
{
    const struct chain_slot *s = chain_slot_of(last);
    struct block *n = taken ? s->taken : s->fall;
    if (LIKELY(n != NULL) && LIKELY(s->epoch == c->chain_epoch) && chain_may_hop(c)) {
        chain_enter(c, s->nops, n);
        return;
    }
    chain_miss(c, last, taken);
}

/* The end of a conditional branch op br (a Jcc, or the Jcc of a fused
 * pair) that ends its block. */
#define CHAIN_BRANCH(c, br, taken)                                                      \
    do {                                                                                \
        chain_hop((c), (br), (taken));                                                  \
        return;                                                                         \
    } while (0)

/* The end of a RET (op): the block the return-address ring predicted
 * (cpu/ras.h), when it is the one at c->rip and current. */
static inline __attribute__((always_inline)) void chain_return(struct cpu *c, const struct op *op)
{
    const struct chain_slot *s = chain_slot_of(op);
    const struct ret_slot *r = c->ret_hint;
    if (r && r->rip == c->rip && r->epoch == c->chain_epoch && s->chains && chain_may_hop(c)) {
        chain_enter(c, s->nops, r->b);
        return;
    }
}

#endif
