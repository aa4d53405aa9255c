/* Shared by the files of the SSE/SSE2 floating-point family:
 * ops_sse_fp.c (moves, logic, shuffles, MXCSR, the family decoder),
 * ops_sse_fp_arith.c (arithmetic and compares) and ops_sse_fp_cvt.c
 * (conversions).
 *
 * Operands: op->x1 is the destination XMM (or MMX) register, op->x2 the
 * source register of the register form (of a store: the XMM register
 * stored), op->x3 an immediate (shuffle control); memory forms use the
 * op's memory operand.  r1/r2 hold
 * general registers where there are any.
 *
 * Arithmetic runs the host's own SSE instruction on the guest's values
 * with the guest's MXCSR loaded (cpu/sse.h): the instruction is written as
 * a volatile asm statement, so the compiler can neither move it out of the
 * sse_enter()/sse_leave() window (volatile asm and the LDMXCSR/STMXCSR
 * builtins are all volatile and keep their order) nor fold it, nor pick a
 * different instruction for it. */
#ifndef CPU_SSE_FP_H
#define CPU_SSE_FP_H

#include <emmintrin.h>

#include "cpu/sse.h"

/* The guest's XMM register i as a host vector (__m128 may alias anything). */
#define XMM(c, i) (*(__m128 *)&(c)->xmm[i])

/* Operations that can deliver a tiny result, and where it lies: with the
 * underflow exception unmasked the processor signals underflow for every
 * tiny result, exact or not (and ignores FTZ), while the masked host run
 * flags only inexact ones (SDM vol. 1, 4.9.1.5 "Numeric Underflow
 * Exception"; checked on the host); see sse_exact_tiny(). */
enum sse_tiny {
    SSE_TINY_NONE, /* cannot be tiny (or no FP result at all) */
    SSE_TINY_PS,   /* four floats */
    SSE_TINY_SS,   /* the low float */
    SSE_TINY_PS2,  /* the low two floats (CVTPD2PS) */
    SSE_TINY_PD,   /* two doubles */
    SSE_TINY_SD,   /* the low double */
};
#define MXCSR_UM 0x800u
#define MXCSR_UE 0x10u

/* UE when the guest unmasked underflow and the result r holds a denormal
 * (an exact tiny result: inexact ones already raised UE; with FTZ a tiny
 * result is flushed and raised UE|PE), unless the instruction faults for
 * another reason anyway.  Cold: only guests that unmask UM get here. */
uint32_t sse_exact_tiny(const struct cpu *c, __m128 r, enum sse_tiny kind, uint32_t raised);

/* `insn src, dst` (AT&T order) on the host under the guest's MXCSR; d is
 * read and written, s read.  Faults (SIGFPE) before anything is committed
 * when the guest has unmasked an exception that occurred. */
#define SSE_RUN_STMT(c, STMT, d, tiny)                                                  \
    SSE_EXEC(c, STMT,                                                                   \
             if ((tiny) != SSE_TINY_NONE && UNLIKELY(!((c)->mxcsr & MXCSR_UM)))         \
                 raised |= sse_exact_tiny(c, d, tiny, raised))
#define SSE_RUN_T(c, insn, d, s, tiny)                                                  \
    SSE_RUN_STMT(c, __asm__ volatile(insn " %1, %0" : "+x"(d) : "x"(s)), d, tiny)
#define SSE_RUN(c, insn, d, s) SSE_RUN_T(c, insn, d, s, SSE_TINY_NONE)

/* Memory sources.  Legacy SSE 16-byte operands must be aligned (the
 * alignment #GP comes before any page fault); 8- and 4-byte operands
 * never need to be, and they land in the low bits of a zeroed vector. */
static inline __m128 sse_src_m128a(struct cpu *c, const struct op *op)
{
    uint64_t a = op_ea(c, op);
    sse_check_align16(c, a);
    __m128 v;
    load128(c, a, &v);
    return v;
}

