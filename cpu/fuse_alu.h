/* Fused register sequences: two consecutive integer instructions that work
 * on registers only (MOV, LEA, NOT, ADD/SUB/AND/OR/XOR with a register or
 * an immediate source, ROL/ROR/SHL/SHR/SAR by an immediate), both 32-bit
 * or both 64-bit, run as one handler (cpu/ops_fused_alu.c): one dispatch
 * instead of two, which in a chain of dependent register operations (a
 * hash's rounds) is the larger part of the cost.
 *
 * Each half does exactly what its own handler does (result, then the lazy
 * flags record unless the dead-flag pass proved it dead), so the pair
 * leaves the same state as the two instructions; none of them can fault,
 * so no state between the two is ever observable.  The second op stays in
 * the block (a jump to it starts a block of its own).  Pairs are formed
 * after the compare-and-branch pairs of cpu/fuse.h, from the instructions
 * those left alone, and never when hooks are on or when single-stepping.
 *
 * The same pass pairs a register operation with a MOV load or store next
 * to it, or two such MOVs, and a few other pairs that profiles show hot
 * (cpu/ops_fused_mem.c): there the memory half
 * may fault, and the pair keeps the fault precise as two handlers would:
 * c->cur points at the MOV before its access, and nothing of the second
 * instruction is done before its access succeeded. */
#ifndef CPU_FUSE_ALU_H
#define CPU_FUSE_ALU_H

#include "cpu/cpu.h"

/* What an instruction can be in a register pair, or in a pair with a
 * memory half (cpu/ops_fused_mem.c). */
struct pair_meta {
    uint8_t kind;       /* enum in cpu/pair_half.h; PK_NONE (0): not pairable */
    bool w64;           /* 64-bit, else 32-bit */
    uint8_t am;         /* a memory kind's address form (cpu/mem.h) */
    cpu_handler fn;     /* its handler as decoded (a later pass may replace it) */
};

struct decoder;
struct op_meta;

/* Describe the instruction d has just decoded. */
void pair_describe(const struct decoder *d, struct pair_meta *p);

/* Give the pairs of a decoded block of n ops their fused handlers (after
 * fuse_block(), whose pairs are left as they are); returns how many. */
unsigned pair_block(struct op *ops, const struct op_meta *meta, unsigned n);

/* p is MOV [m], r32 with its memory operand in form am (the store that
 * cpu/ops_fused.c runs between a compare and its Jcc). */
bool pair_is_store32(const struct pair_meta *p, unsigned am);

/* The handler of the pair a, b that is no register pair of one width
 * (cpu/ops_fused_mem.c: a memory half, or two widths), NULL when that pair
 * has none; dead: both halves' flags are dead (the handler without the
 * flags records, where there is one). */
cpu_handler mem_pair_handler(const struct pair_meta *a, const struct pair_meta *b, bool dead);

#endif
