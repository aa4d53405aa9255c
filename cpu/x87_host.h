/* The host's x87 between guest x87 instructions.
 *
 * Guest x87 arithmetic runs on the host's x87 (cpu/x87.h).  Run exactly,
 * every instruction would load the guest's control word, clear the host's
 * exception flags before and after, and restore the host's control word:
 * FLDCW and FNCLEX are slow, microcoded instructions that cost far more
 * than the arithmetic.  So while the guest keeps every exception masked
 * (the normal case: Linux starts processes with FCW 0x37f), the thread's
 * host x87 is "live": it keeps the guest's control word between
 * instructions, and its exception flags simply accumulate.  The flags
 * each instruction's kernel reads back (FNSTSW) are OR-ed into c->fsw, so
 * c->fsw stays exact and the host's flags are always a subset of it;
 * everything that lowers a guest flag or changes the control word (FNCLEX,
 * FLDCW, FLDENV, FRSTOR, FNSAVE, FNINIT, FNSTENV, FXRSTOR/XRSTOR, signal
 * frames) first releases the host (cpu_x87_release), and the next x87
 * instruction goes live again.  With every exception masked no
 * instruction can leave one pending, so nothing about #MF changes; a guest
 * that unmasks one runs the exact path (x87_live() says no).
 *
 * Threads: host threads are guest threads, so each CPU's host x87 is its
 * own thread's.  A new guest thread starts released (cpu_clone).  A host
 * signal handler that longjmps out (a guest fault, mm/fault.c) leaves the
 * kernel's fresh FPU state behind: run_guarded() marks the CPU released.
 * The emulator's own code, between guest instructions, does no x87
 * arithmetic (long double values are only copied), so neither the guest's
 * precision and rounding nor the accumulating flags touch it; cpu_run() and
 * cpu_step() release before they return to their caller. */
#ifndef CPU_X87_HOST_H
#define CPU_X87_HOST_H

#include "cpu/cpu.h"

#define X87_MASKS 0x003fu /* FCW exception masks = FSW exception flags */

/* True when the host is (now) live for c: the guest's control word is
 * loaded and its exceptions are all masked. */
static inline bool x87_live(struct cpu *c)
{
    if (LIKELY(c->x87_live))
        return true;
    if ((c->fcw & X87_MASKS) != X87_MASKS)
        return false;
    __asm__ volatile("fnstcw %0\n\tfnclex\n\tfldcw %1" : "=m"(c->x87_host_cw) : "m"(c->fcw));
    c->x87_live = true;
    return true;
}

/* Give the host its own control word back, its exception flags cleared
 * (they are all in c->fsw already). */
static inline void cpu_x87_release(struct cpu *c)
{
    if (c->x87_live) {
        __asm__ volatile("fnclex\n\tfldcw %0" : : "m"(c->x87_host_cw));
        c->x87_live = false;
    }
}

/* The host state was replaced behind our back (a signal handler's fresh
 * FPU state): its flags are clear, its control word is the host's. */
static inline void cpu_x87_lost(struct cpu *c)
{
    c->x87_live = false;
}

#endif
