/* Shared by the x87 family files (cpu/ops_x87*.c): the stack model, the
 * status word, and running x87 instructions on the host.
 *
 * While the guest keeps every exception masked, its x87 state lives in the
 * host's x87 and each instruction is executed there as it is
 * (cpu/x87_host.h, cpu/ops_x87_live.c).  Everything in this file is for
 * the rest: the exact handlers, which work on the state in struct cpu and
 * run when the guest has an exception unmasked.
 *
 * State (struct cpu): fpr[8] are the PHYSICAL registers R0..R7 as 80-bit
 * values, ftop is TOP, ftag has bit i set when Ri is empty, fsw is the
 * status word without TOP, fcw the control word.  ST(i) = R[(TOP + i) & 7].
 *
 * Arithmetic is exact because the host does it: a kernel loads the operands
 * into an empty host stack with fldt (bit-transparent for every 80-bit
 * encoding), loads the guest's control word (precision, rounding, masks),
 * executes the very instruction the guest executes (same opcode, with ST(1)
 * for the guest's ST(i)), and reads back the host stack and status word.
 * The host's response to an exception -- masked default result or, for an
 * unmasked one, a register left unchanged, a scaled overflow result, no
 * pop, no store -- is therefore the hardware's.  The kernel clears the
 * host's exception flags before any further waiting instruction (so the
 * host never takes #MF), restores the host's control word, and empties
 * the host stack whatever the instruction left on it.
 *
 * What the host cannot see is the guest's stack: TOP, tags, and stack
 * overflow/underflow (SDM vol. 1, 8.5.1.1) are handled here in C.
 *
 * Exceptions are delayed as on the hardware: an unmasked exception only
 * sets its flag and ES/B; the next waiting x87 instruction (any x87
 * instruction but the FN- control ones, FWAIT included) raises SIGFPE
 * before it executes (x87_wait()). */
#ifndef CPU_X87_H
#define CPU_X87_H

#include <signal.h>
#include <string.h>

#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"
#include "cpu/x87_host.h"

/* Status word bits (SDM vol. 1, 8.1.3). */
#define FSW_IE 0x0001u
#define FSW_DE 0x0002u
#define FSW_ZE 0x0004u
#define FSW_OE 0x0008u
#define FSW_UE 0x0010u
#define FSW_PE 0x0020u
#define FSW_SF 0x0040u
#define FSW_ES 0x0080u
#define FSW_C0 0x0100u
#define FSW_C1 0x0200u
#define FSW_C2 0x0400u
#define FSW_TOP 0x3800u
#define FSW_C3 0x4000u
#define FSW_B 0x8000u
#define FSW_EXC 0x003fu
#define FSW_CC (FSW_C0 | FSW_C1 | FSW_C2 | FSW_C3)

/* Control word: bits 6 reads as 1, 7 and 13-15 as 0 (seen on the host). */
#define FCW_WRITABLE 0x1f3fu
#define FCW_FIXED 0x0040u
#define FCW_INIT 0x037fu

/* ------------------------------------------------------------ stack */
static inline unsigned x87_phys(const struct cpu *c, unsigned i) { return (c->ftop + i) & 7u; }
static inline bool x87_empty_phys(const struct cpu *c, unsigned p) { return (c->ftag >> p) & 1u; }
static inline bool x87_empty(const struct cpu *c, unsigned i) { return x87_empty_phys(c, x87_phys(c, i)); }

/* Copy an 80-bit value (the whole long double slot: no x87 load involved). */
static inline void f80_copy(long double *dst, const void *src) { memcpy(dst, src, sizeof(long double)); }

/* The QNaN floating-point indefinite (SDM vol. 1, 4.8.3.7). */
static inline void f80_indefinite(long double *dst)
{
    static const uint8_t ind[16] = { 0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0xff };
    memcpy(dst, ind, sizeof(long double));
}

static inline void x87_push(struct cpu *c, const void *v)
{
    c->ftop = (c->ftop - 1) & 7u;
    c->ftag &= (uint8_t)~(1u << c->ftop);
    f80_copy(&c->fpr[c->ftop], v);
}

static inline void x87_pop(struct cpu *c)
{
    c->ftag |= (uint8_t)(1u << c->ftop);
    c->ftop = (c->ftop + 1) & 7u;
}

/* ------------------------------------------------------------ status word */
/* Store a new status word (without TOP): ES and B are the summary of the
 * unmasked exception flags, recomputed whenever flags or masks change (as
 * the host does on FLDCW, FLDENV and FXRSTOR). */
