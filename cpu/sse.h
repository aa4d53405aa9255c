/* Shared by the SSE families: XMM/MMX operand decoding, alignment checks,
 * and running host SSE arithmetic under the guest's MXCSR.
 *
 * Floating-point SSE instructions are executed with the host's own SSE
 * instructions while the guest's MXCSR (rounding, DAZ, FTZ) is loaded into
 * the host's: the result, the denormal handling and the exception flags
 * are then those of real hardware bit for bit, which is what the tests
 * compare against.  All exceptions stay masked on the host; when the guest
 * has unmasked one that occurred, the instruction is abandoned before
 * anything is committed and the guest gets SIGFPE, as #XM would give it. */
#ifndef CPU_SSE_H
#define CPU_SSE_H

#include <signal.h>

#include "cpu/decode.h"
#include "cpu/mem.h"
#include "cpu/x87_host.h"

#define MXCSR_FLAGS 0x3fu    /* IE DE ZE OE UE PE */
#define MXCSR_MASKS 0x1f80u  /* IM DM ZM OM UM PM */

/* The guest's MXCSR as the guest reads it (STMXCSR, FXSAVE, XSAVE, frames). */
static inline uint32_t cpu_mxcsr_value(const struct cpu *c)
{
    uint32_t v;
    if (!c->mxcsr_live)
        return c->mxcsr;
    __asm__ volatile("stmxcsr %0" : "=m"(v));
    return c->mxcsr | (v & 0x3fu);
}

/* Load the guest's MXCSR (all exceptions masked, flags cleared) into the
 * host; returns the host's own MXCSR for sse_leave(). */
static inline uint32_t sse_enter(const struct cpu *c)
{
    uint32_t host = __builtin_ia32_stmxcsr();
    __builtin_ia32_ldmxcsr((c->mxcsr & ~MXCSR_FLAGS) | MXCSR_MASKS);
    return host;
}

/* The exception flags the operation raised; restores the host's MXCSR. */
static inline uint32_t sse_leave(uint32_t host)
{
    uint32_t flags = __builtin_ia32_stmxcsr() & MXCSR_FLAGS;
    __builtin_ia32_ldmxcsr(host);
    return flags;
}

/* The fast variant, for instructions whose raised flags are committed as
 * they are (no flag is suppressed afterwards): while the guest keeps every
 * exception masked, its MXCSR simply stays loaded in the host between
 * instructions and the flags accumulate there -- one STMXCSR per
 * instruction instead of an LDMXCSR pair.  Whenever the host's MXCSR is not
 * exactly the guest's (another path ran, the guest loaded a new one), it is
 * loaded again.  Guests that unmask an exception take sse_enter().  The
 * emulator's own code then runs under the guest's rounding mode, with every
 * exception masked; it does no floating point that this could change. */
#define SSE_FAST 0xffffffffu

/* MXCSR accesses as volatile asm: the compiler must neither merge two reads
 * around the guest instruction nor move them across it. */
static inline uint32_t host_stmxcsr(void)
{
    uint32_t v;
    __asm__ volatile("stmxcsr %0" : "=m"(v));
    return v;
}

static inline void host_ldmxcsr(uint32_t v)
{
    __asm__ volatile("ldmxcsr %0" : : "m"(v));
}

static inline uint32_t sse_enter_fast(struct cpu *c)
{
    if ((c->mxcsr & MXCSR_MASKS) != MXCSR_MASKS)
        return sse_enter(c);
    if (!c->mxcsr_live) {
        host_ldmxcsr(c->mxcsr);
        c->mxcsr_live = true;
    }
    return SSE_FAST;
}

/* In the fast mode the raised flags stay in the host's MXCSR, where
 * cpu_mxcsr() finds them; nothing to fold in now. */
static inline uint32_t sse_leave_fast(uint32_t host)
{
    return host != SSE_FAST ? sse_leave(host) : 0;
}

/* Run STMT, the volatile asm statement of the guest's instruction, under
 * the guest's MXCSR: when the host's MXCSR already is the guest's (which
 * implies every exception masked) there is nothing else to do; else
 * sse_enter_fast() and sse_leave_fast() around it, then CHECK (code that
 * may add to `raised`, the flags it raised) and sse_commit_flags(). */
#define SSE_EXEC(c, STMT, CHECK)                                                        \
    do {                                                                                \
        if (LIKELY((c)->mxcsr_live)) {                                                  \
            STMT;                                                                       \
        } else {                                                                        \
            uint32_t host_ = sse_enter_fast(c);                                         \
            STMT;                                                                       \
            uint32_t raised = sse_leave_fast(host_);                                    \
            CHECK;                                                                      \
            sse_commit_flags(c, raised);                                                \
        }                                                                               \
    } while (0)

/* Fold raised flags into the guest's MXCSR, or fault when one is unmasked
 * (SIGFPE with the si_code of the highest-priority exception). Call before
 * committing the result. */
