/* Fused pairs of x86_64 code with a memory half (cpu/ops_fused_mem64.c):
 * a MOV load or store, MOVZX of a word or byte in memory, or MOVSXD r64,
 * r32, next to a register operation or another of them, as one handler.
 * The pairing pass of cpu/ops_fused_alu.c (pair_block) asks for them;
 * only the pairs the profiles of 64-bit programs show hot have one.
 *
 * Exactness as in cpu/ops_fused_mem.c: each half does what its own
 * handler does; a memory second half points c->cur at its own op before
 * its access, after the first half committed everything, so a fault there
 * is the fault of the second instruction with the first one done. */
#ifndef CPU_FUSE_MEM64_H
#define CPU_FUSE_MEM64_H

#include "cpu/fuse_alu.h"

/* The kinds this file adds (struct pair_meta's kind), above every kind of
 * cpu/pair_half.h. */
enum { PK64_LD = 200, PK64_ST, PK64_LDZX16, PK64_LDZX8, PK64_MOVSXD };

struct decoder;

/* Describe the instruction d has just decoded when it is one of the kinds
 * above in a 64-bit guest (false: leave it to pair_describe()). */
bool pair64_describe(const struct decoder *d, struct pair_meta *p);

/* The handler of the pair a, b, NULL when it has none. */
cpu_handler mem64_pair_handler(const struct pair_meta *a, const struct pair_meta *b);

#endif