static inline void x87_set_fsw(struct cpu *c, unsigned f)
{
    f &= FSW_EXC | FSW_SF | FSW_CC;
    if (f & ~c->fcw & FSW_EXC)
        f |= FSW_ES | FSW_B;
    c->fsw = (uint16_t)f;
}

/* Fold a host status word in: its exception flags (sticky) and the
 * condition code bits in ccmask (the ones the instruction writes: the
 * host leaves the ones the SDM calls undefined unchanged, and so do we). */
static inline void x87_flags(struct cpu *c, unsigned hsw, unsigned ccmask)
{
    x87_set_fsw(c, (c->fsw & ~ccmask) | (hsw & (ccmask | FSW_EXC)));
}

/* Stack overflow (push onto a full register) or underflow (an empty
 * operand): invalid operation with SF, C1 = 1 for overflow, 0 for underflow
 * (SDM vol. 1, 8.5.1.1).  Returns true when IE is masked, i.e. when the
 * instruction goes on with its default response. */
static inline bool x87_stack_fault(struct cpu *c, bool overflow)
{
    x87_set_fsw(c, (c->fsw & ~FSW_C1) | FSW_IE | FSW_SF | (overflow ? FSW_C1 : 0));
    return c->fcw & FSW_IE;
}

/* The full status word, TOP included (FNSTSW, FNSTENV, images). */
static inline uint16_t x87_fsw(const struct cpu *c)
{
    return (uint16_t)((c->fsw & ~FSW_TOP) | ((unsigned)(c->ftop & 7) << 11));
}

/* The two-bit tag of physical register p as FNSTENV/FNSAVE report it:
 * 0 valid, 1 zero, 2 special (NaN, infinity, denormal, unsupported), 3
 * empty (SDM vol. 1, 8.1.7). */
static inline unsigned x87_tag2(const struct cpu *c, unsigned p)
{
    if (x87_empty_phys(c, p))
        return 3;
    uint64_t mant;
    uint16_t se;
    memcpy(&mant, &c->fpr[p], 8);
    memcpy(&se, (const uint8_t *)&c->fpr[p] + 8, 2);
    unsigned exp = se & 0x7fff;
    if (exp == 0x7fff)
        return 2;
    if (exp == 0)
        return mant ? 2 : 1;
    return (mant >> 63) ? 0 : 2; /* unnormal: J bit clear */
}

/* ------------------------------------------------------------ #MF */
/* SIGFPE for a pending unmasked exception (cpu/ops_x87.c). */
__attribute__((noreturn, cold)) void x87_raise_pending(struct cpu *c);

/* What every waiting x87 instruction does first (SDM vol. 1, 8.3.12: FWAIT
 * and the x87 instructions without the FN prefix check for pending
 * unmasked exceptions before they execute). */
static inline void x87_wait(struct cpu *c)
{
    if (UNLIKELY(c->fsw & ~c->fcw & FSW_EXC))
        x87_raise_pending(c);
}

/* ------------------------------------------------------------ host kernels */
struct x87_io {
    long double a, b;     /* inputs: host ST(0) = a, ST(1) = b, when loaded */
    long double r[2];     /* outputs: what is on the host stack afterwards, top first */
    union {
        uint16_t w;
        uint32_t d;
        uint64_t q;
        uint8_t t[10];
    } m;                  /* memory operand of the instruction */
    uint16_t cw;          /* the control word to run under (the guest's) */
    uint16_t save;        /* the host's own control word */
    uint16_t sw0, sw;     /* host status word before and after the instruction */
    uint8_t zf, pf, cf;   /* EFLAGS after FCOMI and friends */
};

/* The fields of struct x87_io are addressed from one base register (%[p])
 * plus constant offsets, so that the kernel needs few registers even in an
 * unoptimised build; only the instruction's own memory operand is %[m]. */
#define X87_F(field) "%c[o_" #field "](%[p])"
#define X87_LOAD0 ""
#define X87_LOAD1 "fldt " X87_F(a) "\n\t"
#define X87_LOAD2 "fldt " X87_F(b) "\n\tfldt " X87_F(a) "\n\t"

