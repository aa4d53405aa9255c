/* CPU state, the decoded op, and the interpreter's interface.
 *
 * Decode once, run many times: an instruction is decoded by Zydis once per
 * address into a struct op (32 bytes, checked below) whose handler was
 * chosen for its exact operand form and size; ops are grouped into blocks
 * (cpu/block.c) that end at control transfers.  Handlers never see Zydis.
 *
 * Register operands are stored in an op as byte offsets into struct cpu, so
 * AH..BH need no special case and a missing base or index register points
 * at the always-zero slot: an effective address is computed without
 * branches.  rip-relative operands use the rip slot (see "rip" below).
 *
 * Dispatch is threaded: every handler ends with NEXT(c, op), which records
 * the next op in c->cur and tail-calls its handler, so each handler has its
 * own indirect jump (far better predicted than one shared call site).  Only
 * the ops that end a block (OPF_BRANCH: control transfers, syscalls,
 * faults) set rip themselves and return to the dispatch loop, or (direct
 * branches and RET) go on into the next block themselves when it is known
 * and nothing needs the loop (block chaining, cpu/chain.h); a block that
 * is cut short ends with a sentinel op whose handler just returns.
 *
 * rip inside a block: the dispatch loop sets c->rip to the block's end (the
 * address after its last instruction) before it runs the block, and no op
 * that goes on with NEXT touches it.  So the op that ends the block finds
 * its own fall-through and return address in c->rip, rip-relative operands
 * are addressed from the block's end (the decoder folds the distance into
 * the displacement, cpu/block.c), and the address of the instruction
 * running is recovered only when something looks at it: cpu_rip() walks
 * from c->cur to the block's end.  Outside a block c->rip is exact, and
 * c->cur is &cpu_op_exact (no length: cpu_rip() is c->rip) wherever a
 * fault may happen (the dispatch loop resets it only on its slow paths:
 * the next block sets it anyway).  A handler
 * that needs its own address (a trap, a #DE's si_addr) calls cpu_rip();
 * one that returns to the dispatch loop before the end of its block sets
 * an exact rip with cpu_rip_set().  A handler that runs several ops as one
 * (fused pairs, PUSH/POP runs, chains) never adds lengths to rip: it goes
 * on with NEXT from the last op it did, and points c->cur at a later op of
 * its own before it reads that op's memory operand (a fault is then
 * there).  Hooked blocks and single steps run
 * each instruction with c->rip at its own end (cpu/hook.c, cpu/exec.c).
 *
 * Handler contract (what makes faults precise): read memory first, then
 * write memory, then commit registers and flags, then NEXT.  A fault (host
 * SIGSEGV in the guest space, or cpu_fault()) longjmps out of the handler
 * with no register changed; the fault path sets rip to the faulting
 * instruction from c->cur. */
#ifndef CPU_CPU_H
#define CPU_CPU_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/space.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

enum cpu_reg { R_AX, R_CX, R_DX, R_BX, R_SP, R_BP, R_SI, R_DI,
               R_8, R_9, R_10, R_11, R_12, R_13, R_14, R_15 };

/* Segment slots of seg_base[] (0 = no override: base 0). */
enum cpu_seg { SEG_NONE, SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS };

/* Why the run loop stopped. */
/* Why the dispatch loop stopped: CPU_STOPPED is a stop asked for by the
 * embedder (elfemu_stop), after which the run may go on. */
enum cpu_stop { CPU_RUNNING, CPU_EXITED, CPU_SIGNALED, CPU_STOPPED };

/* RFLAGS bits (SDM vol. 1, 3.4.3). */
#define FL_CF 0x0001u
#define FL_PF 0x0004u
#define FL_AF 0x0010u
#define FL_ZF 0x0040u
#define FL_SF 0x0080u
#define FL_TF 0x0100u
#define FL_IF 0x0200u
#define FL_DF 0x0400u
#define FL_OF 0x0800u
#define FL_AC 0x40000u
#define FL_ID 0x200000u
#define FL_ARITH (FL_CF | FL_PF | FL_AF | FL_ZF | FL_SF | FL_OF)
#define RFLAGS_FIXED 0x2u /* bit 1 always reads as 1 */

/* One 128-bit XMM register. */
typedef union xmm {
    uint8_t b[16];
    uint16_t w[8];
    uint32_t d[4];
    uint64_t q[2];
    int8_t sb[16];
    int16_t sw[8];
    int32_t sd[4];
    int64_t sq[2];
    float f[4];
    double df[2];
} __attribute__((aligned(16))) xmm_t;

#define CPU_RAS_SIZE 32 /* a power of two */

