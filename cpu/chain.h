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
 * host predicts per branch site.  An indirect JMP/CALL does the same when
 * its target is one of its last two (chain_indirect, below).
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
 * Side exits: a conditional direct branch (Jcc, LOOPcc, JrCXZ) does not
 * end its block (decode_block): not taken, it goes on with NEXT like any
 * other op, so a path through several untaken branches is one block and
 * pays no hop; taken, it leaves the block through its own exit slot, a
 * chain slot after the block's chain slot (and return slot) that only
 * uses the taken link, and whose count is the instructions up to the
 * branch.  Every direct branch op finds its slot at op->disp bytes from
 * itself: CHAIN_SLOT_NEXT (the slot right after it) unless decode_block
 * made it a side exit.  A conditional branch that is its block's last op
 * (the block is full, or what follows cannot be fetched) goes on with
 * NEXT into the chain slot when not taken, whose sentinel handler hops to
 * the fall-through.
 *
 * A hop (chain_link) happens only when the link is current and the chain is
 * within its budget, which raising attention ends (cpu_attention_raise:
 * signals, invalidated code and stops are seen at the next block boundary
 * as before), and which bounds the chain's length (c->chain_limit: a handler that
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

/* The decoder's op->disp of a direct branch: its slot is the op after it. */
#define CHAIN_SLOT_NEXT ((int32_t)sizeof(struct op))

/* The slot whose taken link a direct branch op br leaves through. */
static inline struct chain_slot *chain_exit_slot(const struct op *br)
{
    return (struct chain_slot *)(uintptr_t)((const char *)br + br->disp);
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
    /* Attention ends the budget too (cpu_attention_raise). */
    return LIKELY(c->icount < __atomic_load_n(&c->chain_limit, __ATOMIC_RELAXED));
}

/* The slow side of a hop (cpu/exec.c): set rip (to br->imm for a taken
 * branch br; br NULL: the fall-through, where c->rip is), then fill the
 * missing link of slot s and hop, or return to the loop. */
void chain_miss(struct cpu *c, struct chain_slot *s, const struct op *br);

/* Leave the block through slot s into n (s's link, NULL when missing):
 * into the next block, or back to the loop with c->rip set.  (A hop sets
 * c->rip to the next block's end: the target is written only on the way
 * back.) */
static inline __attribute__((always_inline)) void chain_link(struct cpu *c, struct chain_slot *s,
                                                             struct block *n, const struct op *br)
{
    if (LIKELY(n != NULL) && LIKELY(s->epoch == c->chain_epoch) && chain_may_hop(c)) {
        chain_enter(c, s->nops, n);
        return;
    }
    chain_miss(c, s, br);
}

/* A direct branch op br taken: to its target (br->imm).  A loop that is
 * one block (its branch goes back to its own block's start: the link is
 * the block running) goes round without the rest of a hop: the link needs
 * no epoch test (it was made after the block was, which is decoded with
 * an empty slot, and the block running is not freed before the loop has
 * seen the attention that a drop raises: chain_may_hop fails), and rip
 * and c->blk stay as they are.  The link of a slot that never chains is
 * NULL, which is what c->blk is in a single step. */
static inline __attribute__((always_inline)) void chain_taken(struct cpu *c, const struct op *br)
{
    struct chain_slot *s = chain_exit_slot(br);
    struct block *n = s->taken;
    if (n == c->blk && LIKELY(n != NULL) && chain_may_hop(c)) {
        c->icount += s->nops;
        c->cur = n->ops;
        n->ops[0].fn(c, n->ops);
        return;
    }
    chain_link(c, s, n, br);
}

/* The end of a direct branch op br (a Jcc, the Jcc of a fused pair, LOOP,
 * JMP/CALL rel): taken, out of the block; not taken, on with the next op
 * (the chain slot's sentinel when br is the block's last op). */
#define CHAIN_BRANCH(c, br, taken)                                                      \
    do {                                                                                \
        if (!(taken))                                                                   \
            NEXT((c), (br));                                                            \
        chain_taken((c), (br));                                                         \
        return;                                                                         \
    } while (0)

/* The slow side of chain_indirect (cpu/exec.c): the block at c->rip from
 * the slot's second link or the cache, made the first link; then a hop,
 * or back to the loop. */
void chain_indirect_miss(struct cpu *c, struct chain_slot *s);

/* The end of an indirect JMP/CALL op (its block's last op), with c->rip
 * at the target: the slot's links hold the blocks of its last two targets
 * (taken the last, fall the one before; neither is used otherwise by a
 * block that ends with an indirect branch), and the hop goes straight on
 * when the target is the last one again: a PLT stub's GOT entry, a
 * function pointer called in a loop, an interpreter's dispatch jump
 * repeating an opcode.  Each such op has its own host indirect jump, where
 * the dispatch loop's one call site served every indirect branch.
 * Attention is tested as well as the budget: code another thread rewrote
 * is dropped at the loop, and its writer raised attention before any store
 * that tells this thread to call it (a JIT publishing a function), which
 * x86's load ordering makes visible here, where the budget's zero can be
 * overwritten by the loop starting a chain (cpu_attention_raise). */
static inline __attribute__((always_inline)) void chain_indirect(struct cpu *c, const struct op *op)
{
    struct chain_slot *s = chain_slot_of(op);
    struct block *n = s->taken;
    if (n != NULL && n->start == c->rip && s->epoch == c->chain_epoch && chain_may_hop(c) &&
        LIKELY(__atomic_load_n(&c->attention, __ATOMIC_RELAXED) == 0)) {
        chain_enter(c, s->nops, n);
        return;
    }
    chain_indirect_miss(c, s);
}

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