static inline void sse_commit_flags(struct cpu *c, uint32_t raised)
{
    uint32_t unmasked = raised & ~(c->mxcsr >> 7) & MXCSR_FLAGS;
    if (UNLIKELY(unmasked)) {
        /* The si_code as Linux's fpu__exception_code() derives it: from all
         * pending unmasked flags, denormal reported as underflow. */
        c->mxcsr |= raised;
        uint32_t err = c->mxcsr & ~(c->mxcsr >> 7) & MXCSR_FLAGS;
        int code = (err & 0x01) ? 7 /* FPE_FLTINV */ : (err & 0x04) ? 3 /* FPE_FLTDIV */
                 : (err & 0x08) ? 4 /* FPE_FLTOVF */ : (err & 0x12) ? 5 /* FPE_FLTUND */
                 : 6 /* FPE_FLTRES */;
        cpu_fault(c, SIGFPE, code, cpu_rip(c));
    }
    c->mxcsr |= raised;
}

/* Legacy-SSE 16-byte memory operands must be aligned: #GP -> SIGSEGV. */
static inline void sse_check_align16(struct cpu *c, uint64_t a)
{
    if (UNLIKELY(a & 15))
        cpu_fault(c, SIGSEGV, 0x80 /* SI_KERNEL */, 0);
}

/* The host address of op's 16-byte memory operand in form am (cpu/mem.h:
 * handlers exist per form), after legacy SSE's alignment check (#GP, before
 * any page fault) when aligned. */
static inline __attribute__((always_inline)) void *xmm_mem(struct cpu *c, const struct op *op,
                                                           unsigned am, bool aligned)
{
    uint64_t a = am_ea(c, op, am);
    if (aligned)
        sse_check_align16(c, a);
    return am_host(c, a, am);
}

/* The table row of a handler family by form: { prefix##any, prefix##b64, ... }. */
#define AM_HANDLER(AM, sfx, prefix) prefix##sfx,

/* 16-byte loads (xmm x1 <- m128) and stores (m128 <- xmm x2), aligned or
 * not, by enum addr_mode (cpu/ops_sse_int.c): MOVDQA/MOVDQU, MOVAPS/MOVUPS
 * and their twins. */
extern const cpu_handler sse_load128a_h[AM_COUNT], sse_load128u_h[AM_COUNT];
extern const cpu_handler sse_store128a_h[AM_COUNT], sse_store128u_h[AM_COUNT];

/* What the scalar-double fusion (cpu/ops_sse_fp_arith.c) recognises: the
 * register forms of the zero idioms PXOR x,x and XORPS/XORPD x,x, and
 * CVTSI2SD xmm, r32 / r64. */
extern const cpu_handler sse_pxor_rr, sse_xor_x, sse_cvtsi2sd_r[2];

/* Link the SSE integer instructions of a block's n ops that read the XMM
 * register the op before them wrote into chains that pass the value on in
 * a host register (cpu/ops_sse_int.c; called by sse_fuse_pairs, after the
 * scalar-double fusion). */
void sse_int_chains(struct op *ops, unsigned n);

/* The MMX register i: the 64-bit mantissa of x87 physical register i
 * (in struct cpu: a live x87 state is released first, cpu/x87_host.h). */
static inline uint64_t *mmx_reg(struct cpu *c, unsigned i)
{
    cpu_x87_release(c);
    return (uint64_t *)&c->fpr[i & 7];
}

/* Every MMX instruction first delivers a pending x87 exception (#MF: SDM
 * vol. 2, "Exceptions" of each MMX instruction): one whose flag is set in
 * the status word and unmasked in the control word.  The host does exactly
 * that; it does not look at FSW.ES.  (cpu/ops_mmx.c raises it.) */
__attribute__((noreturn, cold)) void mmx_fault_pending(struct cpu *c, unsigned err);
static inline void mmx_check_pending(struct cpu *c)
{
    cpu_x87_release(c);
    unsigned err = c->fsw & ~c->fcw & 0x3fu;
    if (UNLIKELY(err))
        mmx_fault_pending(c, err);
}

/* Any MMX instruction: TOP = 0 and every x87 register valid (SDM vol. 1,
 * 9.5.1).  (EMMS also sets TOP to 0, then marks every register empty.) */
static inline void mmx_enter(struct cpu *c)
{
    cpu_x87_release(c);
    c->ftop = 0;
    c->ftag = 0;
}

/* After writing MMX register i: its exponent and sign read as all ones. */
static inline void mmx_written(struct cpu *c, unsigned i)
{
    ((uint16_t *)&c->fpr[i & 7])[4] = 0xffff;
}

/* MMX register number of operand i (ZYDIS_REGISTER_MM0..7), or -1. */
static inline int dec_mmx_reg(const struct decoder *d, unsigned i)
{
    if (!is_reg(d, i))
        return -1;
    ZydisRegister r = d->ops[i].reg.value;
    return (r >= ZYDIS_REGISTER_MM0 && r <= ZYDIS_REGISTER_MM7) ? (int)(r - ZYDIS_REGISTER_MM0) : -1;
}

#endif