struct cpu {
    /* Hot state first: ops address these by byte offset (< 256). */
    uint64_t r[16];
    uint64_t zero;          /* always 0: the "no register" of an address */
    uint64_t rip;           /* inside a block: the block's end (see above) */
    const struct op *cur;   /* the op running (stored by NEXT) */
    /* Lazy flags (cpu/flags.h): the last flag-setting operation. */
    uint64_t lf_res, lf_dst, lf_src, lf_aux;
    uint32_t lf_op;
    uint32_t pad0;
    uint64_t rflags;        /* DF, TF, AC, ID...; arithmetic flags when lf_op == LF_NONE */
    uint64_t seg_base[8];   /* indexed by enum cpu_seg */
    uint8_t *mem;           /* host address of guest 0 */
    uint64_t mem_limit;     /* 64-bit guests: an access at a > mem_limit faults */
    int bits;               /* 64 or 32 */
    enum cpu_stop stop;
    int stop_code;          /* exit status or signal number */
    bool log_unimplemented;
    bool cpuid_faults;      /* ARCH_SET_CPUID 0: CPUID raises #GP (SIGSEGV) */

    /* SSE */
    xmm_t xmm[16];
    uint32_t mxcsr;         /* control bits; flags (see mxcsr_live) */
    bool mxcsr_live;        /* the host's MXCSR holds the guest's, flags accumulating
                               there (cpu/sse.h sse_enter_fast); read with cpu_mxcsr() */

    /* x87: physical registers (80-bit values in long double), TOP, tags. */
    long double fpr[8];
    uint16_t fcw, fsw;      /* control word; status word without TOP */
    uint8_t ftop;           /* TOP, 0..7 */
    uint8_t ftag;           /* bit i set: physical register i is empty */
    uint16_t fop;           /* last opcode */
    bool x87_live;          /* the x87 state above lives in the host's x87 and the
                               fields are stale (cpu/x87_host.h) */
    uint16_t x87_host_cw;   /* the host's own control word while x87_live */
    uint64_t fip, fdp;      /* last instruction and data pointers */

    /* Segment selectors as the guest sees them (mov from sreg). */
    uint16_t sreg[8];
    /* ia32: the thread's three GDT TLS entries (set_thread_area), GDT
     * indexes CPU_TLS_FIRST.. ; a 32-bit guest loads one into %gs. */
    struct cpu_tls_desc {
        uint32_t base, limit;
        uint32_t flags;     /* struct user_desc's bit field word */
        bool present;
    } tls[3];

    struct mm_space *mm;
    struct cpu_cache *cache; /* decoded blocks (cpu/block.c) */
    sigjmp_buf *fault_jmp;  /* where cpu_fault() returns to */
    /* A pending synchronous fault, filled before the longjmp. */
    int fault_sig, fault_code;
    uint64_t fault_addr;
    bool fault_write;       /* a host page fault on a write */
    int64_t fault_err;      /* its page-fault error code; -1 for other faults */
    int fault_trap;         /* the exception vector a sigcontext shows when it is not
                               the signal's usual one (#BR, #OF), else -1 */
    uint64_t icount;        /* instructions retired (counted per block) */
    /* Work for this CPU's thread at its next block boundary (CPU_ATTN_*
     * bits), raised by any thread or a host signal handler; the dispatch
     * loop tests it once per block.  One word shared by every area that
     * needs such a stop. */
    volatile int attention;
    /* Block chaining (cpu/chain.h): the low 32 bits of the cache's epoch
     * (cpu/block.h), the block running (counted once it ends), and the
     * count at which a chain returns to the dispatch loop. */
    uint32_t chain_epoch;
    struct block *blk;
    uint64_t chain_limit;

    /* Guest signals (syscalls/signal.h). */
    uint64_t sig_blocked;   /* the guest's signal mask: bit n-1 is signal n */
    struct sig_thread *sigt;
    uint64_t sys_nr;        /* an interrupted syscall's number, for its restart */
    int sys_restart;        /* enum sig_restart of a syscall that returned -EINTR */

    /* Return-address prediction (cpu/ras.h): a ring of the return slots of
     * the CALLs in progress, and the slot the last RET popped. */
    unsigned ras_top;
    void *ret_hint;
    void *ras[CPU_RAS_SIZE];
};

/* The GDT indexes of the TLS entries Linux gives ia32 tasks (on an x86_64
 * kernel too): selectors 0x63, 0x6b, 0x73. */
#define CPU_TLS_FIRST 12
#define CPU_TLS_COUNT 3

/* Load a segment register of a 32-bit guest with a selector (MOV/POP to
 * sreg): the null selector or the flat user selectors give base 0, a TLS
 * selector the base set_thread_area gave it; false for any other selector
 * (the caller raises #GP). */
