/* The guest's x87 state lives in the host's x87 while it can.
 *
 * Guest x87 instructions compute on the host's x87 (cpu/x87.h).  Run one
 * at a time on copies, every instruction would load its operands (FLD
 * m80), the guest's control word, run, read the status word and store
 * the results back (FSTP m80): microcoded instructions that cost far more
 * than the arithmetic.  So while the guest keeps every exception masked
 * (the normal case: Linux starts processes with FCW 0x37f), the guest's
 * whole x87 state is "live" in the thread's host x87: registers, TOP,
 * tags, status word (condition codes, sticky flags) and control word are
 * the host's own, and each guest x87 instruction is simply executed by
 * the host (cpu/ops_x87_live.c), its memory operand at the guest's
 * address in the guest space.  The results, flags, stack faults and
 * condition codes are the hardware's by construction.  With every
 * exception masked no instruction can leave one pending, so nothing about
 * #MF changes; a guest that unmasks one runs the exact handlers on the
 * state in struct cpu (x87_live() says no).
 *
 * While live, c->fpr, ftop, ftag, fsw and fcw are stale: everything that
 * reads or writes them first calls cpu_x87_release(), which stores the
 * host's state into them (FNSAVE) and gives the host its own empty x87
 * back; the next x87 instruction goes live again (FRSTOR).  Release
 * points: the x87 instructions that are not run on the host (FNSTENV,
 * FLDENV, FNSAVE, FRSTOR, FXSAVE/FXRSTOR, XSAVE and XRSTOR, an FLDCW that
 * unmasks an exception), MMX instructions (cpu/sse.h), system calls,
 * signal delivery, hooks, and cpu_run()/cpu_step() before they return.
 * FIP/FDP/FOP are not modelled (cpu/ops_x87_state.c): the host's, which
 * point into the emulator, are dropped.
 *
 * Faults: a host SIGSEGV/SIGBUS in the guest space (mm/fault.c) puts the
 * interrupted FPU state back before it longjmps, so a fault, even one of a
 * live x87 instruction's own memory operand (which the CPU reports before
 * the instruction changes anything), leaves the guest's x87 as it was.
 *
 * Threads: host threads are guest threads, so each CPU's host x87 is its
 * own thread's.  A new guest thread starts released (cpu_clone).  The
 * emulator's own code between guest instructions does no x87 arithmetic
 * and keeps no x87 value across them (long double values are only copied
 * with integer moves), so neither the guest's stack nor its flags,
 * precision or rounding touch it. */
#ifndef CPU_X87_HOST_H
#define CPU_X87_HOST_H

#include "cpu/cpu.h"

#define X87_MASKS 0x003fu /* FCW exception masks = FSW exception flags */

/* Load the guest's state into the host x87 (false when the guest has an
 * exception unmasked: it stays in struct cpu); store it back and give the
 * host its own control word and an empty stack (cpu/ops_x87.c). */
bool x87_go_live(struct cpu *c);
void x87_leave_live(struct cpu *c);

/* True when the guest's x87 state is (now) live in the host's x87. */
static inline bool x87_live(struct cpu *c)
{
    if (LIKELY(c->x87_live))
        return true;
    return x87_go_live(c);
}

/* Make struct cpu's x87 state current, the host's x87 its own. */
static inline void cpu_x87_release(struct cpu *c)
{
    if (UNLIKELY(c->x87_live))
        x87_leave_live(c);
}

#endif