static inline __m128 sse_src_m128u(struct cpu *c, const struct op *op)
{
    __m128 v;
    load128(c, op_ea(c, op), &v);
    return v;
}

static inline __m128 sse_src_m64(struct cpu *c, const struct op *op)
{
    return _mm_castsi128_ps(_mm_cvtsi64_si128((long long)load64(c, op_ea(c, op))));
}

static inline __m128 sse_src_m32(struct cpu *c, const struct op *op)
{
    return _mm_castsi128_ps(_mm_cvtsi32_si128((int)load32(c, op_ea(c, op))));
}

/* Source selectors for the handler generators: P = packed, aligned m128;
 * U = unaligned m128; Q = m64; S = m32. */
#define SSE_SRC_P(c, op) sse_src_m128a(c, op)
#define SSE_SRC_U(c, op) sse_src_m128u(c, op)
#define SSE_SRC_Q(c, op) sse_src_m64(c, op)
#define SSE_SRC_S(c, op) sse_src_m32(c, op)

/* The instruction of an xmm, xmm/mem handler run on the host: d is read
 * and written, s read. */
typedef void (*sse_kernel)(__m128 *d, __m128 s);

/* The rest of an xmm, xmm/mem handler when the host's MXCSR is not (yet)
 * the guest's: kernel k on XMM x1 and s under the guest's MXCSR, its flags
 * committed or its unmasked exception raised, then the next op
 * (cpu/ops_sse_fp.c). */
void sse_run_slow(struct cpu *c, const struct op *op, sse_kernel k, __m128 s, enum sse_tiny tiny);

/* Handlers op_<insn>_x (xmm, xmm) and op_<insn>_m (xmm, mem) for an
 * instruction whose destination is an XMM register both read and written
 * by the host instruction of the same name (arithmetic, and conversions
 * that keep or overwrite the rest of the destination as the host does);
 * tiny: an enum sse_tiny.  The common case, the guest's MXCSR live in the
 * host's with every exception masked (cpu/sse.h), runs the instruction
 * inline and nothing else; the rest is out of line. */
#define SSE_GEN_XM(insn, M, tiny) SSE_GEN_XM_AS(insn, #insn, M, tiny)
/* The same for a handler named op_<name>_x/_m running the host text asm
 * (e.g. "cmpps $3," for a compare predicate). */
#define SSE_GEN_XM_AS(name, asm_text, M, tiny)                                          \
    static void k_##name(__m128 *d, __m128 s)                                           \
    {                                                                                   \
        __asm__ volatile(asm_text " %1, %0" : "+x"(*d) : "x"(s));                       \
    }                                                                                   \
    static inline __attribute__((always_inline)) void run_##name(struct cpu *c,         \
                                                                 const struct op *op,   \
                                                                 __m128 s)              \
    {                                                                                   \
        if (UNLIKELY(!c->mxcsr_live)) {                                                 \
            sse_run_slow(c, op, k_##name, s, tiny);                                     \
            return;                                                                     \
        }                                                                               \
        __m128 d = XMM(c, op->x1);                                                      \
        k_##name(&d, s);                                                                \
        XMM(c, op->x1) = d;                                                             \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_##name##_x(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        run_##name(c, op, XMM(c, op->x2));                                              \
    }                                                                                   \
    static void op_##name##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        run_##name(c, op, SSE_SRC_##M(c, op));                                          \
    }

/* Decode "xmm, xmm/mem": the register form gets rr, the memory form rm.
 * False when operand 0 is not an XMM register (string MOVSD/CMPSD share
 * the mnemonic) or the memory operand cannot be expressed. */
bool sse_dec_xm(struct decoder *d, cpu_handler rr, cpu_handler rm);

/* The family's sub-decoders (dec_sse_fp tries them in turn). */
bool dec_sse_fp_arith(struct decoder *d);
bool dec_sse_fp_cvt(struct decoder *d);

#endif
