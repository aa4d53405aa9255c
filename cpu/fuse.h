/* Fused instruction pairs: a flag-setting ALU instruction (CMP, TEST, SUB,
 * ADD, AND, OR, INC, DEC on registers, an immediate or one memory operand)
 * followed by the instruction that reads its flags (Jcc, SETcc r8, CMOVcc
 * r,r) run as one op that takes the condition straight from the operands
 * (cpu/ops_fused.c).
 *
 * The decoder describes each instruction for the pass (fuse_describe); the
 * block builder then replaces the first op of every pair by the fused op
 * (fuse_block).  The second op stays where it is: the fused op reads its
 * length and branch target from it, and a jump to the second instruction
 * alone starts a block of its own there.  Nothing is fused when hooks are
 * on (they see every instruction) or when single-stepping.
 *
 * Exactness: the fused op does the first instruction's loads before it
 * changes anything (a fault leaves rip at the first instruction with
 * nothing written), then commits its result and the lazy flags record
 * exactly as the unfused instruction would, then does the second
 * instruction.  The lazy record is left out only when the block's
 * dead-flag analysis proves nothing reads it (OPF_NOFLAGS).
 *
 * The same pass gives the flag-setting instructions that are not in a pair
 * (SUB, ADD, AND, OR, XOR with a register destination, INC, DEC) a
 * flag-eliding handler when OPF_NOFLAGS says their flags are dead: result
 * only, the lazy record left as it was. */
#ifndef CPU_FUSE_H
#define CPU_FUSE_H

#include "cpu/cpu.h"

/* What an instruction can be in a pair. */
enum fuse_role { FUSE_NONE, FUSE_WRITER, FUSE_JCC, FUSE_SETCC, FUSE_CMOV };

struct fuse_meta {
    uint8_t role;       /* enum fuse_role */
    uint8_t kind;       /* writer: which operation (cpu/ops_fused.c) */
    uint8_t form;       /* writer: operand form */
    uint8_t w;          /* writer: width index 0..3 (8..64 bits) */
    uint8_t am;         /* writer: form of its memory operand (cpu/mem.h), AM_ANY if none */
    uint8_t cc;         /* reader: condition code */
    uint8_t reg, reg2;  /* reader: SETcc's or CMOVcc's destination, CMOVcc's source */
    uint8_t size;       /* reader: CMOVcc's operand size in bytes */
    struct op op;       /* writer: its operands (fn unset) */
};

struct decoder;
struct op_meta;

/* Describe the instruction d has just decoded (role FUSE_NONE when it
 * cannot be half of a pair). */
void fuse_describe(const struct decoder *d, struct fuse_meta *f);

/* Fuse the pairs of a decoded block of n instructions and give the lone
 * writers whose flags are dead their flag-eliding handlers, after the
 * dead-flag pass has set OPF_NOFLAGS; returns how many pairs it fused. */
unsigned fuse_block(struct op *ops, const struct op_meta *meta, unsigned n);

#endif