/* TOP unchanged since the start (its value is in dx)?  Then we are done. */
#define X87_IF_EMPTY_DONE "fnstsw %%ax\n\txor %%dx, %%ax\n\ttest $0x3800, %%ax\n\tjz 1f\n\t"
/* Store what is left on the host stack, whatever the instruction left. */
#define X87_UNLOAD_ANY                                                                  \
    X87_IF_EMPTY_DONE "fstpt " X87_F(r0) "\n\t" X87_IF_EMPTY_DONE                      \
                      "fstpt " X87_F(r1) "\n\t" X87_IF_EMPTY_DONE "fstp %%st(0)\n"      \
                      "1:"

/* The kernel `name`: load the inputs (LOADS: X87_LOAD0..2), run INSN (AT&T
 * text; %[m] is the memory operand) under io->cw with the host's flags
 * cleared before and after, collect the status word and the stack,
 * restore the host's control word. */
#define X87_KERNEL(name, LOADS, INSN)                                                   \
    static inline void name(struct x87_io *io)                                          \
    {                                                                                   \
        __asm__ volatile("fnstcw " X87_F(save) "\n\t"                                   \
                         "fnclex\n\t"                                                   \
                         "fnstsw %%ax\n\t"                                              \
                         "mov %%ax, %%dx\n\t"                                           \
                         "fldcw " X87_F(cw) "\n\t" LOADS                                \
                         "fnstsw " X87_F(sw0) "\n\t" INSN "\n\t"                        \
                         "fnstsw " X87_F(sw) "\n\t"                                     \
                         "fnclex\n\t"                                                   \
                         "fldcw " X87_F(save) "\n\t" X87_UNLOAD_ANY                     \
                         : [m] "+m"(io->m)                                              \
                         : [p] "r"(io), [o_a] "i"(offsetof(struct x87_io, a)),          \
                           [o_b] "i"(offsetof(struct x87_io, b)),                       \
                           [o_r0] "i"(offsetof(struct x87_io, r[0])),                   \
                           [o_r1] "i"(offsetof(struct x87_io, r[1])),                   \
                           [o_cw] "i"(offsetof(struct x87_io, cw)),                     \
                           [o_save] "i"(offsetof(struct x87_io, save)),                 \
                           [o_sw0] "i"(offsetof(struct x87_io, sw0)),                   \
                           [o_sw] "i"(offsetof(struct x87_io, sw)),                     \
                           [o_zf] "i"(offsetof(struct x87_io, zf)),                     \
                           [o_pf] "i"(offsetof(struct x87_io, pf)),                     \
                           [o_cf] "i"(offsetof(struct x87_io, cf))                      \
                         : "ax", "dx", "cc", "memory", "st", "st(1)", "st(2)", "st(3)",  \
                           "st(4)", "st(5)", "st(6)", "st(7)");                         \
    }

/* Run kernel k on inputs a and b (the guest registers; copied, so that the
 * kernel's fldt never reads a value a store has just half-written) under
 * the guest's control word. */
static inline __attribute__((always_inline)) void x87_run(struct cpu *c, struct x87_io *io,
                                                          void (*k)(struct x87_io *),
                                                          const long double *a,
                                                          const long double *b)
{
    f80_copy(&io->a, a);
    f80_copy(&io->b, b);
    io->cw = c->fcw;
    k(io);
}

/* The host instruction's effect on its stack: +1 pushed, -1/-2 popped. */
static inline int x87_host_delta(const struct x87_io *io)
{
    int d = (int)(((io->sw0 >> 11) - (io->sw >> 11)) & 7u);
    return d > 4 ? d - 8 : d;
}

/* ------------------------------------------------------------ decoding */
/* The family files' decoders, called by dec_x87 (cpu/ops_x87.c) with the
 * opcode byte D8..DF split into the ModRM fields. */
bool x87_dec_arith(struct decoder *d, unsigned opc, unsigned mod, unsigned reg, unsigned rm);
bool x87_dec_ldst(struct decoder *d, unsigned opc, unsigned mod, unsigned reg, unsigned rm);
bool x87_dec_state(struct decoder *d, unsigned opc, unsigned mod, unsigned reg, unsigned rm);
/* FXSAVE/FXRSTOR, XSAVE*, XRSTOR, XGETBV (cpu/ops_x87_xsave.c). */
bool x87_dec_xsave(struct decoder *d);
/* Give the decoded op its live handler, its exact one kept in op->imm
 * (cpu/ops_x87_live.c). */
void x87_dec_live(struct decoder *d);
/* The memory operand of the instruction, if it has one. */
bool x87_dec_mem(struct decoder *d);

#endif