bool cpu_load_sreg(struct cpu *c, int slot, uint16_t sel);

/* c->attention bits. */
#define CPU_ATTN_CODE 0x1   /* decoded code was invalidated (cpu/block.c) */
#define CPU_ATTN_SIGNAL 0x2 /* a host signal was queued for the guest */
#define CPU_ATTN_STOP 0x4   /* the embedder asked the run to return (elfemu_stop) */

/* Raise attention bits of c, from any thread or a host signal handler.
 * A chain of blocks (cpu/chain.h) tests only its budget at each hop, so
 * the budget ends here too.  When this races with the dispatch loop
 * starting a chain, the chain's new budget may replace the 0: the chain
 * then returns to the loop, which sees the bits, within CHAIN_MAX_INSNS
 * instructions. */
static inline void cpu_attention_raise(struct cpu *c, int bits)
{
    __atomic_fetch_or(&c->attention, bits, __ATOMIC_SEQ_CST);
    __atomic_store_n(&c->chain_limit, 0, __ATOMIC_RELAXED);
}

/* Register slot offsets for ops. */
#define SLOT_GPR(i) ((uint8_t)((i) * 8))
#define SLOT_ZERO ((uint8_t)offsetof(struct cpu, zero))
#define SLOT_RIP ((uint8_t)offsetof(struct cpu, rip))
_Static_assert(offsetof(struct cpu, rip) < 256, "ops address registers with a byte offset");

struct op;
typedef void (*cpu_handler)(struct cpu *c, const struct op *op);

/* op->flags */
#define OPF_ADDR32 0x01  /* 32-bit address size: truncate the effective address */
#define OPF_LOCK 0x02    /* LOCK prefix */
#define OPF_REP 0x04     /* REP / REPE */
#define OPF_REPNE 0x08   /* REPNE */
#define OPF_NOFLAGS 0x10 /* no later instruction can observe the flags it writes */
#define OPF_BRANCH 0x80  /* ends its block; its handler sets rip (or faults) */

/* One decoded instruction. */
struct op {
    cpu_handler fn;
    int64_t imm;        /* immediate, branch target, or absolute moffs address */
    int32_t disp;       /* displacement (rip-relative: from c->rip, see above) */
    uint8_t len;        /* instruction length */
    uint8_t r1, r2;     /* register operands as byte offsets into struct cpu */
    uint8_t base, index;/* address registers as byte offsets (SLOT_ZERO: none) */
    uint8_t scale;      /* index shift, 0..3 */
    uint8_t seg;        /* enum cpu_seg */
    uint8_t size;       /* operand size in bytes, or a family-specific selector */
    uint8_t flags;      /* OPF_* */
    uint8_t x1, x2, x3; /* family-specific (e.g. xmm indexes, condition codes) */
};
_Static_assert(sizeof(struct op) == 32, "keep the decoded op at 32 bytes");

/* The end of every handler that does not end its block: go on with the
 * next op (a sibling call: a jump, not a nested frame; a block holds at
 * most BLOCK_MAX_OPS + 1 ops, which bounds the depth when a build does not
 * optimise it).  Storing the op is all the rip bookkeeping an op costs.
 * The empty asm makes the compiler step the op pointer in its own register
 * and jump through the op's first word (add, store, jmp *(reg)), where it
 * would otherwise load the handler and the next op into two more registers
 * and move one back (5 host instructions per op instead of 3; sha256_32's
 * Ir -7.8%). */
#define NEXT(c, op)                                                                     \
    do {                                                                                \
        __typeof__((op) + 1) next_ = (op) + 1;                                          \
        __asm__("" : "+r"(next_));                                                      \
        (c)->cur = next_;                                                               \
        next_->fn((c), next_);                                                          \
        return;                                                                         \
    } while (0)

/* c->cur outside a block: no length, so cpu_rip() is c->rip. */
extern const struct op cpu_op_exact;

/* The address of the instruction running (of the one about to run between
 * blocks): c->rip less the lengths from c->cur to the end of its block.
 * For the cold paths: faults, traps, unimplemented instructions. */
uint64_t cpu_rip(const struct cpu *c);

/* Make c->rip exact (rip: the address the guest is at now) for a handler
 * that leaves its block before the end or traps after its instruction. */
static inline void cpu_rip_set(struct cpu *c, uint64_t rip)
{
    c->rip = rip;
    c->cur = &cpu_op_exact;
}

/* The sentinel that ends a block whose last instruction is no branch. */
void op_block_end(struct cpu *c, const struct op *op);

