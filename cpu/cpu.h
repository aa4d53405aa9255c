/* CPU state and the interpreter's interface.
 *
 * This is the seam DESIGN.md describes -- decode (cpu/decode.c) into a
 * compact op, dispatch (cpu/exec.c), one file per instruction family -- with
 * only the handful of instructions the foundation needs (cpu/ops_basic.c).
 * The full instruction set, the block cache and lazy flags come with the
 * CPU core issue; everything not implemented raises SIGILL for the guest and
 * is logged once with its address, bytes and disassembly. */
#ifndef CPU_CPU_H
#define CPU_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/space.h"

enum cpu_reg { R_AX, R_CX, R_DX, R_BX, R_SP, R_BP, R_SI, R_DI,
               R_8, R_9, R_10, R_11, R_12, R_13, R_14, R_15 };

/* Why the run loop stopped. */
enum cpu_stop { CPU_RUNNING, CPU_EXITED, CPU_SIGNALED };

struct cpu {
    uint64_t r[16];
    uint64_t rip;
    uint64_t rflags;
    uint64_t fs_base, gs_base;
    struct mm_space *mm;
    int bits;             /* 64 or 32 */
    enum cpu_stop stop;
    int stop_code;        /* exit status or signal number */
    bool log_unimplemented;
};

struct cpu_op;
typedef void (*cpu_handler)(struct cpu *c, const struct cpu_op *op);

/* A decoded memory operand: seg:[base + index*scale + disp]; 0xff = none. */
struct cpu_mem {
    int64_t disp;
    uint8_t base, index, scale;
    uint8_t seg;          /* 0 none, 4 fs, 5 gs */
    bool rip_relative;
};

/* One decoded instruction, small and self-contained: no Zydis structures. */
struct cpu_op {
    cpu_handler fn;
    int64_t imm;
    struct cpu_mem mem;
    uint8_t len;          /* instruction length */
    uint8_t size;         /* operand size in bytes */
    uint8_t dst, src;     /* register indexes */
};

#define RFLAGS_FIXED 0x2u /* bit 1 always reads as 1 */
#define RFLAGS_IF 0x200u  /* user mode always runs with interrupts enabled */

void cpu_init(struct cpu *c, struct mm_space *mm, int bits);

/* Run until the guest exits or dies; the reason is in c->stop / c->stop_code. */
void cpu_run(struct cpu *c);

/* Decode the instruction at c->rip into op; false and a pending guest
 * signal when the bytes cannot be fetched or are not an instruction. */
bool cpu_decode(struct cpu *c, struct cpu_op *op);

/* Stop the guest as if killed by sig (no guest signal handlers yet). */
void cpu_raise(struct cpu *c, int sig);

/* The unimplemented-instruction path: log once, then SIGILL.  invalid is
 * true for bytes that are no instruction at all (the CPU's #UD). */
void cpu_unimplemented(struct cpu *c, const uint8_t *bytes, unsigned len, bool invalid);

/* Format the instruction at bytes (guest address addr) into buf, Intel syntax. */
void cpu_disasm(int bits, const uint8_t *bytes, unsigned len, uint64_t addr, char *buf,
                unsigned size);

/* Handlers (cpu/ops_basic.c). */
void op_mov_Gv_Iv(struct cpu *c, const struct cpu_op *op);
void op_mov_Gv_Ev_reg(struct cpu *c, const struct cpu_op *op);
void op_lea_Gv_M(struct cpu *c, const struct cpu_op *op);
void op_nop(struct cpu *c, const struct cpu_op *op);
void op_syscall(struct cpu *c, const struct cpu_op *op);
void op_int80(struct cpu *c, const struct cpu_op *op);
void op_ud2(struct cpu *c, const struct cpu_op *op);
void op_int3(struct cpu *c, const struct cpu_op *op);
void op_privileged(struct cpu *c, const struct cpu_op *op);

/* The syscall layer's entry (syscalls/dispatch.c): c->r[] hold the request. */
void sys_dispatch_64(struct cpu *c);
void sys_dispatch_32(struct cpu *c);

#endif