/* ------------------------------------------------------------ register access */
#define GPR8(c, off) (*(uint8_t *)((char *)(c) + (off)))
#define GPR16(c, off) (*(uint16_t *)((char *)(c) + (off)))
#define GPR32(c, off) (*(uint32_t *)((char *)(c) + (off)))
#define GPR64(c, off) (*(uint64_t *)((char *)(c) + (off)))

/* Writes follow the x86_64 rules: 8/16-bit writes merge, 32-bit writes
 * zero-extend into the 64-bit register. */
static inline void set_gpr8(struct cpu *c, uint8_t off, uint64_t v) { GPR8(c, off) = (uint8_t)v; }
static inline void set_gpr16(struct cpu *c, uint8_t off, uint64_t v) { GPR16(c, off) = (uint16_t)v; }
static inline void set_gpr32(struct cpu *c, uint8_t off, uint64_t v) { GPR64(c, off) = (uint32_t)v; }
static inline void set_gpr64(struct cpu *c, uint8_t off, uint64_t v) { GPR64(c, off) = v; }

/* ------------------------------------------------------------ lifecycle */
void cpu_init(struct cpu *c, struct mm_space *mm, int bits);
void cpu_destroy(struct cpu *c);

/* A new CPU for a guest thread: parent's registers and FPU/SSE state, its
 * own decoded-block cache, not running.  NULL when out of memory.  The
 * caller adjusts rax/rsp/FS; cpu_free() destroys and frees it. */
struct cpu *cpu_clone(const struct cpu *parent);
void cpu_free(struct cpu *c);

/* Around a host fork (thread registry, syscalls/thread.c): hold the code
 * registry's lock across the fork; in the child only c's cache remains. */
void cpu_fork_prepare(struct mm_space *mm);
void cpu_fork_parent(struct mm_space *mm);
void cpu_fork_child(struct cpu *c);

/* Run until the guest exits or dies; the reason is in c->stop / c->stop_code. */
void cpu_run(struct cpu *c);

/* Execute exactly one instruction (tools that single-step); the outcome is
 * in c->stop as after cpu_run(). */
void cpu_step(struct cpu *c);

/* Stop the guest as if killed by sig (until guest signal delivery exists). */
void cpu_raise(struct cpu *c, int sig);

/* A synchronous fault at the current instruction (rip unchanged): SIGSEGV,
 * SIGFPE, SIGILL, SIGBUS, SIGTRAP with si_code and address.  Does not return. */
__attribute__((noreturn, cold)) void cpu_fault(struct cpu *c, int sig, int code, uint64_t addr);
/* The same for an exception whose vector the signal does not tell (BOUND's
 * #BR and INTO's #OF are SIGSEGV/SI_KERNEL like #GP): trap is the trapno the
 * handler's sigcontext shows. */
__attribute__((noreturn, cold)) void cpu_fault_trap(struct cpu *c, int sig, int code, uint64_t addr,
                                                    int trap);

/* The unimplemented-instruction path: log once, then SIGILL.  invalid is
 * true for bytes that are no instruction at all (the CPU's #UD). */
void cpu_unimplemented(struct cpu *c, const uint8_t *bytes, unsigned len, bool invalid);

/* Format the instruction at bytes (guest address addr) into buf, Intel syntax. */
void cpu_disasm(int bits, const uint8_t *bytes, unsigned len, uint64_t addr, char *buf,
                unsigned size);

/* The guest can now observe the flags at a fault (it installed a handler
 * for a fault signal, or has a second thread): drop the code decoded
 * without that (cpu/block.c "Flags at a fault"); once per space. */
void cpu_faults_observed(struct mm_space *mm);

/* Forget decoded code in [start, end) (munmap, mprotect, writes), in every
 * thread's cache: each drops its blocks there before it runs another one. */
void cpu_invalidate(struct cpu *c, uint64_t start, uint64_t end);
/* The host is about to write guest [start, end) for a syscall: forget the
 * code on pages elfemu write-protected there (cheap when there is none). */
void cpu_code_writable(struct cpu *c, uint64_t start, uint64_t end);

/* Guest signals (syscalls/signal.c): deliver what the host queued (the
 * dispatch loop calls it when CPU_ATTN_SIGNAL is up), and deliver the
 * synchronous fault recorded in c->fault_* (true: a handler frame was
 * pushed and the guest runs on; false: the guest died, c->stop says so). */
void sig_deliver(struct cpu *c);
bool sig_fault(struct cpu *c);

/* The syscall layer's entry (syscalls/dispatch.c): c->r[] hold the request. */
void sys_dispatch_64(struct cpu *c);
void sys_dispatch_32(struct cpu *c);

#endif
